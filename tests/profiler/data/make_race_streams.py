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

  h100_bfs      the issue's plan as measured on one H100 by bench/profiler
                (racing off, capped at 100 s: the 48 variants it timed, 1-3
                runs each): their medians in plan order, noise from their IQRs
                (at least 0.5%)

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

H100_BFS = [  # (id, baseline, median ms, q1, q3) per variant, in plan order
    ('baseline', True, 30.8114, 30.4948, 31.1088),
    ('threshold-128+coarsen-2+aggregate-grid', False, 0.1761, 0.1758, 0.1765),
    ('threshold-128+aggregate-grid', False, 0.1769, 0.1765, 0.1774),
    ('threshold-128', False, 2.6404, 2.5865, 2.7536),
    ('aggregate-grid', False, 0.1223, 0.1215, 0.1223),
    ('coarsen-2+aggregate-grid', False, 0.1253, 0.1251, 0.1258),
    ('threshold-128+coarsen-2', False, 2.518, 2.4235, 2.6555),
    ('coarsen-2', False, 30.5011, 30.2472, 30.7968),
    ('threshold-32+coarsen-2+aggregate-grid', False, 0.1095, 0.1092, 0.1099),
    ('threshold-128+coarsen-2+aggregate-block', False, 0.8818, 0.8725, 0.891),
    ('threshold-128+coarsen-4+aggregate-grid', False, 0.1816, 0.1805, 0.1828),
    ('threshold-512+coarsen-2+aggregate-grid', False, 0.3137, 0.3136, 0.3139),
    ('threshold-32+aggregate-grid', False, 0.1092, 0.1092, 0.1092),
    ('threshold-128+aggregate-block', False, 0.8932, 0.877, 0.9095),
    ('threshold-512+aggregate-grid', False, 0.3091, 0.3088, 0.3099),
    ('threshold-32', False, 7.0426, 6.8887, 7.0513),
    ('threshold-512', False, 0.5097, 0.5097, 0.5097),
    ('aggregate-block', False, 1.3055, 1.3055, 1.3055),
    ('coarsen-2+aggregate-block', False, 1.2591, 1.2591, 1.2591),
    ('coarsen-4+aggregate-grid', False, 0.1303, 0.1303, 0.1303),
    ('threshold-32+coarsen-2', False, 7.1606, 7.1606, 7.1606),
    ('threshold-128+coarsen-4', False, 2.5282, 2.5282, 2.5282),
    ('threshold-512+coarsen-2', False, 0.5147, 0.5147, 0.5147),
    ('coarsen-4', False, 30.4185, 30.4185, 30.4185),
    ('threshold-32+coarsen-2+aggregate-block', False, 1.2058, 1.2058, 1.2058),
    ('threshold-32+coarsen-4+aggregate-grid', False, 0.1148, 0.1148, 0.1148),
    ('threshold-128+coarsen-2+aggregate-warp', False, 0.9882, 0.9882, 0.9882),
    ('threshold-128+coarsen-4+aggregate-block', False, 0.9061, 0.9061, 0.9061),
    ('threshold-128+coarsen-8+aggregate-grid', False, 0.1812, 0.1812, 0.1812),
    ('threshold-512+coarsen-2+aggregate-block', False, 0.5568, 0.5568, 0.5568),
    ('threshold-512+coarsen-4+aggregate-grid', False, 0.3125, 0.3125, 0.3125),
    ('threshold-2048+coarsen-2+aggregate-grid', False, 0.6116, 0.6116, 0.6116),
    ('threshold-32+aggregate-block', False, 1.3477, 1.3477, 1.3477),
    ('threshold-128+aggregate-warp', False, 0.8763, 0.8763, 0.8763),
    ('threshold-512+aggregate-block', False, 0.4814, 0.4814, 0.4814),
    ('threshold-2048+aggregate-grid', False, 0.6058, 0.6058, 0.6058),
    ('threshold-2048', False, 0.6459, 0.6459, 0.6459),
    ('aggregate-warp', False, 5.1656, 5.1656, 5.1656),
    ('coarsen-2+aggregate-warp', False, 4.5306, 4.5306, 4.5306),
    ('coarsen-4+aggregate-block', False, 1.2735, 1.2735, 1.2735),
    ('coarsen-8+aggregate-grid', False, 0.1374, 0.1374, 0.1374),
    ('threshold-32+coarsen-4', False, 7.8393, 7.8393, 7.8393),
    ('threshold-128+coarsen-8', False, 2.8913, 2.8913, 2.8913),
    ('threshold-512+coarsen-4', False, 0.5674, 0.5674, 0.5674),
    ('threshold-2048+coarsen-2', False, 0.6553, 0.6553, 0.6553),
    ('coarsen-8', False, 34.4483, 34.4483, 34.4483),
    ('threshold-32+coarsen-2+aggregate-warp', False, 2.1248, 2.1248, 2.1248),
    ('threshold-32+coarsen-4+aggregate-block', False, 1.2206, 1.2206, 1.2206),
]
scenarios["h100_bfs"] = [
    {"id": vid, "baseline": base, "samples_ms": stream(med, noise=max(0.005, (q3 - q1) / med / 1.35), outliers=0.02)}
    for vid, base, med, q1, q3 in H100_BFS]

# One line per stream, so that the file reads (and diffs) scenario by scenario.
with open("race_streams_synthetic.json", "w") as f:
    f.write('{"generated_by": "tests/profiler/data/make_race_streams.py",\n "scenarios": {\n')
    for n, (name, streams) in enumerate(scenarios.items()):
        f.write('  %s: [\n' % json.dumps(name))
        f.write(",\n".join("   " + json.dumps(s) for s in streams))
        f.write("\n  ]%s\n" % ("," if n + 1 < len(scenarios) else ""))
    f.write(" }\n}\n")
