// Gantt chart of one run: a lane per device (its ops, and a memory-over-time strip under
// them) and a lane per busy link src -> dst (its transfers).
//   drawTimeline(container, timeline, {onHover, maxHeight, title})
// Drawn on one <canvas> (20,000 ops are 20,000 fillRects at most, and far fewer once
// sub-pixel ops are merged), redrawn with requestAnimationFrame; hit-testing is a binary
// search in the hovered lane. Wheel zooms the time axis around the cursor, drag pans (and
// scrolls lanes vertically), double-click resets; keys + - arrows 0 do the same.
// Not here: computing the schedule, or any text parsed as markup (all text is textContent
// or canvas fillText).

import {
  INK, FONT, formatSeconds, formatWallSeconds, formatBytes, formatCount, formatSig, timeTickFormatter, ticksWithin,
  opTypeColor, textWidth, htmlEl, tooltip, mount, showMessage, num, context2d,
} from './svg.js';
import { nodeName, findNames } from '../timeline-data.js';

const AXIS_H = 28;
const DEV_PAD = 4;
const OPS_H = 18;
const MEM_GAP = 3;
const MEM_H = 14;
const LINK_PAD = 2;
const LINK_H = 11;
const HEADER_H = 20;
const RIGHT = 12;
const MAX_EXPORT_H = 16000;

/** Black or white text, whichever reads better on `hex`. */
function textOn(hex) {
  const n = Number.parseInt(hex.slice(1), 16);
  const r = (n >> 16) & 255;
  const g = (n >> 8) & 255;
  const b = n & 255;
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#1f2328' : '#ffffff';
}

