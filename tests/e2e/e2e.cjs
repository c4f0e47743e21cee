// Browser half of tests/e2e/run.sh: drives VS Code (code-server) in Chromium.
// Each step has a bounded wait; on failure it saves a screenshot named after
// the step, prints what it was waiting for, and exits 1.
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require(process.env.PLAYWRIGHT_CORE);

const STEP_TIMEOUT_MS = 60_000;
const out = process.env.E2E_OUT;
const workspace = process.env.E2E_WORKSPACE;
let page;
let shot = 0;

function log(msg) { console.log(`e2e: ${msg}`); }

async function screenshot(name) {
  const file = path.join(out, `${String(++shot).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file });
  log(`screenshot ${path.relative(process.cwd(), file)}`);
}

async function step(name, fn) {
  log(`step: ${name}`);
  try {
    return await fn();
  } catch (e) {
    console.error(`e2e: FAILED at step "${name}": ${e && e.message ? e.message.split('\n')[0] : e}`);
    try { await screenshot(`FAILED-${name.replace(/[^a-z0-9]+/gi, '-')}`); } catch { /* page may be gone */ }
    throw e;
  }
}

/** Polls fn until it returns a truthy value or the timeout passes. */
async function waitFor(what, fn, timeoutMs = STEP_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try { last = await fn(); if (last) return last; } catch (e) { if (e && e.final) throw e; last = e; }
    await page.waitForTimeout(250);
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last instanceof Error ? ` (${last.message.split('\n')[0]})` : ''}`);
}

/**
 * The text of the active editor's rendered lines, in line order (Monaco
 * positions lines absolutely, so DOM order is not line order after edits),
 * with its non-breaking spaces normalised.
 */
async function editorText() {
  const editor = page.locator('.editor-group-container.active .monaco-editor .view-lines').first();
  const lines = await editor.evaluate((el) => Array.from(el.querySelectorAll('.view-line'))
    .map((l) => ({ top: parseFloat(l.style.top) || 0, text: l.textContent || '' }))
    .sort((a, b) => a.top - b.top)
    .map((l) => l.text));
  return lines.join('\n').replace(/\u00a0/g, ' ');
}

async function openFile(name, expected) {
  const isShown = async () => {
    const tab = await page.locator('.tabs-container .tab.active').first().getAttribute('aria-label').catch(() => '');
    return (tab || '').includes(name) && (await editorText().catch(() => '')).includes(expected);
  };
  // The explorer row is the most direct way; Quick Open (Ctrl+P) is the fallback.
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
  try {
    await row.click({ timeout: 15_000 });
    await waitFor(`${name} to open from the explorer`, isShown, 15_000);
    return;
  } catch (e) {
    log(`opening ${name} from the explorer failed (${e.message.split('\n')[0]}); trying Quick Open`);
  }
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(name);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(500);
  await page.keyboard.press('Enter');
  await waitFor(`${name} to be the active editor showing "${expected}"`, isShown);
}

async function goToLineColumn(line, column) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(`:${line}:${column}`);
  await page.waitForTimeout(300);
  await page.keyboard.press('Enter');
  await waitFor(`the cursor at ${line}:${column}`, async () => {
    const status = await page.locator('.statusbar-item', { hasText: /Ln \d+, Col \d+/ }).first().innerText().catch(() => '');
    return status.includes(`Ln ${line}, Col ${column}`);
  }, 15_000);
}

