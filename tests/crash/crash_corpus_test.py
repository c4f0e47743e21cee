#!/usr/bin/env python3
"""Issue #20, part 3: never crash, never lose a file's findings.

  crash_corpus_test.py NESTOR corpus    every tests/crash/inputs/*.cu (invalid
      and odd CUDA: incomplete types in every position, broken launches,
      dependent templates, recursive types, half-statement macros) through
      `nestor lint` (one directory lint), `nestor analyze --json` and the
      language server; each must end with a normal exit code (no signal, no
      recovered crash, exit code 4) and the server must publish diagnostics
      for every file and stay up.
  crash_corpus_test.py NESTOR recovery  crash recovery for real: the test-only
      hook NESTOR_TEST_ONLY_CRASH_ON_MARKER makes the analysis raise SIGSEGV
      in a function containing the marker; lint reports every other file and
      exits 4, analyze likewise, and the server keeps the document open,
      shows one diagnostic at the crashed function and analyses the next
      edit again.
"""
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lsp"))
from lspclient import FAILED, LspClient, check, file_uri  # noqa: E402

NESTOR = sys.argv[1]
MODE = sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = sorted(glob.glob(os.path.join(HERE, "inputs", "*.cu")))
EXIT_INTERNAL_ERROR = 4


def run(args, env=None, timeout=600):
    p = subprocess.run([NESTOR] + args, capture_output=True, text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def normal_exit(rc, allowed, what, stderr):
    if rc < 0:
        check(False, f"{what}: killed by signal {signal.Signals(-rc).name}")
    else:
        check(rc in allowed, f"{what}: exit code {rc} (expected one of {sorted(allowed)})"
              + ("" if rc in allowed else "\n" + stderr[-3000:]))


def lsp_session(files, env=None, stderr=None):
    c = LspClient([NESTOR, "lsp"], env=env, stderr=stderr)
    c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    c.notify("initialized", {})
    return c


def open_doc(c, path, text, version=1):
    uri = file_uri(path)
    start = c.mark()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda-cpp", "version": version,
                                                       "text": text}})
    return c.wait_diagnostics(uri, version, timeout=300, start=start)


