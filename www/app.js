// The playground's wiring: state -> controls, controls -> state, runs in workers,
// results -> table and charts. All text that comes from files, links or the engine is
// shown with textContent (never as HTML).
//
// The main thread loads the engine too, for the quick calls (strategy list, graph
// validation, fresh seeds, share links: the engine's codec writes and reads them);
// comparisons and timelines run in module workers.

import init, * as engine from './pkg/placesim.js';
import {
  State, linkOf, stateOf, scenarioOf, whatIfActive, setCluster, needsFcfs,
} from './state.js';
import { initSweep } from './sweep.js';
import {
  setAbstractUnits, isAbstractSpeed, formatSeconds, formatWallSeconds, formatBytes, formatRatio, formatSig,
  formatSpeed, unitNames, isBest, abstractUnits, formatRate, formatShare,
} from './units.js';

// Elements by id, untyped: the type check is for the engine's data and the State (an
// element's type is what index.html says, which tsc does not read).
/** @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);
/**
 * @typedef {import('./types.js').Comparison} Comparison
 * @typedef {import('./types.js').PairRun} PairRun
 * @typedef {import('./types.js').Strategies} Strategies
 * @typedef {{comparison: Comparison, key: string, ms: number, fragment?: string,
 *   graphText?: string | null, speedKey?: string}} Run a comparison the page ran
 */

const state = new State();
/** @type {import('./state.js').Registry} */
let all = { placers: [], schedulers: [] };
/** @type {Strategies} */
let strategyInfo = { placers: [], schedulers: [], link_queues: [] };
let graphIndex = [];
let clusterIndex = [];
let graphText = null; // text of the current graph (bundled or uploaded), null when missing
let graphName = null;
/** @type {Run | null} */
let current = null;
/** @type {Run | null} */
let baseline = null;
/**
 * @typedef {{placer: string, scheduler: string, order: string, seed: number,
 *   result: {timeline: import('./timeline-data.js').TimelineData}, scenario: string,
 *   graphText?: string | null, trace: Blob | null, ms?: number}} PairRunState a pair's run for a timeline
 *   (its timeline in typed arrays, worker.js)
 */
/** @type {PairRunState | null} */
let pairRun = null;
/** @type {PairRunState | null} the second timeline's run (state.pair2) */
let pairRun2 = null;
let charts = null;
/** @type {{render: () => void} | null} the Sweep panel (www/sweep.js) */
let sweepPanel = null;
let writtenHash = null;
/** @type {Record<string, any>} */
const timings = {};

// ---------------------------------------------------------------------------------------
// Workers.

/**
 * The engine compiled once: the page and every worker instantiate this one module, so V8
 * compiles and tiers up the engine's code once rather than once per worker (in Node's
 * workers, two cold workers ran the 20k-op comparison x1.23 faster than one, two warm ones
 * x1.75: each compiling its own copy cost the difference).
 * @type {Promise<WebAssembly.Module>}
 */
const engineModule = (async () => {
  const r = await fetch(new URL('./pkg/placesim_bg.wasm', import.meta.url));
  if (!r.ok) throw new Error(`the engine could not be fetched (HTTP ${r.status})`);
  try {
    return await WebAssembly.compileStreaming(r.clone());
  } catch {
    return WebAssembly.compile(await r.arrayBuffer()); // served without application/wasm
  }
})();

class Runner {
  constructor() {
    this.seq = 0;
    /** @type {{id: number, resolve: (m: any) => void, reject: (e: Error) => void,
     *   onProgress?: (done: number, total: number) => void} | null} */
    this.pending = null;
    /** @type {number | null} */
    this.loadedRun = null;
    /** @type {Promise<void> | null} a scenario being loaded ahead of a run (Pool.preload) */
    this.preloading = null;
    /** @type {import('./timeline-data.js').TimelineNames | null} the node ids this worker sent last */
    this.names = null;
    this.worker = this.spawn();
  }

  spawn() {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = (e) => this.receive(e.data);
    worker.onerror = (e) => {
      e.preventDefault();
      this.fail(`the engine worker failed: ${e.message || 'could not start'}`);
    };
    engineModule.then((module) => worker.postMessage({ type: 'module', module }),
      (e) => this.fail(`loading the engine failed: ${e.message || e}`));
    return worker;
  }

  start() {
    this.pending = null;
    /** @type {import('./timeline-data.js').TimelineNames | null} the node ids this worker sent last */
    this.names = null;
    /** @type {number | null} the pool's run whose scenario and graph this worker holds */
    this.loadedRun = null;
    this.worker = this.spawn();
  }

  receive(m) {
    const p = this.pending;
    if (m.type === 'ready') return;
    if (!p) return;
    if (m.id !== null && m.id !== p.id) return;
    if (m.type === 'progress') { p.onProgress?.(m.done, m.total); return; }
    this.pending = null;
    if (m.type === 'result') p.resolve(m);
    else {
      p.reject(new Error(m.message));
      if (m.fatal || m.id === null) { this.worker.terminate(); this.start(); }
    }
  }

  fail(message) {
    const p = this.pending;
    this.pending = null;
    this.worker.terminate();
    this.start();
    p?.reject(new Error(message));
  }

  /** Runs one request; a request still running is cancelled first. */
  run(msg, onProgress) {
    if (this.pending) this.cancel();
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending = { id, resolve, reject, onProgress };
      this.worker.postMessage({ ...msg, id });
    });
  }

  get busy() { return this.pending !== null; }

  /** Stops the running request: terminates the worker and starts a fresh one. */
  cancel() {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    this.worker.terminate();
    this.start();
    const e = Object.assign(new Error('cancelled'), { cancelled: true });
    p.reject(e);
  }
}

/** The least time between two drawings of a run's progress, ms. */
const PROGRESS_MS = 250;

/** The warm-up case's size (src/compare.rs `warm_up_case`): generated ops and devices. */
const WARM_UP = { ops: 2000, devices: 16 };

/**
 * A pool of engine workers for comparisons: the scenario's work items (src/compare.rs
 * `work_plan`) are handed one at a time to whichever worker is idle, and the partial
 * comparisons are merged by the engine in the items' fixed order (`merge_parts`), so the
 * result has the bits of one worker's. Progress sums over the workers; cancel stops them all.
 */
class Pool {
  /** @param {number} size */
  constructor(size) {
    this.runners = Array.from({ length: size }, () => new Runner());
    this.seq = 0;
    /** @type {number | null} the run under way */
    this.active = null;
    /** @type {Map<string, number>} each item's time in the last run that had it, ms */
    this.itemCost = new Map();
    /** @type {string | null} the graph text of the runs `itemCost` measured */
    this.costGraph = null;
    /** @type {Map<string, number>} each default placer's item time in the warm-up, ms */
    this.warmCost = new Map();
  }

  get size() { return this.runners.length; }

  /**
   * Runs a comparison; a run still under way is cancelled first.
   * @param {string} scenario @param {string | null} graphText
   * @param {(done: number, total: number) => void} [onProgress]
   * @returns {Promise<{result: Comparison, ms: number}>}
   */
  async run(scenario, graphText, onProgress) {
    const { parts, ms } = await this.runParts(scenario, graphText, onProgress);
    const tm = performance.now();
    const result = engine.merge_parts(scenario, parts);
    timings.lastPool.mergeMs = performance.now() - tm;
    return { result, ms: ms + timings.lastPool.mergeMs };
  }

  /**
   * Runs a comparison's work items and returns its partial comparisons, in the items'
   * order, unmerged (a sweep merges every factor's at once: sweep_merge).
   * @param {string} scenario @param {string | null} graphText
   * @param {(done: number, total: number) => void} [onProgress]
   * @returns {Promise<{parts: import('./types.js').Partial[], ms: number}>}
   */
  async runParts(scenario, graphText, onProgress) {
    // A run under way stops; a graph still being parsed ahead (preload) is waited for.
    this.active = null;
    for (const r of this.runners) if (!r.preloading) r.cancel();
    const run = ++this.seq;
    this.active = run;
    const t0 = performance.now();
    const plan = engine.work_plan(scenario, this.size);
    /** @type {import('./types.js').Partial[]} */
    const parts = new Array(plan.items.length);
    const done = new Array(plan.items.length).fill(0);
    const itemMs = new Array(plan.items.length).fill(0);
    // The page draws progress at most every PROGRESS_MS: on a 2-core machine, each drawing
    // (style, layout, paint, composite) is time taken from the workers.
    let reported = -Infinity;
    const report = () => {
      const now = performance.now();
      const sum = done.reduce((a, b) => a + b, 0);
      if (sum < plan.total && now - reported < PROGRESS_MS) return;
      reported = now;
      onProgress?.(sum, plan.total);
    };
    // Longest first (LPT): items go out in decreasing order of their time in the last run
    // that had them, so a long item does not start last while the other workers sit idle.
    // An item is known by its placers' names (what-ifs and seeds change its time little);
    // on another graph than the last runs', by the warm-up's times. Unknown items keep the
    // plan's order, after the known ones. The order only decides which worker runs an
    // item: parts are merged in the plan's order, so the bits are equal.
    const keys = plan.keys;
    if (this.costGraph !== graphText) this.itemCost = new Map(this.warmCost);
    this.costGraph = graphText;
    const cost = this.itemCost;
    const order = plan.items.map((_, k) => k)
      .sort((a, b) => (cost.get(keys[b]) ?? -1) - (cost.get(keys[a]) ?? -1));
    let next = 0;
    /** @param {Runner} runner */
    const work = async (runner) => {
      if (runner.preloading) await runner.preloading;
      while (this.active === run && next < plan.items.length) {
        const k = order[next++];
        // A worker keeps the run's scenario and graph loaded: the graph's text goes to it once.
        const first = runner.loadedRun !== run;
        runner.loadedRun = run;
        const m = await runner.run({ type: 'part', run, scenario, graphText: first ? graphText : null, items: [plan.items[k]] },
          (d) => { done[k] = d; report(); });
        parts[k] = m.result;
        itemMs[k] = m.ms;
        done[k] = plan.units[k];
        report();
      }
    };
    try {
      await Promise.all(this.runners.map(work));
    } catch (e) {
      if (this.active === run) this.cancel();
      throw e;
    }
    if (this.active !== run) throw Object.assign(new Error('cancelled'), { cancelled: true });
    this.active = null;
    // Where the time went: each item's time in its worker, and the merge's (run sets it).
    timings.lastPool = { workers: this.size, itemMs, order, mergeMs: 0 };
    keys.forEach((key, k) => this.itemCost.set(key, itemMs[k]));
    return { parts, ms: performance.now() - t0 };
  }

  /**
   * Has the idle workers load a scenario ahead of a run, so that its graph is parsed (once
   * per worker) while the user sets things up; a run of the same graph text reuses it.
   * @param {string} scenario @param {string | null} graphText
   */
  preload(scenario, graphText) {
    if (this.active !== null) return;
    for (const r of this.runners) {
      // A worker busy loading ahead (or warming up) loads this after it.
      if (r.busy && !r.preloading) continue;
      r.loadedRun = null;
      this.ahead(r, () => r.run({ type: 'load', scenario, graphText }));
    }
  }

  /**
   * Warms the engine, once per page: one worker runs a small generated comparison twice
   * (src/compare.rs `warm_up_case`), so that V8 has compiled the engine's hot functions to
   * optimized code before a large run needs them. The workers share the compiled module,
   * so all of them gain. Its items' times order a run of a new graph (longest first) until
   * runs of that graph measure their own. A run or a load that comes meanwhile waits for
   * it (at most a few hundred ms); Cancel stops it.
   */
  warmUp() {
    if (this.warmed || this.active !== null) return;
    this.warmed = true;
    const r = this.runners[0];
    if (r.busy && !r.preloading) return;
    this.ahead(r, () => r.run({ type: 'warm', ...WARM_UP }).then((m) => {
      timings.warmUpMs = m.ms;
      timings.warmUpCost = m.result;
      // Each placer's item time in the warm-up: a large first run hands out the longest first.
      for (const [key, ms] of Object.entries(m.result)) this.warmCost.set(key, ms);
    }));
  }

  /**
   * Queues a request that a run waits for (`Runner.preloading`) after the runner's earlier
   * ones; its error is dropped (the run reports its own).
   * @param {Runner} r @param {() => Promise<unknown>} request
   */
  ahead(r, request) {
    const p = (r.preloading ?? Promise.resolve()).then(request).then(() => {}, () => {})
      .finally(() => { if (r.preloading === p) r.preloading = null; });
    r.preloading = p;
  }

  /** Resolves when no worker is loading ahead. */
  preloaded() {
    return Promise.all(this.runners.map((r) => r.preloading));
  }