/** First index i in [0, n) with arr[i] >= v (n if none). arr ascending. */
function firstAtLeast(arr, n, v) {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Last index i with arr[i] <= v (-1 if none), arr ascending; simple upper-bound search. */
function upperIndex(arr, n, v) {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * A lane: its items (already in start order: timeline-data.js sorts them in the worker), their
 * starts and ends, and a running max of ends for interval queries.
 * @param {Uint32Array} items @param {Float64Array} startOf @param {Float64Array} endOf
 */
function makeLane(kind, items, startOf, endOf) {
  const n = items.length;
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  const maxEnd = new Float64Array(n);
  let m = -Infinity;
  for (let i = 0; i < n; i++) {
    starts[i] = startOf[items[i]];
    ends[i] = endOf[items[i]];
    if (ends[i] > m) m = ends[i];
    maxEnd[i] = m;
  }
  return { kind, n, starts, ends, maxEnd, items };
}

/**
 * The runs of equal keys in `order` (sorted by key): [[key, from, to), ...].
 * @param {Uint32Array} order @param {(i: number) => number} keyOf
 */
function runsOf(order, keyOf) {
  /** @type {[number, number, number][]} */
  const runs = [];
  for (let a = 0; a < order.length;) {
    const key = keyOf(order[a]);
    let b = a + 1;
    while (b < order.length && keyOf(order[b]) === key) b++;
    runs.push([key, a, b]);
    a = b;
  }
  return runs;
}

/** @param {import('../timeline-data.js').TimelineData} tl */
function prepare(tl) {
  const t0 = performance.now();
  const devices = tl.devices;
  const D = devices.length;
  const names = /** @type {import('../timeline-data.js').TimelineNames} */ (tl.names);
  const opTypes = tl.op_types;
  const opTypeIx = tl.op_type;
  const opStart = tl.op_start;
  const opEnd = tl.op_end;
  const N = opStart.length;
  const X = tl.tr_start.length;

  const typeColors = opTypes.map((name) => opTypeColor(name));
  const typeText = typeColors.map(textOn);
  let tEnd = num(tl.makespan);
  // Type statistics for the legend.
  const typeTime = new Float64Array(opTypes.length);
  const typeCount = new Int32Array(opTypes.length);
  for (const v of tl.op_order) {
    const t = opTypeIx[v];
    if (t < opTypes.length) {
      typeTime[t] += opEnd[v] - opStart[v];
      typeCount[t] += 1;
    }
    if (opEnd[v] > tEnd) tEnd = opEnd[v];
  }

  const lanes = [];
  let y = 0;
  // A lane per device, with or without ops.
  const byDevice = new Map(runsOf(tl.op_order, (v) => tl.op_device[v]).map(([d, a, b]) => [d, [a, b]]));
  for (let d = 0; d < D; d++) {
    const [a, b] = byDevice.get(d) ?? [0, 0];
    const lane = makeLane('device', tl.op_order.subarray(a, b), opStart, opEnd);
    lane.device = d;
    lane.y = y;
    lane.h = DEV_PAD + OPS_H + MEM_GAP + MEM_H + DEV_PAD;
    const dev = devices[d] || {};
    const curve = tl.memory[d] ?? new Float64Array(0);
    const m = curve.length >> 1;
    const mt = new Float64Array(m);
    const mb = new Float64Array(m);
    let peak = num(dev.peak_memory);
    for (let i = 0; i < m; i++) {
      mt[i] = curve[2 * i];
      mb[i] = curve[2 * i + 1];
      if (mb[i] > peak) peak = mb[i];
    }
    const cap = typeof dev.memory === 'number' && Number.isFinite(dev.memory) ? dev.memory : null;
    // The strip is scaled to the device's own peak (its shape over time is the point; the
    // label gives peak / capacity). The capacity line shows only when the peak exceeds it.
    lane.mem = { n: m, t: mt, b: mb, peak, cap, scale: peak };
    lanes.push(lane);
    y += lane.h;
  }
  // Links with at least one transfer, ordered by (src, dst).
  for (const x of tl.tr_order) {
    if (tl.tr_end[x] > tEnd) tEnd = tl.tr_end[x];
    if (tl.tr_ready[x] > tEnd) tEnd = tl.tr_ready[x];
  }
  const links = runsOf(tl.tr_order, (x) => tl.tr_src[x] * D + tl.tr_dst[x]);
  let linkHeaderY = null;
  if (links.length > 0) {
    linkHeaderY = y;
    y += HEADER_H;
  }
  for (const [key, a, b] of links) {
    const lane = makeLane('link', tl.tr_order.subarray(a, b), tl.tr_start, tl.tr_end);
    lane.src = Math.floor(key / D);
    lane.dst = key % D;
    lane.y = y;
    lane.h = LINK_PAD + LINK_H + LINK_PAD;
    lanes.push(lane);
    y += lane.h;
  }
  // Where each op and transfer is drawn: its lane and its index in that lane.
  const opLane = new Int32Array(N).fill(-1);
  const opPos = new Int32Array(N);
  const xLane = new Int32Array(X).fill(-1);
  const xPos = new Int32Array(X);
  lanes.forEach((l, li) => {
    const [laneOf, posOf] = l.kind === 'device' ? [opLane, opPos] : [xLane, xPos];
    for (let i = 0; i < l.n; i++) {
      laneOf[l.items[i]] = li;
      posOf[l.items[i]] = i;
    }
  });
  // The engine's critical path of this run (analysis::critical): drawn item by item.
  /** @type {{li: number, i: number}[]} */
  const critical = [];
  const critOp = new Uint8Array(N);
  const critX = new Uint8Array(X);
  let critSum = num(tl.critical_idle);
  for (const step of tl.critical) {
    const isOp = step >= 0;
    const id = isOp ? step : -1 - step;
    const li = isOp ? opLane[id] : xLane[id];
    if (!(li >= 0)) continue;
    const pos = isOp ? opPos[id] : xPos[id];
    critical.push({ li, i: pos });
    (isOp ? critOp : critX)[id] = 1;
    critSum += lanes[li].ends[pos] - lanes[li].starts[pos];
  }
  const last = critical[critical.length - 1];
  const critEnd = last ? lanes[last.li].ends[last.i] : 0;
  const laneLabels = lanes.map((l) => (l.kind === 'device'
    ? String(devices[l.device]?.id ?? `device ${l.device}`)
    : `${devices[l.src]?.id ?? l.src} → ${devices[l.dst]?.id ?? l.dst}`));
  let labelW = 60;
  lanes.forEach((l, i) => {
    labelW = Math.max(labelW, textWidth(laneLabels[i], l.kind === 'device' ? 12 : 11, l.kind === 'device' ? 600 : 'normal'));
    if (l.kind === 'device') labelW = Math.max(labelW, textWidth(memLabel(l.mem), 10));
  });
  labelW = Math.min(220, Math.ceil(labelW + 20));
  return {
    tl, devices, names, nodeCount: names.ends.length, name: (v) => nodeName(names, v),
    opTypes, opTypeIx, typeColors, typeText, typeTime, typeCount,
    opStart, opEnd, lanes, laneLabels, labelW, linkHeaderY, contentH: y,
    opLane, opPos, xLane, xPos, critical, critOp, critX, critSum, critEnd, critIdle: num(tl.critical_idle),
    ready: tl.ready, edges: tl.edges,
    adjacency: null,
    opCount: tl.op_order.length, transferCount: tl.tr_order.length,
    tEnd: tEnd > 0 ? tEnd : 1,
    makespan: num(tl.makespan), lowerBound: num(tl.lower_bound),
    prepMs: performance.now() - t0,
  };
}

function memLabel(mem) {
  return mem.cap === null ? `peak ${formatBytes(mem.peak)}` : `peak ${formatBytes(mem.peak)} / ${formatBytes(mem.cap)}`;
}

/**
 * options:
 *   onHover(info | null)   info = {kind:'op', node, id, opType, device, deviceId, start, end, duration}
 *                          | {kind:'transfer', transfer, src, dst, srcId, dstId, ready, start, end,
 *                             queued, duration, bytes, producer, producerId}
 *                          | {kind:'memory', device, deviceId, time, bytes}
 *   maxHeight: px of the scrolling lane area (default 560)
 *   title: string (default none; the page usually has a heading)
 * Returns a controller {canvas, redraw(), destroy(), getView(), setView(t0, t1), resetView(),
 *   toCanvas(scale) (every lane, for export), stats {prepMs, lastDrawMs}, hitTest(x, y)}.
 */
/**
 * @param {HTMLElement} container
 * @param {import('../timeline-data.js').TimelineData} timeline
 * @param {object} [options]
 */
export function drawTimeline(container, timeline, options = {}) {
  if (!timeline || !timeline.op_start || !timeline.names) {
    showMessage(container, 'No timeline.');
    return mount(container, () => {}, {});
  }
  const P = prepare(timeline);
  if (P.opCount === 0 && P.transferCount === 0) {
    return mount(container, () => showMessage(container, 'No schedule was recorded for this run.'), {});
  }
  const maxHeight = options.maxHeight || 560;
  const tip = tooltip();
  const stats = { prepMs: P.prepMs, lastDrawMs: 0, draws: 0 };
  const fullStart = 0;
  // A shared axis (two timelines side by side) spans the longer run.
  const fullEnd = Math.max(P.tEnd, num(options.tEnd)) * 1.01;
  const view = { t0: fullStart, t1: fullEnd };
  const minSpan = Math.max(P.tEnd * 1e-7, 1e-12);

  // DOM: wrapper > [bar, scroller > [canvas, spacer], legend]
  const root = htmlEl('div', 'pc-timeline');
  root.setAttribute('data-chart', 'timeline');
  root.setAttribute('data-ops', P.opCount);
  root.setAttribute('data-transfers', P.transferCount);
  root.setAttribute('data-devices', P.devices.length);
  root.setAttribute('data-links', P.lanes.filter((l) => l.kind === 'link').length);
  if (options.title) htmlEl('div', 'pc-tl-title', options.title, root).style.cssText = 'font-weight:600;font-size:14px;margin-bottom:2px';
  const bar = htmlEl('div', 'pc-tl-bar', null, root);
  const facts = [
    `makespan ${formatSeconds(P.makespan)}`,
    `lower bound ${formatSeconds(P.lowerBound)}`,
    `${formatCount(P.opCount)} ops`,
    `${formatCount(P.transferCount)} transfers`,
  ];
  if (Number.isFinite(timeline.placement_seconds)) facts.push(`placed in ${formatWallSeconds(timeline.placement_seconds)} (wall clock)`);
  htmlEl('span', 'pc-tl-facts', facts.join(' · '), bar);
  const viewText = htmlEl('span', 'pc-tl-view', '', bar);
  const resetBtn = htmlEl('button', 'pc-tl-reset', 'Reset zoom', bar);
  resetBtn.type = 'button';
  htmlEl('span', 'pc-tl-hint', 'wheel: zoom · drag: pan · click: details · keys: + − ← → 0, [ ] critical path, n next match, / find, Esc', bar);
  // Find an op by name; Enter jumps to the next match (Shift+Enter: the previous one).
  const tools = htmlEl('div', 'pc-tl-tools', null, root);
  const search = /** @type {HTMLInputElement} */ (htmlEl('input', 'pc-tl-search', null, tools));
  search.type = 'search';
  search.placeholder = 'find an op by name';
  search.setAttribute('aria-label', `${options.title ? `${options.title}: ` : ''}find an op by name (Enter: next match)`);
  const nextBtn = htmlEl('button', 'pc-tl-next', 'Next match', tools);
  nextBtn.type = 'button';
  const matchText = htmlEl('span', 'pc-tl-matches', '', tools);
  matchText.setAttribute('aria-live', 'polite');
  const critLabel = htmlEl('label', 'pc-tl-critical', null, tools);
  const critBox = /** @type {HTMLInputElement} */ (htmlEl('input', null, null, critLabel));
  critBox.type = 'checkbox';
  critBox.checked = options.critical !== false;
  htmlEl('span', null, `critical path (${formatCount(P.critical.length)} steps)`, critLabel);
  const prevStep = htmlEl('button', 'pc-tl-step', '◀ step', tools);
  prevStep.type = 'button';
  prevStep.setAttribute('aria-label', 'previous step on the critical path');
  const nextStep = htmlEl('button', 'pc-tl-step', 'step ▶', tools);
  nextStep.type = 'button';
  nextStep.setAttribute('aria-label', 'next step on the critical path');
  root.setAttribute('data-critical-steps', String(P.critical.length));
  root.setAttribute('data-critical-sum', String(P.critSum));
  root.setAttribute('data-critical-end', String(P.critEnd));
  root.setAttribute('data-makespan', String(P.makespan));
  const scroller = htmlEl('div', 'pc-tl-scroller', null, root);
  const canvas = document.createElement('canvas');
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `timeline: ${facts.join(', ')}`);
  scroller.appendChild(canvas);
  const spacer = htmlEl('div', 'pc-tl-spacer', null, scroller);
  buildLegend(root, P);
  const details = htmlEl('div', 'pc-tl-details', null, root);
  details.setAttribute('aria-live', 'polite');
  details.setAttribute('aria-label', 'the selected op or transfer');
  details.setAttribute('role', 'region');
  showDetails(details, P, null);

  let cssW = 0;
  let cssH = 0;
  let hover = null;
  let frame = 0;
  /** The selected item ({lane, index, ...}), drawn and described below the chart. */
  let selected = null;
  /** @type {Int32Array | null} ops whose name matches the search, by start time */
  let matches = null;
  let matchCursor = -1;
  let critCursor = -1;
  let quiet = false;
  const marks = () => ({ critical: critBox.checked, matches, selected });

  const plotL = () => P.labelW;
  const plotW = () => Math.max(10, cssW - P.labelW - RIGHT);
  const timeAt = (x) => view.t0 + ((x - plotL()) / plotW()) * (view.t1 - view.t0);

  function layout(width) {
    const total = AXIS_H + P.contentH + 1;
    cssH = Math.min(total, maxHeight);
    scroller.style.height = `${cssH + 2}px`;
    spacer.style.height = `${Math.max(0, total - cssH)}px`;
    cssW = Math.max(200, Math.floor(scroller.clientWidth || width - 2));
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
    canvas.style.width = `${cssW}px`;
    canvas.style.height = `${cssH}px`;
  }

  function schedule() {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      drawNow();
    });
  }

  function drawNow() {
    if (!canvas.isConnected || cssW === 0) return;
    const start = performance.now();
    const ctx = context2d(canvas);
    const dpr = canvas.width / cssW;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    paint(ctx, P, view, cssW, cssH, scroller.scrollTop, hover, marks());
    stats.lastDrawMs = performance.now() - start;
    stats.draws += 1;
    viewText.textContent = `view ${formatSeconds(view.t0)} – ${formatSeconds(view.t1)}`;
  }

  function clampView(t0, t1) {
    let span = t1 - t0;
    const full = fullEnd - fullStart;
    if (span > full) span = full;
    if (span < minSpan) span = minSpan;
    if (t0 < fullStart) t0 = fullStart;
    if (t0 + span > fullEnd) t0 = fullEnd - span;
    view.t0 = t0;
    view.t1 = t0 + span;
    if (!quiet && typeof options.onView === 'function') options.onView(view.t0, view.t1);
  }

  function zoomAt(x, factor) {
    const px = Math.min(Math.max(x, plotL()), plotL() + plotW());
    const tc = timeAt(px);
    const span = (view.t1 - view.t0) * factor;
    const f = (px - plotL()) / plotW();
    clampView(tc - f * span, tc - f * span + span);
    schedule();
  }

  function panPx(dx) {
    const dt = (dx / plotW()) * (view.t1 - view.t0);
    clampView(view.t0 + dt, view.t1 + dt);
    schedule();
  }

  function hitTest(x, y) {
    if (y < AXIS_H || x < plotL() || x > plotL() + plotW()) return null;
    const cy = y - AXIS_H + scroller.scrollTop;
    const lanes = P.lanes;
    let lo = 0;
    let hi = lanes.length - 1;
    let lane = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const l = lanes[mid];
      if (cy < l.y) hi = mid - 1;
      else if (cy >= l.y + l.h) lo = mid + 1;
      else {
        lane = l;
        break;
      }
    }
    if (!lane) return null;
    const t = timeAt(x);
    const k = plotW() / (view.t1 - view.t0);
    const tol = 2 / k;
    const ly = cy - lane.y;
    if (lane.kind === 'device' && ly >= DEV_PAD + OPS_H + MEM_GAP / 2) {
      const m = lane.mem;
      if (m.n === 0) return null;
      const i = upperIndex(m.t, m.n, t);
      const dev = P.devices[lane.device] || {};
      return { kind: 'memory', device: lane.device, deviceId: String(dev.id ?? lane.device), time: t, bytes: i >= 0 ? m.b[i] : 0 };
    }
    // Candidates: items starting at or before t + tol whose end reaches t - tol.
    let best = -1;
    let bestDist = Infinity;
    let j = upperIndex(lane.starts, lane.n, t + tol);
    for (let steps = 0; j >= 0 && lane.maxEnd[j] >= t - tol && steps < 100000; j--, steps++) {
      const s = lane.starts[j];
      const e = lane.ends[j];
      if (e < t - tol) continue;
      const dist = t < s ? s - t : t > e ? t - e : 0;
      if (dist < bestDist) {
        bestDist = dist;
        best = j;
        if (dist === 0) break;
      }
    }
    if (best < 0) return null;
    return describe(lane, best);
  }

  function describe(lane, j) {
    const id = lane.items[j];
    if (lane.kind === 'device') {
      const dev = P.devices[lane.device] || {};
      const ti = P.opTypeIx[id];
      return {
        kind: 'op', lane, index: j, node: id, id: P.name(id),
        opType: Number.isInteger(ti) && ti >= 0 && ti < P.opTypes.length ? String(P.opTypes[ti]) : '',
        device: lane.device, deviceId: String(dev.id ?? lane.device), deviceKind: String(dev.kind ?? ''),
        start: P.opStart[id], end: P.opEnd[id], duration: P.opEnd[id] - P.opStart[id],
      };
    }
    const tl = P.tl;
    const [src, dst, ready, start, end] = [tl.tr_src[id], tl.tr_dst[id], tl.tr_ready[id], tl.tr_start[id], tl.tr_end[id]];
    const prod = tl.tr_producer[id];
    return {
      kind: 'transfer', lane, index: j, transfer: id, src, dst,
      srcId: String(P.devices[src]?.id ?? src), dstId: String(P.devices[dst]?.id ?? dst),
      ready, start, end, queued: Math.max(0, start - ready), duration: end - start,
      bytes: tl.tr_bytes[id], producer: prod, producerId: P.name(prod),
    };
  }

  function sameHover(a, b) {
    if (!a || !b) return a === b;
    if (a.kind !== b.kind) return false;
    if (a.kind === 'memory') return a.device === b.device && a.bytes === b.bytes;
    return a.lane === b.lane && a.index === b.index;
  }

  function publicInfo(h) {
    if (!h) return null;
    const out = { ...h };
    delete out.lane;
    delete out.index;
    return out;
  }

  function showTip(h, clientX, clientY) {
    if (!h) {
      tip.hide();
      return;
    }
    if (h.kind === 'op') {
      tip.show(clientX, clientY, h.id, [
        ['op type', h.opType || '(none)'],
        ['device', h.deviceKind ? `${h.deviceId} (${h.deviceKind})` : h.deviceId],
        ['start', formatSeconds(h.start)],
        ['end', formatSeconds(h.end)],
        ['duration', formatSeconds(h.duration)],
      ]);
    } else if (h.kind === 'transfer') {
      tip.show(clientX, clientY, `transfer of ${h.producerId}`, [
        ['from → to', `${h.srcId} → ${h.dstId}`],
        ['bytes', h.bytes >= 1000 ? `${formatBytes(h.bytes)} (${formatCount(h.bytes)} B)` : formatBytes(h.bytes)],
        ['ready', formatSeconds(h.ready)],
        ['start', formatSeconds(h.start)],
        ['end', formatSeconds(h.end)],
        ['queued', formatSeconds(h.queued)],
        ['duration', formatSeconds(h.duration)],
      ]);
    } else {
      const lane = P.lanes[h.device];
      const rows = [['time', formatSeconds(h.time)], ['in use', formatBytes(h.bytes)]];
      if (lane.mem.cap !== null) rows.push(['capacity', `${formatBytes(lane.mem.cap)} (${formatSig((100 * h.bytes) / lane.mem.cap, 3)}%)`]);
      tip.show(clientX, clientY, `memory of ${h.deviceId}`, rows, lane.mem.cap !== null && h.bytes > lane.mem.cap ? 'above capacity' : null);
    }
  }

  function setHover(h, ev) {
    const changed = !sameHover(h, hover);
    hover = h;
    if (ev) showTip(h, ev.clientX, ev.clientY);
    else tip.hide();
    if (changed) {
      schedule();
      if (typeof options.onHover === 'function') options.onHover(publicInfo(h));
    }
  }

  /** Selects an item (a hit or a {lane, index} place), shows its details; null clears. */
  function select(h) {
    selected = h && h.lane ? h : null;
    root.setAttribute('data-selected', selected ? `${selected.kind}:${selected.kind === 'op' ? selected.node : selected.transfer}` : '');
    showDetails(details, P, selected && publicInfo(selected));
    schedule();
    if (typeof options.onSelect === 'function') options.onSelect(publicInfo(selected));
  }

  /** Zooms to an item (about six times its length, at least a thousandth of the run) and
   * scrolls its lane into view. */
  function focusOn(lane, j) {
    const s = lane.starts[j];
    const e = lane.ends[j];
    const span = Math.max((e - s) * 6, P.tEnd * 1e-3, minSpan);
    clampView((s + e) / 2 - span / 2, (s + e) / 2 + span / 2);
    const inner = cssH - AXIS_H;
    if (lane.y < scroller.scrollTop || lane.y + lane.h > scroller.scrollTop + inner) {
      scroller.scrollTop = Math.max(0, lane.y - inner / 2);
    }
    schedule();
  }

  function goTo(li, j) {
    const lane = P.lanes[li];
    focusOn(lane, j);
    select(describe(lane, j));
  }

  /** Ops whose id contains the text (case-insensitive); returns how many. */
  function setQuery(text) {
    const q = String(text ?? '').trim().toLowerCase();
    matchCursor = -1;
    if (!q) {
      matches = null;
    } else {
      const found = findNames(P.names, q).filter((v) => P.opLane[v] >= 0);
      found.sort((a, b) => P.opStart[a] - P.opStart[b] || a - b);
      matches = Int32Array.from(found);
    }
    const n = matches ? matches.length : 0;
    matchText.textContent = matches ? `${formatCount(n)} match${n === 1 ? '' : 'es'}` : '';
    root.setAttribute('data-matches', String(n));
    schedule();
    return n;
  }

  /** Jumps to the next (dir 1) or previous (dir -1) match; false when there is none. */
  function nextMatch(dir = 1) {
    if (!matches || matches.length === 0) return false;
    matchCursor = (matchCursor + dir + matches.length) % matches.length;
    const v = matches[matchCursor];
    goTo(P.opLane[v], P.opPos[v]);
    matchText.textContent = `${formatCount(matchCursor + 1)} of ${formatCount(matches.length)} matches`;
    return true;
  }

  /** Moves the selection along the critical path (dir 1: later, -1: earlier). */
  function stepCritical(dir) {
    const n = P.critical.length;
    if (n === 0) return;
    critCursor = critCursor < 0 ? (dir > 0 ? 0 : n - 1) : Math.min(n - 1, Math.max(0, critCursor + dir));
    const st = P.critical[critCursor];
    goTo(st.li, st.i);
  }

  search.addEventListener('input', () => setQuery(search.value));
  search.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter') return;
    ev.preventDefault();
    if (!matches) setQuery(search.value);
    nextMatch(ev.shiftKey ? -1 : 1);
  });
  nextBtn.addEventListener('click', () => {
    if (!matches) setQuery(search.value);
    nextMatch(1);
  });
  critBox.addEventListener('change', schedule);
  prevStep.addEventListener('click', () => stepCritical(-1));
  nextStep.addEventListener('click', () => stepCritical(1));

  // Interaction.
  let drag = null;
  const local = (ev) => {
    const r = canvas.getBoundingClientRect();
    return [ev.clientX - r.left, ev.clientY - r.top];
  };
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const [x] = local(ev);
    const unit = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? cssH : 1;
    const dx = ev.deltaX * unit;
    const dy = ev.deltaY * unit;
    if (ev.shiftKey) {
      scroller.scrollTop += dy || dx;
    } else if (Math.abs(dx) > Math.abs(dy)) {
      panPx(dx);
    } else if (dy !== 0) {
      zoomAt(x, Math.exp(Math.max(-1, Math.min(1, dy * 0.0015))));
    }
  }, { passive: false });
  canvas.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0) return;
    const [x, y] = local(ev);
    drag = { x, y, t0: view.t0, t1: view.t1, top: scroller.scrollTop, moved: false };
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener('pointermove', (ev) => {
    const [x, y] = local(ev);
    if (drag) {
      if (Math.abs(x - drag.x) + Math.abs(y - drag.y) > 3) drag.moved = true;
      if (drag.moved) {
        canvas.classList.add('pc-dragging');
        const dt = ((x - drag.x) / plotW()) * (drag.t1 - drag.t0);
        clampView(drag.t0 - dt, drag.t1 - dt);
        scroller.scrollTop = drag.top - (y - drag.y);
        setHover(null, null);
        schedule();
        return;
      }
    }
    setHover(hitTest(x, y), ev);
  });
  const endDrag = (ev) => {
    if (!drag) return;
    if (!drag.moved && ev.type === 'pointerup') {
      const [x, y] = local(ev);
      select(hitTest(x, y));
    }
    drag = null;
    canvas.classList.remove('pc-dragging');
    if (canvas.hasPointerCapture(ev.pointerId)) canvas.releasePointerCapture(ev.pointerId);
  };
  canvas.addEventListener('pointerup', endDrag);
  canvas.addEventListener('pointercancel', endDrag);
  canvas.addEventListener('pointerleave', () => {
    if (!drag) setHover(null, null);
  });
  const resetView = () => {
    clampView(fullStart, fullEnd);
    schedule();
  };
  canvas.addEventListener('dblclick', (ev) => {
    ev.preventDefault();
    resetView();
  });
  resetBtn.addEventListener('click', resetView);
  canvas.addEventListener('keydown', (ev) => {
    const mid = plotL() + plotW() / 2;
    if (ev.key === '+' || ev.key === '=') zoomAt(mid, 0.7);
    else if (ev.key === '-' || ev.key === '_') zoomAt(mid, 1 / 0.7);
    else if (ev.key === 'ArrowLeft') panPx(-plotW() * 0.2);
    else if (ev.key === 'ArrowRight') panPx(plotW() * 0.2);
    else if (ev.key === '0' || ev.key === 'Home') resetView();
    else if (ev.key === ']') stepCritical(1);
    else if (ev.key === '[') stepCritical(-1);
    else if (ev.key === 'n' || ev.key === 'N') nextMatch(ev.key === 'n' ? 1 : -1);
    else if (ev.key === 'Escape') select(null);
    else if (ev.key === '/') search.focus();
    else return;
    ev.preventDefault();
  });
  scroller.addEventListener('scroll', () => {
    setHover(null, null);
    schedule();
  });

  const render = (width) => {
    if (root.parentNode !== container) container.replaceChildren(root);
    layout(width);
    // Painted in the next frame: a task of its own, apart from preparing the data (on a
    // 48,000-op run each is tens of ms; together they were one long task).
    schedule();
  };

  return mount(container, render, {
    canvas,
    element: root,
    stats,
    hitTest: (x, y) => publicInfo(hitTest(x, y)),
    getView: () => [view.t0, view.t1],
    /** Sets the visible time range; `silent` does not call options.onView (syncing). */
    setView(t0, t1, silent = false) {
      quiet = silent;
      clampView(t0, t1);
      quiet = false;
      schedule();
    },
    setQuery,
    nextMatch,
    stepCritical,
    /** Selects op `id` (kind 'op') or transfer `id` (kind 'transfer') and zooms to it. */
    select(kind, id) {
      const li = kind === 'op' ? P.opLane[id] : P.xLane[id];
      if (li >= 0) goTo(li, kind === 'op' ? P.opPos[id] : P.xPos[id]);
    },
    selected: () => publicInfo(selected),
    resetView,
    /** Draws now (synchronously) and returns the milliseconds it took. */
    drawNow() {
      drawNow();
      return stats.lastDrawMs;
    },
    /** A new canvas with every lane (not just the scrolled-to part) at the current zoom. */
    toCanvas(scale = 2) {
      const h = Math.min(AXIS_H + P.contentH + 1, MAX_EXPORT_H);
      const c = document.createElement('canvas');
      c.width = Math.round(cssW * scale);
      c.height = Math.round(h * scale);
      const ctx = context2d(c);
      ctx.setTransform(scale, 0, 0, scale, 0, 0);
      paint(ctx, P, view, cssW, h, 0, null, marks());
      return c;
    },
    onDestroy() {
      if (frame) cancelAnimationFrame(frame);
      tip.hide();
    },
  });
}