def corpus():
    check(len(INPUTS) >= 40, f"{len(INPUTS)} crash inputs (at least 40)")
    env = dict(os.environ)
    env.pop("NESTOR_TEST_ONLY_CRASH_ON_MARKER", None)

    # One directory lint: every file reported, none crashed.
    rc, out, err = run(["lint", "-j", "2", "--format", "json", "--fail-on", "never", os.path.join(HERE, "inputs")],
                       env=env)
    normal_exit(rc, {0, 2}, "nestor lint inputs/ (a directory)", err)
    try:
        report = json.loads(out)
        reported = {os.path.basename(f["file"]) for f in report["files"]}
        check(reported == {os.path.basename(p) for p in INPUTS}, f"lint reports all {len(INPUTS)} files")
        crashed = [f["file"] for f in report["files"] if "internal error" in f.get("error", "")]
        check(not crashed, f"no file's analysis crashed in lint {crashed}")
    except (ValueError, KeyError) as e:
        check(False, f"lint --format json printed a report ({e})")

    # analyze: all files in one process, the model and mappings of each
    # (against the built-in CUDA header: lint and the server use the toolkit's
    # where one is installed, this covers the machine without one).
    env_builtin = dict(env, NESTOR_CUDA_PATH="none")
    rc, out, err = run(["analyze", "--json", "--resource-usage=false"] + INPUTS, env=env_builtin)
    normal_exit(rc, {0, 2}, f"nestor analyze --json ({len(INPUTS)} files)", err)
    check("internal error" not in err, "no analysis crashed in analyze" + ("" if "internal error" not in err else "\n" + err[-3000:]))
    # What the guards keep: the kernel of the reproducer is in the
    # model, the invalid arrays are left out, a valid one beside them is kept
    # with its size.
    try:
        models = {os.path.basename(m["file"]): m for m in json.loads(out)}
        k = {k["name"]: k for k in models["incomplete-shared-array.cu"]["kernels"]}.get("k")
        check(k is not None and k["shared"] == [], "the issue's reproducer: kernel 'k', no shared array of incomplete type")
        k = {k["name"]: k for k in models["incomplete-multidim.cu"]["kernels"]}.get("k")
        check(k is not None and [(s["name"], s["bytes"]) for s in k["shared"]] == [("ok", 128)] and k["local_arrays"] == [],
              f"incomplete-multidim.cu: only the valid float[4][8] is kept, 128 bytes ({k and k['shared']})")
        loops = models["loop-bounds-int64-extremes.cu"]["loops"]
        counts = [l.get("constant_trip_count") for l in loops]
        check(len(loops) == 6 and all(c is None or 0 <= c <= 2**63 - 1 for c in counts),
              f"loop-bounds-int64-extremes.cu: trip counts stay in int64 ({counts})")
    except (ValueError, KeyError, TypeError) as e:
        check(False, f"analyze --json printed the models ({type(e).__name__}: {e})")
    if rc < 0 or rc == EXIT_INTERNAL_ERROR:  # name the file(s)
        for path in INPUTS:
            rc1, _, err1 = run(["analyze", "--json", "--resource-usage=false", path], env=env_builtin)
            normal_exit(rc1, {0, 2}, f"nestor analyze {os.path.basename(path)}", err1)

    # The language server: each file opened, its diagnostics published, a
    # hover and the code actions asked for, closed; the server stays up.
    c = lsp_session(INPUTS, env=env)
    for path in INPUTS:
        name = os.path.basename(path)
        with open(path) as f:
            text = f.read()
        try:
            diags = open_doc(c, path, text)["diagnostics"]
            bad = [d["message"] for d in diags if "internal error" in d["message"]]
            check(not bad, f"lsp: {name}: diagnostics published ({len(diags)}), no crash {bad}")
            uri = file_uri(path)
            lines = text.split("\n")
            last = max(0, len(lines) - 1)
            # A hover in the middle of the longest line (a kernel, a launch, a loop).
            line = max(range(len(lines)), key=lambda i: len(lines[i]))
            c.request("textDocument/hover", {"textDocument": {"uri": uri},
                                             "position": {"line": line, "character": len(lines[line]) // 2}})
            c.request("textDocument/codeAction", {"textDocument": {"uri": uri},
                                                  "range": {"start": {"line": 0, "character": 0},
                                                            "end": {"line": last, "character": 0}},
                                                  "context": {"diagnostics": []}})
            c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        except Exception as e:  # noqa: BLE001 - any failure is the check's
            check(False, f"lsp: {name}: {type(e).__name__}: {e}")
            if c.closed:
                break
    status = c.request("nestor/serverStatus") if not c.closed else {}
    check(status.get("crashedAnalyses") == 0, f"lsp: no analysis crashed ({status.get('crashedAnalyses')})")
    c.request("shutdown")
    c.notify("exit")
    rc = c.close()
    check(rc == 0, f"lsp: the server exited normally ({rc})")


GOOD = """__global__ void child(int *p) { p[threadIdx.x] = 0; }
__global__ void parent(int *p) {
  child<<<1, 32>>>(p);
}
"""
CRASHING = """__global__ void child(int *p) { p[threadIdx.x] = 0; }

__global__ void crashes_here(int *p) {
  // NESTOR_TEST_CRASH_MARKER
  child<<<1, 32>>>(p);
}
"""
MARKER = "NESTOR_TEST_CRASH_MARKER"


def recovery():
    env = dict(os.environ, NESTOR_TEST_ONLY_CRASH_ON_MARKER=MARKER, NESTOR_CUDA_PATH="none")
    with tempfile.TemporaryDirectory() as d:
        for name, text in [("a_good.cu", GOOD), ("b_crash.cu", CRASHING), ("c_good.cu", GOOD)]:
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        crash_path = os.path.join(d, "b_crash.cu")

        # Text: the two other files' findings, one error for the crashed one.
        rc, out, err = run(["lint", d], env=env)
        check(rc == EXIT_INTERNAL_ERROR, f"lint of a directory with a crashing file exits {EXIT_INTERNAL_ERROR} ({rc})")
        check("a_good.cu:3:" in out and "c_good.cu:3:" in out, "lint still reports the other files' findings:\n" + out)
        check("b_crash.cu" not in out, "no finding of the crashed file")
        check(f"{crash_path}:3:1: analysis failed (internal error: SIGSEGV) while building the model of 'crashes_here' at line 3"
              in err, "lint names the crashed file, function and line:\n" + err)

        # JSON: the crashed file carries the error, the others their findings.
        rc, out, err = run(["lint", "--format", "json", d], env=env)
        check(rc == EXIT_INTERNAL_ERROR, f"lint --format json exits {EXIT_INTERNAL_ERROR} ({rc})")
        files = {os.path.basename(f["file"]): f for f in json.loads(out)["files"]}
        check("internal error" in files["b_crash.cu"].get("error", ""), "json: the crashed file's error")
        check(len(files["a_good.cu"]["findings"]) > 0 and len(files["c_good.cu"]["findings"]) > 0,
              "json: the other files' findings")

        # Without the marker the same lint is clean of internal errors.
        rc, out, err = run(["lint", d], env=dict(env, NESTOR_TEST_ONLY_CRASH_ON_MARKER=""))
        check(rc == 1 and "internal error" not in err, f"without the hook: exit 1, no internal error ({rc})")

        # analyze: the crashed file reported, the next one still analysed.
        rc, out, err = run(["analyze", "--resource-usage=false", crash_path, os.path.join(d, "c_good.cu")], env=env)
        check(rc == EXIT_INTERNAL_ERROR, f"analyze with a crashing file exits {EXIT_INTERNAL_ERROR} ({rc})")
        check("kernel parent" in out and "c_good.cu" in out, "analyze still prints the next file's model:\n" + out)
        check("internal error" in err and "crashes_here" in err, "analyze names the crash:\n" + err)

        # The language server survives, shows one diagnostic at the crashed
        # function, keeps the document open and analyses the next edit.
        c = lsp_session([], env=env)
        uri = file_uri(crash_path)
        diags = open_doc(c, crash_path, CRASHING, 1)["diagnostics"]
        check(len(diags) == 1 and "internal error" in diags[0]["message"] and "crashes_here" in diags[0]["message"],
              f"lsp: one diagnostic says the analysis failed and where: {[d['message'] for d in diags]}")
        check(len(diags) == 1 and diags[0]["range"]["start"]["line"] == 2, "lsp: it is on the crashed function's line (3)")
        status = c.request("nestor/serverStatus")
        check(status["crashedAnalyses"] == 1 and status["openDocuments"] == 1,
              f"lsp: the server is up, the document open after the crash ({status})")
        fixed = CRASHING.replace(MARKER, "no marker")
        start = c.mark()
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]})
        diags = c.wait_diagnostics(uri, 2, timeout=300, start=start)["diagnostics"]
        check(diags and not any("internal error" in d["message"] for d in diags),
              f"lsp: the next edit is analysed again: {[d['message'] for d in diags]}")
        hover = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 4, "character": 3}})
        check(hover is not None, "lsp: features answer on the re-analysed version")
        start = c.mark()
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": CRASHING}]})
        diags = c.wait_diagnostics(uri, 3, timeout=300, start=start)["diagnostics"]
        check(len(diags) == 1 and "internal error" in diags[0]["message"], "lsp: crashing again is reported again")
        other = os.path.join(d, "a_good.cu")
        diags = open_doc(c, other, GOOD, 1)["diagnostics"]
        check(diags and not any("internal error" in d["message"] for d in diags), "lsp: another document is analysed")
        status = c.request("nestor/serverStatus")
        check(status["crashedAnalyses"] == 2 and status["openDocuments"] == 2, f"lsp: two crashes recovered ({status})")
        c.request("shutdown")
        c.notify("exit")
        rc = c.close()
        check(rc == 0, f"lsp: the server exited normally after the crashes ({rc})")


{"corpus": corpus, "recovery": recovery}[MODE]()
if FAILED:
    print(f"{len(FAILED)} check(s) failed")
    sys.exit(1)
print("all checks passed")
