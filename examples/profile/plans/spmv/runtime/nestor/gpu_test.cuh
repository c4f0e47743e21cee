// Shared by GPU tests and benches: device detection with the skip convention
// (exit 77 with a printed reason when no device can be used) and error checks.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define NESTOR_CUDA_CHECK(expr)                                                   \
  do {                                                                            \
    cudaError_t nestor_err_ = (expr);                                             \
    if (nestor_err_ != cudaSuccess) {                                             \
      std::fprintf(stderr, "%s:%d: CUDA error %s: %s\n", __FILE__, __LINE__,     \
                   cudaGetErrorName(nestor_err_), cudaGetErrorString(nestor_err_)); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

namespace nestor::test {
// Returns normally when a CUDA device is usable; otherwise prints why and exits 77,
// which ctest reports as "skipped" (SKIP_RETURN_CODE 77).
inline void require_gpu_or_skip() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::printf("SKIP: no CUDA device available (%s)\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
    std::exit(77);
  }
}
} // namespace nestor::test
