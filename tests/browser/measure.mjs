// Measures the playground: wasm size (raw, gzip), time to interactive, the time to run every
// available pair in the worker on the largest bundled graph, on a 20,000-op synthetic graph
// and on ten copies of the NASNet graph (49,080 ops), on one worker and on the pool of
// workers (the speedup), and the main thread's long tasks while the ten NASNet copies and a
// 48,000-op synthetic graph are uploaded, run, inspected, exported and shared (longtasks.mjs;
// budget: no task over 100 ms). Not a test: `make measure` prints the figures.
// `node measure.mjs --only wide,longtasks` measures some parts only: size, tti, bundled,
// synthetic (the 20,000-op runs), wide (the ten NASNet copies, `--repeat N` runs of each
// set-up; `--pool-only`: the pool's only; `--tasks`: its requests; each run's main-thread
// tasks over 50 ms from the file's delivery to the first timeline; `--throttle N`: the page's
// CPU slowed N times, CDP's Emulation.setCPUThrottlingRate, a loaded machine's stand-in),
// longtasks (`--repeat N` times); PLACESIM_WWW=DIR measures another build of the page (harness.mjs).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { WWW, startServer, launch, openPage, results, cli } from './harness.mjs';
import { measureLongTasks, printLongTasks } from './longtasks.mjs';