function lineAndColumnOf(file, needle) {
  const lines = fs.readFileSync(path.join(workspace, file), 'utf8').split('\n');
  const index = lines.findIndex((l) => l.includes(needle));
  if (index < 0) throw new Error(`${file} has no line containing "${needle}"`);
  return { line: index + 1, column: lines[index].indexOf(needle) + 1 };
}

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => log(`page error: ${e.message.split('\n')[0]}`));

    await step('load the workbench', async () => {
      await page.goto(process.env.E2E_URL, { timeout: STEP_TIMEOUT_MS });
      await page.locator('.monaco-workbench').waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: STEP_TIMEOUT_MS });
      await screenshot('workbench');
    });

    await step('open tmv.cu', async () => {
      await openFile('tmv.cu', '__global__ void tmv');
      await screenshot('tmv-open');
    });

    await step('extension activated (status-bar item)', async () => {
      const item = page.locator('.statusbar-item', { hasText: 'Nestor' }).first();
      await item.waitFor({ timeout: STEP_TIMEOUT_MS });
      // The client retries a crashing server a few times; an error state that
      // lasts 10 s is final, so fail then instead of waiting out the timeout.
      let errorSince;
      const state = await waitFor('the Nestor server to be running (status bar)', async () => {
        const label = (await item.getAttribute('aria-label')) || (await item.innerText());
        if (!/error/.test(label)) { errorSince = undefined; return /running/.test(label) ? label : ''; }
        errorSince = errorSince ?? Date.now();
        if (Date.now() - errorSince > 10_000) {
          errorSince = undefined;
          return Promise.reject(Object.assign(new Error('the Nestor status-bar item reports that the server failed ' +
            '(see the "Nestor" output log printed below)'), { final: true }));
        }
        return '';
      });
      log(`status bar: ${state}`);
    });

    await step('diagnostic squiggle on the loop of tmv.cu', async () => {
      // np-parallel-loop is a warning on the `for` line: a squiggle of that
      // severity whose middle lies within that line's box (any other squiggle,
      // or one elsewhere, does not count).
      const loop = 'for (int i = 0; i < h; i++)';
      const loopLine = page.locator('.editor-group-container.active .view-line', { hasText: loop }).first();
      const warnings = page.locator('.editor-group-container.active .monaco-editor .squiggly-warning');
      await waitFor(`a warning squiggle on the line "${loop}" of tmv.cu`, async () => {
        const line = await loopLine.boundingBox();
        if (!line) return false;
        for (const squiggle of await warnings.all()) {
          const box = await squiggle.boundingBox();
          const middle = box && box.y + box.height / 2;
          if (box && box.width > 0 && middle >= line.y && middle <= line.y + line.height) return true;
        }
        return false;
      });
      await screenshot('squiggle');
    });

    await step('hover on the #pragma np line of pragma.cu', async () => {
      await openFile('pragma.cu', '#pragma np parallel for');
      const { line, column } = lineAndColumnOf('pragma.cu', 'parallel');
      const hover = page.locator('.monaco-hover:not(.hidden)').filter({ hasText: '#pragma np parallel for' });
      const tryMouse = async () => {
        const token = page.locator('.editor-group-container.active .view-line', { hasText: '#pragma np' }).first()
          .locator('span span', { hasText: /parallel/ }).first();
        await page.mouse.move(10, 400);
        await token.hover({ timeout: 10_000 });
        await hover.first().waitFor({ state: 'visible', timeout: 8_000 });
      };
      try {
        await tryMouse();
      } catch (e) {
        log(`mouse hover: ${e.message.split('\n')[0]}`);
        await screenshot('hover-mouse-attempt');
        // Keyboard fallback: show the hover at the cursor (Ctrl+K Ctrl+I).
        log('mouse hover did not show; using Ctrl+K Ctrl+I at the cursor');
        await goToLineColumn(line, column + 2);
        await page.keyboard.press('Control+K');
        await page.keyboard.press('Control+I');
        await hover.first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      }
      const strong = (await hover.first().locator('strong').first().innerText()).trim();
      if (strong !== '#pragma np parallel for') throw new Error(`hover headline is "${strong}", expected "#pragma np parallel for"`);
      log(`hover: ${(await hover.first().innerText()).replace(/\s+/g, ' ').slice(0, 160)}`);
      await screenshot('hover');
      await page.keyboard.press('Escape');
    });

    await step('quick fix "Insert #pragma np" in tmv.cu', async () => {
      await openFile('tmv.cu', '__global__ void tmv');
      const { line, column } = lineAndColumnOf('tmv.cu', 'for (');
      await goToLineColumn(line, column);
      const action = page.locator('.action-widget .monaco-list-row', { hasText: 'Insert #pragma np' }).first();
      await waitFor('the quick-fix menu to offer "Insert #pragma np ..."', async () => {
        await page.keyboard.press('Control+.');
        try {
          await action.waitFor({ state: 'visible', timeout: 5_000 });
          return true;
        } catch {
          await page.keyboard.press('Escape');
          return false;
        }
      });
      const title = (await action.innerText()).trim();
      log(`quick fix offered: ${title}`);
      await screenshot('quickfix-menu');
      await action.click();
      await waitFor('the editor to contain the inserted "#pragma np parallel for"', async () => {
        const lines = (await editorText()).split('\n');
        // A line that starts with the pragma (the file's comment also mentions it).
        const i = lines.findIndex((l) => /^\s*#pragma np parallel for/.test(l));
        return i >= 0 && /^\s*for \(int i = 0; i < h; i\+\+\)/.test(lines[i + 1] || '');
      });
      log(`after the fix: ${(await editorText()).split('\n').find((l) => /^\s*#pragma np/.test(l)).trim()}`);
      await screenshot('quickfix-applied');
    });

    if (process.env.E2E_PROFILE === '1') {
      await step('Profile variants code lens and report webview', async () => {
        const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Profile variants' }).first();
        await lens.waitFor({ timeout: STEP_TIMEOUT_MS });
        await lens.click();
        const frame = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
        await frame.locator('h1', { hasText: /Profile of kernel|Nestor profile/ }).waitFor({ timeout: 5 * STEP_TIMEOUT_MS });
        const heading = await frame.locator('h1').innerText();
        const bars = await frame.locator('svg.chart rect.bar').count();
        const rows = await frame.locator('table.variants tbody tr').count();
        log(`report: "${heading}", ${bars} bars, ${rows} table rows`);
        // The error page ("Nestor profile: Could not read the report ...") has
        // the other heading: it is a failure, as is a report without a chart.
        if (!/Profile of kernel/.test(heading)) {
          const text = (await frame.locator('body').innerText()).replace(/\s+/g, ' ').slice(0, 300);
          throw new Error(`the report webview shows "${heading}", not a report: ${text}`);
        }
        if (bars === 0 || rows === 0) throw new Error(`the report has ${bars} chart bars and ${rows} table rows`);
        await screenshot('profile-report');
      });
    }
  } finally {
    await browser.close();
  }
}

main().then(() => process.exit(0), () => process.exit(1));
