// Charts of the iterations of a comparison's rows (TicTac19's figures):
//   drawCdf(container, comparison, options)       the CDF of the iteration time, one line per
//                                                 row (Fig. 8), from `iteration_time.sorted`
//   drawOrdering(container, comparison, options)  bars per row of throughput (against each
//                                                 row's theoretical best and worst, Fig. 9),
//                                                 ordering efficiency E and straggler
// Both are SVG, redraw when the container's width changes and return a controller
// { svg(), redraw(), destroy() }. A chart is one tab stop: the arrow keys move between its
// lines or bars, Enter or Space chooses that row (options.onSelect(placer, scheduler, order)).
// options.highlight: {placer, scheduler, link_order} | null, the chosen row (drawn bold).
// Not here: computing any number (the engine's PairResult carries them all).

import {
  INK, FONT, svgEl, svgText, createSvgRoot, niceTicks, formatSeconds, formatSig, timeTickFormatter,
  textWidth, ellipsize, tooltip, mount, showMessage, distinct, isInfeasible, seriesColor, rovingFocus,
} from './svg.js';
import { formatRate, formatShare, abstractUnits } from '../units.js';

/**
 * @typedef {import('../types.js').Comparison} Comparison
 * @typedef {import('../types.js').PairResult} PairResult
 * @typedef {{highlight?: {placer: string, scheduler: string, link_order: string} | null,
 *   onSelect?: (placer: string, scheduler: string, order: string) => void, height?: number}} Options
 */

/** Rows that ran, with a colour and a short name each (the order, and the pair when several). */
function series(/** @type {PairResult[]} */ rows) {
  const pairs = distinct(rows.map((r) => ({ k: `${r.placer} / ${r.scheduler}` })), 'k').length;
  const orders = distinct(rows, 'link_order').length;
  return rows.map((r, i) => ({
    r,
    it: /** @type {import('../types.js').Distribution} */ (r.iteration_time),
    o: /** @type {import('../types.js').OrderingResult} */ (r.ordering),
    color: seriesColor(i),
    name: pairs > 1 && orders > 1 ? `${r.placer} / ${r.scheduler} / ${r.link_order}`
      : pairs > 1 ? `${r.placer} / ${r.scheduler}` : r.link_order,
  }));
}

/** @param {PairResult} r @param {Options['highlight']} h */
const isChosen = (r, h) => !!h && h.placer === r.placer && h.scheduler === r.scheduler && h.link_order === r.link_order;

/** Makes an element a button that chooses its row (click, Enter, Space). */
function selectable(/** @type {Element} */ g, /** @type {PairResult} */ r, /** @type {Options} */ options) {
  g.setAttribute('data-clickable', '');
  g.setAttribute('role', 'button');
  g.setAttribute('tabindex', '-1');
  const select = () => options.onSelect?.(r.placer, r.scheduler, r.link_order);
  g.addEventListener('click', select);
  g.addEventListener('keydown', (/** @type {any} */ ev) => {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      select();
    }
  });
}

/** A legend of coloured items, wrapping; returns the y below it (the sweep chart uses it too). */
export function legend(svg, items, top, width) {
  const g = svgEl('g', { class: 'pc-legend' }, svg);
  let lx = 12;
  let ly = top + 8;
  for (const it of items) {
    const label = ellipsize(it.label, 260);
    const w = 18 + textWidth(label) + 16;
    if (lx + w > width - 12 && lx > 12) { lx = 12; ly += 18; }
    const item = svgEl('g', { class: 'pc-legend-item', 'data-label': it.label }, g);
    if (it.kind === 'dash') {
      svgEl('line', { x1: lx, y1: ly, x2: lx + 14, y2: ly, stroke: it.color, 'stroke-width': 2, 'stroke-dasharray': it.dash }, item);
    } else {
      svgEl('rect', { x: lx, y: ly - 5, width: 14, height: 10, rx: 2, fill: it.color }, item);
    }
    svgText(item, lx + 18, ly + 4, label, { fill: INK.muted });
    lx += w;
  }
  return ly + 14;
}

/**
 * The CDF of the iteration time per row (TicTac19 Fig. 8).
 * @param {HTMLElement} container @param {Comparison} comparison @param {Options} [options]
 */
export function drawCdf(container, comparison, options = {}) {
  const rows = (comparison?.results ?? []).filter((r) => !isInfeasible(r) && r.iteration_time?.sorted?.length);
  let svg = null;
  const tip = tooltip();
  const render = (width) => {
    tip.hide();
    if (!rows.length) {
      svg = null;
      showMessage(container, 'No iteration times to chart (run several iterations or a replica).');
      return;
    }
    svg = renderCdf(width, rows, options, tip);
    container.replaceChildren(svg);
  };
  return mount(container, render, { svg: () => svg, onDestroy: () => tip.hide() });
}

