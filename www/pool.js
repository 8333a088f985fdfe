// The engine's workers: a Runner is one module worker (www/worker.js) running one request
// at a time; the Pool hands a comparison's work items to its runners and has the engine
// merge their parts. The engine's wasm is compiled once here and shared by every worker.
// Not here: what a request computes (worker.js, the engine), or anything drawn on the page
// (the Pool reports progress to a callback).

import * as engine from './pkg/placesim.js';

/**
 * @typedef {import('./types.js').Comparison} Comparison
 * @typedef {{parts: import('./types.js').Partial[], done: number[], itemMs: number[], report: () => void,
 *   tasks: [number, number, number, number, number, number][], t0: number}} RunState
 *   a run's parts, progress units done and time per item, its progress drawing, and each
 *   request's worker, item, pair, start and end (ms after t0), and the time its worker spent
 *   loading the scenario in it (where the time went)
 */

/**
 * The engine compiled once: the page and every worker instantiate this one module, so V8
 * compiles and tiers up the engine's code once rather than once per worker (in Node's
 * workers, two cold workers ran the 20k-op comparison x1.23 faster than one, two warm ones
 * x1.75: each compiling its own copy cost the difference).
 * @type {Promise<WebAssembly.Module>}
 */
export const engineModule = (async () => {
  const r = await fetch(new URL('./pkg/placesim_bg.wasm', import.meta.url));
  if (!r.ok) throw new Error(`the engine could not be fetched (HTTP ${r.status})`);
  try {
    return await WebAssembly.compileStreaming(r.clone());
  } catch {
    return WebAssembly.compile(await r.arrayBuffer()); // served without application/wasm
  }
})();

/**
 * The file an uploaded graph's text was read from, while that text is the page's latest
 * upload (`readFrom`). A worker that needs the text is sent the File instead and reads it
 * itself: posting a File copies a handle, where posting the text copies it (a 19 MB text:
 * 20-30 ms of the main thread per worker, 60-85 ms with the CPU slowed 3x, and an upload
 * sends it to four workers: docs/bench.md, 24v).
 * @type {{text: string, file: Blob} | null}
 */
let textFile = null;

/**
 * Says that `text` is the whole content of `file` (an upload read with `file.text()`), so
 * that workers are sent the file rather than the text; the previous upload's is forgotten.
 * @param {string} text @param {Blob} file
 */
export function readFrom(text, file) {
  textFile = { text, file };
}

export class Runner {
  constructor() {
    this.seq = 0;
    /** @type {{id: number, resolve: (m: any) => void, reject: (e: Error) => void,
     *   onProgress?: (done: number, total: number) => void, msg: any, resent?: boolean} | null} */
    this.pending = null;
    /** @type {number | null} */
    this.loadedRun = null;
    /** @type {Promise<void> | null} a scenario being loaded ahead of a run (Pool.preload) */
    this.preloading = null;
    /** @type {import('./timeline-data.js').TimelineNames | null} the node ids this worker sent last */
    this.names = null;
    /** @type {Set<number>} the run's items whose plan this worker's engine holds (Pool.taskWorker) */
    this.held = new Set();
    /** @type {number | null} the seed of those plans */
    this.heldSeed = null;
    /** @type {number | null} the item this worker simulated last (its tables are built) */
    this.lastUnit = null;
    /** @type {string | null} the graph text this worker was sent last, which it keeps (`run`) */
    this.text = null;
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
    this.held = new Set();
    this.heldSeed = null;
    this.lastUnit = null;
    this.text = null;
    this.worker = this.spawn();
  }

