#!/usr/bin/env python3
"""Projects, not files (issue #21): the peer-shapes corpus of project layouts
(tests/projects, README.md there). Each test copies a project, writes the
build/compile_commands.json CMake would write with nvcc, and runs Nestor:

- the project index finds a kernel's launches in another translation unit
  (analyze --json: external_launches; rewrite --list: CUDA-NP and sub-warp
  apply, naming the other file), the rewrite writes both files (-i), all or
  none, and prints a diff per file (--diff); without the database it is
  refused as before;
- the index is kept on disk (build/.nestor-index) and not rebuilt for an
  unchanged project; an edited translation unit is analysed again; a corrupt
  entry is analysed again, and one that misplaces a launch is caught before a
  rewrite edits that file;
- a .cu that a wrapper #includes is analysed in its includer's context by
  analyze and rewrite (no parse errors), and rewritten with the wrapper's launch;
- a file that tests __CUDA_ARCH__ is analysed on the device side: the child
  launch under `#if __CUDA_ARCH__` is seen, the fallback loop is not;
- every rewrite applied here is checked against its golden
  (tests/projects/golden/<case>/, rewritten only with NESTOR_UPDATE_GOLDEN=1)
  and, when nvcc is present, the rewritten project is compiled and linked.

Run by ctest with NESTOR=<path to nestor>, NESTOR_REPO, NESTOR_NVCC (optional)."""
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

NESTOR = os.path.abspath(os.environ["NESTOR"])
REPO = os.environ["NESTOR_REPO"]
NVCC = os.environ.get("NESTOR_NVCC", "")
CORPUS = os.path.join(REPO, "tests", "projects")
GOLDEN = os.path.join(CORPUS, "golden")
RUNTIME = os.path.join(REPO, "runtime", "include")
UPDATE = os.environ.get("NESTOR_UPDATE_GOLDEN") == "1"
sys.path.insert(0, os.path.join(REPO, "tests", "lsp"))
from lspclient import LspClient, apply_edits, file_uri  # noqa: E402

# project -> (translation units, include dirs, extra nvcc flags)
PROJECTS = {
    "split_launch": (["src/main.cu", "src/kernels.cu"], ["include"], []),
    "wrapper_includes": (["kmeans.cu"], [], []),
    "device_path": (["expand.cu"], [], ["-rdc=true"]),
}


def write_database(root, project):
    tus, incs, extra = PROJECTS[project]
    build = os.path.join(root, "build")
    os.makedirs(build, exist_ok=True)
    entries = []
    for tu in tus:
        src = os.path.join(root, tu)
        obj = f"CMakeFiles/{project}.dir/{tu}.o"
        cmd = ["/usr/local/cuda/bin/nvcc", "-forward-unknown-to-host-compiler",
               *[f"-I{os.path.join(root, i)}" for i in incs], *extra, "-O3", "-std=c++17",
               "--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-x", "cu", "-c", src, "-o", obj]
        entries.append({"directory": build, "command": " ".join(cmd), "file": src, "output": obj})
    with open(os.path.join(build, "compile_commands.json"), "w") as f:
        json.dump(entries, f, indent=2)