  /** Stops every worker's request (each worker is terminated and started afresh). */
  cancel() {
    this.active = null;
    for (const r of this.runners) r.cancel();
  }
}

/** Workers in the pool: one per core, at most 8; `?workers=N` in the page's query sets it. */
function poolSize() {
  const asked = Number(new URLSearchParams(location.search).get('workers'));
  if (Number.isInteger(asked) && asked >= 1) return Math.min(asked, 64);
  return Math.min(8, Math.max(1, navigator.hardwareConcurrency || 1));
}

/** @type {import('./types.js').Limits} the engine's input limits (set at start) */
let limits = { max_devices: 1024, max_seeds: 1000, min_positive: 1e-30, max_amount: 1e30 };
/** @type {{name: string, title: string, sentence: string}[]} the papers' experiments */
let presets = [];

/** @type {Pool} */
let comparePool;
let pairRunner;
/** @type {Runner | undefined} the second timeline's worker, started when first needed */
let pair2Runner;
let traceRunner;
let hashRunner;
/** @type {Runner} validates graph texts (and hashes uploads) off the main thread */
let inspectRunner;

// ---------------------------------------------------------------------------------------
// Small helpers.

function show(el, text) {
  el.textContent = text || '';
  el.hidden = !text;
}

/** A status message ("link copied", ...) at the top of the results, where the user looks. */
function notice(text) {
  show($('notice'), text);
}

/** Says, where the results would be, that there are none yet and why. */
function emptyResults(text) {
  if (current) return;
  $('results-empty').textContent = text;
}

function num(input) {
  const v = input.value.trim();
  if (v === '') return null;
  const x = Number(v);
  return Number.isFinite(x) ? x : null;
}

function setNum(input, x) { input.value = x == null ? '' : formatNumber(x); }

/** A number as links write it: the shorter of the plain and the exponent form, both exact. */
function formatNumber(x) {
  const plain = String(x).replace('e+', 'e');
  const exp = x.toExponential().replace('e+', 'e');
  return exp.length < plain.length ? exp : plain;
}

/** Saves a text or a Blob (a worker's, passed by reference) as a file. */
function download(name, text, type = 'application/json') {
  const url = URL.createObjectURL(text instanceof Blob ? text : new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function debounce(fn, ms) {
  let t = null;
  return (...args) => { clearTimeout(t); t = setTimeout(() => fn(...args), ms); };
}

/**
 * A row's key in the state's `pair` (and the link's): `placer/scheduler`, and
 * `/order` when the comparison has several link orders.
 * @param {string} p @param {string} s @param {string} [o]
 */
function pairKey(p, s, o) { return o ? `${p}/${s}/${o}` : `${p}/${s}`; }

/** @param {{placer: string, scheduler: string, link_order: string}} a @param {{placer: string, scheduler: string, link_order: string}} b */
function sameRow(a, b) { return a.placer === b.placer && a.scheduler === b.scheduler && a.link_order === b.link_order; }

/** Whether a comparison has rows of several link orders (the table's link order column). */
function manyOrders(c) { return new Set(c.results.map((r) => r.link_order)).size > 1; }

/** A row's name: `placer / scheduler`, and `/ order` when there are several. */
function rowLabel(r, many = !!current && manyOrders(current.comparison)) {
  return many ? `${r.placer} / ${r.scheduler} / ${r.link_order}` : `${r.placer} / ${r.scheduler}`;
}

// ---------------------------------------------------------------------------------------
// Graph.

/**
 * Validates a graph's text in a worker (never on the main thread: a 48k-op graph takes
 * hundreds of ms): its summary; with `hash`, its SHA-256 and whether a link names it by
 * hash (too large to embed); with `linked`, throws unless it is the file a link names.
 * @param {string} text @param {string} name
 * @param {{hash?: boolean, linked?: import('./types.js').GraphHash | null}} [opts]
 * @returns {Promise<{info: import('./types.js').GraphInfo, sha256: string | null, hashed: boolean}>}
 */
async function inspectGraph(text, name, opts = {}) {
  const m = await inspectRunner.run({ type: 'inspect', text, name, hash: !!opts.hash, linked: opts.linked ?? null });
  return m.result;
}

/** @param {{name: string, text: string}} u @param {{sha256: string | null, hashed: boolean}} r */
function knowUpload(u, r) {
  if (r.sha256) uploadShas.set(u, Promise.resolve(r.sha256));
  if (r.sha256 && r.hashed) uploadHashes.set(u, { sha256: r.sha256, name: u.name });
}

/**
 * Loads the state's graph (fetches a bundled one) and validates it in a worker; `known` is
 * the summary of a text the worker has validated already (an upload).
 * @param {import('./types.js').GraphInfo} [known]
 */
async function loadGraph(known) {
  show($('graph-error'), '');
  $('hash-ask').hidden = true;
  graphText = null;
  graphName = null;
  $('graph-info').textContent = '';
  if (state.graphHash) {
    $('hash-ask-text').textContent = `This link uses the graph '${state.graphHash.name}', which is too large to embed. `
      + `Give that file (SHA-256 ${state.graphHash.sha256}) to run it.`;
    $('hash-ask').hidden = false;
    return false;
  }
  let text;
  let name;
  if (state.upload) {
    text = state.upload.text;
    name = state.upload.name;
  } else {
    name = state.graph;
    try {
      const r = await fetch(`graphs/${encodeURIComponent(name)}.json`);
      if (!r.ok) throw new Error(`the bundled graph '${name}' is not on this site (HTTP ${r.status})`);
      text = await r.text();
    } catch (e) {
      show($('graph-error'), e.message);
      return false;
    }
  }
  try {
    const info = known ?? (await inspectGraph(text, name)).info;
    graphText = text;
    graphName = name;
    try { comparePool.preload(JSON.stringify(scenarioOf(state, all, false)), text); } catch { /* the run says why */ }
    if (state.replica) renderPs(); // the loss op candidates are this graph's
    $('graph-info').textContent = `${info.name}: ${info.nodes} ops, ${info.edges} edges, `
      + `${info.colocation_groups} colocation groups${state.upload ? ' (uploaded)' : ''}`
      + (state.upload ? (importNotes.get(state.upload) ?? []).map((n) => `\n${n}`).join('') : '');
    return true;
  } catch (e) {
    show($('graph-error'), e.message);
    return false;
  }
}

/** What importing an uploaded ONNX model reported (ops not sized...), by upload. */
/** @type {WeakMap<object, string[]>} */
const importNotes = new WeakMap();

/**
 * An uploaded file's graph JSON text and import notes: an ONNX model (`.onnx`, or protobuf's
 * first byte 0x08) is imported by the engine in a worker; graph JSON is read as text.
 * @param {File} file @returns {Promise<{text: string, notes: string[]}>}
 */
async function readFile(file) {
  if (file.size > 200 * 1024 * 1024) throw new Error(`${file.name}: larger than 200 MB`);
  const head = new Uint8Array(await file.slice(0, 1).arrayBuffer());
  if (!/\.onnx$/i.test(file.name) && head[0] !== 0x08) return { text: await file.text(), notes: [] };
  const bytes = new Uint8Array(await file.arrayBuffer());
  const batch = Number(/** @type {HTMLInputElement} */ ($('onnx-batch')).value);
  const m = await hashRunner.run({
    type: 'import', bytes, name: file.name,
    train: /** @type {HTMLInputElement} */ ($('onnx-train')).checked,
    batch: Number.isInteger(batch) && batch > 0 ? batch : 0,
    shapes: /** @type {HTMLInputElement} */ ($('onnx-shapes')).value.split(',').map((x) => x.trim()).filter(Boolean),
  });
  return /** @type {{text: string, notes: string[]}} */ (m.result);
}

async function upload(file) {
  show($('graph-error'), '');
  let text;
  let notes;
  try { ({ text, notes } = await readFile(file)); } catch (e) { show($('graph-error'), e.message); return; }
  const stem = file.name.replace(/\.(json|onnx)$/i, '') || 'graph';
  let r;
  try {
    // Parsed, validated and hashed once, in a worker.
    r = await inspectGraph(text, stem, { hash: true });
  } catch (e) {
    if (e.cancelled) return;
    // Keep the previous graph; say what is wrong with this file.
    show($('graph-error'), `${file.name}: ${e.message}`);
    return;
  }
  state.upload = { name: r.info.name, text };
  importNotes.set(state.upload, notes);
  state.graphHash = null;
  knowUpload(state.upload, r);
  renderGraphSelect();
  await loadGraph(r.info);
  staleResults();
}

async function giveHashedFile(file) {
  let text;
  try { ({ text } = await readFile(file)); } catch (e) { show($('graph-error'), e.message); return; }
  const linked = state.graphHash;
  if (!linked) return;
  let r;
  try {
    // The hash check (and the parse) in a worker: the main thread never hashes a big file.
    r = await inspectGraph(text, linked.name, { hash: true, linked });
  } catch (e) {
    if (e.cancelled) return;
    show($('graph-error'), `${file.name}: ${e.message}`);
    return;
  }
  state.upload = { name: linked.name, text };
  state.graphHash = null;
  knowUpload(state.upload, r);
  if (await loadGraph(r.info)) runComparison();
}

function renderGraphSelect() {
  const sel = $('graph-select');
  sel.replaceChildren();
  if (state.upload || state.graphHash) {
    const name = state.upload?.name ?? state.graphHash?.name;
    sel.append(new Option(`uploaded: ${name}`, ''));
  }
  for (const g of graphIndex) {
    sel.append(new Option(`${g.name} (${g.nodes} ops)`, g.name));
  }
  if (!state.upload && !state.graphHash && !graphIndex.some((g) => g.name === state.graph)) {
    sel.append(new Option(`${state.graph} (not on this site)`, state.graph));
  }
  sel.value = state.upload || state.graphHash ? '' : state.graph;
}

// ---------------------------------------------------------------------------------------
// Controls <-> state.

/** @type {[string, 'speed' | 'bandwidth' | 'latency', 0 | 1][]} */
const GEN_INPUTS = [
  ['gen-speed-lo', 'speed', 0], ['gen-speed-hi', 'speed', 1],
  ['gen-bw-lo', 'bandwidth', 0], ['gen-bw-hi', 'bandwidth', 1],
  ['gen-lat-lo', 'latency', 0], ['gen-lat-hi', 'latency', 1],
];

function renderControls() {
  renderGraphSelect();
  const explicit = state.cluster === 'explicit' || state.clusterJson;
  $('mode-generate').checked = !explicit;
  $('mode-explicit').checked = !!explicit;
  $('gen-box').hidden = !!explicit;
  $('table-box').hidden = !explicit;
  $('gen-devices').value = String(state.devices);
  $('gen-kinds').value = state.kinds.join(',');
  for (const [id, field, i] of GEN_INPUTS) setNum($(id), state[field][i]);
  setNum($('gen-memory'), state.memory);
  setNum($('gen-memfraction'), state.memfraction);
  renderDeviceTable();
  setNum($('table-bw'), state.clusterJson ? state.clusterJson.bandwidth : state.bw);
  setNum($('table-lat'), state.clusterJson ? (state.clusterJson.latency ?? 0) : state.lat);
  $('cluster-extra').hidden = !state.clusterJson;
  const whole = state.clusterJson;
  if (whole) {
    const extra = ['links', 'link_types', 'kinds'].filter((k) => k in whole);
    $('cluster-extra').textContent = `${whole.name || 'This cluster'} also has ${extra.join(', ') || 'other settings'}; `
      + 'they are kept (the table edits its devices).';
  }
  renderClusterPresets();
  $('links').value = state.links;
  $('footprint').value = state.footprint;
  renderStrategies();
  renderPs();
  sweepPanel?.render();
  setNum($('rand-cost-lo'), state.randcost?.[0]);
  setNum($('rand-cost-hi'), state.randcost?.[1]);
  setNum($('rand-bytes-lo'), state.randbytes?.[0]);
  setNum($('rand-bytes-hi'), state.randbytes?.[1]);
  setNum($('rand-mem-lo'), state.randmem?.[0]);
  setNum($('rand-mem-hi'), state.randmem?.[1]);
  $('random-box').open = !!(state.randcost || state.randbytes || state.randmem);
  $('seeds').value = String(state.seeds);
  $('seed').value = String(state.seed);
  $('pair-seed').value = String(state.pairSeed);
  $('log-scale').checked = state.logScale;
  renderUnitLabels();
  renderWhatIf();
}

function renderClusterPresets() {
  const sel = $('cluster-preset');
  sel.replaceChildren(new Option(clusterIndex.length ? 'choose…' : 'none on this site', ''));
  for (const c of clusterIndex) sel.append(new Option(`${c.name} (${c.devices} devices)`, c.name));
  sel.value = '';
}

/** Loads cluster JSON text into the state after the engine has validated it. */
function useClusterText(text, label) {
  show($('cluster-error'), '');
  try {
    engine.validate_cluster(text);
    setCluster(state, JSON.parse(text));
  } catch (e) {
    show($('cluster-error'), `${label}: ${e.message}`);
    return;
  }
  renderControls();
  staleResults();
}

function renderDeviceTable() {
  const body = $('device-table').tBodies[0];
  body.replaceChildren();
  state.dev.forEach((d, i) => {
    const tr = document.createElement('tr');
    const cell = (field, type, value) => {
      const td = document.createElement('td');
      const input = document.createElement('input');
      input.type = type;
      if (type === 'number') { input.step = 'any'; input.min = '0'; }
      input.value = value;
      input.setAttribute('aria-label', `device ${i + 1} ${field}`);
      input.addEventListener('change', () => {
        const row = state.dev[i];
        if (field === 'id') {
          if (row.id in state.whatifSpeeds) {
            state.whatifSpeeds[input.value] = state.whatifSpeeds[row.id];
            delete state.whatifSpeeds[row.id];
          }
          row.id = input.value;
        }
        else if (field === 'kind') { if (input.value) row.kind = input.value; else delete row.kind; }
        else if (field === 'speed') row.speed = num(input) ?? row.speed;
        else if (field === 'memory') { const m = num(input); if (m == null) delete row.memory; else row.memory = m; }
        syncCluster();
        renderWhatIf();
        staleResults();
      });
      td.append(input);
      tr.append(td);
    };
    cell('id', 'text', d.id);
    cell('kind', 'text', d.kind || '');
    cell('speed', 'number', formatNumber(d.speed));
    cell('memory', 'number', d.memory == null ? '' : formatNumber(d.memory));
    const td = document.createElement('td');
    const rm = document.createElement('button');
    rm.type = 'button';
    rm.textContent = 'remove';
    rm.disabled = state.dev.length <= 1;
    rm.addEventListener('click', () => {
      const [gone] = state.dev.splice(i, 1);
      delete state.whatifSpeeds[gone.id];
      syncCluster();
      renderDeviceTable();
      renderWhatIf();
      staleResults();
    });
    td.append(rm);
    tr.append(td);
    body.append(tr);
  });
}

// Table edits of a whole cluster from a link (clusterz) go into its JSON too.
function syncCluster() {
  if (!state.clusterJson) return;
  state.clusterJson.bandwidth = num($('table-bw')) ?? state.clusterJson.bandwidth;
  state.clusterJson.latency = num($('table-lat')) ?? 0;
}

function renderStrategies() {
  const list = (el, infos, field) => {
    el.replaceChildren();
    const chosen = state[field] ?? all[field];
    for (const s of infos) {
      const label = document.createElement('label');
      label.className = 'strategy';
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.value = s.name;
      box.checked = chosen.includes(s.name);
      box.addEventListener('change', () => {
        const picked = [...el.querySelectorAll('input:checked')].map((b) => b.value);
        state[field] = picked.length === all[field].length && picked.every((x, i) => x === all[field][i]) ? null : picked;
        renderPestoBox();
        staleResults();
      });
      const name = document.createElement('b');
      name.textContent = s.name;
      const summary = document.createElement('span');
      summary.className = 'summary';
      summary.textContent = s.summary;
      label.append(box, ' ', name, ' ', summary);
      el.append(label);
    }
  };
  list($('placer-list'), strategyInfo.placers, 'placers');
  list($('scheduler-list'), strategyInfo.schedulers, 'schedulers');
  const params = $('param-list');
  params.replaceChildren();
  const every = [...strategyInfo.placers, ...strategyInfo.schedulers, ...strategyInfo.link_queues];
  for (const s of every) {
    for (const p of s.params) params.append(paramLabel(s.name, p));
  }
  if (!params.childElementCount) params.textContent = 'No strategy has parameters.';
  renderPestoBox();
  const orders = $('order-list');
  orders.replaceChildren();
  for (const q of strategyInfo.link_queues) {
    const label = document.createElement('label');
    label.title = q.summary;
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = q.name;
    box.checked = state.orders.includes(q.name);
    box.setAttribute('aria-describedby', 'ps-note');
    label.append(box, ` ${q.name}`);
    orders.append(label);
  }
}

// ---------------------------------------------------------------------------------------
// Parameter servers (TicTac19), iterations and link orders.

/** The engine's most iterations per seed (src/scenario/mod.rs MAX_ITERATIONS). */
const MAX_ITERATIONS = 10000;
/** TensorFlow's loss op, the end of TicTac19's forward runs. */
const LOSS_OP = 'SparseSoftmaxCrossEntropyWithLogits';
/** The forward/training choice while forward-only has no loss op yet (the state says training). */
let forwardWanted = false;
/** Why the panel changed something else (links, orders): said under it. */
let psNote = '';

/** The device ids of the state's cluster (a generated one's are d0 .. d{n-1}). */
function deviceIds() {
  if (state.cluster === 'generate' && !state.clusterJson) return Array.from({ length: state.devices }, (_, i) => `d${i}`);
  return state.dev.map((d) => d.id);
}

/**
 * The node ids of the current graph that contain TensorFlow's loss op name, the most likely
 * first (outside gradients, shortest). A text search: the graph is never parsed here.
 * @returns {string[]}
 */
function lossCandidates() {
  if (!graphText || !graphText.includes(LOSS_OP)) return [];
  const found = new Set();
  const re = /"id"\s*:\s*"((?:[^"\\]|\\.)*)"/g;
  let m;
  while ((m = re.exec(graphText)) && found.size < 200) {
    if (m[1].includes(LOSS_OP)) found.add(JSON.parse(`"${m[1]}"`));
  }
  // The op itself (its own name is the loss op's), outside gradients, then the shortest id.
  const rank = (id) => (/(^|\/)gradients/.test(id) ? 2 : id.split('/').pop().includes(LOSS_OP) ? 0 : 1);
  return [...found].sort((a, b) => rank(a) - rank(b) || a.length - b.length || (a < b ? -1 : 1));
}

