#!/usr/bin/env python3
"""`workspace/executeCommand nestor.profile` in `nestor lsp` with the real
planner (docs/profile-planner.md, docs/lsp.md):

  test_profile_lsp.py NESTOR SOURCE_DIR

* untrusted workspace: the static candidates, "not trusted", and no build
  command is run (fake_nvcc.py logs every build);
* trusted + .nestor.yaml: the real report through nestor-runner's test seam
  (NESTOR_RUNNER_ASSUME_DEVICES=1, wall-clock timing), in the shape the VS
  Code extension renders, with $/progress begin -> reports -> end and the
  budget from the settings;
* cancellation (window/workDoneProgress/cancel) while a variant runs: the
  request answers RequestCancelled and the running programs are killed."""
import os
import shutil
import sys
import tempfile
import time

NESTOR, SOURCE = os.path.abspath(sys.argv[1]), sys.argv[2]
NESTOR_CMD = os.environ.get("PLANNER_TEST_WRAPPER", NESTOR)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(SOURCE, "tests", "lsp"))
from lspclient import FAILED, LspClient, LspError, check  # noqa: E402

FAKE = os.path.join(HERE, "fake_nvcc.py")
TMV = os.path.join(SOURCE, "examples/profile/tmv/tmv.cu")


def workspace(root, name, reference, slow, timeout=60):
    ws = os.path.join(root, name)
    os.makedirs(ws)
    shutil.copy(TMV, os.path.join(ws, "tmv.cu"))
    build = f"{sys.executable} {FAKE} {{flags}} {{defines}} --reference {reference} --slow {slow} --fast 0.01 -o {{exe}} {{source}}"
    with open(os.path.join(ws, ".nestor.yaml"), "w") as f:
        f.write(f'profile:\n  build: "{build}"\n  run: "{{exe}} out.txt"\n  outputs: [out.txt]\n'
                f"  tolerance: 0\n  repetitions: 5\n  timeout: {timeout}\n")
    return os.path.join(ws, "tmv.cu")


def uri_of(path):
    return "file://" + path


def open_doc(c, path):
    mark = c.mark()
    uri = uri_of(path)
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda-cpp", "version": 1,
                                                       "text": open(path).read()}})
    c.wait_diagnostics(uri, 1, timeout=120, start=mark)
    return uri


