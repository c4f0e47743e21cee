#!/bin/sh
# launcher_test.sh LAUNCHER PROBE WORKDIR: checks the skip rules of every GPU
# test (cmake/run-gpu-test.sh, cmake/device_probe.cpp) on any machine.
#  1. The launcher with stand-in probes and programs: 0 runs the program, 77
#     skips, 1 fails; a program's own 77 skips; NESTOR_EXPECT_GPU=1 turns
#     every skip into a failure; a program that was not built fails.
#  2. The real probe on this machine: a skip (no device) becomes a failure
#     under NESTOR_EXPECT_GPU=1; a driver that is installed but broken (an
#     empty libcuda.so.1 put first on the loader path) fails, never skips.
set -u
launcher=$1 probe=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
failures=0
check() { # NAME EXPECTED-EXIT COMMAND...
  name=$1 want=$2
  shift 2
  out=$("$@" 2>&1)
  got=$?
  if [ "$got" -eq "$want" ]; then echo "ok   $name (exit $got)"; else
    echo "FAIL $name: exit $got, expected $want; output:"; echo "$out" | sed 's/^/     /'; failures=$((failures + 1)); fi
}
for rc in 0 77 1; do printf '#!/bin/sh\necho probe says %s\nexit %s\n' "$rc" "$rc" > "$work/probe$rc"; done
printf '#!/bin/sh\necho ran > "%s/ran"\nexit "${1:-0}"\n' "$work" > "$work/program"
chmod +x "$work"/probe* "$work/program"

check "device: program runs, its exit 0 passes" 0 env -u NESTOR_EXPECT_GPU sh "$launcher" "$work/probe0" "$work/program" 0
[ -f "$work/ran" ] || { echo "FAIL the program did not run"; failures=$((failures + 1)); }
check "device: program's failure fails" 3 env -u NESTOR_EXPECT_GPU sh "$launcher" "$work/probe0" "$work/program" 3
rm -f "$work/ran"
check "no device: skip" 77 env -u NESTOR_EXPECT_GPU sh "$launcher" "$work/probe77" "$work/program" 0
[ ! -f "$work/ran" ] || { echo "FAIL the program ran without a device"; failures=$((failures + 1)); }
check "broken driver: fails" 1 env -u NESTOR_EXPECT_GPU sh "$launcher" "$work/probe1" "$work/program" 0
check "program skips itself: skip" 77 env -u NESTOR_EXPECT_GPU sh "$launcher" "$work/probe0" "$work/program" 77
check "program skips itself, NESTOR_EXPECT_GPU=1: fails" 1 env NESTOR_EXPECT_GPU=1 sh "$launcher" "$work/probe0" "$work/program" 77
check "program not built: fails" 1 env -u NESTOR_EXPECT_GPU sh "$launcher" "$work/probe0" "$work/not-built" 0

# The real probe.
"$probe" > "$work/probe.out" 2>&1
real=$?
echo "this machine's probe: exit $real: $(cat "$work/probe.out")"
case $real in
  0) check "probe with a device, NESTOR_EXPECT_GPU=1: passes" 0 env NESTOR_EXPECT_GPU=1 "$probe" ;;
  77)
    grep -q '^SKIP: no CUDA device' "$work/probe.out" || { echo "FAIL a skip must say 'SKIP: no CUDA device'"; failures=$((failures + 1)); }
    check "probe without a device, NESTOR_EXPECT_GPU=1: fails" 1 env NESTOR_EXPECT_GPU=1 "$probe"
    check "probe without a device, NESTOR_EXPECT_GPU=0: skips (only 1 means expect)" 77 env NESTOR_EXPECT_GPU=0 "$probe"
    check "launcher without a device, NESTOR_EXPECT_GPU=1: fails" 1 env NESTOR_EXPECT_GPU=1 sh "$launcher" "$probe" "$work/program" 0 ;;
  *) echo "FAIL the probe failed on this machine: the CUDA driver or runtime is broken"; failures=$((failures + 1)) ;;
esac
# A driver library that is there but does not work: never "no device".
if command -v cc > /dev/null 2>&1 && echo 'int nestor_not_a_driver;' | cc -shared -fPIC -x c - -o "$work/libcuda.so.1" 2> "$work/cc.err"; then
  check "broken driver (an empty libcuda.so.1): fails, does not skip" 1 env -u NESTOR_EXPECT_GPU LD_LIBRARY_PATH="$work" "$probe"
else
  echo "FAIL could not build the stand-in driver library: $(cat "$work/cc.err")"; failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] && echo "all checks passed" || echo "$failures check(s) failed"
[ "$failures" -eq 0 ]