function renderCdf(width, rows, options, tip) {
  const height = options.height || 320;
  const svg = createSvgRoot(width, height, 'cdf');
  const title = 'Iteration time, cumulative distribution';
  svg.setAttribute('aria-label', `${title}: one line per row`);
  svg.setAttribute('role', 'group');
  svgText(svg, 12, 23, ellipsize(title, width - 24, 14, 600), { 'font-size': 14, 'font-weight': 600, class: 'pc-title' });
  const ss = series(rows);
  const top = legend(svg, ss.map((s) => ({
    color: s.color, label: `${s.name}: p50 ${formatSeconds(s.it.p50)}, p95 ${formatSeconds(s.it.p95)}`,
  })), 34, width);
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of rows) {
    const v = r.iteration_time.sorted;
    lo = Math.min(lo, v[0]);
    hi = Math.max(hi, v[v.length - 1]);
  }
  if (!(hi > lo)) { lo = lo * 0.9; hi = hi * 1.1 || 1; }
  const xt = niceTicks(lo, hi, Math.max(2, Math.round(width / 110)));
  const fmt = timeTickFormatter(xt.max, xt.step);
  const left = 52;
  const right = 16;
  const plotTop = top + 6;
  const bottom = 40;
  const plotW = Math.max(60, width - left - right);
  const plotH = Math.max(120, height - plotTop - bottom);
  if (plotTop + plotH + bottom > height) {
    const h = plotTop + plotH + bottom;
    svg.setAttribute('height', h);
    svg.setAttribute('viewBox', `0 0 ${width} ${h}`);
    svg.querySelector('.pc-background').setAttribute('height', h);
  }
  const x = (v) => left + ((v - xt.min) / (xt.max - xt.min)) * plotW;
  const y = (f) => plotTop + plotH - f * plotH;
  const axis = svgEl('g', { class: 'pc-axis' }, svg);
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    const yy = Math.round(y(f)) + 0.5;
    svgEl('line', { x1: left, x2: left + plotW, y1: yy, y2: yy, stroke: f === 0 ? INK.axis : INK.grid }, axis);
    svgText(axis, left - 6, yy + 4, `${f * 100}%`, { 'text-anchor': 'end', 'font-size': 11, fill: INK.muted, class: 'pc-tick' });
  }
  for (const t of xt.ticks) {
    const xx = Math.round(x(t)) + 0.5;
    svgEl('line', { x1: xx, x2: xx, y1: plotTop, y2: plotTop + plotH, stroke: INK.grid }, axis);
    svgText(axis, xx, plotTop + plotH + 15, fmt(t), { 'text-anchor': 'middle', 'font-size': 11, fill: INK.muted, class: 'pc-tick' });
  }
  svgText(axis, left + plotW / 2, plotTop + plotH + 32, 'iteration time (every iteration of every seed)', {
    'text-anchor': 'middle', 'font-size': 11, fill: INK.muted, class: 'pc-axis-label',
  });
  svgText(axis, 0, 0, 'fraction of iterations ≤ x', {
    'text-anchor': 'middle', 'font-size': 11, fill: INK.muted, class: 'pc-axis-label',
    transform: `translate(12 ${plotTop + plotH / 2}) rotate(-90)`,
  });
  const lines = svgEl('g', { class: 'pc-lines' }, svg);
  const chosenAny = ss.some((s) => isChosen(s.r, options.highlight));
  for (const s of ss) {
    const v = s.it.sorted ?? [];
    const n = v.length;
    let d = `M${x(v[0]).toFixed(1)},${y(0).toFixed(1)}`;
    for (let i = 0; i < n; i++) {
      d += `H${x(v[i]).toFixed(1)}V${y((i + 1) / n).toFixed(1)}`;
    }
    d += `H${(left + plotW).toFixed(1)}`;
    const chosen = isChosen(s.r, options.highlight);
    const g = svgEl('g', {
      class: 'pc-line', 'data-placer': s.r.placer, 'data-scheduler': s.r.scheduler, 'data-order': s.r.link_order,
      'data-count': n,
      'aria-label': `${s.name}: ${n} iterations, p50 ${formatSeconds(s.it.p50)}, p95 ${formatSeconds(s.it.p95)}`,
    }, lines);
    if (chosen) g.setAttribute('data-selected', '');
    svgEl('path', { d, fill: 'none', stroke: 'transparent', 'stroke-width': 10, class: 'pc-hit' }, g);
    svgEl('path', {
      d, fill: 'none', stroke: s.color, 'stroke-width': chosen ? 3 : 2, opacity: chosenAny && !chosen ? 0.6 : 1,
      class: 'pc-line-path', 'stroke-linejoin': 'round',
    }, g);
    selectable(g, s.r, options);
    g.addEventListener('mousemove', (ev) => {
      const it = s.it;
      tip.show(ev.clientX, ev.clientY, s.name, [
        ['iterations', String(n)], ['p5', formatSeconds(it.p5)], ['p50', formatSeconds(it.p50)], ['p95', formatSeconds(it.p95)],
        ['mean ± std', `${formatSeconds(it.mean)} ± ${formatSeconds(it.std)}`],
      ]);
    });
    g.addEventListener('mouseleave', () => tip.hide());
  }
  rovingFocus(svg, '.pc-line', '.pc-line[data-selected]');
  svg.setAttribute('data-lines', ss.length);
  svg.setAttribute('font-family', FONT);
  return svg;
}

