#!/usr/bin/env bash
# Times every program of the peer-shapes corpus on its timing input: the
# original, its hand-written flat version (where it has one) and every
# rewritten golden, in that order, each in the same run; prints one
# Markdown row per variant with its median time (the program's own CUDA-event
# timing of the whole computation, --reps runs) and its speedup over the
# original measured just before it. A variant that fails (its serial
# reference check, or a CUDA error) is reported FAIL, never timed.
#
#   tests/peer_shapes/time_corpus.sh BUILD_DIR/tests/peer_shapes/manifest.txt [TIMEOUT_S]
#
# Programs come from `cmake --build BUILD_DIR --target peer_shapes_gpu_programs`.
# Performance only: no test depends on these figures (docs/peer-shapes.md).
set -uo pipefail
manifest="${1:?usage: time_corpus.sh MANIFEST [TIMEOUT_S]}"
limit="${2:-120}"
[ -f "$manifest" ] || { echo "time_corpus.sh: no manifest '$manifest'" >&2; exit 2; }
echo "| program | site | variant | median ms | vs original |"
echo "|---|---|---|---:|---:|"
declare -A original_ms
status=0
while read -r program site variant exe dashdash args; do
  case "$program" in \#*|"") continue ;; esac
  if [ ! -x "$exe" ]; then
    echo "| $program | $site | $variant | MISSING | |"
    status=1
    continue
  fi
  # shellcheck disable=SC2086
  out=$(timeout "$limit" "$exe" $args 2>&1)
  rc=$?
  ms=$(printf '%s\n' "$out" | sed -n 's/^RESULT .* time_ms=\([0-9.]*\) .*/\1/p' | tail -1)
  if [ $rc -ne 0 ] || [ -z "$ms" ]; then
    why=$(printf '%s\n' "$out" | tail -1 | tr '|' '/')
    echo "| $program | $site | $variant | FAIL (exit $rc: $why) | |"
    status=1
    continue
  fi
  if [ "$variant" = original ]; then
    original_ms[$program]=$ms
    echo "| $program | - | original | $ms | 1.00 |"
    continue
  fi
  ref="${original_ms[$program]:-}"
  if [ -z "$ref" ]; then
    echo "| $program | $site | $variant | $ms | no reference |"
    status=1
    continue
  fi
  ratio=$(awk -v a="$ref" -v b="$ms" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }')
  echo "| $program | $site | $variant | $ms | ${ratio}x |"
done < "$manifest"
exit $status
