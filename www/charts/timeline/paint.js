// The timeline's painting on its canvas: lanes (ops by op type, transfers, memory over
// time as a step area), the time axis, the lane labels, the makespan and lower bound, and
// the marks over the items (critical path, search matches, the selection, the hover).
// Pure functions of their arguments (the prepared timeline, the view, the marks).
// Not here: the layout (layout.js), input (interaction.js), or any DOM but the canvas.

import { INK, FONT, timeTickFormatter, ticksWithin } from '../svg.js';
import {
  AXIS_H, DEV_PAD, OPS_H, MEM_GAP, MEM_H, LINK_PAD, LINK_H, HEADER_H, RIGHT, firstAtLeast, upperIndex, memLabel,
} from './layout.js';

/** The critical path's chain lines are drawn when at most this many of its steps are in view. */
const CHAIN_MAX = 400;
/** A critical step is outlined when at least this many pixels wide. */
const OUTLINE_MIN = 8;

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
    // Each lane's last bar's left pixel: the path alternates between op and link lanes, so
    // a bar two pixels wide at a lane's last x (inside that bar: the same opaque colour) is
    // skipped per lane, not only after a bar of the same lane (a 48,000-op run's path drew
    // thousands of bars over each other in the first drawing).
    const lastX = new Float64Array(P.lanes.length).fill(-Infinity);
    // `box` inlined, without its array per step: a 48,000-op run's path has thousands of
    // steps, and this loop ran cold in the first drawing's long task (docs/bench.md, 24m).
    for (const st of P.critical) {
      const lane = P.lanes[st.li];
      const s = lane.starts[st.i];
      if (s > view.t1) break;
      const e = lane.ends[st.i];
      if (e < view.t0) continue;
      inView++;
      const y = lane.y + yOff + (lane.kind === 'device' ? DEV_PAD : LINK_PAD);
      const x0 = X(s);
      const w = Math.max(2, X(e) - x0);
      const x = Math.round(x0);
      if (w <= 2 && x === lastX[st.li]) continue;
      lastX[st.li] = x;
      ctx.fillRect(x, y - 3, w, 3);
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

/**
 * The first index in [lo, n) whose running maximum of ends (`maxEnd`, non-decreasing) lies
 * right of pixel `px` by the painter's own mapping (L + (t - t0) * k > px, monotone in t), or
 * n: every item before it ends at or left of px.
 * @param {Float64Array} maxEnd @param {number} lo @param {number} n @param {number} L
 * @param {number} t0 @param {number} k @param {number} px
 */
export function firstPast(maxEnd, lo, n, L, t0, k, px) {
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (L + (maxEnd[mid] - t0) * k > px) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Paints the visible part of the chart. Pure function of its arguments. */
export function paint(ctx, P, view, W, H, scrollY, hover, overlay) {
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
      if (x1 <= lastX) {
        // Covered by what is drawn: so is every item up to the first whose running maximum
        // of ends maps past lastX. Jump there (the loop's i++ lands on it): the drawing is
        // the same, and a lane costs its drawn rectangles (a few per pixel column) times
        // log n instead of a pass over all its n items (48,000 ops at the full view).
        i = firstPast(maxEnd, i + 1, n, L, view.t0, k, lastX) - 1;
        continue;
      }
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