def run(*args, cwd=None):
    """nestor with the project's database (-p build) unless the arguments say otherwise."""
    if args and args[0] in ("analyze", "rewrite") and "--" not in args and "-p" not in args:
        args = (args[0], "-p", "build", *args[1:])
    p = subprocess.run([NESTOR, *args], cwd=cwd, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def line_of(path, needle):
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if needle in line:
                return i
    raise AssertionError(f"{needle!r} not in {path}")


class ProjectCase(unittest.TestCase):
    project = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nestor-projects-")
        self.root = os.path.join(self.tmp, self.project)
        shutil.copytree(os.path.join(CORPUS, self.project), self.root)
        write_database(self.root, self.project)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, rel):
        return os.path.join(self.root, rel)

    def read(self, rel):
        with open(self.path(rel)) as f:
            return f.read()

    def analyze(self, rel, *extra):
        rc, out, err = run("analyze", self.path(rel), "--json", *extra, cwd=self.root)
        self.assertEqual(rc, 0, err)
        return json.loads(out)[0] if out.lstrip().startswith("[") else json.loads(out)

    def check_golden(self, case, files):
        """files: the project-relative paths the rewrite changed."""
        for rel in files:
            got = self.read(rel)
            golden = os.path.join(GOLDEN, case, rel)
            if UPDATE:
                os.makedirs(os.path.dirname(golden), exist_ok=True)
                old = open(golden).read() if os.path.exists(golden) else ""
                if old != got:
                    print("".join(difflib.unified_diff(old.splitlines(True), got.splitlines(True), golden, golden)))
                with open(golden, "w") as f:
                    f.write(got)
                continue
            self.assertTrue(os.path.exists(golden), f"no golden {golden} (NESTOR_UPDATE_GOLDEN=1 writes it)")
            with open(golden) as f:
                want = f.read()
            self.assertEqual(got, want, "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                                     golden, rel)))

    def nvcc_build(self):
        """Compiles and links the (rewritten) project as its CMakeLists.txt does."""
        if not NVCC:
            self.skipTest("no nvcc")
        tus, incs, extra = PROJECTS[self.project]
        cmd = [NVCC, "-arch=sm_90", "-std=c++17", f"-I{RUNTIME}", *[f"-I{self.path(i)}" for i in incs], *extra,
               *[self.path(t) for t in tus], "-o", os.path.join(self.tmp, self.project + ".out")]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)


