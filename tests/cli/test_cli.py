#!/usr/bin/env python3
"""Command-line behaviour of `nestor`: exit codes, formats, configuration,
bad input, SARIF validity. Run by ctest with NESTOR=<path to nestor>."""
import json
import re
import os
import shutil
import subprocess
import tempfile
import unittest

NESTOR = os.path.abspath(os.environ["NESTOR"])
REPO = os.environ["NESTOR_REPO"]
SARIF_SCHEMA = os.path.join(REPO, "tests", "data", "sarif-schema-2.1.0.json")
FIXTURES = os.path.join(REPO, "tests", "fixtures")

TMV = """__global__ void tmv(const float *a, const float *b, float *c, int w, int h) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float sum = 0;
  for (int i = 0; i < h; i++)
    sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}
"""
CLEAN = "__global__ void k(float *a) { a[threadIdx.x] = 1.0f; }\n"


def at(text, needle, after=None):
    """--at for the line of needle in text (the first after `after`): tests
    name a line by its text, never by its number. needle (or after) must
    occur once."""
    start = 0
    if after is not None:
        assert text.count(after) == 1, f"{after!r} must occur once"
        start = text.index(after) + len(after)
    else:
        assert text.count(needle) == 1, f"{needle!r} must occur once"
    return str(text.count("\n", 0, text.index(needle, start)) + 1)


