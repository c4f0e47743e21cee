// Exits 0 when a CUDA device can be used, else prints why and exits 77 (ctest:
// skipped). Run before every GPU test (cmake/run-gpu-test.sh), so GPU tests skip
// with a reason on machines without a GPU, where their programs are not built.
#include <cstdio>
#include <cuda_runtime.h>

int main() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::printf("SKIP: no CUDA device available (%s)\n", err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
    return 77;
  }
  return 0;
}
