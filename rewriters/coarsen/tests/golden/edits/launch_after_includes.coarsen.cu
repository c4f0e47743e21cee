#include <cuda_runtime.h>
#include <nestor/dp.cuh>
__global__ void add_one(float *v, int n, dim3 _gDim) {
  // Coarsened by Nestor (strategy 1): each block runs NESTOR_CFACTOR original blocks.
  for (unsigned _bx = blockIdx.x; _bx < _gDim.x; _bx += gridDim.x) {
    const dim3 _bIdx(_bx, blockIdx.y, blockIdx.z);
    {
      int i = _bIdx.x * blockDim.x + threadIdx.x;
      if (i < n) v[i] += 1.0f;
    }
  }
}

// A child kernel directly after the #include line (issue #21): the runtime
// include and the code every DP rewrite and launch template puts before or
// after the child share an offset. Every offered rewrite applies
// (tests/rewrite/edits.cmake).
__global__ void rows_parent(float *v, const int *offsets, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int len = offsets[r + 1] - offsets[r];
    if (len > 0) {
      const dim3 _gDim((len + 127) / 128);
      add_one<<<nestor::dp::coarsen_x(_gDim, NESTOR_CFACTOR), 128>>>(v + offsets[r], len, _gDim);
    }
  }
}

void run(float *v, const int *offsets, int rows) {
  rows_parent<<<(rows + 255) / 256, 256>>>(v, offsets, rows);
  cudaDeviceSynchronize();
}
