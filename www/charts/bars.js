// Grouped bar charts of a comparison: one group per placer, one bar per scheduler (per
// scheduler and link order when the rows have several orders).
//   drawMakespan(container, comparison, options)  mean makespan (+-std error bars with several
//                                                 seeds), lower bound, best pairs starred,
//                                                 linear or logarithmic axis
//   drawTraffic(container, comparison, options)   mean bytes moved between devices
//   primeWidths(containers, keep?)                (svg.js's) widths read ahead of drawing
// Both draw SVG with DOM calls, redraw when the container's width changes and return a
// controller { svg(), redraw(), destroy() }. A chart is one tab stop: the arrow keys move
// between its bars, Enter or Space chooses one. Not here: fetching or computing any numbers.

import {
  INK, FONT, svgEl, svgText, createSvgRoot, niceTicks, formatSeconds, formatWallSeconds, formatBytes, formatSig,
  formatCount, timeTickFormatter, byteTickFormatter, textWidth, ellipsize, tooltip, mount,
  showMessage, distinct, isInfeasible, num, seriesColor, uid, rovingFocus, changeText, ghostRect,
} from './svg.js';

// The page reads its charts' widths at once before drawing them (svg.js primeWidths).
export { primeWidths } from './svg.js';

/** Scheduler name -> colour, in order of first appearance in comparison.results. */
export function schedulerColors(comparison) {
  const map = new Map();
  distinct(comparison?.results || [], 'scheduler').forEach((s, i) => map.set(s, seriesColor(i)));
  return map;
}

/**
 * Makespan per pair. options:
 *   highlight: {placer, scheduler, link_order} | null   the selected row (outlined, others dimmed)
 *   onSelect(placer, scheduler, order)       called when a bar is clicked (or Enter/Space);
 *                                            also for infeasible bars (show their error)
 *   height: number (default 340)            title: string (default set; '' for none)
 *   log: boolean                             logarithmic value axis (short bars stay visible)
 *   isBest(row): boolean                     the best pairs (starred; the page's tolerance)
 */
export function drawMakespan(container, comparison, options = {}) {
  const seeds = num(comparison?.scenario?.seeds) || 1;
  return drawGrouped(container, comparison, {
    chart: 'makespan',
    title: 'Makespan by placer and scheduler',
    yLabel: seeds > 1 ? `makespan, mean ± std over ${seeds} seeds${options.log ? ' (log scale)' : ''}`
      : `makespan, 1 seed${options.log ? ' (log scale)' : ''}`,
    value: (r) => num(r.makespan),
    // Error bars only when there are several seeds to spread over.
    err: (r) => (seeds > 1 ? num(r.makespan_std) : 0),
    tickFormatter: timeTickFormatter,
    bound: boundOf(comparison),
    rows: (r, seeds) => {
      const out = [
        ['makespan', formatSeconds(r.makespan)],
        ['std', formatSeconds(r.makespan_std)],
        ['min – max', `${formatSeconds(r.makespan_min)} – ${formatSeconds(r.makespan_max)}`],
        ['gap to lower bound', `${formatSig(num(r.gap), 3)}×`],
        ['seeds', seedsText(r, seeds)],
        ['traffic', formatBytes(r.traffic_bytes)],
        ['placement time (wall clock here)', formatWallSeconds(r.placement_seconds)],
      ];
      return out;
    },
  }, options);
}

/** Bytes that crossed devices per pair (mean over seeds). Same options as drawMakespan. */
export function drawTraffic(container, comparison, options = {}) {
  return drawGrouped(container, comparison, {
    chart: 'traffic',
    title: 'Traffic between devices',
    yLabel: 'bytes transferred (mean over seeds)',
    value: (r) => num(r.traffic_bytes),
    err: () => 0,
    tickFormatter: byteTickFormatter,
    bound: null,
    empty: 'no bytes crossed devices in any pair',
    rows: (r, seeds) => [
      ['traffic', formatBytes(r.traffic_bytes)],
      ['transfers', formatCount(num(r.transfers))],
      ['makespan', formatSeconds(r.makespan)],
      ['seeds', seedsText(r, seeds)],
    ],
  }, options);
}

function seedsText(r, seeds) {
  const n = Array.isArray(r.makespans) ? r.makespans.length : 0;
  return seeds ? `${n} of ${seeds}` : String(n);
}

function fmtValue(v, chart) {
  return chart === 'traffic' ? formatBytes(v) : formatSeconds(v);
}


