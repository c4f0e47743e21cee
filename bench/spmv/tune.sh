#!/usr/bin/env bash
# Device run of the merge-path tuning sweep (mp_tune.cu): build with nvcc
# alone, run on the bench matrices; output under $OUT.   bench/spmv/tune.sh [MATRICES]
set -uo pipefail
MATRICES=${1:-"powerlaw:100000 powerlaw:1000000 regular:1000000 longrows:1000000"}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
start=$(date +%s)
nvcc -arch=sm_90 -O3 -std=c++17 -Iruntime/include -Itests/fixtures/loops -Ibench/spmv -Xptxas -v bench/spmv/mp_tune.cu \
  -lcusparse -o /tmp/mp_tune > $OUT/tune_build.log 2>&1 || { tail -30 $OUT/tune_build.log; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
for m in $MATRICES; do
  /tmp/mp_tune --graph ${m%%:*} --rows ${m##*:} --reps ${REPS:-20} 2>&1 | tee -a $OUT/tune.txt
  echo "t: $(( $(date +%s) - start )) s"
done
