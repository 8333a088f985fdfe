// Shared helpers for the chart modules: SVG element creation, nice axis ticks, unit
// formatting, palettes, a tooltip, text measuring and per-container lifecycle (resize
// observation, replacing a previous chart). No dependencies; nothing here knows any chart.
//
// Safety: every string that comes from data is set with textContent or setAttribute, never
// parsed as markup.

import { formatSig } from '../units.js';

export const SVG_NS = 'http://www.w3.org/2000/svg';

export const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";

/**
 * Ink colours shared by all charts: the page's `--ink-*` CSS variables (light and dark,
 * www/style.css), read by `refreshInk` when a chart mounts in a colour scheme not read yet;
 * these values are the fallback where no stylesheet sets them (charts/demo.html).
 */
export const INK = {
  text: '#1f2328',
  muted: '#57606a',
  faint: '#6e7781',
  axis: '#8c959f',
  grid: '#e6e8eb',
  background: '#ffffff',
  bound: '#1f2328',
  oom: '#d1242f',
  memory: '#4e79a7',
  memoryFill: '#a9c4e0',
  capacity: '#1f2328',
  transfer: '#7f8c9b',
  highlight: '#111111',
  zebra: '#f6f8fa',
  band: '#eef1f4',
  critical: '#a8009a',
  match: '#e36209',
  ghost: '#8c959f',
  best: '#1e7b34',
  worst: '#b3261e',
};
const INK_DEFAULT = { ...INK };

/** The colour scheme INK was last read for (null: never read). */
let inkScheme = null;

/**
 * Reads the `--ink-*` CSS variables of the document into INK (`memoryFill` is
 * `--ink-memory-fill`), once per colour scheme: getComputedStyle forces a style recalculation,
 * which before every chart cost a switch of the timeline's pair 150 ms on a 48k-op graph.
 */
