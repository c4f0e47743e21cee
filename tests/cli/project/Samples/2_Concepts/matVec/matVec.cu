#include "matVec_kernel.cuh"

__global__ void tmv(const float *a, const float *b, float *c, int w, int h) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float sum = 0;
  for (int i = 0; i < h; i++)
    sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}