/** A comma-separated list of ids, trimmed, empty items dropped. */
function idList(text) { return text.split(',').map((x) => x.trim()).filter((x) => x); }

function renderPs() {
  const r = state.replica;
  $('replica-on').checked = !!r;
  $('replica-box').hidden = !r;
  if (r) {
    $('replica-workers').value = r.workers.join(', ');
    $('replica-ps').value = r.ps.join(', ');
    const forward = r.target !== null || forwardWanted;
    $('replica-forward').checked = forward;
    $('replica-train').checked = !forward;
    $('replica-target-label').hidden = !forward;
    $('replica-target').value = r.target ?? '';
    setNum($('replica-balance'), r.balance);
    $('replica-aggregate').checked = r.aggregate;
    const cands = lossCandidates();
    $('replica-target-list').replaceChildren(...cands.slice(0, 20).map((id) => new Option(id, id)));
    const ids = new Set(deviceIds());
    const unknown = [...r.workers, ...r.ps].filter((id) => !ids.has(id));
    $('replica-target-info').textContent = [
      forward && r.target === null
        ? (graphText && !cands.length
          ? `This graph has no node whose id contains ${LOSS_OP}: type the id of its loss op, or choose training.`
          : 'Type the id of the loss op (the forward pass is pruned to it and its ancestors).')
        : '',
      unknown.length ? `Not devices of this cluster: ${unknown.join(', ')} (the cluster has ${[...ids].slice(0, 8).join(', ')}${ids.size > 8 ? ', …' : ''}).` : '',
    ].filter((x) => x).join(' ');
  }
  $('iterations').value = String(state.iterations);
  for (const box of $('order-list').querySelectorAll('input')) box.checked = state.orders.includes(box.value);
  const forced = needsFcfs(state);
  const links = $('links');
  links.disabled = forced;
  const why = state.replica ? 'a replica' : `the link order${state.orders.length > 1 ? 's' : ''} ${state.orders.filter((o) => o !== 'fifo').join(', ')}`;
  show($('links-note'), forced ? `Links are fcfs: ${why} orders transfers that wait for a link, and parallel links never make one wait.` : '');
  show($('ps-note'), psNote);
}

/** A replica of the state's cluster: its first device the server, the others workers. */
function defaultReplica() {
  const ids = deviceIds();
  const loss = lossCandidates()[0] ?? null;
  return {
    workers: ids.slice(1), ps: ids.slice(0, 1), target: loss, aggregate: false, balance: null, paramOps: null, sources: false,
  };
}

function bindPs() {
  const changed = (note = '') => {
    psNote = note;
    if (needsFcfs(state) && state.links !== 'fcfs') {
      state.links = 'fcfs';
      $('links').value = 'fcfs';
    }
    renderPs();
    staleResults();
  };
  $('replica-on').addEventListener('change', (e) => {
    if (!e.target.checked) { state.replica = null; forwardWanted = false; changed(); return; }
    const ids = deviceIds();
    if (ids.length < 2) {
      e.target.checked = false;
      changed('A replica needs at least two devices: a parameter server and a worker.');
      return;
    }
    state.replica = defaultReplica();
    forwardWanted = state.replica.target !== null;
    const notes = [`Server ${state.replica.ps.join(', ')}, workers ${state.replica.workers.join(', ')}: edit them above.`];
    if (state.orders.length === 1 && state.orders[0] === 'fifo') {
      state.orders = strategyInfo.link_queues.map((q) => q.name).filter((n) => ['random', 'tio', 'tao'].includes(n));
      notes.push(`Link orders set to ${state.orders.join(', ')} (TicTac19's comparison).`);
    }
    if (state.links !== 'fcfs') notes.push('Links set to fcfs.');
    changed(notes.join(' '));
  });
  const ids = (id, field) => $(id).addEventListener('change', (e) => {
    if (!state.replica) return;
    state.replica[field] = idList(e.target.value);
    changed();
  });
  ids('replica-workers', 'workers');
  ids('replica-ps', 'ps');
  for (const id of ['replica-forward', 'replica-train']) {
    $(id).addEventListener('change', (e) => {
      if (!state.replica) return;
      forwardWanted = e.target.value === 'forward';
      state.replica.target = forwardWanted ? (lossCandidates()[0] ?? null) : null;
      changed();
    });
  }
  $('replica-target').addEventListener('change', (e) => {
    if (!state.replica) return;
    state.replica.target = e.target.value.trim() || null;
    changed();
  });
  $('replica-balance').addEventListener('change', (e) => {
    if (!state.replica) return;
    const v = num(e.target);
    state.replica.balance = v != null && v > 0 ? v : null;
    changed();
  });
  $('replica-aggregate').addEventListener('change', (e) => {
    if (!state.replica) return;
    state.replica.aggregate = e.target.checked;
    changed();
  });
  $('iterations').addEventListener('change', (e) => {
    const n = Math.round(Number(e.target.value));
    if (n >= 1 && n <= MAX_ITERATIONS) { state.iterations = n; changed(); return; }
    e.target.value = String(state.iterations);
    changed(`Iterations go from 1 to ${MAX_ITERATIONS} (the engine's limit); kept ${state.iterations}.`);
  });
  $('order-list').addEventListener('change', () => {
    const picked = [...$('order-list').querySelectorAll('input:checked')].map((b) => b.value);
    if (!picked.length) { changed(`Choose at least one link order; kept ${state.orders.join(', ')}.`); return; }
    const was = state.links;
    state.orders = picked;
    changed(needsFcfs(state) && was !== 'fcfs' ? 'Links set to fcfs: a link order other than fifo orders transfers that wait for a link.' : '');
  });
}

