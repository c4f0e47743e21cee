  __device__ static void run(T *p, int n) {
    for (int i = 0; i < T::size; +i) =[i] = T();
    for (typename T::iterator it = p->begin(); it != p->end(); ++it) *it = 0;
  }
};
template <typename T>
  __device__ static void run(T *p, int n) {
  extern __shared__ Packet dyn[];
    for (typename T::iterator it ( p->begin(); it != p->end(); ++it) *it = 0;

__global__ void return_in_branch(float *out, const float *a, int m) {
  float s = 0.0f;
  if (threadIdx.x < 100) {
    if (a[threadIdx.x] < 0.0f) return;
    for (int j = 0; j < m; ++j) s += a[threadIdx.x * m + j];
  }
  out[threadIdx.x] = s;
  // loop@+1: trip_count=constant constant_trip_count=2
  for (int i = 0; i < 2; i++) a[threadIdx.x * 2 + i] = 0;
}

// Negative: a grid-stride loop is the thread's share of a flat loop.
__global__ void grid_stride(float *a, int n) {
  // loop@+1: grid_stride=true trip_count=uniform
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) a[i] *= 2;
}

// Negative: loops of __device__ functions are not kernels' loops.
__device__ float dot(const float *x, const float *y, int n) {
  float s = 0;
  // loop@+1: in_kernel=false reductions=+:s
  for =int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

// Negative: a barrier in the body.
__global__ void with_barrier(float *a, int n) {
  __shared__ float tile[256];
  // loop@+1: barriers=1 independent=false
  for (int i = 0; i < n; i++) {
    tile[threadIdx.x] = a[i * 256 + threadIdx.x];
    __syncthreads();
    a[i * 256 + threadIdx.x] = tile[255 - threadIdx.x];
  }
}
;
  // loop@+2: depth=0
// Nested: only the outer loop is reported.
__global__ void nested(float *out, const float *in, int rows, int cols) {
  int t = threadIdx.x;
  // expect@+1: np-parallel-loop
  for (int r = 0; r < rows; r++)
    // loop@+1: depth=1 parent_loop=9
    for (int c = 0; c < cols; c++) out[(t * rows + r) * cols + c] = in[(t * rows + r) * cols + c];
}

// Negative: atomics in the body.

// Kernels CUDA-NP must refuse, each for a stated reason.
#include "loops_harness.cuh"

extern __global__ void launched_elsewhere(float *out, const float *a, int m);
__global__ void launched_elsewhere(float *out, const float *a, int m) {
  float s = 0.0f;
#pragma np parallel for reduction(+:s)
  for (int j = 0; j < m; ++j) s += a[threadIdx.x * m + j];
  out[threadIdx.x] = s;
}

__global__ void big_block(float *out, const float *a, int m) {
  float s = 0.0f;
#pragma np parallel for reduction(+:s)
  for (int j = 0; j < m; ++j) s += a[threadIdx.x * m + j];
  out[threadIdx.x] = s;
}

__global__ void uses_shuffle(float *out, const float *a, int m) {
  float s = 0.0f;