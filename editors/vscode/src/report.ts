// Parses the result of the server's `nestor.profile` command and renders it as
// a self-contained HTML page (an SVG bar chart plus the table behind it) for a
// webview. Pure: no `vscode` import, so `node --test` covers it.
//
// Every string that comes from the server (kernel and variant names, reasons,
// device names, error messages) is escaped before it is put in the page, and
// the page carries a CSP that allows no scripts and only the nonce'd style
// block: a kernel named `<img onerror=...>` must show up as text.

export interface ProfileVariant {
  name: string;
  status: string;
  reason: string | null;
  median_ms: number | null;
  iqr_ms: [number, number] | null;
  samples: number;
  /** The variant the others are compared with (speedups are over it). */
  baseline: boolean;
  /** Why timing stopped: settled, max_samples, time_limit, eliminated (racing), interrupted. */
  stop_reason: string | null;
  stop_detail: string | null;
}

export interface ProfileReport {
  kernel: string;
  device: string | null;
  variants: ProfileVariant[];
  recommendation: { variant: string; reason: string } | null;
}

export type ParsedProfileResult =
  | { kind: 'report'; report: ProfileReport; warnings: string[] }
  | { kind: 'error'; message: string; candidates: string[] }
  | { kind: 'invalid'; message: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function finiteNonNegative(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
}

function describeCandidate(c: unknown): string {
  if (typeof c === 'string') return c;
  if (isRecord(c) && typeof c.name === 'string') {
    const detail = typeof c.reason === 'string' ? c.reason : typeof c.description === 'string' ? c.description : '';
    return detail ? `${c.name}: ${detail}` : c.name;
  }
  return JSON.stringify(c);
}

/**
 * Accepts the command result as an object or as a JSON string. Malformed
 * fields inside an otherwise valid report are dropped with a warning rather
 * than failing the whole report, so one bad number does not hide the rest.
 */
export function parseProfileResult(value: unknown): ParsedProfileResult {
  let data = value;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch (e) {
      return { kind: 'invalid', message: `the server's profile result is not JSON: ${(e as Error).message}` };
    }
  }
  if (!isRecord(data)) {
    return { kind: 'invalid', message: `the server's profile result is ${data === null ? 'null' : Array.isArray(data) ? 'an array' : typeof data}, not an object` };
  }
  if (typeof data.error === 'string') {
    const candidates = Array.isArray(data.candidates) ? data.candidates.map(describeCandidate) : [];
    return { kind: 'error', message: data.error, candidates };
  }
  if (typeof data.kernel !== 'string') {
    return { kind: 'invalid', message: 'the profile result has neither "error" nor a string "kernel"' };
  }
  if (!Array.isArray(data.variants)) {
    return { kind: 'invalid', message: 'the profile result has no "variants" array' };
  }

  const warnings: string[] = [];
  const variants: ProfileVariant[] = [];
  data.variants.forEach((v: unknown, i: number) => {
    if (!isRecord(v) || typeof v.name !== 'string') {
      warnings.push(`variant #${i + 1} has no name; skipped`);
      return;
    }
    let median = finiteNonNegative(v.median_ms);
    if (v.median_ms !== null && v.median_ms !== undefined && median === null) {
      warnings.push(`variant ${v.name}: median_ms ${JSON.stringify(v.median_ms)} is not a non-negative number; ignored`);
    }
    let iqr: [number, number] | null = null;
    if (Array.isArray(v.iqr_ms) && v.iqr_ms.length === 2) {
      const lo = finiteNonNegative(v.iqr_ms[0]);
      const hi = finiteNonNegative(v.iqr_ms[1]);
      if (lo !== null && hi !== null && lo <= hi) iqr = [lo, hi];
    }
    if (v.iqr_ms !== null && v.iqr_ms !== undefined && iqr === null) {
      warnings.push(`variant ${v.name}: iqr_ms ${JSON.stringify(v.iqr_ms)} is not [lo, hi] with 0 <= lo <= hi; ignored`);
    }
    const status = typeof v.status === 'string' ? v.status : 'unknown';
    if (status !== 'ok' && median !== null) {
      // A failed variant's timing, if any, is not comparable; keep it in the
      // table but do not draw it as a competitor.
      warnings.push(`variant ${v.name}: status "${status}" but a median was given; not charted`);
    }
    variants.push({
      name: v.name,
      status,
      reason: typeof v.reason === 'string' ? v.reason : null,
      median_ms: median,
      iqr_ms: iqr,
      samples: typeof v.samples === 'number' && Number.isInteger(v.samples) && v.samples >= 0 ? v.samples : 0,
      // Older servers send no flag: their baseline is the variant named "baseline".
      baseline: typeof v.baseline === 'boolean' ? v.baseline : v.name === 'baseline',
      stop_reason: typeof v.stop_reason === 'string' ? v.stop_reason : null,
      stop_detail: typeof v.stop_detail === 'string' && v.stop_detail !== '' ? v.stop_detail : null,
    });
  });

  let recommendation: ProfileReport['recommendation'] = null;
  if (isRecord(data.recommendation) && typeof data.recommendation.variant === 'string') {
    recommendation = {
      variant: data.recommendation.variant,
      reason: typeof data.recommendation.reason === 'string' ? data.recommendation.reason : '',
    };
  }

  return {
    kind: 'report',
    report: {
      kernel: data.kernel,
      device: typeof data.device === 'string' ? data.device : null,
      variants,
      recommendation,
    },
    warnings,
  };
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;');
}

