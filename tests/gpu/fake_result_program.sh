#!/bin/sh
# Stand-in for a graph program in the equivalence checker's own CPU tests:
# writes its --value arguments, one per line, to the --out file; --fail makes
# it exit with status 3 instead.
out=""
vals=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --value) vals="$vals $2"; shift 2 ;;
    --fail) exit 3 ;;
    *) shift ;;
  esac
done
[ -n "$out" ] || { echo "fake_result_program: no --out" >&2; exit 2; }
: > "$out"
for v in $vals; do echo "$v" >> "$out"; done
echo "RESULT program=fake time_ms=0 launches=0"
