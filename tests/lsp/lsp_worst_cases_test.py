#!/usr/bin/env python3
"""The editor's worst cases for `nestor lsp` (issue 14), against the real binary:

    lsp_worst_cases_test.py path/to/nestor [section ...]

Sections: utf (invalid UTF-8, lone and split surrogates, columns past the end
of a line), big (a 5 MB generated .cu), kernels200 (200 kernels in one file),
burst (edits faster than analysis), stale (a code action sent with an edit,
answered from the older analysis and resolved on the newer one), close
(didClose during analysis),
vanish (the client goes away mid-request), readonly (a workspace without
write permission), memory (1,000 edits, RSS before and after). Each check
prints ok/FAIL; figures are printed with a leading "     ". Exits non-zero
on any failed check.

The checks assert what happened (answers, their content, versions, exit
codes, memory), never how fast: a test must pass on a machine of any speed
and load. Waits have long limits that only turn a hang into a failure. The
latency bounds (5 MB file and 200 kernels: requests under 0.5 s, open and
edit within 60-120 s; exit within 30 s after the client vanishes) are a
benchmark's business: with --bounds they are checked too (bench/lsp runs it
that way, on a quiet machine); without it they are printed as figures."""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import FAILED, LspClient, LspError, apply_edits, check, expect_error, file_uri  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BOUNDS = "--bounds" in sys.argv[1:]
ARGS = [a for a in sys.argv[1:] if a != "--bounds"]
NESTOR = os.path.abspath(ARGS[0]) if ARGS else os.path.join(REPO, "build", "cli", "nestor")
TMV = open(os.path.join(REPO, "tests", "e2e", "workspace", "tmv.cu")).read()

INIT = {
    "processId": None, "rootUri": None,
    "capabilities": {"textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]},
                                                     "codeActionLiteralSupport": {}}},
                     "workspace": {"workspaceEdit": {"documentChanges": True}}},
    "initializationOptions": {"compileCommandsDir": None, "gpuArch": "sm_90", "workspaceTrusted": False},
}

KERNEL = """__global__ void k{i}(const float *a, const float *b, float *c, int w, int h) {{
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float sum = 0;
  for (int i = 0; i < h; i++)
    sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}}
"""


def figure(text):
    print("     " + text, flush=True)


def bound(met, text):
    """A latency bound: checked with --bounds (a benchmark run), else printed."""
    if BOUNDS:
        check(met, text)
    else:
        figure(f"bound {'met' if met else 'NOT met'} (checked only with --bounds): {text}")


def start(cwd, init=INIT, **kw):
    c = LspClient([NESTOR, "lsp"], cwd=cwd, **kw)
    c.request("initialize", init)
    c.notify("initialized", {})
    return c


def stop(c):
    c.request("shutdown")
    c.notify("exit")
    return c.proc.wait(30)


def open_doc(c, path, text, version=1, timeout=180):
    uri = file_uri(path)
    mark = c.mark()
    t0 = time.monotonic()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda-cpp", "version": version, "text": text}})
    return uri, c.wait_diagnostics(uri, version, timeout=timeout, start=mark), time.monotonic() - t0


def change(c, uri, version, changes):
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes})


def rng(l0, c0, l1, c1):
    return {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}}


def code_actions(c, uri, line, character, timeout=60):
    return c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": rng(line, character, line, character),
                                                 "context": {"diagnostics": []}}, timeout=timeout)


def timed(fn):
    t0 = time.monotonic()
    r = fn()
    return r, time.monotonic() - t0


def loop_lines(text):
    return [i for i, l in enumerate(text.split("\n")) if l.lstrip().startswith("for (")]


def publishes(c, uri, start=0):
    with c.cond:
        return [m["params"] for m in c.notifications[start:]
                if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]


def pct(values, p):
    s = sorted(values)
    return s[max(0, min(len(s) - 1, int(round(p / 100 * (len(s) - 1)))))]


# ---- UTF-8 and UTF-16 edge cases ---------------------------------------------

