#!/usr/bin/env python3
"""scripts/package-vsix (what `make vsix` runs): the .vsix holds the bundled
extension and its manifest, is installable (a zip with extension.vsixmanifest),
and --bundle ships a nestor binary as extension/bin/nestor, executable.
Exit 77 (skip) without npm."""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if not shutil.which("npm"):
    print("SKIP: npm is not installed (scripts/package-vsix installs Node when run by hand)")
    sys.exit(77)

failures = []


def check(cond, what):
    print(("ok: " if cond else "FAILED: ") + what)
    if not cond:
        failures.append(what)


tmp = tempfile.mkdtemp(prefix="nestor-vsix-")
try:
    out = os.path.join(tmp, "plain.vsix")
    p = subprocess.run([os.path.join(REPO, "scripts", "package-vsix"), "--out", out], capture_output=True, text=True,
                       timeout=600)
    check(p.returncode == 0, f"package-vsix exits 0 ({p.stderr[-2000:]})")
    check(p.stdout.strip() == out, "prints the path of the .vsix")
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        check({"extension.vsixmanifest", "extension/package.json", "extension/dist/extension.js"} <= names,
              f"manifest, package.json and the bundle are inside: {sorted(names)}")
        check(not any(n.startswith("extension/node_modules/") or n.startswith("extension/src/") for n in names),
              "no node_modules or sources inside")
        manifest = json.loads(z.read("extension/package.json"))
        check(manifest["name"] == "nestor" and manifest["main"] == "./dist/extension.js", "the manifest is Nestor's")
        check("extension/bin/nestor" not in names, "no binary without --bundle")

    fake = os.path.join(tmp, "nestor")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho fake nestor\n")
    os.chmod(fake, 0o755)
    out2 = os.path.join(tmp, "bundled.vsix")
    p = subprocess.run([os.path.join(REPO, "scripts", "package-vsix"), "--out", out2, "--bundle", fake],
                       capture_output=True, text=True, timeout=600)
    check(p.returncode == 0, f"package-vsix --bundle exits 0 ({p.stderr[-2000:]})")
    with zipfile.ZipFile(out2) as z:
        info = {i.filename: i for i in z.infolist()}
        check("extension/bin/nestor" in info, "--bundle puts extension/bin/nestor in the .vsix")
        if "extension/bin/nestor" in info:
            check(z.read("extension/bin/nestor").startswith(b"#!/bin/sh\necho fake nestor"), "the bundled binary is the given one")
    check(not os.path.exists(os.path.join(REPO, "editors", "vscode", "bin")), "the repository's editors/vscode has no bin/")
    p = subprocess.run([os.path.join(REPO, "scripts", "package-vsix"), "--bundle", os.path.join(tmp, "nope")],
                       capture_output=True, text=True, timeout=600)
    check(p.returncode == 2 and "not an executable file" in p.stderr, "a missing --bundle binary is a usage error")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print(f"package_vsix: {'FAILED' if failures else 'passed'} ({len(failures)} failed)")
sys.exit(1 if failures else 0)
