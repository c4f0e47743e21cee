#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz targets that need built inputs
(tests/fuzz/corpus/<target>/seed-*). Run from anywhere; re-running rewrites
the same files. Inputs found by fuzzing are added by hand (docs/fuzzing.md)."""
import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"


def write(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / f"seed-{name}").write_bytes(data if isinstance(data, bytes) else data.encode())


# ---- fuzz_lsp: whole client sessions, framed as a client frames them -------
URI = "file:///tmp/nestor-fuzz-lsp/k.cu"
KERNEL = """__global__ void rowsum(const float *a, float *out, int n, const int *len) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
#pragma np parallel for reduction(+:s)
  for (int j = 0; j < n; ++j) s += a[row * n + j];
  for (int k = 0; k < len[row]; ++k) s += 1;
  out[row] = s;
}
"""


def frame(msg):
    body = json.dumps(msg) if not isinstance(msg, (str, bytes)) else msg
    body = body.encode() if isinstance(body, str) else body
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def req(i, method, params=None):
    m = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        m["params"] = params
    return m


def note(method, params=None):
    m = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        m["params"] = params
    return m


pos = {"line": 4, "character": 10}
doc = {"uri": URI}
init = req(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {
    "textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}},
    "workspace": {"workspaceEdit": {"documentChanges": True}}},
    "initializationOptions": {"gpuArch": "sm_80", "workspaceTrusted": False}})
opened = note("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "cuda", "version": 1, "text": KERNEL}})
session = [
    init, note("initialized", {}), opened,
    req(2, "textDocument/hover", {"textDocument": doc, "position": {"line": 3, "character": 3}}),
    req(3, "textDocument/completion", {"textDocument": doc, "position": {"line": 3, "character": 34}}),
    req(4, "textDocument/codeAction", {"textDocument": doc, "range": {"start": pos, "end": pos},
                                       "context": {"diagnostics": []}}),
    req(5, "textDocument/codeLens", {"textDocument": doc}),
    note("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
        {"range": {"start": {"line": 5, "character": 0}, "end": {"line": 5, "character": 0}}, "text": "  // edit\n"}]}),
    req(6, "codeAction/resolve", {"title": "x", "data": {"uri": URI, "version": 2, "rewrite": "np-pragma",
                                                         "target": {"kind": "loop", "id": 1}, "params": {}}}),
    req(10, "codeAction/resolve", {"title": "y", "data": {"uri": URI, "version": 2, "rewrite": "np",
                                                          "target": {"kind": "loop", "id": 0},
                                                          "params": {"slaves": "4", "np_type": "inter"}}}),
    req(7, "workspace/executeCommand", {"command": "nestor.profile", "arguments": [URI, "rowsum"]}),
    note("$/cancelRequest", {"id": 7}),
    req(8, "nestor/serverStatus"),
    note("workspace/didChangeConfiguration", {"settings": {"nestor": {"gpuArch": "sm_90"}}}),
    note("textDocument/didSave", {"textDocument": doc}),
    note("textDocument/didClose", {"textDocument": doc}),
    req(9, "shutdown"), note("exit"),
]
write("fuzz_lsp", "session", b"".join(frame(m) for m in session))
write("fuzz_lsp", "init-only", frame(init) + frame(note("exit")))
write("fuzz_lsp", "before-initialize", frame(req(1, "textDocument/hover", {"textDocument": doc, "position": pos})))
write("fuzz_lsp", "not-json", frame("{not json") + frame(init))
write("fuzz_lsp", "not-object", frame("[1,2]") + frame("null") + frame('"s"'))
write("fuzz_lsp", "bad-id", frame({"jsonrpc": "2.0", "id": [1], "method": "initialize"}))
write("fuzz_lsp", "no-jsonrpc", frame({"id": 1, "method": "initialize", "params": {}}))
write("fuzz_lsp", "wrong-types", frame(init) + frame(opened) + b"".join(frame(m) for m in [
    req(2, "textDocument/hover", {"textDocument": {"uri": 3}, "position": {"line": "a"}}),
    req(3, "textDocument/hover", {"textDocument": doc, "position": {"line": 99999, "character": -1}}),
    req(4, "textDocument/codeAction", {"textDocument": doc, "range": {"start": {"line": 5, "character": 9},
                                       "end": {"line": 0, "character": 0}}, "context": {"only": [3]}}),
    req(5, "codeAction/resolve", [1, 2]),
    req(6, "workspace/executeCommand", {"command": "nestor.profile", "arguments": [7]}),
    note("textDocument/didChange", {"textDocument": {"uri": URI, "version": 3}, "contentChanges": [
        {"range": {"start": {"line": 50, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}]}),
    note("textDocument/didChange", {"textDocument": {"uri": URI, "version": 4}, "contentChanges": [{"text": KERNEL}]}),
    note("$/cancelRequest", {"id": {"x": 1}}),
    req(7, "unknown/method", {}),
]))
# Framing: missing, repeated and wrong headers, short and long lengths.
write("fuzz_lsp", "framing", b"Content-Length: 5\r\n\r\n{}" + b"Content-Length: x\r\n\r\n{}"
      + b"Content-Type: application/json\r\n\r\n{}" + b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}}"
      + b"Content-Length: 99999999999999999999\r\n\r\n{}" + b"\r\n\r\n" + frame(init))
write("fuzz_lsp", "truncated", frame(init)[:-10])
write("fuzz_lsp", "delimited", b"// -*- json -*-\n" + json.dumps(init).encode() + b"\n// -----\n")

# ---- fuzz_config: .nestor.yaml -----------------------------------------------
for p in sorted((ROOT / "examples").rglob(".nestor.yaml")):
    write("fuzz_config", p.parent.name + ".yaml", p.read_bytes())
write("fuzz_config", "all-keys.yaml", """rules:
  np-parallel-loop: note
  dp-launch-in-loop: off
  np-irregular-loop: error
