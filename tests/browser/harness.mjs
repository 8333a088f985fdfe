// Shared pieces of the browser tests: a static file server on a free port, a headless
// Chromium (Debian's /usr/bin/chromium driven by playwright-core), and page helpers.

import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The site served: www/, or PLACESIM_WWW (another build of the page, e.g. an older one, to compare). */
export const WWW = process.env.PLACESIM_WWW ? resolve(process.env.PLACESIM_WWW) : join(ROOT, 'www');
export const CLI = process.env.PLACESIM_CLI || join(ROOT, 'target/release/placesim');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** A static server of `root` on 127.0.0.1 and a free port. */
export async function startServer(root = WWW) {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = normalize(join(root, path));
      if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((ok) => server.close(ok)) };
}

/** Headless Chromium with a fresh profile (playwright gives each launch its own user-data-dir). */
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic',
      '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * The static server and Chromium of a test file: started before its tests, stopped after
 * them. `hooks` is node:test's {before, after}; the returned object's `server` and
 * `browser` are set once the tests run.
 */
export function serverAndBrowser(hooks) {
  const env = { server: null, browser: null };
  hooks.before(async () => {
    env.server = await startServer();
    env.browser = await launch();
  });
  hooks.after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}

/** A new page that records console errors and page errors in `page.errors`, after its first run. */
export async function openPage(browser, url) {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  page.errors = [];
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => page.errors.push(`pageerror: ${e.message}`));
  page.on('worker', (w) => w.on('console', (m) => { if (m.type() === 'error') page.errors.push(`worker: ${m.text()}`); }));
  await page.goto(url);
  await page.waitForSelector('html[data-ready=true]', { timeout: 60000 });
  // The page runs its comparison (the link's, or the default one) by itself: let it finish.
  await page.waitForFunction(() => !document.getElementById('run').disabled, null, { timeout: 600000 });
  return page;
}

/**
 * Waits until the results table shows a finished run and its charts are drawn (the page
 * draws them after the table's frame: `#results-body[data-charts]`); returns its rows' data.
 */
export async function results(page, timeout = 120000) {
  await page.waitForFunction(() => {
    const rows = document.querySelectorAll('#results-table tbody tr');
    return rows.length > 0 && !document.getElementById('run').disabled
      && document.getElementById('results-body')?.dataset.charts !== 'pending';
  }, null, { timeout });
  return page.$$eval('#results-table tbody tr', (rows) => rows.map((r) => ({
    placer: r.dataset.placer, scheduler: r.dataset.scheduler, makespan: r.dataset.makespan, error: r.dataset.error,
  })));
}

export function byPair(rows) {
  return Object.fromEntries(rows.map((r) => [`${r.placer}/${r.scheduler}`, r.makespan]));
}

/** The text of the file a click downloads. */
export async function downloadText(page, click) {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  return readFile(await download.path(), 'utf8');
}

/** Runs the CLI; returns its stdout, or null when it is missing or lacks the command. */
export function cli(args) {
  try {
    return execFileSync(CLI, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw new Error(`${CLI} ${args.join(' ')} failed: ${e.stderr || e.message}`);
  }
}