/** Milliseconds with 3 significant digits (at least), e.g. 0.0123, 1.23, 123. */
export function formatMs(ms: number): string {
  if (ms === 0) return '0';
  if (ms >= 100) return ms.toFixed(0);
  return Number(ms.toPrecision(3)).toString();
}

/** Smallest "nice" number (1, 2, 2.5 or 5 times a power of ten) >= x. */
export function niceCeiling(x: number): number {
  if (!(x > 0)) return 1;
  const power = Math.pow(10, Math.floor(Math.log10(x)));
  for (const m of [1, 2, 2.5, 5, 10]) {
    if (m * power >= x * (1 - 1e-12)) return m * power;
  }
  return 10 * power;
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : s.slice(0, max - 1) + '\u2026';
}

export interface ChartGeometry {
  fontSize: number;
  /** Advance of one character of the chart's monospace font, in em (DejaVu Sans Mono: 0.60). */
  charEm: number;
  plotWidth: number;
  rowHeight: number;
  barHeight: number;
  top: number;
  axisHeight: number;
  pad: number;
}

export const DEFAULT_GEOMETRY: ChartGeometry = {
  fontSize: 12, charEm: 0.62, plotWidth: 360, rowHeight: 26, barHeight: 14, top: 12, axisHeight: 46, pad: 12,
};

const charted = (v: ProfileVariant) => v.status === 'ok' && v.median_ms !== null && v.median_ms > 0;

interface ChartRow {
  v: ProfileVariant;
  value: number | null; // speedup (or ms without a baseline timing)
  low: number;
  high: number;
  note: string;
  cls: string;
}

/** Width of a text in the chart's monospace font (code points, not UTF-16 units). */
export function textWidth(text: string, g: ChartGeometry = DEFAULT_GEOMETRY): number {
  return [...text].length * g.charEm * g.fontSize;
}

/**
 * Horizontal bar chart, one row per variant, fastest first: the speedup over
 * the baseline on a log axis (a 0.14 ms winner and a 60 ms loser both stay
 * visible), whiskers for the interquartile range, a dashed line at 1x. The
 * recommended variant, the baseline, variants racing eliminated and failed or
 * incorrect ones are marked. Without a baseline timing it shows median times
 * (log axis). The view box is computed from the text (monospace), so names and
 * values of any length are never cut off.
 */
