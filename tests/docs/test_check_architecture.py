#!/usr/bin/env python3
"""check_architecture.py on small trees: what it accepts and what it reports."""
import os
import subprocess
import sys
import tempfile
import unittest

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_architecture.py")

REWRITE = '''namespace nestor {
const char *id() const override { return "%s"; }
const Rewrite &%sRewrite() { static const X r; return r; }
} // namespace nestor
'''


class CheckArchitecture(unittest.TestCase):
    def tree(self, architecture, files):
        root = tempfile.mkdtemp(prefix="nestor-arch-")
        self.addCleanup(subprocess.run, ["rm", "-rf", root])
        with open(os.path.join(root, "ARCHITECTURE.md"), "w") as f:
            f.write(architecture)
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        return root

    def check(self, root):
        r = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)
        return r.returncode, r.stdout

    REGISTRY_ROW = "| `rewriters/<name>/` | one rewrite per directory, listed in `Rewrites.def` |\n"

    def files(self, extra=None):
        files = {
            "rewriters/include/nestor/Rewrites.def": "NESTOR_REWRITE(ToyQueue)\n",
            "rewriters/toy_queue/ToyQueue.cpp": REWRITE % ("toy-queue", "ToyQueue"),
            "rewriters/toy_queue/ToyQueueHelpers.h": "// helpers\n",
            "analyzers/src/Named.cpp": "",
        }
        files.update(extra or {})
        return files

    def test_a_registered_rewrite_folder_needs_only_its_registry_line(self):
        root = self.tree("`Rewrites.def`, `Named.cpp`\n" + self.REGISTRY_ROW, self.files())
        rc, out = self.check(root)
        self.assertEqual(rc, 0, out)

    def test_without_the_registry_row_the_folder_must_be_named(self):
        root = self.tree("`Rewrites.def`, `Named.cpp`\n", self.files())
        rc, out = self.check(root)
        self.assertEqual(rc, 1)
        self.assertIn("no `rewriters/<name>/` row", out)
        self.assertIn("rewriters/toy_queue/ToyQueue.cpp is not named", out)

    def test_an_unnamed_source_file_outside_the_registry_is_reported(self):
        root = self.tree("`Rewrites.def`, `Named.cpp`\n" + self.REGISTRY_ROW,
                         self.files({"rewriters/unregistered/Helper.cpp": "", "server/src/Lost.cpp": ""}))
        rc, out = self.check(root)
        self.assertEqual(rc, 1)
        self.assertIn("rewriters/unregistered/Helper.cpp is not named", out)
        self.assertIn("server/src/Lost.cpp is not named", out)

    def test_a_named_path_that_does_not_exist_is_reported(self):
        root = self.tree("`Rewrites.def`, `Named.cpp`, `analyzers/src/Gone.cpp`\n" + self.REGISTRY_ROW, self.files())
        rc, out = self.check(root)
        self.assertEqual(rc, 1)
        self.assertIn("names `analyzers/src/Gone.cpp`, which does not exist", out)

    def test_names_that_disagree_are_reported(self):
        root = self.tree("`Rewrites.def`, `Named.cpp`\n" + self.REGISTRY_ROW,
                         self.files({"rewriters/toy_queue/ToyQueue.cpp": REWRITE % ("toy", "ToyQueue")}))
        rc, out = self.check(root)
        self.assertEqual(rc, 1)
        self.assertIn("answers the id ['toy'], expected ['toy-queue']", out)


if __name__ == "__main__":
    unittest.main()