function boundOf(comparison) {
  const cp = num(comparison?.critical_path_bound);
  const wb = num(comparison?.work_bound);
  const value = Math.max(cp, wb);
  if (!(value > 0)) return null;
  return { value, label: `lower bound ${formatSeconds(value)} (${cp >= wb ? 'critical path' : 'work / devices'})` };
}

/**
 * A value axis: linear from 0, or logarithmic over whole decades (the smallest positive
 * value to the largest). Returns {ticks, y(v) in [0, 1] from the bottom, fmtTick, log}.
 */
function valueAxis(minPos, maxV, count, log, tickFormatter) {
  if (log && minPos > 0 && maxV > minPos) {
    const lo = Math.floor(Math.log10(minPos));
    const hi = Math.max(lo + 1, Math.ceil(Math.log10(maxV)));
    const ticks = [];
    for (let e = lo; e <= hi; e++) ticks.push(10 ** e);
    const fmt = tickFormatter(10 ** hi, 10 ** lo);
    const frac = (v) => (v <= 0 ? 0 : Math.max(0, (Math.log10(v) - lo) / (hi - lo)));
    return { ticks, frac, fmt, base: 10 ** lo, log: true };
  }
  const t = niceTicks(0, maxV, count);
  return { ticks: t.ticks, frac: (v) => v / t.max, fmt: tickFormatter(t.max, t.step), base: 0, log: false };
}

function drawGrouped(container, comparison, spec, options) {
  const results = Array.isArray(comparison?.results) ? comparison.results : [];
  let svg = null;
  const tip = tooltip();
  const render = (width) => {
    tip.hide();
    if (results.length === 0) {
      svg = null;
      showMessage(container, 'No results to chart.');
      return;
    }
    svg = renderGrouped(width, comparison, results, spec, options, tip);
    container.replaceChildren(svg);
  };
  return mount(container, render, { svg: () => svg, onDestroy: () => tip.hide() });
}