export function renderChartSvg(report: ProfileReport, g: ChartGeometry = DEFAULT_GEOMETRY): string {
  const base = report.variants.find((v) => v.baseline && charted(v)) ?? null;
  const speedup = base !== null;
  const winner = report.recommendation?.variant;
  const rows: ChartRow[] = report.variants.map((v) => {
    if (!charted(v)) {
      const incorrect = v.status === 'output_mismatch';
      const why = (incorrect ? 'incorrect' : v.status) + (v.reason ? `: ${v.reason}` : '');
      return { v, value: null, low: 0, high: 0, note: truncate(why, 90), cls: incorrect ? 'incorrect' : 'failed' };
    }
    const m = v.median_ms!;
    const [q1, q3] = v.iqr_ms ?? [m, m];
    const value = speedup ? base!.median_ms! / m : m;
    const low = speedup ? base!.median_ms! / Math.max(q3, 1e-12) : Math.max(q1, 1e-12);
    const high = speedup ? (q1 > 0 ? base!.median_ms! / q1 : value) : Math.max(q3, m);
    let note = speedup ? `${value.toFixed(value < 10 ? 2 : 1)}x  ${formatMs(m)} ms` : `${formatMs(m)} ms`;
    const recommended = winner === v.name;
    const eliminated = v.stop_reason === 'eliminated';
    const interrupted = v.stop_reason === 'interrupted';
    if (recommended) note += '  recommended';
    if (eliminated) note += `  eliminated after ${v.samples} sample${v.samples === 1 ? '' : 's'}`;
    if (interrupted) note += `  interrupted after ${v.samples} samples`;
    const cls = recommended ? 'winner' : v.baseline ? 'baseline' : eliminated ? 'eliminated' : interrupted ? 'interrupted' : 'ok';
    return { v, value, low: Math.min(low, value), high: Math.max(high, value), note, cls };
  });
  rows.sort((a, b) => {
    if ((a.value === null) !== (b.value === null)) return a.value === null ? 1 : -1;
    if (a.value === null || b.value === null) return 0;
    return speedup ? b.value - a.value : a.value - b.value;
  });

  let lo = speedup ? 1 : Infinity;
  let hi = speedup ? 1 : 0;
  for (const r of rows) {
    if (r.value === null) continue;
    lo = Math.min(lo, r.low);
    hi = Math.max(hi, r.high);
  }
  if (!Number.isFinite(lo) || !(lo > 0)) lo = 1;
  if (!(hi > 0)) hi = 1;
  const loExp = Math.floor(Math.log10(lo) + 1e-9);
  let hiExp = Math.ceil(Math.log10(hi) - 1e-9);
  if (hiExp <= loExp) hiExp = loExp + 1;

  const labels = rows.map((r) => r.v.name + (r.v.baseline && r.v.name !== 'baseline' ? ' (baseline)' : ''));
  const title = speedup ? `speedup over the baseline (log scale, ${formatMs(base!.median_ms!)} ms = 1x); whiskers: IQR`
    : 'median time in ms (log scale; no baseline timing, so no speedups); whiskers: IQR';
  const labelWidth = Math.max(4 * g.charEm * g.fontSize, ...labels.map((l) => textWidth(l, g)));
  const noteWidth = Math.max(0, ...rows.map((r) => textWidth(r.note, g)));
  const plotLeft = g.pad + labelWidth + 10;
  const plotRight = plotLeft + g.plotWidth;
  const noteX = plotRight + 10;
  const width = Math.ceil(Math.max(noteX + noteWidth + g.pad, plotLeft + textWidth(title, g) / 2 + g.plotWidth / 2 + g.pad,
    g.pad + textWidth(title, g) + g.pad));
  const axisY = g.top + rows.length * g.rowHeight + 4;
  const height = Math.ceil(axisY + g.axisHeight);
  const x = (value: number) => {
    const position = (Math.log10(Math.max(value, 1e-300)) - loExp) / (hiExp - loExp);
    return plotLeft + Math.min(1, Math.max(0, position)) * g.plotWidth;
  };
  const r2 = (n: number) => Number(n.toFixed(2));

  const parts: string[] = [];
  // No width/height attributes: the stylesheet scales the viewBox to the
  // panel width, so a narrow panel shows it all, smaller.
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" aria-labelledby="chart-title" ` +
    `viewBox="0 0 ${width} ${height}" preserveAspectRatio="xMinYMin meet">`);
  parts.push(`<title id="chart-title">${speedup ? 'Speedup over the baseline' : 'Median time'} per variant of kernel ` +
    `${escapeHtml(report.kernel)}, fastest first, log scale; whiskers show the interquartile range</title>`);
  if (speedup) {
    parts.push(`<line class="unity" x1="${r2(x(1))}" y1="${g.top - 4}" x2="${r2(x(1))}" y2="${axisY}"/>`);
  }
  rows.forEach((row, i) => {
    const rowTop = g.top + i * g.rowHeight;
    const cy = rowTop + g.rowHeight / 2;
    const v = row.v;
    parts.push(`<g class="row ${row.cls}-row" data-variant="${escapeHtml(v.name)}">`);
    parts.push(`<text class="label" x="${r2(plotLeft - 8)}" y="${r2(cy)}" text-anchor="end" dominant-baseline="middle">` +
      `${escapeHtml(labels[i])}</text>`);
    if (row.value !== null) {
      const from = speedup ? x(1) : plotLeft;
      const to = x(row.value);
      const w = Math.max(1, Math.abs(to - from));
      parts.push(`<rect class="bar ${row.cls}" x="${r2(Math.min(from, to))}" y="${r2(cy - g.barHeight / 2)}" ` +
        `width="${r2(w)}" height="${g.barHeight}"><title>${escapeHtml(v.name)}: median ${formatMs(v.median_ms!)} ms` +
        `${v.stop_detail ? '; ' + escapeHtml(v.stop_detail) : ''}</title></rect>`);
      const cap = g.barHeight / 2 + 2;
      const a = x(row.low);
      const b = x(row.high);
      parts.push(`<g class="whisker" data-lo="${row.low}" data-hi="${row.high}">` +
        `<line x1="${r2(a)}" y1="${r2(cy)}" x2="${r2(b)}" y2="${r2(cy)}"/>` +
        `<line x1="${r2(a)}" y1="${r2(cy - cap)}" x2="${r2(a)}" y2="${r2(cy + cap)}"/>` +
        `<line x1="${r2(b)}" y1="${r2(cy - cap)}" x2="${r2(b)}" y2="${r2(cy + cap)}"/></g>`);
      parts.push(`<text class="value" x="${r2(noteX)}" y="${r2(cy)}" dominant-baseline="middle">${escapeHtml(row.note)}</text>`);
    } else {
      parts.push(`<text class="status" x="${r2(noteX)}" y="${r2(cy)}" dominant-baseline="middle">` +
        `${escapeHtml(row.note)}<title>${escapeHtml(v.reason ?? v.status)}</title></text>`);
    }
    parts.push('</g>');
  });

  parts.push(`<g class="axis"><line x1="${r2(plotLeft)}" y1="${axisY}" x2="${r2(plotRight)}" y2="${axisY}"/>`);
  const fine = hiExp - loExp <= 2;
  for (let e = loExp; e <= hiExp; e++) {
    for (const m of [1, 2, 5]) {
      if (m !== 1 && (!fine || e === hiExp)) continue;
      const value = m * Math.pow(10, e);
      const tx = r2(x(value));
      parts.push(`<line x1="${tx}" y1="${axisY}" x2="${tx}" y2="${axisY + 5}"/>` +
        `<text class="tick" x="${tx}" y="${axisY + 17}" text-anchor="middle">${formatMs(value)}${speedup ? 'x' : ''}</text>`);
    }
  }
  parts.push(`<text class="axis-title" x="${r2(g.pad)}" y="${axisY + 36}">${escapeHtml(title)}</text></g>`);
  parts.push('</svg>');
  return parts.join('');
}

