#!/usr/bin/env python3
"""The committed example plans (examples/profile/plans/*) carry a copy of the
runtime headers so that a runner on another machine needs nothing else. This
test fails when a copy has drifted from runtime/include: regenerate the plans
(docs/profile-planner.md) after changing the runtime."""
import filecmp
import os
import sys

repo = sys.argv[1]
runtime = os.path.join(repo, "runtime", "include")
plans = os.path.join(repo, "examples", "profile", "plans")
stale = []
checked = 0
for plan in sorted(os.listdir(plans)):
    copy = os.path.join(plans, plan, "runtime")
    if not os.path.isdir(copy):
        continue
    for root, _, files in os.walk(copy):
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), copy)
            checked += 1
            original = os.path.join(runtime, rel)
            if not os.path.exists(original) or not filecmp.cmp(original, os.path.join(root, name), shallow=False):
                stale.append(f"{plan}/runtime/{rel}")
if checked == 0:
    print("no runtime copies found under examples/profile/plans")
    sys.exit(1)
if stale:
    print("runtime copies differ from runtime/include (regenerate the plans):\n  " + "\n  ".join(stale))
    sys.exit(1)
print(f"{checked} runtime header copies match runtime/include")
