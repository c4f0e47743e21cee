// Not self-contained: ROWS comes from the build (-DROWS=64), twice() from
// Common/ through -I. Linted alone it does not parse.
#pragma once
#include "helper_nestor.cuh"

__global__ void matVecKernel(const float *a, const float *b, float *c, int w) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float sum = 0;
  for (int i = 0; i < ROWS; i++)
    sum += twice(a[i * w + tx]) * b[i];
  c[tx] = sum;
}
