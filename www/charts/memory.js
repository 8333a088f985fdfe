// Peak memory per device, against each device's capacity.
//   drawMemory(container, comparison, {placer, scheduler, ...})
// With a pair chosen: one bar chart of that pair's devices. Without one (or when the pair is
// not in the comparison): small multiples, one mini chart per pair, all on one shared scale.
// While a what-if is active, each device's peak before it is a dashed ghost bar, and its
// tooltip gives the change.
// SVG via DOM calls; redraws on container resize; returns { svg(), redraw(), destroy() }.

import {
  INK, svgEl, svgText, createSvgRoot, niceTicks, formatBytes, formatSig, formatShare, byteTickFormatter,
  textWidth, ellipsize, tooltip, mount, showMessage, isInfeasible, num, uid, rovingFocus,
  changeText, ghostRect,
} from './svg.js';

/**
 * options:
 *   placer, scheduler        the pair to show; if either is missing: small multiples of all pairs
 *   onSelect(placer, scheduler)  small multiples only: called when a mini chart is clicked
 *   highlight: {placer, scheduler}  small multiples only: outlines that pair's mini chart
 *   baseline(row): row | null    while a what-if is active, the row before it: its devices'
 *                            peaks are drawn as ghost bars
 *   height: number           single pair only (default 300)
 *   title: string            default set; '' for none
 */
export function drawMemory(container, comparison, options = {}) {
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
    const row = options.placer != null && options.scheduler != null
      ? results.find((r) => r.placer === options.placer && r.scheduler === options.scheduler)
      : null;
    svg = row ? renderSingle(width, row, options, tip) : renderMultiples(width, results, options, tip);
    container.replaceChildren(svg);
  };
  return mount(container, render, { svg: () => svg, onDestroy: () => tip.hide() });
}

function capacityOf(d) {
  return typeof d.memory === 'number' && Number.isFinite(d.memory) ? d.memory : null;
}

/**
 * The peak of each device of `row` before the what-if (the baseline row's device of the same
 * id), or null per device when there is no baseline.
 * @returns {(number | null)[]}
 */
function peaksBefore(row, options) {
  const b = typeof options.baseline === 'function' && !isInfeasible(row) ? options.baseline(row) : null;
  const devices = row.devices || [];
  if (!b || isInfeasible(b)) return devices.map(() => null);
  const byId = new Map((b.devices || []).map((d) => [d.id, num(d.peak_memory)]));
  return devices.map((d) => byId.get(d.id) ?? null);
}

/**
 * A device's tooltip rows, with its peak before the what-if (`before`) when there is one.
 * @param {number | null} [before]
 */
function deviceRows(d, before = null) {
  const cap = capacityOf(d);
  const rows = [
    ['kind', String(d.kind ?? '')],
    ['peak memory', formatBytes(num(d.peak_memory))],
    ['capacity', cap === null ? 'unlimited' : formatBytes(cap)],
  ];
  if (cap) rows.push(['used', formatShare(num(d.peak_memory) / cap)]);
  rows.push(['ops (mean)', formatSig(num(d.ops), 4)]);
  rows.push(['utilization', formatShare(num(d.utilization))]);
  if (before !== null) {
    rows.push(['peak before the what-if', formatBytes(before)], ['change', changeText(num(d.peak_memory), before, formatBytes)]);
  }
  return rows;
}

function maxMemory(rows, options) {
  let m = 0;
  for (const r of rows) {
    if (isInfeasible(r)) continue;
    for (const d of r.devices || []) {
      m = Math.max(m, num(d.peak_memory));
      const c = capacityOf(d);
      if (c !== null) m = Math.max(m, c);
    }
    for (const b of peaksBefore(r, options)) if (b !== null) m = Math.max(m, b);
  }
  return m;
}

/** A device's ghost bar (its peak before the what-if) and the attribute tests read. */
function ghost(g, before, cx, barW, y, bottom) {
  if (before === null) return;
  const by = y(before);
  ghostRect(g, cx - barW / 2, by, barW, Math.max(0, bottom - by));
  g.setAttribute('data-baseline', String(before));
}

