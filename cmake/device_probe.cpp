// Run before every GPU test (cmake/run-gpu-test.sh): exits 0 when a CUDA
// device can be used; 77 (ctest: skipped) with "SKIP: <reason>" when there is
// no CUDA device (no driver installed, or the driver sees none); 1 with
// "FAIL: <reason>" when the driver or the runtime failed, and also when there
// is no device but NESTOR_EXPECT_GPU=1 (every GPU run sets it). The rules are
// nestor::test::probe_device (runtime/include/nestor/gpu_test.cuh), which
// the GPU test programs and benches apply themselves too.
#include "nestor/gpu_test.cuh"

int main() {
  nestor::test::DeviceStatus s = nestor::test::probe_device();
  if (s.exit_code != 0) std::printf("%s\n", s.message);
  return s.exit_code;
}