function renderGrouped(width, comparison, results, spec, options, tip) {
  const height = options.height || 340;
  const title = options.title ?? spec.title;
  const placers = distinct(results, 'placer');
  // A bar per scheduler, or per scheduler and link order when the rows have several orders.
  const multi = distinct(results, 'link_order').length > 1;
  /** @param {{scheduler: string, link_order?: string}} r */
  const ser = (r) => (multi ? `${r.scheduler} · ${r.link_order}` : r.scheduler);
  const schedulers = distinct(results.map((r) => ({ s: ser(r) })), 's');
  const colors = multi ? new Map(schedulers.map((s, i) => [s, seriesColor(i)])) : schedulerColors(comparison);
  const seeds = comparison?.scenario?.seeds;
  const byPair = new Map(results.map((r) => [`${r.placer}\u0000${ser(r)}`, r]));
  const hl = options.highlight && byPair.get(`${options.highlight.placer}\u0000${ser(options.highlight)}`);
  // While a what-if is active: each row's value before it (a dashed ghost bar and the change).
  /** @type {(r: any) => number | null} */
  const before = (r) => {
    const b = typeof options.baseline === 'function' ? options.baseline(r) : null;
    return b && !isInfeasible(b) && !isInfeasible(r) ? spec.value(b) : null;
  };
  const anyBefore = results.some((r) => before(r) !== null);

  // Vertical domain.
  let maxV = 0;
  let minPos = Infinity;
  for (const r of results) {
    if (isInfeasible(r)) continue;
    maxV = Math.max(maxV, spec.value(r) + spec.err(r), before(r) ?? 0);
    if (spec.value(r) > 0) minPos = Math.min(minPos, spec.value(r) - spec.err(r) > 0 ? spec.value(r) - spec.err(r) : spec.value(r));
  }
  if (spec.bound && spec.bound.value > 0) minPos = Math.min(minPos, spec.bound.value);
  const log = !!options.log && spec.chart === 'makespan';
  if (spec.bound) maxV = Math.max(maxV, spec.bound.value);
  const allZero = maxV === 0;
  maxV *= 1.04; // room for the out-of-memory dots above the error bars
  const anyInfeasible = results.some((r) => r.error);
  const anyOom = results.some((r) => r.oom && !isInfeasible(r));

  const svg = createSvgRoot(width, height, spec.chart);
  svg.setAttribute('data-placers', placers.length);
  svg.setAttribute('data-schedulers', schedulers.length);
  svg.setAttribute('aria-label', title || spec.chart);
  svg.setAttribute('role', 'group'); // its bars are buttons (an img has no interactive parts)
  const defs = svgEl('defs', null, svg);
  const hatchId = uid('pc-hatch');
  const hatch = svgEl('pattern', {
    id: hatchId, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)',
  }, defs);
  svgEl('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: INK.faint, 'stroke-width': 1.5 }, hatch);

  // Title and legend (wrapping rows), top-left aligned with the plot.
  const right = 16;
  let top = 10;
  if (title) {
    svgText(svg, 12, top + 13, title, { 'font-size': 14, 'font-weight': 600, class: 'pc-title' });
    top += 24;
  }
  /** @type {{kind: string, color?: string, label: string, scheduler?: string}[]} */
  const legendItems = schedulers.map((s) => ({ kind: 'swatch', color: colors.get(s), label: s, scheduler: s }));
  // The bound's value is in the legend, never written over the bars.
  if (spec.bound) legendItems.push({ kind: 'dash', label: spec.bound.label });
  const anyBest = typeof options.isBest === 'function' && results.some((r) => !isInfeasible(r) && options.isBest(r));
  if (anyBest) legendItems.push({ kind: 'star', label: 'fastest' });
  if (anyBefore) legendItems.push({ kind: 'ghost', label: 'before the what-if' });
  if (anyInfeasible) legendItems.push({ kind: 'hatch', label: 'infeasible' });
  if (anyOom) legendItems.push({ kind: 'dot', label: 'out of memory' });
  const legend = svgEl('g', { class: 'pc-legend' }, svg);
  let lx = 12;
  let ly = top + 8;
  for (const item of legendItems) {
    const label = ellipsize(item.label, item.kind === 'dash' ? 320 : 160);
    const w = 14 + 4 + textWidth(label) + 16;
    if (lx + w > width - right && lx > 12) {
      lx = 12;
      ly += 18;
    }
    const g = svgEl('g', { class: 'pc-legend-item', 'data-label': item.label }, legend);
    if (item.kind === 'swatch') {
      g.setAttribute('data-scheduler', item.scheduler);
      svgEl('rect', { x: lx, y: ly - 5, width: 14, height: 10, rx: 2, fill: item.color }, g);
    } else if (item.kind === 'dash') {
      svgEl('line', { x1: lx, y1: ly, x2: lx + 14, y2: ly, stroke: INK.bound, 'stroke-width': 1.5, 'stroke-dasharray': '4 3' }, g);
    } else if (item.kind === 'star') {
      svgText(g, lx + 7, ly + 4, '★', { 'text-anchor': 'middle', 'font-size': 12, fill: INK.text });
    } else if (item.kind === 'ghost') {
      ghostRect(g, lx, ly - 5, 14, 10, null);
    } else if (item.kind === 'hatch') {
      svgEl('rect', { x: lx, y: ly - 5, width: 14, height: 10, fill: `url(#${hatchId})`, stroke: INK.faint, 'stroke-dasharray': '2 2' }, g);
    } else {
      svgEl('circle', { cx: lx + 7, cy: ly, r: 3.5, fill: INK.oom }, g);
    }
    svgText(g, lx + 18, ly + 4, label, { fill: INK.muted });
    lx += w;
  }
  top = ly + 18;

  // Vertical scale (the tick count depends on the plot height, which depends on the
  // bottom margin, which depends on the x labels: compute those first).
  const groupLabels = placers.map((p) => ellipsize(p, 150));
  const labelW = Math.max(...groupLabels.map((l) => textWidth(l)));
  // Left margin from a provisional tick set (labels of the final set have the same magnitude).
  if (allZero) maxV = spec.chart === 'traffic' ? 1000 : 1;
  const provisional = valueAxis(minPos, maxV, 5, log, spec.tickFormatter);
  const tickLabelW = Math.max(...provisional.ticks.map((t) => textWidth(provisional.fmt(t), 11)));
  const left = Math.ceil(tickLabelW + 30);
  const plotW = Math.max(40, width - left - right);
  const band = plotW / placers.length;
  const rotate = labelW > band - 8;
  const bottom = rotate ? Math.ceil(labelW * 0.5 + 24) : 30;
  const plotTop = top + 6;
  const plotH = Math.max(120, height - plotTop - bottom);
  const yt = valueAxis(minPos, maxV, Math.max(2, Math.round(plotH / 50)), log, spec.tickFormatter);
  const fmt = yt.fmt;
  const y = (v) => plotTop + plotH - yt.frac(v) * plotH;
  svg.setAttribute('data-scale', yt.log ? 'log' : 'linear');
  if (plotTop + plotH + bottom > height) {
    // Too short for the content: grow the SVG rather than overlap.
    const h = plotTop + plotH + bottom;
    svg.setAttribute('height', h);
    svg.setAttribute('viewBox', `0 0 ${width} ${h}`);
    svg.querySelector('.pc-background').setAttribute('height', h);
  }

  // Grid and y axis.
  const axis = svgEl('g', { class: 'pc-axis pc-axis-y' }, svg);
  for (const t of yt.ticks) {
    const yy = Math.round(y(t)) + 0.5;
    svgEl('line', { x1: left, x2: left + plotW, y1: yy, y2: yy, stroke: t === yt.base ? INK.axis : INK.grid }, axis);
    svgText(axis, left - 6, yy + 4, fmt(t), { 'text-anchor': 'end', 'font-size': 11, fill: INK.muted, class: 'pc-tick' });
  }
  const ylab = svgText(axis, 0, 0, ellipsize(spec.yLabel, plotH, 11), {
    'text-anchor': 'middle', 'font-size': 11, fill: INK.muted,
    transform: `translate(12 ${plotTop + plotH / 2}) rotate(-90)`,
  });
  ylab.setAttribute('class', 'pc-axis-label');

  // Bars.
  const gap = Math.min(24, band * 0.2);
  const barW = Math.max(2, Math.min(56, (band - gap) / schedulers.length));
  const bars = svgEl('g', { class: 'pc-bars' }, svg);
  const xAxis = svgEl('g', { class: 'pc-axis pc-axis-x' }, svg);
  placers.forEach((placer, pi) => {
    const gx = left + pi * band + (band - barW * schedulers.length) / 2;
    const group = svgEl('g', { class: 'pc-group', 'data-placer': placer }, bars);
    let groupInfeasible = 0;
    schedulers.forEach((scheduler, si) => {
      const r = byPair.get(`${placer}\u0000${scheduler}`);
      if (!r) return;
      const x = gx + si * barW;
      const inset = barW > 6 ? 1 : 0;
      const infeasible = isInfeasible(r);
      const v = infeasible ? 0 : spec.value(r);
      const g = svgEl('g', {
        class: 'pc-bar',
        'data-placer': placer,
        'data-scheduler': r.scheduler,
        'data-order': r.link_order,
        'data-value': infeasible ? '' : v,
        'data-clickable': '',
        tabindex: -1,
        role: 'button',
        'aria-label': `${placer} / ${scheduler}: ${infeasible ? 'infeasible' : spec.chart === 'traffic' ? formatBytes(v) : formatSeconds(v)}`,
      }, group);
      if (r.error) g.setAttribute('data-error', r.error);
      if (r.oom) g.setAttribute('data-oom', '');
      const best = !infeasible && !r.error && typeof options.isBest === 'function' && options.isBest(r);
      if (best) g.setAttribute('data-best', '');
      const selected = hl === r;
      if (selected) g.setAttribute('data-selected', '');
      if (hl && !selected) g.setAttribute('opacity', 0.45);
      if (infeasible) {
        groupInfeasible += 1;
        svgEl('rect', {
          class: 'pc-bar-rect', x: x + inset, y: plotTop, width: barW - 2 * inset, height: plotH,
          fill: `url(#${hatchId})`, stroke: selected ? INK.highlight : INK.faint,
          'stroke-width': selected ? 2 : 1, 'stroke-dasharray': selected ? null : '3 3',
        }, g);
        if (barW >= 13) {
          const tx = x + barW / 2 + 4;
          const ty = plotTop + plotH / 2;
          const t = svgText(g, 0, 0, 'infeasible', {
            'text-anchor': 'middle', 'font-size': 11, fill: INK.muted,
            transform: `translate(${tx} ${ty}) rotate(-90)`, class: 'pc-infeasible-label',
          });
          t.setAttribute('paint-order', 'stroke');
          t.setAttribute('stroke', INK.background);
          t.setAttribute('stroke-width', 3);
        }
      } else {
        const yTop = y(v);
        const h = Math.max(v > 0 ? 1 : 0, plotTop + plotH - yTop);
        svgEl('rect', {
          class: 'pc-bar-rect', x: x + inset, y: plotTop + plotH - h, width: Math.max(1, barW - 2 * inset), height: h,
          fill: colors.get(scheduler), stroke: selected ? INK.highlight : null, 'stroke-width': selected ? 2 : null,
        }, g);
        if (r.error) {
          // Infeasible on some seeds: the mean covers the others only.
          svgEl('rect', { x: x + inset, y: plotTop + plotH - h, width: Math.max(1, barW - 2 * inset), height: h, fill: `url(#${hatchId})`, 'pointer-events': 'none' }, g);
        }
        const bv = before(r);
        if (bv !== null) {
          // The value before the what-if: a dashed outline, and the change in the label.
          const by = y(bv);
          ghostRect(g, x + inset, by, Math.max(1, barW - 2 * inset), Math.max(0, plotTop + plotH - by));
          g.setAttribute('data-baseline', String(bv));
          g.setAttribute('aria-label', `${g.getAttribute('aria-label')}, ${changeText(v, bv, (x) => fmtValue(x, spec.chart))}`);
        }
        const e = spec.err(r);
        let markTop = yTop;
        if (e > 0) {
          const cx = x + barW / 2;
          const y1 = y(v + e);
          const y0 = y(Math.max(yt.base, v - e));
          const cap = Math.min(8, barW / 3);
          const path = `M${cx},${y0}V${y1}M${cx - cap},${y1}H${cx + cap}M${cx - cap},${y0}H${cx + cap}`;
          svgEl('path', { d: path, stroke: INK.text, 'stroke-width': 1.2, fill: 'none', class: 'pc-errorbar' }, g);
          markTop = y1;
        }
        if (r.oom) {
          svgEl('circle', { cx: x + barW / 2, cy: markTop - 7, r: 3.5, fill: INK.oom, class: 'pc-oom-mark' }, g);
          markTop -= 10;
        }
        if (best) {
          // Above the bar (and its error bar), never over another bar.
          svgText(g, x + barW / 2, Math.max(plotTop + 10, markTop - 3), '★', {
            'text-anchor': 'middle', 'font-size': 11, fill: INK.text, class: 'pc-best-mark', 'pointer-events': 'none',
          });
        }
        // A transparent hit area over the full column, so short bars are easy to click.
        svgEl('rect', { x, y: plotTop, width: barW, height: plotH, fill: 'transparent', class: 'pc-hit' }, g);
      }
      const warning = r.error ? `${infeasible ? 'infeasible' : 'infeasible on some seeds'}: ${r.error}` : (r.oom ? 'ran out of memory on some device' : null);
      g.addEventListener('mousemove', (ev) => {
        const bv = before(r);
        const rows = infeasible ? [] : spec.rows(r, seeds);
        if (bv !== null) rows.push(['before the what-if', fmtValue(bv, spec.chart)], ['change', changeText(spec.value(r), bv, (x) => fmtValue(x, spec.chart))]);
        tip.show(ev.clientX, ev.clientY, `${placer} / ${scheduler}`, rows, warning);
      });
      g.addEventListener('mouseleave', () => tip.hide());
      const select = () => {
        if (typeof options.onSelect === 'function') options.onSelect(placer, r.scheduler, r.link_order);
      };
      g.addEventListener('click', select);
      g.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          select();
        }
      });
    });
    if (groupInfeasible > 0 && barW < 13) {
      const cx = left + pi * band + band / 2;
      svgText(group, 0, 0, 'infeasible', {
        'text-anchor': 'middle', 'font-size': 11, fill: INK.muted, 'pointer-events': 'none',
        transform: `translate(${cx + 4} ${plotTop + plotH / 2}) rotate(-90)`, class: 'pc-infeasible-label',
      });
    }
    // Placer label.
    const cx = left + pi * band + band / 2;
    const ly2 = plotTop + plotH + 16;
    const label = svgText(xAxis, 0, 0, groupLabels[pi], {
      'text-anchor': rotate ? 'end' : 'middle', fill: INK.text, class: 'pc-tick',
      transform: rotate ? `translate(${cx + 4} ${ly2 - 4}) rotate(-30)` : `translate(${cx} ${ly2})`,
    });
    if (groupLabels[pi] !== placer) svgEl('title', null, label).textContent = placer;
  });

  if (allZero && spec.empty) {
    svgText(svg, left + plotW / 2, plotTop + plotH / 2, spec.empty, { 'text-anchor': 'middle', fill: INK.muted, class: 'pc-message' });
  }
  // Lower bound.
  if (spec.bound) {
    const by = Math.round(y(spec.bound.value)) + 0.5;
    const g = svgEl('g', { class: 'pc-bound', 'data-value': spec.bound.value, 'pointer-events': 'none' }, svg);
    svgEl('line', { x1: left, x2: left + plotW, y1: by, y2: by, stroke: INK.bound, 'stroke-width': 1.5, 'stroke-dasharray': '6 4' }, g);
    // Its label is the legend's (a label here would cover the bars).
    svgEl('title', null, g).textContent = spec.bound.label;
  }
  rovingFocus(svg, '.pc-bar', hl ? `.pc-bar[data-selected]` : null);
  svg.setAttribute('font-family', FONT);
  return svg;
}
