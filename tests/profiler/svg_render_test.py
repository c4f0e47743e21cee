#!/usr/bin/env python3
"""The SVG report rendered in headless Chromium (the one scripts/install-e2e-deps
installs for the e2e test): for results with very long variant names, times
from 0.001 ms to 60 s, failures with long reasons, eliminated and interrupted
variants, XML-special and non-ASCII names, and a failed baseline, every text,
bar and line must lie inside the view box, labels and values must not overlap
the bars, every measured variant's bar must be visible (log axis), and the
rows must be sorted fastest first with the marks the report promises.

  svg_render_test.py --runner nestor-runner --workdir DIR [--vscode-dir editors/vscode]

With --vscode-dir, the same cases also go through the VS Code extension's
report webview (editors/vscode/src/report.ts, bundled with the extension's
own esbuild): its page, with the stylesheet it ships, must pass the same
checks. That needs editors/vscode/node_modules (ctest fixture vscode_npm_ci).

Exits 77 (skipped, with the reason printed) when no Chromium is installed.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys


def timing(samples, stop_reason="settled", detail=None):
    s = sorted(samples)
    n = len(s)

    def q(p):
        pos = p * (n - 1)
        lo = int(pos)
        hi = min(lo + 1, n - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - lo)
    t = {"unit": "ms", "source": "kernel_sum", "activity_kind": "KERNEL", "median": q(0.5), "q1": q(0.25), "q3": q(0.75),
         "iqr": q(0.75) - q(0.25), "min": s[0], "max": s[-1], "mean": sum(s) / n, "stdev": 0.0,
         "relative_median_error": 0.01, "count": n, "samples": samples, "sm_clock_mhz": [None] * n, "warmup_runs": 1,
         "stop_reason": stop_reason}
    if detail:
        t["stop_detail"] = detail
    return t


def variant(vid, status="ok", samples=None, baseline=False, reason="", stop_reason="settled", detail=None):
    return {"id": vid, "baseline": baseline, "description": "", "params": {}, "status": status, "reason": reason,
            "log_tail": "", "device": 0, "from_cache": False, "cache_key": "",
            "timing": timing(samples, stop_reason, detail) if samples else None, "metrics": None, "metrics_error": None}


def results(variants, recommended=None):
    return {"schema_version": 1, "tool": "nestor-runner", "plan": "/x/plan.json", "generated_at": "2026-11-23T19:00:00Z",
            "timing_mode": "cupti",
            "environment": {"gpus": [{"index": 0, "name": "NVIDIA H100"}], "driver_version": "580", "cuda_driver_api_version": 13000,
                            "devices_assumed": False, "hostname": "h"},
            "variants": variants,
            "recommendation": {"decision": "variant" if recommended else "keep_baseline", "variant": recommended,
                               "speedup": 6.4 if recommended else None, "criterion": "c", "reason": "r"}}


def spread(m, k=7):
    return [m * (1 + 0.01 * ((i * 37) % k - k // 2)) for i in range(k)]


LONG = "threshold-2048+coarsen-8+aggregate-warp+" + "x" * 90
CASES = {
    "issue_spread": results([
        variant("baseline", samples=spread(0.9), baseline=True),
        variant("coarsen-2", samples=spread(60.0, 3), stop_reason="eliminated", detail="eliminated after 3 samples: fastest ..."),
        variant("threshold-32", samples=spread(7.0, 3), stop_reason="eliminated", detail="eliminated after 3 samples: ..."),
        variant("aggregate-warp", samples=spread(0.14)),
        variant(LONG, samples=spread(0.145)),
        variant("aggregate-grid", samples=spread(0.16, 5), stop_reason="interrupted", detail="interrupted after 5"),
        variant("wrong", status="output_mismatch", reason="output 'levels.txt' differs from the baseline: " + "token 17 " * 40),
        variant("broken", status="build_failed", reason="build exit code 1"),
        variant("tiny", samples=spread(0.001)),
    ], recommended="aggregate-warp"),
    "failed_baseline": results([
        variant("baseline", status="crashed", baseline=True, reason="run killed by signal 11 (Segmentation fault)"),
        variant("a", status="not_run", reason="the baseline run failed (crashed), so outputs cannot be checked"),
        variant("b" * 150, status="not_run", reason="the baseline run failed"),
    ]),
    "special_names": results([
        variant("baseline", samples=spread(2.0), baseline=True),
        variant("a<b>&\"c\"-ünïcødé-✓", samples=spread(1.0)),
        variant("slower", samples=spread(4.0)),
    ], recommended="a<b>&\"c\"-ünïcødé-✓"),
    "baseline_only": results([variant("baseline", samples=spread(3.0), baseline=True)]),
}

CHECK_SCRIPT = r"""
<script>
const svg = document.querySelector('svg');
if (!svg) throw new Error('no svg in the page');
const vb = svg.viewBox.baseVal;
const problems = [];
const tol = 0.5;
const box = (el) => { const b = el.getBBox(); return {x: b.x, y: b.y, r: b.x + b.width, b: b.y + b.height, w: b.width}; };
for (const el of svg.querySelectorAll('text, rect, line')) {
  if (el.getAttribute('width') === '100%') continue;
  const b = box(el);
  if (b.x < vb.x - tol || b.y < vb.y - tol || b.r > vb.x + vb.width + tol || b.b > vb.y + vb.height + tol)
    problems.push(`${el.tagName} "${(el.textContent || el.getAttribute('class') || '').slice(0, 60)}" at [${b.x.toFixed(1)}, ${b.r.toFixed(1)}] x [${b.y.toFixed(1)}, ${b.b.toFixed(1)}] outside the view box ${vb.width} x ${vb.height}`);
}
const bars = [...svg.querySelectorAll('rect.bar')].map(box);
const plotLeft = Math.min(...bars.map((b) => b.x)), plotRight = Math.max(...bars.map((b) => b.r));
for (const el of svg.querySelectorAll('text.label')) if (bars.length && box(el).r > plotLeft + tol) problems.push(`label "${el.textContent.slice(0, 40)}" runs into the bars`);
for (const el of svg.querySelectorAll('text.note, text.value')) if (bars.length && box(el).x < plotRight - tol) problems.push(`value "${el.textContent.slice(0, 40)}" runs into the bars`);
for (const el of svg.querySelectorAll('rect.bar')) if (box(el).w < 1) problems.push(`bar of ${el.parentNode.dataset.variant} is invisible`);
const rows = [...svg.querySelectorAll('g.row')].map((g) => ({variant: g.dataset.variant, cls: g.getAttribute('class'), y: box(g).y}));
const out = document.createElement('pre');
out.id = 'result';
out.textContent = JSON.stringify({problems, rows, bars: bars.length});
document.body.appendChild(out);
</script>"""


def find_chromium():
    for name in (os.environ.get("NESTOR_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def vscode_result(data):
    """A runner results file in the shape `nestor.profile` hands the extension."""
    variants = []
    for v in data["variants"]:
        t = v["timing"]
        variants.append({"name": v["id"], "status": v["status"], "reason": v["reason"] or None,
                         "median_ms": t["median"] if t else None, "iqr_ms": [t["q1"], t["q3"]] if t else None,
                         "samples": t["count"] if t else 0, "baseline": v["baseline"],
                         "stop_reason": t["stop_reason"] if t else None, "stop_detail": (t or {}).get("stop_detail")})
    rec = data["recommendation"]
    return {"kernel": "bfs_parent", "device": "NVIDIA H100", "variants": variants,
            "recommendation": {"variant": rec["variant"], "reason": rec["reason"]} if rec["variant"] else None}


def check_page(chromium, workdir, name, data, page_html):
    """Renders one page with the check script in Chromium; returns the failures."""
    failures = []
    page = os.path.join(workdir, name + ".html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(page_html)
    dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                          "--user-data-dir=" + os.path.join(workdir, "chromium-profile"),
                          "--dump-dom", "file://" + os.path.abspath(page)],
                         capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="result">(.*?)</pre>', dom.stdout, re.S)
    if not m:
        return ["%s: Chromium produced no result (exit %d): %s" % (name, dom.returncode, dom.stderr[-800:])]
    report = json.loads(m.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&"))
    failures += ["%s: %s" % (name, p) for p in report["problems"]]
    rows = report["rows"]
    if len(rows) != len(data["variants"]):
        failures.append("%s: %d rows for %d variants" % (name, len(rows), len(data["variants"])))
    # Fastest first: measured rows by descending speedup, then the ones that did not run.
    med = {v["id"]: v["timing"]["median"] for v in data["variants"] if v["timing"] and v["status"] == "ok"}
    order = [r["variant"] for r in sorted(rows, key=lambda r: r["y"])]
    measured = [v for v in order if v in med]
    if measured != sorted(measured, key=lambda v: med[v]) or order[:len(measured)] != measured:
        failures.append("%s: rows not sorted fastest first: %s" % (name, order))
    classes = {r["variant"]: r["cls"] for r in rows}
    rec = data["recommendation"]["variant"]
    if rec and "winner-row" not in classes.get(rec, ""):
        failures.append("%s: the recommended variant is not marked" % name)
    for v in data["variants"]:
        want = ("eliminated-row" if v["timing"] and v["timing"]["stop_reason"] == "eliminated"
                else "incorrect-row" if v["status"] == "output_mismatch" else "failed-row" if v["status"] != "ok" else None)
        if want and want not in classes.get(v["id"], ""):
            failures.append("%s: %s should be marked %s, has %s" % (name, v["id"][:40], want, classes.get(v["id"])))
    if name.startswith("issue_spread") and report["bars"] != 7:
        failures.append("%s: %d bars, expected 7 (every measured variant)" % (name, report["bars"]))
    print("%s: %d rows, %d bars, %d problems" % (name, len(rows), report["bars"], len(report["problems"])))
    return failures


def vscode_pages(vscode_dir, workdir):
    """The extension's report page for every case (baseline-only has no chart in it: skipped)."""
    esbuild = os.path.join(vscode_dir, "node_modules", ".bin", "esbuild")
    if not os.path.exists(esbuild):
        raise RuntimeError("%s is missing: run `npm ci` in %s (ctest: vscode_npm_ci)" % (esbuild, vscode_dir))
    bundle = os.path.join(workdir, "report.cjs")
    subprocess.run([esbuild, os.path.join(vscode_dir, "src", "report.ts"), "--bundle", "--platform=node", "--format=cjs",
                    "--log-level=warning", "--outfile=" + bundle], check=True)
    cases = {name: vscode_result(data) for name, data in CASES.items()}
    cases_file = os.path.join(workdir, "vscode-cases.json")
    with open(cases_file, "w") as f:
        json.dump(cases, f)
    out = os.path.join(workdir, "vscode")
    os.makedirs(out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["node", os.path.join(here, "..", "vscode", "render_report_pages.cjs"), bundle, cases_file, out], check=True)
    pages = {}
    for name in CASES:
        with open(os.path.join(out, name + ".html"), encoding="utf-8") as f:
            html = f.read()
        # The page's CSP allows no scripts; the check script needs one.
        html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
        pages[name] = html.replace("</body>", CHECK_SCRIPT + "</body>")
    return pages


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--vscode-dir", help="editors/vscode: also check the extension's report webview")
    args = ap.parse_args()
    chromium = find_chromium()
    if not chromium:
        print("SKIP: no Chromium found (chromium, chromium-browser, google-chrome or $NESTOR_CHROMIUM); "
              "scripts/install-e2e-deps installs it")
        return 77
    os.makedirs(args.workdir, exist_ok=True)
    failures = []
    for name, data in CASES.items():
        res = os.path.join(args.workdir, name + ".json")
        svg_path = os.path.join(args.workdir, name + ".svg")
        with open(res, "w") as f:
            json.dump(data, f)
        subprocess.run([args.runner, "--render", res, "--report", svg_path], check=True)
        with open(svg_path, encoding="utf-8") as f:
            svg = f.read()
        failures += check_page(chromium, args.workdir, name, data,
                               '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">' + svg +
                               CHECK_SCRIPT + "</body></html>")
    if args.vscode_dir and not (shutil.which("node") and shutil.which("npm")):
        print("the VS Code report page is not checked: no node/npm here (scripts/install-e2e-deps installs them)")
    elif args.vscode_dir:
        for name, html in vscode_pages(args.vscode_dir, args.workdir).items():
            failures += check_page(chromium, args.workdir, name + ".vscode", CASES[name], html)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
