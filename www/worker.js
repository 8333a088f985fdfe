// The module worker that runs the engine, so the page stays responsive. The page starts a
// pool of these (one per core) and hands each the next work item of a comparison.
//
// Messages in:  {type: 'module', module}  first: the engine's WebAssembly.Module, compiled
//                 once by the page for all its workers
//               {id, type: 'parse', graphText, name}
//                 parses an uploaded graph's text ahead (Session.parse_ahead): its GraphInfo;
//                 the next `load` of that text takes the parsed graph
//               {id, type: 'load', scenario, graphText, clusterText}
//                 loads a scenario ahead of a run, so that its graph is parsed already
//               {id, type: 'part', run, scenario, graphText, clusterText, items}
//                 work items of a comparison (compare::run_part); the scenario is loaded
//                 once per `run` (a graph of the same text is not parsed again) and kept
//                 for the run's next items
//               {id, type: 'place', run, scenario, graphText, clusterText, item}
//                 places the one placer of a work item (Session.place_item): {part, plan}, its
//                 part with the pairs not run yet, and its plan's bytes (moved; null when it
//                 did not place), which this worker also keeps for the run's `sim` requests
//               {id, type: 'sim', run, scenario, graphText, clusterText, item, plan, pairs}
//                 runs pairs (positions) of such an item (Session.simulate_pairs) on `plan`,
//                 or with `plan` null on the plan this worker placed or was sent: their outcomes
//               {id, type: 'pair', scenario, graphText, clusterText, placer, scheduler, seedIndex, withTrace, namesSeq}
//                 a pair's run: its timeline as TimelineData (timeline-data.js: typed arrays,
//                 moved, in lane order, with its lanes' arrays, laneArrays), with the node ids
//                 unless `namesSeq` names the ids this worker sent last and they are the same
//                 (the page keeps them per graph);
//                 with `withTrace`, its Chrome trace as `traceBlob` (a Blob) and no timeline
//               {id, type: 'warm', ops, devices}  runs the engine's warm-up case
//                 (warm_up_case: a generated graph and cluster of that size) twice, item by
//                 item: {[the plan's item key]: ms} of the second pass
//               {id, type: 'sha256', text}  the SHA-256 of a graph's text (off the main thread)
//               {id, type: 'inspect', graphText, name, hash, linked, validate}
//                 validates a graph's text (not with `validate: false`: info null, an upload
//                 the pool parses, Pool.parseAhead): {info, sha256, hashed}; with `hash`, its SHA-256
//                 and whether a link names it by hash (too large to embed); with `linked`
//                 ({sha256, name}), an error unless it is that file
//               {id, type: 'import', file, name, train, batch, shapes, allowUnsized, dtype}  an
//                 uploaded File (an ONNX model, read here: the page never copies its bytes) as
//                 graph JSON: {text, notes} (engine's import_graph with the page's import
//                 options: training step, batch size (0: none), NAME=DIMS shapes)
//               {type: 'keep', graphText}  a text to keep for later requests; no answer
//               Any request's `graphText` may be replaced by `keptText: true`: the text this
//                 worker was sent last (the page's Runner sends a text once, not per request),
//                 or by `graphFile`: the uploaded File whose whole content the text is, which
//                 this worker reads (and keeps) instead of the page copying the text to it;
//                 when it cannot (the file changed on disk since) or has no text kept, its
//                 error says `noText: true`, and the page sends the request again with the text.
//               Requests are handled one at a time, in the order they came.
// Messages out: {type: 'ready'} once the wasm is loaded, then per request
//               {id, type: 'progress', done, total} (at most every 100 ms), and
//               {id, type: 'result', result, ms} or {id, type: 'error', message, fatal, noText}.
// Cancelling is terminating this worker (the page starts a new one): the engine runs
// synchronously and is never interrupted halfway otherwise.

import init, {
  Session, run_pair, graph_sha256, graph_embeds, validate_graph, check_linked_graph, import_graph, warm_up_case,
  work_plan,
} from './pkg/placesim.js';
import { compactTimeline, namesOf, laneArrays, laneBuffers } from './timeline-data.js';

// The page sends the engine compiled once ({type: 'module', module}) as its first message.
/** @type {(m: WebAssembly.Module) => void} */
let gotModule = () => {};
/** @type {Promise<WebAssembly.Module>} */
const moduleSent = new Promise((resolve) => { gotModule = resolve; });
const ready = moduleSent.then((module) => init({ module_or_path: module })).then(
  () => postMessage({ type: 'ready' }),
  (e) => postMessage({ type: 'error', id: null, message: `loading the engine failed: ${e.message || e}` }),
);

/** @type {Session | null} the loaded scenario: its graph stays parsed while its text is the same */
let session = null;
/** @type {number | null} the pool's run the session holds */
let loadedRun = null;
/** @type {{seq: number, text: string} | null} the node ids this worker sent last */
let sentNames = null;
/** @type {string | null} the graph text this worker was sent last (`keptText` requests use it) */
let keptText = null;

