#!/usr/bin/env python3
"""The CI examples of docs/ci.md, run on a fixture repository (a git copy of
tests/cli/project with its compile database): the pre-commit hook's command
(docs/ci/pre-commit-config.yaml) as pre-commit runs it (entry + the staged
files its `files` pattern matches), and the GitHub Actions workflow's "Lint"
step (docs/ci/github-actions.yml), whose SARIF must validate.
Run by ctest with NESTOR=<path to nestor>."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_lint_project import PROJECT, write_database  # noqa: E402

NESTOR = os.path.abspath(os.environ["NESTOR"])
REPO = os.environ["NESTOR_REPO"]
SARIF_SCHEMA = os.path.join(REPO, "tests", "data", "sarif-schema-2.1.0.json")
PRE_COMMIT = os.path.join(REPO, "docs", "ci", "pre-commit-config.yaml")
WORKFLOW = os.path.join(REPO, "docs", "ci", "github-actions.yml")

try:
    import yaml
except ImportError:  # python3-yaml; the two files are simple enough to read by hand
    yaml = None


def hook():
    """(entry, files pattern) of the nestor-lint hook."""
    text = open(PRE_COMMIT).read()
    if yaml:
        h = yaml.safe_load(text)["repos"][0]["hooks"][0]
        return h["entry"], h["files"], h["language"]
    get = lambda key: re.search(rf"^\s+{key}: (.*)$", text, re.M).group(1).strip()
    return get("entry"), get("files"), get("language")


def lint_step():
    """The run: script of the workflow's "Lint" step."""
    text = open(WORKFLOW).read()
    if yaml:
        steps = yaml.safe_load(text)["jobs"]["lint"]["steps"]
        return next(s for s in steps if s.get("name") == "Lint")["run"]
    block = re.search(r"- name: Lint\n(?:.*\n)*?\s+run: \|\n((?:\s{10}.*\n)+)", text).group(1)
    return "\n".join(l[10:] for l in block.splitlines())


class CiExamples(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nestor-ci-")
        self.root = os.path.join(self.tmp, "repo")
        shutil.copytree(PROJECT, self.root)
        write_database(self.root)
        # nestor on PATH, as the examples expect.
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        os.symlink(NESTOR, os.path.join(self.bin, "nestor"))
        self.env = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"])
        self.git("init", "-q")
        self.git("add", "-A")
        self.git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "project")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def git(self, *args):
        return subprocess.run(["git", *args], cwd=self.root, check=True, capture_output=True, text=True).stdout

    def run_hook(self, staged):
        """What pre-commit does for a `language: system` hook: entry + matching staged files."""
        entry, files, language = hook()
        self.assertEqual(language, "system")
        matched = [f for f in staged if re.search(files, f)]
        p = subprocess.run(shlex.split(entry) + matched, cwd=self.root, env=self.env, capture_output=True, text=True,
                           timeout=300)
        return p.returncode, p.stdout, p.stderr, matched

    def test_pre_commit_hook(self):
        # The baseline as the hook's comment says to make it.
        p = subprocess.run(["nestor", "lint", "-p", "build", "--write-baseline", ".nestor-baseline.json"],
                           cwd=self.root, env=self.env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.git("add", ".nestor-baseline.json")
        # Touching a file with known findings, and a header: clean.
        with open(os.path.join(self.root, "third_party/vendor/vendor.cu"), "a") as f:
            f.write("// edited\n")
        with open(os.path.join(self.root, "Samples/2_Concepts/matVec/matVec_kernel.cuh"), "a") as f:
            f.write("// edited\n")
        self.git("add", "-A")
        staged = self.git("diff", "--cached", "--name-only").split()
        rc, out, err, matched = self.run_hook(staged)
        self.assertEqual(matched, ["Samples/2_Concepts/matVec/matVec_kernel.cuh", "third_party/vendor/vendor.cu"])
        # The header's finding is new (headers are not in the baseline the
        # database run wrote): it is reported, parsed in matVec.cu's context.
        self.assertEqual(rc, 1, err)
        self.assertRegex(out, r"^Samples/2_Concepts/matVec/matVec_kernel.cuh:\d+:3: warning: .*\[np-parallel-loop\]$")
        self.assertNotIn("parse-error", out)
        self.assertNotIn("vendor.cu", out)
        self.assertIn("1 in the baseline", err)
        # With the header's finding in the baseline, the same commit passes ...
        subprocess.run(["nestor", "lint", "-p", "build", "--header-filter", ".*", "--write-baseline",
                        ".nestor-baseline.json"], cwd=self.root, env=self.env, capture_output=True, check=True)
        rc, out, err, _ = self.run_hook(staged)
        self.assertEqual((rc, out), (0, ""), err)
        # ... and a new loop in a staged file fails it, naming only that loop.
        path = os.path.join(self.root, "Samples/0_Introduction/vectorAdd/vectorAdd.cu")
        text = open(path).read().replace("  if (i < n)", "  for (int k = 0; k < n; k++) c[i * n + k] += a[k];\n  if (i < n)")
        open(path, "w").write(text)
        self.git("add", "-A")
        rc, out, err, matched = self.run_hook(self.git("diff", "--cached", "--name-only").split() + ["README.md"])
        self.assertNotIn("README.md", matched)
        self.assertEqual(rc, 1, err)
        self.assertEqual(len(out.splitlines()), 1, out)
        self.assertRegex(out, r"^Samples/0_Introduction/vectorAdd/vectorAdd.cu:5:3: warning: .*\[np-parallel-loop\]$")
        # pre-commit itself, where it is installed.
        if shutil.which("pre-commit"):
            shutil.copy(PRE_COMMIT, os.path.join(self.root, ".pre-commit-config.yaml"))
            self.git("add", ".pre-commit-config.yaml")
            p = subprocess.run(["pre-commit", "run"], cwd=self.root, env=self.env, capture_output=True, text=True)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("vectorAdd.cu:5:3", p.stdout)

    def test_github_actions_lint_step_writes_valid_sarif(self):
        script = lint_step()
        self.assertIn("nestor lint -p build", script)
        # Without a baseline: every finding, exit 1 (the workflow goes on to upload).
        p = subprocess.run(["bash", "-e", "-c", script], cwd=self.root, env=self.env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 1, p.stderr)
        log = json.load(open(os.path.join(self.root, "nestor.sarif")))
        results = log["runs"][0]["results"]
        self.assertEqual(sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results),
                         ["Samples/2_Concepts/matVec/matVec.cu", "third_party/vendor/vendor.cu"])
        self.assertTrue(log["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"].endswith("/repo/"))
        for r in results:
            self.assertIn("nestor/v1", r["partialFingerprints"])
        try:
            import jsonschema
            jsonschema.validate(log, json.load(open(SARIF_SCHEMA)))
        except ImportError:
            pass
        # With the committed baseline: exit 0, an empty but valid log.
        subprocess.run(["nestor", "lint", "-p", "build", "--write-baseline", ".nestor-baseline.json"], cwd=self.root,
                       env=self.env, capture_output=True, check=True)
        p = subprocess.run(["bash", "-e", "-c", script], cwd=self.root, env=self.env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        log = json.load(open(os.path.join(self.root, "nestor.sarif")))
        self.assertEqual(log["runs"][0]["results"], [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
