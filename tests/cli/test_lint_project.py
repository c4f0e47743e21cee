#!/usr/bin/env python3
"""`nestor lint` on a CUDA project with a compile database (issue #26): the
database's translation units with no paths, --exclude, --header-filter,
headers and included .cu files in their includer's context, one dropped-flags
note per run, the progress line, --baseline / --write-baseline. The project is
tests/cli/project (cuda-samples style); each test copies it and writes its
build/compile_commands.json as CMake would with nvcc.
Run by ctest with NESTOR=<path to nestor>."""
import json
import os
import pty
import re
import select
import shutil
import subprocess
import tempfile
import unittest

NESTOR = os.path.abspath(os.environ["NESTOR"])
REPO = os.environ["NESTOR_REPO"]
PROJECT = os.path.join(REPO, "tests", "cli", "project")
SARIF_SCHEMA = os.path.join(REPO, "tests", "data", "sarif-schema-2.1.0.json")

# target directory (under build/), source, extra flags
TARGETS = [
    ("Samples/0_Introduction/vectorAdd", "Samples/0_Introduction/vectorAdd/vectorAdd.cu", []),
    ("Samples/2_Concepts/matVec", "Samples/2_Concepts/matVec/matVec.cu", ["-DROWS=64", "--extended-lambda"]),
    ("Samples/3_Wrapper/stencil", "Samples/3_Wrapper/stencil/stencil.cu", ["-DRADIUS=4", "--extended-lambda"]),
    ("third_party/vendor", "third_party/vendor/vendor.cu", ["--extended-lambda", "--extended-lambda"]),
]


BFS = ("Samples/3_Wrapper/bfs", "Samples/3_Wrapper/bfs/bfs.cu", [])


def write_database(root, targets=TARGETS):
    entries = []
    for target_dir, source, extra in targets:
        directory = os.path.join(root, "build", target_dir)
        os.makedirs(directory, exist_ok=True)
        name = os.path.basename(source)
        command = ["/usr/local/cuda/bin/nvcc", "-forward-unknown-to-host-compiler", f"-I{root}/Common", *extra,
                   "-O3", "-std=c++17", "--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-x", "cu",
                   "-c", os.path.join(root, source), "-o", f"CMakeFiles/{name}.o"]
        entries.append({"directory": directory, "command": " ".join(command), "file": os.path.join(root, source),
                        "output": f"CMakeFiles/{name}.o"})
    with open(os.path.join(root, "build", "compile_commands.json"), "w") as f:
        json.dump(entries, f, indent=2)


