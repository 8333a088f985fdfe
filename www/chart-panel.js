// The charts on the page: loads the chart modules (www/charts/*), draws the current
// comparison's charts and the pairs' timelines (two share one time axis), describes a
// hovered timeline item, and exports a chart as SVG or PNG. A row chosen on a chart is
// shown through the context's callback (ctx.on.choosePair: running is above this module).
// Not here: how a chart draws (www/charts/*), or running the timelines (runner.js).

import { whatIfActive } from './state.js';
import { setAbstractUnits, formatSeconds, formatBytes, formatSig, isBest, formatCount } from './units.js';
import { $, notice } from './dom.js';
import { syncUrl } from './link.js';
import { pairKey, manyOrders, bestMakespan, chosenPair, unitsOf } from './pairs.js';

/**
 * @typedef {import('./context.js').Context} Context
 * @typedef {import('./context.js').PairRunState} PairRunState
 */

/** The chart modules' exports, merged (ctx.charts). */
export async function loadCharts() {
  const [bars, memory, timeline, exp, iterations, convergence] = await Promise.all([
    import('./charts/bars.js'), import('./charts/memory.js'),
    import('./charts/timeline/index.js'), import('./charts/export.js'), import('./charts/iterations.js'),
    import('./charts/convergence.js'),
  ]);
  return { ...bars, ...memory, ...timeline, ...exp, ...iterations, ...convergence };
}

/**
 * Each draw* replaces its container's content (and disposes the chart drawn there before).
 * @param {Context} ctx @param {string} id @param {(el: any) => void} fn
 */
function draw(ctx, id, fn) {
  const el = $(id);
  if (!ctx.charts) {
    el.textContent = 'charts are unavailable';
    return;
  }
  try { fn(el); } catch (e) {
    console.error(`${id}:`, e);
    el.textContent = `this chart failed: ${e.message}`;
  }
}

/** The chart containers drawCharts draws in. */
const CHART_IDS = ['chart-makespan', 'chart-traffic', 'chart-memory', 'chart-cdf', 'chart-ordering', 'chart-convergence'];

/** The current comparison's charts, the chosen pair highlighted. @param {Context} ctx */
export function drawCharts(ctx) {
  // A drawing put off to after a frame (drawChartsAfterFrame) is superseded by this one.
  ctx.chartsDue += 1;
  $('results-body').dataset.charts = 'drawn';
  const steps = chartSteps(ctx);
  if (!steps.length) return;
  // Every chart's width read at once, before any is drawn: read between two charts' DOM
  // writes, each forced a layout of the page (a 48,000-op run's results task, docs/bench.md 24p).
  ctx.charts?.primeWidths?.(CHART_IDS.map($));
  for (const step of steps) step();
}

/**
 * The current comparison's charts as steps, one chart each (the first also shows or hides
 * the optional charts' cards): drawCharts runs them at once, drawChartsAfterFrame one per task.
 * @param {Context} ctx @returns {(() => void)[]}
 */