class SplitLaunch(ProjectCase):
    """Kernels in src/kernels.cu, launched from src/main.cu."""
    project = "split_launch"

    def test_index_finds_the_launch_in_the_other_translation_unit(self):
        m = self.analyze("src/kernels.cu")
        kernels = {k["name"]: k for k in m["kernels"]}
        ext = kernels["row_norms"]["external_launches"]
        self.assertEqual([os.path.basename(e["file"]) for e in ext], ["main.cu"])
        self.assertEqual(ext[0]["block"], "128")
        self.assertEqual(ext[0]["line"], line_of(self.path("src/main.cu"), "row_norms<<<"))
        self.assertEqual(m["compilation_side"], "host")
        # The index is on disk, one entry per translation unit.
        self.assertEqual(len(os.listdir(self.path("build/.nestor-index"))), 2)

    def test_cuda_np_offered_naming_the_other_file(self):
        at = str(line_of(self.path("src/kernels.cu"), "for (int c = 0"))
        rc, out, err = run("rewrite", self.path("src/kernels.cu"), "--at", at, "--list", "--verbose", cwd=self.root)
        self.assertEqual(rc, 0, err)
        np_lines = [l for l in out.splitlines() if l.startswith("np [")]
        self.assertTrue(np_lines and all(": applies" in l for l in np_lines[:1]), out)
        self.assertIn("also rewrites the launch at main.cu:" + str(line_of(self.path("src/main.cu"), "row_norms<<<")),
                      np_lines[0])

    def test_without_the_database_it_is_refused_as_before(self):
        os.remove(self.path("build/compile_commands.json"))
        at = str(line_of(self.path("src/kernels.cu"), "for (int c = 0"))
        rc, out, err = run("rewrite", self.path("src/kernels.cu"), "--at", at, "--list", "--", f"-I{self.path('include')}",
                           cwd=self.root)
        self.assertEqual(rc, 0, err)
        self.assertIn("has no host launch in this file", out)

    def test_np_rewrites_both_files_and_they_build(self):
        at = str(line_of(self.path("src/kernels.cu"), "for (int c = 0"))
        main_before = self.read("src/main.cu")
        # Without -i the result is more than one file: refused, nothing written.
        rc, out, err = run("rewrite", self.path("src/kernels.cu"), "--at", at, "--apply", "np", cwd=self.root)
        self.assertEqual(rc, 2)
        self.assertIn("changes 2 files", err)
        rc, out, err = run("rewrite", self.path("src/kernels.cu"), "--at", at, "--apply", "np", "--diff", cwd=self.root)
        self.assertEqual(rc, 0, err)
        self.assertIn("main.cu", out)
        self.assertIn("kernels.cu", out)
        self.assertEqual(self.read("src/main.cu"), main_before)
        rc, out, err = run("rewrite", self.path("src/kernels.cu"), "--at", at, "--apply", "np", "-i", cwd=self.root)
        self.assertEqual(rc, 0, err)
        self.assertIn("dim3(128, 4, 1)", self.read("src/main.cu"))
        self.check_golden("split_launch.np", ["src/kernels.cu", "src/main.cu"])
        self.nvcc_build()

    def test_a_failed_write_restores_the_files_already_written(self):
        """All or none: the second file cannot be replaced (it became a
        directory while the first was being written), so the first gets its
        text back and nothing changed."""
        at = str(line_of(self.path("src/kernels.cu"), "for (int c = 0"))
        kernels_before = self.read("src/kernels.cu")
        env = dict(os.environ, NESTOR_TEST_PAUSE_BEFORE_RENAME_MS="2000")
        p = subprocess.Popen([NESTOR, "rewrite", "-p", "build", self.path("src/kernels.cu"), "--at", at, "--apply", "np",
                              "-i"], cwd=self.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = p.stderr.readline()  # "nestor: paused before renaming .../kernels.cu.nestor-XXXXXX.tmp"
        self.assertIn("kernels.cu", first)
        os.remove(self.path("src/main.cu"))
        os.mkdir(self.path("src/main.cu"))
        out, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 2, err)
        self.assertIn("main.cu", err)
        self.assertIn("restored", err)
        self.assertEqual(self.read("src/kernels.cu"), kernels_before)

    def test_subwarp_on_the_irregular_loop_rewrites_both_files_and_they_build(self):
        at = str(line_of(self.path("src/kernels.cu"), "for (int e = begin"))
        rc, out, err = run("rewrite", self.path("src/kernels.cu"), "--at", at, "--apply", "subwarp", "-i", cwd=self.root)
        self.assertEqual(rc, 0, err)
        self.check_golden("split_launch.subwarp", ["src/kernels.cu", "src/main.cu"])
        self.nvcc_build()

    def test_an_unchanged_project_is_not_indexed_again(self):
        self.analyze("src/kernels.cu")
        index = self.path("build/.nestor-index")
        stamps = {f: os.path.getmtime(os.path.join(index, f)) for f in os.listdir(index)}
        self.analyze("src/kernels.cu")
        self.assertEqual(stamps, {f: os.path.getmtime(os.path.join(index, f)) for f in os.listdir(index)})
        # An edited translation unit is indexed again: its launch moved down two lines.
        text = self.read("src/main.cu").replace("int main() {", "// moved\n// down\nint main() {")
        with open(self.path("src/main.cu"), "w") as f:
            f.write(text)
        m = self.analyze("src/kernels.cu")
        ext = {k["name"]: k for k in m["kernels"]}["row_norms"]["external_launches"]
        self.assertEqual(ext[0]["line"], line_of(self.path("src/main.cu"), "row_norms<<<"))


    def test_a_corrupt_index_entry_is_analysed_again(self):
        """An entry that is not JSON, or not an entry, is ignored: the file is
        analysed again and the entry written anew."""
        self.analyze("src/kernels.cu")
        index = self.path("build/.nestor-index")
        entries = sorted(os.listdir(index))
        for i, name in enumerate(entries):
            with open(os.path.join(index, name), "w") as f:
                f.write(["{\"file\": \"main.cu\", \"hash\": ", "[1, 2, 3]"][i % 2])
        m = self.analyze("src/kernels.cu")
        ext = {k["name"]: k for k in m["kernels"]}["row_norms"]["external_launches"]
        self.assertEqual(ext[0]["line"], line_of(self.path("src/main.cu"), "row_norms<<<"))
        for name in entries:
            with open(os.path.join(index, name)) as f:
                self.assertIn("launches", json.load(f))

    def test_an_index_entry_that_misplaces_a_launch_is_caught(self):
        """An entry whose hash still matches the file but whose launches point
        elsewhere (written by another version, or edited by hand): a rewrite
        that changes the launch analyses that file again, sees the mismatch and
        refuses; no file is touched."""
        self.analyze("src/kernels.cu")
        index = self.path("build/.nestor-index")
        [entry] = [os.path.join(index, n) for n in os.listdir(index) if n.startswith("main-")]
        with open(entry) as f:
            d = json.load(f)
        for launch in d["launches"]:
            for k in ("span", "configSpan", "gridSpan", "blockSpan"):
                s = launch[k]
                launch[k] = [s[0] + 1, s[1], s[2] + 40, s[3] + 1, s[4], s[5] + 40]
        with open(entry, "w") as f:
            json.dump(d, f)
        before = {rel: self.read(rel) for rel in ("src/main.cu", "src/kernels.cu")}
        for needle, rewrite in (("for (int c = 0", "np"), ("for (int e = begin", "subwarp")):
            at = str(line_of(self.path("src/kernels.cu"), needle))
            rc, out, err = run("rewrite", self.path("src/kernels.cu"), "--at", at, "--apply", rewrite, "-i", cwd=self.root)
            self.assertNotEqual(rc, 0, out)
            self.assertIn("could not be analysed again as the project index recorded it", err)
        self.assertEqual(before, {rel: self.read(rel) for rel in before})


