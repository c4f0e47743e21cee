#!/usr/bin/env bash
# The corpus' whole GPU run on a machine with nvcc and a GPU but no LLVM:
# configure, build only the corpus' programs, run its GPU tests (label gpu,
# NESTOR_EXPECT_GPU=1: a skip fails), then time every variant.
#   tests/peer_shapes/gpu_run.sh OUT_DIR [JOBS] [PROGRAMS]
# PROGRAMS: a regular expression of the programs to test and time (all by default).
# Writes OUT_DIR/{gpu.txt,configure.log,build.log,ctest.log,timings.md}.
set -uo pipefail
out="${1:?usage: gpu_run.sh OUT_DIR [JOBS] [PROGRAMS]}"
jobs="${2:-16}"
programs="${3:-.*}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
nvcc --version | tail -2 >> "$out/gpu.txt"
start=$(date +%s)
cmake -S . -B build-peer -DNESTOR_ENABLE_LLVM=OFF -DNESTOR_BUILD_GPU_PROGRAMS=ON -DCMAKE_BUILD_TYPE=Release \
  > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-peer -j "$jobs" --target peer_shapes_gpu_programs > "$out/build.log" 2>&1 ||
  { grep -B2 -A12 "error" "$out/build.log" | head -80; exit 1; }
echo "configure + build: $(( $(date +%s) - start )) s"
(cd build-peer && NESTOR_EXPECT_GPU=1 ctest -R "^peer_shapes_[a-z]+\.($programs)\." -L gpu -j 8 --timeout 300 --output-on-failure \
  > "$out/ctest.log" 2>&1)
rc=$?
grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" "$out/ctest.log" | tail -40
echo "tests: $(( $(date +%s) - start )) s"
grep -E "^($programs) " build-peer/tests/peer_shapes/manifest.txt > build-peer/tests/peer_shapes/manifest.selected.txt
tests/peer_shapes/time_corpus.sh build-peer/tests/peer_shapes/manifest.selected.txt 120 > "$out/timings.md"
trc=$?
cat "$out/timings.md"
echo "total: $(( $(date +%s) - start )) s"
[ $rc -eq 0 ] && [ $trc -eq 0 ]