function bindControls() {
  $('graph-select').addEventListener('change', async (e) => {
    const v = e.target.value;
    if (!v) return;
    state.graph = v;
    state.upload = null;
    state.graphHash = null;
    renderGraphSelect();
    await loadGraph();
    staleResults();
  });
  $('graph-file').addEventListener('change', (e) => {
    if (e.target.files[0]) upload(e.target.files[0]);
    e.target.value = '';
  });
  $('hash-file').addEventListener('change', (e) => {
    if (e.target.files[0]) giveHashedFile(e.target.files[0]);
    e.target.value = '';
  });
  const zone = $('drop-zone');
  // The drop zone is a button too: Enter or Space (or a click) opens the file picker.
  zone.setAttribute('role', 'button');
  zone.addEventListener('keydown', (e) => {
    if (e.target !== zone || (e.key !== 'Enter' && e.key !== ' ')) return;
    e.preventDefault();
    (state.graphHash ? $('hash-file') : $('graph-file')).click();
  });
  zone.addEventListener('click', (e) => {
    if (e.target === zone || (e.target instanceof Element && e.target.tagName === 'SPAN' && !e.target.closest('label'))) {
      (state.graphHash ? $('hash-file') : $('graph-file')).click();
    }
  });
  for (const t of ['dragenter', 'dragover']) {
    zone.addEventListener(t, (e) => { e.preventDefault(); zone.classList.add('over'); });
  }
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    const f = e.dataTransfer?.files?.[0];
    if (f) (state.graphHash ? giveHashedFile(f) : upload(f));
  });
  // A file dropped elsewhere must not navigate away from the page.
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());

  $('cluster-preset').addEventListener('change', async (e) => {
    const name = e.target.value;
    if (!name) return;
    try {
      const r = await fetch(`graphs/clusters/${encodeURIComponent(name)}.json`);
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      useClusterText(await r.text(), name);
    } catch (err) {
      show($('cluster-error'), `${name}: ${err.message}`);
    }
  });
  $('cluster-file').addEventListener('change', async (e) => {
    const f = e.target.files[0];
    e.target.value = '';
    if (!f) return;
    try { useClusterText((await readFile(f)).text, f.name); } catch (err) { show($('cluster-error'), `${f.name}: ${err.message}`); }
  });
  for (const id of ['mode-generate', 'mode-explicit']) {
    $(id).addEventListener('change', (e) => {
      state.cluster = e.target.value;
      if (state.cluster === 'generate') state.clusterJson = null;
      state.whatifSpeeds = {};
      renderControls();
      staleResults();
    });
  }
  $('gen-devices').addEventListener('change', (e) => {
    const n = Math.round(Number(e.target.value));
    if (!(n >= 1 && n <= limits.max_devices)) {
      // The engine's limit (src/model/cluster.rs MAX_DEVICES): said where the user looks.
      e.target.value = String(state.devices);
      notice(`A generated cluster has 1 to ${limits.max_devices} devices (the engine's limit); kept ${state.devices}.`);
      return;
    }
    state.devices = n;
    // Speeds of devices the cluster no longer has (a generated device is d0 .. d{n-1}).
    for (const id of Object.keys(state.whatifSpeeds)) {
      const m = /^d(0|[1-9][0-9]*)$/.exec(id);
      if (!m || Number(m[1]) >= n) delete state.whatifSpeeds[id];
    }
    staleResults();
  });
  $('gen-kinds').addEventListener('change', (e) => {
    state.kinds = e.target.value.split(',').map((k) => k.trim()).filter((k) => k);
    staleResults();
  });
  for (const [id, field, i] of GEN_INPUTS) {
    $(id).addEventListener('change', (e) => {
      const v = num(e.target);
      if (v != null) { state[field] = [...state[field]]; state[field][i] = v; }
      staleResults();
    });
  }
  $('gen-memory').addEventListener('change', (e) => { state.memory = num(e.target); staleResults(); });
  $('gen-memfraction').addEventListener('change', (e) => { state.memfraction = num(e.target); staleResults(); });
  $('table-bw').addEventListener('change', (e) => {
    const v = num(e.target);
    if (v != null) state.bw = v;
    syncCluster();
    staleResults();
  });
  $('table-lat').addEventListener('change', (e) => {
    state.lat = num(e.target) ?? 0;
    syncCluster();
    staleResults();
  });
  $('add-device').addEventListener('click', () => {
    let n = state.dev.length;
    while (state.dev.some((d) => d.id === `dev${n}`)) n++;
    state.dev.push({ id: `dev${n}`, kind: 'gpu', speed: 1e13 });
    renderDeviceTable();
    renderWhatIf();
    staleResults();
  });
  $('links').addEventListener('change', (e) => { state.links = e.target.value; staleResults(); });
  $('footprint').addEventListener('change', (e) => { state.footprint = e.target.value; staleResults(); });
  const randRange = (lo, hi, field) => {
    const update = () => {
      const a = num($(lo));
      const b = num($(hi));
      state[field] = a == null && b == null ? null : [a ?? b, b ?? a];
      staleResults();
    };
    $(lo).addEventListener('change', update);
    $(hi).addEventListener('change', update);
  };
  randRange('rand-cost-lo', 'rand-cost-hi', 'randcost');
  randRange('rand-bytes-lo', 'rand-bytes-hi', 'randbytes');
  randRange('rand-mem-lo', 'rand-mem-hi', 'randmem');
  $('seeds').addEventListener('change', (e) => {
    const n = Math.round(Number(e.target.value));
    if (n >= 1 && n <= limits.max_seeds) state.seeds = n;
    else {
      e.target.value = String(state.seeds);
      notice(`Seeds go from 1 to ${limits.max_seeds} (the engine's limit); kept ${state.seeds}.`);
    }
    staleResults();
  });
  $('seed').addEventListener('change', (e) => {
    const n = Number(e.target.value);
    if (Number.isSafeInteger(n) && n >= 0) state.seed = n;
    else e.target.value = String(state.seed);
    staleResults();
  });
  $('new-seed').addEventListener('click', () => {
    state.seed = engine.fresh_seed();
    $('seed').value = String(state.seed);
    staleResults();
  });
  $('run').addEventListener('click', () => runComparison());
  $('preset').addEventListener('change', (e) => {
    const name = e.target.value;
    e.target.value = '';
    if (name) openPreset(name);
  });
  $('cancel').addEventListener('click', () => {
    comparePool.cancel();
    pairRunner.cancel();
    traceRunner.cancel();
  });

  // What-if: log2 sliders, debounced automatic re-runs.
  const rerun = debounce(() => runComparison({ auto: true }), 300);
  $('wi-compute').addEventListener('input', (e) => {
    state.whatifCompute = factor(e.target.value);
    $('wi-compute-out').textContent = formatFactor(state.whatifCompute);
    syncWhatIfRows();
    syncUrl();
    rerun();
  });
  $('wi-bw').addEventListener('input', (e) => {
    state.whatifBandwidth = factor(e.target.value);
    $('wi-bw-out').textContent = formatFactor(state.whatifBandwidth);
    syncUrl();
    rerun();
  });
  $('wi-lat').addEventListener('input', (e) => {
    state.whatifLatency = factor(e.target.value);
    $('wi-lat-out').textContent = formatFactor(state.whatifLatency);
    syncUrl();
    rerun();
  });
  // Per-device speeds: the slider scales the device's base speed (log2), the number is the
  // speed itself. Sliding back to 1x or emptying the number clears the device's speed.
  $('wi-devices').addEventListener('input', (e) => {
    const t = e.target;
    if (t.type !== 'range' || t.dataset.device === undefined) return;
    const id = t.dataset.device;
    const base = whatIfBases()?.get(id);
    const f = factor(t.value);
    if (f === 1 || base == null) delete state.whatifSpeeds[id];
    else state.whatifSpeeds[id] = Number((base * f).toPrecision(6));
    syncWhatIfRows();
    syncUrl();
    rerun();
  });
  $('wi-devices').addEventListener('change', (e) => {
    const t = e.target;
    if (t.type !== 'number' || t.dataset.device === undefined) return;
    const id = t.dataset.device;
    const v = num(t);
    const explicit = state.cluster === 'explicit' || state.clusterJson;
    if (t.value.trim() === '' || (explicit && v === whatIfBases()?.get(id))) delete state.whatifSpeeds[id];
    else if (v != null && v > 0) state.whatifSpeeds[id] = v;
    else { // not a speed: show the current one again
      const base = whatIfBases()?.get(id);
      const cur = state.whatifSpeeds[id] ?? (base == null ? null : Number(base.toPrecision(4)));
      t.value = cur == null ? '' : formatNumber(cur);
      return;
    }
    syncWhatIfRows();
    syncUrl();
    rerun();
  });
  $('wi-reset').addEventListener('click', () => {
    state.whatifCompute = 1;
    state.whatifBandwidth = 1;
    state.whatifLatency = 1;
    state.whatifSpeeds = {};
    renderWhatIf();
    runComparison({ auto: true });
  });

  // Results: each header is a sort button (keyboard too); rows by arrows and Enter.
  for (const th of $('results-table').tHead.rows[0].cells) {
    const button = document.createElement('button');
    button.type = 'button';
    button.append(...th.childNodes);
    th.append(button);
    button.addEventListener('click', () => {
      const k = th.dataset.sort;
      // Ascending first; the same column again flips it ('-' first: descending).
      state.sort = state.sort === k ? `-${k}` : k;
      syncUrl();
      renderTable();
    });
  }
  bindTableRows();
  $('log-scale').addEventListener('change', (e) => {
    state.logScale = e.target.checked;
    syncUrl();
    drawCharts();
  });
  $('copy-md').addEventListener('click', async () => {
    if (!current) return;
    const md = toMarkdown(current.comparison);
    try {
      await navigator.clipboard.writeText(md);
      notice('The results are copied as a Markdown table.');
    } catch {
      download('placesim-comparison.md', md, 'text/markdown');
      notice('No clipboard here: the Markdown table was downloaded instead.');
    }
  });
  $('export-json').addEventListener('click', () => {
    if (current) download('placesim-comparison.json', JSON.stringify(current.comparison, null, 2));
  });
  $('export-csv').addEventListener('click', () => {
    if (current) download('placesim-comparison.csv', toCsv(current.comparison), 'text/csv');
  });
  $('export-trace').addEventListener('click', async () => {
    if (!pairRun) return;
    const p = pairRun;
    const trace = await traceOf(p);
    if (trace) download(`${p.placer}-${p.scheduler}-${p.order}-seed${p.seed}.trace.json`, trace);
  });
  $('share').addEventListener('click', async () => {
    let url;
    try { url = location.origin + location.pathname + writeHash(); } catch (e) { show($('run-error'), e.message); return; }
    notice('');
    const box = $('share-url');
    box.value = url;
    box.hidden = false;
    box.select();
    try { await navigator.clipboard.writeText(url); notice('Link copied.'); } catch { notice('The link is in the box above: copy it from there.'); }
  });
  $('pair-select').addEventListener('change', (e) => {
    const [p, s, o] = e.target.value.split('\n');
    choosePair(p, s, o);
  });
  $('pair2-select').addEventListener('change', (e) => {
    const [p, s, o] = e.target.value.split('\n');
    state.pair2 = e.target.value ? pairKey(p, s, current && manyOrders(current.comparison) ? o : undefined) : null;
    syncUrl();
    runPair2();
  });
  $('open-perfetto').addEventListener('click', () => openInPerfetto());
  $('pair-seed').addEventListener('change', (e) => {
    const n = Number(e.target.value);
    if (Number.isInteger(n) && n >= 0) state.pairSeed = n;
    e.target.value = String(state.pairSeed);
    syncUrl();
    runPair();
  });
  for (const b of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-export]'))) {
    b.addEventListener('click', () => exportChart(b.dataset.export, b.dataset.fmt));
  }
  window.addEventListener('hashchange', async () => {
    if (location.hash === writtenHash) return;
    await openLink(location.hash);
  });
}

const factor = (v) => Number((2 ** Number(v)).toPrecision(6));
const formatFactor = (f) => String(Number(f.toPrecision(3)));

/**
 * The devices the what-if panel shows, id -> base speed (the controls' 1x), or null when
 * there is none to show yet. A device table's base is its table speed. A generated
 * cluster's devices (d0, d1, ...) draw their speeds per seed: the base is the baseline
 * comparison's speed of the device, the mean of its draws over the seeds, when the
 * baseline ran the current cluster settings, seeds and seed.
 */
function whatIfBases() {
  if (state.cluster === 'explicit' || state.clusterJson) {
    return new Map(state.dev.map((d) => [d.id, d.speed]));
  }
  const row = baseline?.comparison.results[0];
  if (!row || !baseline || baseline.speedKey !== speedKey(scenarioOf(state, all, false))) return null;
  return new Map(row.devices.map((d) => [d.id, d.speed]));
}

/** What a generated cluster's device speeds depend on (the graph and strategies do not count). */
function speedKey(sc) {
  return JSON.stringify([sc.cluster, sc.seeds, sc.seed]);
}