function buildLegend(root, P) {
  const order = [];
  for (let t = 0; t < P.opTypes.length; t++) if (P.typeCount[t] > 0) order.push(t);
  order.sort((a, b) => P.typeTime[b] - P.typeTime[a] || a - b);
  const legend = htmlEl('div', 'pc-tl-legend', null, root);
  const shown = order.slice(0, 16);
  for (const t of shown) {
    const item = htmlEl('span', 'pc-tl-legend-item', null, legend);
    item.setAttribute('data-op-type', String(P.opTypes[t]));
    const sw = htmlEl('span', 'pc-tl-swatch', null, item);
    sw.style.background = P.typeColors[t];
    htmlEl('span', null, P.opTypes[t] === '' ? '(no type)' : P.opTypes[t], item);
  }
  if (order.length > shown.length) htmlEl('span', 'pc-tl-legend-more', `+${order.length - shown.length} more op types`, legend);
  if (P.transferCount > 0) {
    const item = htmlEl('span', 'pc-tl-legend-item', null, legend);
    const sw = htmlEl('span', 'pc-tl-swatch', null, item);
    sw.style.background = INK.transfer;
    htmlEl('span', null, 'transfer', item);
  }
  const mem = htmlEl('span', 'pc-tl-legend-item', null, legend);
  const sw = htmlEl('span', 'pc-tl-swatch', null, mem);
  sw.style.background = INK.memoryFill;
  sw.style.border = `1px solid ${INK.memory}`;
  htmlEl('span', null, 'memory in use, scaled to each device\'s peak (red: above capacity)', mem);
  for (const [label, color, dashed] of [['makespan', INK.text, false], ['lower bound', INK.oom, true]]) {
    const item = htmlEl('span', 'pc-tl-legend-item', null, legend);
    const line = htmlEl('span', 'pc-tl-swatch', null, item);
    line.style.cssText = `width:14px;height:0;border-radius:0;border-top:2px ${dashed ? 'dashed' : 'solid'} ${color}`;
    htmlEl('span', null, label, item);
  }
}

