// The timeline's layout: a run's timeline (typed arrays, timeline-data.js) prepared for
// drawing (a lane per device and per busy link, each lane's items in start order with
// interval-query arrays, the critical path's steps, label widths), the sizes of a lane's
// parts, and which item is at a point (hit-testing: a binary search in the hovered lane).
// Not here: painting (paint.js), input events (interaction.js), or any DOM.

import { formatBytes, opTypeColor, textWidth, num } from '../svg.js';
import { nodeName, laneArrays } from '../../timeline-data.js';

/** @typedef {ReturnType<typeof prepare>} Prepared the prepared timeline (`P`) */

export const AXIS_H = 28;
export const DEV_PAD = 4;
export const OPS_H = 18;
export const MEM_GAP = 3;
export const MEM_H = 14;
export const LINK_PAD = 2;
export const LINK_H = 11;
export const HEADER_H = 20;
export const RIGHT = 12;
export const MAX_EXPORT_H = 16000;

/** Black or white text, whichever reads better on `hex`. */
function textOn(hex) {
  const n = Number.parseInt(hex.slice(1), 16);
  const r = (n >> 16) & 255;
  const g = (n >> 8) & 255;
  const b = n & 255;
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#1f2328' : '#ffffff';
}

/** First index i in [0, n) with arr[i] >= v (n if none). arr ascending. */
export function firstAtLeast(arr, n, v) {
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
export function upperIndex(arr, n, v) {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** @param {import('../../timeline-data.js').TimelineData} tl */
export function prepare(tl) {
  const t0 = performance.now();
  const devices = tl.devices;
  const D = devices.length;
  const names = /** @type {import('../../timeline-data.js').TimelineNames} */ (tl.names);
  const opTypes = tl.op_types;
  const opTypeIx = tl.op_type;
  const opStart = tl.op_start;
  const opEnd = tl.op_end;
  const N = opStart.length;
  const X = tl.tr_start.length;

  const typeColors = opTypes.map((name) => opTypeColor(name));
  const typeText = typeColors.map(textOn);
  // The per-op passes (type statistics, lanes' interval arrays, each item's lane and
  // position, memory curves) come from the worker (timeline-data.js laneArrays); a timeline
  // made elsewhere (tests, an older worker) gets them here.
  const la = tl.lanes ?? laneArrays(tl);
  const { typeTime, typeCount, opLane, opPos, xLane, xPos } = la;
  let tEnd = Math.max(num(tl.makespan), la.opEndMax);

  const lanes = [];
  let y = 0;
  // A lane per device, with or without ops.
  for (let d = 0; d < D; d++) {
    const a = la.devRange[2 * d];
    const b = la.devRange[2 * d + 1];
    const lane = {
      kind: 'device', n: b - a, starts: la.opStarts.subarray(a, b), ends: la.opEnds.subarray(a, b),
      maxEnd: la.opMaxEnd.subarray(a, b), items: tl.op_order.subarray(a, b),
    };
    lane.device = d;
    lane.y = y;
    lane.h = DEV_PAD + OPS_H + MEM_GAP + MEM_H + DEV_PAD;
    const dev = devices[d] || {};
    const mt = la.memT[d] ?? new Float64Array(0);
    const peak = Math.max(num(dev.peak_memory), la.memMax[d] ?? -Infinity);
    const cap = typeof dev.memory === 'number' && Number.isFinite(dev.memory) ? dev.memory : null;
    // The strip is scaled to the device's own peak (its shape over time is the point; the
    // label gives peak / capacity). The capacity line shows only when the peak exceeds it.
    lane.mem = { n: mt.length, t: mt, b: la.memB[d] ?? new Float64Array(0), peak, cap, scale: peak };
    lanes.push(lane);
    y += lane.h;
  }
  // Links with at least one transfer, ordered by (src, dst).
  tEnd = Math.max(tEnd, la.trEndMax);
  let linkHeaderY = null;
  if (la.links.length > 0) {
    linkHeaderY = y;
    y += HEADER_H;
  }
  for (let r = 0; r < la.links.length; r += 3) {
    const [key, a, b] = [la.links[r], la.links[r + 1], la.links[r + 2]];
    const lane = {
      kind: 'link', n: b - a, starts: la.trStarts.subarray(a, b), ends: la.trEnds.subarray(a, b),
      maxEnd: la.trMaxEnd.subarray(a, b), items: tl.tr_order.subarray(a, b),
    };
    lane.src = Math.floor(key / D);
    lane.dst = key % D;
    lane.y = y;
    lane.h = LINK_PAD + LINK_H + LINK_PAD;
    lanes.push(lane);
    y += lane.h;
  }
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

/** A device lane's memory label: its peak, and its capacity when it has one. */
export function memLabel(mem) {
  return mem.cap === null ? `peak ${formatBytes(mem.peak)}` : `peak ${formatBytes(mem.peak)} / ${formatBytes(mem.cap)}`;
}

/**
 * The item at (x, y) in the canvas (CSS px): an op or transfer (with its lane and index in
 * it), a device's memory at that time, or null. `plotW`: the plot's width; `scrollTop`: the
 * lanes' vertical scroll.
 * @param {Prepared} P @param {{t0: number, t1: number}} view @param {number} plotW
 * @param {number} scrollTop @param {number} x @param {number} y
 */
export function hitTest(P, view, plotW, scrollTop, x, y) {
  const plotL = P.labelW;
  if (y < AXIS_H || x < plotL || x > plotL + plotW) return null;
  const cy = y - AXIS_H + scrollTop;
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
  const t = view.t0 + ((x - plotL) / plotW) * (view.t1 - view.t0);
  const k = plotW / (view.t1 - view.t0);
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
  return describe(P, lane, best);
}

/** Item `j` of `lane`: an op's or a transfer's facts, with its lane and index. @param {Prepared} P */
export function describe(P, lane, j) {
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

/** Whether two hits are the same item (or the same memory value). */
export function sameHover(a, b) {
  if (!a || !b) return a === b;
  if (a.kind !== b.kind) return false;
  if (a.kind === 'memory') return a.device === b.device && a.bytes === b.bytes;
  return a.lane === b.lane && a.index === b.index;
}

/** A hit as callers see it (onHover, onSelect, hitTest): without its lane and index. */
export function publicInfo(h) {
  if (!h) return null;
  const out = { ...h };
  delete out.lane;
  delete out.index;
  return out;
}
