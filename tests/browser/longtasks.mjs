// Main-thread long tasks (over 50 ms, Chrome's Long Tasks API) while a person uses the page
// on a big graph: upload, run, switching the timeline's pair, the Chrome trace export and the
// share link. Not a test: `make measure` prints the figures (the budget is no task over
// 100 ms). Standalone: node longtasks.mjs [--www DIR] [--nodes N]  (DIR: another build of
// the page, e.g. an older one, to compare).

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, launch, cli, WWW } from './harness.mjs';

/**
 * Runs the phases on `url` with the graph `text`; returns [{phase, ms, tasks, max, total}].
 * @param {import('playwright-core').Browser} browser @param {string} url @param {string} text
 */
export async function measureLongTasks(browser, url, text, name = 'big.json') {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    /** @type {any} */ (window).__long = [];
    // When a file input changes: the test driver's own delivery of the file (CDP) is one
    // long task of the renderer before it, which no page can avoid; it is reported apart.
    document.addEventListener('change', (e) => {
      if (/** @type {any} */ (e.target)?.type === 'file') window.__fileAt = performance.now();
    }, true);
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([e.startTime, e.duration]); })
      .observe({ type: 'longtask', buffered: true });
  });
  await page.goto(url);
  await page.waitForSelector('html[data-ready=true]', { timeout: 60000 });
  await page.waitForFunction(() => !document.getElementById('run').disabled, null, { timeout: 600000 });
  // Two cheap placers and one scheduler: the figures are the page's, not the strategies'.
  await page.evaluate(() => {
    for (const box of document.querySelectorAll('#placer-list input, #scheduler-list input')) {
      const want = ['single', 'hash', 'fifo'].includes(/** @type {HTMLInputElement} */ (box).value);
      if (/** @type {HTMLInputElement} */ (box).checked !== want) /** @type {HTMLInputElement} */ (box).click();
    }
  });
  const out = [];
  const phase = async (label, act) => {
    const t0 = await page.evaluate(() => performance.now());
    await act();
    // Let the page settle (rendering after the awaited state) before closing the window.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 200))));
    const t1 = await page.evaluate(() => performance.now());
    let tasks = (await page.evaluate(() => window.__long)).filter(([s, d]) => s + d > t0 && s < t1);
    const fileAt = await page.evaluate(() => window.__fileAt ?? null);
    let driver = 0;
    if (label.startsWith('upload') && fileAt !== null) {
      // The task that delivered the file ends at the change event (it dispatches it).
      driver = Math.max(0, ...tasks.filter(([s, d]) => s <= fileAt && s + d >= fileAt - 1).map((t) => t[1]));
      tasks = tasks.filter(([s, d]) => !(s <= fileAt && s + d >= fileAt - 1));
    }
    out.push({
      driver,
      phase: label, ms: t1 - t0, tasks: tasks.length,
      max: Math.max(0, ...tasks.map((t) => t[1])), total: tasks.reduce((a, t) => a + t[1], 0),
    });
  };
  await phase('upload (read, validate, hash)', async () => {
    await page.setInputFiles('#graph-file', { name, mimeType: 'application/json', buffer: Buffer.from(text) });
    await page.waitForFunction(() => document.getElementById('graph-info').textContent.includes('uploaded'), null, { timeout: 600000 });
  });
  await phase('run (single, hash x fifo) and the first timeline', async () => {
    await page.click('#run');
    await page.waitForFunction(() => !document.getElementById('run').disabled
      && window.placesim.comparison?.scenario.graph.file, null, { timeout: 600000 });
    // The timeline drawn is the new graph's (not the first visit's, still on screen).
    await page.waitForFunction(() => document.querySelector('#chart-timeline .pc-timeline')?.getAttribute('data-ops')
      === String(window.placesim.comparison.graph.nodes), null, { timeout: 600000 });
  });
  await phase('switch the timeline\'s pair', async () => {
    const before = await page.evaluate(() => `${window.placesim.pairRun.placer}/${window.placesim.pairRun.scheduler}`);
    const other = await page.$$eval('#pair-select option', (o, b) => o.map((x) => x.value).find((v) => v.split('\n').slice(0, 2).join('/') !== b), before);
    await page.selectOption('#pair-select', other);
    await page.waitForFunction((b) => window.placesim.pairRun && `${window.placesim.pairRun.placer}/${window.placesim.pairRun.scheduler}` !== b, before, { timeout: 600000 });
  });
  await phase('Chrome trace export', async () => {
    await Promise.all([page.waitForEvent('download', { timeout: 600000 }), page.click('#export-trace')]);
  });
  await phase('share link', async () => {
    await page.$eval('#share-url', (el) => { /** @type {HTMLInputElement} */ (el).value = ''; });
    await page.click('#share');
    await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('share-url')).value !== '');
  });
  await context.close();
  return out;
}

/** Prints the phases' figures. */
export function printLongTasks(label, rows) {
  console.log(`main-thread long tasks, ${label}:`);
  for (const r of rows) {
    console.log(`  ${r.phase}: ${Math.round(r.ms)} ms; ${r.tasks} long task(s) of the page, longest ${Math.round(r.max)} ms, `
      + `${Math.round(r.total)} ms in all${r.driver ? ` (and the test driver's file delivery, ${Math.round(r.driver)} ms)` : ''}`);
  }
  const worst = Math.max(...rows.map((r) => r.max));
  console.log(`  longest task ${Math.round(worst)} ms (budget 100 ms: ${worst <= 100 ? 'within' : 'over'})`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
  const nodes = Number(arg('--nodes', '48000'));
  const root = arg('--www', WWW);
  const text = cli(['generate', '--nodes', String(nodes), '--seed', '1']);
  if (!text) throw new Error('the CLI is missing: make cli');
  const server = await startServer(root);
  const browser = await launch();
  try {
    printLongTasks(`${nodes.toLocaleString('en-US')}-op graph (${(text.length / 1e6).toFixed(1)} MB), ${join(root)}`,
      await measureLongTasks(browser, server.url, text));
  } finally {
    await browser.close();
    await server.close();
  }
}