const argv = process.argv.slice(2);
const flag = (k, d) => { const i = argv.indexOf(k); return i >= 0 ? argv[i + 1] : d; };
const only = flag('--only', null)?.split(',');
const part = (name) => !only || only.includes(name);
const repeat = Number(flag('--repeat', '1'));
const throttle = Number(flag('--throttle', '1'));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${Math.round(x)} ms`;

if (part('size')) {
  const wasm = await readFile(join(WWW, 'pkg/placesim_bg.wasm'));
  const glue = await readFile(join(WWW, 'pkg/placesim.js'));
  console.log(`wasm: ${(wasm.length / 1024).toFixed(0)} KiB raw, ${(gzipSync(wasm, { level: 9 }).length / 1024).toFixed(0)} KiB gzip; `
    + `JS glue ${(glue.length / 1024).toFixed(0)} KiB`);
}

const server = await startServer();
const browser = await launch();
try {
  if (part('tti')) {
    const tti = [];
    for (let i = 0; i < 5; i++) {
      const page = await openPage(browser, server.url);
      tti.push(await page.evaluate(() => window.placesim.timings.readyMs));
      await page.context().close();
    }
    console.log(`time to interactive (navigation start -> engine loaded, controls filled, default graph validated): `
      + `median ${ms(median(tti))} of ${tti.map(Math.round).join(', ')}`);
  }

  if (part('bundled')) {
    const index = JSON.parse(await readFile(join(WWW, 'graphs/index.json'), 'utf8')).graphs;
    const largest = index.reduce((a, b) => (b.nodes > a.nodes ? b : a));
    const runLink = async (label, fragment) => {
      const page = await openPage(browser, server.url + fragment);
      const rows = await results(page, 600000);
      const t = await page.evaluate(() => window.placesim.timings);
      await page.waitForFunction(() => window.placesim.pairRun, null, { timeout: 600000 });
      const t2 = await page.evaluate(() => window.placesim.timings);
      console.log(`${label}: ${rows.length} pairs in ${ms(t.lastCompareMs)} in the worker; `
        + `timeline of one pair ${ms(t2.lastPairMs)}`);
      await page.context().close();
    };
    await runLink(`${largest.name} (${largest.nodes} ops), 4 generated devices`, `#v=1&graph=${largest.name}`);
    await runLink(`${largest.name} (${largest.nodes} ops), 50 devices, speed 10..100, bandwidth 10..60`,
      `#v=1&graph=${largest.name}&devices=50&speed=10..100&bandwidth=10..60&latency=0..0`);
  }

  if (part('synthetic')) {
    const big = cli(['generate', '--nodes', '20000', '--seed', '1']);
    if (!big) throw new Error('the CLI is missing: make cli');
    const bigRun = async (devices, workers) => {
      // The link defaults (#v=1): a generated cluster, whose device count the form sets.
      const page = await openPage(browser, `${server.url}${workers ? `?workers=${workers}` : ''}#v=1`);
      const pool = await page.evaluate(() => window.placesim.workers);
      await page.setInputFiles('#graph-file', { name: 'synthetic20k.json', mimeType: 'application/json', buffer: Buffer.from(big) });
      await page.waitForFunction(() => document.getElementById('graph-info').textContent.includes('uploaded'), null, { timeout: 60000 });
      await page.fill('#gen-devices', String(devices));
      await page.dispatchEvent('#gen-devices', 'change');
      // The workers parse a chosen graph ahead of the run (in both set-ups): wait for it, so
      // that the run's time is the comparison's.
      const p0 = Date.now();
      await page.evaluate(() => window.placesim.preloaded());
      const preload = Date.now() - p0;
      const t0 = Date.now();
      await page.click('#run');
      const rows = await results(page, 600000);
      const wall = Date.now() - t0;
      const t = await page.evaluate(() => window.placesim.timings);
      await page.waitForFunction(() => window.placesim.pairRun && document.querySelector('#chart-timeline canvas, #chart-timeline svg'), null, { timeout: 600000 });
      const t2 = await page.evaluate(() => window.placesim.timings);
      const makespans = await page.$$eval('#results-table tbody tr', (r) => r.map((x) => x.dataset.makespan).join(','));
      const work = t.lastPool.itemMs.reduce((a, b) => a + b, 0);
      // A what-if (compute x2) re-runs the comparison: the pool now knows each item's time
      // from the first run and hands the longest out first.
      await page.evaluate(() => { window.placesim.timings.lastCompareMs = -1; });
      await page.fill('#wi-compute', '1');
      await page.dispatchEvent('#wi-compute', 'input');
      await page.waitForFunction(() => window.placesim.timings.lastCompareMs > 0, null, { timeout: 600000 });
      const whatIf = await page.evaluate(() => window.placesim.timings.lastCompareMs);
      await page.context().close();
      return { pool, rows: rows.length, ms: t.lastCompareMs, wall, pairMs: t2.lastPairMs, makespans, preload, work, merge: t.lastPool.mergeMs, whatIf };
    };
    const label = `synthetic 20,000 ops (placesim generate --nodes 20000 --seed 1, ${(big.length / 1e6).toFixed(1)} MB)`;
    const r4 = await bigRun(4);
    console.log(`${label}, 4 devices, pool of ${r4.pool}: ${r4.rows} pairs in ${ms(r4.ms)} (${ms(r4.wall)} click to table); `
      + `timeline of one pair ${ms(r4.pairMs)}; the workers parsed the upload ahead (${ms(r4.preload)} left after upload)`);
    // 50 devices: one worker against the pool (one worker per core), alternating, 3 runs each.
    const one = [];
    const pool = [];
    const oneWhatIf = [];
    const poolWhatIf = [];
    let size = 0;
    for (let i = 0; i < 3; i++) {
      const a = await bigRun(50, 1);
      const b = await bigRun(50);
      if (a.makespans !== b.makespans) throw new Error('the pool and one worker gave different numbers');
      one.push(a.ms);
      pool.push(b.ms);
      oneWhatIf.push(a.whatIf);
      poolWhatIf.push(b.whatIf);
      console.log(`  run ${i + 1}: one worker ${ms(a.ms)} (items ${ms(a.work)} in the worker, merge ${ms(a.merge)}), `
        + `what-if ${ms(a.whatIf)}; pool of ${b.pool} ${ms(b.ms)} (items ${ms(b.work)} summed over the workers, `
        + `merge ${ms(b.merge)}), what-if ${ms(b.whatIf)}`);
      size = b.pool;
    }
    const speedup = (x, y) => `x${(median(x) / median(y)).toFixed(2)}`;
    console.log(`${label}, 50 devices: one worker median ${ms(median(one))} of ${one.map(Math.round).join(', ')}; `
      + `pool of ${size} workers median ${ms(median(pool))} of ${pool.map(Math.round).join(', ')}; `
      + `speedup ${speedup(one, pool)} (numbers identical); what-if re-run (the pool hands out the longest `
      + `items first): one worker ${ms(median(oneWhatIf))}, pool ${ms(median(poolWhatIf))}, speedup ${speedup(oneWhatIf, poolWhatIf)}`);
  }

  // A real graph of issue 24's size (generated layered DAGs have narrow frontiers and hid a
  // quadratic placer): ten disjoint copies of the bundled NASNet inference graph, every
  // default pair on 8 generated devices, one worker and the pool.
  const nasnet = JSON.parse(await readFile(join(WWW, 'graphs/nasnet_mobile_ops_infer.json'), 'utf8'));
  const copies = (g, n) => {
    const out = { ...g, name: `${g.name} x${n}`, nodes: [], edges: [] };
    delete out.stats;
    for (let c = 0; c < n; c++) {
      const p = `c${c}/`;
      for (const v of g.nodes) out.nodes.push({ ...v, id: p + v.id, ...(v.colocate ? { colocate: p + v.colocate } : {}) });
      for (const e of g.edges) out.edges.push({ ...e, src: p + e.src, dst: p + e.dst });
    }
    return JSON.stringify(out);
  };
  const wide = copies(nasnet, 10);
  const wideLabel = `nasnet_mobile_ops_infer x 10 (${JSON.parse(wide).nodes.length} ops, ${(wide.length / 1e6).toFixed(1)} MB)`;
  // An upload runs the comparison by itself (as a preset does): the link sets 8 devices first,
  // and the figure is that run's, from the file's delivery to the table.
  for (const workers of part('wide') ? (argv.includes('--pool-only') ? [undefined] : [1, undefined]) : []) for (let rep = 0; rep < repeat; rep++) {
    const page = await openPage(browser, `${server.url}${workers ? `?workers=${workers}` : ''}#v=1&devices=8`);
    const pool = await page.evaluate(() => window.placesim.workers);
    // The main thread's long tasks from the file's delivery on (longtasks.mjs's way; the
    // driver's delivery itself, which ends at the change event, is left out).
    await page.evaluate(() => {
      window.__long = [];
      document.addEventListener('change', (e) => {
        if (/** @type {any} */ (e.target)?.type === 'file') window.__fileAt = performance.now();
      }, true);
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([e.startTime, e.duration]); })
        .observe({ type: 'longtask' });
    });
    if (throttle > 1) await (await page.context().newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: throttle });
    const t0 = Date.now();
    await page.setInputFiles('#graph-file', { name: 'nasnet10.json', mimeType: 'application/json', buffer: Buffer.from(wide) });
    await page.waitForFunction(() => window.placesim.comparison?.scenario.graph.file && !document.getElementById('run').disabled,
      null, { timeout: 600000 });
    const wall = Date.now() - t0;
    const rows = await results(page, 600000);
    const t = await page.evaluate(() => window.placesim.timings);
    const work = t.lastPool.itemMs.reduce((a, b) => a + b, 0);
    // Until the first timeline of the upload is drawn, and the page has settled.
    await page.waitForFunction(() => document.querySelector('#chart-timeline .pc-timeline')?.getAttribute('data-ops')
      === String(window.placesim.comparison.graph.nodes), null, { timeout: 600000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 200))));
    const long = await page.evaluate(() => window.__long.filter(([s, d]) => !(s <= window.__fileAt && s + d >= window.__fileAt - 1)));
    console.log(`${wideLabel}, 8 devices${throttle > 1 ? `, CPU slowed ${throttle}x` : ''}, ${workers ? 'one worker' : `pool of ${pool}${t.lastPool.split ? ', placements and simulations as tasks' : ''}`}: every default pair (${rows.length} rows) `
      + `in ${ms(t.lastCompareMs)} (work ${ms(work)} in the workers, merge ${ms(t.lastPool.mergeMs)}); `
      + `${ms(wall)} from the file's delivery to the table (reading, validating and hashing it included); `
      + `main-thread tasks over 50 ms until the first timeline: ${long.length ? long.map((x) => Math.round(x[1])).join(', ') : 'none'}`);
    // How the work spread: each worker's busy time and when its last request ended.
    const tasks = t.lastPool.tasks ?? []; // (an older page records none)
    const per = [...new Set(tasks.map((x) => x[0]))].sort().map((w) => {
      const mine = tasks.filter((x) => x[0] === w);
      return `worker ${w}: ${mine.length} requests, busy ${ms(mine.reduce((a, x) => a + x[4] - x[3], 0))}, `
        + `done at ${ms(Math.max(...mine.map((x) => x[4])))}`;
    });
    if (per.length) console.log(`  ${per.join('; ')}`);
    if (argv.includes('--tasks')) {
      for (const [w, k, j, a, b, load] of tasks) {
        console.log(`    worker ${w} item ${k}${t.lastPool.keys ? ` (${t.lastPool.keys[k]})` : ''} ${j === -1 ? 'place' : j === -2 ? 'item' : `pair ${j}`}: ${ms(a)} - ${ms(b)}`
          + `${load ? ` (loading the scenario ${ms(load)})` : ''}`);
      }
    }
    await page.context().close();
  }
  if (part('longtasks')) {
    const huge = cli(['generate', '--nodes', '48000', '--seed', '1']);
    for (let rep = 0; rep < repeat; rep++) {
      printLongTasks(wideLabel, await measureLongTasks(browser, server.url, wide, 'nasnet10.json'));
      printLongTasks(`synthetic 48,000 ops (placesim generate --nodes 48000 --seed 1, ${(huge.length / 1e6).toFixed(1)} MB)`,
        await measureLongTasks(browser, server.url, huge, 'synthetic48k.json'));
    }
  }
} finally {
  await browser.close();
  await server.close();
}