/**
 * The graph texts the session holds: the one parsed ahead (until a load takes it), and the
 * loaded scenario's. A load of the text the session would take (the one parsed ahead, else
 * the loaded one) passes none: converting a 19 MB string into the engine's memory costs
 * 0.1-0.3 s, at every load of a run's first request otherwise.
 */
/** @type {string | null} */
let aheadText = null;
/** @type {string | null} */
let loadedText = null;

/**
 * What the last `load` request (a preload) loaded, while nothing has used the session since:
 * a run's first request of the same scenario, graph and cluster texts then takes the session
 * as it is, instead of loading it again (the same state: a load clears the seed cache and
 * the plan, which nothing has filled since; on a 49k-op graph the second load cost 60-150 ms
 * of each worker at the run's start, docs/bench.md, 24q).
 * @type {{scenario: string, text: string | null, cluster: string | null} | null}
 */
let preloaded = null;

function load(msg) {
  session ??= new Session();
  loadedRun = null;
  preloaded = null;
  const text = msg.graphText ?? null;
  const held = text !== null && text === (aheadText ?? loadedText);
  aheadText = null;
  loadedText = null;
  session.load(msg.scenario, held ? undefined : text ?? undefined, msg.clusterText ?? undefined);
  loadedText = text;
}

/** Whether the session holds, untouched, what a load of `msg` would give (`preloaded`). */
function preloadedFor(msg) {
  const p = preloaded;
  return p !== null && session !== null && p.scenario === msg.scenario
    && p.text === (msg.graphText ?? null) && p.cluster === (msg.clusterText ?? null);
}

/**
 * SHA-256 of a text, lowercase hex: the platform's (Web Crypto: a 19 MB graph in about 0.1 s,
 * where the engine's `graph_sha256` takes about 2 s in a fresh worker, its loop not yet
 * optimised) when the page is a secure context (https, or 127.0.0.1 / localhost), else the
 * engine's. The same standard digest either way; a browser test checks that they agree.
 * @param {string} text @returns {Promise<string>}
 */
