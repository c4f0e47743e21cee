__global__ void k(int *p, int n) {
  goto inside;
  for (int i = 0; i < n; ++i) {
  inside:
    p[i] = i;
  }
  __syncthreads();
}
