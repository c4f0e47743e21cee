// Shared by GPU tests, benches and nestor_device_probe (cmake/device_probe.cpp):
// device detection with the skip convention (exit 77 with a printed reason
// when there is no device, 1 when the driver or runtime failed) and error checks.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
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
// Whether a CUDA device can be used: exit_code 0 (yes), 77 (there is no CUDA
// device: no driver installed, or the driver sees none) or 1 (the driver or
// the runtime failed: a broken machine, never a skip). With
// NESTOR_EXPECT_GPU=1 (every GPU run sets it) "no device" is 1 as well.
// `message` starts with "SKIP: " or "FAIL: " (empty when usable).
struct DeviceStatus {
  int exit_code = 0;
  char message[512] = {};
};

inline DeviceStatus probe_device() {
  DeviceStatus s;
  const char* expect = std::getenv("NESTOR_EXPECT_GPU");
  const bool expect_gpu = expect && std::strcmp(expect, "1") == 0;
  auto none = [&](const char* reason, const char* detail) {
    s.exit_code = expect_gpu ? 1 : 77;
    std::snprintf(s.message, sizeof s.message, "%s%s (%s)", expect_gpu ? "FAIL: NESTOR_EXPECT_GPU=1 but " : "SKIP: ",
                  reason, detail);
    return s;
  };
  // Without a driver library the runtime reports cudaErrorInsufficientDriver,
  // the code of a driver that is too old as well: ask the loader first.
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) return none("no CUDA device: no CUDA driver is installed", "libcuda.so.1 not found");
  dlclose(driver);
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0))
    return none("no CUDA device", err == cudaSuccess ? "device count is 0" : cudaGetErrorString(err));
  if (err == cudaSuccess) err = cudaFree(nullptr); // usable, not only counted: a context can be made
  if (err != cudaSuccess) {
    s.exit_code = 1;
    std::snprintf(s.message, sizeof s.message,
                  "FAIL: a CUDA driver is installed but the driver or runtime failed: %s (%s)", cudaGetErrorString(err),
                  cudaGetErrorName(err));
  }
  return s;
}

// Returns normally when a CUDA device is usable; otherwise prints why and
// exits 77 (no device: ctest reports "skipped", SKIP_RETURN_CODE 77) or 1 (the
// driver or runtime failed, or NESTOR_EXPECT_GPU=1 and there is no device).
inline void require_gpu_or_skip() {
  DeviceStatus s = probe_device();
  if (s.exit_code != 0) {
    std::printf("%s\n", s.message);
    std::exit(s.exit_code);
  }
}
} // namespace nestor::test