class LanguageServer(ProjectCase):
    """The language server: one WorkspaceEdit spans the kernel's file and the launch's."""
    project = "split_launch"

    def test_resolve_returns_one_workspace_edit_for_both_files(self):
        c = LspClient([NESTOR, "lsp"], cwd=self.root)
        try:
            c.request("initialize", {"processId": None, "rootUri": file_uri(self.root), "capabilities": {
                "textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}, "codeActionLiteralSupport": {}}},
                "workspace": {"workspaceEdit": {"documentChanges": True}}},
                "initializationOptions": {"compileCommandsDir": self.path("build"), "gpuArch": "sm_90"}})
            c.notify("initialized", {})
            kernels = self.path("src/kernels.cu")
            uri = file_uri(kernels)
            text = self.read("src/kernels.cu")
            line = line_of(kernels, "for (int c = 0") - 1
            c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda-cpp", "version": 1,
                                                               "text": text}})
            # The index builds in the background: an edit is analysed with what
            # is indexed so far, so edit (a comment) until the launch is known.
            np_action = None
            for version in range(2, 60):
                mark = c.mark()
                text += "\n"
                c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                    "contentChanges": [{"text": text}]})
                c.wait_diagnostics(uri, version, timeout=120, start=mark)
                actions = c.request("textDocument/codeAction", {
                    "textDocument": {"uri": uri},
                    "range": {"start": {"line": line, "character": 2}, "end": {"line": line, "character": 2}},
                    "context": {"diagnostics": []}})
                np_action = next((a for a in actions if a["title"].startswith("CUDA-NP") and "disabled" not in a), None)
                if np_action:
                    break
                time.sleep(1)
            self.assertIsNotNone(np_action, "CUDA-NP never offered with the launch in main.cu")
            self.assertIn("main.cu", np_action["title"])
            resolved = c.request("codeAction/resolve", np_action)
            docs = resolved["edit"]["documentChanges"]
            self.assertEqual([d["textDocument"]["uri"] for d in docs], [uri, file_uri(self.path("src/main.cu"))])
            self.assertEqual(docs[0]["textDocument"]["version"], version)
            self.assertIsNone(docs[1]["textDocument"]["version"])
            main = apply_edits(self.read("src/main.cu"), docs[1]["edits"])
            self.assertIn("row_norms<<<(rows + 127) / 128, dim3(128,", main)
        finally:
            c.close()


