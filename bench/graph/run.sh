#!/usr/bin/env bash
# Graph benchmark of the dynamic-parallelism rewrites: builds and runs the flat
# (no-CDP) and naive CDP versions of neighbour_sum, bfs and sssp, plus every
# rewritten variant found in the --variants directories, on power-law and
# near-regular graphs, and prints one table: median kernel time, speedup over
# CDP naive and over flat, device launches made, and whether the result file
# equals the CDP naive one. A benchmark, not a test: it never fails on timings.
#
# Variant files are named <program>.<variant>.cu (e.g. bfs.threshold.cu); the
# goldens of the rewriters can be plugged in with --variants DIR. A variant
# whose source mentions a macro given with --sweep is built once per value.
#
# usage: bench/graph/run.sh [--variants DIR]... [--sweep MACRO=v1,v2,...]...
#          [--programs "neighbour_sum bfs sssp"] [--graphs "powerlaw regular"]
#          [--vertices N] [--degree D] [--seed S] [--reps R]
#          [--build-dir DIR] [--nvcc PATH] [--arch sm_90] [--jobs J]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

variant_dirs=()
sweeps=()
programs="neighbour_sum bfs sssp"
graphs="powerlaw regular"
vertices=65536
degree=31
seed=1
reps=5
build_dir="${TMPDIR:-/tmp}/nestor-bench-graph"
nvcc="${NVCC:-}"
arch=sm_90
jobs="$(nproc 2>/dev/null || echo 2)"
default_variants=1

die() { echo "run.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --variants) [ $# -ge 2 ] || die "missing value after $1"; variant_dirs+=("$2"); default_variants=0; shift 2 ;;
    --sweep) [ $# -ge 2 ] || die "missing value after $1"
             [[ "$2" =~ ^[A-Za-z_][A-Za-z0-9_]*=[^,]+(,[^,]+)*$ ]] || die "--sweep expects MACRO=v1,v2,..., got '$2'"
             sweeps+=("$2"); shift 2 ;;
    --programs) programs="$2"; shift 2 ;;
    --graphs) graphs="$2"; shift 2 ;;
    --vertices) vertices="$2"; shift 2 ;;
    --degree) degree="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --nvcc) nvcc="$2"; shift 2 ;;
    --arch) arch="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) die "unknown option $1" ;;
  esac
done

for p in $programs; do
  case "$p" in neighbour_sum|bfs|sssp) ;; *) die "unknown program '$p' (neighbour_sum, bfs, sssp)" ;; esac
done
for g in $graphs; do
  case "$g" in powerlaw|regular) ;; *) die "unknown graph '$g' (powerlaw, regular)" ;; esac
done

