#!/usr/bin/env python3
"""Protocol tests of `nestor lsp`: runs the server as a subprocess and drives
it with scripted JSON-RPC over stdio (tests/lsp/lspclient.py).

    lsp_protocol_test.py path/to/nestor

Covers the lifecycle, diagnostics, quick fix and lazily resolved rewrites,
hover, completion, code lens and nestor.profile with $/progress, cancellation,
bad input (malformed JSON, invalid requests, unknown methods, unopened
documents, out-of-range positions, stale and skipped versions, bad edits,
unparsable files), preamble reuse across edits, memory over 1,000 edits, and
shutdown/exit in either order. Exits non-zero on the first failed check."""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import FAILED, LspClient, apply_edits, check, expect_error, file_uri  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NESTOR = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(REPO, "build", "cli", "nestor")


INIT = {
    "processId": None, "rootUri": None,
    "capabilities": {"textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]},
                                                     "codeActionLiteralSupport": {}}},
                     "workspace": {"workspaceEdit": {"documentChanges": True}},
                     "window": {"workDoneProgress": True}},
    "initializationOptions": {"compileCommandsDir": None, "gpuArch": "sm_90", "workspaceTrusted": False,
                              "profile": {"buildCommand": "", "runCommand": ""}},
}


def start(tmp):
    c = LspClient([NESTOR, "lsp"], cwd=tmp)
    return c


def open_doc(c, path, text, version=1):
    uri = file_uri(path)
    start_mark = c.mark()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda-cpp", "version": version, "text": text}})
    return uri, c.wait_diagnostics(uri, version, timeout=120, start=start_mark)


def change(c, uri, version, changes):
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes})


def rng(l0, c0, l1, c1):
    return {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}}


