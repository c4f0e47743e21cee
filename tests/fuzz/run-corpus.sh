#!/usr/bin/env bash
# ctest driver of a fuzz target (tests/fuzz/CMakeLists.txt): a fixed number
# of runs over the committed corpus. New inputs go into WORK (the build tree),
# crash/timeout/leak files into WORK/artifacts; the source tree is read only.
# Usage: run-corpus.sh TARGET CORPUS_DIR WORK RUNS [libFuzzer flags...]
set -euo pipefail
target=$1 corpus=$2 work=$3 runs=$4
shift 4
rm -rf "$work"
mkdir -p "$work/new" "$work/artifacts"
exec "$target" -runs="$runs" -seed=1 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$@" "$work/new" "$corpus"
