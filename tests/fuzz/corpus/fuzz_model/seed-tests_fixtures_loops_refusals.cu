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
#pragma np parallel for reduction(+:s)
  for (int j = 0; j < m; ++j) s += a[threadIdx.x * m + j];
  s += __shfl_down_sync(0xffffffffu, s, 1);
  out[threadIdx.x] = s;
}

__global__ void regular_loop(float *out, const float *a, int m) {
  float s = 0.0f;
  for (int j = 0; j < m; ++j) s += a[threadIdx.x * m + j];
  out[threadIdx.x] = s;
}

__global__ void nested_in_while(float *out, const float *a, int m) {
  float s = 0.0f;
  while (s < 100.0f) {
    for (int j = 0; j < m; ++j) s += a[threadIdx.x * m + j];
  }
  out[threadIdx.x] = s;
}

__global__ void subtract_loop(float *out, const float *a, const int *lo, const int *hi) {
  float s = 0.0f;
  for (int j = lo[threadIdx.x]; j < hi[threadIdx.x]; ++j) s -= a[j];
  out[threadIdx.x] = s;
}

__global__ void per_thread_steps(float *out, const float *a, const int *steps, int m) {
  float s = 0.0f;
  for (int t = 0; t < steps[threadIdx.x]; ++t) {
    for (int j = 0; j < m; ++j) s += a[threadIdx.x * m + j] * t;
  }
  out[threadIdx.x] = s;
}

__global__ void aliasing_exclusive_scan(float *out, const float *a, int m) {
  float run = 0.0f;
#pragma np parallel for scan(+:run)
  for (int j = 0; j < m; ++j) {
    out[threadIdx.x * m + j] = run;
    run += a[threadIdx.x * m + j];
  }
}

__global__ void big_array_on_stream(float *out, const float *a, const int *pick) {
  float big[200];
#pragma np parallel for
  for (int j = 0; j < 200; ++j) big[j] = a[threadIdx.x * 200 + j];
  out[threadIdx.x] = big[pick[threadIdx.x] % 200];
}

__global__ void big_array_address_taken(float *out, const float *a, const int *pick) {
  float big[200];
#pragma np parallel for
  for (int j = 0; j < 200; ++j) big[j] = a[threadIdx.x * 200 + j];
  out[threadIdx.x] = big[pick[threadIdx.x] % 200];
}

__global__ void return_in_branch(float *out, const float *a, int m) {
  float s = 0.0f;
  if (threadIdx.x < 100) {
    if (a[threadIdx.x] < 0.0f) return;
    for (int j = 0; j < m; ++j) s += a[threadIdx.x * m + j];
  }
  out[threadIdx.x] = s;
}

void launch(float *out, const float *a, int m, int threads, cudaStream_t stream) {
  return_in_branch<<<1, 128>>>(out, a, m);
  big_array_address_taken<<<1, 128>>>(out, a, nullptr);
  cudaFuncSetAttribute(big_array_address_taken, cudaFuncAttributePreferredSharedMemoryCarveout, 50);
  big_array_on_stream<<<1, 128, 0, stream>>>(out, a, nullptr);
  aliasing_exclusive_scan<<<1, 128>>>(out, a, m);
  per_thread_steps<<<1, 128>>>(out, a, nullptr, m);
  nested_in_while<<<1, 128>>>(out, a, m);
  subtract_loop<<<1, 128>>>(out, a, nullptr, nullptr);
  big_block<<<1, 512>>>(out, a, m);
  uses_shuffle<<<1, 128>>>(out, a, m);
  regular_loop<<<1, 128>>>(out, a, m);
  (void)threads;
}
