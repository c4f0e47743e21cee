#!/usr/bin/env python3
"""Writes race_streams_synthetic.json: sample streams for the racing replay
test (race_replay_test.cpp), made to look like what the runner records on a
GPU, with the awkward cases racing must survive. Seeded, so rerunning it
reproduces the committed file:

  bfs_like      the issue's CDP BFS: a 0.14 ms winner, near-ties within 2-5%,
                a 7 ms threshold-32, a 60 ms coarsen-2, 3% noise, 5% outliers
  close_noisy   six variants within 3% of each other, 5% noise, heavy tail
  drift         the machine slows 10% over the run (clocks, heat); the winner
                is 4% faster than the next one throughout
  bimodal       the winner is sometimes (20%) twice as slow; a steady rival
                sits 6% above the winner's usual time
  slow_start    every variant's first samples are 30% slower (caches, JIT)
                and the eventual winner starts slowest

Recorded streams (H200) come from examples/profile/*/results-*.json, which
the test reads directly.
"""
import json
import math
import random

rng = random.Random(20261123)
N = 100


def stream(median, noise=0.03, outliers=0.05, outlier_scale=1.5, drift=0.0, slow_start=0.0, bimodal=0.0):
    out = []
    for i in range(N):
        x = median * math.exp(rng.gauss(0, noise))
        if rng.random() < outliers:
            x *= outlier_scale * (0.8 + 0.4 * rng.random())
        if bimodal and rng.random() < bimodal:
            x *= 2
        x *= 1 + drift * i / N
        if i < 3:
            x *= 1 + slow_start * (3 - i) / 3
        out.append(round(x, 6))
    return out


scenarios = {}
scenarios["bfs_like"] = [
    {"id": "baseline", "baseline": True, "samples_ms": stream(0.9)},
    {"id": "aggregate-warp", "baseline": False, "samples_ms": stream(0.14)},
    {"id": "aggregate-block", "baseline": False, "samples_ms": stream(0.143)},
    {"id": "threshold-128+aggregate-warp", "baseline": False, "samples_ms": stream(0.147)},
    {"id": "aggregate-grid", "baseline": False, "samples_ms": stream(0.16)},
    {"id": "threshold-128", "baseline": False, "samples_ms": stream(0.6)},
    {"id": "threshold-32", "baseline": False, "samples_ms": stream(7.0)},
    {"id": "coarsen-2", "baseline": False, "samples_ms": stream(60.0)},
    {"id": "coarsen-4", "baseline": False, "samples_ms": stream(31.0)},
] + [{"id": "threshold-%d+coarsen-%d" % (t, c), "baseline": False, "samples_ms": stream(0.3 + 0.05 * t / 32 + c)}
     for t in (32, 64, 256) for c in (2, 4)]
scenarios["close_noisy"] = [{"id": "baseline", "baseline": True, "samples_ms": stream(1.0, noise=0.05, outliers=0.1, outlier_scale=2)}] + [
    {"id": "v%d" % i, "baseline": False, "samples_ms": stream(0.97 + 0.006 * i, noise=0.05, outliers=0.1, outlier_scale=2)}
    for i in range(6)]
scenarios["drift"] = [
    {"id": "baseline", "baseline": True, "samples_ms": stream(2.0, drift=0.1)},
    {"id": "winner", "baseline": False, "samples_ms": stream(1.0, drift=0.1)},
    {"id": "next", "baseline": False, "samples_ms": stream(1.04, drift=0.1)},
    {"id": "far", "baseline": False, "samples_ms": stream(1.5, drift=0.1)},
]
scenarios["bimodal"] = [
    {"id": "baseline", "baseline": True, "samples_ms": stream(3.0)},
    {"id": "bimodal_winner", "baseline": False, "samples_ms": stream(1.0, noise=0.02, outliers=0, bimodal=0.2)},
    {"id": "steady_rival", "baseline": False, "samples_ms": stream(1.06, noise=0.01, outliers=0)},
    {"id": "slow", "baseline": False, "samples_ms": stream(2.5)},
]
scenarios["slow_start"] = [
    {"id": "baseline", "baseline": True, "samples_ms": stream(5.0, slow_start=0.3)},
    {"id": "winner", "baseline": False, "samples_ms": stream(2.0, slow_start=0.6)},
    {"id": "runner_up", "baseline": False, "samples_ms": stream(2.2, slow_start=0.1)},
    {"id": "loser", "baseline": False, "samples_ms": stream(4.0, slow_start=0.3)},
]

with open("race_streams_synthetic.json", "w") as f:
    json.dump({"generated_by": "tests/profiler/data/make_race_streams.py", "scenarios": scenarios}, f, indent=1)
    f.write("\n")
