#!/usr/bin/env python3
"""Lint time of `nestor lint` on the fixture corpus against `clang-tidy-22` on
the same files with the same flags, measured in the same run. A benchmark,
not a test: it prints figures and a ratio and always exits 0 unless a tool is
missing.

  bench/lint/run.py [--nestor build/cli/nestor] [--repeats 5] [--checks 'bugprone-*']
"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cuda_path():
    for p in (os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if p and os.path.exists(os.path.join(p, "include", "cuda_runtime.h")):
            return p
    return None


def timed(cmd, repeats):
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append(time.perf_counter() - t0)
    return samples


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nestor", default=os.path.join(REPO, "build", "cli", "nestor"))
    ap.add_argument("--clang-tidy", default=shutil.which("clang-tidy-22") or "clang-tidy-22")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--checks", default="-*,bugprone-*,performance-*")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(REPO, "tests", "fixtures", "*.cu")))
    for tool in (args.nestor, args.clang_tidy):
        if not shutil.which(tool) and not os.path.exists(tool):
            print(f"bench/lint: {tool} not found (build nestor; scripts/bootstrap installs clang-tidy-22)")
            return 2
    cuda = cuda_path()
    # The flags nestor uses without a compile database, so both parse the same.
    flags = ["-x", "cuda", "--cuda-host-only", "--cuda-gpu-arch=sm_90", "-fgpu-rdc", "-Wno-unknown-cuda-version"]
    if cuda:
        flags += [f"--cuda-path={cuda}", "-isystem", os.path.join(cuda, "include", "cccl")]
    nestor_cmd = [args.nestor, "lint", "--fail-on", "never", "-j", "1", *files, "--", "-arch=sm_90"]
    tidy_cmd = [args.clang_tidy, f"--checks={args.checks}", "--quiet", *files, "--", *flags]
    # Warm the file cache once for both.
    timed(nestor_cmd, 1)
    timed(tidy_cmd, 1)
    n = timed(nestor_cmd, args.repeats)
    t = timed(tidy_cmd, args.repeats)
    nm, tm = statistics.median(n), statistics.median(t)
    print(f"files: {len(files)} fixture(s), {args.repeats} repeats, one job each, same flags")
    print(f"{'tool':<14}{'median s':>10}{'min s':>10}{'max s':>10}{'ms/file':>10}")
    for name, s in (("nestor lint", n), ("clang-tidy-22", t)):
        print(f"{name:<14}{statistics.median(s):>10.3f}{min(s):>10.3f}{max(s):>10.3f}{1000 * statistics.median(s) / len(files):>10.1f}")
    print(f"ratio nestor / clang-tidy: {nm / tm:.2f}x ({args.checks})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
