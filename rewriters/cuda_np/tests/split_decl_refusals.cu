// Multi-variable declarations that CUDA-NP (and sub-warp, which runs its
// planner) still refuses, each with the construct and its line; the forms it
// rewrites are in tests/fixtures/loops/split_decl.cu.
#include <cuda_runtime.h>

#define WINDOW(lo_v, hi_v) float lo_v = lo[i], hi_v = hi[i]

// Both declarators written by one macro: the text around each initialiser is
// the macro's, so neither can be wrapped in place.
__global__ void macro_pair(const float *lo, const float *hi, const int *start, const float *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  WINDOW(a, b);
  int cnt = 0;
  for (int k = start[i]; k < start[i + 1]; ++k) /*^macro_pair*/
    cnt += (v[k] >= a && v[k] <= b);
  out[i] = cnt;
}

// A reference beside a scalar: a slave has nothing to bind it to.
__global__ void with_reference(const float *lo, const float *hi, const int *start, const float *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float a = lo[i], &b = hi[i];
  int cnt = 0;
  for (int k = start[i]; k < start[i + 1]; ++k) /*^with_reference*/
    cnt += (v[k] >= a && v[k] <= b);
  out[i] = cnt;
}

// Two variables declared in the loop's own header: not a canonical counted
// loop for the model, so no loop rewrite is offered.
__global__ void header_pair(const int *start, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int k = start[i], end = start[i + 1]; k < end; ++k) /*^header_pair*/
    sum += v[k];
  out[i] = sum;
}

int main() {
  const int n = 1000;
  float *lo, *hi, *v, *sums;
  int *start, *out;
  cudaMalloc(&lo, n * sizeof(float));
  cudaMalloc(&hi, n * sizeof(float));
  cudaMalloc(&v, n * sizeof(float));
  cudaMalloc(&sums, n * sizeof(float));
  cudaMalloc(&start, (n + 1) * sizeof(int));
  cudaMalloc(&out, n * sizeof(int));
  macro_pair<<<(n + 127) / 128, 128>>>(lo, hi, start, v, out, n);
  with_reference<<<(n + 127) / 128, 128>>>(lo, hi, start, v, out, n);
  header_pair<<<(n + 127) / 128, 128>>>(start, v, sums, n);
  return cudaDeviceSynchronize() != cudaSuccess;
}