def progress_of(c, token, start):
    with c.cond:
        return [m["params"]["value"] for m in c.notifications[start:]
                if m.get("method") == "$/progress" and m["params"]["token"] == token]


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purpose (its parent has not reaped it yet).
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def main():
    tmp = os.path.realpath(tempfile.mkdtemp(prefix="nestor-profile-lsp-"))
    try:
        run(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILED:
        print(f"\n{len(FAILED)} check(s) failed")
        return 1
    print("\nall checks passed")
    return 0


def run(tmp):
    reference = os.path.join(tmp, "reference.cu")
    shutil.copy(TMV, reference)
    fast_file = workspace(tmp, "fast", reference, 0.12)
    # The slow program runs for an hour (and its run timeout is longer): only a
    # cancellation that works ends it, so no check needs to time anything.
    slow_file = workspace(tmp, "slow", reference, 3600, timeout=7200)
    build_log, pid_dir = os.path.join(tmp, "builds.log"), os.path.join(tmp, "pids")
    os.makedirs(pid_dir)
    env = dict(os.environ)
    env.pop("CUDA_VISIBLE_DEVICES", None)
    env.update({"NESTOR_RUNNER_ASSUME_DEVICES": "1", "NESTOR_RUNNER_REPORTED_MS": ".fake-run-ms", "XDG_CACHE_HOME": os.path.join(tmp, "cache"),
                "FAKE_BUILD_LOG": build_log, "FAKE_PID_DIR": pid_dir})
    c = LspClient([NESTOR_CMD, "lsp"], cwd=tmp, env=env, stderr=sys.stderr)
    try:
        c.request("initialize", {"processId": None, "rootUri": uri_of(tmp),
                                 "capabilities": {"window": {"workDoneProgress": True}},
                                 "initializationOptions": {"workspaceTrusted": False, "gpuArch": "sm_90"}})
        c.notify("initialized", {})
        uri = open_doc(c, fast_file)

        # -- untrusted: static candidates, nothing run --
        report = c.request("workspace/executeCommand", {"command": "nestor.profile", "arguments": [uri, "tmv"]}, timeout=120)
        check(report.get("error", "").startswith("profiler not available") and "not trusted" in report["error"],
              "untrusted: profiler not available, says why")
        check(len(report.get("candidates", [])) >= 1 and all("rewrite" in x and "title" in x for x in report["candidates"]),
              "untrusted: the static candidate list")
        check(not os.path.exists(build_log), "untrusted: no build command ran")

        # -- trusted + configured: the real report --
        c.notify("workspace/didChangeConfiguration",
                 {"settings": {"nestor": {"workspaceTrusted": True, "gpuArch": "sm_90", "profile": {"budget": 3}}}})
        mark = c.mark()
        report = c.request("workspace/executeCommand",
                           {"command": "nestor.profile", "arguments": [uri, "tmv"], "workDoneToken": "tok-run"}, timeout=300)
        check("error" not in report, f"trusted: no error ({report.get('error', '')[:300]})")
        check(report.get("kernel") == "tmv" and report.get("file") == fast_file, "report: kernel and file")
        names = [v["name"] for v in report.get("variants", [])]
        check("baseline" in names and 2 <= len(names) <= 4, f"report: baseline + at most 3 variants (budget 3): {names}")
        check("test mode" in (report.get("device") or ""), "report: device says test mode (the seam), not a GPU")
        rec = report.get("recommendation") or {}
        check(rec.get("variant", "").startswith("np-") and report.get("decision") == "variant",
              "report: recommends a (faster) CUDA-NP variant")
        ok_rows = [v for v in report.get("variants", []) if v["status"] == "ok"]
        # JSON numbers: a reported 10 ms median may be written as 10 (an int to Python).
        check(ok_rows and all(isinstance(v["median_ms"], (int, float)) and not isinstance(v["median_ms"], bool)
                              and len(v["iqr_ms"]) == 2 and v["samples"] >= 1 for v in ok_rows),
              "report: medians, IQRs and sample counts of the correct variants")
        check("| Variant | Status |" in report.get("markdown", "") and report.get("results", {}).get("tool") == "nestor-runner",
              "report: the Markdown table and the runner's results document")
        check(report.get("apply", "").startswith("nestor rewrite tmv.cu --at "), "report: the rewrite command to apply it")
        # The answer comes first, the end of the progress right after it.
        c.wait_notification(lambda m: m.get("method") == "$/progress" and m["params"]["token"] == "tok-run"
                            and m["params"]["value"]["kind"] == "end", timeout=30, start=mark)
        values = progress_of(c, "tok-run", mark)
        kinds = [v["kind"] for v in values]
        check(kinds[:1] == ["begin"] and kinds[-1:] == ["end"] and kinds.count("report") >= 3,
              f"$/progress: begin, reports, end ({kinds.count('report')} reports)")
        pct = [v["percentage"] for v in values if v["kind"] == "report" and "percentage" in v]
        check(pct == sorted(pct) and pct and pct[-1] >= 90, f"$/progress: percentages rise to the end ({pct[:3]}..{pct[-1:]})")
        check(any("time baseline" in v.get("message", "") for v in values), "$/progress: the runner's events are forwarded")
        check(os.path.exists(build_log), "trusted: the variants were built")

        # -- cancellation while a program runs --
        slow_uri = open_doc(c, slow_file)
        mark = c.mark()
        for f in os.listdir(pid_dir):
            os.remove(os.path.join(pid_dir, f))
        rid = c.request_async("workspace/executeCommand",
                              {"command": "nestor.profile", "arguments": [slow_uri, "tmv"], "workDoneToken": "tok-cancel"})
        deadline = time.monotonic() + 240
        while not os.listdir(pid_dir) and time.monotonic() < deadline:
            time.sleep(0.1)
        pids = [int(p) for p in os.listdir(pid_dir)]
        check(len(pids) >= 1 and all(alive(p) for p in pids), "cancellation: a variant's program is running")
        c.notify("window/workDoneProgress/cancel", {"token": "tok-cancel"})
        # Answered at all means cancelled: the program would run for an hour.
        msg = c.wait_response(rid, timeout=300)
        check(msg.get("error", {}).get("code") == -32800, f"cancellation: RequestCancelled ({msg.get('error')})")
        # The kill is asynchronous: wait for the program to go (the bound is
        # reached only when it survived).
        deadline = time.monotonic() + 60
        while any(alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        check(not any(alive(p) for p in pids), "cancellation: the running program was killed")
        end = c.wait_notification(lambda m: m.get("method") == "$/progress" and m["params"]["token"] == "tok-cancel"
                                  and m["params"]["value"]["kind"] == "end", timeout=30, start=mark)
        check(end is not None, "cancellation: $/progress ended")

        # The server still answers afterwards.
        again = c.request("workspace/executeCommand", {"command": "nestor.profile", "arguments": [uri, "tmv"]}, timeout=300)
        check("variants" in again and any(v.get("from_cache") for v in again["variants"]),
              "after a cancellation: profiling again works (cached results reused)")
        c.request("shutdown")
        c.notify("exit")
        check(c.close() == 0, "server exits 0 after shutdown")
    except LspError as e:
        check(False, f"unexpected LSP error {e}")
    finally:
        if c.proc.poll() is None:
            c.proc.kill()


if __name__ == "__main__":
    sys.exit(main())
