#!/usr/bin/env bash
# Builds and runs the runtime-header GPU tests and bench_loops_runtime on a GPU
# machine with nvcc only (no LLVM). Logs go to $1 (default ./runtime-loops-logs).
# Uses the project's CMake (ctest -L gpu -R runtime); if the configure step
# fails for reasons outside these targets, builds the same sources with nvcc
# directly so that the runtime can still be checked.
set -u
out=${1:-runtime-loops-logs}
build=${BUILD_DIR:-/tmp/nestor-runtime-loops}
mkdir -p "$out"
targets="runtime_np_intra_test runtime_np_inter_test runtime_np_arrays_test runtime_cte_test runtime_subwarp_test bench_loops_runtime"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
if cmake -S . -B "$build" -DNESTOR_ENABLE_LLVM=OFF > "$out/configure.log" 2>&1; then
  echo "configure: ok"
  cmake --build "$build" -j"$(nproc)" --target $targets > "$out/build.log" 2>&1
  echo "build rc=$?"
  NESTOR_EXPECT_GPU=1 ctest --test-dir "$build" -L gpu -R runtime --output-on-failure > "$out/ctest.log" 2>&1
  echo "ctest rc=$?"
  bench="$build/bench/loops/bench_loops_runtime"
else
  echo "configure failed (see configure.log); building with nvcc directly"
  direct="$build/direct"
  mkdir -p "$direct"
  flags="-std=c++17 -O2 -arch=sm_90 --extended-lambda -I runtime/include -I tests/runtime"
  for t in np_intra_test np_inter_test np_arrays_test cte_test subwarp_test; do
    nvcc $flags "tests/runtime/$t.cu" -o "$direct/$t" > "$out/build_$t.log" 2>&1 &
  done
  nvcc $flags -lineinfo -DNESTOR_HAVE_CUSPARSE=1 bench/loops/spmv_runtime_bench.cu -lcusparse \
    -o "$direct/bench_loops_runtime" > "$out/build_bench.log" 2>&1 &
  wait
  for t in np_intra_test np_inter_test np_arrays_test cte_test subwarp_test; do
    "$direct/$t" > "$out/$t.log" 2>&1
    echo "$t rc=$?" | tee -a "$out/ctest.log"
  done
  bench="$direct/bench_loops_runtime"
fi
"$bench" > "$out/bench.log" 2>&1
echo "bench rc=$?"