profile:
  build: "nvcc -O3 -rdc=true -arch=sm_90 {defines} {source} -o {exe} -lcudadevrt"
  run: "{exe} --n 65536"
  outputs: [out.bin, out2.bin]
  check: ""
  tolerance: 1e-6
  repetitions: 20
  timeout: 60
mapping:
  gpu: h100
  sms: 132
  threads_per_sm: 2048
  registers_per_thread: 64
  default_trip: 100
  default_threads: 65536
  skew: 2.5
  launch_cost: 4000
  sizes: { n: 65536, "spmv.cu:11": 12 }
  longest: { "spmv.cu:11": 4096 }
  weights: { coalescing: 10 }
  pin: { placement: lanes }
""")
write("fuzz_config", "bad.yaml", "rules: [1, 2\nprofile: {repetitions: -1}\n")

# ---- fuzz_compile_flags: compile_commands.json [+ "\n@@\n" + response file] --
def db(args, file="k.cu", key="arguments"):
    entry = {"directory": "$DIR", "file": file}
    entry[key] = args if key == "arguments" else " ".join(args)
    return json.dumps([entry])


write("fuzz_compile_flags", "nvcc", db(["nvcc", "-arch=sm_80", "-rdc=true", "-Xcompiler=-fPIC,-Wall", "-I", "inc",
                                        "-DN=4", "--expt-relaxed-constexpr", "-c", "k.cu", "-o", "k.o"]))
write("fuzz_compile_flags", "command", db(["/usr/local/cuda/bin/nvcc", "-forward-unknown-to-host-compiler",
                                           "-gencode", "arch=compute_90,code=[sm_90,compute_90]", "-std=c++17",
                                           "-x", "cu", "-c", "$DIR/k.cu"], key="command"))
write("fuzz_compile_flags", "at-file", db(["nvcc", "@flags.rsp", "-c", "k.cu"]) + "\n@@\n-arch=sm_75 -Iinc \"-DX=a b\"\n")
write("fuzz_compile_flags", "options-file", db(["nvcc", "--options-file", "flags.rsp", "-c", "k.cu"])
      + "\n@@\n--gpu-architecture=compute_86 -dc --default-stream=per-thread\n")
write("fuzz_compile_flags", "self-include", db(["nvcc", "@flags.rsp", "k.cu"]) + "\n@@\n@flags.rsp\n")
write("fuzz_compile_flags", "other-file", db(["clang++", "-x", "cuda", "other.cu"], file="other.cu"))
write("fuzz_compile_flags", "malformed", '[{"directory": 1, "file": []}]')

# ---- fuzz_model: the fixtures, the examples and the crash corpus -----------
# (tests/crash/inputs: invalid and odd CUDA that once crashed the analysis or
# could, issue #20)
for p in sorted(list((ROOT / "tests" / "fixtures").rglob("*.cu")) + list((ROOT / "examples").rglob("*.cu"))
                + list((ROOT / "tests" / "crash" / "inputs").glob("*.cu"))):
    rel = p.relative_to(ROOT).as_posix().replace("/", "_")
    if p.stat().st_size <= 20000:
        write("fuzz_model", rel, p.read_bytes())