const DEVICE_HELP = {
  explicit: 'Device speeds: a slider scales the device\'s table speed (1× = the table), the number is the speed itself. '
    + 'A set speed replaces the table\'s, and the compute scale multiplies it like every other device\'s; '
    + 'the factor on the right is the device\'s total change (its own × the compute scale).',
  generate: 'Device speeds: a generated device draws its speed per seed; a slider scales its mean speed over the '
    + 'seeds (1× = no change), the number is the speed itself. A set speed replaces that device\'s drawn speed in '
    + 'every seed, and the compute scale multiplies it like every other device\'s; the factor on the right is the '
    + 'device\'s total change. Empty the number to go back to the drawn speeds.',
  waiting: 'Run the comparison to get a speed control per generated device (each starts at the device\'s mean '
    + 'speed over the seeds).',
};

function renderWhatIf() {
  const v = (f) => String(Math.round(Math.log2(f) * 10) / 10);
  $('wi-compute').value = v(state.whatifCompute);
  $('wi-compute-out').textContent = formatFactor(state.whatifCompute);
  $('wi-bw').value = v(state.whatifBandwidth);
  $('wi-bw-out').textContent = formatFactor(state.whatifBandwidth);
  $('wi-lat').value = v(state.whatifLatency);
  $('wi-lat-out').textContent = formatFactor(state.whatifLatency);
  const bases = whatIfBases();
  const explicit = state.cluster === 'explicit' || state.clusterJson;
  $('wi-devices-help').textContent = DEVICE_HELP[explicit ? 'explicit' : bases ? 'generate' : 'waiting'];
  const box = $('wi-devices');
  // The same devices with the same bases: update in place (a slider may be held right now).
  const sig = bases ? JSON.stringify([...bases]) : '';
  if (box.dataset.sig === sig) { syncWhatIfRows(); return; }
  box.dataset.sig = sig;
  box.replaceChildren();
  box.hidden = !bases;
  for (const [id, base] of bases || []) {
    const row = document.createElement('div');
    row.className = 'wi-dev';
    row.dataset.device = id;
    row.dataset.base = String(base);
    const name = document.createElement('span');
    name.className = 'wi-name';
    name.textContent = id;
    name.title = `${id}: ${explicit ? 'table speed' : 'mean drawn speed'} ${formatNumber(base)}`;
    const slider = document.createElement('input');
    slider.type = 'range';
    slider.min = '-3';
    slider.max = '3';
    slider.step = '0.1';
    slider.dataset.device = id;
    slider.setAttribute('aria-label', `${id} speed factor`);
    const speed = document.createElement('input');
    speed.type = 'number';
    speed.step = 'any';
    speed.min = '0';
    speed.dataset.device = id;
    speed.setAttribute('aria-label', `${id} speed`);
    const out = document.createElement('output');
    out.className = 'wi-factor';
    row.append(name, slider, speed, out);
    box.append(row);
  }
  syncWhatIfRows();
}

/** Shows the state's device speeds in the panel's rows, leaving the control in use alone. */
function syncWhatIfRows() {
  const bases = whatIfBases();
  const set = Object.keys(state.whatifSpeeds).length;
  $('wi-devices-count').textContent = set ? `${set} device speed${set > 1 ? 's' : ''} set` : '';
  if (!bases) return;
  for (const row of $('wi-devices').children) {
    const id = row.dataset.device;
    const base = bases.get(id);
    if (base == null) continue;
    const speed = state.whatifSpeeds[id];
    const f = speed == null ? 1 : speed / base;
    const [, slider, number, out] = row.children;
    if (document.activeElement !== slider) {
      slider.value = String(Math.min(3, Math.max(-3, Math.round(Math.log2(f) * 10) / 10)));
    }
    // An unset device shows its base speed to 4 digits (the exact one is in the tooltip).
    if (document.activeElement !== number) number.value = formatNumber(speed ?? Number(base.toPrecision(4)));
    // The device's total change: its own factor times the compute scale (the engine
    // multiplies every device, a set one too).
    const total = f * state.whatifCompute;
    out.textContent = `×${formatFactor(total)}`;
    out.title = `${id}: ${formatSpeed(base * total)} in the what-if (×${formatFactor(f)} of its own, ×${formatFactor(state.whatifCompute)} compute)`;
    row.classList.toggle('set', speed != null);
  }
}

/**
 * Keeps the address bar in step with the state (history.replaceState, no run needed). A
 * state the engine refuses to write (say, a duplicate device id) leaves the URL as it was:
 * the run says what is wrong.
 */
function syncUrl() {
  try { writeHash(); } catch { /* shown when run */ }
}

function staleResults() {
  syncUrl();
  renderUnitLabels();
  if (current) $('results-caption').textContent = '(settings changed: run again)';
  renderWhatIf(); // a generated cluster's device controls wait for a baseline of these settings
}

// ---------------------------------------------------------------------------------------
// Running.

// An upload is known by the SHA-256 of its text (the engine's graph_sha256), computed once
// per upload in a worker, so that a big graph never blocks the main thread.
/** @type {WeakMap<object, Promise<string>>} */
const uploadShas = new WeakMap();

/** @param {{name: string, text: string}} u @returns {Promise<string>} */
function uploadSha(u) {
  const known = uploadShas.get(u);
  if (known) return known;
  const p = hashRunner.run({ type: 'sha256', text: u.text }).then((m) => m.result);
  p.catch(() => uploadShas.delete(u)); // cancelled or failed: asked again next time
  uploadShas.set(u, p);
  return p;
}

// An upload too large to embed is written by its hash, computed once per upload.
const uploadHashes = new WeakMap();

/** The state's link fragment, written by the engine (src/share.rs). */
function fragmentOf(s) {
  const link = linkOf(s, all);
  const hashed = s.upload && uploadHashes.get(s.upload);
  if (hashed) return engine.page_fragment(link.scenario, undefined, hashed, link.view);
  const f = engine.page_fragment(link.scenario, link.graphText, link.graphHash, link.view);
  if (s.upload && f.includes('&graphsha256=')) {
    const g = engine.read_link(f).graph;
    if (g.kind === 'hashed') uploadHashes.set(s.upload, { sha256: g.sha256, name: g.name });
  }
  return f;
}

/**
 * A strategy parameter's input, `strategy.name`, in state.params (a default is not kept);
 * every input of the same parameter (the list and the pesto panel) shows the same value.
 * @param {string} strategy @param {import('./types.js').ParamSpec} p
 */
function paramLabel(strategy, p) {
  const key = `${strategy}.${p.name}`;
  const label = document.createElement('label');
  label.title = p.doc;
  label.append(`${key} `);
  const input = document.createElement('input');
  input.type = 'number';
  input.step = 'any';
  input.dataset.param = key;
  input.placeholder = formatNumber(p.default);
  if (key in state.params) input.value = formatNumber(state.params[key]);
  input.addEventListener('change', () => {
    const v = num(input);
    if (v == null || v === p.default) delete state.params[key];
    else state.params[key] = v;
    for (const other of document.querySelectorAll(`input[data-param="${key}"]`)) {
      if (other !== input) /** @type {HTMLInputElement} */ (other).value = input.value;
    }
    staleResults();
  });
  label.append(input);
  return label;
}

/** The optimiser's panel: pesto's budget, mode and seconds cap, when pesto is a chosen placer. */
function renderPestoBox() {
  const pesto = strategyInfo.placers.find((x) => x.name === 'pesto');
  const on = !!pesto && (state.placers ?? all.placers).includes('pesto');
  $('pesto-box').hidden = !on;
  $('pesto-params').replaceChildren(...(on && pesto
    ? pesto.params.filter((p) => ['budget', 'mode', 'seconds'].includes(p.name)).map((p) => paramLabel('pesto', p))
    : []));
}

/** Shows the state's link in the address bar; returns its fragment. */
function writeHash() {
  const f = fragmentOf(state);
  writtenHash = f;
  if (location.hash !== f) history.replaceState(null, '', f);
  return f;
}

function setRunning(on, text) {
  $('run').disabled = on;
  $('cancel').disabled = !on;
  $('status').textContent = text || '';
  if (!on) $('progress').value = 0;
}

/** What identifies a comparison: its scenario, and an upload's name and content hash. */
async function scenarioKey(sc) {
  const u = state.upload;
  return JSON.stringify(sc) + '\n' + (u ? `${u.name}\n${await uploadSha(u)}` : '');
}

let runSeq = 0;
async function runComparison({ auto = false } = {}) {
  const seq = ++runSeq;
  show($('run-error'), '');
  if (!graphText) {
    if (!auto) show($('run-error'), state.graphHash ? 'Give the linked graph file first.' : 'No valid graph is loaded.');
    return;
  }
  let fragment;
  try { fragment = writeHash(); } catch (e) { show($('run-error'), e.message); return; }
  // Busy from the click on (a stale table must not look like this run's answer).
  setRunning(true, 'starting…');
  const withWhatIf = scenarioOf(state, all, true);
  const base = scenarioOf(state, all, false);
  let key;
  try { key = await scenarioKey(base); } catch (e) {
    if (seq === runSeq) {
      setRunning(false, '');
      if (!e.cancelled) show($('run-error'), e.message);
    }
    return;
  }
  if (seq !== runSeq) return;
  const progress = (label) => (done, total) => {
    $('progress').max = total;
    $('progress').value = done;
    // One step per placement and per simulation; a long placer moves `done` by fractions.
    $('status').textContent = `${label}${Math.round((100 * done) / Math.max(total, 1))}% of ${total} steps`;
  };
  const t0 = performance.now();
  try {
    if (!baseline || baseline.key !== key) {
      setRunning(true, 'running…');
      const r = await comparePool.run(JSON.stringify(base), graphText, progress(whatIfActive(state) ? 'baseline: ' : ''));
      if (seq !== runSeq) return;
      baseline = { comparison: r.result, key, ms: r.ms, speedKey: speedKey(base) };
      timings.lastCompareMs = r.ms;
      renderWhatIf(); // the generated devices' base speeds
    }
    if (whatIfActive(state)) {
      setRunning(true, 'what-if…');
      const r = await comparePool.run(JSON.stringify(withWhatIf), graphText, progress('what-if: '));
      if (seq !== runSeq) return;
      current = { comparison: r.result, key, fragment, ms: r.ms, graphText };
      timings.lastCompareMs = r.ms;
    } else {
      current = { comparison: baseline.comparison, key, fragment, ms: baseline.ms, graphText };
    }
  } catch (e) {
    if (seq !== runSeq) return;
    setRunning(false, e.cancelled ? 'cancelled' : '');
    if (!e.cancelled) {
      show($('run-error'), e.message);
      emptyResults('No results: the engine refused these settings (the message above says why).');
    }
    return;
  }
  setRunning(false, `done in ${Math.round(performance.now() - t0)} ms`);
  renderResults();
  runPair();
  comparePool.warmUp();
}

/** The row a pair key (`placer/scheduler[/order]`) names, when it ran. @param {string | null} key */
function findPair(key) {
  if (!current || !key) return null;
  const [p, s, o] = key.split('/');
  return current.comparison.results.find((x) => x.placer === p && x.scheduler === s && (o === undefined || x.link_order === o) && !x.error) ?? null;
}

function chosenPair() {
  if (!current) return null;
  const rs = current.comparison.results;
  const r = findPair(state.pair);
  if (r) return r;
  // The first of the best pairs (the table's and the chart's tolerance), in the comparison's order.
  const best = bestMakespan(rs);
  return rs.find((r) => !r.error && isBest(r.makespan, best)) ?? null;
}

/** @param {string} placer @param {string} scheduler @param {string} [order] the row's link order */
function choosePair(placer, scheduler, order) {
  const r = current?.comparison.results.find((x) => x.placer === placer && x.scheduler === scheduler
    && (order === undefined || x.link_order === order));
  if (r?.error && !r.makespans.length) {
    // Infeasible on every seed: there is no schedule to show, only the reason.
    $('timeline-status').textContent = `${rowLabel(r)} has no schedule: ${r.error}`;
    return;
  }
  // The order is in the key only when the comparison has several (old links stay valid).
  state.pair = pairKey(placer, scheduler, r && current && manyOrders(current.comparison) ? r.link_order : undefined);
  try { writeHash(); } catch (e) { show($('run-error'), e.message); }
  renderPairSelect();
  drawCharts();
  runPair();
}

function pairStatus(p) {
  const order = current && manyOrders(current.comparison) ? ` / ${p.order}` : '';
  return `${p.placer} / ${p.scheduler}${order}, seed ${p.seed}: makespan ${formatSeconds(p.result.timeline.makespan)}`
    + (current?.comparison.scenario.replica ? `; the link lanes show each server -> worker link's transfers in ${p.order} order` : '');
}

