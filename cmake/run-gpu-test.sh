#!/bin/sh
# run-gpu-test.sh PROBE PROGRAM [ARGS...]: runs a GPU test program when a CUDA
# device is usable; otherwise PROBE prints "SKIP: ..." and the test exits 77.
probe=$1
shift
"$probe" || exit $?
if [ ! -x "$1" ]; then
  echo "GPU test program $1 was not built: this build was configured without a GPU;"
  echo "reconfigure with -DNESTOR_BUILD_GPU_PROGRAMS=ON (or on the GPU machine) and build again."
  exit 1
fi
exec "$@"