def test_utf(tmp):
    c = start(tmp)
    path = os.path.join(tmp, "utf.cu")
    uri = file_uri(path)
    # Invalid UTF-8 inside the didOpen text: JSON text must be UTF-8, so the
    # message is refused as a whole, with a reply that says why.
    body = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                       "params": {"textDocument": {"uri": uri, "languageId": "cuda-cpp", "version": 1,
                                                   "text": "// BAD\n" + TMV}}}).encode()
    c.send_raw(body.replace(b"BAD", b"\xff\xfe\xc3("))
    resp = c.wait_response(None, 10)
    check(resp["error"]["code"] == -32700 and "UTF-8" in resp["error"]["message"],
          f"invalid UTF-8 in didOpen -> ParseError saying so ({resp['error']['message']})")
    check(isinstance(c.request("nestor/serverStatus"), dict), "the server answers after invalid UTF-8")
    expect_error(-32602, lambda: c.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                                  "position": {"line": 0, "character": 0}}),
                 "the refused document is not open")

    # A lone surrogate escape (\ud800) is valid JSON but no character: the
    # server opens the text (with U+FFFD there) and analyses it.
    lone = "// lone \ud800 surrogate\n" + TMV
    for_line = loop_lines(lone)[0]
    _, d, _ = open_doc(c, path, lone)
    loops = [x for x in d["diagnostics"] if x.get("code") == "np-parallel-loop"]
    check(len(loops) == 1 and loops[0]["range"]["start"]["line"] == for_line,
          "a lone surrogate in didOpen: analysed, the diagnostic on the loop's line")

    # Columns count UTF-16 units: an emoji (2 units, 4 bytes) before the loop.
    emoji = TMV.replace("  for (", "  /* \U0001F600 */ for (")
    for_line = loop_lines(emoji.replace("/* \U0001F600 */ ", ""))[0]
    _, d, _ = open_doc(c, path, emoji, version=2)
    loop = [x for x in d["diagnostics"] if x.get("code") == "np-parallel-loop"]
    col = len("  /* ") + 2 + len(" */ ")
    check(loop and loop[0]["range"]["start"] == {"line": for_line, "character": col},
          f"diagnostic column in UTF-16 units after an emoji ({loop[0]['range']['start'] if loop else None}, want {col})")
    mid = len("  /* ") + 1  # between the emoji's two surrogates
    try:
        c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": for_line, "character": mid}})
        check(True, "hover inside a surrogate pair: answered")
    except LspError as e:
        check(False, f"hover inside a surrogate pair: {e}")
    actions = code_actions(c, uri, for_line, mid)
    check(isinstance(actions, list), "code action inside a surrogate pair: answered")
    # An insertion between the surrogates lands after the code point.
    change(c, uri, 3, [{"range": rng(for_line, mid, for_line, mid), "text": "x"}])
    d3 = c.wait_diagnostics(uri, 3, timeout=120)
    loop = [x for x in d3["diagnostics"] if x.get("code") == "np-parallel-loop"]
    check(loop and loop[0]["range"]["start"]["character"] == col + 1,
          "an edit inside a surrogate pair is applied after the code point")

    # Columns past the end of a line.
    expect_error(-32602, lambda: c.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                                  "position": {"line": for_line, "character": 500}}),
                 "hover past the end of a line -> InvalidParams")
    check(isinstance(code_actions(c, uri, for_line, 500), list), "code action past the end of a line: clamped, answered")
    change(c, uri, 4, [{"range": rng(0, 500, 0, 600), "text": " tail"}])
    d4 = c.wait_diagnostics(uri, 4, timeout=120)
    check(any(x.get("code") == "np-parallel-loop" for x in d4["diagnostics"]),
          "an edit past the end of a line is applied at its end (clamped)")
    hover = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    check(hover is None or "contents" in hover, "the server still answers")
    check(stop(c) == 0, "shutdown/exit after the UTF cases: exit code 0")


# ---- a 5 MB generated file and 200 kernels ------------------------------------

def two_hundred_kernels():
    return "".join(KERNEL.format(i=i) for i in range(200))


