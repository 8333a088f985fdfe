// The optimiser's convergence (issue 10): a planning placer's best makespan and best lower
// bound against the work its search had done, from the row's plan.history (the engine's
// SolveReport history: a point per improvement, counted in work, never seconds, the first
// seed's). Both are step lines (a value holds until the next improvement); the time axis
// carries units (seconds, or "units" for abstract speeds) and the work axis the report's own
// work unit. The chart is one tab stop: the arrow keys move between the improvements, each
// of which says its work, makespan and bound.
// Not here: computing any number (the engine's history carries them all).

import {
  INK, FONT, svgEl, svgText, createSvgRoot, niceTicks, formatSeconds, formatCount, timeTickFormatter,
  ellipsize, tooltip, mount, seriesColor, rovingFocus, wrapWords,
} from './svg.js';
import { legend } from './iterations.js';
import { valueAxis } from './sweep.js';

/**
 * @typedef {import('../types.js').PairResult} PairResult
 * @typedef {import('../types.js').Improvement} Improvement
 */

/**
 * Draws `row`'s convergence in `container`; returns the chart's controller {svg(), redraw(),
 * destroy()}. The row must have a plan with a history.
 * @param {HTMLElement} container @param {PairResult} row
 */
export function drawConvergence(container, row) {
  let svg = null;
  const tip = tooltip();
  const render = (width) => {
    tip.hide();
    svg = renderConvergence(width, row, tip);
    container.replaceChildren(svg);
  };
  return mount(container, render, { svg: () => svg, onDestroy: () => tip.hide() });
}

function renderConvergence(width, row, tip) {
  const h = /** @type {Improvement[]} */ (row.plan?.history ?? []);
  const unit = row.plan_reports?.[0]?.work_unit ?? 'work';
  const name = `${row.placer} / ${row.scheduler}`;
  const svg = createSvgRoot(width, 260, 'convergence');
  const title = `Convergence of ${name}: best makespan and lower bound against work`;
  // No improvement after the warm start (the first point): said in the chart, not only drawn flat.
  const flat = h.every((p) => p.objective >= h[0].objective);
  const sub = flat ? `no improvement over the warm start (${formatSeconds(h[0].objective)})` : '';
  svg.setAttribute('aria-label', `${title} (${unit}), ${h.length} improvements${sub ? `; ${sub}` : ''}`);
  svg.setAttribute('role', 'group');
  // The title wraps onto as many lines as the width needs (never cut).
  let ty = 23;
  for (const line of wrapWords(title, width - 24, 14, 600)) {
    svgText(svg, 12, ty, line, { 'font-size': 14, 'font-weight': 600, class: 'pc-title' });
    ty += 18;
  }
  if (sub) {
    svgText(svg, 12, ty, ellipsize(sub, width - 24, 12), { 'font-size': 12, fill: INK.muted, class: 'pc-subtitle' });
    ty += 16;
  }
  const colors = { objective: seriesColor(0), bound: seriesColor(1) };
  const top = legend(svg, [
    { color: colors.objective, label: 'best makespan found' },
    { color: colors.bound, label: 'best lower bound (instance)' },
  ], ty - 7, width);
  const last = h[h.length - 1];
  // The lines run on to the work the seed did in all (no improvement after the last point).
  const wmax = Math.max(1, last.work, row.plan_reports?.[0]?.work ?? 0);
  const ymax = Math.max(...h.map((p) => p.objective).filter(Number.isFinite));
  const yt = niceTicks(0, ymax * 1.05, 4);
  const fmt = timeTickFormatter(yt.max, yt.step);
  const xt = niceTicks(0, wmax, 4);
  const left = 72;
  const right = 18;
  const plotTop = top + 8;
  const bottom = 44;
  const plotW = Math.max(60, width - left - right);
  const plotH = 150;
  const height = plotTop + plotH + bottom;
  svg.setAttribute('height', height);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.querySelector('.pc-background').setAttribute('height', height);
  const x = (w) => left + (w / xt.max) * plotW;
  const y = (v) => plotTop + plotH - ((v - yt.min) / (yt.max - yt.min)) * plotH;
  const axis = valueAxis(svg, yt, y, { left, plotW, plotTop, plotH }, fmt, 'makespan');
  for (const t of xt.ticks) {
    const xx = Math.round(x(t)) + 0.5;
    svgEl('line', { x1: xx, x2: xx, y1: plotTop, y2: plotTop + plotH, stroke: INK.grid }, axis);
    svgText(axis, xx, plotTop + plotH + 15, formatCount(t), { 'text-anchor': 'middle', 'font-size': 11, fill: INK.muted, class: 'pc-tick' });
  }
  svgText(axis, left + plotW / 2, plotTop + plotH + 34, `work done (${unit})`, {
    'text-anchor': 'middle', 'font-size': 11, fill: INK.muted, class: 'pc-axis-label',
  });
  // Step lines: each value holds from its improvement to the next one (and to the end).
  const step = (/** @type {(p: Improvement) => number} */ v) => h.map((p, i) => {
    const to = i + 1 < h.length ? h[i + 1].work : wmax;
    return `${i ? 'L' : 'M'}${x(p.work).toFixed(1)},${y(v(p)).toFixed(1)}H${x(to).toFixed(1)}`;
  }).join('');
  const lines = svgEl('g', { class: 'pc-lines' }, svg);
  svgEl('path', { d: step((p) => p.objective), fill: 'none', stroke: colors.objective, 'stroke-width': 2, class: 'pc-objective' }, lines);
  svgEl('path', { d: step((p) => p.bound), fill: 'none', stroke: colors.bound, 'stroke-width': 2, 'stroke-dasharray': '5 3', class: 'pc-bound' }, lines);
  const points = svgEl('g', { class: 'pc-points' }, svg);
  for (const p of h) {
    const said = `after ${formatCount(p.work)} ${unit}: best makespan ${formatSeconds(p.objective)}, lower bound ${formatSeconds(p.bound)}`;
    const c = svgEl('circle', {
      cx: x(p.work).toFixed(1), cy: y(p.objective).toFixed(1), r: 4, fill: colors.objective, class: 'pc-improvement',
      'data-work': String(p.work), 'data-objective': String(p.objective), 'data-bound': String(p.bound), role: 'img', 'aria-label': said,
    }, points);
    c.addEventListener('mousemove', (ev) => {
      tip.show(ev.clientX, ev.clientY, `${name} after ${formatCount(p.work)} ${unit}`, [
        ['best makespan', formatSeconds(p.objective)],
        ['lower bound', formatSeconds(p.bound)],
        ['gap', p.bound > 0 ? `${((p.objective / p.bound - 1) * 100).toFixed(1)}%` : '–'],
      ]);
    });
    c.addEventListener('mouseleave', () => tip.hide());
  }
  rovingFocus(svg, '.pc-improvement', null);
  svg.setAttribute('data-points', h.length);
  svg.setAttribute('data-pair', name);
  svg.setAttribute('font-family', FONT);
  return svg;
}
