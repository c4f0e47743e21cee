#!/usr/bin/env bash
# One device call for issue 23: configure (no LLVM), build the merge-path GPU
# programs, the soundness program of csr_spmv's merge-path golden, dpar-opt's
# runtime test and what bench_spmv runs, run the merge-path and dpar-opt GPU
# tests, then bench/spmv and (TUNE=1) the tuning sweep. Output under $OUT
# (gpu.txt, build.log, ctest.log, bench.txt, tune.txt).
#   bench/spmv/device_run.sh [REPS]
# BENCH_TARGETS: what the bench runs (default bench_spmv: every offered
# variant; a list of program targets times only those, e.g.
# "bench_loops_refs bench_spmv_check loops_orig_spmv_csr tmpl_rw_spmv_csr_dbuf_global_128").
set -uo pipefail
REPS=${1:-20}
BENCH_TARGETS=${BENCH_TARGETS:-bench_spmv}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
start=$(date +%s)
cmake -S . -B build-gpu -DNESTOR_ENABLE_LLVM=OFF -DNESTOR_BUILD_GPU_PROGRAMS=ON -DCMAKE_BUILD_TYPE=Release > $OUT/configure.log 2>&1 ||
  { tail -30 $OUT/configure.log; exit 1; }
cmake --build build-gpu -j 16 --target $BENCH_TARGETS merge_path_gpu_programs soundness_orig_memory \
  soundness_rw_memory_csr_spmv_0_merge_path runtime_dpar_opt_test > $OUT/build.log 2>&1 ||
  { grep -B2 -A12 "error" $OUT/build.log | head -60; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
if [ "${TUNE:-0}" = 1 ]; then
  nvcc -arch=sm_90 -O3 -std=c++17 -Iruntime/include -Itests/fixtures/loops -Ibench/spmv -Xptxas -v bench/spmv/mp_tune.cu \
    -lcusparse -o /tmp/mp_tune > $OUT/tune_build.log 2>&1 &
  tune_pid=$!
fi
cd build-gpu
NESTOR_EXPECT_GPU=1 ctest -R "merge_path_equiv|soundness_gpu.memory.csr_spmv.0.merge-path|runtime_dpar_opt_test" -j 8 \
  --timeout 120 --output-on-failure > $OUT/ctest.log 2>&1
echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" $OUT/ctest.log | tail -20
echo "tests: $(( $(date +%s) - start )) s"
NESTOR_EXPECT_GPU=1 timeout ${BENCH_TIMEOUT:-400} bench/spmv/run_bench.sh "$REPS" 2>&1 | tee $OUT/bench.txt
echo "bench rc=${PIPESTATUS[0]}; t: $(( $(date +%s) - start )) s"
cd ..
if [ "${TUNE:-0}" = 1 ]; then
  wait $tune_pid || { tail -30 $OUT/tune_build.log; exit 1; }
  # KIND:ROWS[:AVG] (AVG: average entries per row, 16 unless given)
  for m in ${TUNE_MATRICES:-powerlaw:100000 powerlaw:1000000 regular:1000000}; do
    IFS=: read -r kind rows avg <<< "$m"
    /tmp/mp_tune --graph "$kind" --rows "$rows" ${avg:+--avg "$avg"} --reps ${REPS} 2>&1 | tee -a $OUT/tune.txt
    echo "tune t: $(( $(date +%s) - start )) s"
  done
fi
echo "total: $(( $(date +%s) - start )) s"
