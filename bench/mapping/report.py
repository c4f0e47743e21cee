#!/usr/bin/env python3
"""bench/mapping, step 3 of 3: is the static mapping model any good?

For each case measured by measure.sh, compares the static order of the plan
(the cost model's rank of each variant, docs/mapping.md, with "keep the
original" at the rank the plan's baseline gives it, or first when it says
to keep it) with the measured median times of the original and the correct
variants:
  - the static rank (among the choices) of the measured best,
  - the slowdown of the static top-1 against the measured best,
  - whether "keep the original" was the right answer (nothing beats it by 10%),
and the shares of cases where the static top-1 is within 10% of the best and
where the best is among the first 3 static choices (what --budget 3 keeps).

  bench/mapping/report.py PLANS_DIR [--results DIR] [--markdown]

--results DIR reads DIR/<case>.json instead of PLANS_DIR/<case>/results.json
(bench/mapping/results-h100 holds the committed measurements).
"""
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def main():
    argv = sys.argv[1:]
    results_dir = None
    if "--results" in argv:
        i = argv.index("--results")
        if i + 1 >= len(argv):
            print(__doc__, file=sys.stderr)
            return 2
        results_dir = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    markdown = "--markdown" in argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    root = args[0]
    rows, within, keep_right, in_top3, measured_cases = [], 0, 0, 0, 0
    for case in sorted(os.listdir(root)):
        plan_path = os.path.join(root, case, "plan.json")
        res_path = (os.path.join(results_dir, case + ".json") if results_dir
                    else os.path.join(root, case, "results.json"))
        if not (os.path.isfile(plan_path) and os.path.isfile(res_path)):
            continue
        plan, res = load(plan_path), load(res_path)
        order = {}  # variant id -> position in the plan's static order (1 = first)
        keep = False
        original_rank = None  # "keep the original"'s place in that order (plans since issue 22's seventh set)
        for v in plan["variants"]:
            if v.get("baseline"):
                keep = bool((v.get("params") or {}).get("keep_original", False))
                original_rank = (v.get("params") or {}).get("static_rank")
            else:
                order[v["id"]] = v["params"].get("static_rank", len(order) + 1)
        base, measured = None, {}
        for v in res["variants"]:
            t = v.get("timing") or {}
            if v.get("baseline"):
                base = t.get("median")
            elif v.get("status") == "ok" and t.get("median") is not None:
                measured[v["id"]] = t["median"]
        if not measured or base is None:
            rows.append((case, "no correct variant measured", "", "", "", "", "", ""))
            continue
        measured_cases += 1
        ranked = sorted(measured, key=lambda i: order.get(i, 1e9))
        # The static choices: the variants in static order and "keep the
        # original" at its rank (before the variant that holds the same
        # rank); plans without one have it first when the model says nothing
        # beats it, last otherwise.
        if original_rank is not None:
            choices = sorted(ranked + ["baseline"],
                             key=lambda i: original_rank - 0.5 if i == "baseline" else order.get(i, 1e9))
        else:
            choices = (["baseline"] if keep else []) + ranked + ([] if keep else ["baseline"])
        times = dict(measured, baseline=base)
        best = min(times, key=times.get)
        top = choices[0]
        slowdown = times[top] / times[best]
        within += slowdown <= 1.10
        best_variant = min(measured, key=measured.get)
        keep_measured = measured[best_variant] * 1.10 > base  # nothing beats the original by 10%
        keep_right += keep == keep_measured
        in_top3 += best in choices[:3]
        rank_of_best = choices.index(best) + 1
        rows.append((case, f"{best} ({base / times[best]:.2f}x)", f"{rank_of_best} of {len(choices)}",
                     f"{top} ({base / times[top]:.2f}x)", f"{slowdown:.2f}x",
                     f"{'keep' if keep else 'rewrite'} / {'keep' if keep_measured else 'rewrite'}", f"{base:.4f}",
                     f"{len(plan['variants']) - 1 - len(measured)}"))
    header = ("case", "measured best (speedup)", "static rank of best", "static top-1 (speedup)",
              "top-1 / best time", "keep original: static / measured", "baseline ms", "plan variants without a correct time")
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
        for r in [header] + rows:
            print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    n = measured_cases
    if n:
        print(f"\nstatic top-1 within 10% of the measured best: {within} of {n} cases ({100 * within / n:.0f}%; goal 80%)")
        print(f"keep-the-original answer right: {keep_right} of {n} cases ({100 * keep_right / n:.0f}%)")
        print(f"measured best within the first 3 static choices (--budget 3): {in_top3} of {n} cases "
              f"({100 * in_top3 / n:.0f}%; goal 90%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
