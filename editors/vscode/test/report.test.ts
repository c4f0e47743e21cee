import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { escapeHtml, formatMs, niceCeiling, parseProfileResult, renderChartSvg, renderReportHtml, renderTableHtml } from '../src/report';

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

test('the chart has one bar per variant that ran, scaled to a nice maximum, with IQR whiskers', () => {
  const svg = renderChartSvg(parsedSample().report);
  const bars = [...svg.matchAll(/<rect class="bar( recommended)?" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g)];
  assert.equal(bars.length, 2);
  // Plot area: x from 210 to 720-120 = 600, i.e. 390 px for niceCeiling(2.2) = 2.5 ms.
  assert.equal(Number(bars[0][2]), 210);
  assert.equal(Number(bars[0][3]), 2.0 / 2.5 * 390);
  assert.equal(Number(bars[1][3]), 0.5 / 2.5 * 390);
  assert.equal(bars[0][1], undefined);
  assert.equal(bars[1][1], ' recommended');
  const whiskers = [...svg.matchAll(/<g class="whisker" data-lo="([\d.]+)" data-hi="([\d.]+)"><line x1="([\d.]+)" y1="[\d.]+" x2="([\d.]+)"/g)];
  assert.equal(whiskers.length, 2);
  assert.equal(Number(whiskers[0][3]), Number((210 + 1.9 / 2.5 * 390).toFixed(2)));
  assert.equal(Number(whiskers[0][4]), Number((210 + 2.2 / 2.5 * 390).toFixed(2)));
  // The failed variant has a row with its status instead of a bar.
  assert.match(svg, /<text class="status"[^>]*>failed: launch out of resources/);
  // Axis ticks go 0 .. 2.5 ms.
  const ticks = [...svg.matchAll(/<text x="[\d.]+" y="[\d.]+" text-anchor="middle">([\d.]+)<\/text>/g)].map((m) => m[1]);
  assert.deepEqual(ticks, ['0', '0.5', '1', '1.5', '2', '2.5']);
  assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
  assert.ok(svg.endsWith('</svg>'));
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
