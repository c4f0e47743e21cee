#!/usr/bin/env python3
"""Validates nestor-runner's JSON against the documented schemas.

1. Runs the real nestor-runner on a plan over the fake program (wall clock,
   NESTOR_RUNNER_ASSUME_DEVICES=1) with passing and failing variants, and
   validates the results file and the --report .json against
   docs/profiler-results.schema.json.
2. Validates every examples/profile/*/plan.json against
   docs/profiler-plan.schema.json.
3. Checks that the schemas reject broken documents, so a schema that accepts
   everything cannot pass this test.
Fails when python3-jsonschema is missing (scripts/bootstrap installs it).
"""
import argparse
import copy
import glob
import json
import os
import shutil
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    # scripts/bootstrap installs python3-jsonschema: a missing module is a broken
    # machine, not a reason to pass without validating anything.
    print("FAIL: the python3 jsonschema module is not installed (scripts/bootstrap installs python3-jsonschema)")
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--fake", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--plans", required=True, action="append",
                    help="a folder of example plans (*/plan.json); may be given several times")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()

    with open(os.path.join(args.docs, "profiler-results.schema.json")) as f:
        results_schema = json.load(f)
    with open(os.path.join(args.docs, "profiler-plan.schema.json")) as f:
        plan_schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(results_schema)
    jsonschema.Draft202012Validator.check_schema(plan_schema)
    results_validator = jsonschema.Draft202012Validator(results_schema)
    plan_validator = jsonschema.Draft202012Validator(plan_schema)

    work = args.workdir
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "project"))
    os.makedirs(os.path.join(work, "variants"))
    with open(os.path.join(work, "project", "main.fake"), "w") as f:
        f.write("behaviour=ok\nsleep_ms=20\n")
    variants = [{"id": "baseline", "baseline": True, "source": "main.fake"}]
    for vid, config in [("fast", "behaviour=ok\nsleep_ms=5\n"), ("wrong", "behaviour=wrong\n"),
                        ("broken", "behaviour=build_error\n"), ("crash", "behaviour=crash\n")]:
        with open(os.path.join(work, "variants", vid + ".fake"), "w") as f:
            f.write(config)
        variants.append({"id": vid, "source": "main.fake", "files": {"main.fake": "variants/" + vid + ".fake"},
                         "params": {"kind": vid}})
    plan = {
        "schema_version": 1,
        "project_dir": "project",
        "build": {"command": args.fake + " build {source} {exe}"},
        "run": {"command": "{exe} out.txt", "timeout_s": 10},
        "check": {"outputs": ["out.txt"]},
        "timing": {"mode": "wall_clock", "min_samples": 3, "max_samples": 5, "noise_target": 0.5},
        "variants": variants,
    }
    plan_path = os.path.join(work, "plan.json")
    with open(plan_path, "w") as f:
        json.dump(plan, f, indent=2)
    errors = []
    errors += [f"fake plan: {e.message}" for e in plan_validator.iter_errors(plan)]

    env = dict(os.environ, NESTOR_RUNNER_ASSUME_DEVICES="1")
    results_path = os.path.join(work, "results.json")
    report_path = os.path.join(work, "report.json")
    proc = subprocess.run([args.runner, plan_path, "-o", results_path, "--report", report_path, "--cache",
                           os.path.join(work, "cache.jsonl"), "--quiet"], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stdout, proc.stderr)
        print(f"FAILED: nestor-runner exited with {proc.returncode}")
        return 1
    for path in (results_path, report_path):
        with open(path) as f:
            doc = json.load(f)
        errors += [f"{os.path.basename(path)}: {list(e.absolute_path)}: {e.message}" for e in results_validator.iter_errors(doc)]
    with open(results_path) as f:
        results = json.load(f)
    statuses = {v["id"]: v["status"] for v in results["variants"]}
    expected = {"baseline": "ok", "fast": "ok", "wrong": "output_mismatch", "broken": "build_failed", "crash": "crashed"}
    if statuses != expected:
        errors.append(f"statuses {statuses} != {expected}")

    # Mutations the schema must reject.
    def mutated(edit):
        doc = copy.deepcopy(results)
        edit(doc)
        return doc
    must_fail = {
        "unknown status": mutated(lambda d: d["variants"][0].__setitem__("status", "fine")),
        "failed variant with timing": mutated(lambda d: d["variants"][2].__setitem__("timing", d["variants"][0]["timing"])),
        "ok variant without timing": mutated(lambda d: d["variants"][0].__setitem__("timing", None)),
        "missing recommendation": mutated(lambda d: d.pop("recommendation")),
        "wrong schema_version": mutated(lambda d: d.__setitem__("schema_version", 2)),
        "extra field": mutated(lambda d: d.__setitem__("surprise", 1)),
        "negative median": mutated(lambda d: d["variants"][0]["timing"].__setitem__("median", -1)),
    }
    for name, doc in must_fail.items():
        if results_validator.is_valid(doc):
            errors.append(f"results schema accepted a document with: {name}")
    bad_plans = {
        "two baselines": dict(plan, variants=[dict(v, baseline=True) for v in variants]),
        "no check": {k: v for k, v in plan.items() if k != "check"},
        "bad timing mode": dict(plan, timing={"mode": "gpu"}),
    }
    for name, doc in bad_plans.items():
        if plan_validator.is_valid(doc):
            errors.append(f"plan schema accepted a plan with: {name}")

    example_plans = sorted(p for d in args.plans for p in glob.glob(os.path.join(d, "*", "plan.json")))
    if not example_plans:
        errors.append(f"no example plans under {', '.join(args.plans)}")
    for path in example_plans:
        with open(path) as f:
            doc = json.load(f)
        errors += [f"{path}: {list(e.absolute_path)}: {e.message}" for e in plan_validator.iter_errors(doc)]

    for e in errors:
        print("FAILED:", e)
    if not errors:
        print(f"schemas: results ({len(results['variants'])} variants) and {len(example_plans)} example plan(s) valid; "
              f"{len(must_fail) + len(bad_plans)} broken documents rejected")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