/**
 * Inputs (`dir` 'in') or outputs ('out') of op `v`: [[other node, bytes], ...] in edge order.
 * @returns {[number, number][]}
 */
function neighbours(P, v, dir) {
  if (!P.adjacency) {
    // CSR of the flattened edges [src, dst, bytes, ...], built on the first selection.
    const e = P.edges;
    const m = Math.floor(e.length / 3);
    const n = P.nodeCount;
    const build = (key) => {
      const start = new Int32Array(n + 1);
      for (let i = 0; i < m; i++) start[e[3 * i + key] + 1] += 1;
      for (let i = 0; i < n; i++) start[i + 1] += start[i];
      const fill = start.slice(0, n);
      const at = new Int32Array(m);
      for (let i = 0; i < m; i++) at[fill[e[3 * i + key]]++] = i;
      return { start, at };
    };
    P.adjacency = { out: build(0), in: build(1) };
  }
  const { start, at } = P.adjacency[dir];
  /** @type {[number, number][]} */
  const list = [];
  for (let j = start[v]; j < start[v + 1]; j++) {
    const i = at[j];
    list.push([P.edges[3 * i + (dir === 'in' ? 0 : 1)], P.edges[3 * i + 2]]);
  }
  return list;
}

const DETAIL_LIST_MAX = 12;
/** The critical path's chain lines are drawn when at most this many of its steps are in view. */
const CHAIN_MAX = 400;
/** A critical step is outlined when at least this many pixels wide. */
const OUTLINE_MIN = 8;

