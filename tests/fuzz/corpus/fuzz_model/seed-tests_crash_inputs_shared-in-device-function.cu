struct Opaque;
__device__ void helper(int *p) {
  __shared__ Opaque s[8];
  Opaque l[2];
  for (int i = 0; i < 8; ++i) p[i] = i;
}
__global__ void k(int *p) { helper(p); }