class WrapperIncludes(ProjectCase):
    """Rodinia's layout: kmeans.cu includes kmeans_kernel.cu."""
    project = "wrapper_includes"

    def test_analyze_reads_the_kernel_file_in_its_includers_context(self):
        m = self.analyze("kmeans_kernel.cu")
        self.assertEqual(m["parse_errors"], [])
        self.assertEqual([k["name"] for k in m["kernels"]], ["kmeansPoint"])
        ext = m["kernels"][0]["external_launches"]
        self.assertEqual([os.path.basename(e["file"]) for e in ext], ["kmeans.cu"])

    def test_includers_context_without_naming_the_database(self):
        # The database found upwards (build/compile_commands.json) gives the
        # includer's command to analyze and rewrite as to lint.
        p = subprocess.run([NESTOR, "analyze", self.path("kmeans_kernel.cu"), "--json"], cwd=self.root,
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        m = json.loads(p.stdout)
        m = m[0] if isinstance(m, list) else m
        self.assertEqual(m["parse_errors"], [])
        self.assertEqual([k["name"] for k in m["kernels"]], ["kmeansPoint"])

    def test_np_rewrites_the_kernel_file_and_the_wrappers_launch(self):
        at = str(line_of(self.path("kmeans_kernel.cu"), "for (int f = 0"))
        rc, out, err = run("rewrite", self.path("kmeans_kernel.cu"), "--at", at, "--list", "--verbose", cwd=self.root)
        self.assertEqual(rc, 0, err)
        self.assertNotIn("parse", out)
        rc, out, err = run("rewrite", self.path("kmeans_kernel.cu"), "--at", at, "--apply", "np", "--param",
                           "np_type=intra", "-i", cwd=self.root)
        self.assertEqual(rc, 0, err + out)
        self.check_golden("wrapper_includes.np", ["kmeans_kernel.cu", "kmeans.cu"])
        self.nvcc_build()


class DevicePath(ProjectCase):
    """A dynamic-parallelism path under #if __CUDA_ARCH__ >= 350."""
    project = "device_path"

    def test_the_device_side_is_analysed(self):
        m = self.analyze("expand.cu")
        self.assertEqual(m["compilation_side"], "device")
        device = [l for l in m["launches"] if l["device_side"]]
        self.assertEqual([(l["parent"], l["child"]) for l in device], [("expand_all", "expand_segment")])
        # The host fallback's loop is not in the model: only the child's body is device code with no loop.
        fallback = line_of(self.path("expand.cu"), "for (int i = 0; i < count")
        self.assertNotIn(fallback, [l["line"] for l in m["loops"]])

    def test_device_launch_rewrites_apply_and_build(self):
        at = str(line_of(self.path("expand.cu"), "expand_segment<<<"))
        rc, out, err = run("rewrite", self.path("expand.cu"), "--at", at, "--list", "--verbose", cwd=self.root)
        self.assertEqual(rc, 0, err)
        applied = [l.split(" [")[0] for l in out.splitlines() if ": applies" in l]
        self.assertIn("threshold", applied, out)
        for rewrite in sorted(set(applied)):
            with self.subTest(rewrite=rewrite):
                shutil.copy(os.path.join(CORPUS, self.project, "expand.cu"), self.path("expand.cu"))
                rc, out, err = run("rewrite", self.path("expand.cu"), "--at", at, "--apply", rewrite, "-i", cwd=self.root)
                self.assertEqual(rc, 0, err)
                if rewrite == "threshold":
                    self.check_golden("device_path.threshold", ["expand.cu"])
                self.nvcc_build()


if __name__ == "__main__":
    unittest.main(verbosity=2)