export function renderTableHtml(report: ProfileReport): string {
  const rows = report.variants.map((v) => {
    const recommended = report.recommendation?.variant === v.name;
    const iqr = v.iqr_ms ? `${formatMs(v.iqr_ms[0])}\u2013${formatMs(v.iqr_ms[1])}` : '\u2014';
    return `<tr${recommended ? ' class="recommended"' : ''}>` +
      `<td>${escapeHtml(v.name)}${recommended ? ' <span class="badge">recommended</span>' : ''}</td>` +
      `<td class="status-${escapeHtml(v.status.replace(/[^a-z0-9_-]/gi, '_'))}">${escapeHtml(v.status)}</td>` +
      `<td class="num">${v.median_ms !== null ? formatMs(v.median_ms) : '\u2014'}</td>` +
      `<td class="num">${iqr}</td>` +
      `<td class="num">${v.samples}</td>` +
      `<td>${v.reason !== null ? escapeHtml(v.reason) : ''}</td></tr>`;
  });
  return '<table class="variants"><thead><tr><th>Variant</th><th>Status</th><th>Median (ms)</th>' +
    '<th>IQR (ms)</th><th>Samples</th><th>Reason</th></tr></thead><tbody>' + rows.join('') + '</tbody></table>';
}

export interface PageOptions {
  /** Random per-render value; the only style block allowed by the CSP carries it. */
  nonce: string;
}

