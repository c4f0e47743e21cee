#!/usr/bin/env python3
"""Every variant of the generated example plans (PLANS/*/plan.json, written
into the build tree by the target nestor_example_plans) must build with nvcc, so that a runner on a GPU machine does not
find a broken source there. Builds each variant the way nestor-runner does
(profiler/src/runner.cpp): a copy of the plan's project with the variant's
files laid over it, the plan's build command with {source} {exe} {defines}
{flags} {workdir} filled in, run in that copy. No GPU is needed.

usage: check_plan_variants_nvcc.py PLANS [NVCC]
Exits 77 (skipped) when nvcc cannot be found: NVCC, $CUDA_PATH/bin, PATH,
/usr/local/cuda/bin."""
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

plans_root = sys.argv[1]
nvcc = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
if not nvcc:
    candidates = [os.path.join(os.environ["CUDA_PATH"], "bin", "nvcc")] if os.environ.get("CUDA_PATH") else []
    candidates += [shutil.which("nvcc") or "", "/usr/local/cuda/bin/nvcc"]
    nvcc = next((c for c in candidates if c and os.access(c, os.X_OK)), None)
if not nvcc or not os.access(nvcc, os.X_OK):
    print("SKIP: nvcc not found (pass it, set CUDA_PATH or put it on PATH)")
    sys.exit(77)

env = dict(os.environ)
env["PATH"] = os.path.dirname(os.path.abspath(nvcc)) + os.pathsep + env.get("PATH", "")


def expand(template, values):
    # Like the runner's expand_template: ${VAR} and {{ are not placeholders.
    def sub(m):
        start = m.start()
        if start > 0 and template[start - 1] in "${":
            return m.group(0)
        return values.get(m.group(1), m.group(0))

    return re.sub(r"\{(\w+)\}", sub, template)


def build(plan_dir, plan, variant, scratch):
    workdir = os.path.join(scratch, variant["id"], "project")
    shutil.copytree(os.path.join(plan_dir, plan["project_dir"]), workdir, symlinks=True)
    for target, source in variant.get("files", {}).items():
        dest = os.path.join(workdir, target)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(plan_dir, source), dest)
    defines = " ".join(shlex.quote(f"-D{k}" + (f"={v}" if v else "")) for k, v in sorted(variant.get("defines", {}).items()))
    command = expand(plan["build"]["command"], {
        "source": shlex.quote(os.path.join(workdir, variant["source"])),
        "exe": shlex.quote(os.path.join(scratch, variant["id"], "variant.exe")),
        "defines": defines,
        "flags": variant.get("flags", ""),
        "workdir": shlex.quote(workdir),
    })
    r = subprocess.run(command, shell=True, cwd=workdir, env=env, capture_output=True, text=True,
                       timeout=plan["build"].get("timeout_s", 600))
    return r.returncode, command, (r.stdout + r.stderr).strip()


jobs = []
for name in sorted(os.listdir(plans_root)):
    plan_path = os.path.join(plans_root, name, "plan.json")
    if os.path.isfile(plan_path):
        with open(plan_path) as f:
            plan = json.load(f)
        jobs += [(name, os.path.join(plans_root, name), plan, v) for v in plan["variants"]]
if not jobs:
    print(f"no plans found under {plans_root} (build the target nestor_example_plans)")
    sys.exit(1)

failed = []
with tempfile.TemporaryDirectory(prefix="nestor-plan-nvcc-") as scratch, \
        concurrent.futures.ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
    futures = {}
    for name, plan_dir, plan, variant in jobs:
        os.makedirs(os.path.join(scratch, name), exist_ok=True)
        futures[pool.submit(build, plan_dir, plan, variant, os.path.join(scratch, name))] = f"{name}/{variant['id']}"
    for future in concurrent.futures.as_completed(futures):
        label = futures[future]
        try:
            rc, command, output = future.result()
        except Exception as e:  # a missing file in the plan, a timeout
            rc, command, output = -1, "", repr(e)
        print(f"{'ok  ' if rc == 0 else 'FAIL'} {label}", flush=True)
        if rc != 0:
            failed.append(f"{label}: {command}\n{output}")
if failed:
    print("\nvariants that do not build (docs/profile-planner.md):\n\n" + "\n\n".join(failed))
    sys.exit(1)
print(f"{len(jobs)} variants of {len({j[0] for j in jobs})} plans build with {nvcc}")