def run(*args, cwd=None):
    p = subprocess.run([NESTOR, *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def finding_files(out):
    """The files of the text output's findings."""
    return sorted({line.split(":")[0] for line in out.splitlines() if line.strip()})


class Project(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nestor-project-")
        self.root = os.path.join(self.tmp, "proj")
        shutil.copytree(PROJECT, self.root)
        write_database(self.root)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def lint(self, *args):
        return run("lint", *args, cwd=self.root)

    def path(self, rel):
        return os.path.join(self.root, rel)


class DatabaseLint(Project):
    def test_no_paths_lints_exactly_the_database(self):
        rc, out, err = self.lint("-p", "build")
        self.assertEqual(rc, 1, err)
        self.assertIn("in 4 files", err)
        self.assertEqual(finding_files(out), ["Samples/2_Concepts/matVec/matVec.cu", "third_party/vendor/vendor.cu"])
        self.assertRegex(out, r"Samples/2_Concepts/matVec/matVec.cu:6:3: warning: .*\[np-parallel-loop\]")
        # Headers are not linted on their own, so none of them floods parse errors.
        self.assertNotIn("parse-error", out)
        self.assertNotIn(".cuh", out + err)
        # JSON lists the same four files, database order.
        rc, out, _ = self.lint("-p", "build", "--format", "json")
        files = [f["file"] for f in json.loads(out)["files"]]
        self.assertEqual([os.path.basename(f) for f in files], ["vectorAdd.cu", "matVec.cu", "stencil.cu", "vendor.cu"])

    def test_without_paths_or_database_is_a_usage_error(self):
        rc, _, err = self.lint()
        self.assertEqual(rc, 2)
        self.assertIn("-p DIR", err)

    def test_dropped_flags_are_one_note_per_run(self):
        rc, _, err = self.lint("-p", "build")
        notes = [l for l in err.splitlines() if "dropped flags" in l]
        self.assertEqual(notes, ["note: dropped flags clang does not take: --extended-lambda (3 files)"], err)
        # One file keeps the per-file form, its duplicate flag said once.
        rc, _, err = self.lint("-p", "build", "third_party/vendor/vendor.cu")
        notes = [l for l in err.splitlines() if "dropped flags" in l]
        self.assertEqual(notes, ["note: third_party/vendor/vendor.cu: dropped flags clang does not take: --extended-lambda"])
        # So does a database of one file, named relative to the working directory.
        db = json.load(open(self.path("build/compile_commands.json")))
        os.makedirs(self.path("one"))
        with open(self.path("one/compile_commands.json"), "w") as f:
            json.dump([e for e in db if e["file"].endswith("vendor.cu")], f)
        rc, _, err = self.lint("-p", "one")
        notes = [l for l in err.splitlines() if "dropped flags" in l]
        self.assertEqual(notes, ["note: third_party/vendor/vendor.cu: dropped flags clang does not take: --extended-lambda"])

    def test_directory_lint_skips_files_without_an_entry(self):
        rc, out, err = self.lint("-p", "build", "Samples")
        self.assertEqual(rc, 1, err)
        self.assertIn("in 3 files", err)
        self.assertEqual(finding_files(out), ["Samples/2_Concepts/matVec/matVec.cu"])
        # matVec_kernel.cuh, stencil_kernel.cu (which stencil.cu includes) and
        # bfs/ (not in this database) have no entry: skipped, and said so.
        self.assertIn("note: 4 files without an entry in the compile database skipped", err)

    def test_exclude(self):
        rc, out, err = self.lint("-p", "build", "--exclude", "third_party")
        self.assertEqual(rc, 1)
        self.assertIn("in 3 files", err)
        self.assertNotIn("vendor.cu", out)
        self.assertIn("note: 1 file skipped by --exclude", err)
        # A glob, several of them, absolute paths and directories given as inputs.
        rc, out, err = self.lint("-p", "build", "--exclude", "*/vendor.cu", "--exclude", "*/matVec/*", ".")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("in 2 files", err)
        rc, out, err = self.lint("-p", "build", "--exclude", self.path("Samples") + "/*")
        self.assertEqual(finding_files(out), ["third_party/vendor/vendor.cu"])
        self.assertIn("in 1 file", err)
        rc, _, err = self.lint("-p", "build", "--exclude", "[")
        self.assertEqual(rc, 2)
        self.assertIn("invalid glob", err)

    def test_header_filter_lints_headers_in_their_includers_context(self):
        # Alone (no database: default flags) the header does not parse: ROWS and
        # helper_nestor.cuh come from the build's command.
        rc, out, _ = run("lint", "--fail-on", "never", self.path("Samples/2_Concepts/matVec/matVec_kernel.cuh"), "--")
        self.assertIn("[parse-error]", out)
        rc, out, err = self.lint("-p", "build", "--header-filter", r"matVec_kernel\.cuh$")
        self.assertEqual(rc, 1, err)
        self.assertIn("in 5 files", err)
        self.assertNotIn("parse-error", out)
        self.assertRegex(out, r"Samples/2_Concepts/matVec/matVec_kernel.cuh:9:3: warning: .*\[np-parallel-loop\]")
        rc, out, _ = self.lint("-p", "build", "--header-filter", r"matVec_kernel", "--format", "json")
        header = [f for f in json.loads(out)["files"] if f["file"].endswith("matVec_kernel.cuh")]
        self.assertEqual(len(header), 1)
        self.assertTrue(header[0]["includer"].endswith("Samples/2_Concepts/matVec/matVec.cu"), header)
        self.assertEqual([f["rule"] for f in header[0]["findings"]], ["np-parallel-loop"])
        # A directory with --header-filter: the matching file under it, too.
        rc, out, err = self.lint("-p", "build", "--header-filter", ".*", "Samples/2_Concepts")
        self.assertEqual(finding_files(out), ["Samples/2_Concepts/matVec/matVec.cu",
                                              "Samples/2_Concepts/matVec/matVec_kernel.cuh"])
        rc, _, err = self.lint("-p", "build", "--header-filter", "(")
        self.assertEqual(rc, 2)
        self.assertIn("invalid regular expression", err)

    def test_a_named_file_without_an_entry_gets_its_includers_command(self):
        # Rodinia: stencil.cu #includes stencil_kernel.cu, which has no entry.
        rc, out, err = self.lint("-p", "build", "--format", "json", "Samples/3_Wrapper/stencil/stencil_kernel.cu")
        f = json.loads(out)["files"][0]
        self.assertTrue(f["includer"].endswith("Samples/3_Wrapper/stencil/stencil.cu"), f)
        self.assertNotIn("parse-error", [x["rule"] for x in f["findings"]])
        self.assertEqual(f["dropped_flags"], ["--extended-lambda"])
        rc, out, _ = self.lint("-p", "build", "Samples/2_Concepts/matVec/matVec_kernel.cuh")
        self.assertNotIn("parse-error", out)
        self.assertIn("[np-parallel-loop]", out)

    def test_an_included_cu_gets_what_its_includer_declares_before_it(self):
        # Rodinia's bfs: bfs_kernel.cu uses Node and MAX_THREADS_PER_BLOCK,
        # which bfs.cu declares before its #include "bfs_kernel.cu".
        write_database(self.root, TARGETS + [BFS])
        kernel = "Samples/3_Wrapper/bfs/bfs_kernel.cu"
        rc, out, _ = run("lint", "--fail-on", "never", "--format", "json", self.path(kernel), "--")
        alone = [f["rule"] for f in json.loads(out)["files"][0]["findings"]]
        self.assertIn("parse-error", alone)
        rc, out, err = self.lint("-p", "build", "--format", "json", kernel)
        f = json.loads(out)["files"][0]
        self.assertTrue(f["includer"].endswith("Samples/3_Wrapper/bfs/bfs.cu"), f)
        rules = [x["rule"] for x in f["findings"]]
        self.assertNotIn("parse-error", rules)
        self.assertIn("np-irregular-loop", rules)
        self.assertEqual([x["line"] for x in f["findings"] if x["rule"] == "np-irregular-loop"], [7])
        # The same through --header-filter with no paths.
        rc, out, err = self.lint("-p", "build", "--header-filter", "bfs_kernel")
        self.assertIn("in 6 files", err)
        self.assertRegex(out, r"Samples/3_Wrapper/bfs/bfs_kernel.cu:7:5: \w+: .*\[np-irregular-loop\]")
        self.assertNotIn("parse-error", out)

    def test_parallel_runs_give_the_same_output(self):
        one = self.lint("-p", "build", "-j", "1", "--header-filter", ".*")
        two = self.lint("-p", "build", "-j", "2", "--header-filter", ".*")
        self.assertEqual(one, two)

    def test_progress_line_only_on_a_terminal(self):
        _, _, err = self.lint("-p", "build")
        self.assertNotIn("[1/4]", err)
        # stderr on a pseudo-terminal, stdout a pipe.
        master, slave = pty.openpty()
        p = subprocess.Popen([NESTOR, "lint", "-p", "build", "-j", "1"], cwd=self.root, stdout=subprocess.PIPE,
                             stderr=slave, text=True)
        os.close(slave)
        chunks = []
        while True:
            r, _, _ = select.select([master], [], [], 120)
            if not r:
                break
            try:
                data = os.read(master, 4096)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        out = p.stdout.read()
        p.wait(timeout=60)
        os.close(master)
        tty = b"".join(chunks).decode()
        for i in range(1, 5):
            self.assertIn(f"[{i}/4] ", tty)
        self.assertIn("\r\x1b[K[4/4] third_party/vendor/vendor.cu", tty)
        # Cleared before the summary; the findings on stdout are untouched.
        self.assertRegex(tty, r"\r\x1b\[K(\r\n)?(.|\r\n)*nestor: 2 findings")
        self.assertNotIn("[", out.replace("[np-parallel-loop]", ""))
        self.assertEqual(p.returncode, 1)


class Baselines(Project):
    def insert_lines(self, rel, at, text):
        with open(self.path(rel)) as f:
            lines = f.readlines()
        lines[at:at] = [text]
        with open(self.path(rel), "w") as f:
            f.writelines(lines)

    def test_write_then_use_a_baseline(self):
        rc, out, err = self.lint("-p", "build", "--write-baseline", "nestor-baseline.json")
        self.assertEqual(rc, 0, err)  # every finding is in the baseline just written
        self.assertIn("wrote 2 findings to nestor-baseline.json", err)
        saved = json.load(open(self.path("nestor-baseline.json")))
        fps = [f["fingerprint"] for file in saved["files"] for f in file["findings"]]
        self.assertEqual(len(fps), 2)
        for fp in fps:
            self.assertRegex(fp, r"^[0-9a-f]{16}:0$")
        rc, out, err = self.lint("-p", "build", "--baseline", "nestor-baseline.json")
        self.assertEqual((rc, out), (0, ""), err)
        self.assertIn("nestor: 0 new findings (0 errors, 0 warnings, 0 notes) in 4 files, 2 in the baseline", err)

    def test_findings_that_moved_stay_known_and_new_ones_are_reported(self):
        self.lint("-p", "build", "--write-baseline", "base.json")
        # Lines inserted above the flagged loops move them.
        self.insert_lines("Samples/2_Concepts/matVec/matVec.cu", 1, "// a comment\n\n\n")
        self.insert_lines("third_party/vendor/vendor.cu", 0, "#define UNUSED 1\n")
        rc, out, err = self.lint("-p", "build", "--baseline", "base.json")
        self.assertEqual((rc, out), (0, ""), err)
        # A new loop is new; the old ones are still not reported.
        self.insert_lines("Samples/0_Introduction/vectorAdd/vectorAdd.cu", 5,
                          "  for (int k = 0; k < n; k++) c[i * n + k] += a[k];\n")
        rc, out, err = self.lint("-p", "build", "--baseline", "base.json")
        self.assertEqual(rc, 1, err)
        self.assertEqual(finding_files(out), ["Samples/0_Introduction/vectorAdd/vectorAdd.cu"])
        self.assertIn("1 new finding", err)
        self.assertIn("2 in the baseline", err)
        # --fail-on counts only new findings.
        self.assertEqual(self.lint("-p", "build", "--baseline", "base.json", "--fail-on", "error")[0], 0)

    def test_a_sarif_report_is_a_baseline_and_sarif_output_marks_new_results(self):
        rc, out, _ = self.lint("-p", "build", "--format", "sarif")
        with open(self.path("old.sarif"), "w") as f:
            f.write(out)
        results = json.loads(out)["runs"][0]["results"]
        self.assertEqual(len(results), 2)
        for r in results:
            self.assertRegex(r["partialFingerprints"]["nestor/v1"], r"^[0-9a-f]{16}:0$")
        rc, out, err = self.lint("-p", "build", "--baseline", "old.sarif")
        self.assertEqual((rc, out), (0, ""), err)
        self.insert_lines("Samples/0_Introduction/vectorAdd/vectorAdd.cu", 5,
                          "  for (int k = 0; k < n; k++) c[i * n + k] += a[k];\n")
        rc, out, err = self.lint("-p", "build", "--baseline", "old.sarif", "--format", "sarif")
        self.assertEqual(rc, 1, err)
        log = json.loads(out)
        new = log["runs"][0]["results"]
        self.assertEqual(len(new), 1)
        self.assertEqual(new[0]["baselineState"], "new")
        self.assertTrue(new[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("vectorAdd.cu"))
        try:
            import jsonschema
        except ImportError:
            return
        jsonschema.validate(log, json.load(open(SARIF_SCHEMA)))
        # The JSON report is a baseline too and counts new findings in its summary.
        rc, out, _ = self.lint("-p", "build", "--baseline", "old.sarif", "--format", "json")
        self.assertEqual(json.loads(out)["summary"], {"error": 0, "warning": 1, "note": 0, "in_baseline": 2})

    def test_identical_lines_are_counted(self):
        loop = "  for (int i = 0; i < h; i++) sum += a[i * w + tx];\n"
        body = ("__global__ void k{0}(const float *a, float *c, int w, int h) {{\n"
                "  int tx = threadIdx.x + blockIdx.x * blockDim.x;\n  float sum = 0;\n" + loop + "  c[tx] = sum;\n}}\n")
        with open(self.path("third_party/vendor/vendor.cu"), "w") as f:
            f.write(body.format(1) + body.format(2))
        rc, out, _ = self.lint("-p", "build", "--format", "json", "third_party/vendor/vendor.cu")
        fps = [f["fingerprint"] for f in json.loads(out)["files"][0]["findings"]]
        self.assertEqual(len(fps), 2)
        self.assertEqual(fps[0].split(":")[0], fps[1].split(":")[0])
        self.assertEqual([fp.split(":")[1] for fp in fps], ["0", "1"])
        self.lint("-p", "build", "--write-baseline", "base.json", "third_party/vendor/vendor.cu")
        with open(self.path("third_party/vendor/vendor.cu"), "a") as f:
            f.write(body.format(3))
        rc, out, err = self.lint("-p", "build", "--baseline", "base.json", "third_party/vendor/vendor.cu")
        self.assertEqual(rc, 1, err)
        self.assertEqual(len(out.splitlines()), 1, out)
        self.assertIn("2 in the baseline", err)

    def test_bad_baselines_are_usage_errors(self):
        cases = {
            "missing.json": (None, "cannot read"),
            "broken.json": ("{ not json", "not JSON"),
            "other.json": ('{"hello": 1}', "neither a SARIF log"),
            "old.sarif": ('{"runs": [{"results": [{"ruleId": "x", "partialFingerprints": {"other/v1": "1"}}]}]}',
                          "without a Nestor fingerprint"),
        }
        for name, (text, message) in cases.items():
            if text is not None:
                with open(self.path(name), "w") as f:
                    f.write(text)
            rc, out, err = self.lint("-p", "build", "--baseline", name)
            self.assertEqual(rc, 2, name)
            self.assertEqual(out, "")
            self.assertIn(message, err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
