#!/usr/bin/env python3
"""A stand-in for nvcc in the planner's CPU tests: it "compiles" a .cu file
into a small Python program whose behaviour depends on the source, so that
nestor-runner (through its NESTOR_RUNNER_ASSUME_DEVICES seam, wall-clock
timing) has real differences to measure and check.

  fake_nvcc.py [-I DIR]... [-DNAME=V]... [--reference FILE] [--slow S] [--fast S]
               [--wrong-if TEXT] [--fail-if TEXT] -o EXE SOURCE

* Like a compiler, it fails when the source includes <nestor/X> and no -I
  directory (relative to the working directory, as nvcc resolves them)
  holds nestor/X: that checks the runtime headers a plan ships.
* The program sleeps --slow seconds when SOURCE equals --reference (the
  unmodified file, i.e. the baseline), --fast seconds otherwise, and writes
  "checksum 42" to its first argument ("checksum 43" when SOURCE contains
  --wrong-if: an output mismatch). --fail-if TEXT makes the build fail.
* Each build appends a line to $FAKE_BUILD_LOG when set; each run writes its
  pid to $FAKE_PID_DIR when set (tests check what ran, and that a cancelled
  profile left nothing running); $FAKE_EXTRA_RUN_S adds seconds to every run
  (the Slurm test needs a task that is still running when it kills it).
* Under the runner's test seam NESTOR_RUNNER_REPORTED_MS=FILE the program
  also writes its run time (the same seconds, in ms) to FILE, and the runner
  takes that as the sample: the verdicts of the tests never depend on how
  fast or loaded the machine is (the sleep stays, for the tests that need a
  program still running)."""
import os
import sys


def main(argv):
    includes, reference, exe, source = [], None, None, None
    slow, fast, wrong_if, fail_if = 0.05, 0.005, None, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-I":
            includes.append(argv[i + 1]); i += 2; continue
        if a.startswith("-I"):
            includes.append(a[2:]); i += 1; continue
        if a in ("--reference", "--slow", "--fast", "--wrong-if", "--fail-if", "-o"):
            v = argv[i + 1]
            if a == "--reference": reference = v
            elif a == "--slow": slow = float(v)
            elif a == "--fast": fast = float(v)
            elif a == "--wrong-if": wrong_if = v
            elif a == "--fail-if": fail_if = v
            else: exe = v
            i += 2; continue
        if a.startswith("-"):
            i += 1; continue
        source = a
        i += 1
    if not exe or not source:
        print("fake_nvcc: need -o EXE and SOURCE", file=sys.stderr)
        return 2
    text = open(source).read()
    if os.environ.get("FAKE_BUILD_LOG"):
        with open(os.environ["FAKE_BUILD_LOG"], "a") as log:
            log.write(source + "\n")
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#include <nestor/"):
            header = s[len("#include <"):s.index(">")]
            if not any(os.path.isfile(os.path.join(d, header)) for d in includes):
                print(f"{source}: fatal error: {header}: No such file or directory (-I: {includes})", file=sys.stderr)
                return 1
    if fail_if and fail_if in text:
        print(f"{source}: error: refusing to build a source containing '{fail_if}'", file=sys.stderr)
        return 1
    baseline = reference is not None and open(reference).read() == text
    delay = slow if baseline else fast
    checksum = 43 if wrong_if and wrong_if in text else 42
    with open(exe, "w") as f:
        f.write(f"""#!{sys.executable}
import os, sys, time
if os.environ.get("FAKE_PID_DIR"):
    open(os.path.join(os.environ["FAKE_PID_DIR"], str(os.getpid())), "w").close()
seconds = {delay!r} + float(os.environ.get("FAKE_EXTRA_RUN_S", "0"))
if os.environ.get("NESTOR_RUNNER_REPORTED_MS"):
    with open(os.environ["NESTOR_RUNNER_REPORTED_MS"], "w") as reported:
        reported.write(f"{{seconds * 1000}}\\n")
time.sleep(seconds)
with open(sys.argv[1] if len(sys.argv) > 1 else "out.txt", "w") as out:
    out.write("checksum {checksum}\\n")
""")
    os.chmod(exe, 0o755)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
