#!/usr/bin/env bash
# bench/mapping, step 2 of 3 (on a GPU machine, no LLVM needed): runs every
# plan that plan.sh wrote with nestor-runner, timing every variant (no budget).
#   bench/mapping/measure.sh RUNNER PLANS_DIR [CASE...]
# RUNNER: a nestor-runner built with -DNESTOR_ENABLE_LLVM=OFF; writes
# PLANS_DIR/<case>/results.json and prints the runner's table for each case.
# BENCH_ARCHIVE=FILE.tgz: after every case, packs every results.json so far
# into that one file (a device tool that returns few files, or a run cut by
# its time limit, still brings back all that was measured: issue 22 lost 18
# of 21 held-out results to a per-run file limit).
set -euo pipefail
runner="$1"; plans="$2"; shift 2
[ -x "$runner" ] || { echo "measure.sh: no nestor-runner at $runner" >&2; exit 2; }
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for d in "$plans"/*/plan.json; do cases+=("$(basename "$(dirname "$d")")"); done
fi
for c in "${cases[@]}"; do
  echo "== $c ($(date +%T))"
  start=$(date +%s)
  "$runner" "$plans/$c/plan.json" -o "$plans/$c/results.json" --fresh || echo "measure.sh: $c: nestor-runner exit $?"
  echo "== $c took $(( $(date +%s) - start )) s"
  if [ -n "${BENCH_ARCHIVE:-}" ]; then
    (cd "$plans" && find . -name results.json -print0 | tar -czf "$BENCH_ARCHIVE" --null -T -)
  fi
done