def main():
    tmp = tempfile.mkdtemp(prefix="nestor-lsp-test.")
    try:
        run(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILED:
        print(f"lsp_protocol: {len(FAILED)} checks failed:\n  " + "\n  ".join(FAILED))
        return 1
    print("lsp_protocol: all checks passed")
    return 0


def run(tmp):
    for name in ("tmv.cu", "pragma.cu"):
        shutil.copy(os.path.join(REPO, "tests", "e2e", "workspace", name), tmp)
    tmv_path, pragma_path = os.path.join(tmp, "tmv.cu"), os.path.join(tmp, "pragma.cu")
    tmv = open(tmv_path).read()

    c = start(tmp)
    # -- lifecycle and bad input before initialize --
    expect_error(-32002, lambda: c.request("textDocument/hover", {"textDocument": {"uri": file_uri(tmv_path)},
                                                                  "position": {"line": 0, "character": 0}}),
                 "request before initialize")
    caps = c.request("initialize", INIT)["capabilities"]
    check(caps["textDocumentSync"]["change"] == 2, "incremental sync announced")
    check("nestor.profile" in caps["executeCommandProvider"]["commands"], "nestor.profile announced")
    check(caps["codeActionProvider"]["resolveProvider"] is True, "codeAction/resolve announced")
    c.notify("initialized", {})
    expect_error(-32600, lambda: c.request("initialize", INIT), "second initialize")

    # -- diagnostics --
    uri, diags = open_doc(c, tmv_path, tmv)
    loop = [d for d in diags["diagnostics"] if d.get("code") == "np-parallel-loop"]
    check(len(loop) == 1, "didOpen tmv.cu -> np-parallel-loop diagnostic")
    d = loop[0]
    for_line = next(i for i, l in enumerate(tmv.split("\n")) if "for (" in l)
    check(d["range"]["start"] == {"line": for_line, "character": 2}, "diagnostic on the for loop")
    check(d["source"] == "nestor" and d["codeDescription"]["href"].endswith("np-parallel-loop.md"),
          "source nestor and codeDescription.href to the rule docs")
    check(d["data"]["version"] == 1 and "loop" in d["data"], "data carries the loop and the document version")
    check(diags["version"] == 1, "publishDiagnostics carries the version")

    # -- code actions --
    actions = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": rng(for_line, 2, for_line, 2),
                                                    "context": {"diagnostics": [d]}})
    quick = [a for a in actions if a["kind"] == "quickfix"]
    check(len(quick) == 1 and quick[0]["title"] == "Insert #pragma np parallel for reduction(+:sum)" and quick[0]["isPreferred"],
          "quick fix 'Insert #pragma np parallel for reduction(+:sum)', preferred")
    change0 = quick[0]["edit"]["documentChanges"][0]
    check(change0["textDocument"] == {"uri": uri, "version": 1}, "quick fix edit tied to version 1")
    fixed = apply_edits(tmv, change0["edits"])
    fixed_lines = fixed.split("\n")
    check(fixed_lines[for_line] == "  #pragma np parallel for reduction(+:sum)" and "for (" in fixed_lines[for_line + 1],
          "quick fix inserts the pragma above the loop")
    rewrites = [a for a in actions if a["kind"] == "refactor.rewrite" and "data" in a]
    disabled = [a for a in actions if "disabled" in a]
    check(len(rewrites) >= 1 and all("edit" not in a for a in rewrites), "rewrites offered without edits (resolved lazily)")
    check(all(a["disabled"]["reason"] for a in disabled), "refused rewrites carry disabled.reason")
    resolved = c.request("codeAction/resolve", rewrites[0])
    check(resolved["edit"]["documentChanges"][0]["textDocument"]["version"] == 1, "codeAction/resolve computes a versioned edit")

    # -- hover --
    hover = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": for_line, "character": 3}})
    check(hover and "Trip count: uniform" in hover["contents"]["value"], "hover on the loop: trip-count class")
    check("#pragma np parallel for reduction(+:sum)" in hover["contents"]["value"], "hover on the loop: inferred clauses")
    expect_error(-32602, lambda: c.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                                  "position": {"line": 500, "character": 0}}),
                 "hover past the end of the document")
    check(c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}}) is None,
          "hover on a comment: null")
    ptext = open(pragma_path).read()
    puri, _ = open_doc(c, pragma_path, ptext)
    pline = next(i for i, l in enumerate(ptext.split("\n")) if "#pragma np" in l)
    ph = c.request("textDocument/hover", {"textDocument": {"uri": puri}, "position": {"line": pline, "character": 12}})
    value = ph["contents"]["value"] if ph else ""
    check(value.split("\n")[0] == "**#pragma np parallel for**", "pragma hover headline")
    check("`reduction(+:sum)`" in value and "Recommended slave counts**: 4 or 8" in value and "✓ Valid" in value,
          "pragma hover: clauses, validity, slave counts")

    # -- completion --
    line = "#pragma np parallel for "
    edit_version = 2
    change(c, puri, edit_version, [{"range": rng(pline, 0, pline + 1, 0), "text": line + "\n"}])
    comp = c.request("textDocument/completion", {"textDocument": {"uri": puri}, "position": {"line": pline, "character": len(line)}})
    labels = {i["label"] for i in comp["items"]}
    check({"reduction", "scan", "copyin", "num_threads", "np_type", "sm_version"} <= labels, "completion: clause names")
    change(c, puri, 3, [{"range": rng(pline, len(line), pline, len(line)), "text": "reduction("}])
    comp = c.request("textDocument/completion", {"textDocument": {"uri": puri},
                                                 "position": {"line": pline, "character": len(line) + len("reduction(")}})
    check({"+", "*", "max", "min", "&&", "||"} <= {i["label"] for i in comp["items"]}, "completion: reduction operators")
    comp = c.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    check(comp["items"] == [], "completion outside a pragma: empty")

    # -- code lens and profile --
    lenses = c.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
    check(len(lenses) == 1 and lenses[0]["command"]["title"] == "Profile variants"
          and lenses[0]["command"]["command"] == "nestor.profile" and lenses[0]["command"]["arguments"] == [uri, "tmv"],
          "code lens 'Profile variants' -> nestor.profile [uri, tmv]")
    mark = c.mark()
    report = c.request("workspace/executeCommand", {"command": "nestor.profile", "arguments": [uri, "tmv"], "workDoneToken": "tok-1"})
    check(report["error"].startswith("profiler not available") and "not trusted" in report["error"],
          "nestor.profile: profiler not available, untrusted workspace said so")
    check(any(cand["rewrite"] == "np-pragma" and cand["title"] for cand in report["candidates"]), "nestor.profile lists static candidates")
    kinds = []
    c.wait_notification(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "end", 10, mark)
    for m in c.notifications[mark:]:
        if m.get("method") == "$/progress" and m["params"]["token"] == "tok-1":
            kinds.append(m["params"]["value"]["kind"])
    check(kinds[:1] == ["begin"] and kinds[-1:] == ["end"], f"$/progress begin ... end ({kinds})")
    expect_error(-32602, lambda: c.request("workspace/executeCommand", {"command": "nestor.profile", "arguments": [uri, "nope"]}),
                 "nestor.profile on an unknown kernel")
    expect_error(-32602, lambda: c.request("workspace/executeCommand", {"command": "rm -rf", "arguments": []}), "unknown command")

    # -- cancellation: a request cancelled while the worker is busy --
    change(c, uri, 2, [{"range": rng(0, 0, 0, 0), "text": "// edit\n"}])
    rid = c.request_async("textDocument/codeLens", {"textDocument": {"uri": uri}})
    c.notify("$/cancelRequest", {"id": rid})
    resp = c.wait_response(rid)
    check(("error" in resp and resp["error"]["code"] == -32800) or "result" in resp,
          "cancelled request answered (RequestCancelled, or the result if it was already done)")
    tmv_v2 = "// edit\n" + tmv
    diags2 = c.wait_diagnostics(uri, 2, timeout=120)
    check(any(x["range"]["start"]["line"] == for_line + 1 for x in diags2["diagnostics"]), "incremental edit moves the diagnostic")

    # -- bad input --
    c.send_raw(b"{this is not json")
    resp = c.wait_response(None, 10)
    check(resp["error"]["code"] == -32700, "malformed JSON -> ParseError with id null")
    c.send_raw(b"[1, 2, 3]")
    check(c.wait_response(None, 10)["error"]["code"] == -32600, "non-object message -> InvalidRequest")
    c.send({"jsonrpc": "2.0", "id": 991, "method": 42})
    check(c.wait_response(991, 10)["error"]["code"] == -32600, "non-string method -> InvalidRequest")
    c.send({"id": 992, "method": "textDocument/hover"})
    check(c.wait_response(992, 10)["error"]["code"] == -32600, "missing jsonrpc -> InvalidRequest")
    expect_error(-32601, lambda: c.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
                 "unknown method -> MethodNotFound")
    c.notify("nestor/unknownNotification", {"x": 1})
    expect_error(-32602, lambda: c.request("textDocument/hover", {"textDocument": {"uri": file_uri(os.path.join(tmp, "closed.cu"))},
                                                                  "position": {"line": 0, "character": 0}}), "request on an unopened document")
    expect_error(-32602, lambda: c.request("textDocument/hover", {"textDocument": {"uri": 5}}), "malformed params -> InvalidParams")
    # Stale version: ignored. Skipped versions are legal (versions only increase).
    change(c, uri, 2, [{"range": rng(0, 0, 0, 0), "text": "garbage that must not be applied "}])
    change(c, uri, 7, [{"range": rng(0, 0, 1, 0), "text": ""}])  # removes "// edit\n"
    d7 = c.wait_diagnostics(uri, 7, timeout=120)
    check(any(x["range"]["start"]["line"] == for_line for x in d7["diagnostics"]),
          "stale version ignored, skipped version (2 -> 7) applied")
    # An edit outside the document: the copy is out of sync until a full-text change.
    change(c, uri, 8, [{"range": rng(900, 0, 900, 1), "text": "x"}])
    expect_error(-32801, lambda: c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
                 "requests after a bad edit: ContentModified")
    change(c, uri, 9, [{"text": tmv}])
    d9 = c.wait_diagnostics(uri, 9, timeout=120)
    check(any(x.get("code") == "np-parallel-loop" for x in d9["diagnostics"]), "a full-text change resynchronises")
    # A file that does not parse.
    broken_path = os.path.join(tmp, "broken.cu")
    buri, bd = open_doc(c, broken_path, "__global__ void k( {\n  for (int i = 0; i < ;\n")
    check(len(bd["diagnostics"]) >= 1, f"unparsable file: {len(bd['diagnostics'])} diagnostic(s), no crash")
    check(c.request("textDocument/codeLens", {"textDocument": {"uri": buri}}) is not None, "requests on an unparsable file answer")
    c.notify("textDocument/didClose", {"textDocument": {"uri": buri}})

    # -- preamble reuse and memory over 1,000 edits --
    inc_path = os.path.join(tmp, "inc.cu")
    inc = "#include <cuda_runtime.h>\n" + tmv
    iuri, _ = open_doc(c, inc_path, inc)
    status0 = c.request("nestor/serverStatus")
    version = 1
    inc_lines = inc.split("\n")
    body_line = next(i for i, l in enumerate(inc_lines) if "c[tx] = sum;" in l)

    def burst(n):
        nonlocal version
        for _ in range(n):
            version += 1
            # Types a character into the comment after `c[tx] = sum;` and
            # deletes it again on the next edit: the text stays bounded.
            col = len(inc_lines[body_line])
            if version % 2 == 0:
                change(c, iuri, version, [{"range": rng(body_line, col, body_line, col), "text": " "}])
            else:
                change(c, iuri, version, [{"range": rng(body_line, col, body_line, col + 1), "text": ""}])
        return c.wait_diagnostics(iuri, version, timeout=180, start=0)

    burst(100)
    status1 = c.request("nestor/serverStatus")
    check(status1["preambleBuilds"] == status0["preambleBuilds"],
          f"edits below the #include block reuse the preamble (builds {status0['preambleBuilds']} -> {status1['preambleBuilds']})")
    rss_before = c.rss_kib()
    t0 = time.monotonic()
    for _ in range(10):
        burst(100)  # 1,000 edits, analysed in bursts of 100
    rss_after = c.rss_kib()
    status2 = c.request("nestor/serverStatus")
    growth = (rss_after - rss_before) / 1024
    print(f"     1,000 edits in {time.monotonic() - t0:.1f} s; RSS {rss_before / 1024:.0f} MiB -> {rss_after / 1024:.0f} MiB; "
          f"analyses {status2['analyses']}, superseded {status2['supersededAnalyses']}, cancelled {status2['cancelledAnalyses']}")
    check(growth < 40, f"memory flat over 1,000 edits (+{growth:.1f} MiB)")
    check(status2["supersededAnalyses"] + status2["cancelledAnalyses"] > 0, "superseded edits are dropped")

    # -- configuration --
    c.notify("workspace/didChangeConfiguration", {"settings": {"nestor": {"gpuArch": "sm_80", "workspaceTrusted": True}}})
    status3 = c.request("nestor/serverStatus")
    check(status3["gpuArch"] == "sm_80" and status3["workspaceTrusted"] is True, "didChangeConfiguration applies")
    report = c.request("workspace/executeCommand", {"command": "nestor.profile", "arguments": [uri, "tmv"]})
    check("not trusted" not in report["error"] and report["workspaceTrusted"] is True, "trusted workspace: profile answer says so")
    c.notify("workspace/didChangeConfiguration", {"settings": {"nestor": {"gpuArch": 5}}})  # bad type: ignored, logged
    check(c.request("nestor/serverStatus")["gpuArch"] == "sm_80", "malformed configuration ignored")

    # -- shutdown then exit --
    check(c.request("shutdown") is None, "shutdown -> null")
    expect_error(-32600, lambda: c.request("textDocument/codeLens", {"textDocument": {"uri": uri}}), "request after shutdown")
    c.notify("exit")
    check(c.proc.wait(30) == 0, "exit after shutdown: exit code 0")

    # exit without shutdown: 1; end of input: the server ends too.
    c2 = start(tmp)
    c2.request("initialize", INIT)
    c2.notify("exit")
    check(c2.proc.wait(30) == 1, "exit without shutdown: exit code 1")
    c3 = start(tmp)
    c3.request("initialize", INIT)
    open_doc(c3, tmv_path, tmv)
    check(c3.close(30) in (0, 1), "end of input with an open document: the server ends")
    c4 = start(tmp)
    c4.notify("exit")
    check(c4.proc.wait(30) == 1, "exit before initialize: exit code 1")


if __name__ == "__main__":
    sys.exit(main())
