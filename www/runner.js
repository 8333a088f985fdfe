// Running: a comparison (its baseline, then its what-if, on the pool of workers; a newer
// run supersedes an older one), the chosen pair's timeline and the second pair's, a pair's
// Chrome trace, and opening it in Perfetto; the pair menus and the pair's seed.
// Not here: the workers themselves (pool.js), drawing the answer and table (results.js) or
// the charts (chart-panel.js).

import { scenarioOf, whatIfActive } from './state.js';
import { formatSeconds } from './units.js';
import { $, show, notice, download } from './dom.js';
import { writeHash, syncUrl } from './link.js';
import { uploadSha } from './uploads.js';
import { renderWhatIf, speedKey } from './whatif.js';
import { renderResults, renderPairSelect, emptyResults } from './results.js';
import { drawCharts, drawTimelineChart } from './chart-panel.js';
import { Runner } from './pool.js';
import { markStale, clearStale, showActivePreset } from './controls.js';
import { pairKey, manyOrders, rowLabel, findPair, chosenPair } from './pairs.js';

/**
 * @typedef {import('./context.js').Context} Context
 * @typedef {import('./context.js').PairRunState} PairRunState
 */

/** @param {boolean} on @param {string} [text] */
function setRunning(on, text) {
  $('run').disabled = on;
  $('cancel').disabled = !on;
  $('status').textContent = text || '';
  if (!on) $('progress').value = 0;
}

/** What identifies a comparison: its scenario, and an upload's name and content hash. @param {Context} ctx @param {any} sc */
async function scenarioKey(ctx, sc) {
  const u = ctx.state.upload;
  return JSON.stringify(sc) + '\n' + (u ? `${u.name}\n${await uploadSha(ctx, u)}` : '');
}

/**
 * Runs the state's comparison: the baseline (unless it ran already), then the what-if;
 * `auto` (a what-if slider's re-run) says nothing when no graph is loaded; `reveal` (a
 * preset, an upload, the Run button) scrolls the answer into view when it is off screen.
 * @param {Context} ctx @param {{auto?: boolean, reveal?: boolean}} [opts]
 */
export async function runComparison(ctx, { auto = false, reveal = false } = {}) {
  const { state } = ctx;
  const seq = ++ctx.runSeq;
  show($('run-error'), '');
  if (!ctx.graphText) {
    if (!auto) show($('run-error'), state.graphHash ? 'Give the linked graph file first.' : 'No valid graph is loaded.');
    return;
  }
  let fragment;
  try { fragment = writeHash(ctx); } catch (e) { show($('run-error'), e.message); return; }
  // Busy from the click on (a stale table must not look like this run's answer).
  setRunning(true, 'starting…');
  showActivePreset(ctx);
  const withWhatIf = scenarioOf(state, ctx.all, true);
  const base = scenarioOf(state, ctx.all, false);
  let key;
  try { key = await scenarioKey(ctx, base); } catch (e) {
    if (seq === ctx.runSeq) {
      setRunning(false, '');
      if (!e.cancelled) show($('run-error'), e.message);
    }
    return;
  }
  if (seq !== ctx.runSeq) return;
  const same = ctx.current?.key === key && !whatIfActive(state) && !ctx.current?.comparison.scenario.what_if;
  if (ctx.current && !same) markStale('Not current: these results are for the previous settings; the new ones are running.');
  const progress = (label) => (done, total) => {
    $('progress').max = total;
    $('progress').value = done;
    // One step per placement and per simulation; a long placer moves `done` by fractions.
    $('status').textContent = `${label}${Math.round((100 * done) / Math.max(total, 1))}% of ${total} steps`;
  };
  const t0 = performance.now();
  try {
    if (!ctx.baseline || ctx.baseline.key !== key) {
      setRunning(true, 'running…');
      const r = await ctx.pool.run(JSON.stringify(base), ctx.graphText, progress(whatIfActive(state) ? 'baseline: ' : ''));
      if (seq !== ctx.runSeq) return;
      ctx.baseline = { comparison: r.result, key, ms: r.ms, speedKey: speedKey(base) };
      ctx.timings.lastCompareMs = r.ms;
      renderWhatIf(ctx); // the generated devices' base speeds
    }
    if (whatIfActive(state)) {
      setRunning(true, 'what-if…');
      const r = await ctx.pool.run(JSON.stringify(withWhatIf), ctx.graphText, progress('what-if: '));
      if (seq !== ctx.runSeq) return;
      ctx.current = { comparison: r.result, key, fragment, ms: r.ms, graphText: ctx.graphText };
      ctx.timings.lastCompareMs = r.ms;
    } else {
      ctx.current = { comparison: ctx.baseline.comparison, key, fragment, ms: ctx.baseline.ms, graphText: ctx.graphText };
    }
  } catch (e) {
    if (seq !== ctx.runSeq) return;
    setRunning(false, e.cancelled ? 'cancelled' : '');
    if (ctx.current && !same) {
      markStale(e.cancelled
        ? 'Not current: the run was cancelled; these results are for the previous settings. Run the comparison to update them.'
        : 'Not current: these results are for the previous settings (the new ones failed: the message above says why).');
    } else if (same) clearStale();
    if (!e.cancelled) {
      show($('run-error'), e.message);
      emptyResults(ctx, 'No results: the engine refused these settings (the message above says why).');
    }
    return;
  }
  setRunning(false, `done in ${Math.round(performance.now() - t0)} ms`);
  // After the next frame, which lays out the new results: read here, the answer's position
  // forced that layout in this task (a 48,000-op run's longest, docs/bench.md 24p); read in
  // the frame, before its layout, it forced it there (the frame then the longest, 24v).
  // Asked before the results are drawn, so that it comes before the charts' drawing after
  // that frame (drawChartsAfterFrame), which would make the layout dirty again.
  if (reveal) requestAnimationFrame(() => { setTimeout(revealAnswer, 0); });
  renderResults(ctx);
  runPair(ctx);
  ctx.pool.warmUp();
}

