struct Opaque;
__global__ void k(float *p, int n) {
  auto body = [&](int i) { Opaque tmp[2]; p[i] = 0; };
  struct Local { Opaque member[3]; };
  __shared__ Local l[2];
  for (int i = 0; i < n; ++i) body(i);
}