def five_mb():
    kernels = two_hundred_kernels()
    rows, size = [], len(kernels)
    while size < 5 * 1024 * 1024 - 200:
        row = ", ".join("%d.%03df" % (j % 97, (j * 7 + len(rows)) % 1000) for j in range(16)) + ",\n"
        rows.append(row)
        size += len(row)
    return "__device__ const float table[] = {\n" + "".join(rows) + "0.0f};\n" + kernels


def test_big(tmp):
    text = five_mb()
    path = os.path.join(tmp, "big.cu")
    c = start(tmp)
    uri, d, t_open = open_doc(c, path, text, timeout=300)
    figure(f"5 MB file ({len(text) / 1e6:.1f} MB, {text.count(chr(10))} lines): open -> diagnostics {t_open * 1000:.0f} ms, "
           f"{len(d['diagnostics'])} diagnostics")
    check(len([x for x in d["diagnostics"] if x.get("code") == "np-parallel-loop"]) == 200, "5 MB file: 200 loop diagnostics")
    bound(t_open < 120, f"5 MB file: diagnostics within 120 s ({t_open:.1f} s)")
    last = loop_lines(text)[-1]
    code_actions(c, uri, last, 3, timeout=120)  # waits for the action index
    acts, t_ca = timed(lambda: code_actions(c, uri, last, 3))
    hover, t_hover = timed(lambda: c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": last, "character": 3}}))
    lenses, t_lens = timed(lambda: c.request("textDocument/codeLens", {"textDocument": {"uri": uri}}))
    figure(f"5 MB file: code action {t_ca * 1000:.1f} ms, hover {t_hover * 1000:.1f} ms, code lens {t_lens * 1000:.1f} ms")
    check(any(a["kind"] == "quickfix" for a in acts) and hover and len(lenses) == 200,
          "5 MB file: quick fix, hover and 200 code lenses at the end of the file")
    # Per request, positions once cost a scan of the text per finding: 1.2 s.
    bound(max(t_ca, t_hover, t_lens) < 0.5, f"5 MB file: requests under 0.5 s (max {max(t_ca, t_hover, t_lens) * 1000:.0f} ms)")
    mark = c.mark()
    t0 = time.monotonic()
    change(c, uri, 2, [{"range": rng(last - 1, 0, last - 1, 0), "text": "  // edited\n"}])
    acts, t_after = timed(lambda: code_actions(c, uri, 0, 0))
    c.wait_diagnostics(uri, 2, timeout=300, start=mark)
    t_edit = time.monotonic() - t0
    figure(f"5 MB file: edit -> diagnostics {t_edit * 1000:.0f} ms; code action right after the edit {t_after * 1000:.1f} ms; "
           f"RSS {c.rss_kib() / 1024:.0f} MiB")
    bound(t_edit < 120, f"5 MB file: edit -> diagnostics within 120 s ({t_edit:.1f} s)")
    check(stop(c) == 0, "5 MB file: shutdown/exit")


def test_kernels200(tmp):
    text = two_hundred_kernels()
    path = os.path.join(tmp, "k200.cu")
    c = start(tmp)
    uri, d, t_open = open_doc(c, path, text)
    loops = loop_lines(text)
    check(len([x for x in d["diagnostics"] if x.get("code") == "np-parallel-loop"]) == 200, "200 kernels: 200 loop diagnostics")
    code_actions(c, uri, loops[0], 3, timeout=120)  # waits for the action index
    times, ok = [], True
    for line in loops[::10]:
        acts, t = timed(lambda: code_actions(c, uri, line, 3))
        times.append(t)
        ok &= any(a["kind"] == "quickfix" for a in acts) and any(a["kind"] == "refactor.rewrite" and "data" in a for a in acts)
    lenses, t_lens = timed(lambda: c.request("textDocument/codeLens", {"textDocument": {"uri": uri}}))
    hover, t_hover = timed(lambda: c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": loops[-1], "character": 3}}))
    figure(f"200 kernels: open -> diagnostics {t_open * 1000:.0f} ms; code action p50 {pct(times, 50) * 1000:.1f} / "
           f"p95 {pct(times, 95) * 1000:.1f} ms ({len(times)} kernels); code lens {t_lens * 1000:.1f} ms; hover {t_hover * 1000:.1f} ms")
    check(ok, "200 kernels: quick fix and rewrites at each kernel's loop")
    check(len(lenses) == 200 and hover and "Trip count" in hover["contents"]["value"], "200 kernels: 200 code lenses, hover on the last")
    bound(t_open < 60 and max(times) < 0.5 and t_lens < 0.5, "200 kernels: within the bounds (60 s open, 0.5 s requests)")
    check(stop(c) == 0, "200 kernels: shutdown/exit")


# ---- edits faster than analysis, didClose during analysis --------------------

def test_burst(tmp):
    text = two_hundred_kernels()
    path = os.path.join(tmp, "burst.cu")
    c = start(tmp)
    uri, _, _ = open_doc(c, path, text)
    code_actions(c, uri, 0, 0, timeout=120)
    status0 = c.request("nestor/serverStatus")
    first_loop = loop_lines(text)[0]
    mark = c.mark()
    n = 40
    pending, burst = [], []
    for v in range(2, n + 2):
        # Each edit adds a line at the top: every diagnostic moves down one.
        burst.append({"jsonrpc": "2.0", "method": "textDocument/didChange",
                      "params": {"textDocument": {"uri": uri, "version": v},
                                 "contentChanges": [{"range": rng(0, 0, 0, 0), "text": f"// edit {v}\n"}]}})
        if v % 5 == 0:
            pending.append(c.next_id)
            burst.append({"jsonrpc": "2.0", "id": c.next_id, "method": "textDocument/codeAction",
                          "params": {"textDocument": {"uri": uri}, "range": rng(first_loop + v - 1, 3, first_loop + v - 1, 3),
                                     "context": {"diagnostics": []}}})
            c.next_id += 1
    c.send_many(burst)  # one write: the edits arrive far faster than one analysis
    final = n + 1
    answers = [c.wait_response(i, 120) for i in pending]
    check(all("result" in a and any(x["kind"] == "quickfix" for x in a["result"]) for a in answers),
          f"{len(answers)} code actions sent during the burst: each answered with the quick fix")
    stale_action = next((x for x in answers[0]["result"] if x["kind"] == "refactor.rewrite" and "data" in x), None)
    last = c.wait_diagnostics(uri, final, timeout=180, start=mark)
    time.sleep(1.0)  # anything late would arrive now
    seen = [p.get("version") for p in publishes(c, uri, mark)]
    figure(f"{n} edits in a burst: diagnostics published for versions {seen}")
    check(seen and seen[-1] == final, "the last edit wins: the last diagnostics are of the last version")
    check(all(a < b for a, b in zip(seen, seen[1:])), "no diagnostics for an older version after a newer one")
    moved = [x["range"]["start"]["line"] for x in last["diagnostics"] if x.get("code") == "np-parallel-loop"]
    check(moved and moved[0] == first_loop + n, "the last diagnostics are for the last text (the loop moved down by every edit)")
    status = c.request("nestor/serverStatus")
    done = status["analyses"] - status0["analyses"]
    dropped = status["supersededAnalyses"] - status0["supersededAnalyses"] + status["cancelledAnalyses"] - status0["cancelledAnalyses"]
    figure(f"analyses completed {done}, superseded or cancelled {dropped}, diagnostics published {len(seen)}")
    check(done + dropped == n, f"every version is analysed, superseded or cancelled ({done} + {dropped} == {n})")
    check(done == 1, "every stale analysis is cancelled or dropped: only the last version's completes")
    if stale_action:
        expect_error(-32801, lambda: c.request("codeAction/resolve", stale_action),
                     "resolving an action offered for an older version -> ContentModified")
    else:
        check(False, "a rewrite action to resolve after the burst")
    check(stop(c) == 0, "burst: shutdown/exit")


def test_stale(tmp):
    """A code action right after an edit: answered from the older analysis,
    its edit resolved on the newer one, applied to the newer text."""
    path = os.path.join(tmp, "stale.cu")
    c = start(tmp)
    uri, _, _ = open_doc(c, path, TMV)
    for_line = loop_lines(TMV)[0]
    code_actions(c, uri, for_line, 3)  # the action index of version 1 exists
    text2 = "// a new first line\n" + TMV
    rid = c.next_id
    c.next_id += 1
    c.send_many([{"jsonrpc": "2.0", "method": "textDocument/didChange",
                  "params": {"textDocument": {"uri": uri, "version": 2},
                             "contentChanges": [{"range": rng(0, 0, 0, 0), "text": "// a new first line\n"}]}},
                 {"jsonrpc": "2.0", "id": rid, "method": "textDocument/codeAction",
                  "params": {"textDocument": {"uri": uri}, "range": rng(for_line + 1, 3, for_line + 1, 3),
                             "context": {"diagnostics": []}}}])
    t0 = time.monotonic()
    resp = c.wait_response(rid, 60)
    took = time.monotonic() - t0
    fix = next((a for a in resp.get("result", []) if a["kind"] == "quickfix"), None)
    figure(f"code action sent with the edit, before its analysis: answered in {took * 1000:.1f} ms, "
           f"quick fix {'without' if fix and 'edit' not in fix else 'with'} an edit")
    check(fix is not None, "the quick fix is offered right after the edit")
    if fix and "edit" in fix:
        check(fix["edit"]["documentChanges"][0]["textDocument"]["version"] == 2, "an inline edit is version 2's")
    elif fix:
        check(fix["data"]["version"] == 2 and fix["diagnostics"][0]["range"]["start"]["line"] == for_line + 1,
              "answered from version 1's analysis: no edit, data for version 2, the diagnostic moved down a line")
        fix = c.request("codeAction/resolve", fix)
    change = fix["edit"]["documentChanges"][0]
    check(change["textDocument"]["version"] == 2, "the resolved edit is tied to version 2")
    fixed = apply_edits(text2, change["edits"]).split("\n")
    check(fixed[for_line + 1] == "  #pragma np parallel for reduction(+:sum)" and fixed[for_line + 2].lstrip().startswith("for ("),
          "applied to version 2's text, the pragma lands above the loop")
    check(stop(c) == 0, "stale: shutdown/exit")


def test_close(tmp):
    big = five_mb()
    path = os.path.join(tmp, "closing.cu")
    c = start(tmp)
    uri = file_uri(path)
    mark = c.mark()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda-cpp", "version": 1, "text": big}})
    deadline = time.monotonic() + 60
    while c.request("nestor/serverStatus")["runningAnalyses"] < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    rid = c.request_async("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    resp = c.wait_response(rid, 60)
    check("error" in resp and resp["error"]["code"] == -32800, "a request queued behind the analysis of a closed document: RequestCancelled")
    c.wait_diagnostics(uri, None, timeout=30, start=mark)
    # The abandoned analysis counts itself cancelled when it stops: after
    # that nothing of it can be published any more.
    deadline = time.monotonic() + 180
    while c.request("nestor/serverStatus")["runningAnalyses"] > 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    check(c.request("nestor/serverStatus")["cancelledAnalyses"] >= 1, "the analysis under way at didClose was cancelled")
    time.sleep(0.2)
    after = publishes(c, uri, mark)
    check(after and all(p["diagnostics"] == [] for p in after), f"didClose during analysis: only an empty publish ({len(after)})")
    status = c.request("nestor/serverStatus")
    check(status["openDocuments"] == 0, "the closed document is gone")
    expect_error(-32602, lambda: c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
                 "requests on the closed document -> InvalidParams")
    _, d, _ = open_doc(c, path, TMV)
    check(any(x.get("code") == "np-parallel-loop" for x in d["diagnostics"]), "reopened after the close: analysed")
    check(stop(c) == 0, "close: shutdown/exit")


# ---- a client that vanishes ---------------------------------------------------

def test_vanish(tmp):
    big = five_mb()
    path = os.path.join(tmp, "vanish.cu")
    uri = file_uri(path)
    # stdin closed mid-request, stdout still read.
    c = start(tmp)
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda-cpp", "version": 1, "text": big}})
    deadline = time.monotonic() + 60
    while c.request("nestor/serverStatus")["runningAnalyses"] < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    c.request_async("textDocument/codeLens", {"textDocument": {"uri": uri}})
    check(c.request("nestor/serverStatus")["runningAnalyses"] == 1, "the analysis is under way when the client goes")
    t0 = time.monotonic()
    rc = c.close(timeout=300)  # a hang guard, not a bound
    took = time.monotonic() - t0
    figure(f"stdin closed during the analysis of the 5 MB file: exit code {rc} after {took:.2f} s")
    check(rc == 1, "stdin closed mid-request: the server exits by itself with 1 (not killed after the wait)")
    bound(took < 30, f"stdin closed mid-request: exits within 30 s ({took:.1f} s)")
    # stdin and stdout both gone (the client process died): writes fail.
    p = subprocess.Popen([NESTOR, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp)

    def frame(msg):
        body = json.dumps(msg).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body
    p.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}))
    p.stdin.write(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                         "params": {"textDocument": {"uri": uri, "languageId": "cuda-cpp", "version": 1, "text": big}}}))
    p.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}}))
    p.stdin.flush()
    time.sleep(0.5)
    p.stdout.close()
    p.stdin.close()
    t0 = time.monotonic()
    try:
        rc = p.wait(60)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = None
    took = time.monotonic() - t0
    err = p.stderr.read().decode(errors="replace")
    figure(f"stdin and stdout closed mid-request: exit code {rc} after {took:.2f} s")
    check(rc == 1, f"client gone entirely: exits with 1, no signal or abort (rc {rc}; stderr: {err.strip()[-200:]!r})")


