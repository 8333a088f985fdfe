// The playground's start-up and wiring: loads the engine, makes the page's one State and
// its runtime context (context.js), starts the workers, binds each panel's controls, opens
// the link (or the first visit's comparison) and runs it. All text that comes from files,
// links or the engine is shown with textContent (never as HTML).
//
// The main thread loads the engine too, for the quick calls (strategy list, graph
// validation, fresh seeds, share links: the engine's codec writes and reads them);
// comparisons and timelines run in module workers (pool.js).
// Not here: any panel's behaviour (graphs.js, controls.js, ps.js, whatif.js, runner.js,
// results.js, chart-panel.js, open.js; see PAGE-MODULES.md), or the charts (www/charts/*).

import init, * as engine from './pkg/placesim.js';
import { State, scenarioOf } from './state.js';
import { initSweep } from './sweep.js';
import { createContext } from './context.js';
import { $, show } from './dom.js';
import { Pool, Runner, engineModule, poolSize } from './pool.js';
import { fragmentOf, readLink, syncUrl } from './link.js';
import { loadGraph, bindGraphControls } from './graphs.js';
import { renderControls, bindControls, staleResults } from './controls.js';
import { bindPs } from './ps.js';
import { bindWhatIf } from './whatif.js';
import { runComparison, choosePair, bindPairControls } from './runner.js';
import { bindResults, emptyResults } from './results.js';
import { loadCharts, drawCharts, drawTimelineChart, bindCharts } from './chart-panel.js';
import { showLinkError, firstVisit, renderPresets, bindOpen } from './open.js';

const state = new State();
/** @type {Record<string, any>} */
const timings = {};
const ctx = createContext(state, timings);
// The calls lower modules make to upper ones (the graph box, the form and the panels run
// the comparison or mark it stale; the table and charts show a pair): wired here, so that
// no module imports one above it.
ctx.on = {
  run: (opts) => runComparison(ctx, opts),
  stale: () => staleResults(ctx),
  choosePair: (placer, scheduler, order) => choosePair(ctx, placer, scheduler, order),
};

async function main() {
  await init({ module_or_path: await engineModule });
  ctx.strategyInfo = engine.strategies();
  // The default lists: every scheduler, every placer but `pinned` (which follows pins only).
  const d = engine.default_scenario();
  ctx.all = { placers: d.placers, schedulers: d.schedulers };
  let index = {};
  try {
    const r = await fetch('graphs/index.json');
    index = r.ok ? await r.json() : {};
    ctx.graphIndex = Array.isArray(index) ? index : index.graphs || [];
    ctx.clusterIndex = index.clusters || [];
  } catch { ctx.graphIndex = []; }
  try { ctx.charts = await loadCharts(); } catch (e) { console.error('charts:', e); }
  ctx.pool = new Pool(poolSize(), timings);
  ctx.pairRunner = new Runner();
  ctx.traceRunner = new Runner();
  ctx.hashRunner = new Runner();
  ctx.inspectRunner = new Runner();
  ctx.limits = engine.limits();
  $('gen-devices').max = String(ctx.limits.max_devices);
  $('seeds').max = String(ctx.limits.max_seeds);
  $('iterations').max = String(ctx.limits.max_iterations);
  $('iterations-max').textContent = String(ctx.limits.max_iterations);
  ctx.presets = index.scenarios || [];
  renderPresets(ctx);
  renderHelp();
  bind();
  ctx.sweepPanel = initSweep({
    engine, state, pool: ctx.pool, syncUrl: () => syncUrl(ctx),
    scenario: () => JSON.stringify(scenarioOf(state, ctx.all, true)),
    graphText: () => ctx.graphText,
  });
  renderControls(ctx);
  const hash = location.hash;
  let fromLink = false;
  if (hash.length > 1) {
    try {
      const s = readLink(ctx, hash);
      for (const k of Object.keys(s)) state[k] = s[k];
      fromLink = true;
    } catch (e) {
      showLinkError(e);
    }
    renderControls(ctx);
  }
  if (hash.length <= 1) await firstVisit(ctx);
  const ok = await loadGraph(ctx);
  timings.readyMs = performance.now();
  document.documentElement.dataset.ready = 'true';
  // Answer first: the link's comparison, or the default one, runs by itself (not after a
  // link that could not be read: its error stays the answer).
  if (ok && (fromLink || hash.length <= 1)) await runComparison(ctx);
  else if (hash.length > 1 && !fromLink) emptyResults(ctx, 'No results: the link could not be opened (the message above says why).');
  else emptyResults(ctx, fromLink ? 'No results: this link\'s graph is missing (see the graph box).' : 'No results: the graph did not load.');
}

/** Every panel's controls, each by its module's binder. */
function bind() {
  bindGraphControls(ctx);
  bindControls(ctx);
  bindOpen(ctx);
  bindWhatIf(ctx);
  bindResults(ctx);
  bindCharts(ctx);
  bindPairControls(ctx);
  bindPs(ctx);
}

/** The help panel's strategy list: the engine's registry (name, summary citing the paper). */
function renderHelp() {
  const dl = $('help-strategies');
  dl.replaceChildren();
  const info = ctx.strategyInfo;
  /** @type {[string, import('./types.js').StrategyInfo[]][]} */
  const groups = [['placer', info.placers], ['scheduler', info.schedulers], ['link order', info.link_orders]];
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
  get workers() { return ctx.pool?.size ?? 0; },
  preloaded: () => ctx.pool.preloaded(),
  get comparison() { return ctx.current?.comparison ?? null; },
  get baseline() { return ctx.baseline?.comparison ?? null; },
  get pairRun() { return ctx.pairRun; },
  get pairRun2() { return ctx.pairRun2; },
  /** The timeline charts' controllers (search, select, view), for tests. */
  get timelines() { return [ctx.timelineChart, ctx.timelineChart2]; },
  fragment: () => fragmentOf(ctx, state),
  /** @param {string} hash */
  readLink: (hash) => readLink(ctx, hash),
};

// The charts read their colours from CSS variables: redraw them when the system's theme changes.
window.matchMedia?.('(prefers-color-scheme: dark)').addEventListener?.('change', () => {
  drawCharts(ctx);
  drawTimelineChart(ctx);
});

main().catch((e) => {
  console.error(e);
  show($('run-error'), `The page could not start: ${e.message}`);
});