function chartSteps(ctx) {
  const { state, current, baseline, charts } = ctx;
  if (!current) return [];
  const c = current.comparison;
  const r = chosenPair(ctx);
  const highlight = r ? { placer: r.placer, scheduler: r.scheduler, link_order: r.link_order } : null;
  setAbstractUnits(unitsOf(ctx, c));
  $('log-scale').checked = state.logScale;
  const best = bestMakespan(c.results);
  const isWinner = (row) => !row.error && isBest(row.makespan, best);
  /** @type {(placer: string, scheduler: string, order?: string) => void} */
  const onSelect = (placer, scheduler, order) => ctx.on.choosePair(placer, scheduler, order);
  // While a what-if is active, the bar charts show each row's value before it.
  const base = whatIfActive(state) && baseline && baseline.comparison !== c
    ? new Map(baseline.comparison.results.map((x) => [pairKey(x.placer, x.scheduler, x.link_order), x])) : null;
  const before = base ? (/** @type {any} */ x) => base.get(pairKey(x.placer, x.scheduler, x.link_order)) ?? null : undefined;
  const iter = c.results.some((x) => x.iteration_time?.sorted?.length);
  const ord = c.results.some((x) => x.ordering);
  // The optimiser's convergence: the chosen row's, else the first row whose plan has one.
  const searched = [r, ...c.results].find((x) => x && !x.error && x.plan?.history?.length);
  // The chosen row's memory (rows of other link orders place the same way, but are theirs).
  const mine = r ? { ...c, results: c.results.filter((x) => x.link_order === r.link_order) } : c;
  const steps = [
    () => {
      $('card-cdf').hidden = !iter;
      $('card-ordering').hidden = !ord;
      $('chart-convergence').hidden = !searched;
      $('convergence-caption').hidden = !searched;
      draw(ctx, 'chart-makespan', (el) => charts.drawMakespan(el, c, {
        highlight, log: state.logScale, isBest: isWinner, onSelect, baseline: before,
      }));
    },
    () => draw(ctx, 'chart-traffic', (el) => charts.drawTraffic(el, c, { baseline: before })),
    () => draw(ctx, 'chart-memory', (el) => charts.drawMemory(el, mine, {
      placer: r?.placer, scheduler: r?.scheduler, highlight, onSelect, baseline: before,
    })),
  ];
  if (iter) steps.push(() => draw(ctx, 'chart-cdf', (el) => charts.drawCdf(el, c, { highlight, onSelect })));
  if (ord) steps.push(() => draw(ctx, 'chart-ordering', (el) => charts.drawOrdering(el, c, { highlight, onSelect })));
  if (searched) {
    steps.push(() => {
      draw(ctx, 'chart-convergence', (el) => charts.drawConvergence(el, searched));
      $('convergence-caption').textContent = budgetWords(ctx, c, searched);
    });
  }
  return steps;
}

/**
 * The current comparison's charts, drawn after the next frame, one chart per task, rather
 * than in the results' task: that frame lays out and paints the new table, so the charts'
 * widths are read once from a clean layout (kept for the charts' tasks: a width read after
 * a chart's DOM writes would force a layout), and no task both builds the table and draws
 * six charts (on the 49k-op page run's 66 rows with the main thread slowed 3x, the results'
 * task took 66-113 ms: docs/bench.md, 24v). `#results-body[data-charts]` is 'pending' until
 * they are drawn, then 'drawn' (the browser tests wait for it). A frame never comes while
 * the page is hidden: they are drawn when it is shown. A later drawing (a newer comparison,
 * or drawCharts) supersedes this one's remaining steps.
 * @param {Context} ctx
 */
export function drawChartsAfterFrame(ctx) {
  const body = $('results-body');
  const { current } = ctx;
  const due = ++ctx.chartsDue;
  body.dataset.charts = 'pending';
  const task = () => new Promise((resolve) => { setTimeout(resolve, 0); });
  requestAnimationFrame(async () => {
    await task();
    if (due !== ctx.chartsDue) return; // a later drawing is on its way
    const steps = ctx.current === current ? chartSteps(ctx) : [];
    const release = steps.length ? ctx.charts?.primeWidths?.(CHART_IDS.map($), true) : null;
    try {
      for (const [i, step] of steps.entries()) {
        if (i > 0) await task();
        if (due !== ctx.chartsDue) return;
        step();
      }
    } finally {
      release?.();
    }
    body.dataset.charts = 'drawn';
  });
}

/**
 * The search's budget in the unit its status counts (schedules simulated: pesto.rs BUDGET,
 * 0 = automatic, sized by the engine from the graph), and the work the search did.
 * @param {Context} ctx @param {import('./types.js').Comparison} c @param {import('./types.js').PairResult} row
 */