# ---- a workspace without write permission -------------------------------------

def as_nobody():
    os.setgid(65534)
    os.setgroups([])
    os.setuid(65534)


def test_readonly(tmp):
    ws = os.path.join(tmp, "ro-workspace")
    cache = os.path.join(tmp, "ro-cache")
    os.makedirs(ws)
    os.makedirs(cache)
    path = os.path.join(ws, "tmv.cu")
    with open(path, "w") as f:
        f.write(TMV)
    with open(os.path.join(ws, ".nestor.yaml"), "w") as f:
        f.write('profile:\n  build: "nvcc -O3 {defines} {flags} -o {exe} {source}"\n  run: "{exe}"\n'
                '  outputs: [c.txt]\n')
    for p in (path, os.path.join(ws, ".nestor.yaml")):
        os.chmod(p, 0o444)
    for d in (ws, cache, tmp):
        os.chmod(d, 0o555)
    # root ignores permission bits: the server then runs as nobody.
    preexec = as_nobody if os.geteuid() == 0 else None
    probe = subprocess.run(["sh", "-c", f"touch {ws}/x 2>/dev/null || exit 0; exit 1"], preexec_fn=preexec)
    check(probe.returncode == 0, "the workspace is not writable for the server's user")
    before = (open(path).read(), os.stat(path).st_mtime_ns)
    env = dict(os.environ, XDG_CACHE_HOME=cache, NESTOR_RUNNER_ASSUME_DEVICES="1", NESTOR_RUNNER="/bin/true", HOME=cache)
    init = json.loads(json.dumps(INIT))
    init["initializationOptions"]["workspaceTrusted"] = True
    c = start(ws, init=init, env=env, preexec_fn=preexec)
    uri, d, _ = open_doc(c, path, TMV)
    for_line = loop_lines(TMV)[0]
    acts = code_actions(c, uri, for_line, 3, timeout=60)
    fix = next((a for a in acts if a["kind"] == "quickfix"), None)
    check(fix and fix["edit"]["documentChanges"][0]["edits"], "read-only workspace: the quick fix is a WorkspaceEdit")
    rewrite = next((a for a in acts if a["kind"] == "refactor.rewrite" and "data" in a), None)
    resolved = c.request("codeAction/resolve", rewrite) if rewrite else None
    check(resolved and resolved["edit"]["documentChanges"][0]["edits"], "read-only workspace: a resolved rewrite is a WorkspaceEdit")
    report = c.request("workspace/executeCommand", {"command": "nestor.profile", "arguments": [uri, "tmv"]}, timeout=120)
    err = report.get("error", "")
    figure(f"nestor.profile with a read-only plan directory: {err[:160]}")
    check("plan could not be written" in err and report.get("candidates"),
          "nestor.profile: the plan it cannot write is a clear error with the candidates, no crash")
    check((open(path).read(), os.stat(path).st_mtime_ns) == before, "nothing was written to the workspace")
    check(stop(c) == 0, "read-only workspace: shutdown/exit")
    for d in (tmp, ws, cache):
        os.chmod(d, 0o755)