/** Brings the answer into view when it is off screen (a phone's preset chooser sits above it). */
function revealAnswer() {
  const el = $('answer');
  const r = el.getBoundingClientRect();
  const bar = $('bar').getBoundingClientRect().bottom;
  if (r.top < bar || r.bottom > innerHeight) {
    el.scrollIntoView({ block: 'start' });
    // Below the sticky run bar.
    scrollBy(0, -($('bar').offsetHeight + 8));
  }
}

/**
 * Shows a pair: its row chosen, its charts, its timeline (a pair that failed on every seed
 * only says why).
 * @param {Context} ctx @param {string} placer @param {string} scheduler @param {string} [order] the row's link order
 */
export function choosePair(ctx, placer, scheduler, order) {
  const { state, current } = ctx;
  const r = current?.comparison.results.find((x) => x.placer === placer && x.scheduler === scheduler
    && (order === undefined || x.link_order === order));
  if (r?.error && !r.makespans.length) {
    // Infeasible on every seed: there is no schedule to show, only the reason.
    $('timeline-status').textContent = `${rowLabel(ctx, r)} has no schedule: ${r.error}`;
    return;
  }
  // The order is in the key only when the comparison has several (old links stay valid).
  state.pair = pairKey(placer, scheduler, r && current && manyOrders(current.comparison) ? r.link_order : undefined);
  try { writeHash(ctx); } catch (e) { show($('run-error'), e.message); }
  renderPairSelect(ctx);
  drawCharts(ctx);
  runPair(ctx);
}

/** @param {Context} ctx @param {PairRunState} p */
function pairStatus(ctx, p) {
  const { current } = ctx;
  const order = current && manyOrders(current.comparison) ? ` / ${p.order}` : '';
  return `${p.placer} / ${p.scheduler}${order}, seed ${p.seed}: makespan ${formatSeconds(p.result.timeline.makespan)}`
    + (current?.comparison.scenario.replica ? `; the link lanes show each server -> worker link's transfers in ${p.order} order` : '');
}

/** Runs the chosen pair's timeline at the state's seed, then the second pair's. @param {Context} ctx */
export async function runPair(ctx) {
  const { state, current } = ctx;
  if (!current) return;
  const r = chosenPair(ctx);
  const container = $('chart-timeline');
  if (!r) {
    container.replaceChildren();
    $('timeline-status').textContent = 'no pair ran';
    return;
  }
  // The state's seed, within the comparison's seeds.
  const seed = Math.min(state.pairSeed, current.comparison.scenario.seeds - 1);
  $('pair-seed').value = String(seed);
  $('timeline-status').textContent = `running ${rowLabel(ctx, r)}…`;
  ctx.pairRun2 = null;
  try {
    // One row: the engine runs the scenario's first link order, so the scenario names the row's.
    const run = await pairRunOf(ctx, ctx.pairRunner, r);
    await layOutAhead(ctx, run);
    ctx.pairRun = run;
    ctx.timings.lastPairMs = run.ms;
    $('timeline-status').textContent = pairStatus(ctx, run);
    drawTimelineChart(ctx);
  } catch (e) {
    if (e.cancelled) return;
    $('timeline-status').textContent = `timeline failed: ${e.message}`;
  }
  await runPair2(ctx);
}

