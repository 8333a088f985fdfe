// The what-if sweep charts (Pesto21 Fig. 8): one metric of every pair against the sweep's
// factor (options.metric: `makespan`, the mean makespan, or `gap`, makespan / lower bound at
// that factor), one line per pair (placer / scheduler, and link order when several), from the
// engine's Sweep (src/sweep.rs). The factor axis is linear or logarithmic (options.log); the
// makespan axis carries time units (seconds, or "units" for abstract speeds). A pair with no
// numbers at a factor (its error) has a gap there. The chart is one tab stop: the arrow keys
// move between its lines, each of which says its makespan at every factor.
// Not here: computing any number (the engine's Sweep carries them all).

import {
  INK, FONT, svgEl, svgText, createSvgRoot, niceTicks, formatSeconds, formatSig, timeTickFormatter,
  ellipsize, tooltip, mount, showMessage, seriesColor, rovingFocus, wrapWords,
} from './svg.js';
import { legend } from './iterations.js';

/**
 * @typedef {import('../types.js').Sweep} Sweep
 * @typedef {import('../types.js').SweepPoint} SweepPoint
 * @typedef {{log?: boolean, metric?: 'makespan' | 'gap', height?: number, best?: number}} Options
 *   best: draw only the best this many pairs (by makespan at the factor nearest ×1); all when absent
 */

/**
 * The series of the `n` best pairs: by makespan at the factor nearest ×1 (the scenario
 * itself), then by their best makespan at any factor; a pair with no number sorts last.
 * @param {ReturnType<typeof sweepSeries>} ss @param {number} n
 */
export function bestSeries(ss, n) {
  if (!(n < ss.length)) return ss;
  const ok = (/** @type {SweepPoint} */ p) => !p.error && Number.isFinite(p.makespan);
  const score = (s) => {
    const near = [...s.points].sort((a, b) => Math.abs(Math.log(a.factor)) - Math.abs(Math.log(b.factor)))[0];
    const best = Math.min(...s.points.filter(ok).map((p) => p.makespan));
    return [near && ok(near) ? near.makespan : Infinity, best];
  };
  const scored = ss.map((s) => ({ s, k: score(s) }));
  scored.sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1]);
  const keep = new Set(scored.slice(0, n).map((x) => x.s));
  return ss.filter((s) => keep.has(s));
}

/**
 * Ticks of a logarithmic value axis from lo to hi (> 0): 1, 2 and 5 times the powers of
 * ten, thinned to about `count`.
 * @param {number} lo @param {number} hi @param {number} count
 */
export function logTicks(lo, hi, count = 6) {
  const a = Math.floor(Math.log10(lo));
  const b = Math.ceil(Math.log10(hi));
  let ticks = [];
  for (let e = a; e <= b; e++) for (const m of [1, 2, 5]) ticks.push(m * 10 ** e);
  ticks = ticks.filter((t) => t >= lo / 1.0001 && t <= hi * 1.0001);
  if (ticks.length > count) ticks = ticks.filter((t) => Math.abs(Math.log10(t) - Math.round(Math.log10(t))) < 1e-9);
  return ticks;
}

/** Each metric's value of a point (null: none), tick and value formats, title and axis label. */
const METRICS = {
  makespan: {
    value: (/** @type {SweepPoint} */ p) => p.makespan, format: (v) => formatSeconds(v),
    title: 'Makespan', label: 'makespan (mean over the seeds)',
  },
  gap: {
    value: (/** @type {SweepPoint} */ p) => (p.lower_bound > 0 ? p.makespan / p.lower_bound : null),
    format: (v) => `${formatSig(v, 3)}×`, title: 'Gap to the lower bound', label: 'makespan / lower bound',
  },
};

const AXIS_LABEL = {
  compute: 'compute factor (× every device speed)',
  bandwidth: 'bandwidth factor (× every link bandwidth)',
  latency: 'latency factor (× every link latency)',
};

/**
 * The value axis of a line chart (this one and the optimiser's convergence): a `pc-axis`
 * group with a grid line and label per tick and the axis label turned along it; returns the
 * group (the caller adds its factor or work ticks).
 * @param {SVGElement} svg @param {{ticks: number[]}} yt @param {(v: number) => number} y
 * @param {{left: number, plotW: number, plotTop: number, plotH: number}} box
 * @param {(v: number) => string} fmt @param {string} label
 */
