#!/usr/bin/env python3
"""A relocatable install: `cmake --install` into a prefix, the prefix moved
elsewhere, and the installed nestor still finds its runtime headers
(--runtime-dir, and the -isystem its parses get), its rule docs (SARIF
helpUri, the LSP's codeDescription.href) and nestor-runner, all under the
new prefix and none in the build or source tree.
Run by ctest with NESTOR_BUILD_DIR=<build tree> CMAKE=<cmake>."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

BUILD = os.environ["NESTOR_BUILD_DIR"]
CMAKE = os.environ.get("CMAKE", "cmake")
REPO = os.environ["NESTOR_REPO"]
sys.path.insert(0, os.path.join(REPO, "tests", "lsp"))
from lspclient import LspClient, file_uri  # noqa: E402

TMV = """__global__ void tmv(const float *a, const float *b, float *c, int w, int h) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float sum = 0;
  for (int i = 0; i < h; i++)
    sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}
void run(const float *a, const float *b, float *c, int w, int h) { tmv<<<w / 128, 128>>>(a, b, c, w, h); }
"""


class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="nestor-install-")
        first = os.path.join(cls.tmp, "first")
        p = subprocess.run([CMAKE, "--install", BUILD, "--prefix", first], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("cmake --install failed:\n" + p.stdout + p.stderr)
        # Relocated: nothing may remember where it was installed first.
        cls.prefix = os.path.join(cls.tmp, "moved", "nestor")
        os.makedirs(os.path.dirname(cls.prefix))
        shutil.move(first, cls.prefix)
        cls.nestor = os.path.join(cls.prefix, "bin", "nestor")
        cls.env = {k: v for k, v in os.environ.items() if k not in ("NESTOR_DOCS_DIR", "NESTOR_RUNTIME_DIR", "NESTOR_RUNNER")}
        cls.src = os.path.join(cls.tmp, "tmv.cu")
        with open(cls.src, "w") as f:
            f.write(TMV)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_nestor(self, *args):
        p = subprocess.run([self.nestor, *args], capture_output=True, text=True, env=self.env, cwd=self.tmp, timeout=300)
        return p.returncode, p.stdout, p.stderr

    def test_layout(self):
        for rel in ("bin/nestor", "bin/nestor-runner", "include/nestor/dp.cuh", "include/nestor/np.cuh",
                    "share/doc/nestor/rules/README.md", "share/doc/nestor/rules/np-parallel-loop.md"):
            self.assertTrue(os.path.exists(os.path.join(self.prefix, rel)), rel)
        # The tests' device probe is not runtime API (issue 25).
        self.assertFalse(os.path.exists(os.path.join(self.prefix, "include/nestor/gpu_test.cuh")))

    def test_runtime_dir(self):
        rc, out, err = self.run_nestor("--runtime-dir")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.strip(), os.path.join(self.prefix, "include"))

    def test_sarif_help_uri_points_at_the_installed_docs(self):
        rc, out, err = self.run_nestor("lint", "--format", "sarif", self.src)
        self.assertEqual(rc, 1, err)
        rules = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
        self.assertEqual(len(rules), 10)
        docs = "file://" + os.path.join(self.prefix, "share", "doc", "nestor", "rules") + "/"
        for r in rules:
            self.assertEqual(r["helpUri"], docs + r["id"] + ".md")
            self.assertTrue(os.path.isfile(r["helpUri"][len("file://"):]), r["helpUri"])

    def test_rewrites_parse_with_the_installed_runtime(self):
        # An np rewrite includes <nestor/np.cuh>; analysing its output needs the
        # -isystem the installed nestor adds for its own headers.
        rc, out, err = self.run_nestor("rewrite", self.src, "--at", str(TMV[:TMV.index("for (int")].count("\n") + 1), "--apply", "np", "--param", "slaves=4",
                                       "--param", "np_type=inter", "-o", os.path.join(self.tmp, "tmv_np.cu"))
        self.assertEqual(rc, 0, err)
        self.assertIn("#include <nestor/", open(os.path.join(self.tmp, "tmv_np.cu")).read())
        rc, out, err = self.run_nestor("lint", "--fail-on", "never", "--format", "json", os.path.join(self.tmp, "tmv_np.cu"))
        self.assertEqual(rc, 0, err)
        rules = [f["rule"] for f in json.loads(out)["files"][0]["findings"]]
        self.assertNotIn("parse-error", rules)
        # It is the installed copy that is read, not the source tree's: a copy
        # of the install without np.cuh cannot parse the rewritten file.
        included = re.findall(r"#include <(nestor/[a-z_]+\.cuh)>", open(os.path.join(self.tmp, "tmv_np.cu")).read())
        self.assertTrue(included)
        broken = os.path.join(self.tmp, "broken")
        shutil.copytree(self.prefix, broken, symlinks=True)
        for h in included:
            os.remove(os.path.join(broken, "include", h))
        p = subprocess.run([os.path.join(broken, "bin", "nestor"), "lint", "--fail-on", "never", "--format", "json",
                            os.path.join(self.tmp, "tmv_np.cu")], capture_output=True, text=True, env=self.env)
        rules = [f["rule"] for f in json.loads(p.stdout)["files"][0]["findings"]]
        self.assertIn("parse-error", rules)

    def test_lsp_rule_links_point_at_the_installed_docs(self):
        client = LspClient([self.nestor, "lsp"], cwd=self.tmp, env=self.env)
        try:
            client.request("initialize", {"processId": None, "rootUri": file_uri(self.tmp), "capabilities": {}})
            client.notify("initialized", {})
            uri = file_uri(self.src)
            client.notify("textDocument/didOpen",
                          {"textDocument": {"uri": uri, "languageId": "cuda-cpp", "version": 1, "text": TMV}})
            diags = client.wait_diagnostics(uri, timeout=120)["diagnostics"]
            loops = [d for d in diags if d.get("code") == "np-parallel-loop"]
            self.assertTrue(loops, diags)
            href = loops[0]["codeDescription"]["href"]
            self.assertEqual(href, "file://" + os.path.join(self.prefix, "share/doc/nestor/rules/np-parallel-loop.md"))
        finally:
            client.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
