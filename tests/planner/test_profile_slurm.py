#!/usr/bin/env python3
"""nestor-runner --executor slurm on a real one-node Slurm (scripts/slurm-local:
slurmctld, slurmd and munged from Debian's packages, fake GPUs as gres).

  test_profile_slurm.py NESTOR NESTOR_RUNNER SOURCE_DIR

A plan of the TMV example made by `nestor profile --plan --timing wall_clock`
with fake_nvcc.py as the compiler (an output mismatch and a build failure
included) runs once with the local executor and once through Slurm (3 array
tasks, one fake GPU each); every task must have run through Slurm (sacct
shows it COMPLETED) and the merged results must equal the local ones
(variants, statuses, decision, and a winner the local run measured as fast).
Then a task is cancelled mid-run (scancel, as Slurm kills a job): its
variants are reported one by one with the reason, nothing is lost, and a
rerun resumes from what was measured. Exits 77 (skip, reason printed) when
the Slurm packages are missing; scripts/bootstrap installs them.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

NESTOR, RUNNER, SOURCE = sys.argv[1:4]
HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake_nvcc.py")
SLURM_LOCAL = os.path.join(SOURCE, "scripts", "slurm-local")
FAILED = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILED.append(what)


def missing_slurm():
    for tool in ("sbatch", "squeue", "sacct", "scancel", "sinfo"):
        if not shutil.which(tool):
            return tool
    for daemon in ("slurmctld", "slurmd", "munged"):
        if not (shutil.which(daemon) or os.path.exists("/usr/sbin/" + daemon)):
            return daemon
    return None


def free_port_pair():
    # Two consecutive free ports (slurmctld, slurmd): another checkout's test may run a cluster too.
    import socket
    for _ in range(50):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            if port >= 65535:
                continue
            try:
                with socket.socket() as b:
                    b.bind(("127.0.0.1", port + 1))
                return port
            except OSError:
                continue
    return 16817


def runner(args, env, timeout=600):
    return subprocess.run([RUNNER] + args, capture_output=True, text=True, env=env, timeout=timeout)


def by_id(results):
    return {v["id"]: v for v in results["variants"]}


def main():
    tool = missing_slurm()
    if tool:
        print(f"SKIP: {tool} not found: the Slurm packages (slurm-wlm, slurm-client, munge) are missing; scripts/bootstrap installs them")
        return 77
    tmp = tempfile.mkdtemp(prefix="nestor-slurm-test-")
    slurm_dir = os.path.join(tmp, "slurm")
    env = dict(os.environ, NESTOR_SLURM_DIR=slurm_dir, SLURM_CONF=os.path.join(slurm_dir, "slurm.conf"),
               NESTOR_RUNNER_ASSUME_DEVICES="1", NESTOR_RUNNER_REPORTED_MS=".fake-run-ms", NESTOR_SLURM_PORT=str(free_port_pair()))
    env.pop("CUDA_VISIBLE_DEVICES", None)
    started = False
    try:
        # -- the plan: TMV with the fake compiler, wall-clock timing --
        ws = os.path.join(tmp, "ws")
        os.makedirs(ws)
        src = os.path.join(ws, "tmv.cu")
        shutil.copy(os.path.join(SOURCE, "examples/profile/tmv/tmv.cu"), src)
        reference = os.path.join(tmp, "reference.cu")
        shutil.copy(src, reference)
        build = (f"{sys.executable} {FAKE} {{flags}} {{defines}} --reference {reference} --slow 0.12 --fast 0.01 "
                 f"--wrong-if 'intra<4>' --fail-if 'intra<8>' -o {{exe}} {{source}}")
        with open(os.path.join(ws, ".nestor.yaml"), "w") as f:
            f.write(f'profile:\n  build: "{build}"\n  run: "{{exe}} out.txt"\n  outputs: [out.txt]\n'
                    "  tolerance: 0\n  repetitions: 5\n  timeout: 30\n")
        plan_dir = os.path.join(tmp, "plan")
        p = subprocess.run([NESTOR, "profile", src, "--kernel", "tmv", "--timing", "wall_clock", "--plan", plan_dir],
                           capture_output=True, text=True, timeout=300)
        check(p.returncode == 0, f"nestor profile --plan (rc {p.returncode}: {p.stderr.strip()[-400:]})")
        plan = os.path.join(plan_dir, "plan.json")

        # -- local executor --
        r = runner([plan, "-o", os.path.join(tmp, "local.json"), "--cache", os.path.join(tmp, "local-cache.jsonl"), "--quiet"], env)
        check(r.returncode == 0, f"local executor: exit 0 ({r.stderr.strip()[-400:]})")
        local = json.load(open(os.path.join(tmp, "local.json")))

        # -- the cluster --
        s = subprocess.run([SLURM_LOCAL, "start", "--gpus", "4"], capture_output=True, text=True, env=env, timeout=120)
        started = True
        if s.returncode != 0:
            check(False, f"scripts/slurm-local start: {s.stdout.strip()} {s.stderr.strip()}")
            return 1
        print(s.stdout.strip())

        # -- slurm executor, 3 tasks --
        slurm_json = os.path.join(tmp, "slurm.json")
        cache = os.path.join(tmp, "slurm-cache.jsonl")
        r = runner([plan, "-o", slurm_json, "--executor", "slurm", "--gpus", "3", "--partition", "nestor", "--time", "10",
                    "--cache", cache], env)
        check(r.returncode == 0, f"slurm executor: exit 0 (rc {r.returncode}: {r.stderr.strip()[-800:]})")
        check("[slurm] submitted job array" in r.stderr, "slurm executor: one job array submitted")
        merged = json.load(open(slurm_json))
        lv, sv = by_id(local), by_id(merged)
        check(sorted(lv) == sorted(sv), "merged results: the same variants as the local executor")
        check(all(lv[i]["status"] == sv[i]["status"] for i in lv),
              "merged results: the same status per variant ("
              + ", ".join(f"{i}: {lv[i]['status']}/{sv[i]['status']}" for i in lv if lv[i]["status"] != sv[i]["status"]) + ")")
        check(sv.get("np-4-intra", {}).get("status") == "output_mismatch" and sv.get("np-8-intra", {}).get("status") == "build_failed",
              "merged results: the wrong variant and the broken build are reported as such")
        check(merged["recommendation"]["decision"] == local["recommendation"]["decision"] == "variant",
              "merged results: the same decision (apply a variant)")
        winner = merged["recommendation"]["variant"]
        best_local = min(v["timing"]["median"] for v in local["variants"] if v["timing"])
        check(winner in lv and lv[winner]["timing"] is not None and lv[winner]["timing"]["median"] < 2 * best_local,
              f"merged results: the winner '{winner}' is one of the fast variants the local run measured")
        state = os.path.join(plan_dir, ".nestor-slurm")
        check(all(os.path.isfile(os.path.join(state, f"task-{t}.results.json")) for t in range(3)),
              "every task wrote its results through Slurm")
        acct = subprocess.run(["sacct", "--completion", "-n", "-P", "-o", "JobID,JobName,State"], capture_output=True, text=True, env=env)
        rows = [l.split("|") for l in acct.stdout.splitlines() if "|nestor-runner|" in l]
        check(len(rows) == 3 and all(r[2] == "COMPLETED" for r in rows),
              f"sacct shows the 3 array tasks COMPLETED ({rows})")

        # -- a task killed by Slurm: reported per variant, nothing lost, rerun resumes --
        killed_json = os.path.join(tmp, "killed.json")
        cache2 = os.path.join(tmp, "killed-cache.jsonl")
        proc = subprocess.Popen([RUNNER, plan, "-o", killed_json, "--executor", "slurm", "--gpus", "2", "--racing", "off",
                                 "--cache", cache2], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(env, FAKE_EXTRA_RUN_S="0.3"))
        job = None
        for _ in range(600):
            q = subprocess.run(["squeue", "-h", "-n", "nestor-runner", "-t", "RUNNING", "-o", "%i"], capture_output=True, text=True, env=env)
            ids = [l.strip() for l in q.stdout.splitlines() if l.strip().endswith("_1")]
            if ids:
                job = ids[0]
                break
            time.sleep(0.1)
        check(job is not None, "second run: task 1 started")
        if job:
            time.sleep(1.0)
            subprocess.run(["scancel", job], env=env)
        out, err = proc.communicate(timeout=600)
        check(proc.returncode == 0, f"second run: results written although a task was killed (rc {proc.returncode}: {err.strip()[-400:]})")
        killed = json.load(open(killed_json))
        kv = by_id(killed)
        check(sorted(kv) == sorted(lv), "second run: every variant is reported")
        def fate(v):
            return v["reason"] if v["status"] != "ok" else (v["timing"] or {}).get("stop_detail", "")
        lost = [i for i, v in kv.items() if "CANCELLED" in fate(v)]
        print("second run: " + "; ".join(f"{i}: {v['status']} {fate(v)[:160]}" for i, v in kv.items()))
        check(len(lost) >= 1 and all(".nestor-slurm/task-1.log" in fate(kv[i]) or kv[i]["status"] == "ok" for i in lost),
              f"second run: the killed task's unfinished variants name the task's fate ({len(lost)})")
        measured = [i for i, v in kv.items() if v["status"] == "ok"]
        r = runner([plan, "-o", os.path.join(tmp, "resumed.json"), "--executor", "slurm", "--gpus", "2", "--racing", "off",
                    "--cache", cache2], env)
        resumed = by_id(json.load(open(os.path.join(tmp, "resumed.json"))))
        check(r.returncode == 0 and all(resumed[i]["from_cache"] for i in measured),
              f"rerun: the {len(measured)} variants measured before are reused from the cache")
        check(all(resumed[i]["status"] == lv[i]["status"] for i in lv), "rerun: every variant measured, statuses as the local run")

        # -- Ctrl-C on the coordinator: the job is cancelled, the results so far written --
        import signal
        ctrlc_json = os.path.join(tmp, "ctrlc.json")
        proc = subprocess.Popen([RUNNER, plan, "-o", ctrlc_json, "--executor", "slurm", "--gpus", "2", "--racing", "off", "--fresh",
                                 "--cache", os.path.join(tmp, "ctrlc-cache.jsonl")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=dict(env, FAKE_EXTRA_RUN_S="0.3"))
        running = False
        for _ in range(600):
            q = subprocess.run(["squeue", "-h", "-n", "nestor-runner", "-t", "RUNNING", "-o", "%i"], capture_output=True, text=True, env=env)
            if q.stdout.strip():
                running = True
                break
            time.sleep(0.1)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=300)
        check(running and proc.returncode == 130, f"Ctrl-C: exit 130 after the job ran (rc {proc.returncode}: {err.strip()[-300:]})")
        check("scancel" in err, "Ctrl-C: the coordinator cancelled its job (scancel)")
        left = subprocess.run(["squeue", "-h", "-n", "nestor-runner", "-o", "%i %T"], capture_output=True, text=True, env=env).stdout.strip()
        check(left == "", f"Ctrl-C: no job of the run is left in the queue ({left})")
        if os.path.exists(ctrlc_json):
            cv = by_id(json.load(open(ctrlc_json)))
            check(sorted(cv) == sorted(lv), "Ctrl-C: every variant is reported in the results written")
        else:
            check(False, "Ctrl-C: results written")
    finally:
        if started:
            subprocess.run([SLURM_LOCAL, "stop"], env=env, capture_output=True, timeout=120)
        leftover = subprocess.run(["pgrep", "-f", slurm_dir], capture_output=True, text=True).stdout.strip()
        check(leftover == "", f"scripts/slurm-local stop leaves no daemon running ({leftover})")
        shutil.rmtree(tmp, ignore_errors=True)
    print("FAILED: " + "; ".join(FAILED) if FAILED else "all checks passed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
