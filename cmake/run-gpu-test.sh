#!/bin/sh
# run-gpu-test.sh PROBE PROGRAM [ARGS...]: runs a GPU test program when a CUDA
# device is usable. Without a device PROBE prints "SKIP: ..." and the test
# exits 77 (ctest: skipped); when the driver or runtime failed PROBE prints
# "FAIL: ..." and the test fails. With NESTOR_EXPECT_GPU=1 (every GPU run sets
# it) any skip is a failure, also one the program itself reports with 77.
probe=$1
shift
"$probe" || exit $?
if ! command -v "$1" >/dev/null 2>&1; then
  echo "FAIL: GPU test program $1 was not built; build it (cmake --build BUILD --target $(basename "$1")) or the default target"
  exit 1
fi
"$@"
rc=$?
if [ "$rc" -eq 77 ] && [ "${NESTOR_EXPECT_GPU:-}" = 1 ]; then
  echo "FAIL: NESTOR_EXPECT_GPU=1 but the test skipped itself (exit 77)"
  exit 1
fi
exit "$rc"
