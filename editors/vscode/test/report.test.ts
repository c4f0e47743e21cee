import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { DEFAULT_GEOMETRY, escapeHtml, formatMs, niceCeiling, parseProfileResult, renderChartSvg, renderReportHtml, renderTableHtml, textWidth } from '../src/report';

const NONCE = 'dGVzdG5vbmNlMTIzNDU2Nw==';

const sample = {
  kernel: 'tmv',
  device: 'NVIDIA H100 80GB HBM3',
  variants: [
    { name: 'baseline', status: 'ok', reason: null, median_ms: 2.0, iqr_ms: [1.9, 2.2], samples: 30 },
    { name: 'CUDA-NP: 4 slaves, inter-warp', status: 'ok', reason: null, median_ms: 0.5, iqr_ms: [0.45, 0.6], samples: 30 },
    { name: 'DP launch per thread', status: 'failed', reason: 'launch out of resources', median_ms: null, iqr_ms: null, samples: 0 },
  ],
  recommendation: { variant: 'CUDA-NP: 4 slaves, inter-warp', reason: '4.0x faster than baseline' },
};

function parsedSample() {
  const p = parseProfileResult(sample);
  assert.equal(p.kind, 'report');
  return p as Extract<typeof p, { kind: 'report' }>;
}

test('escapeHtml escapes the five HTML-special characters', () => {
  assert.equal(escapeHtml(`<a href="x" onclick='y'>&</a>`), '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
});

test('formatMs and niceCeiling', () => {
  assert.equal(formatMs(0), '0');
  assert.equal(formatMs(0.012345), '0.0123');
  assert.equal(formatMs(1.23456), '1.23');
  assert.equal(formatMs(123.4), '123');
  assert.equal(niceCeiling(2.2), 2.5);
  assert.equal(niceCeiling(0.6), 1);
  assert.equal(niceCeiling(3.1), 5);
  assert.equal(niceCeiling(10), 10);
  assert.equal(niceCeiling(0), 1);
});

test('a valid report parses without warnings; JSON strings are accepted too', () => {
  const p = parsedSample();
  assert.deepEqual(p.warnings, []);
  assert.equal(p.report.variants.length, 3);
  const fromString = parseProfileResult(JSON.stringify(sample));
  assert.deepEqual(fromString, p);
});

test('the no-GPU answer becomes an error result with its candidates', () => {
  const p = parseProfileResult({ error: 'no CUDA device', candidates: ['baseline', { name: 'CUDA-NP', reason: '4 slaves' }, 3] });
  assert.deepEqual(p, { kind: 'error', message: 'no CUDA device', candidates: ['baseline', 'CUDA-NP: 4 slaves', '3'] });
});

test('garbage is reported as invalid, not thrown', () => {
  assert.equal(parseProfileResult('{not json').kind, 'invalid');
  assert.equal(parseProfileResult(null).kind, 'invalid');
  assert.equal(parseProfileResult([1, 2]).kind, 'invalid');
  assert.equal(parseProfileResult({ kernel: 'k' }).kind, 'invalid');
  assert.equal(parseProfileResult({ variants: [] }).kind, 'invalid');
  assert.equal(parseProfileResult(undefined).kind, 'invalid');
});

test('malformed variant fields are dropped with a warning and the rest is kept', () => {
  const p = parseProfileResult({
    kernel: 'k', device: null,
    variants: [
      { name: 'a', status: 'ok', median_ms: -1, iqr_ms: [3, 1], samples: 2.5 },
      { status: 'ok', median_ms: 1 },
      { name: 'b', status: 'ok', median_ms: 1, iqr_ms: [0.9, 1.1], samples: 10 },
    ],
    recommendation: 'b',
  });
  assert.equal(p.kind, 'report');
  if (p.kind !== 'report') return;
  assert.equal(p.report.variants.length, 2);
  assert.equal(p.report.variants[0].median_ms, null);
  assert.equal(p.report.variants[0].iqr_ms, null);
  assert.equal(p.report.variants[0].samples, 0);
  assert.equal(p.report.recommendation, null);
  assert.equal(p.warnings.length, 3, p.warnings.join('\n'));
});

test('the chart: speedup over the baseline on a log axis, fastest first, winner marked, failures last', () => {
  const g = DEFAULT_GEOMETRY;
  const svg = renderChartSvg(parsedSample().report);
  const rows = [...svg.matchAll(/<g class="row ([a-z]+)-row" data-variant="([^"]+)">/g)].map((m) => [m[2], m[1]]);
  assert.deepEqual(rows, [['CUDA-NP: 4 slaves, inter-warp', 'winner'], ['baseline', 'baseline'], ['DP launch per thread', 'failed']]);
  const bars = [...svg.matchAll(/<rect class="bar ([a-z]+)" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g)];
  assert.equal(bars.length, 2);
  // Labels are not cut: the plot starts after the longest one (29 characters).
  const plotLeft = g.pad + textWidth('CUDA-NP: 4 slaves, inter-warp') + 10;
  // IQR speedups span 0.91x .. 4.4x: the axis covers 0.1x .. 10x, 1x in the middle.
  const one = plotLeft + g.plotWidth / 2;
  assert.equal(Number(bars[0][2]), Number(one.toFixed(2)));
  assert.equal(Number(bars[0][3]), Number(((Math.log10(4) + 1) / 2 * g.plotWidth - g.plotWidth / 2).toFixed(2)));
  assert.equal(bars[0][1], 'winner');
  assert.equal(bars[1][1], 'baseline');
  assert.equal(Number(bars[1][3]), 1, 'the baseline is 1x: a 1 px bar at the 1x line');
  assert.match(svg, /<line class="unity"/);
  assert.match(svg, />4\.00x  0\.5 ms  recommended<\/text>/);
  assert.match(svg, /<text class="status"[^>]*>failed: launch out of resources/);
  const ticks = [...svg.matchAll(/<text class="tick" x="[\d.]+" y="[\d.]+" text-anchor="middle">([\d.x]+)<\/text>/g)].map((m) => m[1]);
  assert.deepEqual(ticks, ['0.1x', '0.2x', '0.5x', '1x', '2x', '5x', '10x']);
  assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
  assert.ok(svg.endsWith('</svg>'));
});

test('the chart never cuts names or values: the view box grows with the text', () => {
  const long = 'threshold-2048+coarsen-8+aggregate-warp+'.repeat(5);
  const p = parseProfileResult({
    kernel: 'bfs_parent', device: null,
    variants: [
      { name: 'baseline', baseline: true, status: 'ok', reason: null, median_ms: 0.9, iqr_ms: [0.88, 0.92], samples: 100 },
      { name: long, status: 'ok', reason: null, median_ms: 0.14, iqr_ms: [0.139, 0.141], samples: 12 },
      { name: 'coarsen-2', status: 'ok', reason: null, median_ms: 60, iqr_ms: [59, 61], samples: 1, stop_reason: 'eliminated',
        stop_detail: 'eliminated after 1 sample (its correctness run): 60 ms > 2x ...' },
      { name: 'wrong', status: 'output_mismatch', reason: 'differs '.repeat(40), median_ms: null, iqr_ms: null, samples: 0 },
    ],
    recommendation: { variant: long, reason: 'fastest' },
  });
  assert.equal(p.kind, 'report');
  if (p.kind !== 'report') return;
  const svg = renderChartSvg(p.report);
  const viewWidth = Number(svg.match(/viewBox="0 0 ([\d.]+) [\d.]+"/)![1]);
  assert.ok(svg.includes(`>${long}</text>`), 'the long name is drawn whole');
  const labelEnd = Number(svg.match(/<text class="label" x="([\d.]+)"/)![1]);
  assert.ok(labelEnd - textWidth(long) >= 0, 'the longest label starts inside the view box');
  for (const m of svg.matchAll(/<text class="(?:value|status)" x="([\d.]+)"[^>]*>([^<]*)</g)) {
    const end = Number(m[1]) + textWidth(m[2].replace(/&[a-z#0-9]+;/g, '_'));
    assert.ok(end <= viewWidth, `value "${m[2].slice(0, 30)}" ends at ${end} > ${viewWidth}`);
  }
  // Log axis: the 60 ms loser and the 0.14 ms winner both get visible bars.
  const widths = [...svg.matchAll(/<rect class="bar [a-z]+" x="[\d.]+" y="[\d.]+" width="([\d.]+)"/g)].map((m) => Number(m[1]));
  assert.equal(widths.length, 3);
  assert.ok(widths.every((w) => w >= 1));
  assert.match(svg, /data-variant="coarsen-2"/);
  assert.match(svg, /<g class="row eliminated-row" data-variant="coarsen-2">/);
  assert.match(svg, /eliminated after 1 sample<\/text>/);
  assert.match(svg, /<g class="row incorrect-row" data-variant="wrong">/);
  const order = [...svg.matchAll(/data-variant="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(order, [long, 'baseline', 'coarsen-2', 'wrong']);
});

test('the table lists every variant with median, IQR, samples and reason', () => {
  const html = renderTableHtml(parsedSample().report);
  const rows = html.match(/<tr/g) ?? [];
  assert.equal(rows.length, 4);
  assert.match(html, /<td>baseline<\/td><td class="status-ok">ok<\/td><td class="num">2<\/td><td class="num">1\.9\u20132\.2<\/td><td class="num">30<\/td>/);
  assert.match(html, /<tr class="recommended"><td>CUDA-NP: 4 slaves, inter-warp <span class="badge">recommended<\/span>/);
  assert.match(html, /launch out of resources/);
});

test('server strings cannot inject markup into the page', () => {
  const evil = '<img src=x onerror=alert(1)>';
  const p = parseProfileResult({
    kernel: `k${evil}`, device: evil,
    variants: [{ name: `v"${evil}`, status: `bad${evil}`, reason: evil, median_ms: null, iqr_ms: null, samples: 0 },
               { name: evil, status: 'ok', reason: null, median_ms: 1, iqr_ms: null, samples: 1 }],
    recommendation: { variant: evil, reason: evil },
  });
  const html = renderReportHtml(p, { nonce: NONCE });
  assert.ok(!html.includes('<img'), 'raw <img found');
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'));
  const err = renderReportHtml(parseProfileResult({ error: evil, candidates: [evil] }), { nonce: NONCE });
  assert.ok(!err.includes('<img'));
  const invalid = renderReportHtml(parseProfileResult(`${evil}`), { nonce: NONCE });
  assert.ok(!invalid.includes('<img'));
});

test('the page has a strict CSP, no scripts, and the nonce only on its style block', () => {
  const html = renderReportHtml(parsedSample(), { nonce: NONCE });
  assert.match(html, new RegExp(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${NONCE.replace(/[+/=]/g, '\\$&')}'; img-src data:;">`));
  assert.ok(!/<script/i.test(html));
  assert.ok(!/\son[a-z]+=/i.test(html), 'no inline event handlers');
  assert.ok(!/\sstyle=/i.test(html), 'no inline style attributes (the CSP would block them)');
  assert.equal(html.split(`nonce="${NONCE}"`).length - 1, 1);
  assert.match(html, /<h1>Profile of kernel <code>tmv<\/code><\/h1>/);
  assert.match(html, /Device: NVIDIA H100 80GB HBM3/);
  assert.match(html, /<strong>CUDA-NP: 4 slaves, inter-warp<\/strong>: 4\.0x faster than baseline/);
  assert.throws(() => renderReportHtml(parsedSample(), { nonce: `x" onload="y` }), /nonce/);
});

test('the no-GPU page shows the error and the candidates', () => {
  const html = renderReportHtml(parseProfileResult({ error: 'no CUDA device found', candidates: ['baseline', 'CUDA-NP'] }), { nonce: NONCE });
  assert.match(html, /Profiling did not run: no CUDA device found/);
  assert.match(html, /<li>baseline<\/li><li>CUDA-NP<\/li>/);
  assert.ok(!html.includes('<svg'));
});
