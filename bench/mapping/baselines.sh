#!/usr/bin/env bash
# bench/mapping: a case file's baselines on a GPU machine (nvcc only, no LLVM,
# no nestor-runner): builds every case's program as written (its 9th-column
# macros as -D flags), runs it twice with --out and --reps R, and checks the
# two outputs agree (exactly for integer results, tolerance 0; within the
# case's tolerance for float32 results). Fixing a held-out set checks this
# before it is committed: a case must be deterministic and its baseline must
# run in the time window the plans assume.
#   bench/mapping/baselines.sh CASES OUTDIR [REPS]
# Writes OUTDIR/baselines.tsv (case, status, time of each run in ms as the
# program prints it: the harness's median of R kernel runs for the loop
# programs, the median or best of R whole runs for the graph and tree
# programs) and OUTDIR/logs/; the programs are built in BIN_DIR (default
# OUTDIR/bin).
set -uo pipefail
cases="$1"; out="$2"; reps="${3:-10}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
nvcc="${NVCC:-nvcc}"
bin="${BIN_DIR:-$out/bin}"
mkdir -p "$bin" "$out/logs"
out="$(cd "$out" && pwd)"; bin="$(cd "$bin" && pwd)"
inc="-I$repo/tests/fixtures/loops -I$repo/examples/graph -I$repo/examples/trees -I$repo/runtime/include"
# Build every case in parallel.
while IFS=$'\t' read -r name source kernel args sizes tolerance rdc skew defines; do
  case "$name" in ''|'#'*) continue ;; esac
  dflags=""
  if [ -n "${defines:-}" ]; then IFS=',' read -ra defs <<<"$defines"; for d in "${defs[@]}"; do dflags+=" -D$d"; done; fi
  if [ "$rdc" = yes ]; then flags="-rdc=true"; libs="-lcudadevrt"; else flags=""; libs=""; fi
  echo "$nvcc -O3 -arch=sm_90 -std=c++17 $flags $inc $dflags -o $bin/$name $repo/$source $libs > $out/logs/$name.build.log 2>&1 || echo 'build failed: $name'"
done < "$cases" | xargs -d '\n' -P "${JOBS:-16}" -I{} sh -c '{}'
# The float32 outputs agree when every value is within tol of the other, relative to max(1, |value|).
agree_f32() {
  paste <(od -An -v -f -w4 "$1") <(od -An -v -f -w4 "$2") |
    awk -v tol="$3" '{d = $1 - $2; if (d < 0) d = -d; m = ($1 < 0 ? -$1 : $1); if (m < 1) m = 1;
                      if (d > tol * m || $1 != $1 || $2 != $2) bad++; n++} END {exit !(n > 0 && !bad)}'
}
printf 'case\tstatus\trun1_ms\trun2_ms\n' > "$out/baselines.tsv"
while IFS=$'\t' read -r name source kernel args sizes tolerance rdc skew defines; do
  case "$name" in ''|'#'*) continue ;; esac
  if [ ! -x "$bin/$name" ]; then printf '%s\tbuild-failed\t-\t-\n' "$name" >> "$out/baselines.tsv"; continue; fi
  if [ "$tolerance" = 0 ]; then ext=txt; else ext=f32; fi
  status=ok; times=()
  for run in 1 2; do
    log="$out/logs/$name.run$run.log"
    # shellcheck disable=SC2086
    (cd "$out" && timeout "${RUN_TIMEOUT:-60}" "$bin/$name" $args --reps "$reps" --out "run$run.$name.$ext") > "$log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status="run$run-exit-$rc"
    t=$(grep -oE 'time_ms=[0-9.]+|median [0-9.]+ ms|[0-9.]+ ms \(best' "$log" | grep -oE '[0-9]+\.[0-9]+' | head -1)
    times+=("${t:--}")
  done
  if [ "$status" = ok ]; then
    a="$out/run1.$name.$ext"; b="$out/run2.$name.$ext"
    if [ "$ext" = txt ]; then cmp -s "$a" "$b" || status=outputs-differ
    else cmp -s "$a" "$b" || { agree_f32 "$a" "$b" "$tolerance" && status=ok-within-tolerance || status=outputs-differ; }; fi
  fi
  printf '%s\t%s\t%s\t%s\n' "$name" "$status" "${times[0]}" "${times[1]}" | tee -a "$out/baselines.tsv"
  rm -f "$out/run1.$name.$ext" "$out/run2.$name.$ext"
done < "$cases"
