#!/usr/bin/env python3
"""ARCHITECTURE.md stays true to the tree (issue 25):

  1. every path it names in backquotes exists (a `{a,b}` group names each
     member; `<name>` placeholders and globs are skipped);
  2. every source file of the code folders is named, by its path, by its
     file name, or by its folder (a path ending in `/`); the folder of a
     rewrite is named by its line in the registry, Rewrites.def, which the
     `rewriters/<name>/` row of ARCHITECTURE.md names as the list of them
     (so a new rewrite is one folder plus one registry line);
  3. each rewrite of rewriters/include/nestor/Rewrites.def agrees across
     names: NESTOR_REWRITE(DualQueue) lives in rewriters/dual_queue/DualQueue.cpp,
     defines `const Rewrite &DualQueueRewrite()` in namespace nestor and
     answers the id `dual-queue`.

Exit status 1 with one line per problem."""
import argparse
import os
import re
import sys

CODE_DIRS = ["analyzers", "rewriters", "server", "cli", "profiler", "runtime/include"]
SOURCE_EXT = (".cpp", ".h", ".cuh", ".def")


# The one rewrite whose id is not its folder's: `np` is the id of CUDA-NP in
# the CLI, plans and users' configurations since the first release.
ID_EXCEPTIONS = {"CudaNp": "np"}


def snake(camel):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def expand(path):
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    out = []
    for alt in m.group(1).split(","):
        out += expand(path[: m.start()] + alt.strip() + path[m.end():])
    return out


def named_paths(text):
    """Backquoted words that look like repository paths."""
    paths = set()
    for word in re.findall(r"`([^`\s]+)`", text):
        if "/" not in word or word.startswith(("-", "http", "#")) or "<" in word or "*" in word:
            continue
        if word.startswith(("llvm/", "nestor/", "bin/", "include/", "share/")) or "::" in word or "(" in word or word == "/":
            continue  # an include of LLVM's or of an installed header, the install layout, a symbol
        paths.update(expand(word))
    return paths


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    root = ap.parse_args().root
    with open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8") as f:
        text = f.read()
    problems = []

    # The rewrites of the registry and their folders.
    with open(os.path.join(root, "rewriters/include/nestor/Rewrites.def"), encoding="utf-8") as f:
        names = re.findall(r"^NESTOR_REWRITE\((\w+)\)", f.read(), re.M)
    folders = {}
    for name in names:
        folder = snake(name)
        if not os.path.isdir(os.path.join(root, "rewriters", folder)):
            folder = name.lower()  # SubWarp in subwarp/: one word
        folders[name] = folder
    registry_row = re.search(r"^\| `rewriters/<name>/` \|[^\n]*`Rewrites\.def`", text, re.M)
    if not registry_row:
        problems.append("ARCHITECTURE.md has no `rewriters/<name>/` row naming `Rewrites.def` as the list of rewrites")
    registered = {"rewriters/" + f for f in folders.values()} if registry_row else set()

    # 1. Named paths exist: relative to the root, or to a folder the same line names.
    for line in text.splitlines():
        bases = [p for p in named_paths(line) if p.endswith("/")]
        for p in sorted(named_paths(line)):
            candidates = [os.path.join(root, p)] + [os.path.join(root, b, p) for b in bases]
            candidates += [os.path.join(root, d, p) for d in ("rewriters", "analyzers", "tests", "profiler", "runtime/include")]
            if not any(os.path.exists(c.rstrip("/")) for c in candidates):
                problems.append(f"ARCHITECTURE.md names `{p}`, which does not exist")

    # 2. Every source file is named.
    words = set(re.findall(r"[\w./+-]+", text))
    words |= {os.path.basename(w.rstrip(".")) for w in words}
    for d in CODE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            rel_dir = os.path.relpath(dirpath, root)
            if "/tests" in rel_dir or rel_dir.endswith("tests"):
                continue
            for f in files:
                if not f.endswith(SOURCE_EXT):
                    continue
                rel = os.path.join(rel_dir, f)
                stem = os.path.splitext(f)[0]
                folder_named = any(
                    (rel_dir + "/").endswith(w) and w.endswith("/") and len(w) > 1 for w in words
                ) or (os.path.basename(rel_dir) + "/") in words
                        # A header goes with its implementation (Variance.h with
                # Variance.cpp), an implementation with its public header.
                partner = (stem + ".cpp" in words) if f.endswith(".h") else (stem + ".h" in words)
                if rel in words or f in words or stem in words or folder_named or partner or rel_dir in registered:
                    continue
                problems.append(f"{rel} is not named in ARCHITECTURE.md")

    # 3. Rewrites: folder, file, function, namespace, id agree.
    if not names:
        problems.append("Rewrites.def lists no rewrite")
    for name in names:
        folder = folders[name]
        rid = ID_EXCEPTIONS.get(name, folder.replace("_", "-"))
        src = os.path.join(root, "rewriters", folder, name + ".cpp")
        if not os.path.exists(src):
            problems.append(f"NESTOR_REWRITE({name}): rewriters/{folder}/{name}.cpp does not exist")
            continue
        with open(src, encoding="utf-8") as f:
            code = f.read()
        if not re.search(r"const Rewrite &" + name + r"Rewrite\(\)", code):
            problems.append(f"rewriters/{folder}/{name}.cpp does not define `const Rewrite &{name}Rewrite()`")
        if not re.search(r"^namespace nestor \{", code, re.M):
            problems.append(f"rewriters/{folder}/{name}.cpp does not define its rewrite in namespace nestor")
        ids = re.findall(r'const char \*id\(\) const override \{ return "([^"]+)"; \}', code)
        if ids != [rid]:
            problems.append(f"rewriters/{folder}/{name}.cpp answers the id {ids or 'none'}, expected [{rid!r}]")

    for p in problems:
        print(p)
    print(f"check_architecture: {len(problems)} problem(s), {len(names)} rewrites checked")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
