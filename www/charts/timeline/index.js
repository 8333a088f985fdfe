// Gantt chart of one run: a lane per device (its ops, and a memory-over-time strip under
// them) and a lane per busy link src -> dst (its transfers).
//   drawTimeline(container, timeline, {onHover, maxHeight, title})
//   prepareTimeline(timeline)   its layout ahead, in a task of its own (optional)
// Drawn on one <canvas> (20,000 ops are 20,000 fillRects at most, and far fewer once
// sub-pixel ops are merged), redrawn with requestAnimationFrame; hit-testing is a binary
// search in the hovered lane. Wheel zooms the time axis around the cursor, drag pans (and
// scrolls lanes vertically), double-click resets; keys + - arrows 0 do the same.
// This module builds the chart's DOM and holds its view, hover, selection and search; the
// rest is beside it: layout.js (lanes, hit-testing), paint.js (the canvas), interaction.js
// (input events), details.js (legend, tooltip, details panel).
// Not here: computing the schedule, or any text parsed as markup (all text is textContent
// or canvas fillText).

import {
  formatSeconds, formatWallSeconds, formatCount, htmlEl, tooltip, mount, showMessage, num, context2d,
} from '../svg.js';
import { findNames } from '../../timeline-data.js';
import { AXIS_H, RIGHT, MAX_EXPORT_H, prepare, hitTest as hitAt, describe, sameHover, publicInfo } from './layout.js';
import { paint } from './paint.js';
import { buildLegend, showDetails, showTip } from './details.js';
import { bindInteraction } from './interaction.js';


/** @type {WeakMap<Float64Array, any>} timelines laid out ahead (`prepareTimeline`), by their op starts */
const preparedAhead = new WeakMap();

/**
 * Lays out a timeline ahead of `drawTimeline` (the lanes, their interval arrays, the critical
 * path: linear passes over every op and transfer, tens of ms on a 48,000-op run), so that a
 * page can do it in a task of its own and draw in the next: two shorter main-thread tasks
 * instead of one long one. A copy of the timeline with the same arrays (`{...tl, x}`) uses it.
 * @param {import('../../timeline-data.js').TimelineData} timeline
 */
export function prepareTimeline(timeline) {
  if (timeline?.op_start && timeline.names) preparedAhead.set(timeline.op_start, prepare(timeline));
}

/** The layout `prepareTimeline` made of this timeline's arrays, once. @param {any} timeline */
function takePrepared(timeline) {
  const P = preparedAhead.get(timeline.op_start);
  if (!P || P.names !== timeline.names) return null;
  preparedAhead.delete(timeline.op_start);
  return { ...P, tl: timeline };
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
 * @param {import('../../timeline-data.js').TimelineData} timeline
 * @param {object} [options]
 */
export function drawTimeline(container, timeline, options = {}) {
  if (!timeline || !timeline.op_start || !timeline.names) {
    showMessage(container, 'No timeline.');
    return mount(container, () => {}, {});
  }
  const P = takePrepared(timeline) ?? prepare(timeline);
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
    return hitAt(P, view, plotW(), scroller.scrollTop, x, y);
  }

  function setHover(h, ev) {
    const changed = !sameHover(h, hover);
    hover = h;
    if (ev) showTip(tip, P, h, ev.clientX, ev.clientY);
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
    select(describe(P, lane, j));
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

  const resetView = () => {
    clampView(fullStart, fullEnd);
    schedule();
  };

  bindInteraction({
    canvas, scroller, search, nextBtn, critBox, prevStep, nextStep, resetBtn, view,
    cssH: () => cssH, plotL, plotW, hasQuery: () => matches !== null,
    clampView, zoomAt, panPx, schedule, hitTest, setHover, select, setQuery, nextMatch, stepCritical, resetView,
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