function hatchPattern(svg) {
  const defs = svgEl('defs', null, svg);
  const id = uid('pc-hatch');
  const p = svgEl('pattern', { id, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, defs);
  svgEl('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: INK.faint, 'stroke-width': 1.5 }, p);
  return id;
}

function legend(svg, x, y, width, items) {
  const g = svgEl('g', { class: 'pc-legend' }, svg);
  let lx = x;
  let ly = y;
  for (const item of items) {
    const w = 18 + textWidth(item.label) + 16;
    if (lx + w > width - 12 && lx > x) {
      lx = x;
      ly += 18;
    }
    if (item.kind === 'line') {
      svgEl('line', { x1: lx, x2: lx + 14, y1: ly, y2: ly, stroke: item.color, 'stroke-width': 2.5 }, g);
    } else if (item.kind === 'ghost') {
      ghostRect(g, lx, ly - 5, 14, 10, null);
    } else if (item.kind === 'text') {
      svgText(g, lx + 7, ly + 4, item.symbol, { 'text-anchor': 'middle', fill: INK.faint });
    } else {
      svgEl('rect', { x: lx, y: ly - 5, width: 14, height: 10, rx: 2, fill: item.color }, g);
    }
    svgText(g, lx + 18, ly + 4, item.label, { fill: INK.muted });
    lx += w;
  }
  return ly;
}

function attachTip(el, tip, title, rows, warning) {
  el.addEventListener('mousemove', (ev) => tip.show(ev.clientX, ev.clientY, title, rows, warning));
  el.addEventListener('mouseleave', () => tip.hide());
}

function renderSingle(width, row, options, tip) {
  const height = options.height || 300;
  const devices = row.devices || [];
  const title = options.title ?? `Peak memory per device: ${row.placer} / ${row.scheduler}`;
  const svg = createSvgRoot(width, height, 'memory');
  svg.setAttribute('data-placer', row.placer);
  svg.setAttribute('data-scheduler', row.scheduler);
  svg.setAttribute('data-mode', 'single');
  svg.setAttribute('aria-label', title || 'memory');
  const right = 16;
  let top = 10;
  if (title) {
    svgText(svg, 12, top + 13, ellipsize(title, width - 24, 14, 600), { 'font-size': 14, 'font-weight': 600, class: 'pc-title' });
    top += 24;
  }
  if (isInfeasible(row) || devices.length === 0) {
    svgText(svg, 12, top + 20, row.error ? `Infeasible: ${row.error}` : 'No devices.', { fill: INK.muted, class: 'pc-message' });
    return svg;
  }
  const anyOom = devices.some((d) => d.oom);
  const anyUnlimited = devices.some((d) => capacityOf(d) === null);
  /** @type {{kind: string, color?: string, symbol?: string, label: string}[]} */
  const items = [
    { kind: 'rect', color: INK.memory, label: 'peak memory' },
    { kind: 'line', color: INK.capacity, label: 'capacity' },
  ];
  if (anyOom) items.push({ kind: 'rect', color: INK.oom, label: 'out of memory' });
  if (anyUnlimited) items.push({ kind: 'text', symbol: '∞', label: 'unlimited' });
  const before = peaksBefore(row, options);
  if (before.some((b) => b !== null)) items.push({ kind: 'ghost', label: 'before the what-if' });
  top = legend(svg, 12, top + 8, width, items) + 18;

  // Capacities far apart (16 GB GPUs beside a 550 GB host): each device against its own
  // capacity (a share of it), else every GPU bar would be flat.
  const caps = devices.map(capacityOf);
  const rel = caps.every((c) => c !== null && c > 0)
    && Math.max(.../** @type {number[]} */ (caps)) / Math.min(.../** @type {number[]} */ (caps)) >= 4;
  svg.setAttribute('data-scale', rel ? 'relative' : 'absolute');
  /** A device's bytes on the chart's scale. @param {number} v @param {number} i */
  const sv = (v, i) => (rel ? v / /** @type {number} */ (caps[i]) : v);
  const maxV = (rel ? Math.max(1, ...devices.map((d, i) => sv(num(d.peak_memory), i)),
    ...before.map((b, i) => (b === null ? 0 : sv(b, i)))) : maxMemory([row], options)) * 1.08; // room for the labels above the bars
  const prov = niceTicks(0, maxV || 1, 5);
  const fmt0 = rel ? (/** @type {number} */ t) => formatShare(t) : byteTickFormatter(prov.max, prov.step);
  const left = Math.ceil(Math.max(...prov.ticks.map((t) => textWidth(fmt0(t), 11))) + 30);
  const plotW = Math.max(40, width - left - right);
  const band = plotW / devices.length;
  const labels = devices.map((d) => ellipsize(d.id, 110));
  const labelW = Math.max(...labels.map((l) => textWidth(l)));
  const rotate = labelW > band - 6;
  // Rotated labels: 30 degrees while they have room, 60 when dense; then every n-th label.
  const angle = band >= 26 ? 30 : 60;
  const rad = (angle * Math.PI) / 180;
  const skip = rotate ? Math.max(1, Math.ceil(13 / Math.sin(rad) / band)) : 1;
  const showKind = !rotate && devices.every((d) => textWidth(String(d.kind ?? '')) < band - 6);
  const bottom = rotate ? Math.ceil(labelW * Math.sin(rad) + 24) : showKind ? 42 : 28;
  const plotTop = top + 6;
  let plotH = height - plotTop - bottom;
  if (plotH < 140) {
    plotH = 140;
    const h = plotTop + plotH + bottom;
    svg.setAttribute('height', h);
    svg.setAttribute('viewBox', `0 0 ${width} ${h}`);
    svg.querySelector('.pc-background').setAttribute('height', h);
  }
  const yt = niceTicks(0, maxV || 1, Math.max(2, Math.round(plotH / 50)));
  const fmt = rel ? (/** @type {number} */ t) => formatShare(t) : byteTickFormatter(yt.max, yt.step);
  const y = (v) => plotTop + plotH - (v / yt.max) * plotH;

  const axis = svgEl('g', { class: 'pc-axis pc-axis-y' }, svg);
  for (const t of yt.ticks) {
    const yy = Math.round(y(t)) + 0.5;
    svgEl('line', { x1: left, x2: left + plotW, y1: yy, y2: yy, stroke: t === 0 ? INK.axis : INK.grid }, axis);
    svgText(axis, left - 6, yy + 4, fmt(t), { 'text-anchor': 'end', 'font-size': 11, fill: INK.muted, class: 'pc-tick' });
  }
  svgText(axis, 0, 0, ellipsize(rel ? 'peak memory / the device\'s capacity' : 'peak memory (max over seeds)', plotH, 11), {
    'text-anchor': 'middle', 'font-size': 11, fill: INK.muted, class: 'pc-axis-label',
    transform: `translate(12 ${plotTop + plotH / 2}) rotate(-90)`,
  });

  const barW = Math.max(1, Math.min(48, band * 0.62));
  const bars = svgEl('g', { class: 'pc-devices' }, svg);
  const xAxis = svgEl('g', { class: 'pc-axis pc-axis-x' }, svg);
  devices.forEach((d, i) => {
    const cx = left + band * (i + 0.5);
    const cap = capacityOf(d);
    const peak = num(d.peak_memory);
    const g = svgEl('g', {
      class: 'pc-device', 'data-device': d.id, 'data-peak': peak,
      'data-capacity': cap === null ? '' : cap,
    }, bars);
    if (d.oom) g.setAttribute('data-oom', '');
    const h = Math.max(peak > 0 ? 1 : 0, plotTop + plotH - y(sv(peak, i)));
    svgEl('rect', {
      class: 'pc-bar-rect', x: cx - barW / 2, y: plotTop + plotH - h, width: barW, height: h,
      fill: d.oom ? INK.oom : INK.memory,
    }, g);
    ghost(g, before[i] === null ? null : sv(before[i], i), cx, barW, y, plotTop + plotH);
    if (cap !== null) {
      const cy = Math.round(y(sv(cap, i))) + 0.5;
      const half = Math.min(band * 0.45, barW / 2 + 6);
      svgEl('line', { class: 'pc-capacity', x1: cx - half, x2: cx + half, y1: cy, y2: cy, stroke: INK.capacity, 'stroke-width': 2.5 }, g);
      if (band >= 34) {
        const pct = (100 * peak) / cap;
        const ty = Math.min(y(sv(peak, i)), cy) - 6;
        svgText(g, cx, ty, formatShare(pct / 100, pct >= 100 ? 4 : 2), {
          'text-anchor': 'middle', 'font-size': 10, fill: d.oom ? INK.oom : INK.muted, 'font-weight': d.oom ? 600 : null,
        });
      }
    } else if (band >= 12) {
      svgText(g, cx, y(peak) - 6, '∞', { 'text-anchor': 'middle', fill: INK.faint });
    }
    svgEl('rect', { x: cx - band / 2, y: plotTop, width: band, height: plotH, fill: 'transparent', class: 'pc-hit' }, g);
    attachTip(g, tip, String(d.id), deviceRows(d, before[i]), d.oom ? 'out of memory: peak above capacity' : null);
    if (i % skip === 0) {
      const ly = plotTop + plotH + 16;
      svgText(xAxis, 0, 0, labels[i], {
        'text-anchor': rotate ? 'end' : 'middle', class: 'pc-tick',
        transform: rotate ? `translate(${cx + 4} ${ly - 4}) rotate(-${angle})` : `translate(${cx} ${ly})`,
      });
      if (showKind) svgText(xAxis, cx, ly + 14, String(d.kind ?? ''), { 'text-anchor': 'middle', 'font-size': 10, fill: INK.faint });
    }
  });
  return svg;
}

function renderMultiples(width, results, options, tip) {
  const title = options.title ?? 'Peak memory per device, every pair (shared scale)';
  const cols = Math.max(1, Math.min(results.length, Math.floor(width / 230)));
  const rowsN = Math.ceil(results.length / cols);
  const cellH = 128;
  const maxV = maxMemory(results, options);
  const yt = niceTicks(0, maxV || 1, 3);
  const fmt = byteTickFormatter(yt.max, yt.step);
  const axisW = Math.ceil(Math.max(...yt.ticks.map((t) => textWidth(fmt(t), 10))) + 12);
  const right = 12;
  const cellW = (width - axisW - right) / cols;

  let top = 10;
  const titleH = title ? 24 : 0;
  // Legend first (its height decides where the grid starts).
  const probe = createSvgRoot(width, 10, 'memory');
  const anyOom = results.some((r) => (r.devices || []).some((d) => d.oom) && !isInfeasible(r));
  /** @type {{kind: string, color?: string, symbol?: string, label: string}[]} */
  const items = [
    { kind: 'rect', color: INK.memory, label: 'peak memory' },
    { kind: 'line', color: INK.capacity, label: 'capacity' },
  ];
  if (anyOom) items.push({ kind: 'rect', color: INK.oom, label: 'out of memory' });
  if (results.some((r) => peaksBefore(r, options).some((b) => b !== null))) items.push({ kind: 'ghost', label: 'before the what-if' });
  const legendBottom = legend(probe, 12, top + titleH + 8, width, items);
  const gridTop = legendBottom + 16;
  const height = Math.ceil(gridTop + rowsN * cellH + 8);

  const svg = createSvgRoot(width, height, 'memory');
  svg.setAttribute('role', 'group'); // its cells are buttons
  svg.setAttribute('data-mode', 'multiples');
  svg.setAttribute('data-pairs', results.length);
  svg.setAttribute('aria-label', title || 'memory');
  const hatchId = hatchPattern(svg);
  if (title) svgText(svg, 12, top + 13, title, { 'font-size': 14, 'font-weight': 600, class: 'pc-title' });
  legend(svg, 12, top + titleH + 8, width, items);

  const hl = options.highlight;
  results.forEach((r, k) => {
    const col = k % cols;
    const rowI = Math.floor(k / cols);
    const x0 = axisW + col * cellW;
    const y0 = gridTop + rowI * cellH;
    const plotTop = y0 + 22;
    const plotH = cellH - 22 - 14;
    const plotL = x0 + 6;
    const plotW = cellW - 12;
    const y = (v) => plotTop + plotH - (v / yt.max) * plotH;
    const selected = hl && hl.placer === r.placer && hl.scheduler === r.scheduler;
    const cell = svgEl('g', {
      class: 'pc-cell', 'data-placer': r.placer, 'data-scheduler': r.scheduler, 'data-clickable': '',
      tabindex: -1, role: 'button', 'aria-label': `memory of ${r.placer} / ${r.scheduler}`,
    }, svg);
    if (selected) cell.setAttribute('data-selected', '');
    if (r.error) cell.setAttribute('data-error', r.error);
    svgEl('rect', {
      x: x0 + 1, y: y0 + 1, width: cellW - 2, height: cellH - 6, rx: 4, fill: selected ? INK.zebra : INK.background,
      stroke: selected ? INK.highlight : INK.grid, 'stroke-width': selected ? 1.5 : 1, class: 'pc-cell-frame',
    }, cell);
    svgText(cell, plotL, y0 + 16, ellipsize(`${r.placer} / ${r.scheduler}`, plotW, 11, 600), {
      'font-size': 11, 'font-weight': 600, class: 'pc-cell-title',
    });
    // Grid lines, labels in the first column only.
    for (const t of yt.ticks) {
      const yy = Math.round(y(t)) + 0.5;
      svgEl('line', { x1: plotL, x2: plotL + plotW, y1: yy, y2: yy, stroke: t === 0 ? INK.axis : INK.grid }, cell);
      if (col === 0) {
        svgText(svg, axisW - 4, yy + 3.5, fmt(t), { 'text-anchor': 'end', 'font-size': 10, fill: INK.muted, class: 'pc-tick' });
      }
    }
    const devices = r.devices || [];
    if (isInfeasible(r)) {
      svgEl('rect', { x: plotL, y: plotTop, width: plotW, height: plotH, fill: `url(#${hatchId})`, opacity: 0.6 }, cell);
      const t = svgText(cell, plotL + plotW / 2, plotTop + plotH / 2 + 4, 'infeasible', { 'text-anchor': 'middle', fill: INK.muted, class: 'pc-infeasible-label' });
      t.setAttribute('paint-order', 'stroke');
      t.setAttribute('stroke', INK.background);
      t.setAttribute('stroke-width', 4);
      attachTip(cell, tip, `${r.placer} / ${r.scheduler}`, [], `infeasible: ${r.error}`);
    } else if (devices.length > 0) {
      const band = plotW / devices.length;
      const barW = Math.max(1, Math.min(28, band * 0.7));
      const before = peaksBefore(r, options);
      devices.forEach((d, i) => {
        const cx = plotL + band * (i + 0.5);
        const peak = num(d.peak_memory);
        const cap = capacityOf(d);
        const g = svgEl('g', { class: 'pc-device', 'data-device': d.id, 'data-peak': peak, 'data-capacity': cap === null ? '' : cap }, cell);
        if (d.oom) g.setAttribute('data-oom', '');
        const h = Math.max(peak > 0 ? 1 : 0, plotTop + plotH - y(peak));
        svgEl('rect', { x: cx - barW / 2, y: plotTop + plotH - h, width: barW, height: h, fill: d.oom ? INK.oom : INK.memory, class: 'pc-bar-rect' }, g);
        ghost(g, before[i], cx, barW, y, plotTop + plotH);
        if (cap !== null) {
          const cy = Math.round(y(cap)) + 0.5;
          const half = Math.min(band * 0.5, barW / 2 + 3);
          svgEl('line', { x1: cx - half, x2: cx + half, y1: cy, y2: cy, stroke: INK.capacity, 'stroke-width': 2, class: 'pc-capacity' }, g);
        }
        svgEl('rect', { x: cx - band / 2, y: plotTop, width: band, height: plotH, fill: 'transparent', class: 'pc-hit' }, g);
        attachTip(g, tip, `${d.id} · ${r.placer} / ${r.scheduler}`, deviceRows(d, before[i]), d.oom ? 'out of memory: peak above capacity' : null);
      });
      if (r.error) attachTip(cell.querySelector('.pc-cell-frame'), tip, `${r.placer} / ${r.scheduler}`, [], `infeasible on some seeds: ${r.error}`);
    }
    const select = () => {
      if (typeof options.onSelect === 'function') options.onSelect(r.placer, r.scheduler);
    };
    cell.addEventListener('click', select);
    cell.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        select();
      }
    });
  });
  // One tab stop for the whole chart: arrows move between the cells.
  rovingFocus(svg, '.pc-cell', hl ? '.pc-cell[data-selected]' : null);
  return svg;
}
