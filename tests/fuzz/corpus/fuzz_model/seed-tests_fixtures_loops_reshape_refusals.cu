// Launches that need reshaping (S slaves x 256 threads > 1024) where the
// kernel's thread identity would not survive it: each is refused with the
// construct and its line.
#include "loops_harness.cuh"

__global__ void staged(const float *a, float *out, int m) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = a[i];
  float s = 0.0f;
  for (int j = 0; j < m; ++j) s += a[(long long)i * m + j] * tile[j % 256];
  out[i] = s;
}

__global__ void block_sum(const float *a, float *out, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = 0; j < m; ++j) s += a[(long long)i * m + j];
  out[blockIdx.x] += s;
}

__global__ void grid_read(const float *a, float *out, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = 0; j < m; ++j) s += a[(long long)i * m + j];
  out[i] = s / gridDim.x;
}

__global__ void two_d(const float *a, float *out, int m) {
  int i = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = 0; j < m; ++j) s += a[(long long)i * m + j];
  out[i] = s;
}

__global__ void runtime_inter(const float *a, float *out, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = 0; j < m; ++j) s += a[(long long)i * m + j];
  out[i] = s;
}

__global__ void runtime_side_effect(const float *a, float *out, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = 0; j < m; ++j) s += a[(long long)i * m + j];
  out[i] = s;
}

// The block is written inside the macro's body: rewriting it in place would
// change every use of the macro.
#define LAUNCH_256(k, g, ...) k<<<g, 256>>>(__VA_ARGS__)
__global__ void macro_block(const float *a, float *out, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = 0; j < m; ++j) s += a[(long long)i * m + j];
  out[i] = s;
}

void launch(const float *a, float *out, int m, int threads, int n) {
  staged<<<n / 256, 256>>>(a, out, m);
  block_sum<<<n / 256, 256>>>(a, out, m);
  grid_read<<<n / 256, 256>>>(a, out, m);
  two_d<<<n / 256, dim3(32, 8)>>>(a, out, m);
  runtime_inter<<<n / threads, threads>>>(a, out, m);
  runtime_side_effect<<<n / threads, threads++>>>(a, out, m);
  LAUNCH_256(macro_block, n / 256, a, out, m);
}
