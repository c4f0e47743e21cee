#!/usr/bin/env python3
"""`nestor profile` end to end on the CPU (docs/profile-planner.md):

  test_profile_cli.py NESTOR NESTOR_RUNNER SOURCE_DIR

* configuration errors (no .nestor.yaml, missing keys) exit 2 and list the
  candidates;
* without a CUDA device: exit 3 and the static candidate list, nothing built;
* --plan DIR writes a plan the schema and the runner accept;
* a full local run through nestor-runner's test seam
  (NESTOR_RUNNER_ASSUME_DEVICES=1, wall-clock timing) with fake_nvcc.py as
  the compiler: the table, the recommendation, --report, a wrong and a
  broken variant rejected, the runner's cache reused, --fresh;
* --results FILE reads the results back;
* the user's file is never modified.
The example is the TMV program of examples/profile/tmv (CUDA-NP
variants). With fewer loop rewrites registered the assertions still hold:
they are about structure, not counts."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

NESTOR, RUNNER, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake_nvcc.py")
TMV = os.path.join(SOURCE, "examples/profile/tmv/tmv.cu")
FAILED = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def run(args, env_extra=None, cwd=None, drop=()):
    env = dict(os.environ)
    for k in ("NESTOR_RUNNER_ASSUME_DEVICES", "NESTOR_RUNNER_REPORTED_MS", "CUDA_VISIBLE_DEVICES", "NESTOR_RUNNER") + tuple(drop):
        env.pop(k, None)
    env.update(env_extra or {})
    p = subprocess.run([NESTOR, "profile"] + args, capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    return p.returncode, p.stdout, p.stderr


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def write_config(ws, reference, extra_build="", with_run=True, outputs=True):
    build = f"{sys.executable} {FAKE} {{flags}} {{defines}} --reference {reference} --slow 0.12 --fast 0.01 {extra_build} -o {{exe}} {{source}}"
    lines = ["profile:", f'  build: "{build}"']
    if with_run:
        lines.append('  run: "{exe} out.txt"')
    if outputs:
        lines.append("  outputs: [out.txt]")
    lines += ["  tolerance: 0", "  repetitions: 5", "  timeout: 30"]
    with open(os.path.join(ws, ".nestor.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")


def candidate_lines(text):
    return re.findall(r"^\s+(\d+)\. ([A-Za-z0-9_.+-]+): (.+)$", text, re.M)


def main():
    tmp = tempfile.mkdtemp(prefix="nestor-profile-cli-")
    try:
        ws = os.path.join(tmp, "ws")
        os.makedirs(ws)
        src = os.path.join(ws, "tmv.cu")
        shutil.copy(TMV, src)
        reference = os.path.join(tmp, "reference.cu")
        shutil.copy(TMV, reference)
        before = sha(src)
        cache_env = {"XDG_CACHE_HOME": os.path.join(tmp, "cache")}

        # -- bad usage --
        rc, out, err = run([src, "--kernel", "tmv", "--report", "r.html"])
        check(rc == 2 and ".json, .md or .svg" in err, "--report with an unknown extension: exit 2")
        rc, out, err = run([src, "--kernel", "tmv", "--plan", "p", "--results", "r.json"])
        check(rc == 2 and "exclude each other" in err, "--plan and --results together: exit 2")
        rc, out, err = run([src, "--kernel", "no_such"])
        check(rc == 2 and "no kernel named 'no_such'" in err and "tmv" in err, "unknown kernel: exit 2, kernels listed")
        rc, out, err = run([src])
        check(rc == 1 and "--kernel" in err, "no kernel with findings and no --kernel: exit 1, says to name one")

        # -- configuration errors (exit 2, and what it would have timed) --
        rc, out, err = run([src, "--kernel", "tmv"], cache_env)
        check(rc == 2 and "no .nestor.yaml" in err and "profile:" in err, "no .nestor.yaml: exit 2 with an example section")
        listed = candidate_lines(err)
        check(len(listed) >= 1, f"config error still lists the candidates ({len(listed)})")
        write_config(ws, reference, with_run=False)
        rc, out, err = run([src, "--kernel", "tmv"], cache_env)
        check(rc == 2 and "needs run" in err and ".nestor.yaml" in err, "profile section without run: exit 2 naming 'run'")
        write_config(ws, reference, outputs=False)
        rc, out, err = run([src, "--kernel", "tmv"], cache_env)
        check(rc == 2 and "outputs or check" in err, "profile section without outputs/check: exit 2")
        write_config(ws, reference, extra_build="--wrong-if 'intra<4>' --fail-if 'intra<8>'")

        # -- no device: exit 3, the static candidate list, nothing built --
        build_log = os.path.join(tmp, "builds.log")
        rc, out, err = run([src, "--kernel", "tmv"], {**cache_env, "CUDA_VISIBLE_DEVICES": "", "FAKE_BUILD_LOG": build_log})
        check(rc == 3, f"no CUDA device: exit 3 (got {rc})")
        check("no CUDA device" in err and "Nothing was built or run" in err, "no device: says so")
        listed = candidate_lines(out)
        check(len(listed) >= 1, f"no device: candidate list on stdout ({len(listed)} candidates)")
        check([int(n) for n, _, _ in listed] == list(range(1, len(listed) + 1)), "candidates numbered in static order")
        check(all(("CUDA-NP" in t or "loop at line" in t) for _, _, t in listed), "each line names the rewrite and its target")
        check(not os.path.exists(build_log), "no device: nothing was built")
        rc, out, err = run([src, "--kernel", "tmv", "--budget", "2"], {**cache_env, "CUDA_VISIBLE_DEVICES": ""})
        check(rc == 3 and "first 2" in err, "no device with --budget: says which would be tried")

        # -- --plan DIR: plan and sources for a runner elsewhere --
        plan_dir = os.path.join(tmp, "plan")
        rc, out, err = run([src, "--kernel", "tmv", "--plan", plan_dir, "--budget", "3"], {"CUDA_VISIBLE_DEVICES": ""})
        check(rc == 0 and "Plan written" in out, f"--plan: exit 0 even without a device (rc {rc}: {err.strip()[:300]})")
        plan_path = os.path.join(plan_dir, "plan.json")
        plan = json.load(open(plan_path))
        variants = plan["variants"]
        check(variants[0]["id"] == "baseline" and variants[0]["baseline"] is True, "plan: baseline first")
        check(1 <= len(variants) - 1 <= 3, f"plan: --budget 3 keeps at most 3 variants ({len(variants) - 1})")
        check(os.path.normpath(os.path.join(plan_dir, plan["project_dir"])) == os.path.realpath(ws),
              "plan: project_dir is relative to the plan and points at the project")
        check(plan["timing"]["mode"] == "cupti" and plan["timing"]["serialize_kernels"] is False,
              "plan: CUPTI timing by default; no CDP, so concurrent records")
        check(plan["timing"]["max_samples"] == 5 and plan["run"]["timeout_s"] == 30, "plan: repetitions and timeout from .nestor.yaml")
        ok_files = all(os.path.isfile(os.path.join(plan_dir, f)) for v in variants for f in v.get("files", {}).values())
        check(ok_files, "plan: every variant file exists")
        # python3-jsonschema comes with scripts/bootstrap: without it this is a failure, not a note.
        try:
            import jsonschema
        except ImportError:
            jsonschema = None
        check(jsonschema is not None, "python3-jsonschema is installed (scripts/bootstrap) to validate the plan")
        if jsonschema is not None:
            schema = json.load(open(os.path.join(SOURCE, "docs/profiler-plan.schema.json")))
            try:
                jsonschema.validate(plan, schema)
                check(True, "plan validates against docs/profiler-plan.schema.json")
            except jsonschema.ValidationError as e:
                check(False, f"plan validates against the schema: {e.message}")

        # -- full local run through the runner's test seam --
        seam = {**cache_env, "NESTOR_RUNNER_ASSUME_DEVICES": "1", "NESTOR_RUNNER_REPORTED_MS": ".fake-run-ms", "FAKE_BUILD_LOG": build_log}
        report_md = os.path.join(tmp, "report.md")
        rc, out, err = run([src, "--kernel", "tmv", "--report", report_md], seam)
        check(rc == 0, f"local run: exit 0 (rc {rc}; {err.strip()[-600:]})")
        check("| Variant | Status |" in out and "Test mode" in out, "local run: the runner's table, marked as test mode")
        check("**Recommendation:** apply `np-" in out, "local run: recommends a CUDA-NP variant (the fake compiler makes them faster)")
        check("To apply it (from the project directory): nestor rewrite tmv.cu --at " in out and "--apply np" in out,
              "local run: prints the rewrite command of the recommendation")
        check("[build] baseline: ok" in err, "local run (stderr not a terminal): the runner's lines, no progress bar")
        said = err.find("nestor profile: running the commands of ")
        check(said != -1 and "\n  build: " in err[said:] and "\n  run:   " in err[said:] and said < err.find("[build] baseline"),
              "local run: says which build and run commands it will run, before running them")
        check(os.path.isfile(report_md) and "# Nestor profile" in open(report_md).read(), "local run: --report .md written")
        plan_dirs = [os.path.join(r, d) for r, ds, _ in os.walk(os.path.join(tmp, "cache")) for d in ds if d.startswith("tmv-tmv-")]
        check(len(plan_dirs) == 1, "local run: plan kept under $XDG_CACHE_HOME/nestor/profile/")
        results = json.load(open(os.path.join(plan_dirs[0], "results.json")))
        status = {v["id"]: v["status"] for v in results["variants"]}
        # The fake compiler makes np-4-intra wrong and np-8-intra fail to build
        # (write_config above): both must be in the plan and reported so.
        check(status.get("np-4-intra") == "output_mismatch",
              f"local run: a variant with wrong output is rejected (np-4-intra: {status.get('np-4-intra')}; variants {sorted(status)})")
        check(status.get("np-8-intra") == "build_failed",
              f"local run: a variant that does not build is reported (np-8-intra: {status.get('np-8-intra')})")
        check(status.get("baseline") == "ok" and results["environment"]["devices_assumed"] is True,
              "local run: results come from the seam and say so")
        check(results["recommendation"]["decision"] == "variant" and
              status.get(results["recommendation"]["variant"]) == "ok", "local run: the recommended variant ran correctly")
        built = open(build_log).read().splitlines()
        check(len(built) == len(status), f"local run: one build per variant ({len(built)} builds, {len(status)} variants)")
        check(sha(src) == before, "the user's file is unchanged")

        # -- cached: nothing rebuilt; --fresh measures again --
        open(build_log, "w").close()
        rc, out, err = run([src, "--kernel", "tmv"], seam)
        check(rc == 0 and "(cached)" in out, "second run: results from the runner's cache")
        check(open(build_log).read() == "", "second run: nothing built")
        rc, out, err = run([src, "--kernel", "tmv", "--fresh"], seam)
        check(rc == 0 and "(cached)" not in out and open(build_log).read() != "", "--fresh: measured again")

        # -- --results FILE --
        svg = os.path.join(tmp, "r.svg")
        rc, out, err = run(["--results", os.path.join(plan_dirs[0], "results.json"), "--report", svg])
        check(rc == 0 and "| Variant | Status |" in out and "Recommendation" in out, "--results: prints the table")
        check(os.path.isfile(svg) and open(svg).read().startswith("<svg"), "--results: --report .svg written")
        bad = os.path.join(tmp, "bad.json")
        open(bad, "w").write('{"schema_version": 1}')
        rc, out, err = run(["--results", bad])
        check(rc == 2 and "not nestor-runner results" in err, "--results on a broken file: exit 2 naming the problem")
        check(sha(src) == before, "the user's file is still unchanged")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILED:
        print(f"\n{len(FAILED)} check(s) failed")
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