  receive(m) {
    const p = this.pending;
    if (m.type === 'ready') return;
    if (!p) return;
    if (m.id !== null && m.id !== p.id) return;
    if (m.type === 'progress') { p.onProgress?.(m.done, m.total); return; }
    if (m.type === 'error' && m.noText && !p.resent) {
      // The worker could not read the upload's File (changed on disk since the upload, say)
      // or lost it: the request goes again with the text itself, as the other workers' will
      // from then on. The engine had not started.
      textFile = null;
      this.text = null;
      p.resent = true;
      this.worker.postMessage({ ...p.msg, id: p.id, ...this.textFields(p.msg.graphText) });
      return;
    }
    this.pending = null;
    if (m.type === 'result') p.resolve(m);
    else {
      // The worker may not hold the text it was sent: the next request sends it again.
      this.text = null;
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

  /**
   * Runs one request; a request still running is cancelled first. A graph's text goes as a
   * string: sending it as a Blob instead (issue 24m) made a 49k-op comparison in the pool
   * of two 30% slower (each worker read the 19 MB back from the browser's blob store) for
   * no long task saved (docs/bench.md, "After this session's merges", 12:09 UTC). The
   * worker keeps the last text it was sent: the same text again goes as `keptText: true`
   * instead, so the main thread copies a graph's text once per worker, not at every
   * request that needs it (a run's first request per worker after the preload, each
   * timeline, each trace: 50-100 ms each on a 48,000-op graph, docs/bench.md, 24p). An
   * upload's text goes as its File (`readFrom`), which the worker reads.
   */
  run(msg, onProgress) {
    if (this.pending) this.cancel();
    const id = ++this.seq;
    const out = { ...msg, id, ...this.textFields(msg.graphText) };
    return new Promise((resolve, reject) => {
      this.pending = { id, resolve, reject, onProgress, msg };
      this.worker.postMessage(out);
    });
  }

  /**
   * A message's graph text as this worker is sent it: nothing when it keeps that text
   * already (`keptText: true`), else the upload's File when the text is that file's
   * (`graphFile`), else the text; the worker keeps it from then on.
   * @param {string | null | undefined} text
   * @returns {{graphText?: string | null, keptText?: boolean, graphFile?: Blob}}
   */
  textFields(text) {
    if (typeof text !== 'string') return {};
    if (text === this.text) return { graphText: null, keptText: true };
    this.text = text;
    if (textFile !== null && textFile.text === text) return { graphText: null, graphFile: textFile.file };
    return { graphText: text };
  }

  get busy() { return this.pending !== null; }

  /**
   * Sends a graph's text ahead, in a task of its own, for this worker to keep (a request
   * without an answer): its next request of that text (a timeline) then does not copy the
   * text in the task that asks for it. Nothing when it has that text already.
   * @param {string} text
   */
  keepText(text) {
    setTimeout(() => {
      if (this.text === text) return;
      this.worker.postMessage({ type: 'keep', ...this.textFields(text) });
    }, 0);
  }

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

/** The warm-up case's size (src/compare/mod.rs `warm_up_case`): generated ops and devices. */
const WARM_UP = { ops: 2000, devices: 16 };

/**
 * A pool of engine workers for comparisons: the scenario's work items (src/compare/items.rs
 * `work_plan`) are handed one at a time to whichever worker is idle, and the partial
 * comparisons are merged by the engine in the items' fixed order (`merge_parts`), so the
 * result has the bits of one worker's. Progress sums over the workers; cancel stops them all.
 */
export class Pool {
  /** @param {number} size @param {Record<string, any>} timings where the time went (the page's) */
  constructor(size, timings) {
    this.timings = timings;
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
    this.timings.lastPool.mergeMs = performance.now() - tm;
    return { result, ms: ms + this.timings.lastPool.mergeMs };
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
    // Each worker's part of the run: whole items (work_items gave several placers per item),
    // or placements and simulations as tasks (one placer per item and several workers).
    const split = this.size > 1 && plan.items.every((it) => it.placers.length === 1);
    /** @type {[number, number, number, number, number, number][]} what each request was: [worker, item, pair (-1: the placement, -2: the whole item), start, end] ms since t0, and its load's ms */
    const tasks = [];
    const st = { parts, done, itemMs, report, tasks, t0 };
    const work = split
      ? this.taskWorker(run, scenario, graphText, plan, order, st)
      : this.itemWorker(run, scenario, graphText, plan, order, st);
    try {
      await Promise.all(this.runners.map(work));
    } catch (e) {
      if (this.active === run) this.cancel();
      throw e;
    }
    if (this.active !== run) throw Object.assign(new Error('cancelled'), { cancelled: true });
    this.active = null;
    // Where the time went: each item's time in its worker, and the merge's (run sets it).
    this.timings.lastPool = { workers: this.size, itemMs, order, mergeMs: 0, split, tasks, keys };
    keys.forEach((key, k) => this.itemCost.set(key, itemMs[k]));
    return { parts, ms: performance.now() - t0 };
  }

  /**
   * A worker's loop over whole items: each free worker takes the next item in `order`.
   * @param {number} run @param {string} scenario @param {string | null} graphText
   * @param {import('./types.js').WorkPlan} plan @param {number[]} order
   * @param {RunState} st
   * @returns {(runner: Runner) => Promise<void>}
   */
  itemWorker(run, scenario, graphText, plan, order, { parts, done, itemMs, report, tasks, t0 }) {
    let next = 0;
    return async (runner) => {
      const w = this.runners.indexOf(runner);
      if (runner.preloading) await runner.preloading;
      while (this.active === run && next < plan.items.length) {
        const k = order[next++];
        // A worker keeps the run's scenario and graph loaded: the graph's text goes to it once.
        const first = runner.loadedRun !== run;
        runner.loadedRun = run;
        const ts = performance.now() - t0;
        const m = await runner.run({ type: 'part', run, scenario, graphText: first ? graphText : null, items: [plan.items[k]] },
          (d) => { done[k] = d; report(); });
        tasks.push([w, k, -2, ts, performance.now() - t0, m.loadMs ?? 0]);
        parts[k] = m.result;
        itemMs[k] = m.ms;
        done[k] = plan.units[k];
        report();
      }
    };
  }

  /**
   * A worker's loop over tasks, as the CLI's threads take theirs (src/compare/parallel.rs):
   * each item (one placer at one seed) is placed once (a task), then each of its pairs is
   * simulated as a task of its own, in whichever worker is free, so that a slow placer's
   * simulations spread over the workers. A free worker takes an unstarted placement of the
   * lowest seed with work left (longest first, `order`), else a simulation whose placement
   * is done (of the placement it simulated last, else one it holds, else any: its plan goes
   * along, a few hundred KB), else a placement of a later seed, else waits for a placement.
   * A worker holds the plans it made or was sent, of one seed (the engine's `SeedCache`).
   * The placement's part and its pairs' outcomes are joined by the engine (`join_pairs`)
   * into the part of the whole item: the same bits wherever each task ran.
   * @param {number} run @param {string} scenario @param {string | null} graphText
   * @param {import('./types.js').WorkPlan} plan @param {number[]} order
   * @param {RunState} st
   * @returns {(runner: Runner) => Promise<void>}
   */
  taskWorker(run, scenario, graphText, plan, order, { parts, done, itemMs, report, tasks, t0 }) {
    const units = plan.items.map((item, k) => ({
      item,
      started: false,
      /** @type {import('./types.js').Partial | null} */
      part: null,
      /** @type {Uint8Array | null} the plan's bytes once placed (null: placing, or it did not place) */
      plan: null,
      /** the next pair to hand out, how many ran, and how many are running */
      next: 0,
      ran: 0,
      running: 0,
      pairs: plan.units[k] - 1,
      /** @type {import('./types.js').PairOutcome[]} */
      outcomes: [],
    }));
    const seedLeft = new Map();
    for (const it of plan.items) seedLeft.set(it.seed, (seedLeft.get(it.seed) ?? 0) + 1);
    /** @type {(() => void)[]} */
    let waiting = [];
    const wake = () => { const w = waiting; waiting = []; for (const f of w) f(); };
    /** @param {number} k */
    const finish = (k) => {
      const u = units[k];
      parts[k] = engine.join_pairs(/** @type {import('./types.js').Partial} */ (u.part), u.outcomes);
      u.part = null;
      u.plan = null;
      u.outcomes = [];
      done[k] = plan.units[k];
      seedLeft.set(u.item.seed, seedLeft.get(u.item.seed) - 1);
    };
    /** @param {Runner} runner @returns {{k: number, j: number} | 'wait' | null} j: -1 places */
    const pick = (runner) => {
      let current = Infinity;
      for (const [seed, left] of seedLeft) if (left > 0 && seed < current) current = seed;
      if (current === Infinity) return null;
      const place = (/** @type {number | null} */ seed) => order.find((k) => !units[k].started && (seed === null || units[k].item.seed === seed));
      let k = place(current);
      if (k !== undefined) return { k, j: -1 };
      const open = (/** @type {number} */ j) => units[j].plan !== null && units[j].next < units[j].pairs;
      const held = runner.held;
      k = runner.lastUnit !== null && open(runner.lastUnit) ? runner.lastUnit : undefined;
      k ??= order.find((j) => open(j) && held.has(j));
      // Else another placement, one no worker is simulating if any: each worker that runs a
      // placement's pairs decodes its plan and builds its simulation tables once.
      k ??= order.find((j) => open(j) && units[j].running === 0);
      k ??= order.find(open);
      if (k !== undefined) return { k, j: units[k].next++ };
      k = place(null);
      if (k !== undefined) return { k, j: -1 };
      return units.some((u) => u.started && u.part === null && u.pairs > 0 && u.ran < u.pairs) ? 'wait' : null;
    };
    return async (runner) => {
      const w = this.runners.indexOf(runner);
      if (runner.preloading) await runner.preloading;
      if (runner.loadedRun !== run) { runner.held = new Set(); runner.lastUnit = null; }
      try {
        while (this.active === run) {
          const t = pick(runner);
          if (t === null) return;
          if (t === 'wait') {
            await new Promise((resolve) => { waiting.push(() => resolve(undefined)); });
            continue;
          }
          const { k, j } = t;
          const u = units[k];
          const first = runner.loadedRun !== run;
          runner.loadedRun = run;
          // A worker's engine keeps one seed's plans: another seed's task drops them.
          if (runner.heldSeed !== u.item.seed) { runner.held = new Set(); runner.heldSeed = u.item.seed; }
          const msg = { run, scenario, graphText: first ? graphText : null, item: u.item };
          const ts = performance.now() - t0;
          let loadMs = 0;
          if (j < 0) {
            u.started = true;
            const m = await runner.run({ type: 'place', ...msg }, (d) => { done[k] = d; report(); });
            itemMs[k] += m.ms;
            loadMs = m.loadMs ?? 0;
            u.part = m.result.part;
            done[k] = 1;
            if (m.result.plan) {
              u.plan = m.result.plan;
              runner.held.add(k);
            } else u.pairs = 0;
            if (u.pairs === 0) finish(k);
          } else {
            const send = !runner.held.has(k);
            u.running += 1;
            const m = await runner.run({ type: 'sim', ...msg, plan: send ? u.plan : null, pairs: [j] })
              .finally(() => { u.running -= 1; });
            itemMs[k] += m.ms;
            loadMs = m.loadMs ?? 0;
            runner.held.add(k);
            runner.lastUnit = k;
            u.outcomes[j] = m.result[0];
            u.ran += 1;
            done[k] = 1 + u.ran;
            if (u.ran === u.pairs) finish(k);
          }
          tasks.push([w, k, j, ts, performance.now() - t0, loadMs]);
          report();
          wake();
        }
      } finally {
        wake();
      }
    };
  }

  /**
   * Has the idle workers parse an uploaded graph's text ahead, while the page validates and
   * hashes it (`Session.parse_ahead`): the scenario that names the upload is known only
   * once the graph's own name is, but the preload's `load` of the same text then takes the
   * parsed graph instead of parsing it again (`scenario::load::Prior`), so that a run
   * right after an upload does not wait for a parse per worker. Errors are dropped (the
   * validation reports them).
   * The first worker's parse is the upload's validation (its summary, or the engine's
   * error, as `validate_graph` gives them), so the upload parses the text once per worker
   * and not once more in the inspect worker; null when no worker was free (a run under
   * way): the caller validates elsewhere.
   * @param {string} text @param {string} name the file's stem (the graph's name if it has none)
   * @returns {Promise<import('./types.js').GraphInfo> | null}
   */
  parseAhead(text, name) {
    if (this.active !== null) return null;
    /** @type {Promise<import('./types.js').GraphInfo> | null} */
    let first = null;
    for (const r of this.runners) {
      if (r.busy && !r.preloading) continue;
      r.loadedRun = null;
      /** @type {Promise<any>} */
      const p = new Promise((resolve, reject) => {
        this.ahead(r, () => r.run({ type: 'parse', graphText: text, name }).then((m) => resolve(m.result), (e) => { reject(e); throw e; }));
      });
      first ??= p;
    }
    return first;
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
   * (src/compare/mod.rs `warm_up_case`), so that V8 has compiled the engine's hot functions to
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
      this.timings.warmUpMs = m.ms;
      this.timings.warmUpCost = m.result;
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
    // Each in a task of its own: a request that copies a big graph's text (tens of ms on
    // the main thread) does not share a task with another worker's copy or the caller's work.
    const task = () => new Promise((resolve) => { setTimeout(resolve, 0); });
    const p = (r.preloading ?? Promise.resolve()).then(task).then(request).then(() => {}, () => {})
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
export function poolSize() {
  const asked = Number(new URLSearchParams(location.search).get('workers'));
  if (Number.isInteger(asked) && asked >= 1) return Math.min(asked, 64);
  return Math.min(8, Math.max(1, navigator.hardwareConcurrency || 1));
}