if [ "$default_variants" = 1 ]; then
  variant_dirs=("$here/handwritten")
  # The rewriters' graph goldens, each in its rewrite's folder.
  for d in "$root"/rewriters/*/tests/golden/graph; do [ -d "$d" ] && variant_dirs+=("$d"); done
  [ ${#sweeps[@]} -gt 0 ] || sweeps=("NESTOR_THRESHOLD=32,128,512,2048" "NESTOR_AGG_GRANULARITY=1,2,3")
fi
for d in "${variant_dirs[@]}"; do [ -d "$d" ] || die "--variants: '$d' is not a directory"; done

if [ -z "$nvcc" ]; then
  if command -v nvcc >/dev/null; then nvcc="$(command -v nvcc)"
  elif [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc
  else die "nvcc not found (use --nvcc PATH)"; fi
fi
mkdir -p "$build_dir/bin" "$build_dir/out" "$build_dir/log"

# ---- the build list: lines "program<TAB>variant<TAB>source<TAB>rdc<TAB>defines" ----
build_list="$build_dir/builds.tsv"
: > "$build_list"
for p in $programs; do
  printf '%s\tflat\t%s\t0\t\n' "$p" "$here/flat/$p.cu" >> "$build_list"
  printf '%s\tcdp\t%s\t1\t\n' "$p" "$root/examples/graph/$p.cu" >> "$build_list"
  for d in "${variant_dirs[@]}"; do
    for src in "$d/$p".*.cu; do
      [ -e "$src" ] || continue
      name="$(basename "$src" .cu)"
      name="$(basename "$d")/${name#"$p".}"
      combos=("")
      for s in "${sweeps[@]}"; do
        macro="${s%%=*}"
        grep -q "\\b$macro\\b" "$src" || continue
        next=()
        IFS=, read -r -a values <<< "${s#*=}"
        for c in "${combos[@]}"; do
          for v in "${values[@]}"; do next+=("${c:+$c }$macro=$v"); done
        done
        combos=("${next[@]}")
      done
      for c in "${combos[@]}"; do
        label="$name"
        short="${c//NESTOR_/}"
        [ -n "$c" ] && label="$name[${short// /,}]"
        printf '%s\t%s\t%s\t1\t%s\n' "$p" "$label" "$src" "$c" >> "$build_list"
      done
    done
  done
done

binary_of() {  # program variant -> path of its binary
  echo "$build_dir/bin/$1.$(echo "$2" | tr -c 'A-Za-z0-9_.\n-' '_')"
}

echo "== building $(wc -l < "$build_list") programs with $nvcc ($arch, $jobs jobs)"
build_failed=0
while IFS=$'\t' read -r p variant src rdc defines; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  bin="$(binary_of "$p" "$variant")"
  flags=(-O3 -std=c++17 -arch="$arch" -I"$root/runtime/include" -I"$root/examples/graph")
  [ "$rdc" = 1 ] && flags+=(-rdc=true)
  for def in $defines; do flags+=("-D$def"); done
  libs=()
  [ "$rdc" = 1 ] && libs+=(-lcudadevrt)
  ( "$nvcc" "${flags[@]}" "$src" -o "$bin" "${libs[@]}" > "$build_dir/log/$(basename "$bin").build.log" 2>&1 \
      || { echo "BUILD FAILED: $p $variant (see $build_dir/log/$(basename "$bin").build.log)"; rm -f "$bin"; } ) &
done < "$build_list"
wait
# Every figure is a ratio to the references (the flat kernel and the CDP
# original of the same program): without one the bench means nothing, so it
# stops loudly instead of printing a table with holes.
build_failed=0
while IFS=$'\t' read -r p variant src rdc defines; do
  bin="$(binary_of "$p" "$variant")"
  [ -x "$bin" ] && continue
  build_failed=1
  case "$variant" in flat|cdp) die "the reference '$variant' of $p was not built (see $build_dir/log/$(basename "$bin").build.log)" ;; esac
done < "$build_list"

# ---- runs ----
results="$build_dir/results.tsv"
: > "$results"
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" "$2" | tail -1; }
for g in $graphs; do
  graph_file="$build_dir/out/$g.graph"
  first=1
  for p in $programs; do
    while IFS=$'\t' read -r bp variant src rdc defines; do
      [ "$bp" = "$p" ] || continue
      bin="$(binary_of "$p" "$variant")"
      [ -x "$bin" ] || { printf '%s\t%s\t%s\t-\t-\tbuild-failed\n' "$p" "$g" "$variant" >> "$results"; continue; }
      out="$build_dir/out/$p.$g.$(basename "$bin").out"
      log="$build_dir/log/$p.$g.$(basename "$bin").run.log"
      if [ "$first" = 1 ]; then
        gargs=(--graph "$g" --vertices "$vertices" --degree "$degree" --seed "$seed" --save-graph "$graph_file")
        first=0
      else
        gargs=(--graph-file "$graph_file")
      fi
      status=ok
      timeout 300 "$bin" "${gargs[@]}" --reps "$reps" --out "$out" > "$log" 2>&1 || status="exit-$?"
      t="$(field time_ms "$log")"
      l="$(field launches "$log")"
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$g" "$variant" "${t:--}" "${l:--}" "$status" >> "$results"
      # Progress as it goes, so that a run cut short (time limit) still reports what it measured.
      printf "run: %s %s %s time_ms=%s launches=%s %s\n" "$p" "$g" "$variant" "${t:--}" "${l:--}" "$status"
      [ "$status" = ok ] || { echo "run failed: $p $g $variant ($status):"; tail -3 "$log"; }
    done < "$build_list"
  done
  edges="$(field edges "$(ls "$build_dir"/log/*."$g".*.run.log | head -1)")"
  echo "== graph $g: $vertices vertices, $edges edges"
done

# ---- table: speedups against cdp and flat of the same program and graph;
# "same" compares the result file with the cdp one (flat and rewrites must match).
echo
awk -F'\t' -v outdir="$build_dir/out" -v bindir="$build_dir/bin" '
  function bin(p, v) { gsub(/[^A-Za-z0-9_.\n-]/, "_", v); return p "." v }
  { key = $1 SUBSEP $2; rows[++n] = $0; if ($3 == "cdp") cdp[key] = $4; if ($3 == "flat") flat[key] = $4 }
  END {
    printf "%-14s %-9s %-44s %11s %9s %9s %10s %5s\n", "program", "graph", "variant", "time_ms", "vs_cdp", "vs_flat", "launches", "same"
    for (i = 1; i <= n; ++i) {
      split(rows[i], f, "\t"); key = f[1] SUBSEP f[2]
      if (f[6] != "ok") { printf "%-14s %-9s %-44s %11s\n", f[1], f[2], f[3], f[6]; continue }
      vc = (f[4] > 0 && cdp[key] > 0) ? cdp[key] / f[4] : 0
      vf = (f[4] > 0 && flat[key] > 0) ? flat[key] / f[4] : 0
      ref = outdir "/" f[1] "." f[2] "." bin(f[1], "cdp") ".out"
      mine = outdir "/" f[1] "." f[2] "." bin(f[1], f[3]) ".out"
      same = (system("cmp -s \"" ref "\" \"" mine "\"") == 0) ? "yes" : "NO"
      printf "%-14s %-9s %-44s %11.4f %8.2fx %8.2fx %10s %5s\n", f[1], f[2], f[3], f[4], vc, vf, f[5], same
      if (vc > 0) { lc[f[3]] += log(vc); lf[f[3]] += log(vf); cnt[f[3]]++ }
    }
    printf "\ngeomean over programs and graphs:\n%-44s %9s %9s %5s\n", "variant", "vs_cdp", "vs_flat", "runs"
    for (v in cnt) printf "%-44s %8.2fx %8.2fx %5d\n", v, exp(lc[v] / cnt[v]), exp(lf[v] / cnt[v]), cnt[v] | "sort"
    close("sort")
  }' "$results"
if [ "$build_failed" = 1 ]; then
  echo "run.sh: some variants were not built (BUILD FAILED above)" >&2
  exit 1
fi
