#!/usr/bin/env bash
# bench/mapping, step 1 of 3 (here, with LLVM): writes one profile plan per case
# of cases.tsv into OUT/<case>/plan.json with every variant the planner offers
# (no --budget), each carrying the static rank the mapping model gives it.
#   bench/mapping/plan.sh [NESTOR] [OUT] [CASES]
#     defaults: build/cli/nestor, build/bench-mapping, bench/mapping/cases.tsv (the
#     in-sample cases); bench/mapping/heldout.tsv, heldout2.tsv, heldout3.tsv, heldout4.tsv, heldout5.tsv,
#     heldout6.tsv, heldout7.tsv, heldout8.tsv, heldout9.tsv, heldout10.tsv, heldout11.tsv,
#     heldout12.tsv, heldout13.tsv, heldout14.tsv, heldout15.tsv, heldout16.tsv, heldout17.tsv,
#     heldout18.tsv, heldout19.tsv and heldout20.tsv hold the held-out ones.
#   BENCH_GPU (default h100, the GPU the in-sample cases were measured on) is the
#   .nestor.yaml mapping.gpu every case's plan is ranked for.
#   BENCH_ONLY=REGEX (optional): plans only the cases whose name matches (grep -E).
#   BENCH_GPU_PARAMS=FILE (optional): a GPU-parameters file (nestor-gpu-probe's
#   JSON), copied into every case's project as .nestor/gpu-params.json, the
#   default path the model reads its figures from (docs/mapping.md).
# Step 2 runs the plans on a GPU (measure.sh), step 3 prints the table (report.py).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
nestor="${1:-$repo/build/cli/nestor}"
out="${2:-$repo/build/bench-mapping}"
cases="${3:-$here/cases.tsv}"
gpu="${BENCH_GPU:-h100}"
[ -x "$nestor" ] || { echo "plan.sh: no nestor at $nestor (build it first)" >&2; exit 2; }
mkdir -p "$out"
reps="${BENCH_REPS:-7}"
# A held-out set must not share a program or kernel with the in-sample set the
# model was fitted on (cases.tsv), nor with any held-out set before it, whose
# results were read before the model changed: heldoutN.tsv (heldout.tsv is
# the first) is checked against cases.tsv and heldout.tsv .. heldout(N-1).tsv;
# any other case file against cases.tsv and heldout.tsv.
cases_abs="$(cd "$(dirname "$cases")" && pwd)/$(basename "$cases")"
if [ "$cases_abs" != "$here/cases.tsv" ]; then
  earlier=("$here/cases.tsv")
  set_number=0
  case "$(basename "$cases_abs")" in
    heldout.tsv) set_number=1 ;;
    heldout[0-9]*.tsv) set_number="$(basename "$cases_abs" .tsv)"; set_number="${set_number#heldout}" ;;
  esac
  [ "$(dirname "$cases_abs")" = "$here" ] && [[ "$set_number" =~ ^[0-9]+$ ]] || set_number=0
  [ "$set_number" -eq 0 ] && earlier+=("$here/heldout.tsv")
  for ((i = 1; i < set_number; i++)); do
    if [ "$i" -eq 1 ]; then earlier+=("$here/heldout.tsv"); else earlier+=("$here/heldout$i.tsv"); fi
  done
  while IFS=$'\t' read -r name source kernel _; do
    case "$name" in ''|'#'*) continue ;; esac
    for set in "${earlier[@]}"; do
      if awk -F'\t' -v s="$source" -v k="$kernel" '!/^#/ && ($2 == s || $3 == k) {f=1} END {exit !f}' "$set"; then
        echo "plan.sh: $name uses $source ($kernel), a program or kernel of $(basename "$set")" >&2
        exit 2
      fi
    done
  done < "$cases"
fi
while IFS=$'\t' read -r name source kernel args sizes tolerance rdc skew defines; do
  case "$name" in ''|'#'*) continue ;; esac
  if [ -n "${BENCH_ONLY:-}" ] && ! grep -qE -- "$BENCH_ONLY" <<<"$name"; then continue; fi
  project="$out/projects/$name"
  rm -rf "$project" "$out/$name"
  mkdir -p "$project/nestor"
  file="$(basename "$source")"
  # The 9th column (held-out cases): macros defined before the program's own
  # `#ifndef` defaults, so one source serves several launch shapes.
  : > "$project/$file"
  if [ -n "${defines:-}" ]; then
    IFS=',' read -ra defs <<<"$defines"
    for d in "${defs[@]}"; do printf '#define %s %s\n' "${d%%=*}" "${d#*=}" >> "$project/$file"; done
  fi
  cat "$repo/$source" >> "$project/$file"
  # What the program includes beside itself: the loop harness, the graph
  # header, and the runtime's test helpers (the baseline has no -I for them).
  for dep in "$(dirname "$repo/$source")"/*.cuh "$(dirname "$repo/$source")"/*.h; do
    [ -f "$dep" ] && cp "$dep" "$project/"
  done
  # The held-out programs use the loop harness and the graph and tree drivers.
  case "$source" in bench/mapping/heldout*/*)
    cp "$repo/tests/fixtures/loops/loops_harness.cuh" "$repo/examples/graph/graph.h" \
       "$repo/examples/trees/tree.h" "$repo/examples/trees/tree_driver.cuh" "$project/" ;;
  esac
  cp "$repo/runtime/include/nestor/gpu_test.cuh" "$project/nestor/"
  if [ -n "${BENCH_GPU_PARAMS:-}" ]; then
    [ -f "$BENCH_GPU_PARAMS" ] || { echo "plan.sh: no GPU-parameters file at $BENCH_GPU_PARAMS" >&2; exit 2; }
    mkdir -p "$project/.nestor" && cp "$BENCH_GPU_PARAMS" "$project/.nestor/gpu-params.json"
  fi
  if [ "$rdc" = yes ]; then
    build="nvcc -O3 -rdc=true -arch=sm_90 -std=c++17 -I. {defines} {flags} -o {exe} {source} -lcudadevrt"
  else
    build="nvcc -O3 -arch=sm_90 -std=c++17 -I. {defines} {flags} -o {exe} {source}"
  fi
  if [ "$tolerance" = 0 ]; then outfile="sums.txt"; run="{exe} $args --out sums.txt"
  else outfile="out.f32"; run="{exe} $args --out out.f32"; fi
  cat > "$project/.nestor.yaml" <<YAML
# Generated by bench/mapping/plan.sh for case '$name'.
profile:
  build: "$build"
  run: "$run"
  outputs: [$outfile]
  tolerance: $tolerance
  repetitions: $reps
  timeout: 120
mapping:
  gpu: $gpu
  sizes: $sizes
  skew: $skew
YAML
  echo "== $name: $file ($kernel)"
  "$nestor" profile "$project/$file" --kernel "$kernel" --plan "$out/$name" >"$out/$name.plan.log" 2>&1 ||
    { cat "$out/$name.plan.log" >&2; exit 1; }
  grep -c '"id"' "$out/$name/plan.json" | sed 's/^/   plan entries: /'
done < "$cases"
echo "plans in $out"