/** The details panel of a selected op or transfer (every text with textContent). */
function showDetails(el, P, info) {
  el.replaceChildren();
  if (!info) {
    htmlEl('p', 'pc-tl-empty', 'Click an op or transfer (or find one, or step along the critical path) to see its details here.', el);
    return;
  }
  const t = (x) => formatSeconds(x);
  const bytes = (b) => (b >= 1000 ? `${formatBytes(b)} (${formatCount(b)} B)` : formatBytes(b));
  const name = (v) => P.name(v);
  const deviceOf = (v) => {
    const li = P.opLane[v];
    return li >= 0 ? String(P.devices[P.lanes[li].device]?.id ?? '') : '';
  };
  let title;
  const rows = [];
  const lists = [];
  if (info.kind === 'op') {
    const v = info.node;
    const ready = num(P.ready[v]);
    title = `op ${info.id}`;
    rows.push(['op type', info.opType || '(none)'], ['device', info.deviceKind ? `${info.deviceId} (${info.deviceKind})` : info.deviceId],
      ['start', t(info.start)], ['end', t(info.end)], ['duration', t(info.duration)],
      ['inputs ready', t(ready)], ['waiting', `${t(Math.max(0, info.start - ready))} (start − inputs ready)`],
      ['critical path', P.critOp[v] ? 'yes: it determines the makespan' : 'no']);
    const line = ([u, b]) => `${name(u)} on ${deviceOf(u)}: ${bytes(b)}`;
    lists.push(['inputs', neighbours(P, v, 'in').map(line)], ['outputs', neighbours(P, v, 'out').map(line)]);
  } else if (info.kind === 'transfer') {
    const x = info.transfer;
    title = `transfer of ${info.producerId}`;
    rows.push(['link', `${info.srcId} → ${info.dstId}`], ['bytes', bytes(info.bytes)],
      ['ready', t(info.ready)], ['start', t(info.start)], ['end', t(info.end)], ['duration', t(info.duration)],
      ['waiting', `${t(info.queued)} (start − ready: queued for the link)`],
      ['critical path', P.critX[x] ? 'yes: it determines the makespan' : 'no']);
    const readers = neighbours(P, info.producer, 'out').filter(([u]) => P.opLane[u] >= 0 && P.lanes[P.opLane[u]].device === info.dst);
    lists.push(['read by', readers.map(([u, b]) => `${name(u)}: ${bytes(b)}`)]);
  } else {
    return;
  }
  htmlEl('h4', 'pc-tl-dtitle', title, el);
  const dl = htmlEl('dl', null, null, el);
  for (const [k, v] of rows) {
    htmlEl('dt', null, k, dl);
    htmlEl('dd', null, v, dl);
  }
  for (const [k, items] of lists) {
    htmlEl('dt', null, `${k} (${formatCount(items.length)})`, dl);
    const dd = htmlEl('dd', null, null, dl);
    if (items.length === 0) dd.textContent = 'none';
    const ul = htmlEl('ul', null, null, dd);
    for (const line of items.slice(0, DETAIL_LIST_MAX)) htmlEl('li', null, line, ul);
    if (items.length > DETAIL_LIST_MAX) htmlEl('li', null, `+${formatCount(items.length - DETAIL_LIST_MAX)} more`, ul);
  }
}

