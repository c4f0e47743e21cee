// Trip counts near the ends of int64: h - l, the step's negation and the
// rounding must not overflow (UBSan aborts the sanitized run on that).
__global__ void k(float *p) {
  for (long long i = -9223372036854775807LL - 1; i < 9223372036854775807LL; i++) p[0] = 1;
  for (long long i = 9223372036854775807LL; i >= -9223372036854775807LL - 1; --i) p[1] = 2;
  for (long long i = 0; i < 10; i -= -9223372036854775807LL - 1) p[2] = 3;
  for (long long i = 10; i > 0; i -= -9223372036854775807LL - 1) p[3] = 4;
  for (long long i = 0; i <= 9223372036854775807LL; i += 9223372036854775807LL) p[4] = 5;
  for (unsigned long long i = 0; i <= 18446744073709551615ull; i += 3) p[5] = 6;
}
