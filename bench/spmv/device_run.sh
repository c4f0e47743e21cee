#!/usr/bin/env bash
# One device call for issue 23: configure (no LLVM), build the merge-path GPU
# programs, the soundness program of csr_spmv's merge-path golden and
# everything bench_spmv runs, run the merge-path GPU equivalence tests, then
# bench/spmv. Output under $OUT (gpu.txt, build.log, ctest.log, bench.txt).
#   bench/spmv/device_run.sh [REPS]
set -uo pipefail
REPS=${1:-20}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
start=$(date +%s)
cmake -S . -B build-gpu -DNESTOR_ENABLE_LLVM=OFF -DNESTOR_BUILD_GPU_PROGRAMS=ON -DCMAKE_BUILD_TYPE=Release > $OUT/configure.log 2>&1 ||
  { tail -30 $OUT/configure.log; exit 1; }
cmake --build build-gpu -j 16 --target bench_spmv merge_path_gpu_programs soundness_orig_memory \
  soundness_rw_memory_csr_spmv_0_merge_path > $OUT/build.log 2>&1 || { grep -B2 -A12 "error" $OUT/build.log | head -60; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
cd build-gpu
NESTOR_EXPECT_GPU=1 ctest -R "merge_path_equiv|soundness_gpu.memory.csr_spmv.0.merge-path" -j 8 --timeout 120 \
  --output-on-failure > $OUT/ctest.log 2>&1
echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" $OUT/ctest.log | tail -20
echo "tests: $(( $(date +%s) - start )) s"
NESTOR_EXPECT_GPU=1 timeout 400 bench/spmv/run_bench.sh "$REPS" 2>&1 | tee $OUT/bench.txt
echo "bench rc=${PIPESTATUS[0]}; total: $(( $(date +%s) - start )) s"