/** Critical path, search matches and the selection, over the drawn items (clipped already). */
function paintMarks(ctx, P, X, yOff, view, overlay) {
  const box = (li, i) => {
    const lane = P.lanes[li];
    const isDev = lane.kind === 'device';
    const y = lane.y + yOff + (isDev ? DEV_PAD : LINK_PAD);
    const h = isDev ? OPS_H : LINK_H;
    const x0 = X(lane.starts[i]);
    return [x0, y, Math.max(2, X(lane.ends[i]) - x0), h];
  };
  if (overlay.critical && P.critical.length) {
    // A bar over each step in view (fillRect: cheap to draw and to rasterize, merged where
    // steps share a pixel) and, when few enough are in view to read, a line from each step's
    // end to the next one's start (thousands of anti-aliased lines cost seconds to raster).
    ctx.fillStyle = INK.critical;
    let inView = 0;
    let lastX = -Infinity;
    let lastY = -Infinity;
    for (const st of P.critical) {
      const lane = P.lanes[st.li];
      if (lane.starts[st.i] > view.t1) break;
      if (lane.ends[st.i] < view.t0) continue;
      inView++;
      const b = box(st.li, st.i);
      const x = Math.round(b[0]);
      if (b[2] <= 2 && x === lastX && b[1] === lastY) continue;
      lastX = x;
      lastY = b[1];
      ctx.fillRect(x, b[1] - 3, Math.max(2, b[2]), 3);
    }
    if (inView <= CHAIN_MAX) {
      ctx.strokeStyle = INK.critical;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      let prev = null;
      for (const st of P.critical) {
        const lane = P.lanes[st.li];
        const b = box(st.li, st.i);
        const visible = lane.ends[st.i] >= view.t0 && lane.starts[st.i] <= view.t1;
        if (prev && (visible || prev.visible)) {
          ctx.moveTo(prev.b[0] + prev.b[2], prev.b[1] + prev.b[3] / 2);
          ctx.lineTo(b[0], b[1] + b[3] / 2);
          // An outline only round a step wide enough to show its own colour inside: on
          // narrow ones it would paint the lane solid (the bar above marks them).
          if (visible && b[2] >= OUTLINE_MIN) ctx.rect(Math.round(b[0]) - 1, b[1] - 1, b[2] + 2, b[3] + 2);
        }
        prev = { b, visible };
        if (lane.starts[st.i] > view.t1) break;
      }
      ctx.stroke();
    }
  }
  if (overlay.matches) {
    ctx.strokeStyle = INK.match;
    ctx.lineWidth = 2;
    ctx.beginPath();
    const m = overlay.matches;
    let lastX = -Infinity;
    for (let j = 0; j < m.length; j++) {
      const v = m[j];
      if (P.opStart[v] > view.t1) break;
      if (P.opEnd[v] < view.t0) continue;
      const b = box(P.opLane[v], P.opPos[v]);
      if (b[2] <= 2 && Math.round(b[0]) === lastX) continue;
      lastX = Math.round(b[0]);
      ctx.rect(lastX - 2, b[1] - 2, b[2] + 4, b[3] + 4);
    }
    ctx.stroke();
  }
  if (overlay.selected) {
    const b = box(P.lanes.indexOf(overlay.selected.lane), overlay.selected.index);
    ctx.lineWidth = 3;
    ctx.strokeStyle = INK.background;
    ctx.strokeRect(Math.round(b[0]) - 3, b[1] - 3, b[2] + 6, b[3] + 6);
    ctx.lineWidth = 2;
    ctx.strokeStyle = INK.highlight;
    ctx.strokeRect(Math.round(b[0]) - 3, b[1] - 3, b[2] + 6, b[3] + 6);
  }
}

