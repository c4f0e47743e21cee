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
  width: number;
  labelWidth: number;
  valueWidth: number;
  rowHeight: number;
  barHeight: number;
  top: number;
  axisHeight: number;
}

export const DEFAULT_GEOMETRY: ChartGeometry = {
  width: 720, labelWidth: 210, valueWidth: 120, rowHeight: 30, barHeight: 16, top: 10, axisHeight: 42,
};

const charted = (v: ProfileVariant) => v.status === 'ok' && v.median_ms !== null;

/**
 * Horizontal bar chart: one row per variant, bar length = median time,
 * whisker = interquartile range. Variants that did not run get a row with
 * their status instead of a bar, so the chart and the table list the same
 * variants in the same order.
 */
export function renderChartSvg(report: ProfileReport, g: ChartGeometry = DEFAULT_GEOMETRY): string {
  const plotLeft = g.labelWidth;
  const plotWidth = g.width - g.labelWidth - g.valueWidth;
  let maxValue = 0;
  for (const v of report.variants) {
    if (!charted(v)) continue;
    maxValue = Math.max(maxValue, v.median_ms!, v.iqr_ms ? v.iqr_ms[1] : 0);
  }
  const scaleMax = niceCeiling(maxValue);
  const x = (ms: number) => plotLeft + (ms / scaleMax) * plotWidth;
  const height = g.top + report.variants.length * g.rowHeight + g.axisHeight;
  const r = (n: number) => Number(n.toFixed(2));

  const parts: string[] = [];
  // No width/height attributes: the stylesheet scales the viewBox to the
  // panel width (capped at its natural size), so a narrow panel shows it all.
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" aria-labelledby="chart-title" ` +
    `viewBox="0 0 ${g.width} ${height}" preserveAspectRatio="xMinYMin meet">`);
  parts.push(`<title id="chart-title">Median time per variant of kernel ${escapeHtml(report.kernel)}, whiskers show the interquartile range</title>`);

  report.variants.forEach((v, i) => {
    const rowTop = g.top + i * g.rowHeight;
    const cy = rowTop + g.rowHeight / 2;
    const recommended = report.recommendation?.variant === v.name;
    parts.push(`<g class="row${recommended ? ' recommended' : ''}" data-variant="${escapeHtml(v.name)}">`);
    parts.push(`<text class="label" x="${plotLeft - 8}" y="${r(cy)}" text-anchor="end" dominant-baseline="middle">` +
      `${escapeHtml(truncate(v.name, 30))}<title>${escapeHtml(v.name)}</title></text>`);
    if (charted(v)) {
      const w = Math.max(1, x(v.median_ms!) - plotLeft);
      parts.push(`<rect class="bar${recommended ? ' recommended' : ''}" x="${plotLeft}" y="${r(cy - g.barHeight / 2)}" ` +
        `width="${r(w)}" height="${g.barHeight}"><title>${escapeHtml(v.name)}: median ${formatMs(v.median_ms!)} ms</title></rect>`);
      let valueX = plotLeft + w;
      if (v.iqr_ms) {
        const [lo, hi] = v.iqr_ms;
        const cap = g.barHeight / 2 + 2;
        parts.push(`<g class="whisker" data-lo="${lo}" data-hi="${hi}">` +
          `<line x1="${r(x(lo))}" y1="${r(cy)}" x2="${r(x(hi))}" y2="${r(cy)}"/>` +
          `<line x1="${r(x(lo))}" y1="${r(cy - cap)}" x2="${r(x(lo))}" y2="${r(cy + cap)}"/>` +
          `<line x1="${r(x(hi))}" y1="${r(cy - cap)}" x2="${r(x(hi))}" y2="${r(cy + cap)}"/>` +
          `<title>IQR ${formatMs(lo)}\u2013${formatMs(hi)} ms</title></g>`);
        valueX = Math.max(valueX, x(hi));
      }
      parts.push(`<text class="value" x="${r(valueX + 6)}" y="${r(cy)}" dominant-baseline="middle">${formatMs(v.median_ms!)} ms</text>`);
    } else {
      const why = v.reason ? `${v.status}: ${v.reason}` : v.status;
      parts.push(`<text class="status" x="${plotLeft + 4}" y="${r(cy)}" dominant-baseline="middle">` +
        `${escapeHtml(truncate(why, 60))}<title>${escapeHtml(why)}</title></text>`);
    }
    parts.push('</g>');
  });

  const axisY = g.top + report.variants.length * g.rowHeight + 4;
  parts.push(`<g class="axis"><line x1="${plotLeft}" y1="${axisY}" x2="${plotLeft + plotWidth}" y2="${axisY}"/>`);
  // Round tick steps: 2 -> 0.5 steps, 1, 2.5 and 5 -> fifths.
  const mantissa = scaleMax / Math.pow(10, Math.floor(Math.log10(scaleMax)));
  const ticks = Math.abs(mantissa - 2) < 1e-9 ? 4 : 5;
  for (let t = 0; t <= ticks; t++) {
    const ms = (scaleMax * t) / ticks;
    const tx = r(x(ms));
    parts.push(`<line x1="${tx}" y1="${axisY}" x2="${tx}" y2="${axisY + 5}"/>` +
      `<text x="${tx}" y="${axisY + 17}" text-anchor="middle">${formatMs(ms)}</text>`);
  }
  parts.push(`<text class="axis-title" x="${r(plotLeft + plotWidth / 2)}" y="${axisY + 34}" text-anchor="middle">` +
    `median time (ms); whiskers: interquartile range</text></g>`);
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
svg.chart { width: 100%; max-width: 720px; height: auto; }
svg.chart text { fill: var(--vscode-foreground, #333); font-size: 12px; font-family: var(--vscode-font-family, sans-serif); }
svg.chart .bar { fill: var(--vscode-charts-blue, #1a85ff); }
svg.chart .bar.recommended { fill: var(--vscode-charts-green, #388a34); }
svg.chart .whisker line, svg.chart .axis line { stroke: var(--vscode-foreground, #333); stroke-width: 1.2; }
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