export function refreshInk() {
  if (typeof document === 'undefined' || typeof getComputedStyle === 'undefined') return;
  const scheme = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  if (scheme === inkScheme) return;
  inkScheme = scheme;
  const cs = getComputedStyle(document.documentElement);
  for (const key of Object.keys(INK_DEFAULT)) {
    const v = cs.getPropertyValue(`--ink-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).trim();
    INK[key] = v || INK_DEFAULT[key];
  }
}

/** Categorical palette for series (schedulers): Tableau 10, red moved last (red means OOM). */
export const SERIES = [
  '#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2',
  '#edc948', '#9c755f', '#ff9da7', '#bab0ac', '#e15759',
];

/** Palette for op types (Tableau 20 without its reds and greys). */
export const OP_PALETTE = [
  '#4e79a7', '#a0cbe8', '#f28e2b', '#ffbe7d', '#59a14f', '#8cd17d', '#b6992d', '#f1ce63',
  '#499894', '#86bcb6', '#d37295', '#fabfd2', '#b07aa1', '#d4a6c8', '#9d7660', '#d7b5a6',
];

export function seriesColor(i) {
  return SERIES[((i % SERIES.length) + SERIES.length) % SERIES.length];
}

/** FNV-1a 32-bit hash of a string: stable across runs and browsers. */
export function hashString(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Stable colour of an op type name. */
export function opTypeColor(name) {
  return OP_PALETTE[hashString(String(name ?? '')) % OP_PALETTE.length];
}

// ---------------------------------------------------------------------------------------
// Elements

/** Creates an SVG element with attributes (null/undefined values are skipped). */
export function svgEl(tag, attrs, parent) {
  const el = document.createElementNS(SVG_NS, tag);
  if (attrs) {
    for (const k in attrs) {
      const v = attrs[k];
      if (v !== null && v !== undefined) el.setAttribute(k, String(v));
    }
  }
  if (parent) parent.appendChild(el);
  return el;
}

/** An SVG <text> whose content is set with textContent. */
export function svgText(parent, x, y, str, attrs) {
  const t = svgEl('text', { x, y, ...attrs }, parent);
  t.textContent = String(str);
  return t;
}

/** Creates an HTML element with a class and optional text (set with textContent). */
export function htmlEl(tag, className, text, parent) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined && text !== null) el.textContent = String(text);
  if (parent) parent.appendChild(el);
  return el;
}

let uidCounter = 0;
/** A document-unique id prefix (for <pattern>/<clipPath> ids). */
export function uid(prefix) {
  uidCounter += 1;
  return `${prefix}-${uidCounter}`;
}

/** An <svg> root with a white background, sized to width x height. */
export function createSvgRoot(width, height, chart) {
  const svg = svgEl('svg', {
    xmlns: SVG_NS,
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    class: `pc-chart pc-chart-${chart}`,
    'data-chart': chart,
    'font-family': FONT,
    'font-size': 12,
    fill: INK.text,
    role: 'img',
  });
  svg.style.display = 'block';
  svg.style.maxWidth = '100%';
  svgEl('rect', { x: 0, y: 0, width, height, fill: INK.background, class: 'pc-background' }, svg);
  return svg;
}

// ---------------------------------------------------------------------------------------
// Ticks and formatting

function cleanFloat(v) {
  return Number.parseFloat(v.toPrecision(12));
}

/**
 * Nice tick values covering [min, max] with about `count` intervals.
 * Returns { ticks, step, min, max } where min/max are the domain widened to whole steps.
 * Steps are 1, 2, 2.5 or 5 times a power of ten.
 */
export function niceTicks(min, max, count = 5) {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return { ticks: [0, 1], step: 1, min: 0, max: 1 };
  if (min > max) [min, max] = [max, min];
  if (min === max) {
    if (min === 0) {
      max = 1;
    } else {
      const pad = Math.abs(min) * 0.1;
      min -= pad;
      max += pad;
    }
  }
  const raw = (max - min) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  let mult;
  if (norm <= 1) mult = 1;
  else if (norm <= 2) mult = 2;
  else if (norm <= 2.5) mult = 2.5;
  else if (norm <= 5) mult = 5;
  else mult = 10;
  const step = cleanFloat(mult * mag);
  const lo = Math.floor(cleanFloat(min / step));
  const hi = Math.ceil(cleanFloat(max / step));
  const ticks = [];
  for (let i = lo; i <= hi && ticks.length < 1000; i++) ticks.push(cleanFloat(i * step));
  return { ticks, step, min: cleanFloat(lo * step), max: cleanFloat(hi * step) };
}

/** Ticks strictly inside [min, max] (for axes that must not be widened, e.g. a zoomed time axis). */
export function ticksWithin(min, max, count = 5) {
  const t = niceTicks(min, max, count);
  const eps = t.step * 1e-9;
  return { ...t, ticks: t.ticks.filter((v) => v >= min - eps && v <= max + eps), min, max };
}

// Units: one formatter for the whole page (www/units.js), re-exported for the charts.
export {
  formatSeconds, formatWallSeconds, timeTickFormatter, formatBytes, byteTickFormatter, formatSig, formatCount, formatShare,
  decimalsFor,
} from '../units.js';

/**
 * One tab stop for a chart's items: the selected one (or the first) has tabindex 0, the
 * arrow keys (and Home, End) move the focus between them.
 * @param {Element} root @param {string} selector @param {string | null} selected
 */
export function rovingFocus(root, selector, selected) {
  const items = [...root.querySelectorAll(selector)];
  if (!items.length) return;
  const stop = (selected && root.querySelector(selected)) || items[0];
  for (const it of items) it.setAttribute('tabindex', it === stop ? '0' : '-1');
  root.addEventListener('keydown', (/** @type {any} */ ev) => {
    const i = items.indexOf(/** @type {Element} */ (ev.target));
    if (i < 0) return;
    const to = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: items.length - 1 }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    const next = items[Math.max(0, Math.min(items.length - 1, to))];
    for (const it of items) it.setAttribute('tabindex', '-1');
    next.setAttribute('tabindex', '0');
    /** @type {any} */ (next).focus();
  });
}

// ---------------------------------------------------------------------------------------
// Text measurement (canvas based, works before layout and for hidden containers)

/**
 * The 2D context of a canvas; throws when the browser gives none.
 * @param {HTMLCanvasElement} canvas
 */
export function context2d(canvas) {
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('this browser gives no 2D canvas');
  return ctx;
}

/** @type {CanvasRenderingContext2D | null} */
let measureCtx = null;
/** @param {string} str @param {number} [size] @param {string | number} [weight] */
export function textWidth(str, size = 12, weight = 'normal') {
  if (!measureCtx) measureCtx = context2d(document.createElement('canvas'));
  measureCtx.font = `${weight} ${size}px ${FONT}`;
  return measureCtx.measureText(String(str)).width;
}

/**
 * `text` in lines of at most `max` pixels, broken between words (a word longer than a line
 * is ellipsized).
 * @param {string} text @param {number} max @param {number} size @param {number} weight @returns {string[]}
 */
export function wrapWords(text, max, size, weight) {
  const lines = [];
  let line = '';
  for (const w of text.split(' ')) {
    const next = line ? `${line} ${w}` : w;
    if (line && textWidth(next, size, weight) > max) {
      lines.push(line);
      line = w;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines.map((l) => ellipsize(l, max, size, weight));
}

/** Shortens str with an ellipsis to fit maxWidth pixels. */
/** @param {string} str @param {number} maxWidth @param {number} [size] @param {string | number} [weight] */
export function ellipsize(str, maxWidth, size = 12, weight = 'normal') {
  str = String(str);
  if (textWidth(str, size, weight) <= maxWidth) return str;
  let lo = 0;
  let hi = str.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (textWidth(`${str.slice(0, mid)}…`, size, weight) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? '…' : `${str.slice(0, lo)}…`;
}

// ---------------------------------------------------------------------------------------
// Styles (constant CSS, injected once) and the tooltip

const STYLE_ID = 'pc-chart-styles';
const CSS = `
.pc-tooltip{position:fixed;z-index:1000;pointer-events:none;max-width:360px;padding:6px 8px;
  background:rgba(31,35,40,.94);color:#fff;border-radius:4px;font:12px/1.4 ${FONT};
  box-shadow:0 2px 8px rgba(0,0,0,.25);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.pc-tooltip[hidden]{display:none}
.pc-tooltip .pc-tt-title{font-weight:600;margin-bottom:2px;overflow:hidden;text-overflow:ellipsis}
.pc-tooltip .pc-tt-row{display:flex;gap:10px;justify-content:space-between}
.pc-tooltip .pc-tt-key{color:#b8c0c8}
.pc-tooltip .pc-tt-warn{color:#ff8182;white-space:normal}
.pc-chart [data-clickable]{cursor:pointer}
.pc-chart [data-clickable]:focus{outline:none}
.pc-chart [data-clickable]:focus-visible .pc-bar-rect,.pc-chart [data-clickable]:focus-visible{stroke:#0969da;stroke-width:2}
.pc-timeline{font:12px ${FONT};color:var(--ink-text,#1f2328);user-select:none}
.pc-timeline .pc-tl-scroller{position:relative;overflow-y:auto;overflow-x:hidden;border:1px solid var(--line,#d0d7de);border-radius:4px}
.pc-timeline canvas{display:block;position:sticky;top:0;touch-action:none;cursor:crosshair}
.pc-timeline canvas.pc-dragging{cursor:grabbing}
.pc-timeline .pc-tl-bar{display:flex;flex-wrap:wrap;gap:4px 14px;align-items:center;margin:4px 0;color:var(--ink-muted,#57606a)}
.pc-timeline .pc-tl-legend{display:flex;flex-wrap:wrap;gap:2px 12px;margin-top:4px;color:var(--ink-muted,#57606a)}
.pc-timeline .pc-tl-swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}
.pc-timeline .pc-tl-hint{margin-left:auto;color:var(--ink-muted,#57606a)}
.pc-chart-message{font:13px ${FONT};color:var(--ink-muted,#57606a);padding:12px}
`;

export function ensureStyles() {
  if (document.getElementById(STYLE_ID)) return;
  const style = document.createElement('style');
  style.id = STYLE_ID;
  style.textContent = CSS;
  document.head.appendChild(style);
}

let sharedTooltip = null;

/**
 * The one tooltip element (fixed position, on document.body).
 * show(clientX, clientY, title, rows, warning) where rows is [[key, value], ...].
 */
export function tooltip() {
  ensureStyles();
  if (!sharedTooltip || !sharedTooltip.isConnected) {
    sharedTooltip = htmlEl('div', 'pc-tooltip', null, document.body);
    sharedTooltip.hidden = true;
    sharedTooltip.setAttribute('role', 'tooltip');
  }
  const el = sharedTooltip;
  return {
    el,
    show(clientX, clientY, title, rows, warning) {
      el.replaceChildren();
      if (title) htmlEl('div', 'pc-tt-title', title, el);
      for (const [k, v] of rows || []) {
        const row = htmlEl('div', 'pc-tt-row', null, el);
        htmlEl('span', 'pc-tt-key', k, row);
        htmlEl('span', 'pc-tt-val', v, row);
      }
      if (warning) htmlEl('div', 'pc-tt-warn', warning, el);
      el.hidden = false;
      const w = el.offsetWidth;
      const h = el.offsetHeight;
      const vw = window.innerWidth;
      const vh = window.innerHeight;
      let x = clientX + 14;
      let y = clientY + 14;
      if (x + w > vw - 4) x = Math.max(4, clientX - w - 14);
      if (y + h > vh - 4) y = Math.max(4, clientY - h - 14);
      el.style.left = `${x}px`;
      el.style.top = `${y}px`;
    },
    hide() {
      el.hidden = true;
    },
  };
}

// ---------------------------------------------------------------------------------------
// Container lifecycle

const mounted = new WeakMap();

/** @type {Map<Element, number> | null} containers' widths read ahead (primeWidths), until the task's script ends */
let primed = null;

/**
 * Reads the widths of the containers about to be drawn, together (one layout of the page),
 * for `containerWidth` to use until the current script ends: drawing one chart writes the
 * DOM, so the next chart's read would force another layout. A container's width does not
 * depend on its chart (a change, e.g. a scroll bar, is redrawn by the ResizeObserver).
 * With `keep`, they stay until the returned function is called (charts drawn one per task).
 * @param {(Element | null)[]} containers @param {boolean} [keep]
 * @returns {() => void} forgets these widths (nothing when newer ones were read since)
 */
export function primeWidths(containers, keep = false) {
  const mine = new Map();
  for (const c of containers) if (c) mine.set(c, Math.floor(c.clientWidth));
  primed = mine;
  const release = () => { if (primed === mine) primed = null; };
  if (!keep) queueMicrotask(release);
  return release;
}

/** Width to draw at: the container's, or a fallback while it is hidden (0 wide). */
export function containerWidth(container, fallback = 640) {
  const w = primed?.get(container) ?? Math.floor(container.clientWidth);
  return w > 0 ? w : fallback;
}

/**
 * Mounts a chart in `container`: destroys whatever chart was there, calls render(width)
 * now and again whenever the container's width changes. render returns nothing; it
 * replaces the container's children itself. Returns a controller { redraw, destroy }.
 * `extra` is merged into the controller.
 */
export function mount(container, render, extra = {}) {
  ensureStyles();
  refreshInk();
  const prev = mounted.get(container);
  if (prev) prev.destroy();
  let lastWidth = -1;
  let destroyed = false;
  const draw = (force) => {
    if (destroyed) return;
    const w = containerWidth(container);
    if (!force && w === lastWidth) return;
    lastWidth = w;
    render(w);
  };
  let ro = null;
  if (typeof ResizeObserver !== 'undefined') {
    let pending = false;
    ro = new ResizeObserver(() => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        draw(false);
      });
    });
    ro.observe(container);
  }
  const controller = {
    ...extra,
    redraw() {
      draw(true);
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      if (ro) ro.disconnect();
      if (extra.onDestroy) extra.onDestroy();
      if (mounted.get(container) === controller) mounted.delete(container);
    },
  };
  mounted.set(container, controller);
  draw(true);
  return controller;
}

/** Replaces the container's content with a short message (textContent). */
export function showMessage(container, message) {
  const div = htmlEl('div', 'pc-chart-message', message);
  container.replaceChildren(div);
  return div;
}

/** Distinct values of key in order of first appearance. */
export function distinct(rows, key) {
  const seen = new Set();
  const out = [];
  for (const r of rows) {
    const v = r[key];
    if (!seen.has(v)) {
      seen.add(v);
      out.push(v);
    }
  }
  return out;
}

/** Whether a comparison row has no numbers at all (the placer failed on every seed). */
export function isInfeasible(row) {
  return Boolean(row.error) && !(Array.isArray(row.makespans) && row.makespans.length > 0);
}

/**
 * A what-if's change against its baseline, in the value's unit: `+1.2 ms (+3.4%) against the
 * baseline`. @param {number} v @param {number} before @param {(x: number) => string} fmt
 */
export function changeText(v, before, fmt) {
  const d = v - before;
  const pct = before > 0 ? ` (${d >= 0 ? '+' : '−'}${formatSig(Math.abs(d / before) * 100, 3)}%)` : '';
  return `${d >= 0 ? '+' : '−'}${fmt(Math.abs(d))}${pct} against the baseline`;
}

/**
 * A value before the what-if: a dashed outline (a bar's ghost, or a legend swatch with
 * `cls` null), drawn over the bars and never hit by the pointer.
 * @param {Element} parent @param {number} x @param {number} y @param {number} width
 * @param {number} height @param {string | null} [cls]
 */
export function ghostRect(parent, x, y, width, height, cls = 'pc-ghost') {
  return svgEl('rect', {
    class: cls, x, y, width, height, fill: 'none', stroke: INK.ghost, 'stroke-width': 1.5,
    'stroke-dasharray': '3 2', 'pointer-events': 'none',
  }, parent);
}

/** A finite number or 0. */
export function num(x) {
  return typeof x === 'number' && Number.isFinite(x) ? x : 0;
}