# ---- 1,000 edits: memory -------------------------------------------------------

def test_memory(tmp):
    text = "#include <cuda_runtime.h>\n" + TMV
    path = os.path.join(tmp, "mem.cu")
    c = start(tmp)
    uri, _, _ = open_doc(c, path, text)
    lines = text.split("\n")
    body = next(i for i, l in enumerate(lines) if "c[tx] = sum;" in l)
    col = len(lines[body])
    for_line = loop_lines(text)[0]
    version = 1

    def edits(n):
        nonlocal version
        ids = []
        for _ in range(n):
            version += 1
            # Types a space after `c[tx] = sum;` and deletes it on the next
            # edit, asking for code actions after each as an editor does.
            if version % 2 == 0:
                change(c, uri, version, [{"range": rng(body, col, body, col), "text": " "}])
            else:
                change(c, uri, version, [{"range": rng(body, col, body, col + 1), "text": ""}])
            ids.append(c.request_async("textDocument/codeAction", {"textDocument": {"uri": uri},
                                                                   "range": rng(for_line, 3, for_line, 3),
                                                                   "context": {"diagnostics": []}}))
            if version % 5 == 0:
                c.wait_diagnostics(uri, version, timeout=120)
        return [c.wait_response(i, 120) for i in ids]

    edits(100)  # warm up: allocator pools, the preamble
    rss_before = c.rss_kib()
    t0 = time.monotonic()
    answers = edits(1000)
    took = time.monotonic() - t0
    rss_after = c.rss_kib()
    status = c.request("nestor/serverStatus")
    figure(f"1,000 edits in {took:.1f} s: RSS {rss_before / 1024:.1f} MiB -> {rss_after / 1024:.1f} MiB; "
           f"analyses {status['analyses']}, superseded {status['supersededAnalyses']}, cancelled {status['cancelledAnalyses']}")
    check(all("result" in a for a in answers), "1,000 code actions during the edits: all answered")
    check((rss_after - rss_before) / 1024 < 40, f"memory flat over 1,000 edits (+{(rss_after - rss_before) / 1024:.1f} MiB < 40 MiB)")
    check(stop(c) == 0, "memory: shutdown/exit")


SECTIONS = {"utf": test_utf, "big": test_big, "kernels200": test_kernels200, "burst": test_burst, "stale": test_stale, "close": test_close,
            "vanish": test_vanish, "readonly": test_readonly, "memory": test_memory}


def main():
    chosen = ARGS[1:] or list(SECTIONS)
    for name in chosen:
        tmp = tempfile.mkdtemp(prefix=f"nestor-lsp-{name}.")
        os.chmod(tmp, 0o755)
        print(f"-- {name}", flush=True)
        try:
            SECTIONS[name](tmp)
        except (TimeoutError, LspError, OSError) as e:
            check(False, f"{name}: {type(e).__name__}: {e}")
        finally:
            for root, dirs, _ in os.walk(tmp):
                for d in dirs:
                    os.chmod(os.path.join(root, d), 0o755)
            os.chmod(tmp, 0o755)
            shutil.rmtree(tmp, ignore_errors=True)
    if FAILED:
        print(f"lsp_worst_cases: {len(FAILED)} checks failed:\n  " + "\n  ".join(FAILED))
        return 1
    print("lsp_worst_cases: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