/**
 * Lays out a pair run's timeline in this task (the chart module's `prepareTimeline`), then
 * yields: its DOM and first drawing run in later tasks. On a 48,000-op run each part is tens
 * of ms of the main thread; together, one task over the 100 ms budget (docs/bench.md, 24m).
 * @param {Context} ctx @param {PairRunState} run
 */
async function layOutAhead(ctx, run) {
  ctx.charts?.prepareTimeline?.(run.result.timeline);
  await new Promise((resolve) => { setTimeout(resolve, 0); });
}

/**
 * A pair's run for a timeline: the row at the state's seed (the scenario names the row's link order).
 * @param {Context} ctx @param {import('./pool.js').Runner} runner @param {import('./types.js').PairResult} r
 * @returns {Promise<PairRunState>}
 */
async function pairRunOf(ctx, runner, r) {
  const { state, current } = ctx;
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

/** The second timeline (`state.pair2`), below the first on a shared time axis. @param {Context} ctx */
async function runPair2(ctx) {
  const r = findPair(ctx, ctx.state.pair2);
  const shown = ctx.pairRun2 !== null;
  ctx.pairRun2 = null;
  if (!r || !ctx.pairRun) {
    // Redraw only to take a second timeline away (the first is drawn already).
    if (shown || !$('chart-timeline2').hidden) drawTimelineChart(ctx);
    return;
  }
  ctx.pair2Runner ??= new Runner();
  try {
    const run = await pairRunOf(ctx, ctx.pair2Runner, r);
    await layOutAhead(ctx, run);
    ctx.pairRun2 = run;
  } catch (e) {
    if (e.cancelled) return;
    $('timeline-status').textContent = `the second timeline failed: ${e.message}`;
  }
  drawTimelineChart(ctx);
}

/**
 * A pair's Chrome trace as a Blob: the same pair and seed again with the trace
 * (deterministic: the same schedule), built in a worker once per pair run.
 * @param {Context} ctx @param {PairRunState} p @returns {Promise<Blob | null>}
 */
async function traceOf(ctx, p) {
  if (p.trace) return p.trace;
  $('timeline-status').textContent = 'building the Chrome trace…';
  try {
    const res = await ctx.traceRunner.run({
      type: 'pair', scenario: p.scenario, graphText: p.graphText,
      placer: p.placer, scheduler: p.scheduler, seedIndex: p.seed, withTrace: true,
    });
    p.trace = res.result.traceBlob;
  } catch (e) {
    $('timeline-status').textContent = e.cancelled ? '' : `trace failed: ${e.message}`;
    return null;
  }
  $('timeline-status').textContent = pairStatus(ctx, p);
  return p.trace;
}

const PERFETTO = 'https://ui.perfetto.dev';

/**
 * Opens the chosen pair's trace in the Perfetto UI (its postMessage protocol: open the
 * window, send PING until it answers PONG, then post {perfetto: {buffer, title}}). The
 * window opens in the click (pop-up blockers allow that), the trace is built meanwhile.
 * @param {Context} ctx
 */
async function openInPerfetto(ctx) {
  if (!ctx.pairRun) return;
  const p = ctx.pairRun;
  const win = window.open(`${PERFETTO}/#!/`, '_blank');
  if (!win) {
    notice('The browser blocked the Perfetto window: allow pop-ups for this page, or download the Chrome trace and open it at ui.perfetto.dev.');
    return;
  }
  const blob = await traceOf(ctx, p);
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

/** The pair menus, the pair's seed, the trace download and Perfetto. @param {Context} ctx */
export function bindPairControls(ctx) {
  const { state } = ctx;
  $('export-trace').addEventListener('click', async () => {
    if (!ctx.pairRun) return;
    const p = ctx.pairRun;
    const trace = await traceOf(ctx, p);
    if (trace) download(`${p.placer}-${p.scheduler}-${p.order}-seed${p.seed}.trace.json`, trace);
  });
  $('pair-select').addEventListener('change', (e) => {
    const [p, s, o] = e.target.value.split('\n');
    choosePair(ctx, p, s, o);
  });
  $('pair2-select').addEventListener('change', (e) => {
    const [p, s, o] = e.target.value.split('\n');
    state.pair2 = e.target.value ? pairKey(p, s, ctx.current && manyOrders(ctx.current.comparison) ? o : undefined) : null;
    syncUrl(ctx);
    runPair2(ctx);
  });
  $('open-perfetto').addEventListener('click', () => openInPerfetto(ctx));
  $('pair-seed').addEventListener('change', (e) => {
    const n = Number(e.target.value);
    if (Number.isInteger(n) && n >= 0) state.pairSeed = n;
    e.target.value = String(state.pairSeed);
    syncUrl(ctx);
    runPair(ctx);
  });
}