async function sha256(text) {
  if (!globalThis.crypto?.subtle) return graph_sha256(text);
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function run(msg) {
  const t0 = performance.now();
  if (msg.type === 'parse') {
    session ??= new Session();
    loadedRun = null;
    preloaded = null;
    aheadText = null;
    const info = session.parse_ahead(msg.graphText, msg.name);
    aheadText = msg.graphText;
    return { result: info, ms: performance.now() - t0 };
  }
  if (msg.type === 'load') {
    // Parses the graph ahead of a run (the page sends it when a graph is chosen).
    load(msg);
    preloaded = { scenario: msg.scenario, text: msg.graphText ?? null, cluster: msg.clusterText ?? null };
    return { result: null, ms: performance.now() - t0 };
  }
  if (msg.type === 'part' || msg.type === 'place' || msg.type === 'sim') {
    let loadMs = 0;
    if (loadedRun !== msg.run) {
      if (!preloadedFor(msg)) load(msg);
      loadMs = performance.now() - t0;
      loadedRun = msg.run;
    }
    preloaded = null;
    let last = 0;
    const progress = (done, total) => {
      const now = performance.now();
      if (done === total || now - last > 100) {
        last = now;
        postMessage({ id: msg.id, type: 'progress', done, total });
      }
      return true;
    };
    const s = /** @type {Session} */ (session);
    if (msg.type === 'place') {
      const part = s.place_item(msg.item, progress);
      // The plan's bytes, moved to the page, which sends them to the workers that run its pairs.
      const plan = s.take_plan() ?? null;
      return { result: { part, plan }, ms: performance.now() - t0, loadMs, transfer: plan ? [plan.buffer] : [] };
    }
    if (msg.type === 'sim') {
      const result = s.simulate_pairs(msg.item, msg.plan ?? undefined, new Uint32Array(msg.pairs), progress);
      return { result, ms: performance.now() - t0, loadMs };
    }
    const result = s.run_items(msg.items, progress);
    return { result, ms: performance.now() - t0, loadMs };
  }
  if (msg.type === 'pair') {
    const result = run_pair(msg.scenario, msg.graphText ?? undefined, msg.clusterText ?? undefined,
      msg.placer, msg.scheduler, msg.seedIndex ?? 0, !!msg.withTrace);
    if (msg.withTrace && typeof result.trace === 'string') {
      // The Chrome trace goes back as a Blob (passed by reference): the main thread never
      // copies or encodes its tens of MB. Its timeline is the one the page drew already:
      // not sent again (decoding it is most of the main thread's time on a big graph).
      result.traceBlob = new Blob([result.trace], { type: 'application/json' });
      result.trace = null;
      /** @type {any} */ (result).timeline = null;
      return { result, ms: performance.now() - t0 };
    }
    // Typed arrays, moved (not copied) to the page; the ids only when the page lacks them.
    const tl = result.timeline;
    const names = namesOf(tl.nodes, (sentNames?.seq ?? 0) + 1);
    const known = sentNames !== null && sentNames.seq === msg.namesSeq && sentNames.text === names.text;
    if (!known) sentNames = { seq: names.seq, text: names.text };
    const { data, transfer } = compactTimeline(tl, known ? null : names);
    // The lanes' per-op arrays too: the page's layout then does not walk every op.
    data.lanes = laneArrays(data);
    transfer.push(...laneBuffers(data.lanes));
    return { result: { timeline: data, trace: null }, ms: performance.now() - t0, transfer };
  }
  if (msg.type === 'inspect') {
    const text = /** @type {string} */ (msg.graphText);
    const info = msg.validate === false ? null : validate_graph(text, msg.name);
    if (msg.linked) check_linked_graph(msg.linked, text);
    let sha = null;
    let hashed = false;
    if (msg.hash) {
      sha = await sha256(text);
      // The engine's link writer's rule: embed the text when it deflates within the limit,
      // else name it by hash (compressing stops at the limit: cheap on a large text).
      hashed = !graph_embeds(text);
    }
    return { result: { info, sha256: sha, hashed }, ms: performance.now() - t0 };
  }
  if (msg.type === 'warm') {
    // The first pass runs while V8 compiles the hot functions; the second pass's times,
    // of optimized code, rank the placers for the pool's first run (longest first).
    const c = /** @type {import('./types.js').WarmUpCase} */ (warm_up_case(msg.ops, msg.devices));
    const warm = new Session();
    try {
      warm.load(c.scenario, c.graph_text, undefined);
      const plan = /** @type {import('./types.js').WorkPlan} */ (work_plan(c.scenario, 2));
      /** @type {Record<string, number>} */
      const cost = {};
      for (let pass = 0; pass < 2; pass++) {
        plan.items.forEach((item, k) => {
          const t = performance.now();
          warm.run_items([item], undefined);
          if (pass === 1) cost[plan.keys[k]] = performance.now() - t;
        });
      }
      return { result: cost, ms: performance.now() - t0 };
    } finally {
      warm.free();
    }
  }
  if (msg.type === 'sha256') {
    return { result: await sha256(msg.text), ms: performance.now() - t0 };
  }
  if (msg.type === 'import') {
    const bytes = new Uint8Array(await /** @type {File} */ (msg.file).arrayBuffer());
    return { result: import_graph(bytes, msg.name, !!msg.train, msg.batch ?? 0, msg.shapes ?? [], !!msg.allowUnsized, msg.dtype ?? ''), ms: performance.now() - t0 };
  }
  throw new Error(`unknown request '${msg.type}'`);
}

/**
 * A request's graph text: the kept one (`keptText`), an upload's File read here (`graphFile`),
 * or the text sent; kept for later requests. A file that cannot be read (changed on disk
 * since the upload) leaves no text kept: a later `keptText` request fails, and the page
 * sends the text again after a failure (pool.js Runner.receive).
 */
async function graphTextOf(msg) {
  if (msg.keptText) {
    if (keptText === null) throw noText(new Error('the graph\'s text was not received'));
    msg.graphText = keptText;
  } else if (msg.graphFile) {
    keptText = null;
    try {
      msg.graphText = await msg.graphFile.text();
    } catch (e) {
      throw noText(e instanceof Error ? e : new Error(String(e)));
    }
    msg.graphFile = null;
    keptText = msg.graphText;
  } else if (typeof msg.graphText === 'string') keptText = msg.graphText;
}

/** Marks an error as "this worker has no graph text": the page sends the request again with the text. @param {Error} e */
function noText(e) {
  return Object.assign(e, { noText: true });
}

/** The requests not handled yet: one at a time (reading a File awaits, as does a hash). */
let queue = Promise.resolve();

onmessage = (e) => {
  const msg = e.data;
  if (msg.type === 'module') {
    gotModule(msg.module);
    return;
  }
  queue = queue.then(() => handle(msg));
};

/** @param {any} msg */
async function handle(msg) {
  await ready;
  if (msg.type === 'keep') {
    // A text sent ahead (Runner.keepText): no answer.
    try { await graphTextOf(msg); } catch { /* the request that needs it says so */ }
    return;
  }
  try {
    await graphTextOf(msg);
    const { result, ms, loadMs, transfer } = await run(msg);
    postMessage({ id: msg.id, type: 'result', result, ms, loadMs: loadMs ?? 0 }, { transfer: transfer ?? [] });
  } catch (err) {
    // Engine errors arrive as Error objects with the engine's message; a wasm trap
    // (a bug) arrives as a RuntimeError: the page restarts the worker after it.
    postMessage({
      id: msg.id,
      type: 'error',
      message: err instanceof Error ? err.message : String(err),
      fatal: err instanceof WebAssembly.RuntimeError,
      noText: !!(/** @type {any} */ (err)?.noText),
    });
  }
}
