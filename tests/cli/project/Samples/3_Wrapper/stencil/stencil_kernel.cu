// Rodinia's layout: a .cu that only stencil.cu #includes; it is not in the
// compile database. RADIUS comes from the build (-DRADIUS=4).
__global__ void stencil(const float *in, float *out, int n) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float acc = 0;
  for (int k = 0; k < 2 * RADIUS + 1; k++)
    acc += in[tx * (2 * RADIUS + 1) + k];
  out[tx] = acc;
}