const STYLE = `
body { font-family: var(--vscode-font-family, sans-serif); color: var(--vscode-foreground, #333); padding: 0 16px 16px; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; }
code { font-family: var(--vscode-editor-font-family, monospace); }
.recommendation { border-left: 4px solid var(--vscode-charts-green, #388a34); padding: 4px 12px; margin: 12px 0; }
.error { border-left: 4px solid var(--vscode-errorForeground, #e51400); padding: 4px 12px; }
.warnings { color: var(--vscode-descriptionForeground, #717171); font-size: 0.9em; }
svg.chart { width: 100%; height: auto; }
svg.chart text { fill: var(--vscode-foreground, #333); font-size: 12px; font-family: 'DejaVu Sans Mono', 'Liberation Mono', monospace; }
svg.chart .bar { fill: var(--vscode-charts-blue, #1a85ff); }
svg.chart .bar.winner { fill: var(--vscode-charts-green, #388a34); }
svg.chart .bar.baseline { fill: var(--vscode-disabledForeground, #888); }
svg.chart .bar.eliminated, svg.chart .bar.interrupted { fill: var(--vscode-charts-blue, #1a85ff); fill-opacity: 0.35; }
svg.chart .whisker line, svg.chart .axis line { stroke: var(--vscode-foreground, #333); stroke-width: 1.2; }
svg.chart .unity { stroke: var(--vscode-foreground, #333); stroke-dasharray: 3 3; stroke-opacity: 0.6; }
svg.chart .status { fill: var(--vscode-errorForeground, #e51400); font-style: italic; }
table.variants { border-collapse: collapse; margin-top: 12px; }
table.variants th, table.variants td { border: 1px solid var(--vscode-panel-border, #ccc); padding: 3px 8px; text-align: left; }
table.variants td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.variants tr.recommended td { font-weight: bold; }
.badge { font-size: 0.8em; border-radius: 3px; padding: 0 4px; background: var(--vscode-badge-background, #4d4d4d); color: var(--vscode-badge-foreground, #fff); }
`;

function page(title: string, body: string, opts: PageOptions): string {
  if (!/^[A-Za-z0-9+/=]{8,}$/.test(opts.nonce)) {
    throw new Error('renderReportHtml: nonce must be at least 8 base64 characters');
  }
  return '<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">' +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${opts.nonce}'; img-src data:;">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1.0">' +
    `<title>${escapeHtml(title)}</title><style nonce="${opts.nonce}">${STYLE}</style></head><body>${body}</body></html>`;
}

export function renderReportHtml(result: ParsedProfileResult, opts: PageOptions): string {
  if (result.kind === 'invalid') {
    return page('Nestor profile', `<h1>Nestor profile</h1><div class="error"><p>Could not read the report: ${escapeHtml(result.message)}</p></div>`, opts);
  }
  if (result.kind === 'error') {
    const candidates = result.candidates.length
      ? `<h2>Variants that would be profiled</h2><ul>${result.candidates.map((c) => `<li>${escapeHtml(c)}</li>`).join('')}</ul>`
      : '';
    return page('Nestor profile', `<h1>Nestor profile</h1><div class="error"><p>Profiling did not run: ${escapeHtml(result.message)}</p></div>${candidates}`, opts);
  }
  const rep = result.report;
  const parts: string[] = [];
  parts.push(`<h1>Profile of kernel <code>${escapeHtml(rep.kernel)}</code></h1>`);
  parts.push(`<p>Device: ${rep.device !== null ? escapeHtml(rep.device) : '<em>unknown</em>'}</p>`);
  if (rep.recommendation) {
    parts.push(`<section class="recommendation"><h2>Recommendation</h2><p><strong>${escapeHtml(rep.recommendation.variant)}</strong>` +
      `${rep.recommendation.reason ? ': ' + escapeHtml(rep.recommendation.reason) : ''}</p></section>`);
  }
  if (rep.variants.length === 0) {
    parts.push('<p>The server returned no variants.</p>');
  } else {
    parts.push(`<figure>${renderChartSvg(rep)}</figure>`);
    parts.push(renderTableHtml(rep));
  }
  if (result.warnings.length) {
    parts.push(`<div class="warnings"><p>Some fields of the report were malformed:</p><ul>${result.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul></div>`);
  }
  return page(`Nestor profile: ${rep.kernel}`, parts.join(''), opts);
}
