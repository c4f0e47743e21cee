#!/usr/bin/env python3
"""Runs nestor-gpu-probe on this machine's GPU and checks the file it writes:
the schema the mapping model reads (analyzers' applyGpuParams), every figure
present and in a range no working GPU falls outside of (a failed or
meaningless measurement must be an error, never a file).

  gpu_probe_check.py PROBE OUT.json
Exit 0: checked; 1: a check failed; 77: no CUDA device (probe exit 3).
"""
import json
import subprocess
import sys

# key: (lowest, highest) plausible on any CUDA GPU the project targets.
RANGES = {
    "sms": (1, 1024),
    "threads_per_sm": (512, 4096),
    "registers_per_sm": (16384, 1 << 20),
    "shared_per_block": (16384, 1 << 20),
    "clock_ghz": (0.3, 5.0),
    "bandwidth_gbs": (50, 50000),
    "kernel_us": (0.3, 200),
    "device_launch_us": (0.01, 100),
    "device_launch_latency_us": (0.5, 1000),
    "latency_us": (0.05, 20),
}


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    probe, out = sys.argv[1], sys.argv[2]
    run = subprocess.run([probe, "-o", out], capture_output=True, text=True, timeout=100)
    if run.returncode == 3:
        print("SKIP: no CUDA device: " + run.stderr.strip())
        return 77
    if run.returncode != 0:
        print(f"FAIL: nestor-gpu-probe exit {run.returncode}: {run.stderr.strip()}")
        return 1
    with open(out) as f:
        params = json.load(f)
    failures = []
    if params.get("schema") != "nestor-gpu-params" or params.get("version") != 1:
        failures.append(f"schema/version: {params.get('schema')!r} {params.get('version')!r}")
    for key, (low, high) in RANGES.items():
        value = params.get(key)
        if not isinstance(value, (int, float)) or not low <= value <= high:
            failures.append(f"{key} = {value!r}, expected {low}..{high}")
    for key in ("sms", "threads_per_sm", "registers_per_sm", "shared_per_block"):
        if isinstance(params.get(key), float):
            failures.append(f"{key} must be a whole number, got {params[key]!r}")
    # A usage error is a clear message and exit 2, never a crash.
    bad = subprocess.run([probe, "--device"], capture_output=True, text=True, timeout=30)
    if bad.returncode != 2 or "needs a value" not in bad.stderr:
        failures.append(f"'--device' without a value: exit {bad.returncode}, {bad.stderr.strip()!r}")
    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("nestor-gpu-probe: " + ", ".join(f"{k} {params[k]:.3g}" for k in RANGES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