export function valueAxis(svg, yt, y, box, fmt, label) {
  const { left, plotW, plotTop, plotH } = box;
  const axis = svgEl('g', { class: 'pc-axis' }, svg);
  for (const t of yt.ticks) {
    const yy = Math.round(y(t)) + 0.5;
    svgEl('line', { x1: left, x2: left + plotW, y1: yy, y2: yy, stroke: t === 0 ? INK.axis : INK.grid }, axis);
    svgText(axis, left - 6, yy + 4, fmt(t), { 'text-anchor': 'end', 'font-size': 11, fill: INK.muted, class: 'pc-tick' });
  }
  svgText(axis, 0, 0, label, {
    'text-anchor': 'middle', 'font-size': 11, fill: INK.muted, class: 'pc-axis-label',
    transform: `translate(12 ${plotTop + plotH / 2}) rotate(-90)`,
  });
  return axis;
}

/**
 * The sweep's points as one series per pair, in the pairs' row order; each series' points
 * in ascending factor order.
 * @param {Sweep} sweep
 */
export function sweepSeries(sweep) {
  const orders = new Set(sweep.points.map((p) => p.link_order)).size > 1;
  /** @type {Map<string, {name: string, points: SweepPoint[]}>} */
  const byPair = new Map();
  for (const p of sweep.points) {
    const name = `${p.placer} / ${p.scheduler}${orders ? ` / ${p.link_order}` : ''}`;
    if (!byPair.has(name)) byPair.set(name, { name, points: [] });
    byPair.get(name)?.points.push(p);
  }
  return [...byPair.values()].map((s, i) => ({
    ...s, color: seriesColor(i), points: [...s.points].sort((a, b) => a.factor - b.factor),
  }));
}

/**
 * Draws the sweep in `container`; returns the chart's controller {svg(), redraw(), destroy()}.
 * @param {HTMLElement} container @param {Sweep} sweep @param {Options} [options]
 */
export function drawSweep(container, sweep, options = {}) {
  let svg = null;
  const tip = tooltip();
  const render = (width) => {
    tip.hide();
    const ss = sweepSeries(sweep);
    const m = METRICS[options.metric ?? 'makespan'];
    if (!ss.some((s) => s.points.some((p) => !p.error && m.value(p) != null))) {
      svg = null;
      showMessage(container, 'No pair ran at any factor (see the errors in the CSV).');
      return;
    }
    // The colours follow the pair over every subset: given before choosing the best.
    const shown = options.best ? bestSeries(ss, options.best) : ss;
    svg = renderSweep(width, sweep, shown, { ...options, total: ss.length }, tip);
    svg.setAttribute('data-pairs', String(ss.length));
    container.replaceChildren(svg);
  };
  return mount(container, render, { svg: () => svg, onDestroy: () => tip.hide() });
}