/**
 * Bars per row: throughput with each row's theoretical best and worst (TicTac19 Fig. 9),
 * ordering efficiency E, and straggler.
 * @param {HTMLElement} container @param {Comparison} comparison @param {Options} [options]
 */
export function drawOrdering(container, comparison, options = {}) {
  const rows = (comparison?.results ?? []).filter((r) => !isInfeasible(r) && r.ordering && r.throughput != null);
  let svg = null;
  const tip = tooltip();
  const render = (width) => {
    tip.hide();
    if (!rows.length) {
      svg = null;
      showMessage(container, 'No ordering metrics to chart (they come with a replica).');
      return;
    }
    svg = renderOrdering(width, rows, options, tip);
    container.replaceChildren(svg);
  };
  return mount(container, render, { svg: () => svg, onDestroy: () => tip.hide() });
}


function renderOrdering(width, rows, options, tip) {
  const ss = series(rows);
  const perRow = abstractUnits() ? 'per time unit' : 'per second';
  /** @type {{key: string, title: string, value: (r: PairResult) => number | null, fmt: (v: number) => string,
   *   domain: [number, number], refs?: boolean}[]} */
  const panels = [
    {
      key: 'throughput', title: `Throughput (iterations ${perRow})`, value: (r) => r.throughput ?? null, fmt: (v) => formatRate(v),
      domain: [0, Math.max(...rows.map((r) => Math.max(r.throughput ?? 0, 1 / r.ordering.theoretical_best)))], refs: true,
    },
    {
      key: 'efficiency', title: 'Ordering efficiency E (1 best, 0 worst)', value: (r) => r.ordering?.efficiency ?? null,
      fmt: (v) => formatSig(v, 3),
      domain: [Math.min(0, ...rows.map((r) => r.ordering.efficiency ?? 0)), Math.max(1, ...rows.map((r) => r.ordering.efficiency ?? 0))],
    },
    {
      key: 'straggler', title: 'Straggler (% of the iteration)', value: (r) => r.ordering?.straggler.mean ?? null,
      fmt: (v) => formatShare(v), domain: [0, Math.max(0.01, ...rows.map((r) => r.ordering.straggler.mean))],
    },
  ];
  const side = width >= 3 * 220;
  const panelW = side ? Math.floor((width - 8) / 3) : width;
  const panelH = 230;
  const svgTop = 34;
  const svg = createSvgRoot(width, 10, 'ordering');
  const title = 'Throughput, ordering efficiency and straggler per row';
  svg.setAttribute('aria-label', title);
  svg.setAttribute('role', 'group');
  svgText(svg, 12, 23, ellipsize(title, width - 24, 14, 600), { 'font-size': 14, 'font-weight': 600, class: 'pc-title' });
  const legendBottom = legend(svg, [
    ...ss.map((s) => ({ color: s.color, label: s.name })),
    { kind: 'dash', color: INK.best, dash: null, label: 'theoretical best (Eq. 2 bounds)' },
    { kind: 'dash', color: INK.worst, dash: '4 3', label: 'theoretical worst (Eq. 1 bounds)' },
  ], svgTop, width);
  const chosenAny = ss.some((s) => isChosen(s.r, options.highlight));
  const labels = ss.map((s) => s.name);
  panels.forEach((p, pi) => {
    const ox = side ? pi * (panelW + 4) : 0;
    const oy = legendBottom + (side ? 0 : pi * panelH);
    const g = svgEl('g', { class: 'pc-panel', 'data-panel': p.key }, svg);
    svgText(g, ox + 12, oy + 16, ellipsize(p.title, panelW - 16, 12, 600), { 'font-size': 12, 'font-weight': 600 });
    const t = niceTicks(p.domain[0], p.domain[1] * 1.05, 4);
    const tickW = Math.max(...t.ticks.map((v) => textWidth(p.fmt(v), 11)));
    const left = ox + Math.ceil(tickW + 12);
    const plotW = Math.max(40, ox + panelW - 10 - left);
    const band = plotW / ss.length;
    const labelW = Math.max(...labels.map((l) => textWidth(l, 11)));
    const rotate = labelW > band - 4;
    const bottom = rotate ? Math.min(70, Math.ceil(labelW * 0.6 + 16)) : 22;
    const plotTop = oy + 26;
    const plotH = panelH - 26 - bottom - 8;
    const y = (v) => plotTop + plotH - ((v - t.min) / (t.max - t.min)) * plotH;
    for (const v of t.ticks) {
      const yy = Math.round(y(v)) + 0.5;
      svgEl('line', { x1: left, x2: left + plotW, y1: yy, y2: yy, stroke: v === 0 ? INK.axis : INK.grid }, g);
      svgText(g, left - 5, yy + 4, p.fmt(v), { 'text-anchor': 'end', 'font-size': 11, fill: INK.muted, class: 'pc-tick' });
    }
    const barW = Math.max(4, Math.min(48, band * 0.6));
    ss.forEach((s, i) => {
      const cx = left + band * i + band / 2;
      const v = p.value(s.r);
      const chosen = isChosen(s.r, options.highlight);
      const bar = svgEl('g', {
        class: 'pc-bar', 'data-panel': p.key, 'data-placer': s.r.placer, 'data-scheduler': s.r.scheduler,
        'data-order': s.r.link_order, 'data-value': v ?? '',
        'aria-label': `${s.name}: ${p.title.split(' (')[0].toLowerCase()} ${v == null ? 'none' : p.fmt(v)}`,
      }, g);
      if (chosen) bar.setAttribute('data-selected', '');
      if (v != null) {
        const y0 = y(Math.max(0, t.min));
        const y1 = y(v);
        svgEl('rect', {
          class: 'pc-bar-rect', x: cx - barW / 2, y: Math.min(y0, y1), width: barW, height: Math.max(1, Math.abs(y0 - y1)),
          fill: s.color, opacity: chosenAny && !chosen ? 0.55 : 1, stroke: chosen ? INK.highlight : null, 'stroke-width': chosen ? 2 : null,
        }, bar);
      } else {
        svgText(bar, cx, plotTop + plotH - 6, 'n/a', { 'text-anchor': 'middle', 'font-size': 11, fill: INK.muted });
      }
      svgEl('rect', { x: left + band * i, y: plotTop, width: band, height: plotH, fill: 'transparent', class: 'pc-hit' }, bar);
      const o = s.o;
      if (p.refs) {
        // The row's own references: its workers at their Eq. 2 (best) and Eq. 1 (worst) bounds.
        const w = Math.min(band - 2, barW + 14);
        for (const [val, color, dash, cls] of [[1 / o.theoretical_best, INK.best, null, 'pc-ref-best'], [1 / o.theoretical_worst, INK.worst, '4 3', 'pc-ref-worst']]) {
          const yy = y(/** @type {number} */ (val));
          svgEl('line', {
            x1: cx - w / 2, x2: cx + w / 2, y1: yy, y2: yy, stroke: color, 'stroke-width': 2, 'stroke-dasharray': dash,
            class: cls, 'data-value': val, 'pointer-events': 'none',
          }, bar);
        }
      }
      const ly = plotTop + plotH + 14;
      const label = svgText(g, 0, 0, ellipsize(s.name, rotate ? 90 : band - 2, 11), {
        'font-size': 11, fill: INK.text, 'text-anchor': rotate ? 'end' : 'middle', class: 'pc-tick',
        transform: rotate ? `translate(${cx + 3} ${ly - 4}) rotate(-30)` : `translate(${cx} ${ly})`,
      });
      if (label.textContent !== s.name) svgEl('title', null, label).textContent = s.name;
      selectable(bar, s.r, options);
      bar.addEventListener('mousemove', (ev) => {
        tip.show(ev.clientX, ev.clientY, s.name, [
          ['throughput', formatRate(s.r.throughput)],
          ['theoretical best', `${formatRate(1 / o.theoretical_best)} (${formatSeconds(o.theoretical_best)})`],
          ['theoretical worst', `${formatRate(1 / o.theoretical_worst)} (${formatSeconds(o.theoretical_worst)})`],
          ['E', o.efficiency == null ? 'n/a' : formatSig(o.efficiency, 3)],
          ['speedup S', o.speedup == null ? 'n/a' : formatSig(o.speedup, 3)],
          ['straggler mean, p95', `${formatShare(o.straggler.mean)}, ${formatShare(o.straggler.p95)}`],
        ]);
      });
      bar.addEventListener('mouseleave', () => tip.hide());
    });
  });
  const h = legendBottom + (side ? panelH : 3 * panelH) + 4;
  svg.setAttribute('height', h);
  svg.setAttribute('viewBox', `0 0 ${width} ${h}`);
  svg.querySelector('.pc-background').setAttribute('height', h);
  rovingFocus(svg, '.pc-bar', '.pc-bar[data-selected]');
  svg.setAttribute('data-rows', ss.length);
  svg.setAttribute('font-family', FONT);
  return svg;
}
