// Each parent thread expands one segment. With dynamic parallelism (compute
// capability 3.5 and up) a child grid does it; the #else branch is the
// fallback a host-side compilation (or an older GPU) sees.
#include <cstdio>
#include <vector>
#include <nestor/dp.cuh>

__global__ void expand_segment(const int *values, int *out, int begin, int count, int scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[begin + i] = values[begin + i] * scale;
}

// Serial form of expand_segment (Nestor threshold rewrite): runs every thread of a
// <<<_gDim, _bDim>>> launch in the calling thread; `return` ends one child thread.
__device__ void expand_segment__serial(const int *values, int *out, int begin, int count, int scale, dim3 _gDim, dim3 _bDim) {
  nestor::dp::serial_for_each(_gDim, _bDim, [&](const nestor::dp::serial_ctx& _ctx) {
    int i = _ctx.blockIdx.x * _ctx.blockDim.x + _ctx.threadIdx.x;
    if (i < count) out[begin + i] = values[begin + i] * scale;
  });
}

__global__ void expand_all(const int *offsets, const int *values, int *out, int segments, int scale) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= segments) return;
  int begin = offsets[s];
  int count = offsets[s + 1] - begin;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 350
  if (count > 0) {
    const auto __threads = count;
    const dim3 _gDim((__threads + 31) / 32), _bDim(32);
    if (__threads >= NESTOR_THRESHOLD) {
      expand_segment<<<_gDim, _bDim>>>(values, out, begin, count, scale);
    } else {
      expand_segment__serial(values, out, begin, count, scale, _gDim, _bDim);
    }
  }
#else
  for (int i = 0; i < count; ++i) out[begin + i] = values[begin + i] * scale;
#endif
}

int main() {
  const int segments = 700;
  std::vector<int> offsets(segments + 1, 0);
  for (int s = 0; s < segments; ++s) offsets[s + 1] = offsets[s] + (s * 131) % 97;
  int n = offsets[segments];
  std::vector<int> values(n);
  for (int i = 0; i < n; ++i) values[i] = (i * 17) % 1000;
  int *d_offsets, *d_values, *d_out;
  cudaMalloc(&d_offsets, (segments + 1) * sizeof(int));
  cudaMalloc(&d_values, n * sizeof(int));
  cudaMalloc(&d_out, n * sizeof(int));
  cudaMemcpy(d_offsets, offsets.data(), (segments + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_values, values.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0, n * sizeof(int));
  expand_all<<<(segments + 127) / 128, 128>>>(d_offsets, d_values, d_out, segments, 3);
  std::vector<int> out(n);
  cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  int bad = cudaGetLastError() != cudaSuccess;
  for (int i = 0; i < n; ++i) bad += out[i] != values[i] * 3;
  std::printf("%s: %d mismatches\n", bad ? "FAIL" : "PASS", bad);
  cudaFree(d_offsets);
  cudaFree(d_values);
  cudaFree(d_out);
  return bad != 0;
}
