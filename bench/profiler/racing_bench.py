#!/usr/bin/env python3
"""Racing bench (issue 13): runs one plan through nestor-runner with racing on,
then with racing off, in the same session on the same GPU, and prints for each
the wall time, the timed runs taken (samples, and the GPU time they add up
to) and the recommendation. A benchmark, not a test: it never fails on
timings; it exits non-zero only when a run could not produce results.

  racing_bench.py --runner BUILD/profiler/nestor-runner --plan PLAN.json
                  --out DIR [--off-limit SECONDS]

The plan is the issue's case: `nestor profile examples/graph/bfs.cu --config
bench/profiler/bfs.nestor.yaml --project examples/graph --plan DIR` (79
candidates). Each run starts from nothing (own cache, --fresh): builds are
part of the wall time. --off-limit caps the racing-off run (SIGTERM: the
runner writes what it measured so far); the output says when it was capped.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time


def run(runner, plan, out_dir, racing, limit):
    results = os.path.join(out_dir, "results-racing-%s.json" % racing)
    log = os.path.join(out_dir, "runner-racing-%s.log" % racing)
    cmd = [runner, plan, "-o", results, "--racing", racing, "--fresh", "--quiet",
           "--cache", os.path.join(out_dir, "cache-racing-%s.jsonl" % racing),
           "--report", os.path.join(out_dir, "report-racing-%s.svg" % racing),
           "--report", os.path.join(out_dir, "report-racing-%s.md" % racing)]
    start = time.monotonic()
    with open(log, "w") as log_file:
        proc = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT)
        capped = False
        try:
            proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            capped = True
            proc.send_signal(signal.SIGTERM)
            proc.wait()
    wall = time.monotonic() - start
    if not os.path.exists(results):
        print("racing %s: no results (exit %s); last lines of %s:" % (racing, proc.returncode, log))
        with open(log) as f:
            print("".join(f.readlines()[-20:]))
        return None
    with open(results) as f:
        data = json.load(f)
    samples = sum(v["timing"]["count"] for v in data["variants"] if v["timing"])
    gpu_ms = sum(sum(v["timing"]["samples"]) for v in data["variants"] if v["timing"])
    timed = sum(1 for v in data["variants"] if v["timing"])
    eliminated = sum(1 for v in data["variants"] if v["timing"] and v["timing"]["stop_reason"] == "eliminated")
    unfinished = sum(1 for v in data["variants"]
                     if v["status"] == "not_run" or (v["timing"] and v["timing"]["stop_reason"] == "interrupted"))
    rec = data["recommendation"]
    return {"racing": racing, "wall_s": wall, "exit": proc.returncode, "capped": capped, "samples": samples,
            "gpu_ms": gpu_ms, "timed": timed, "eliminated": eliminated, "unfinished": unfinished,
            "variants": len(data["variants"]), "decision": rec["decision"], "variant": rec["variant"],
            "speedup": rec["speedup"], "data": data}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--plan", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--on-limit", type=float, default=600)
    ap.add_argument("--off-limit", type=float, default=3600)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(args.plan) as f:
        candidates = len(json.load(f)["variants"]) - 1
    print("plan: %s (%d candidates + baseline)" % (args.plan, candidates))
    rows = []
    for racing, limit in (("on", args.on_limit), ("off", args.off_limit)):
        r = run(args.runner, args.plan, args.out, racing, limit)
        if r is None:
            return 1
        rows.append(r)
        print("racing %-3s: wall %.1f s%s, %d timed runs (%.1f ms of measured GPU time) over %d timed variants, "
              "%d eliminated, %d not finished (interrupted or not run); recommendation: %s%s"
              % (racing, r["wall_s"], " (CAPPED at %.1f s: stopped with SIGTERM)" % limit if r["capped"] else "",
                 r["samples"], r["gpu_ms"], r["timed"], r["eliminated"], r["unfinished"],
                 r["variant"] if r["decision"] == "variant" else "keep the baseline",
                 " (%.2fx)" % r["speedup"] if r["speedup"] else ""), flush=True)
    on, off = rows
    print("ratio wall time on/off: %.3f%s; timed runs on/off: %.3f"
          % (on["wall_s"] / off["wall_s"], " (off run capped: a lower bound for off)" if off["capped"] else "",
             on["samples"] / max(1, off["samples"])))
    same = (on["decision"], on["variant"]) == (off["decision"], off["variant"])
    print("same recommendation: %s%s" % ("yes" if same else "NO",
                                         " (the off run was capped, so its recommendation covers only what it finished)"
                                         if off["capped"] else ""))
    # Where the off run finished a variant, was racing's winner at least as fast?
    if on["variant"]:
        off_fin = {v["id"]: v["timing"]["median"] for v in off["data"]["variants"] if v["timing"]}
        faster = [(i, m) for i, m in off_fin.items() if m < off_fin.get(on["variant"], float("inf")) and i != on["variant"]]
        print("variants the off run measured faster than racing's winner '%s': %s"
              % (on["variant"], ", ".join("%s %.4f ms" % x for x in sorted(faster, key=lambda x: x[1])) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
