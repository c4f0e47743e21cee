#!/usr/bin/env python3
"""bench/mapping: keeps of each plan only what report.py reads (the static
order): every variant's id, baseline flag and params (static_rank,
estimate_us, keep_original), so that the static order a model gave can be
committed beside the measurements it was judged against (plans themselves
hold every variant's sources).

  bench/mapping/static_order.py PLANS_DIR OUT_DIR
writes OUT_DIR/<case>/plan.json for every PLANS_DIR/<case>/plan.json.
"""
import json
import os
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    plans, out = sys.argv[1], sys.argv[2]
    written = 0
    for case in sorted(os.listdir(plans)):
        path = os.path.join(plans, case, "plan.json")
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            plan = json.load(f)
        kept = {"comment": plan.get("comment", ""),
                "variants": [{k: v[k] for k in ("id", "baseline", "description", "params") if k in v}
                             for v in plan["variants"]]}
        os.makedirs(os.path.join(out, case), exist_ok=True)
        with open(os.path.join(out, case, "plan.json"), "w") as f:
            json.dump(kept, f, indent=1, sort_keys=True)
            f.write("\n")
        written += 1
    if not written:
        print(f"static_order.py: no plan.json under {plans}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