async function runPair() {
  if (!current) return;
  const r = chosenPair();
  const container = $('chart-timeline');
  if (!r) {
    container.replaceChildren();
    $('timeline-status').textContent = 'no pair ran';
    return;
  }
  // The state's seed, within the comparison's seeds.
  const seed = Math.min(state.pairSeed, current.comparison.scenario.seeds - 1);
  $('pair-seed').value = String(seed);
  $('timeline-status').textContent = `running ${rowLabel(r)}…`;
  pairRun2 = null;
  try {
    // One row: the engine runs the scenario's first link order, so the scenario names the row's.
    pairRun = await pairRunOf(pairRunner, r);
    timings.lastPairMs = pairRun.ms;
    $('timeline-status').textContent = pairStatus(pairRun);
    drawTimelineChart();
  } catch (e) {
    if (e.cancelled) return;
    $('timeline-status').textContent = `timeline failed: ${e.message}`;
  }
  await runPair2();
}

/** A pair's run for a timeline: the row at the state's seed (the scenario names the row's link order). */
async function pairRunOf(runner, r) {
  const seed = Math.min(state.pairSeed, (current?.comparison.scenario.seeds ?? 1) - 1);
  const scenario = JSON.stringify({ ...current?.comparison.scenario, link_order: r.link_order });
  const graphText = current?.graphText;
  // The worker sends the node ids only when they are not the ones it sent this runner last.
  const res = await runner.run({
    type: 'pair', scenario, graphText, placer: r.placer, scheduler: r.scheduler, seedIndex: seed, namesSeq: runner.names?.seq ?? null,
  });
  const tl = res.result.timeline;
  if (tl.names) runner.names = tl.names;
  else if (runner.names) tl.names = runner.names;
  else throw new Error('the timeline came without its node ids');
  return { placer: r.placer, scheduler: r.scheduler, order: r.link_order, seed, result: res.result, scenario, graphText, trace: null, ms: res.ms };
}

/** The second timeline (`state.pair2`), below the first on a shared time axis. */
async function runPair2() {
  const r = findPair(state.pair2);
  const shown = pairRun2 !== null;
  pairRun2 = null;
  if (!r || !pairRun) {
    // Redraw only to take a second timeline away (the first is drawn already).
    if (shown || !$('chart-timeline2').hidden) drawTimelineChart();
    return;
  }
  pair2Runner ??= new Runner();
  try {
    pairRun2 = await pairRunOf(pair2Runner, r);
  } catch (e) {
    if (e.cancelled) return;
    $('timeline-status').textContent = `the second timeline failed: ${e.message}`;
  }
  drawTimelineChart();
}

/**
 * A pair's Chrome trace as a Blob: the same pair and seed again with the trace
 * (deterministic: the same schedule), built in a worker once per pair run.
 * @returns {Promise<Blob | null>}
 */
async function traceOf(p) {
  if (p.trace) return p.trace;
  $('timeline-status').textContent = 'building the Chrome trace…';
  try {
    const res = await traceRunner.run({
      type: 'pair', scenario: p.scenario, graphText: p.graphText,
      placer: p.placer, scheduler: p.scheduler, seedIndex: p.seed, withTrace: true,
    });
    p.trace = res.result.traceBlob;
  } catch (e) {
    $('timeline-status').textContent = e.cancelled ? '' : `trace failed: ${e.message}`;
    return null;
  }
  $('timeline-status').textContent = pairStatus(p);
  return p.trace;
}

const PERFETTO = 'https://ui.perfetto.dev';

/**
 * Opens the chosen pair's trace in the Perfetto UI (its postMessage protocol: open the
 * window, send PING until it answers PONG, then post {perfetto: {buffer, title}}). The
 * window opens in the click (pop-up blockers allow that), the trace is built meanwhile.
 */
async function openInPerfetto() {
  if (!pairRun) return;
  const p = pairRun;
  const win = window.open(`${PERFETTO}/#!/`, '_blank');
  if (!win) {
    notice('The browser blocked the Perfetto window: allow pop-ups for this page, or download the Chrome trace and open it at ui.perfetto.dev.');
    return;
  }
  const blob = await traceOf(p);
  if (!blob) return;
  const buffer = await blob.arrayBuffer();
  const title = `placesim ${p.placer} / ${p.scheduler}${p.order ? ` / ${p.order}` : ''}, seed ${p.seed}`;
  let answered = false;
  const onMessage = (/** @type {MessageEvent} */ e) => {
    if (e.source !== win || e.data !== 'PONG' || answered) return;
    answered = true;
    clearInterval(ping);
    window.removeEventListener('message', onMessage);
    win.postMessage({ perfetto: { buffer, title } }, PERFETTO, [buffer]);
    notice('The trace was sent to Perfetto (its window).');
  };
  window.addEventListener('message', onMessage);
  const ping = setInterval(() => {
    if (win.closed) {
      clearInterval(ping);
      window.removeEventListener('message', onMessage);
      return;
    }
    win.postMessage('PING', PERFETTO);
  }, 100);
  setTimeout(() => {
    if (answered) return;
    clearInterval(ping);
    window.removeEventListener('message', onMessage);
    notice('Perfetto did not answer within 30 s: download the Chrome trace and open it at ui.perfetto.dev instead.');
  }, 30000);
}

// ---------------------------------------------------------------------------------------
// Results.

/** @param {Comparison} c */
function rowsOf(c) {
  const base = new Map((baseline?.comparison.results || []).map((r) => [pairKey(r.placer, r.scheduler, r.link_order), r]));
  const delta = whatIfActive(state) && baseline;
  return c.results.map((r) => {
    const b = base.get(pairKey(r.placer, r.scheduler, r.link_order));
    return {
      ...r,
      peak: r.devices.reduce((m, d) => Math.max(m, d.peak_memory), 0),
      p50: r.iteration_time?.p50 ?? null,
      p95: r.iteration_time?.p95 ?? null,
      plan_status: r.plan?.status ?? '',
      efficiency: r.ordering?.efficiency ?? null,
      straggler: r.ordering?.straggler.mean ?? null,
      delta: delta && b && !b.error && !r.error && b.makespan > 0 ? (r.makespan / b.makespan - 1) * 100 : null,
    };
  });
}

/** The larger device speed of a comparison's baseline (no what-if): physical or abstract units. */
function unitsOf(c) {
  const speeds = (baseline?.comparison ?? c).results.flatMap((r) => r.devices.map((d) => d.speed));
  return isAbstractSpeed(Math.max(...speeds));
}

/** The unit hints of the form's labels, from the state's cluster. */
function renderUnitLabels() {
  const maxSpeed = state.cluster === 'generate' && !state.clusterJson
    ? state.speed[1] : Math.max(...state.dev.map((d) => d.speed));
  const was = abstractUnits();
  setAbstractUnits(isAbstractSpeed(maxSpeed));
  const names = unitNames();
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.unit[data-unit]'))) {
    el.textContent = names[/** @type {'time' | 'bytes' | 'speed' | 'bandwidth'} */ (el.dataset.unit)] ?? '';
  }
  setAbstractUnits(was);
}

/** The smallest makespan of the pairs that ran; rows within BEST_TOLERANCE of it are best. */
function bestMakespan(results) {
  return Math.min(...results.filter((r) => !r.error).map((r) => r.makespan));
}

function renderResults() {
  if (!current) return;
  const c = current.comparison;
  setAbstractUnits(unitsOf(c));
  $('results-empty').hidden = true;
  $('results-body').hidden = false;
  const g = c.graph;
  $('results-caption').textContent = `${g.name}: ${g.nodes} ops, ${c.results.length} pairs × ${c.scenario.seeds} seed(s)`
    + (whatIfActive(state) ? ', what-if' : '') + (abstractUnits() ? ', abstract units' : '');
  const bound = Math.max(c.critical_path_bound, c.work_bound);
  $('bounds').textContent = `Lower bounds (mean over seeds): critical path ${formatSeconds(c.critical_path_bound)}, `
    + `work ${formatSeconds(c.work_bound)}. Compared in ${formatWallSeconds(current.ms / 1000)} in this browser.`;
  const best = bestMakespan(c.results);
  const winners = c.results.filter((r) => !r.error && isBest(r.makespan, best));
  const answer = $('answer');
  answer.replaceChildren();
  if (winners.length) {
    const b = document.createElement('b');
    b.textContent = winners.map((r) => rowLabel(r)).slice(0, 4).join(', ')
      + (winners.length > 4 ? ` and ${winners.length - 4} more` : '');
    answer.append(winners.length > 1 ? 'Fastest (tied): ' : 'Fastest: ', b,
      `, makespan ${formatSeconds(best)}${bound > 0 ? `, ${formatRatio(best / bound)} the lower bound` : ''}.`);
  } else {
    answer.textContent = 'No pair ran: every pair failed (see the table).';
  }
  // Why some pairs are absent (e.g. `given` runs only with placers that plan), said once.
  $('results-notes').textContent = (c.notes ?? []).join(' ');
  $('results-notes').hidden = !c.notes?.length;
  document.body.classList.toggle('what-if', whatIfActive(state));
  const cols = columnsOf(c);
  document.body.classList.toggle('has-orders', cols.orders);
  document.body.classList.toggle('has-iterations', cols.iterations);
  document.body.classList.toggle('has-ordering', cols.ordering);
  document.body.classList.toggle('has-plans', cols.plans);
  answer.append(...orderAnswer(c));
  renderTable();
  renderPairSelect();
  drawCharts();
}

/** The table sort of the state: `col` ascending, `-col` descending, null: none. */
function sortOf(s) {
  if (!s) return { key: null, dir: 1 };
  return s.startsWith('-') ? { key: s.slice(1), dir: -1 } : { key: s, dir: 1 };
}

/**
 * What the link orders changed, when there are several: each order's median iteration time
 * against `random`'s (TicTac19's baseline) or the first order's, per placer and scheduler.
 * @param {Comparison} c
 * @returns {string[]}
 */