def run(*args, cwd=None, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run([NESTOR, *args], cwd=cwd, env=e, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


class Workspace(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="nestor-cli-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, text, mode="w"):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, mode) as f:
            f.write(text)
        return path


class ExitCodes(Workspace):
    def test_clean_file_exits_0(self):
        rc, out, err = run("lint", self.write("k.cu", CLEAN))
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "")
        self.assertIn("0 findings", err)

    def test_warning_exits_1_by_default(self):
        rc, out, _ = run("lint", self.write("tmv.cu", TMV))
        self.assertEqual(rc, 1)
        self.assertRegex(out, r"tmv\.cu:4:3: warning: .*#pragma np parallel for reduction\(\+:sum\).* \[np-parallel-loop\]")

    def test_fail_on_threshold(self):
        f = self.write("tmv.cu", TMV)
        self.assertEqual(run("lint", "--fail-on", "error", f)[0], 0)
        self.assertEqual(run("lint", "--fail-on", "note", f)[0], 1)
        self.assertEqual(run("lint", "--fail-on", "never", f)[0], 0)
        self.assertEqual(run("lint", "--fail-on", "warning", f)[0], 1)

    def test_error_finding_fails_on_error(self):
        rc, out, _ = run("lint", "--fail-on", "error", os.path.join(FIXTURES, "dp_device_sync.cu"))
        self.assertEqual(rc, 1)
        self.assertIn("[dp-device-sync]", out)

    def test_usage_errors_exit_2(self):
        f = self.write("tmv.cu", TMV)
        for args in (["lint", "--format", "xml", f], ["lint", "--fail-on", "sometimes", f], ["lint", "--no-such-flag", f],
                     ["lint"], ["analyze"], ["frobnicate"], []):
            rc, _, err = run(*args)
            self.assertEqual(rc, 2, f"{args}: {err}")
            self.assertTrue(err.strip(), args)

    def test_missing_file_exits_2_and_others_still_linted(self):
        f = self.write("tmv.cu", TMV)
        rc, out, err = run("lint", os.path.join(self.dir, "nope.cu"), f)
        self.assertEqual(rc, 2)
        self.assertIn("nope.cu: cannot read file", err)
        self.assertIn("[np-parallel-loop]", out)

    def test_bad_inputs_get_one_line_errors(self):
        cases = {
            "notes.txt": ("hello\n", "not a CUDA source file"),
            "blob.cu": ("\x7fELF\x00\x00\x01", "binary file"),
        }
        for name, (content, message) in cases.items():
            rc, out, err = run("lint", self.write(name, content))
            self.assertEqual(rc, 2, name)
            self.assertIn(message, err)
            self.assertEqual(len([l for l in err.splitlines() if l.startswith("error:")]), 1, err)
        rc, _, err = run("lint", self.dir + "/sub/")
        self.assertEqual(rc, 2)

    def test_empty_file_is_clean(self):
        self.assertEqual(run("lint", self.write("empty.cu", ""))[0], 0)

    def test_syntax_errors_become_findings_and_analysis_goes_on(self):
        rc, out, _ = run("lint", os.path.join(FIXTURES, "parse_error.cu"))
        self.assertEqual(rc, 1)
        self.assertIn("[parse-error]", out)
        self.assertIn("[np-parallel-loop]", out)

    def test_malformed_compile_database(self):
        self.write("build/compile_commands.json", "[{ not json")
        f = self.write("tmv.cu", TMV)
        rc, _, err = run("lint", "-p", os.path.join(self.dir, "build"), f)
        self.assertEqual(rc, 2)
        self.assertIn("malformed compile database", err)
        rc, _, err = run("lint", "-p", os.path.join(self.dir, "nodir"), f)
        self.assertEqual(rc, 2)
        self.assertIn("not a directory", err)

    def test_compile_database_flags_are_used_and_dropped_ones_reported(self):
        src = self.write("k.cu", "__global__ void k(float *a) {\n  for (int i = 0; i < N; i++) a[threadIdx.x * N + i] = 0;\n}\n")
        self.write("compile_commands.json", json.dumps([{
            "directory": self.dir, "file": "k.cu",
            "command": "nvcc -DN=64 -arch=sm_80 --expt-relaxed-constexpr -Xptxas -v -c k.cu -o k.o"}]))
        rc, out, err = run("analyze", "--json", src)
        self.assertEqual(rc, 0, err)
        model = json.loads(out)
        self.assertEqual(model["loops"][0]["trip_count"], "constant")
        self.assertEqual(model["loops"][0]["constant_trip_count"], 64)
        self.assertIn("--expt-relaxed-constexpr", model["dropped_flags"])
        self.assertIn("dropped flags", err)


class WorkingDirectory(Workspace):
    def test_database_directory_does_not_move_other_files(self):
        # a.cu's command runs in build/; b.cu and c.cu, linted after it with
        # relative paths, must still be found (the analysis must not change
        # the process's working directory).
        self.write("src/a.cu", TMV)
        self.write("src/b.cu", TMV.replace("tmv", "tmv_b"))
        self.write("src/c.cu", TMV.replace("tmv", "tmv_c"))
        build = os.path.join(self.dir, "build")
        self.write("build/compile_commands.json", json.dumps([{
            "directory": build, "file": os.path.join(self.dir, "src", "a.cu"),
            "command": "nvcc -arch=sm_90 -c ../src/a.cu -o a.o -MD -MF a.d"}]))
        rc, out, err = run("lint", "-j", "1", "src/a.cu", "src/b.cu", "src/c.cu", cwd=self.dir)
        self.assertEqual(rc, 1, err)
        self.assertNotIn("cannot read", err)
        self.assertEqual(len(out.splitlines()), 3, out)
        # Output flags are not "dropped": nothing is lost without them.
        self.assertNotIn("dropped flags", err)


class Inputs(Workspace):
    def test_directories_and_globs(self):
        self.write("a/one.cu", TMV)
        self.write("a/b/two.cuh", TMV.replace("tmv", "tmv2"))
        self.write("a/b/ignored.txt", "x")
        rc, out, _ = run("lint", os.path.join(self.dir, "a"))
        self.assertEqual(rc, 1)
        self.assertIn("one.cu:4:3", out)
        self.assertIn("two.cuh:4:3", out)
        rc, out, _ = run("lint", self.dir + "/a/*/*.cuh")
        self.assertIn("two.cuh:4:3", out)
        self.assertNotIn("one.cu", out)
        rc, _, err = run("lint", self.dir + "/zzz*.cu")
        self.assertEqual(rc, 2)
        self.assertIn("no files match", err)

    def test_parallel_jobs_give_the_same_output(self):
        for i in range(6):
            self.write(f"k{i}.cu", TMV.replace("tmv", f"tmv{i}"))
        one = run("lint", "-j", "1", self.dir)
        two = run("lint", "-j", "2", self.dir)
        self.assertEqual(one[0], two[0])
        self.assertEqual(one[1], two[1])
        self.assertEqual(len(one[1].splitlines()), 6)

    def test_flags_after_double_dash(self):
        src = self.write("k.cu", "__global__ void k(float *a) {\n  for (int i = 0; i < N; i++) a[threadIdx.x * N + i] = 0;\n}\n")
        rc, out, err = run("analyze", "--json", src, "--", "-DN=32", "-arch=sm_80", "--extended-lambda")
        self.assertEqual(rc, 0, err)
        model = json.loads(out)
        self.assertEqual(model["loops"][0]["constant_trip_count"], 32)
        self.assertIn("--extended-lambda", model["dropped_flags"])


class Configuration(Workspace):
    def test_rule_off_and_severity(self):
        f = self.write("tmv.cu", TMV)
        self.write(".nestor.yaml", "rules:\n  np-parallel-loop: off\n")
        self.assertEqual(run("lint", f)[0], 0)
        self.write(".nestor.yaml", "rules:\n  np-parallel-loop: error\n")
        rc, out, _ = run("lint", "--fail-on", "error", f)
        self.assertEqual(rc, 1)
        self.assertIn(": error: ", out)

    def test_malformed_config_is_a_clear_error(self):
        f = self.write("tmv.cu", TMV)
        self.write(".nestor.yaml", "rules:\n  no-such-rule: off\n")
        rc, _, err = run("lint", f)
        self.assertEqual(rc, 2)
        self.assertIn("unknown rule 'no-such-rule'", err)
        self.assertIn(".nestor.yaml", err)

    def test_suppression_comment(self):
        f = self.write("tmv.cu", TMV.replace("  for (int i", "  // nestor-ignore(np-parallel-loop)\n  for (int i"))
        self.assertEqual(run("lint", f)[0], 0)


class Formats(Workspace):
    def test_json(self):
        rc, out, _ = run("lint", "--format", "json", self.write("tmv.cu", TMV), cwd=self.dir)
        self.assertEqual(rc, 1)
        doc = json.loads(out)
        self.assertEqual(doc["summary"], {"error": 0, "warning": 1, "note": 0})
        finding = doc["files"][0]["findings"][0]
        self.assertEqual(finding["rule"], "np-parallel-loop")
        self.assertEqual((finding["line"], finding["column"]), (4, 3))
        self.assertEqual(finding["fix"]["edits"][0]["new_text"], "  #pragma np parallel for reduction(+:sum)\n")

    def test_sarif_validates_against_the_official_schema(self):
        import jsonschema
        with open(SARIF_SCHEMA) as f:
            schema = json.load(f)
        subprocess.run(["git", "init", "-q", self.dir], check=True)
        self.write("src/tmv.cu", TMV)
        self.write("src/dp.cu", open(os.path.join(FIXTURES, "dp_launch_per_thread.cu")).read())
        rc, out, err = run("lint", "--format", "sarif", "src", cwd=self.dir)
        self.assertEqual(rc, 1, err)
        log = json.loads(out)
        jsonschema.validate(log, schema, cls=jsonschema.Draft7Validator)
        run0 = log["runs"][0]
        rules = {r["id"]: r for r in run0["tool"]["driver"]["rules"]}
        for rid in ("dp-launch-per-thread", "dp-device-sync", "np-parallel-loop", "np-irregular-loop",
                    "np-pragma-syntax", "np-pragma-unsafe", "np-pragma-misplaced", "np-local-array"):
            self.assertIn(rid, rules)
            for key in ("shortDescription", "fullDescription", "help"):
                self.assertTrue(rules[rid][key]["text"])
        results = run0["results"]
        self.assertEqual({r["ruleId"] for r in results}, {"np-parallel-loop", "dp-launch-per-thread"})
        for r in results:
            loc = r["locations"][0]["physicalLocation"]
            self.assertFalse(loc["artifactLocation"]["uri"].startswith("/"), "paths must be repo-relative")
            self.assertTrue(loc["artifactLocation"]["uri"].startswith("src/"))
            self.assertIn(r["level"], ("note", "warning", "error"))
            self.assertTrue(r["partialFingerprints"])
        # Fingerprints survive an edit above the finding.
        before = {r["partialFingerprints"]["nestor/v1"] for r in results}
        self.write("src/tmv.cu", "// a new first line\n" + TMV)
        log2 = json.loads(run("lint", "--format", "sarif", "src", cwd=self.dir)[1])
        after = {r["partialFingerprints"]["nestor/v1"] for r in log2["runs"][0]["results"]}
        self.assertEqual(before, after)


class Analyze(Workspace):
    def test_model_json_fields(self):
        rc, out, err = run("analyze", "--json", os.path.join(FIXTURES, "dp_launch_per_thread.cu"))
        self.assertEqual(rc, 0, err)
        m = json.loads(out)
        for key in ("kernels", "loops", "launches"):
            self.assertIsInstance(m[key], list)
            for e in m[key]:
                for field in ("file", "line", "column"):
                    self.assertIn(field, e)
        launch = [l for l in m["launches"] if l["device_side"]][0]
        for field in ("parent", "child", "threads", "serializable", "reasons"):
            self.assertIn(field, launch)
        self.assertEqual((launch["parent"], launch["child"], launch["threads"]), ("parent", "child", "deg"))
        rc, out, _ = run("analyze", "--json", self.write("tmv.cu", TMV))
        loop = json.loads(out)["loops"][0]
        self.assertEqual((loop["function"], loop["in_kernel"], loop["trip_count"]), ("tmv", True, "uniform"))
        self.assertEqual(loop["reductions"], [{"op": "+", "var": "sum", "line": 5}])

    def test_text_summary(self):
        rc, out, _ = run("analyze", self.write("tmv.cu", TMV))
        self.assertEqual(rc, 0)
        self.assertIn("kernel tmv", out)
        self.assertIn("trip count uniform", out)


class Advice(Workspace):
    """A finding names only rewrites the engine offers at that place, and
    a loop the analysis cannot prove independent gets no claim of it."""

    IRREGULAR = """__global__ void gather(const int *offsets, const int *nbrs, int *out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int begin = offsets[v];
  int deg = offsets[v + 1] - begin;
  for (int i = 0; i < deg; ++i)
    out[begin + i] = nbrs[begin + i] * 2;
}
"""

    def test_irregular_loop_without_an_offer_carries_the_refusal(self):
        # No host launch in the file: CUDA-NP cannot rewrite the launch, and
        # sub-warp needs a reduction; the finding says so instead of advising them.
        rc, out, err = run("lint", "--format", "json", self.write("g.cu", self.IRREGULAR))
        findings = json.loads(out)["files"][0]["findings"]
        irregular = [f for f in findings if f["rule"] == "np-irregular-loop"]
        self.assertEqual(len(irregular), 1, out)
        self.assertIn("no rewrite applies here yet", irregular[0]["message"])
        self.assertNotIn("use CUDA-NP", irregular[0]["message"])

    def test_irregular_loop_with_an_offer_names_it(self):
        text = self.IRREGULAR + """int main() {
  int *o, *nb, *out;
  gather<<<4, 64>>>(o, nb, out, 256);
  return 0;
}
"""
        rc, out, err = run("lint", "--format", "json", self.write("g.cu", text))
        findings = json.loads(out)["files"][0]["findings"]
        irregular = [f for f in findings if f["rule"] == "np-irregular-loop"]
        self.assertEqual(len(irregular), 1, out)
        self.assertIn("use CUDA-NP (np_type=intra)", irregular[0]["message"])
        rc, out, err = run("rewrite", self.write("h.cu", text), "--at", at(text, "for (int i = 0"), "--list")
        self.assertIn("np", out)

    def test_carried_loop_gets_no_claim_and_no_offer(self):
        text = """struct Acc { float v; __device__ Acc &operator+=(float x) { v += x; return *this; } };
__global__ void running(const float *in, float *out, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  Acc a{0.0f};
  for (int i = 0; i < 64; ++i) {
    a += in[row * 64 + i];
    out[row * 64 + i] = a.v;
  }
}
int main() { float *i, *o; running<<<2, 64>>>(i, o, 128); return 0; }
"""
        path = self.write("r.cu", text)
        rc, out, err = run("analyze", "--json", path)
        loop = json.loads(out)["loops"][0]
        self.assertFalse(loop["independent"])
        self.assertIn("'a'", loop["not_independent_because"]["reason"])
        self.assertEqual(loop["not_independent_because"]["line"], 6)
        rc, out, err = run("lint", "--format", "json", path)
        rules = [f["rule"] for f in json.loads(out)["files"][0]["findings"]]
        self.assertNotIn("np-parallel-loop", rules)
        rc, out, err = run("rewrite", path, "--at", at(text, "for (int i = 0"), "--apply", "np")
        self.assertNotEqual(rc, 0)
        self.assertIn("loop-carried dependence", err + out)


class Rewrite(Workspace):
    def test_np_pragma_stdout_diff_and_in_place(self):
        f = self.write("tmv.cu", TMV)
        rc, out, err = run("rewrite", f, "--at", at(TMV, "for (int i = 0"), "--apply", "np-pragma")
        self.assertEqual(rc, 0, err)
        self.assertIn("  #pragma np parallel for reduction(+:sum)\n  for (int i", out)
        rc, diff, _ = run("rewrite", f, "--at", at(TMV, "for (int i = 0"), "--apply", "np-pragma", "--diff")
        self.assertEqual(rc, 0)
        self.assertIn("+  #pragma np parallel for reduction(+:sum)", diff)
        rc, _, err = run("rewrite", f, "--at", at(TMV, "for (int i = 0"), "--apply", "np-pragma", "-i")
        self.assertEqual(rc, 0, err)
        self.assertEqual(open(f).read(), out)
        self.assertEqual([n for n in os.listdir(self.dir) if "nestor-" in n], [], "no temporary files left")
        # Applying it twice is refused, with one line naming why.
        rc, _, err = run("rewrite", f, "--at", at(open(f).read(), "for (int i = 0"), "--apply", "np-pragma")
        self.assertEqual(rc, 1)
        self.assertIn("already has a #pragma np", err)
        self.assertEqual(len(err.strip().splitlines()), 1)

    def test_parallel_loop_names_why_np_does_not_apply(self):
        # np-parallel-loop's advice (the pragma) with the rewrite's own
        # refusal where CUDA-NP cannot take the kernel: a helper reads blockDim.
        fixture = os.path.join(FIXTURES, "np_parallel_loop.cu")
        rc, out, _ = run("lint", fixture)
        line = at(open(fixture).read(), "for (int j = 0; j < n; j++) s += in[r * n + j];")
        found = [l for l in out.splitlines() if f"np_parallel_loop.cu:{line}:" in l and "[np-parallel-loop]" in l]
        self.assertEqual(len(found), 1, out)
        self.assertIn("(CUDA-NP itself does not apply here yet: the kernel calls 'row_of', which reads blockDim", found[0])

    def test_refusals_and_usage(self):
        f = self.write("tmv.cu", TMV)
        self.assertEqual(run("rewrite", f, "--at", at(TMV, "__global__"), "--apply", "np-pragma")[0], 1)
        self.assertEqual(run("rewrite", f, "--at", at(TMV, "for (int i = 0"), "--apply", "no-such-rewrite")[0], 2)
        self.assertEqual(run("rewrite", f, "--apply", "np-pragma")[0], 2)
        self.assertEqual(run("rewrite", f, "--at", "x", "--apply", "np-pragma")[0], 2)
        fixture = os.path.join(FIXTURES, "np_parallel_loop.cu")
        carried = at(open(fixture).read(), "for (int i = 0", after="void carried(")
        rc, _, err = run("rewrite", fixture, "--at", carried, "--apply", "np-pragma")
        self.assertEqual(rc, 1)
        self.assertIn("loop-carried dependence", err)

    def test_killed_between_write_and_rename_leaves_the_original(self):
        # -i writes a temporary file, then renames it over the original; a
        # process killed in between must leave the user's text as it was.
        f = self.write("tmv.cu", TMV)
        env = dict(os.environ, NESTOR_TEST_PAUSE_BEFORE_RENAME_MS="20000")
        p = subprocess.Popen([NESTOR, "rewrite", f, "--at", at(TMV, "for (int i = 0"), "--apply", "np-pragma", "-i"], env=env,
                             stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        try:
            line = p.stderr.readline()
            self.assertIn("paused before renaming", line)
            tmp = line.split("paused before renaming ", 1)[1].strip()
            self.assertTrue(os.path.isfile(tmp), "the new text is complete in the temporary file")
            self.assertIn("#pragma np parallel for", open(tmp).read())
        finally:
            p.kill()
            p.wait()
        self.assertEqual(open(f).read(), TMV, "the original is untouched")
        leftovers = [n for n in os.listdir(self.dir) if n != "tmv.cu"]
        self.assertTrue(all(n.startswith("tmv.cu.nestor-") and n.endswith(".tmp") for n in leftovers), leftovers)
        # The next run completes the rewrite.
        self.assertEqual(run("rewrite", f, "--at", at(TMV, "for (int i = 0"), "--apply", "np-pragma", "-i")[0], 0)
        self.assertIn("#pragma np parallel for", open(f).read())

    def test_output_file_written_atomically(self):
        f = self.write("tmv.cu", TMV)
        out = os.path.join(self.dir, "out.cu")
        self.assertEqual(run("rewrite", f, "--at", at(TMV, "for (int i = 0"), "--apply", "np-pragma", "-o", out)[0], 0)
        self.assertIn("#pragma np parallel for", open(out).read())
        self.assertEqual(open(f).read(), TMV)


SPMV = """__global__ void spmv(const int *rp, const int *col, const float *val, const float *x, float *y, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int e = rp[row]; e < rp[row + 1]; ++e)
    sum += val[e] * x[col[e]];
  y[row] = sum;
}
void run(const int *rp, const int *col, const float *val, const float *x, float *y, int rows) {
  spmv<<<(rows + 255) / 256, 256>>>(rp, col, val, x, y, rows);
}
"""

SMALL_LOCAL_LOOPS = """__global__ void poly(const float *pts, const float *coef, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float pw[8];
  float xv = pts[i];
  for (int t = 0; t < 8; t++) pw[t] = coef[t] * (1.0f + xv * (float)t);
  float total = 0.0f;
  for (int t = 0; t < 8; t++) total += pw[t];
  out[i] = total;
}
void run(const float *pts, const float *coef, float *out) { poly<<<4096, 256>>>(pts, coef, out, 1 << 20); }
"""


class Mappings(Workspace):
    """The static mapping model (docs/mapping.md) through the command line."""

    def analyze(self, path):
        rc, out, err = run("analyze", "--json", path)
        self.assertEqual(rc, 0, err)
        return json.loads(out)

    def test_analyze_json_ranks_mappings_with_their_rewrites(self):
        loop = at(SPMV, "for (int e = rp[row]")
        self.write(".nestor.yaml", 'mapping:\n  sizes: { rows: 262144, "spmv.cu:%s": 10 }\n' % loop)
        m = self.analyze(self.write("spmv.cu", SPMV))
        self.assertEqual(len(m["mappings"]), 1)
        t = m["mappings"][0]
        self.assertEqual((t["target"], t["kernel"], t["line"]), ("loop", "spmv", 5))
        self.assertEqual(t["assumptions"], [], "every size came from .nestor.yaml")
        ranked = t["ranked"]
        self.assertEqual([r["rank"] for r in ranked], sorted(r["rank"] for r in ranked))
        # Ranked by the cost model's estimated time (within 1%: ties).
        times = [r["estimate_us"] for r in sorted(ranked, key=lambda r: r["rank"])]
        self.assertTrue(all(t > 0 for t in times), times)
        self.assertTrue(all(a <= b * 1.01 for a, b in zip(times, times[1:])), times)
        self.assertGreater(t["original_estimate_us"], 0)
        # The offers that apply, in the one ranking, each with its estimate.
        offers = t["offers"]
        self.assertEqual([o["rank"] for o in offers], list(range(1, len(offers) + 1)))
        estimated = [o["estimate_us"] for o in offers if "estimate_us" in o]
        self.assertGreater(len(estimated), 10)
        self.assertEqual(estimated, sorted(estimated))
        self.assertIn("merge-path", [o["rewrite"] for o in offers])
        self.assertIn("dbuf-global", [o["rewrite"] for o in offers])
        self.assertFalse(t["keep_original"], "on 10-element power-law rows something beats one thread per row")
        # "Keep the original" in the same ranking: after the offers estimated faster, before the rest.
        faster = [e for e in estimated if e < t["original_estimate_us"]]
        self.assertEqual(t["original_rank"], len(faster) + 1)
        by_id = {r["id"]: r for r in ranked}
        # Every mapping a rewrite makes is listed, with the command and prepare()'s verdict.
        lanes8 = by_id["lanes-8"]
        self.assertEqual(sorted(r["command"] for r in lanes8["rewrites"]),
                         ["--apply np --param np_type=intra --param slaves=8", "--apply subwarp --param width=8"])
        self.assertTrue(all(r["applies"] for r in lanes8["rewrites"]))
        self.assertTrue(lanes8["reshaped"])
        self.assertEqual((lanes8["masters_per_block"], lanes8["block_threads"]), (128, 1024))
        self.assertIn("reshapes the launch", lanes8["rewrites"][0]["note"])
        self.assertEqual(by_id["warp-tasks"]["rewrites"][0]["command"], "--apply cte --param mode=auto")
        # The one-thread-per-row original ranks below lanes on an irregular loop.
        self.assertGreater(lanes8["score"], by_id["sequential"]["score"])
        self.assertLess(lanes8["estimate_us"], by_id["sequential"]["estimate_us"])
        self.assertEqual(by_id["sequential"]["estimate_us"], t["original_estimate_us"])
        self.assertTrue(lanes8["cost"])
        for c in lanes8["constraints"]:
            self.assertTrue(c["why"], c)
            self.assertIn(c["scope"], ("local", "global"))
        self.assertIn("coalescing:val[e]", [c["id"] for c in lanes8["constraints"]])
        self.assertTrue(t["best"])

    def test_sizes_change_the_ranking_and_unknown_ones_are_said(self):
        m = self.analyze(self.write("spmv.cu", SPMV))
        t = m["mappings"][0]
        self.assertEqual(len(t["assumptions"]), 2, t["assumptions"])
        self.assertIn('"spmv.cu:%s"' % at(SPMV, "for (int e = rp[row]"), t["assumptions"][1])

    def test_rewrite_list_follows_the_static_rank(self):
        loop = at(SPMV, "for (int e = rp[row]")
        self.write(".nestor.yaml", 'mapping:\n  sizes: { rows: 262144, "spmv.cu:%s": 10 }\n' % loop)
        f = self.write("spmv.cu", SPMV)
        rc, out, err = run("rewrite", f, "--at", loop, "--list")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], f"loop at line {loop}:")
        self.assertRegex(lines[1], r"^advice: original \u2248 [0-9.]+ (us|ms) \(estimate\); best: \S+ .* \u2248 [0-9.]+ (us|ms) "
                                   r"\(estimate\) \(--apply .*\); the original ranks #\d+, after the offers estimated faster$")
        original_rank = int(re.search(r"the original ranks #(\d+)", lines[1]).group(1))
        # One line per family that applies, its variants in rank order with
        # their estimates; every rank once, families in the order of their best.
        families = [l for l in lines[2:] if " #" in l]
        self.assertGreater(len(families), 5)
        ranks = [[int(r) for r in re.findall(r" #(\d+) ", l)] for l in families]
        for r in ranks:
            self.assertEqual(r, sorted(r))
        self.assertEqual([r[0] for r in ranks], sorted(r[0] for r in ranks))
        flat = sorted(x for r in ranks for x in r)
        self.assertEqual(flat, list(range(1, len(flat) + 1)))
        by_family = {l.split(":")[0]: l for l in families}
        self.assertRegex(by_family["subwarp"], r"^subwarp: #\d+ width=\d+ \u2248 [0-9.]+ (us|ms)")
        self.assertIn("dbuf-global", by_family)
        # Every loop rewrite applies to this loop: each family has its line.
        self.assertEqual(sorted(by_family), sorted(["np", "np-pragma", "cte", "subwarp", "dual-queue", "dbuf-shared",
                                                    "dbuf-global", "dpar-opt", "merge-path"]))
        self.assertFalse([l for l in lines if ": not offered" in l])
        self.assertEqual(lines[-1], f"no launch at line {loop}")
        self.assertLess(len(lines), 25, "a readable list")
        # --verbose: one line per variant, with its estimate and why; widths
        # 8-32 are reachable on a 256-thread launch: the launch is reshaped.
        rc, out, err = run("rewrite", f, "--at", loop, "--list", "--verbose")
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"subwarp \[Sub-warp decomposition, width 32 \(reshapes the launch: 8x the blocks, 32 masters "
                              r"per block\)\]: applies, rank \d+: \u2248 [0-9.]+ (us|ms) \(estimate\) \(\d")
        verbose_ranks = [int(m) for m in re.findall(r": applies, rank (\d+):", out)]
        self.assertEqual(verbose_ranks, list(range(1, len(verbose_ranks) + 1)))
        # "Keep the original" once, at its rank: right before the offer of that rank.
        vlines = out.splitlines()
        originals = [i for i, l in enumerate(vlines) if l.startswith("original [keep the original]: rank ")]
        self.assertEqual(len(originals), 1, out)
        self.assertRegex(vlines[originals[0]], r"^original \[keep the original\]: rank %d: \u2248 [0-9.]+ (us|ms) \(estimate\)$"
                         % original_rank)
        # The offer of that rank follows it, or, where every offer is
        # estimated faster, the original closes the ranked lines.
        if original_rank <= len(verbose_ranks):
            self.assertIn(": applies, rank %d:" % original_rank, vlines[originals[0] + 1])
        else:
            self.assertEqual(original_rank, len(verbose_ranks) + 1)
            self.assertIn(": applies, rank %d:" % (original_rank - 1), vlines[originals[0] - 1])
            self.assertNotIn(": applies, rank ", vlines[originals[0] + 1])

    def test_rewrite_list_keeps_the_original_when_nothing_beats_it(self):
        # Eight iterations over a thread-local array: no offer is estimated to
        # beat the original by 25%.
        f = self.write("small.cu", SMALL_LOCAL_LOOPS)
        rc, out, err = run("rewrite", f, "--at", at(SMALL_LOCAL_LOOPS, "pw[t] = coef[t]"), "--list")
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"advice: original \u2248 [0-9.]+ (us|ms) \(estimate\); keep the original: the best offer, "
                              r"np .* is not estimated to beat it by 25%")
        # Refused families: one line each, with the reason once (not once per variant).
        refused = [l for l in out.splitlines() if ": not offered" in l]
        self.assertIn("subwarp: not offered: the loop's trip count is constant, not irregular", out)
        self.assertGreaterEqual(len(refused), 6)
        for l in refused:
            reasons = l.split(": not offered: ")[1].split("; ")
            self.assertEqual(len(reasons), len(set(reasons)), l)
        self.assertEqual(len(set(l.split(":")[0] for l in refused)), len(refused))

    def test_pins_and_a_malformed_mapping_section(self):
        self.write(".nestor.yaml", "mapping:\n  pin: { placement: y }\n")
        t = self.analyze(self.write("spmv.cu", SPMV))["mappings"][0]
        self.assertTrue(all(r["placement"] == "y" for r in t["ranked"]))
        self.assertTrue(any("mapping.pin" in p["why"] for p in t["pruned"]))
        self.write(".nestor.yaml", "mapping:\n  gpu: k80\n")
        rc, _, err = run("analyze", "--json", os.path.join(self.dir, "spmv.cu"))
        self.assertEqual(rc, 2)
        self.assertIn("unknown gpu 'k80'", err)


class Misc(unittest.TestCase):
    def test_runtime_dir(self):
        rc, out, _ = run("--runtime-dir")
        self.assertEqual(rc, 0)
        self.assertTrue(os.path.isfile(os.path.join(out.strip(), "nestor", "np.cuh")))

    def test_version(self):
        rc, out, _ = run("--version")
        self.assertEqual(rc, 0)
        self.assertIn("nestor", out)

    def test_list_rules(self):
        rc, out, _ = run("lint", "--list-rules")
        self.assertEqual(rc, 0)
        self.assertIn("np-pragma-syntax (error)", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
