#!/usr/bin/env python3
"""Keeps docs/rules/ (and docs/model.md, docs/configuration.md) in step with `nestor`.

Fails when a rule listed by `nestor lint --list-rules` has no
docs/rules/<id>.md, when a page lacks a required section or states another
default severity, when docs/rules/README.md has no row for a rule (or a row or
page for a rule that no longer exists), when a page's example does not print
exactly the output shown under it, or when a `nestor rewrite example.cu ...`
command of a page's "How to fix" section is refused. Also fails when
docs/model.md does not name a JSON field that `nestor analyze --json` or
`nestor lint --format json` prints for the fixtures, or when nestor rejects the
.nestor.yaml example of docs/configuration.md.

    check_docs.py --nestor build/cli/nestor --docs docs [--no-run]

Before checking the real pages it checks itself: each kind of defect above is
planted in a copy of the pages and must be reported.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

REQUIRED_SECTIONS = ["Example", "How to fix", "When it does not fire", "Suppress"]
LIST_LINE = re.compile(r"^(\S+) \((note|warning|error)\): (.+)$")
README_ROW = re.compile(r"^\|\s*\[([^\]]+)\]\(([^)]+)\)\s*\|\s*(\w+)\s*\|")
RUNTIME_DIR_SUBST = '"$(nestor --runtime-dir)"'


def list_rules(nestor):
    p = subprocess.run([nestor, "lint", "--list-rules"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise SystemExit(f"`{nestor} lint --list-rules` exited {p.returncode}: {p.stderr.strip()}")
    rules = {}
    for line in p.stdout.splitlines():
        m = LIST_LINE.match(line)
        if not m:
            raise SystemExit(f"unexpected line in --list-rules output: {line!r}")
        rules[m.group(1)] = m.group(2)
    if not rules:
        raise SystemExit("`nestor lint --list-rules` listed no rules")
    return rules


def parse_markdown(text):
    """Returns (title line, {section name: [lines]}, {section name: [(lang, [lines])]})
    for `## ` sections, ignoring headings inside fenced code."""
    lines = text.splitlines()
    title = lines[0] if lines else ""
    sections, blocks = {}, {}
    current, fence, fence_lang, fence_lines = None, False, "", []
    for line in lines[1:]:
        if line.startswith("```"):
            if not fence:
                fence, fence_lang, fence_lines = True, line[3:].strip(), []
            else:
                fence = False
                if current is not None:
                    blocks[current].append((fence_lang, fence_lines))
            if current is not None:
                sections[current].append(line)
            continue
        if fence:
            fence_lines.append(line)
        elif line.startswith("## "):
            current = line[3:].strip()
            sections.setdefault(current, [])
            blocks.setdefault(current, [])
            continue
        if current is not None:
            sections[current].append(line)
    return title, sections, blocks


def example_pairs(blocks):
    """(source, expected output lines) for each ```cuda block followed by a ```text block."""
    pairs, pending = [], None
    for lang, body in blocks:
        if lang == "cuda":
            pending = body
        elif lang == "text" and pending is not None:
            pairs.append(("\n".join(pending) + "\n", body))
            pending = None
    return pairs


def rewrite_commands(blocks):
    cmds = []
    for lang, body in blocks:
        if lang != "sh":
            continue
        cmds += [l.strip() for l in body if l.strip().startswith("nestor rewrite example.cu")]
    return cmds


def check_static(docs_dir, rules):
    """Everything that needs no analysis run. Returns a list of error strings."""
    errors = []
    rules_dir = os.path.join(docs_dir, "rules")
    for rule_id, severity in sorted(rules.items()):
        path = os.path.join(rules_dir, rule_id + ".md")
        if not os.path.isfile(path):
            errors.append(f"{rule_id}: no docs/rules/{rule_id}.md")
            continue
        with open(path, encoding="utf-8") as f:
            title, sections, blocks = parse_markdown(f.read())
        if title.strip() != f"# {rule_id}":
            errors.append(f"{rule_id}.md: title must be '# {rule_id}', is {title!r}")
        with open(path, encoding="utf-8") as f:
            whole = f.read()
        m = re.search(r"Default severity: \*\*(\w+)\*\*", whole)
        if not m:
            errors.append(f"{rule_id}.md: no 'Default severity: **...**' line")
        elif m.group(1) != severity:
            errors.append(f"{rule_id}.md: says default severity {m.group(1)}, nestor says {severity}")
        for s in REQUIRED_SECTIONS:
            if s not in sections:
                errors.append(f"{rule_id}.md: no '## {s}' section")
        if "Example" in sections and not example_pairs(blocks["Example"]):
            errors.append(f"{rule_id}.md: the Example section needs a ```cuda block followed by a ```text block")
        if "Suppress" in sections:
            text = "\n".join(sections["Suppress"])
            if f"nestor-ignore({rule_id})" not in text:
                errors.append(f"{rule_id}.md: Suppress section does not show nestor-ignore({rule_id})")
            if f"{rule_id}: off" not in text:
                errors.append(f"{rule_id}.md: Suppress section does not show the .nestor.yaml line '{rule_id}: off'")
    if os.path.isdir(rules_dir):
        for name in sorted(os.listdir(rules_dir)):
            if name.endswith(".md") and name != "README.md" and name[:-3] not in rules:
                errors.append(f"docs/rules/{name}: no rule '{name[:-3]}' in nestor lint --list-rules (stale page)")
    readme = os.path.join(rules_dir, "README.md")
    if not os.path.isfile(readme):
        errors.append("no docs/rules/README.md")
        return errors
    rows = {}
    with open(readme, encoding="utf-8") as f:
        for line in f:
            m = README_ROW.match(line)
            if m:
                rows[m.group(1)] = (m.group(2), m.group(3))
    for rule_id, severity in sorted(rules.items()):
        if rule_id not in rows:
            errors.append(f"README.md: no row for {rule_id}")
            continue
        link, sev = rows[rule_id]
        if link != rule_id + ".md":
            errors.append(f"README.md: {rule_id} links to {link}, not {rule_id}.md")
        if sev != severity:
            errors.append(f"README.md: {rule_id} listed as {sev}, nestor says {severity}")
    for rule_id in sorted(set(rows) - set(rules)):
        errors.append(f"README.md: row for unknown rule {rule_id}")
    return errors


def run_nestor(nestor, args, cwd):
    return subprocess.run([nestor, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def check_examples(docs_dir, rules, nestor):
    """Runs every example and rewrite command. Returns a list of error strings."""
    errors = []
    runtime_dir = run_nestor(nestor, ["--runtime-dir"], None).stdout.strip()
    for rule_id in sorted(rules):
        path = os.path.join(docs_dir, "rules", rule_id + ".md")
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            _, sections, blocks = parse_markdown(f.read())
        pairs = example_pairs(blocks.get("Example", []))
        for n, (source, expected) in enumerate(pairs, 1):
            with tempfile.TemporaryDirectory(prefix="nestor-docs-") as d:
                # An empty .nestor.yaml: default settings, and no search above d.
                open(os.path.join(d, ".nestor.yaml"), "w").close()
                with open(os.path.join(d, "example.cu"), "w") as f:
                    f.write(source)
                # `--` with no flags: default flags, no compile_commands.json lookup.
                p = run_nestor(nestor, ["lint", "--fail-on", "never", "example.cu", "--"], d)
                got = p.stdout.splitlines()
                if p.returncode != 0:
                    errors.append(f"{rule_id}.md example {n}: nestor lint exited {p.returncode}: {p.stderr.strip()}")
                elif got != expected:
                    errors.append(f"{rule_id}.md example {n}: nestor lint prints\n    " + "\n    ".join(got) +
                                  "\n  but the page shows\n    " + "\n    ".join(expected))
        if not pairs:
            continue
        for cmd in rewrite_commands(blocks.get("How to fix", [])):
            argv = shlex.split(cmd.replace(RUNTIME_DIR_SUBST, shlex.quote(runtime_dir)))[1:]
            if "--" not in argv:
                argv.append("--")
            with tempfile.TemporaryDirectory(prefix="nestor-docs-") as d:
                open(os.path.join(d, ".nestor.yaml"), "w").close()
                with open(os.path.join(d, "example.cu"), "w") as f:
                    f.write(pairs[0][0])
                p = run_nestor(nestor, argv, d)
                if p.returncode != 0:
                    errors.append(f"{rule_id}.md: `{cmd}` on the first example exited {p.returncode}: {p.stderr.strip()}")
                elif "-i" not in argv and (not p.stdout or p.stdout == pairs[0][0]):
                    errors.append(f"{rule_id}.md: `{cmd}` printed no rewritten file")
    return errors


def json_keys(value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            json_keys(v, out)
    elif isinstance(value, list):
        for v in value:
            json_keys(v, out)
    return out


MODEL_FIXTURES = ["model_kernels.cu", "dp_launch_per_thread.cu", "dp_device_sync.cu", "np_irregular_loop.cu",
                  "np_parallel_loop.cu", "np_pragma_syntax.cu", "parse_error.cu"]


def check_model_and_config_docs(docs_dir, nestor):
    """Every key `nestor analyze --json` and `nestor lint --format json` print on
    the fixtures is named in docs/model.md; the .nestor.yaml example of
    docs/configuration.md is accepted by nestor."""
    errors = []
    fixtures = os.path.join(os.path.dirname(os.path.abspath(docs_dir)), "tests", "fixtures")
    files = [os.path.join(fixtures, f) for f in MODEL_FIXTURES if os.path.isfile(os.path.join(fixtures, f))]
    model_path = os.path.join(docs_dir, "model.md")
    if not os.path.isfile(model_path):
        return ["no docs/model.md"]
    with open(model_path, encoding="utf-8") as f:
        model_doc = f.read()
    if not files:
        errors.append(f"no fixtures found in {fixtures} to check docs/model.md against")
    else:
        keys = set()
        p = run_nestor(nestor, ["analyze", "--json", *files, "--"], None)
        try:
            json_keys(json.loads(p.stdout), keys)
        except ValueError:
            errors.append(f"nestor analyze --json printed no JSON (exit {p.returncode}): {p.stderr.strip()}")
        p = run_nestor(nestor, ["lint", "--format", "json", "--fail-on", "never", *files, "--"], None)
        try:
            json_keys(json.loads(p.stdout), keys)
        except ValueError:
            errors.append(f"nestor lint --format json printed no JSON (exit {p.returncode}): {p.stderr.strip()}")
        # Names inside inline code spans (`{name, type, bytes}` names three), fenced blocks aside.
        prose = re.sub(r"^```.*?^```", "", model_doc, flags=re.S | re.M)
        documented = {w for span in re.findall(r"`([^`\n]+)`", prose) for w in re.findall(r"[A-Za-z_]\w*", span)}
        for k in sorted(keys):
            if k not in documented:
                errors.append(f"model.md: the JSON field `{k}` is not documented")
    config_path = os.path.join(docs_dir, "configuration.md")
    if not os.path.isfile(config_path):
        return errors + ["no docs/configuration.md"]
    with open(config_path, encoding="utf-8") as f:
        _, _, blocks = parse_markdown(f.read())
    yamls = [body for sec in blocks.values() for lang, body in sec if lang == "yaml"]
    if not yamls:
        errors.append("configuration.md: no ```yaml example of .nestor.yaml")
    for body in yamls:
        with tempfile.TemporaryDirectory(prefix="nestor-docs-") as d:
            with open(os.path.join(d, ".nestor.yaml"), "w") as f:
                f.write("\n".join(body) + "\n")
            with open(os.path.join(d, "k.cu"), "w") as f:
                f.write("__global__ void k(float *a) { a[threadIdx.x] = 1.0f; }\n")
            p = run_nestor(nestor, ["lint", "k.cu", "--"], d)
            if p.returncode != 0:
                errors.append(f"configuration.md: nestor lint rejects the .nestor.yaml example: {p.stderr.strip()}")
    return errors


def self_test(docs_dir, rules):
    """Plants each defect in a copy of the pages; every one must be reported."""
    def mutated(edit):
        d = tempfile.mkdtemp(prefix="nestor-docs-selftest-")
        shutil.copytree(os.path.join(docs_dir, "rules"), os.path.join(d, "rules"))
        edit(os.path.join(d, "rules"))
        errs = check_static(d, rules)
        shutil.rmtree(d)
        return errs

    some = sorted(rules)[0]

    def rewrite(path, old, new):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        assert old in text, f"self-test: {old!r} not in {path}"
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, 1))

    page = lambda r: os.path.join(r, some + ".md")
    other = "error" if rules[some] != "error" else "note"
    cases = {
        "missing page": (lambda r: os.remove(page(r)), f"no docs/rules/{some}.md"),
        "missing Example": (lambda r: rewrite(page(r), "## Example", "## Sample"), "no '## Example' section"),
        "wrong severity": (lambda r: rewrite(page(r), f"**{rules[some]}**", f"**{other}**"), "says default severity"),
        "missing README row": (lambda r: rewrite(os.path.join(r, "README.md"), f"[{some}]", "[gone]"),
                               f"no row for {some}"),
        "stale page": (lambda r: open(os.path.join(r, "no-such-rule.md"), "w").close(), "stale page"),
    }
    failures = []
    for name, (edit, expected) in cases.items():
        errs = mutated(edit)
        if not any(expected in e for e in errs):
            failures.append(f"self-test '{name}': expected an error containing {expected!r}, got {errs}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nestor", required=True, help="path of the nestor binary")
    ap.add_argument("--docs", required=True, help="the docs/ directory")
    ap.add_argument("--no-run", action="store_true", help="skip running the examples and rewrite commands")
    args = ap.parse_args()
    nestor = os.path.abspath(args.nestor)
    if not os.access(nestor, os.X_OK):
        print(f"error: {nestor} is not an executable", file=sys.stderr)
        return 2
    rules = list_rules(nestor)
    errors = check_static(args.docs, rules)
    if not errors:
        errors += self_test(args.docs, rules)
    if not errors and not args.no_run:
        errors += check_model_and_config_docs(args.docs, nestor)
        errors += check_examples(args.docs, rules, nestor)
    for e in errors:
        print("FAIL: " + e)
    print(f"{len(rules)} rules, {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
