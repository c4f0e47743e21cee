__global__ void k(float *p, int n) {
  for (__int128 i = 0; i < ((__int128)1 << 100); i += ((__int128)1 << 90)) p[0] += 1;
  for (int i = 0; i < 10; i += 0) p[i] = 0;
  for (unsigned long long i = 0; i < 18446744073709551615ull; ++i) p[i & 7] = 1;
  for (int i = 10; i > -2147483647 - 1; i -= 2147483647) p[0] = 2;
  for (float f = 0; f < 1e30f; f *= 2) p[1] = f;
  for (int i = 0; i < 1 / 0; ++i) p[i] = 3;
  for (;;) break;
}