/** Paints the visible part of the chart. Pure function of its arguments. */
function paint(ctx, P, view, W, H, scrollY, hover, overlay) {
  const L = P.labelW;
  const PW = Math.max(10, W - L - RIGHT);
  const span = view.t1 - view.t0;
  const k = PW / span;
  const X = (t) => L + (t - view.t0) * k;
  ctx.fillStyle = INK.background;
  ctx.fillRect(0, 0, W, H);
  ctx.textBaseline = 'middle';

  const ticks = ticksWithin(view.t0, view.t1, Math.max(2, Math.round(PW / 80)));
  const fmt = timeTickFormatter(Math.max(Math.abs(view.t0), Math.abs(view.t1)), ticks.step);
  const yOff = AXIS_H - scrollY;
  const visTop = AXIS_H;
  const visBottom = H;

  // Plot area, clipped.
  ctx.save();
  ctx.beginPath();
  ctx.rect(L, AXIS_H, PW, H - AXIS_H);
  ctx.clip();
  // Zebra lanes and grid.
  for (let li = 0; li < P.lanes.length; li++) {
    const lane = P.lanes[li];
    const ly = lane.y + yOff;
    if (ly > visBottom || ly + lane.h < visTop) continue;
    if (lane.kind === 'device' && lane.device % 2 === 1) {
      ctx.fillStyle = INK.zebra;
      ctx.fillRect(L, ly, PW, lane.h);
    }
  }
  ctx.fillStyle = INK.grid;
  for (const t of ticks.ticks) ctx.fillRect(Math.round(X(t)), AXIS_H, 1, H - AXIS_H);
  if (P.linkHeaderY !== null) {
    const hy = P.linkHeaderY + yOff;
    ctx.fillStyle = INK.band;
    ctx.fillRect(L, hy, PW, HEADER_H);
  }

  ctx.font = `11px ${FONT}`;
  const labels = [];
  for (let li = 0; li < P.lanes.length; li++) {
    const lane = P.lanes[li];
    const ly = lane.y + yOff;
    if (ly > visBottom || ly + lane.h < visTop) continue;
    const isDev = lane.kind === 'device';
    const by = isDev ? ly + DEV_PAD : ly + LINK_PAD;
    const bh = isDev ? OPS_H : LINK_H;
    const { starts, ends, items, maxEnd, n } = lane;
    let i = firstAtLeast(maxEnd, n, view.t0);
    let lastX = -Infinity;
    let color = '';
    if (!isDev) {
      color = INK.transfer;
      ctx.fillStyle = color;
    }
    for (; i < n; i++) {
      const s = starts[i];
      if (s > view.t1) break;
      let x0 = L + (s - view.t0) * k;
      const x1 = L + (ends[i] - view.t0) * k;
      if (x1 <= lastX) continue;
      if (x0 < lastX) x0 = lastX;
      let w = x1 - x0;
      if (w < 1) {
        x0 = Math.floor(x0);
        w = 1;
      } else if (w > 3) {
        w -= 1; // a hairline gap between neighbours
      }
      if (isDev) {
        const ti = P.opTypeIx[items[i]];
        const c = P.typeColors[ti] || '#999999';
        if (c !== color) {
          color = c;
          ctx.fillStyle = c;
        }
        if (w > 42) labels.push(x0, by, w, items[i], ti);
      }
      ctx.fillRect(x0, by, w, bh);
      lastX = x0 + Math.max(1, x1 - x0);
    }
    if (isDev) paintMemory(ctx, lane, ly + DEV_PAD + OPS_H + MEM_GAP, L, PW, view, k, P.tEnd);
  }
  // Labels inside wide ops.
  ctx.font = `11px ${FONT}`;
  for (let j = 0; j < labels.length; j += 5) {
    const x0 = labels[j];
    const by = labels[j + 1];
    const w = labels[j + 2];
    const v = labels[j + 3];
    const ti = labels[j + 4];
    const left = Math.max(x0, L) + 4;
    const right = Math.min(x0 + w, L + PW) - 4;
    const room = right - left;
    if (room < 24) continue;
    let text = P.name(v);
    const maxChars = Math.floor(room / 6);
    // Node ids are paths (scope/scope/op): keep the tail, which names the op.
    if (text.length > maxChars) text = `…${text.slice(text.length - Math.max(1, maxChars - 1))}`;
    ctx.fillStyle = P.typeText[ti] || '#1f2328';
    ctx.fillText(text, left, by + OPS_H / 2 + 0.5, room);
  }
  // Makespan and lower bound.
  const marks = [];
  if (P.makespan > 0) marks.push([P.makespan, INK.text, []]);
  if (P.lowerBound > 0) marks.push([P.lowerBound, INK.oom, [5, 4]]);
  for (const [t, c, dash] of marks) {
    const x = Math.round(X(t)) + 0.5;
    if (x < L || x > L + PW) continue;
    ctx.strokeStyle = c;
    ctx.lineWidth = 1.5;
    ctx.setLineDash(dash);
    ctx.beginPath();
    ctx.moveTo(x, AXIS_H);
    ctx.lineTo(x, H);
    ctx.stroke();
  }
  ctx.setLineDash([]);
  paintMarks(ctx, P, X, yOff, view, overlay);
  // Hovered item outline.
  if (hover && hover.lane) {
    const lane = hover.lane;
    const ly = lane.y + yOff;
    const isDev = lane.kind === 'device';
    const by = isDev ? ly + DEV_PAD : ly + LINK_PAD;
    const bh = isDev ? OPS_H : LINK_H;
    const x0 = X(lane.starts[hover.index]);
    const x1 = X(lane.ends[hover.index]);
    ctx.strokeStyle = INK.highlight;
    ctx.lineWidth = 2;
    ctx.strokeRect(Math.round(x0) - 1, by - 1, Math.max(2, x1 - x0) + 2, bh + 2);
  } else if (hover && hover.kind === 'memory') {
    const x = Math.round(X(hover.time)) + 0.5;
    const lane = P.lanes[hover.device];
    const ly = lane.y + yOff + DEV_PAD + OPS_H + MEM_GAP;
    ctx.strokeStyle = INK.highlight;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(x, ly);
    ctx.lineTo(x, ly + MEM_H);
    ctx.stroke();
  }
  ctx.restore();

  // Label column.
  ctx.fillStyle = INK.background;
  ctx.fillRect(0, AXIS_H, L, H - AXIS_H);
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, AXIS_H, L, H - AXIS_H);
  ctx.clip();
  for (let li = 0; li < P.lanes.length; li++) {
    const lane = P.lanes[li];
    const ly = lane.y + yOff;
    if (ly > visBottom || ly + lane.h < visTop) continue;
    if (lane.kind === 'device') {
      if (lane.device % 2 === 1) {
        ctx.fillStyle = INK.zebra;
        ctx.fillRect(0, ly, L, lane.h);
      }
      const dev = P.devices[lane.device] || {};
      ctx.fillStyle = dev.oom ? INK.oom : INK.text;
      ctx.font = `600 12px ${FONT}`;
      ctx.fillText(P.laneLabels[li], 8, ly + DEV_PAD + OPS_H / 2 + 0.5, L - 14);
      ctx.font = `10px ${FONT}`;
      ctx.fillStyle = dev.oom ? INK.oom : INK.faint;
      ctx.fillText(memLabel(lane.mem), 8, ly + DEV_PAD + OPS_H + MEM_GAP + MEM_H / 2 + 0.5, L - 14);
    } else {
      ctx.font = `11px ${FONT}`;
      ctx.fillStyle = INK.muted;
      ctx.fillText(P.laneLabels[li], 8, ly + LINK_PAD + LINK_H / 2 + 0.5, L - 14);
    }
  }
  if (P.linkHeaderY !== null) {
    const hy = P.linkHeaderY + yOff;
    ctx.fillStyle = INK.band;
    ctx.fillRect(0, hy, L, HEADER_H);
    ctx.fillStyle = INK.muted;
    ctx.font = `600 11px ${FONT}`;
    ctx.fillText('links (transfers)', 8, hy + HEADER_H / 2 + 0.5, L - 14);
  }
  ctx.restore();
  ctx.fillStyle = INK.grid;
  ctx.fillRect(L - 1, AXIS_H, 1, H - AXIS_H);

  // Time axis.
  ctx.fillStyle = INK.background;
  ctx.fillRect(0, 0, W, AXIS_H);
  ctx.fillStyle = INK.axis;
  ctx.fillRect(L, AXIS_H - 1, PW, 1);
  ctx.font = `11px ${FONT}`;
  ctx.textAlign = 'center';
  let lastRight = -Infinity;
  for (const t of ticks.ticks) {
    const x = Math.round(X(t)) + 0.5;
    ctx.fillStyle = INK.axis;
    ctx.fillRect(x - 0.5, AXIS_H - 5, 1, 5);
    const label = fmt(t);
    const w = ctx.measureText(label).width;
    let cx = x;
    if (cx - w / 2 < L) cx = L + w / 2;
    if (cx + w / 2 > W - 2) cx = W - 2 - w / 2;
    if (cx - w / 2 < lastRight + 6) continue;
    ctx.fillStyle = INK.muted;
    ctx.fillText(label, cx, AXIS_H - 14);
    lastRight = cx + w / 2;
  }
  ctx.textAlign = 'left';
  ctx.fillStyle = INK.muted;
  ctx.font = `600 11px ${FONT}`;
  ctx.fillText('time', 8, AXIS_H - 14);
  // Mark labels on the axis band (makespan, lower bound).
  for (const [t, c] of [[P.makespan, INK.text], [P.lowerBound, INK.oom]]) {
    if (!(t > 0)) continue;
    const x = X(t);
    if (x < L || x > L + PW) continue;
    ctx.fillStyle = c;
    ctx.fillRect(Math.round(x) - 2, AXIS_H - 5, 4, 5);
  }
}

