__global__ void k(float *p, int n) {
#pragma np parallel for reduction(+:sum) copyin(undeclared[0:n])
  for (Opaque i = 0; i < n; ++i) p[i] += 1;
#pragma np parallel for
  struct Opaque s[4];
#pragma np
}