function renderSweep(width, sweep, ss, options, tip) {
  const height = options.height || 340;
  const log = !!options.log;
  const metric = options.metric ?? 'makespan';
  const m = METRICS[metric];
  /** @param {SweepPoint} p */
  const has = (p) => !p.error && m.value(p) != null;
  const val = (p) => /** @type {number} */ (m.value(p));
  const svg = createSvgRoot(width, height, 'sweep');
  svg.setAttribute('data-metric', metric);
  const title = `${m.title} against the ${sweep.axis} factor`;
  const total = options.total ?? ss.length;
  const sub = ss.length < total ? `the best ${ss.length} of ${total} pairs (by makespan at ×1)` : `all ${total} pairs`;
  svg.setAttribute('aria-label', `${title}: ${sub}, one line per pair${log ? ', logarithmic factor axis' : ''}`);
  svg.setAttribute('role', 'group');
  // The title wraps (never cut on a phone), the subtitle and legend below it.
  let ty = 23;
  for (const line of wrapWords(title, width - 24, 14, 600)) {
    svgText(svg, 12, ty, line, { 'font-size': 14, 'font-weight': 600, class: 'pc-title' });
    ty += 18;
  }
  svgText(svg, 12, ty - 1, ellipsize(sub, width - 24, 12), { 'font-size': 12, fill: INK.muted, class: 'pc-subtitle' });
  const top = legend(svg, ss.map((s) => ({ color: s.color, label: s.name })), ty + 9, width);
  const vals = ss.flatMap((s) => s.points.filter(has).map(val));
  const ymax = Math.max(...vals);
  const ymin = Math.min(...vals);
  // Values over a decade apart or more: a logarithmic value axis (a linear one flattens the small ones).
  const ylog = ymin > 0 && ymax / ymin >= 10;
  const yt = ylog
    ? { ticks: logTicks(ymin / 1.1, ymax * 1.1), min: Math.log10(ymin / 1.1), max: Math.log10(ymax * 1.1), step: 1 }
    : metric === 'gap' ? niceTicks(Math.min(1, ...vals), ymax * 1.02, 5) : niceTicks(0, ymax * 1.05, 5);
  const fmt = metric === 'gap' ? (v) => `${formatSig(v, 3)}×` : ylog ? (v) => formatSeconds(v, 2) : timeTickFormatter(yt.max, yt.step);
  svg.setAttribute('data-value-scale', ylog ? 'log' : 'linear');
  const fx = (f) => (log ? Math.log10(f) : f);
  const factors = [...sweep.factors].sort((a, b) => a - b);
  let lo = fx(factors[0]);
  let hi = fx(factors[factors.length - 1]);
  if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }
  const pad = (hi - lo) * 0.04;
  const left = 72;
  const right = 18;
  const plotTop = top + 8;
  const bottom = 44;
  const plotW = Math.max(60, width - left - right);
  const plotH = Math.max(140, height - plotTop - bottom);
  const h = plotTop + plotH + bottom;
  svg.setAttribute('height', h);
  svg.setAttribute('viewBox', `0 0 ${width} ${h}`);
  svg.querySelector('.pc-background').setAttribute('height', h);
  const x = (f) => left + ((fx(f) - lo + pad) / (hi - lo + 2 * pad)) * plotW;
  const yv = (v) => (ylog ? Math.log10(v) : v);
  const y = (v) => plotTop + plotH - ((yv(v) - yt.min) / (yt.max - yt.min)) * plotH;
  const axis = valueAxis(svg, yt, y, { left, plotW, plotTop, plotH }, fmt, `${m.label}${ylog ? ', log scale' : ''}`);
  // One tick per factor (the values swept), labelled as given: ×0.1, ×1, ...
  let lastLabel = -Infinity;
  for (const f of factors) {
    const xx = Math.round(x(f)) + 0.5;
    svgEl('line', { x1: xx, x2: xx, y1: plotTop, y2: plotTop + plotH, stroke: INK.grid }, axis);
    if (xx - lastLabel < 34) continue;
    lastLabel = xx;
    svgText(axis, xx, plotTop + plotH + 15, `×${formatSig(f, 4)}`, {
      'text-anchor': 'middle', 'font-size': 11, fill: INK.muted, class: 'pc-tick pc-factor', 'data-factor': f,
    });
  }
  svgText(axis, left + plotW / 2, plotTop + plotH + 34, `${AXIS_LABEL[sweep.axis]}${log ? ', log scale' : ''}`, {
    'text-anchor': 'middle', 'font-size': 11, fill: INK.muted, class: 'pc-axis-label',
  });
  const lines = svgEl('g', { class: 'pc-lines' }, svg);
  for (const s of ss) {
    const said = s.points.map((p) => `×${formatSig(p.factor, 4)} ${has(p) ? m.format(val(p)) : 'none'}`);
    const g = svgEl('g', {
      class: 'pc-line', 'data-pair': s.name, 'data-points': s.points.filter(has).length,
      role: 'img', 'aria-label': `${s.name}: ${said.join(', ')}`,
    }, lines);
    // A line through consecutive points that ran; an error breaks it.
    let d = '';
    let open = false;
    for (const p of s.points) {
      if (!has(p)) { open = false; continue; }
      d += `${open ? 'L' : 'M'}${x(p.factor).toFixed(1)},${y(val(p)).toFixed(1)}`;
      open = true;
    }
    svgEl('path', { d, fill: 'none', stroke: s.color, 'stroke-width': 2, class: 'pc-line-path', 'stroke-linejoin': 'round' }, g);
    for (const p of s.points) {
      if (!has(p)) continue;
      const c = svgEl('circle', {
        cx: x(p.factor).toFixed(1), cy: y(val(p)).toFixed(1), r: 4, fill: s.color, class: 'pc-point',
        'data-factor': p.factor, 'data-value': String(val(p)),
      }, g);
      c.addEventListener('mousemove', (ev) => {
        tip.show(ev.clientX, ev.clientY, `${s.name} at ×${formatSig(p.factor, 4)}`, [
          ['makespan', formatSeconds(p.makespan)],
          ['std, min, max', `${formatSeconds(p.makespan_std)}, ${formatSeconds(p.makespan_min)}, ${formatSeconds(p.makespan_max)}`],
          ['lower bound', formatSeconds(p.lower_bound)],
          ['makespan / lower bound', p.lower_bound > 0 ? `${formatSig(p.makespan / p.lower_bound, 3)}×` : '–'],
          ...(p.plan ? [['plan', p.plan.status]] : []),
        ]);
      });
      c.addEventListener('mouseleave', () => tip.hide());
    }
  }
  rovingFocus(svg, '.pc-line', null);
  svg.setAttribute('data-lines', ss.length);
  svg.setAttribute('font-family', FONT);
  return svg;
}
