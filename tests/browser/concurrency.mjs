// How much slower the engine's whole default comparison gets when N wasm sessions run it at
// once, each in its own thread: in Node's worker_threads and in Chromium's dedicated workers
// (the page's pool is N such workers). A session alone is the page's best case for one worker;
// N at once, each taking as long as one alone, is a pool that does no more work than one
// session. Not a test: a tool for the page's pool figures (docs/bench.md, issue 24q). Run it
// on a quiet machine (under other load the threads share whatever the kernel gives the group).
//   node concurrency.mjs [--file graph.json] [--devices 8] [--n 1,2] [--reps 2] [--where node,chromium]
// Prints, per place and N, each thread's `Session.load` and `run_items` times (ms).

import { readFileSync } from 'node:fs';
import { join, basename } from 'node:path';
import { Worker, isMainThread, workerData, parentPort } from 'node:worker_threads';
import { WWW } from './harness.mjs';

/** One session's runs: load, then every item of the plan in one `run_items`, `reps` times. */
async function sessions(engine, text, file, devices, reps) {
  const { Session, work_plan, default_scenario } = engine;
  const sc = default_scenario();
  const s = sc instanceof Map ? Object.fromEntries(sc) : sc;
  s.graph = { file };
  s.cluster.generate.devices = devices;
  const sj = JSON.stringify(s);
  const out = [];
  for (let r = 0; r < reps; r++) {
    const session = new Session();
    let t = performance.now();
    session.load(sj, text, undefined);
    const load = performance.now() - t;
    const plan = work_plan(sj, 1);
    t = performance.now();
    session.run_items(plan.items, undefined);
    out.push({ load: Math.round(load), run: Math.round(performance.now() - t) });
    session.free();
  }
  return out;
}

if (!isMainThread) {
  const { pkg, module, text, file, devices, reps } = workerData;
  const engine = await import(join(pkg, 'placesim.js'));
  engine.initSync({ module });
  parentPort.postMessage(await sessions(engine, text, file, devices, reps));
} else {
  const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
  const path = arg('--file', '/tmp/nasnet10.json');
  const file = basename(path);
  const devices = Number(arg('--devices', '8'));
  const ns = arg('--n', '1,2').split(',').map(Number);
  const reps = Number(arg('--reps', '2'));
  const where = arg('--where', 'node,chromium').split(',');
  const text = readFileSync(path, 'utf8');
  const pkg = join(WWW, 'pkg');
  const show = (place, n, res) => console.log(`${place}, ${n} at once: `
    + res.map((runs, i) => `thread ${i}: ${runs.map((x) => `load ${x.load} + run ${x.run}`).join(', ')}`).join('; ') + ' ms');

  if (where.includes('node')) {
    const module = new WebAssembly.Module(readFileSync(join(pkg, 'placesim_bg.wasm')));
    for (const n of ns) {
      const res = await Promise.all(Array.from({ length: n }, () => new Promise((ok, fail) => {
        const w = new Worker(new URL(import.meta.url), { workerData: { pkg, module, text, file, devices, reps } });
        w.on('message', (m) => { ok(m); w.terminate(); });
        w.on('error', fail);
      })));
      show('node', n, res);
    }
  }
  if (where.includes('chromium')) {
    const { startServer, launch } = await import('./harness.mjs');
    const server = await startServer();
    const browser = await launch();
    try {
      const page = await browser.newPage();
      await page.goto(server.url + 'pkg/placesim.js'); // any page of the site's origin
      for (const n of ns) {
        const res = await page.evaluate(async ({ n, text, file, devices, reps, body }) => {
          // A module worker from a blob: imports the site's engine by absolute URL.
          const src = `const sessions = ${body};\n`
            + `onmessage = async (e) => { const engine = await import('${location.origin}/pkg/placesim.js');`
            + ` await engine.default({ module_or_path: '${location.origin}/pkg/placesim_bg.wasm' });`
            + ` const d = e.data; postMessage(await sessions(engine, d.text, d.file, d.devices, d.reps)); };`;
          const url = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
          const one = () => new Promise((ok, fail) => {
            const w = new Worker(url, { type: 'module' });
            w.onmessage = (e) => { ok(e.data); w.terminate(); };
            w.onerror = (e) => fail(new Error(e.message));
            w.postMessage({ text, file, devices, reps });
          });
          return Promise.all(Array.from({ length: n }, one));
        }, { n, text, file, devices, reps, body: sessions.toString() });
        show('chromium', n, res);
      }
    } finally {
      await browser.close();
      await server.close();
    }
  }
}
