#include <cuda_runtime.h>
#include <nestor/dp.cuh>
__global__ void add_one(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 1.0f;
}

// Serial form of add_one (Nestor threshold rewrite): runs every thread of a
// <<<_gDim, _bDim>>> launch in the calling thread; `return` ends one child thread.
__device__ void add_one__serial(float *v, int n, dim3 _gDim, dim3 _bDim) {
  nestor::dp::serial_for_each(_gDim, _bDim, [&](const nestor::dp::serial_ctx& _ctx) {
    int i = _ctx.blockIdx.x * _ctx.blockDim.x + _ctx.threadIdx.x;
    if (i < n) v[i] += 1.0f;
  });
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
      const auto __threads = len;
      const dim3 _gDim((__threads + 127) / 128), _bDim(128);
      if (__threads >= NESTOR_THRESHOLD) {
        add_one<<<_gDim, _bDim>>>(v + offsets[r], len);
      } else {
        add_one__serial(v + offsets[r], len, _gDim, _bDim);
      }
    }
  }
}

void run(float *v, const int *offsets, int rows) {
  rows_parent<<<(rows + 255) / 256, 256>>>(v, offsets, rows);
  cudaDeviceSynchronize();
}
