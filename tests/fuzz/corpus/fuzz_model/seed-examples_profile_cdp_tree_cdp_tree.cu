// Host and device (CDP) launches for the injection-library test:
//   scale_kernel   host launch, grid 4 x block 128
//   parent_kernel  host launch, grid 2 x block 32; thread 0 of each block
//                  launches child_kernel (grid 8 x block 64) from the device
// Prints a checksum on stdout and, on stderr, the event-timed duration of the
// parent launch (children included). `--no-cdp` skips the parent
// (range-profiler metrics runs). Built with -DNESTOR_FLAT_LAUNCH, the host
// launches the child grids itself instead (the non-CDP variant of
// examples/profile/cdp_tree/plan.json); the results are identical.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(expr)                                                                        \
  do {                                                                                     \
    cudaError_t e_ = (expr);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

constexpr int kChildGrid = 8, kChildBlock = 64, kChildIterations = 200000;

__global__ void scale_kernel(float* data, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

// Busy work long enough (about a millisecond) that a parent record that
// leaves the children out is visibly shorter than the parent's real time.
__global__ void child_kernel(float* out, int parent_block) {
  float x = threadIdx.x * 1e-3f + parent_block;
  for (int i = 0; i < kChildIterations; ++i) x = x * 0.999999f + 1e-6f;
  out[(parent_block * kChildGrid + blockIdx.x) * kChildBlock + threadIdx.x] = x;
}

__global__ void parent_kernel(float* out) {
  if (threadIdx.x == 0) child_kernel<<<kChildGrid, kChildBlock>>>(out, blockIdx.x);
}

int main(int argc, char** argv) {
  bool cdp = !(argc > 1 && std::strcmp(argv[1], "--no-cdp") == 0);
  const int n = 512, parents = 2, children = parents * kChildGrid * kChildBlock;
  float *data = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&data, n * sizeof(float)));
  CHECK(cudaMalloc(&out, children * sizeof(float)));
  CHECK(cudaMemset(data, 0, n * sizeof(float)));
  CHECK(cudaMemset(out, 0, children * sizeof(float)));
  scale_kernel<<<4, 128>>>(data, n, 2.0f);
  CHECK(cudaGetLastError());
  float parent_ms = 0;
  if (cdp) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
#ifdef NESTOR_FLAT_LAUNCH
    for (int p = 0; p < parents; ++p) child_kernel<<<kChildGrid, kChildBlock>>>(out, p);
#else
    parent_kernel<<<parents, 32>>>(out);
#endif
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&parent_ms, start, stop));
  }
  CHECK(cudaDeviceSynchronize());
  static float host[children];
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  double checksum = 0;
  for (float v : host) checksum += v;
  std::fprintf(stderr, "parent_with_children_ms=%.4f\n", parent_ms);
  std::printf("checksum=%.6e\n", checksum);
  CHECK(cudaFree(data));
  CHECK(cudaFree(out));
  return 0;
}