/** Memory in use over time as a step area, one column of pixels at a time (max per column). */
function paintMemory(ctx, lane, top, L, PW, view, k, tEnd) {
  const m = lane.mem;
  const bottom = top + MEM_H;
  ctx.fillStyle = INK.band;
  ctx.fillRect(L, bottom - 0.5, PW, 0.5);
  if (m.n === 0 || !(m.scale > 0)) return;
  const cols = Math.ceil(PW);
  const colMax = new Float64Array(cols).fill(-1);
  let i = upperIndex(m.t, m.n, view.t0);
  if (i < 0) i = 0;
  for (; i < m.n; i++) {
    const ta = m.t[i];
    if (ta > view.t1) break;
    const tb = i + 1 < m.n ? m.t[i + 1] : Math.max(ta, tEnd); // the last value holds to the end of the run
    let ca = Math.floor((ta - view.t0) * k);
    let cb = Math.ceil((tb - view.t0) * k);
    if (ca < 0) ca = 0;
    if (cb > cols) cb = cols;
    if (cb <= ca) cb = ca + 1;
    const v = m.b[i];
    for (let c = ca; c < cb && c < cols; c++) if (v > colMax[c]) colMax[c] = v;
  }
  const Y = (b) => bottom - (b / m.scale) * MEM_H;
  ctx.beginPath();
  let started = false;
  let cur = -2;
  let lastC = -1;
  for (let c = 0; c < cols; c++) {
    const v = colMax[c];
    if (v < 0) continue;
    if (!started) {
      ctx.moveTo(L + c, bottom);
      ctx.lineTo(L + c, Y(v));
      started = true;
      cur = v;
    } else if (v !== cur) {
      ctx.lineTo(L + c, Y(cur));
      ctx.lineTo(L + c, Y(v));
      cur = v;
    }
    lastC = c;
  }
  if (!started) return;
  ctx.lineTo(L + lastC + 1, Y(cur));
  ctx.lineTo(L + lastC + 1, bottom);
  ctx.closePath();
  ctx.fillStyle = INK.memoryFill;
  ctx.fill();
  ctx.strokeStyle = INK.memory;
  ctx.lineWidth = 1;
  ctx.stroke();
  if (m.cap !== null && m.peak > m.cap) {
    // The part above capacity in red.
    const cy = Y(m.cap);
    ctx.save();
    ctx.beginPath();
    ctx.rect(L, top - 1, PW, cy - top + 1);
    ctx.clip();
    ctx.fillStyle = INK.oom;
    ctx.beginPath();
    // Re-trace the same area (cheap relative to the ops) for the clipped fill.
    let c2 = -2;
    let s2 = false;
    for (let c = 0; c < cols; c++) {
      const v = colMax[c];
      if (v < 0) continue;
      if (!s2) {
        ctx.moveTo(L + c, bottom);
        ctx.lineTo(L + c, Y(v));
        s2 = true;
        c2 = v;
      } else if (v !== c2) {
        ctx.lineTo(L + c, Y(c2));
        ctx.lineTo(L + c, Y(v));
        c2 = v;
      }
    }
    ctx.lineTo(L + lastC + 1, Y(c2));
    ctx.lineTo(L + lastC + 1, bottom);
    ctx.closePath();
    ctx.fill();
    ctx.restore();
  }
  if (m.cap !== null && m.cap <= m.scale) {
    const cy = Math.round(Y(m.cap)) + 0.5;
    ctx.strokeStyle = INK.oom;
    ctx.lineWidth = 1;
    ctx.setLineDash([3, 3]);
    ctx.beginPath();
    ctx.moveTo(L, cy);
    ctx.lineTo(L + PW, cy);
    ctx.stroke();
    ctx.setLineDash([]);
  }
}