function budgetWords(ctx, c, row) {
  const spec = ctx.strategyInfo.placers.find((p) => p.name === row.placer)?.params.find((p) => p.name === 'budget');
  const rep = row.plan_reports?.[0];
  const did = rep ? `This search did ${formatCount(rep.work)} ${rep.work_unit}.` : '';
  if (!spec) return did;
  const budget = c.scenario.params?.[`${row.placer}.budget`] ?? spec.default;
  const said = budget > 0
    ? `Budget ${formatCount(budget)} schedule${budget === 1 ? '' : 's'} simulated.`
    : 'Budget automatic (0): the engine sizes it from the graph\'s ops and edges.';
  return `${said} ${did}`;
}

/** A hovered timeline item in words (the line under the timeline). @param {any} info */
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

/**
 * A pair run's timeline, with the comparison's placement time (one per pair: the timeline's run placed it again).
 * @param {Context} ctx @param {PairRunState} p
 */
function timelineOf(ctx, p) {
  const row = ctx.current?.comparison.results.find((x) => x.placer === p.placer && x.scheduler === p.scheduler && x.link_order === p.order);
  return row ? { ...p.result.timeline, placement_seconds: row.placement_seconds } : p.result.timeline;
}

/** The chosen pair's timeline and, with a second pair, its timeline below on the same time axis. @param {Context} ctx */
export function drawTimelineChart(ctx) {
  const { pairRun, pairRun2, charts } = ctx;
  ctx.timelineChart = null;
  ctx.timelineChart2 = null;
  const two = !!(pairRun && pairRun2);
  const tEnd = pairRun && pairRun2 ? Math.max(pairRun.result.timeline.makespan, pairRun2.result.timeline.makespan) : 0;
  const label = (p) => `${p.placer} / ${p.scheduler}${ctx.current && manyOrders(ctx.current.comparison) ? ` / ${p.order}` : ''}`;
  const onHover = (info) => { $('timeline-hover').textContent = describe(info); };
  draw(ctx, 'chart-timeline', (el) => {
    if (!pairRun) return;
    ctx.timelineChart = charts.drawTimeline(el, timelineOf(ctx, pairRun), {
      onHover, tEnd, title: two ? label(pairRun) : undefined,
      onView: (t0, t1) => ctx.timelineChart2?.setView(t0, t1, true),
    });
  });
  const el2 = $('chart-timeline2');
  el2.hidden = !two;
  if (!two) {
    el2.replaceChildren();
    return;
  }
  draw(ctx, 'chart-timeline2', (el) => {
    if (!pairRun2) return;
    ctx.timelineChart2 = charts.drawTimeline(el, timelineOf(ctx, pairRun2), {
      onHover, tEnd, title: label(pairRun2),
      onView: (t0, t1) => ctx.timelineChart?.setView(t0, t1, true),
    });
    const v = ctx.timelineChart?.getView();
    if (v) ctx.timelineChart2.setView(v[0], v[1], true);
  });
}

/** @param {Context} ctx @param {string} id the chart's container @param {string} fmtName 'svg' or 'png' */
function exportChart(ctx, id, fmtName) {
  const { charts } = ctx;
  if (!charts) return;
  const el = $(id);
  const svg = el.querySelector('svg');
  const canvas = el.querySelector('canvas');
  const name = id.replace(/^chart-/, 'placesim-');
  if (fmtName === 'svg') {
    if (svg) charts.exportSvg(svg, `${name}.svg`);
    else notice('This chart is drawn on a canvas: export it as PNG.');
  } else if (id === 'chart-timeline' && ctx.timelineChart?.toCanvas) {
    // Every lane at the current zoom, not only the visible part.
    charts.exportPng(ctx.timelineChart.toCanvas(2), `${name}.png`);
  } else if (svg || canvas) {
    charts.exportPng(svg || canvas, `${name}.png`);
  }
}

/** The log-scale switch and the charts' export buttons. @param {Context} ctx */
export function bindCharts(ctx) {
  const { state } = ctx;
  $('log-scale').addEventListener('change', (e) => {
    state.logScale = e.target.checked;
    syncUrl(ctx);
    drawCharts(ctx);
  });
  for (const b of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-export]'))) {
    b.addEventListener('click', () => exportChart(ctx, /** @type {string} */ (b.dataset.export), /** @type {string} */ (b.dataset.fmt)));
  }
}
