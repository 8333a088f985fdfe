// Where a main-thread long task's time goes: runs longtasks.mjs's phases on a big graph under
// a Chromium trace (CDP Tracing, the DevTools timeline's categories) and prints, for each
// renderer main-thread task over 50 ms, its duration and the events inside it by self time
// (script by function and URL, GC, style, layout, paint, message deserialization...). Not a
// test: a tool for `make measure`'s long-task figure (docs/bench.md, issue 24m).
// `--all-pairs`: instead of those phases, the upload of the graph on 8 generated devices,
// which runs every default pair, until its charts and first timeline are drawn (24v).
// Each task's thread CPU time is printed beside its wall time, and, per main thread, every
// task over 16 ms of CPU: on a loaded machine, wall times stretch and CPU times much less.
//   node longtask-trace.mjs [--nodes N | --file graph.json] [--all-pairs] [--www DIR] [--out trace.json] [--full]
//   node longtask-trace.mjs --in trace.json   (a trace saved by --out)

import { readFile, writeFile } from 'node:fs/promises';
import { startServer, launch, cli, results, WWW } from './harness.mjs';
import { measureLongTasks, printLongTasks } from './longtasks.mjs';

const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
const file = arg('--file', null);
const saved = arg('--in', null);
let trace;
if (saved) trace = await readFile(saved);
else {
  const text = file ? await readFile(file, 'utf8') : cli(['generate', '--nodes', arg('--nodes', '48000'), '--seed', '1']);
  const server = await startServer(arg('--www', WWW));
  const browser = await launch();
  // `--full`: every category the DevTools timeline records (slows the page down by about
  // half); by default the light ones: tasks, script entry points, style, layout, paint, GC.
  const categories = process.argv.includes('--full')
    ? ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.execute',
      'disabled-by-default-v8.gc', 'blink', 'toplevel', 'disabled-by-default-devtools.timeline.frame', 'loading']
    : ['devtools.timeline', 'toplevel', 'v8.execute', 'disabled-by-default-v8.cpu_profiler'];
  try {
    if (process.argv.includes('--all-pairs')) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${server.url}#v=1&devices=8`);
      await page.waitForSelector('html[data-ready=true]', { timeout: 60000 });
      await page.waitForFunction(() => !document.getElementById('run').disabled, null, { timeout: 600000 });
      await browser.startTracing(undefined, { categories });
      await page.setInputFiles('#graph-file', { name: 'big.json', mimeType: 'application/json', buffer: Buffer.from(text) });
      await page.waitForFunction(() => window.placesim.comparison?.scenario.graph.file && !document.getElementById('run').disabled,
        null, { timeout: 600000 });
      const rows = await results(page, 600000);
      await page.waitForFunction(() => document.querySelector('#chart-timeline .pc-timeline')?.getAttribute('data-ops')
        === String(window.placesim.comparison.graph.nodes), null, { timeout: 600000 });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 500))));
      const ms = await page.evaluate(() => window.placesim.timings.lastCompareMs);
      console.log(`${file ?? 'generated'}: ${rows.length} pairs in ${Math.round(ms)} ms (the page's lastCompareMs)`);
      trace = await browser.stopTracing();
      await context.close();
    } else {
      await browser.startTracing(undefined, { categories });
      printLongTasks(file ?? 'generated', await measureLongTasks(browser, server.url, text, 'big.json'));
      trace = await browser.stopTracing();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const out = arg('--out', null);
  if (out) await writeFile(out, trace);
}
const { traceEvents } = JSON.parse(trace.toString());
// The renderer's main threads (one per page) by pid/tid.
const main = new Set(traceEvents.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}/${e.tid}`));
const byThread = new Map();
for (const e of traceEvents) {
  const key = `${e.pid}/${e.tid}`;
  if (!main.has(key) || e.ph !== 'X' || e.dur === undefined) continue;
  if (!byThread.has(key)) byThread.set(key, []);
  byThread.get(key).push(e);
}
// JavaScript samples (the V8 CPU profiler's trace events): [ts, "function file:line"] per thread.
const samples = new Map();
{
  const nodes = new Map();
  const last = new Map();
  for (const e of traceEvents) {
    const key = `${e.pid}/${e.tid}`;
    if (e.name === 'Profile') last.set(e.id, { key, t: e.args.data.startTime });
    if (e.name !== 'ProfileChunk') continue;
    const st = last.get(e.id);
    if (!st) continue;
    const cp = e.args.data.cpuProfile ?? {};
    for (const n of cp.nodes ?? []) {
      const f = n.callFrame;
      const url = (f.url ?? '').split('/').pop();
      nodes.set(`${e.id}:${n.id}`, `${f.functionName || '(anonymous)'}${url ? ` ${url}:${(f.lineNumber ?? 0) + 1}` : ''}`);
    }
    const deltas = e.args.data.timeDeltas ?? [];
    if (!samples.has(st.key)) samples.set(st.key, []);
    (cp.samples ?? []).forEach((id, i) => {
      st.t += deltas[i] ?? 0;
      samples.get(st.key).push([st.t, nodes.get(`${e.id}:${id}`) ?? '?']);
    });
  }
}
/** A trace event's thread CPU time (tdur), else its wall time, ms. */
const cpuMs = (e) => (e.tdur ?? e.dur) / 1000;
for (const [key, evs] of byThread) {
  evs.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  // Every top-level task over 16 ms of CPU (the driver's file delivery, seconds of wall
  // time, included), in order: cpu/wall ms.
  const top = [];
  let end = -Infinity;
  for (const e of evs) {
    if ((e.name !== 'RunTask' && e.name !== 'ThreadControllerImpl::RunTask') || e.ts < end) continue;
    top.push(e);
    end = e.ts + e.dur;
  }
  const heavy = top.filter((e) => cpuMs(e) > 16);
  if (heavy.length) {
    console.log(`${key}: ${top.length} tasks, ${top.reduce((a, e) => a + cpuMs(e), 0).toFixed(0)} ms of CPU; over 16 ms of CPU (cpu/wall ms): `
      + heavy.map((e) => `${cpuMs(e).toFixed(0)}/${(e.dur / 1000).toFixed(0)}`).join(' '));
  }
  // The outermost task events only (RunTask and ThreadControllerImpl::RunTask nest).
  const tasks = evs.filter((e) => (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && e.dur > 50000)
    .filter((e, i, a) => !a.some((o, j) => j !== i && o.ts <= e.ts && o.ts + o.dur >= e.ts + e.dur && (o.dur > e.dur || j < i)));
  for (const t of tasks) {
    const inside = evs.filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur);
    // Self time: an event's duration less its direct children's (nesting by containment).
    const stack = [];
    const self = new Map();
    const label = (e) => {
      const d = e.args?.data ?? e.args?.beginData ?? {};
      const fn = d.functionName || d.stackTrace?.[0]?.functionName;
      const url = (d.url || d.stackTrace?.[0]?.url || '').split('/').pop();
      return fn || url ? `${e.name} ${fn ?? ''} ${url ? `(${url}:${d.lineNumber ?? d.stackTrace?.[0]?.lineNumber ?? ''})` : ''}` : e.name;
    };
    const all = [t, ...inside];
    for (const e of all) {
      while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= e.ts) stack.pop();
      const parent = stack[stack.length - 1];
      if (parent) self.set(parent, (self.get(parent) ?? parent.dur) - e.dur);
      self.set(e, self.get(e) ?? e.dur);
      stack.push(e);
    }
    const sums = new Map();
    for (const [e, us] of self) sums.set(label(e), (sums.get(label(e)) ?? 0) + us);
    const top = [...sums].sort((a, b) => b[1] - a[1]).slice(0, 14);
    console.log(`task ${(t.dur / 1000).toFixed(1)} ms (CPU ${cpuMs(t).toFixed(1)} ms) on ${key} at ${(t.ts / 1000).toFixed(0)} ms:`);
    for (const [name, us] of top) if (us > 500) console.log(`  ${(us / 1000).toFixed(1).padStart(6)} ms  ${name}`);
    // The JavaScript it ran, by function (sampled: counts of samples, about 0.1 ms each).
    const js = new Map();
    let n = 0;
    for (const [ts, fn] of samples.get(key) ?? []) {
      if (ts < t.ts || ts > t.ts + t.dur) continue;
      js.set(fn, (js.get(fn) ?? 0) + 1);
      n += 1;
    }
    if (n) console.log(`  samples: ${[...js].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([f, c]) => `${f} ${c}`).join('; ')}`);
  }
}
