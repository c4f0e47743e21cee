#!/usr/bin/env python3
"""Racing bench (issue 13): runs one plan through nestor-runner with racing on
and with racing off (timing every variant to its stopping rule) on the same
GPU, and prints for each the wall time, the timed runs taken (samples, and
the GPU time they add up to) and the recommendation, then compares the two
recommendations variant by variant. A benchmark, not a test: it never fails
on timings; it exits non-zero only when a run could not produce results.

  racing_bench.py --runner BUILD/profiler/nestor-runner --plan PLAN.json --out DIR
                  [--runs on,off] [--on-limit S] [--off-limit S]
                  [--off-time-limit S] [--resume]

The plan is the issue's case: `nestor profile examples/graph/bfs.cu --config
bench/profiler/bfs.nestor.yaml --project examples/graph --plan DIR` (79
candidates). Each run starts from nothing (own cache, --fresh): builds are
part of the wall time.

Timing everything takes far longer than one device call may last, so a run
can be split: --off-limit stops the runner with SIGTERM (it writes what it
measured and keeps every finished variant in its cache), and a later
`--runs off --resume` continues from that cache; wall times of the segments
add up (kept in DIR/summary-racing-off.json). --off-time-limit S runs the
off side with the plan's per-variant `timing.time_limit_s` set to S (a copy of
the plan in DIR), and the output says so. The comparison is printed once
both sides have finished results in DIR.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time


def plan_for(args, racing):
    """The plan a side runs: the given one, or a copy with a lower per-variant time limit."""
    if racing != "off" or not args.off_time_limit:
        return args.plan
    with open(args.plan) as f:
        plan = json.load(f)
    plan.setdefault("timing", {})["time_limit_s"] = args.off_time_limit
    # Relative paths in the plan (variant files, project_dir) are resolved
    # against the plan's folder, so the copy lives next to the original.
    copy = os.path.join(os.path.dirname(os.path.abspath(args.plan)), "plan-time-limit-%g.json" % args.off_time_limit)
    with open(copy, "w") as f:
        json.dump(plan, f, indent=1)
    return copy


def run(args, racing, limit):
    out_dir = args.out
    results = os.path.join(out_dir, "results-racing-%s.json" % racing)
    log = os.path.join(out_dir, "runner-racing-%s.log" % racing)
    summary_path = os.path.join(out_dir, "summary-racing-%s.json" % racing)
    previous = {"wall_s": 0.0, "segments": 0}
    if args.resume and os.path.exists(summary_path):
        with open(summary_path) as f:
            previous = json.load(f)
    cmd = [args.runner, plan_for(args, racing), "-o", results, "--racing", racing, "--quiet",
           "--cache", os.path.join(out_dir, "cache-racing-%s.jsonl" % racing),
           "--report", os.path.join(out_dir, "report-racing-%s.svg" % racing),
           "--report", os.path.join(out_dir, "report-racing-%s.md" % racing)]
    if not args.resume:
        cmd.append("--fresh")
    start = time.monotonic()
    with open(log, "a" if args.resume else "w") as log_file:
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
    summary = {"wall_s": previous["wall_s"] + wall, "segments": previous["segments"] + 1, "capped": capped,
               "exit": proc.returncode, "time_limit_s": args.off_time_limit if racing == "off" else None}
    with open(summary_path, "w") as f:
        json.dump(summary, f)
    return summarize(racing, results, summary)


def summarize(racing, results, summary):
    with open(results) as f:
        data = json.load(f)
    variants = data["variants"]
    samples = sum(v["timing"]["count"] for v in variants if v["timing"])
    gpu_ms = sum(sum(v["timing"]["samples"]) for v in variants if v["timing"])
    timed = sum(1 for v in variants if v["timing"])
    eliminated = sum(1 for v in variants if v["timing"] and v["timing"]["stop_reason"] == "eliminated")
    unfinished = sum(1 for v in variants
                     if v["status"] == "not_run" or (v["timing"] and v["timing"]["stop_reason"] == "interrupted"))
    rec = data["recommendation"]
    return dict(summary, racing=racing, samples=samples, gpu_ms=gpu_ms, timed=timed, eliminated=eliminated,
                unfinished=unfinished, variants=len(variants), decision=rec["decision"], variant=rec["variant"],
                speedup=rec["speedup"], reason=rec.get("reason", ""), data=data)


def describe(r):
    extra = ""
    if r["segments"] > 1:
        extra += " over %d segments (resumed from the cache)" % r["segments"]
    if r["capped"]:
        extra += " (last segment CAPPED: stopped with SIGTERM)"
    if r.get("time_limit_s"):
        extra += " [per-variant timed runs capped at %g s]" % r["time_limit_s"]
    return ("racing %-3s: wall %.1f s%s, %d timed runs (%.1f ms of measured GPU time) over %d timed variants, "
            "%d eliminated, %d not finished (interrupted or not run); recommendation: %s%s"
            % (r["racing"], r["wall_s"], extra, r["samples"], r["gpu_ms"], r["timed"], r["eliminated"],
               r["unfinished"], r["variant"] if r["decision"] == "variant" else "keep the baseline",
               " (%.2fx)" % r["speedup"] if r["speedup"] else ""))


def timing_line(side, data, vid):
    for v in data["variants"]:
        if v["id"] == vid:
            t = v["timing"]
            if not t:
                return "  %s run, %s: %s (%s)" % (side, vid, v["status"], v.get("reason", ""))
            return ("  %s run, %s: median %.4f ms, IQR %.4f-%.4f, %d samples, %s%s"
                    % (side, vid, t["median"], t["q1"], t["q3"], t["count"], t["stop_reason"],
                       ": " + t["stop_detail"] if t.get("stop_detail") else ""))
    return "  %s run, %s: not in the results" % (side, vid)


def compare(on, off):
    print("ratio wall time on/off: %.3f%s; timed runs on/off: %.3f"
          % (on["wall_s"] / off["wall_s"], " (off run not finished: a lower bound for off)" if off["unfinished"] else "",
             on["samples"] / max(1, off["samples"])))
    same = (on["decision"], on["variant"]) == (off["decision"], off["variant"])
    print("same recommendation: %s%s" % ("yes" if same else "NO",
                                         " (the off run did not finish every variant, so its recommendation covers "
                                         "only what it finished)" if off["unfinished"] else ""))
    for name, r in (("on", on), ("off", off)):
        print("  %s run's reason: %s" % (name, r["reason"]))
    winners = [w for w in dict.fromkeys([on["variant"], off["variant"]]) if w]
    for w in winners:
        print(timing_line("on ", on["data"], w))
        print(timing_line("off", off["data"], w))
    if on["variant"]:
        off_fin = {v["id"]: v["timing"]["median"] for v in off["data"]["variants"]
                   if v["timing"] and v["timing"]["stop_reason"] != "interrupted"}
        faster = [(i, m) for i, m in off_fin.items() if m < off_fin.get(on["variant"], float("inf")) and i != on["variant"]]
        print("variants the off run measured faster than racing's winner '%s': %s"
              % (on["variant"], ", ".join("%s %.4f ms" % x for x in sorted(faster, key=lambda x: x[1])) or "none"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--plan", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", default="on,off", help="which sides to run now: on, off or on,off")
    ap.add_argument("--on-limit", type=float, default=600)
    ap.add_argument("--off-limit", type=float, default=3600)
    ap.add_argument("--off-time-limit", type=float, default=0,
                    help="per-variant limit on timed runs (plan timing.time_limit_s) for the off side")
    ap.add_argument("--resume", action="store_true", help="continue the sides' earlier runs from their caches")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(args.plan) as f:
        candidates = len(json.load(f)["variants"]) - 1
    print("plan: %s (%d candidates + baseline)" % (args.plan, candidates))
    rows = {}
    for racing in args.runs.split(","):
        r = run(args, racing, args.on_limit if racing == "on" else args.off_limit)
        if r is None:
            return 1
        rows[racing] = r
        print(describe(r), flush=True)
    # Either side may come from an earlier invocation (a split run).
    for racing in ("on", "off"):
        results = os.path.join(args.out, "results-racing-%s.json" % racing)
        summary_path = os.path.join(args.out, "summary-racing-%s.json" % racing)
        if racing not in rows and os.path.exists(results) and os.path.exists(summary_path):
            with open(summary_path) as f:
                rows[racing] = summarize(racing, results, json.load(f))
            print("(from an earlier invocation) " + describe(rows[racing]))
    if "on" in rows and "off" in rows:
        compare(rows["on"], rows["off"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