function orderAnswer(c) {
  if (!manyOrders(c)) return [];
  const ok = c.results.filter((r) => !r.error && r.iteration_time);
  const groups = new Map();
  for (const r of ok) {
    const k = `${r.placer}/${r.scheduler}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  }
  const out = [];
  for (const rows of [...groups.values()].slice(0, 3)) {
    const base = rows.find((r) => r.link_order === 'random') ?? rows[0];
    const others = rows.filter((r) => r !== base);
    if (!others.length || !base.iteration_time) continue;
    const b = base.iteration_time.p50;
    const parts = others.map((r) => {
      const p = /** @type {import('./types.js').Distribution} */ (r.iteration_time).p50;
      return `${r.link_order} ${formatSeconds(p)} (${p <= b ? '' : '+'}${((p / b - 1) * 100).toFixed(1)}%)`;
    });
    const who = groups.size > 1 ? `${base.placer} / ${base.scheduler}: ` : '';
    out.push(` ${who}Median iteration: ${base.link_order} ${formatSeconds(b)}, ${parts.join(', ')}.`);
  }
  return out;
}

/** Columns after placer and scheduler (and link order) that a failed row spans, besides
 * the iteration and ordering columns. */
const TABLE_COLS = 8;

/**
 * A planning placer's plan cell (pesto.md §5.6): the status as the engine words it, its own
 * bound with units and the gap to it; the objective in the title.
 * @param {import('./types.js').PairResult} r @returns {[string, string, string | undefined]}
 */
function planCell(r) {
  const p = r.plan;
  if (!p) return ['–', 'plan-col', 'this placer does not plan'];
  const bound = p.bound != null && p.bound_scope === 'instance'
    ? `; bound ${formatSeconds(p.bound)}, gap ${formatRatio(r.makespan / p.bound)}` : '';
  return [`${p.status}${bound}`, 'plan-col',
    `predicted makespan ${formatSeconds(p.objective)}${p.bound != null ? `, bound ${formatSeconds(p.bound)} (${p.bound_scope})` : ''}`];
}

/** Which of the TicTac19 columns a comparison has (the body's has-* classes show their heads). */
function columnsOf(c) {
  return {
    orders: manyOrders(c),
    iterations: c.results.some((r) => r.iteration_time),
    ordering: c.results.some((r) => r.ordering),
    // A placer that bounds its plan (pesto): heuristics' plans (heft) claim nothing to show.
    plans: c.results.some((r) => r.plan && r.plan.bound_scope !== 'none'),
  };
}

function renderTable() {
  if (!current) return;
  const rows = rowsOf(current.comparison);
  const sort = sortOf(state.sort);
  if (sort.key) {
    const k = sort.key;
    rows.sort((a, b) => {
      // A column of the table: a row field, by the header's data-sort.
      const x = /** @type {any} */ (a)[k];
      const y = /** @type {any} */ (b)[k];
      if (typeof x === 'string') return sort.dir * x.localeCompare(y);
      return sort.dir * ((x ?? Infinity) - (y ?? Infinity));
    });
  }
  for (const th of $('results-table').tHead.rows[0].cells) {
    th.setAttribute('aria-sort', th.dataset.sort === sort.key ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none');
  }
  const body = $('results-table').tBodies[0];
  body.replaceChildren();
  const best = bestMakespan(rows);
  const chosen = chosenPair();
  const cols = columnsOf(current.comparison);
  /** @type {Map<string, string>} a failure message -> the first pair that showed it */
  const said = new Map();
  for (const r of rows) {
    const tr = document.createElement('tr');
    tr.dataset.placer = r.placer;
    tr.dataset.scheduler = r.scheduler;
    tr.dataset.order = r.link_order;
    tr.dataset.makespan = String(r.makespan);
    if (r.p50 != null) tr.dataset.p50 = String(r.p50);
    tr.tabIndex = -1;
    const failed = !!r.error && !r.makespans.length;
    if (r.error) tr.dataset.error = r.error;
    if (!r.error && isBest(r.makespan, best)) tr.classList.add('best');
    if (chosen && sameRow(chosen, r)) tr.classList.add('chosen');
    const td = (text, cls, title) => {
      const el = document.createElement('td');
      el.textContent = text;
      if (cls) el.className = cls;
      if (title) el.title = title;
      tr.append(el);
      return el;
    };
    // Names stay whole; a long one (an uploaded strategy list, a hash) wraps inside its cell.
    td(r.placer, r.placer.length > 20 ? 'name long' : 'name');
    td(r.scheduler, r.scheduler.length > 20 ? 'name long' : 'name');
    // The TicTac19 cells only when the comparison has them (a plain table keeps its cells).
    if (cols.orders) td(r.link_order, 'name order-col');
    /** The failure message once per distinct message: collapsible; later rows point to it. */
    const failure = (el, lead) => {
      const key = /** @type {string} */ (r.error);
      const first = said.get(key);
      if (first) {
        el.textContent = `${lead}: the same reason as ${first}`;
        return;
      }
      said.set(key, rowLabel(r));
      const details = document.createElement('details');
      const summary = document.createElement('summary');
      summary.textContent = `${lead}: why`;
      const p = document.createElement('p');
      p.textContent = key;
      details.append(summary, p);
      el.append(details);
    };
    if (failed) {
      tr.classList.add('failed');
      const el = td('', 'failure');
      el.colSpan = TABLE_COLS + (cols.iterations ? 2 : 0) + (cols.ordering ? 2 : 0) + (cols.plans ? 1 : 0);
      failure(el, 'failed on every seed');
    } else {
      const d = r.delta;
      td(formatSeconds(r.makespan), 'num', String(r.makespan));
      const change = d == null ? '' : d > 0.05 ? 'worse' : d < -0.05 ? 'better' : '';
      td(d == null ? '' : `${d > 0 ? '+' : ''}${d.toFixed(1)}%`, `num delta-col ${change}`);
      if (cols.iterations) {
        td(r.p50 == null ? '–' : formatSeconds(r.p50), 'num iter-col', r.p50 == null ? undefined : String(r.p50));
        td(r.p95 == null ? '–' : formatSeconds(r.p95), 'num iter-col', r.p95 == null ? undefined : String(r.p95));
      }
      if (cols.ordering) {
        td(r.efficiency == null ? '–' : formatSig(r.efficiency, 3), 'num ord-col',
          r.efficiency == null ? 'no worker has distinct Eq. 1 and Eq. 2 bounds' : String(r.efficiency));
        td(r.straggler == null ? '–' : formatShare(r.straggler), 'num ord-col', r.straggler == null ? undefined : String(r.straggler));
      }
      td(current.comparison.scenario.seeds > 1 ? formatSeconds(r.makespan_std) : '–', 'num');
      td(formatRatio(r.gap), 'num');
      if (cols.plans) td(...planCell(r));
      td(formatBytes(r.traffic_bytes), 'num', String(r.traffic_bytes));
      td(formatBytes(r.peak), 'num', String(r.peak));
      td(formatWallSeconds(r.placement_seconds), 'num');
      const last = td(r.oom ? 'OOM' : '', r.oom ? 'oom failure' : 'failure');
      if (r.error) failure(last, `failed on ${current.comparison.scenario.seeds - r.makespans.length} seed(s)`);
    }
    body.append(tr);
  }
  // One tab stop: the chosen row (or the first); arrows move, Enter or Space choose.
  const stop = body.querySelector('tr.chosen') ?? body.rows[0];
  if (stop) stop.tabIndex = 0;
}

/** Keyboard and mouse on the results rows (bound once; rows are redrawn). */
function bindTableRows() {
  const body = $('results-table').tBodies[0];
  const rowOf = (t) => (t instanceof Element ? t.closest('tr') : null);
  const choose = (tr) => {
    if (!tr || tr.classList.contains('failed')) return;
    choosePair(tr.dataset.placer, tr.dataset.scheduler, tr.dataset.order);
    // The table was redrawn: keep the focus on the same pair.
    const again = [...body.rows].find((x) => x.dataset.placer === tr.dataset.placer && x.dataset.scheduler === tr.dataset.scheduler
      && x.dataset.order === tr.dataset.order);
    again?.focus();
  };
  body.addEventListener('click', (e) => {
    if (e.target instanceof Element && e.target.closest('details')) return;
    choose(rowOf(e.target));
  });
  body.addEventListener('keydown', (e) => {
    const tr = rowOf(e.target);
    if (!tr || e.target !== tr) return;
    const rows = [...body.rows];
    const i = rows.indexOf(tr);
    const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: rows.length - 1 }[e.key];
    if (to !== undefined) {
      e.preventDefault();
      const next = rows[Math.max(0, Math.min(rows.length - 1, to))];
      for (const r of rows) r.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      choose(tr);
    }
  });
}

function renderPairSelect() {
  const sel = $('pair-select');
  sel.replaceChildren();
  for (const r of current?.comparison.results ?? []) {
    if (r.error) continue;
    sel.append(new Option(rowLabel(r), `${r.placer}\n${r.scheduler}\n${r.link_order}`));
  }
  const r = chosenPair();
  if (r) sel.value = `${r.placer}\n${r.scheduler}\n${r.link_order}`;
  const sel2 = $('pair2-select');
  sel2.replaceChildren(new Option('none', ''));
  for (const o of sel.options) sel2.append(new Option(o.text, o.value));
  const r2 = findPair(state.pair2);
  sel2.value = r2 ? `${r2.placer}\n${r2.scheduler}\n${r2.link_order}` : '';
  for (const tr of $('results-table').tBodies[0].rows) {
    tr.classList.toggle('chosen', !!r && tr.dataset.placer === r.placer && tr.dataset.scheduler === r.scheduler
      && tr.dataset.order === r.link_order);
  }
  $('memory-caption').textContent = r ? `(${rowLabel(r)})` : '';
}

/** @param {Comparison} c */
function toCsv(c) {
  const cols = ['placer', 'scheduler', 'link_order', 'makespan', 'makespan_std', 'makespan_min', 'makespan_max', 'lower_bound',
    'gap', 'traffic_bytes', 'transfers', 'placement_seconds', 'peak_memory', 'oom', 'error',
    'iteration_p5', 'iteration_p50', 'iteration_p95', 'throughput', 'efficiency', 'speedup', 'straggler', 'straggler_p95',
    'theoretical_best', 'theoretical_worst'];
  /** @param {import('./types.js').PairResult} r @param {string} k */
  const value = (r, k) => {
    const it = r.iteration_time;
    const o = r.ordering;
    switch (k) {
      case 'peak_memory': return r.devices.reduce((m, d) => Math.max(m, d.peak_memory), 0);
      case 'iteration_p5': return it?.p5;
      case 'iteration_p50': return it?.p50;
      case 'iteration_p95': return it?.p95;
      case 'efficiency': return o?.efficiency;
      case 'speedup': return o?.speedup;
      case 'straggler': return o?.straggler.mean;
      case 'straggler_p95': return o?.straggler.p95;
      case 'theoretical_best': return o?.theoretical_best;
      case 'theoretical_worst': return o?.theoretical_worst;
      default: return /** @type {any} */ (r)[k];
    }
  };
  const q = (v) => {
    const s = v == null ? '' : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [cols.join(',')];
  for (const r of c.results) lines.push(cols.map((k) => q(value(r, k))).join(','));
  return lines.join('\n') + '\n';
}

/**
 * The results as a Markdown table, numbers in the page's units (the table's text).
 * @param {Comparison} c
 */
function toMarkdown(c) {
  setAbstractUnits(unitsOf(c));
  const cell = (v) => String(v).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const many = manyOrders(c);
  const iter = c.results.some((r) => r.iteration_time);
  const ord = c.results.some((r) => r.ordering);
  /** @type {[string, boolean, (r: import('./types.js').PairResult, ran: boolean) => string][]} */
  const cols = [
    ['placer', false, (r) => r.placer],
    ['scheduler', false, (r) => r.scheduler],
    ...(many ? [/** @type {[string, boolean, (r: any) => string]} */ (['link order', false, (r) => r.link_order])] : []),
    ['makespan', true, (r, ran) => (ran ? formatSeconds(r.makespan) : '')],
    ...(iter ? /** @type {[string, boolean, (r: any, ran: boolean) => string][]} */ ([
      ['p50 iteration', true, (r, ran) => (ran && r.iteration_time ? formatSeconds(r.iteration_time.p50) : '')],
      ['p95 iteration', true, (r, ran) => (ran && r.iteration_time ? formatSeconds(r.iteration_time.p95) : '')],
      ['throughput', true, (r, ran) => (ran && r.throughput != null ? formatRate(r.throughput) : '')],
    ]) : []),
    ...(ord ? /** @type {[string, boolean, (r: any, ran: boolean) => string][]} */ ([
      ['E', true, (r, ran) => (ran && r.ordering?.efficiency != null ? formatSig(r.ordering.efficiency, 3) : '')],
      ['straggler', true, (r, ran) => (ran && r.ordering ? formatShare(r.ordering.straggler.mean) : '')],
    ]) : []),
    ['std', true, (r, ran) => (ran && c.scenario.seeds > 1 ? formatSeconds(r.makespan_std) : '')],
    ['gap to bound', true, (r, ran) => (ran ? formatRatio(r.gap) : '')],
    ['traffic', true, (r, ran) => (ran ? formatBytes(r.traffic_bytes) : '')],
    ['peak memory', true, (r, ran) => (ran ? formatBytes(r.devices.reduce((m, d) => Math.max(m, d.peak_memory), 0)) : '')],
    ['OOM', false, (r) => (r.oom ? 'OOM' : '')],
    ['error', false, (r) => r.error ?? ''],
  ];
  const lines = [`| ${cols.map((x) => x[0]).join(' | ')} |`, `|${cols.map((x) => (x[1] ? ' ---: ' : ' --- ')).join('|')}|`];
  for (const r of c.results) {
    const ran = !r.error || r.makespans.length > 0;
    lines.push(`| ${cols.map((x) => cell(x[2](r, ran))).join(' | ')} |`);
  }
  const its = (c.scenario.iterations ?? 1) > 1 ? `, ${c.scenario.iterations} iterations per seed` : '';
  return `${c.graph.name}: ${c.graph.nodes} ops, ${c.scenario.seeds} seed(s)${its}\n\n${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------
// Charts (www/charts/*: one module per chart).

async function loadCharts() {
  const [bars, memory, timeline, exp, iterations, convergence] = await Promise.all([
    import('./charts/bars.js'), import('./charts/memory.js'),
    import('./charts/timeline/index.js'), import('./charts/export.js'), import('./charts/iterations.js'),
    import('./charts/convergence.js'),
  ]);
  return { ...bars, ...memory, ...timeline, ...exp, ...iterations, ...convergence };
}

// Each draw* replaces its container's content (and disposes the chart drawn there before).
function draw(id, fn) {
  const el = $(id);
  if (!charts) {
    el.textContent = 'charts are unavailable';
    return;
  }
  try { fn(el); } catch (e) {
    console.error(`${id}:`, e);
    el.textContent = `this chart failed: ${e.message}`;
  }
}

function drawCharts() {
  if (!current) return;
  const c = current.comparison;
  const r = chosenPair();
  const highlight = r ? { placer: r.placer, scheduler: r.scheduler, link_order: r.link_order } : null;
  setAbstractUnits(unitsOf(c));
  $('log-scale').checked = state.logScale;
  const best = bestMakespan(c.results);
  const isWinner = (row) => !row.error && isBest(row.makespan, best);
  /** @type {(placer: string, scheduler: string, order?: string) => void} */
  const onSelect = (placer, scheduler, order) => choosePair(placer, scheduler, order);
  // While a what-if is active, the bar charts show each row's value before it.
  const base = whatIfActive(state) && baseline && baseline.comparison !== c
    ? new Map(baseline.comparison.results.map((x) => [pairKey(x.placer, x.scheduler, x.link_order), x])) : null;
  const before = base ? (/** @type {any} */ x) => base.get(pairKey(x.placer, x.scheduler, x.link_order)) ?? null : undefined;
  draw('chart-makespan', (el) => charts.drawMakespan(el, c, {
    highlight, log: state.logScale, isBest: isWinner, onSelect, baseline: before,
  }));
  draw('chart-traffic', (el) => charts.drawTraffic(el, c, { baseline: before }));
  // The chosen row's memory (rows of other link orders place the same way, but are theirs).
  const mine = r ? { ...c, results: c.results.filter((x) => x.link_order === r.link_order) } : c;
  draw('chart-memory', (el) => charts.drawMemory(el, mine, {
    placer: r?.placer, scheduler: r?.scheduler, highlight, onSelect, baseline: before,
  }));
  const iter = c.results.some((x) => x.iteration_time?.sorted?.length);
  $('card-cdf').hidden = !iter;
  if (iter) draw('chart-cdf', (el) => charts.drawCdf(el, c, { highlight, onSelect }));
  const ord = c.results.some((x) => x.ordering);
  $('card-ordering').hidden = !ord;
  if (ord) draw('chart-ordering', (el) => charts.drawOrdering(el, c, { highlight, onSelect }));
  // The optimiser's convergence: the chosen row's, else the first row whose plan has one.
  const searched = [r, ...c.results].find((x) => x && !x.error && x.plan?.history?.length);
  $('chart-convergence').hidden = !searched;
  if (searched) draw('chart-convergence', (el) => charts.drawConvergence(el, searched));
}

function describe(info) {
  if (info == null) return '';
  if (typeof info === 'string') return info;
  const t = (x) => formatSeconds(x, 6);
  switch (info.kind) {
    case 'op':
      return `op ${info.id} (${info.opType || 'no type'}) on ${info.deviceId}\n`
        + `start ${t(info.start)}, end ${t(info.end)}, duration ${t(info.duration)}`;
    case 'transfer':
      return `transfer of ${info.producerId ?? '?'}'s output, ${info.srcId} -> ${info.dstId}, ${formatBytes(info.bytes)}\n`
        + `ready ${t(info.ready)}, start ${t(info.start)}, end ${t(info.end)}, queued ${t(info.queued)}`;
    case 'memory':
      return `memory on ${info.deviceId} at ${t(info.time)}: ${formatBytes(info.bytes)}`;
    default:
      return Object.entries(info).map(([k, v]) => `${k}: ${typeof v === 'number' ? formatSig(v, 6) : String(v)}`).join('\n');
  }
}

let timelineChart = null;
let timelineChart2 = null;

/** A pair run's timeline, with the comparison's placement time (one per pair: the timeline's run placed it again). */
function timelineOf(p) {
  const row = current?.comparison.results.find((x) => x.placer === p.placer && x.scheduler === p.scheduler && x.link_order === p.order);
  return row ? { ...p.result.timeline, placement_seconds: row.placement_seconds } : p.result.timeline;
}

/** The chosen pair's timeline and, with a second pair, its timeline below on the same time axis. */
function drawTimelineChart() {
  timelineChart = null;
  timelineChart2 = null;
  const two = !!(pairRun && pairRun2);
  const tEnd = pairRun && pairRun2 ? Math.max(pairRun.result.timeline.makespan, pairRun2.result.timeline.makespan) : 0;
  const label = (p) => `${p.placer} / ${p.scheduler}${current && manyOrders(current.comparison) ? ` / ${p.order}` : ''}`;
  const onHover = (info) => { $('timeline-hover').textContent = describe(info); };
  draw('chart-timeline', (el) => {
    if (!pairRun) return;
    timelineChart = charts.drawTimeline(el, timelineOf(pairRun), {
      onHover, tEnd, title: two ? label(pairRun) : undefined,
      onView: (t0, t1) => timelineChart2?.setView(t0, t1, true),
    });
  });
  const el2 = $('chart-timeline2');
  el2.hidden = !two;
  if (!two) {
    el2.replaceChildren();
    return;
  }
  draw('chart-timeline2', (el) => {
    if (!pairRun2) return;
    timelineChart2 = charts.drawTimeline(el, timelineOf(pairRun2), {
      onHover, tEnd, title: label(pairRun2),
      onView: (t0, t1) => timelineChart?.setView(t0, t1, true),
    });
    const v = timelineChart?.getView();
    if (v) timelineChart2.setView(v[0], v[1], true);
  });
}

function exportChart(id, fmtName) {
  if (!charts) return;
  const el = $(id);
  const svg = el.querySelector('svg');
  const canvas = el.querySelector('canvas');
  const name = id.replace(/^chart-/, 'placesim-');
  if (fmtName === 'svg') {
    if (svg) charts.exportSvg(svg, `${name}.svg`);
    else notice('This chart is drawn on a canvas: export it as PNG.');
  } else if (id === 'chart-timeline' && timelineChart?.toCanvas) {
    // Every lane at the current zoom, not only the visible part.
    charts.exportPng(timelineChart.toCanvas(2), `${name}.png`);
  } else if (svg || canvas) {
    charts.exportPng(svg || canvas, `${name}.png`);
  }
}

// ---------------------------------------------------------------------------------------
// Start.

/** A link that cannot be read: said at the top of the results, where the user looks. */
function showLinkError(e) {
  show($('link-error'), `This link could not be opened: ${e.message}. The page shows its defaults instead.`);
}

/** The state of a link fragment, read by the engine (src/share.rs). */
function readLink(hash) {
  return stateOf(engine.read_link(hash), all);
}

async function openLink(hash) {
  let s;
  try {
    s = readLink(hash);
  } catch (e) {
    showLinkError(e);
    return false;
  }
  show($('link-error'), '');
  for (const k of Object.keys(s)) state[k] = s[k];
  forwardWanted = false;
  psNote = '';
  baseline = null;
  renderControls();
  if (await loadGraph()) {
    await runComparison();
    return true;
  }
  return false;
}

async function main() {
  await init({ module_or_path: await engineModule });
  strategyInfo = engine.strategies();
  // The default lists: every scheduler, every placer but `pinned` (which follows pins only).
  const d = engine.default_scenario();
  all = { placers: d.placers, schedulers: d.schedulers };
  let index = {};
  try {
    const r = await fetch('graphs/index.json');
    index = r.ok ? await r.json() : {};
    graphIndex = Array.isArray(index) ? index : index.graphs || [];
    clusterIndex = index.clusters || [];
  } catch { graphIndex = []; }
  try { charts = await loadCharts(); } catch (e) { console.error('charts:', e); }
  comparePool = new Pool(poolSize());
  pairRunner = new Runner();
  traceRunner = new Runner();
  hashRunner = new Runner();
  inspectRunner = new Runner();
  limits = engine.limits();
  $('gen-devices').max = String(limits.max_devices);
  $('seeds').max = String(limits.max_seeds);
  presets = index.scenarios || [];
  renderPresets();
  renderHelp();
  bindControls();
  bindPs();
  sweepPanel = initSweep({
    engine, state, pool: comparePool, syncUrl,
    scenario: () => JSON.stringify(scenarioOf(state, all, true)),
    graphText: () => graphText,
  });
  renderControls();
  const hash = location.hash;
  let fromLink = false;
  if (hash.length > 1) {
    try {
      const s = readLink(hash);
      for (const k of Object.keys(s)) state[k] = s[k];
      fromLink = true;
    } catch (e) {
      showLinkError(e);
    }
    renderControls();
  }
  if (hash.length <= 1) await firstVisit();
  const ok = await loadGraph();
  timings.readyMs = performance.now();
  document.documentElement.dataset.ready = 'true';
  // Answer first: the link's comparison, or the default one, runs by itself (not after a
  // link that could not be read: its error stays the answer).
  if (ok && (fromLink || hash.length <= 1)) await runComparison();
  else if (hash.length > 1 && !fromLink) emptyResults('No results: the link could not be opened (the message above says why).');
  else emptyResults(fromLink ? 'No results: this link\'s graph is missing (see the graph box).' : 'No results: the graph did not load.');
}

/**
 * The first visit's comparison (no link): a real graph on a real machine, so the first
 * numbers read in milliseconds and gigabytes. Only the first visit: a link that leaves a
 * field out still means State's default (the engine's link defaults, src/share.rs), so an
 * old link opens with its own numbers. The page's link then names this graph and cluster.
 */
const FIRST_VISIT = Object.freeze({ graph: 'resnet50_ops_infer', cluster: 'hw_1node_4xV100_nvlink' });

async function firstVisit() {
  if (!graphIndex.some((g) => g.name === FIRST_VISIT.graph)) return;
  try {
    const r = await fetch(`graphs/clusters/${encodeURIComponent(FIRST_VISIT.cluster)}.json`);
    if (!r.ok) return;
    const text = await r.text();
    engine.validate_cluster(text);
    state.graph = FIRST_VISIT.graph;
    setCluster(state, JSON.parse(text));
    $('cluster-preset').value = FIRST_VISIT.cluster;
  } catch (e) {
    console.warn(`the first visit's cluster: ${e.message}`);
    return;
  }
  renderControls();
  syncUrl();
}

/** The papers' experiments (scenarios/*.json, listed by make site) in the preset menu. */
function renderPresets() {
  const sel = $('preset');
  sel.replaceChildren(new Option(presets.length ? 'choose an experiment…' : 'none on this site', ''));
  const groups = new Map();
  for (const p of presets) {
    const paper = p.title.split(':')[0];
    if (!groups.has(paper)) {
      const g = document.createElement('optgroup');
      g.label = paper;
      groups.set(paper, g);
      sel.append(g);
    }
    groups.get(paper).append(new Option(p.title.slice(paper.length + 1).trim(), p.name));
  }
}

/**
 * Opens a preset: its scenario goes through the engine's link codec (page_fragment, then
 * read_link), so a preset is exactly the state its link would give; then it runs.
 * @param {string} name
 */
async function openPreset(name) {
  const p = presets.find((x) => x.name === name);
  if (!p) return;
  try {
    const r = await fetch(`scenarios/${encodeURIComponent(name)}.json`);
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    const f = engine.page_fragment(await r.text(), undefined, null, {});
    const s = readLink(f);
    for (const k of Object.keys(s)) state[k] = s[k];
  } catch (e) {
    show($('run-error'), `The preset '${p.title}' could not be opened: ${e.message}`);
    return;
  }
  $('preset-info').textContent = `${p.title}. ${p.sentence}`;
  forwardWanted = false;
  psNote = '';
  baseline = null;
  renderControls();
  syncUrl();
  if (await loadGraph()) await runComparison();
}

/** The help panel's strategy list: the engine's registry (name, summary citing the paper). */
function renderHelp() {
  const dl = $('help-strategies');
  dl.replaceChildren();
  /** @type {[string, import('./types.js').StrategyInfo[]][]} */
  const groups = [['placer', strategyInfo.placers], ['scheduler', strategyInfo.schedulers], ['link order', strategyInfo.link_queues]];
  for (const [what, infos] of groups) {
    for (const s of infos) {
      const dt = document.createElement('dt');
      dt.textContent = `${s.name} (${what})`;
      const dd = document.createElement('dd');
      dd.textContent = s.summary + (s.params.length ? `. Parameters: ${s.params.map((q) => `${q.name}: ${q.doc}`).join('; ')}` : '');
      dl.append(dt, dd);
    }
  }
}

/** @type {any} */ (window).placesim = {
  state, timings,
  get workers() { return comparePool?.size ?? 0; },
  preloaded: () => comparePool.preloaded(),
  get comparison() { return current?.comparison ?? null; },
  get baseline() { return baseline?.comparison ?? null; },
  get pairRun() { return pairRun; },
  get pairRun2() { return pairRun2; },
  /** The timeline charts' controllers (search, select, view), for tests. */
  get timelines() { return [timelineChart, timelineChart2]; },
  fragment: () => fragmentOf(state),
  readLink,
};

// The charts read their colours from CSS variables: redraw them when the system's theme changes.
window.matchMedia?.('(prefers-color-scheme: dark)').addEventListener?.('change', () => {
  drawCharts();
  drawTimelineChart();
});

main().catch((e) => {
  console.error(e);
  show($('run-error'), `The page could not start: ${e.message}`);
});
