__global__ void k(int n, float *out) {
  float vla[n];
  int grid[n][4];
  __shared__ float svla[n];
  for (int i = 0; i < n; ++i) vla[i] = out[i];
  out[threadIdx.x] = vla[0] + grid[0][0];
}
