// The results: the answer (the fastest pairs, the link orders' effect), the sortable table
// (keyboard: arrows, Home, End, Enter), the pair menus' options, and the exports (JSON,
// CSV, a Markdown table, the share link). A chosen row is shown through the context's
// callback (ctx.on.choosePair: running is above this module).
// Not here: running (runner.js), the charts (chart-panel.js), or any number the engine
// computes (units.js formats them).

import { whatIfActive } from './state.js';
import {
  setAbstractUnits, formatSeconds, formatWallSeconds, formatBytes, formatRatio, formatSig,
  isBest, abstractUnits, formatRate, formatShare, formatCount,
} from './units.js';
import { $, show, notice, download } from './dom.js';
import { writeHash, syncUrl } from './link.js';
import { drawChartsAfterFrame } from './chart-panel.js';
import { clearStale } from './controls.js';
import { pairKey, sameRow, manyOrders, rowLabel, bestMakespan, findPair, chosenPair, unitsOf } from './pairs.js';

/**
 * @typedef {import('./context.js').Context} Context
 * @typedef {import('./types.js').Comparison} Comparison
 */

/** Says, where the results would be, that there are none yet and why. @param {Context} ctx @param {string} text */
export function emptyResults(ctx, text) {
  if (ctx.current) return;
  $('results-empty').textContent = text;
}

/** The table's rows: each result and its derived columns (the what-if's change). @param {Context} ctx @param {Comparison} c */
function rowsOf(ctx, c) {
  const { state, baseline } = ctx;
  const base = new Map((baseline?.comparison.results || []).map((r) => [pairKey(r.placer, r.scheduler, r.link_order), r]));
  const delta = whatIfActive(state) && baseline;
  return c.results.map((r) => {
    const b = base.get(pairKey(r.placer, r.scheduler, r.link_order));
    return {
      ...r,
      peak: r.devices.reduce((m, d) => Math.max(m, d.peak_memory), 0),
      p50: r.iteration_time?.p50 ?? null,
      p95: r.iteration_time?.p95 ?? null,
      plan_status: r.plan?.status ?? '',
      efficiency: r.ordering?.efficiency ?? null,
      straggler: r.ordering?.straggler.mean ?? null,
      delta: delta && b && !b.error && !r.error && b.makespan > 0 ? (r.makespan / b.makespan - 1) * 100 : null,
    };
  });
}

/**
 * Draws the current comparison: caption, bounds, answer, table, pair menus; the charts after
 * the next frame (drawChartsAfterFrame). @param {Context} ctx
 */
export function renderResults(ctx) {
  const { state, current } = ctx;
  if (!current) return;
  const c = current.comparison;
  setAbstractUnits(unitsOf(ctx, c));
  $('results-empty').hidden = true;
  $('results-body').hidden = false;
  const g = c.graph;
  $('results-caption').textContent = `${g.name}: ${g.nodes} ops, ${c.results.length} pairs × ${c.scenario.seeds} seed(s)`
    + (whatIfActive(state) ? ', what-if' : '') + (abstractUnits() ? ', abstract units' : '');
  $('bounds').textContent = `Lower bounds (mean over seeds): critical path ${formatSeconds(c.critical_path_bound)}, `
    + `work ${formatSeconds(c.work_bound)}. Compared in ${formatWallSeconds(current.ms / 1000)} in this browser.`;
  const answer = $('answer');
  answer.replaceChildren(...answerOf(ctx, c));
  clearStale();
  // Why some pairs are absent (e.g. `given` runs only with placers that plan), said once.
  $('results-notes').textContent = (c.notes ?? []).join(' ');
  $('results-notes').hidden = !c.notes?.length;
  document.body.classList.toggle('what-if', whatIfActive(state));
  const cols = columnsOf(c);
  document.body.classList.toggle('has-orders', cols.orders);
  document.body.classList.toggle('has-iterations', cols.iterations);
  document.body.classList.toggle('has-ordering', cols.ordering);
  document.body.classList.toggle('has-plans', cols.plans);
  answer.append(...orderAnswer(c));
  renderTable(ctx);
  renderPairSelect(ctx);
  drawChartsAfterFrame(ctx);
}

/** A difference between two makespans as a share of the smaller, in words: "24%", "0.16%". @param {number} a @param {number} b (b >= a) */
function howMuch(a, b) {
  const p = (b / a - 1) * 100;
  return `${p >= 10 ? p.toFixed(0) : p >= 1 ? p.toFixed(1) : p >= 0.01 ? p.toFixed(2) : '<0.01'}%`;
}

/**
 * A pair's worst device for memory: the one furthest past its capacity (null: none is past).
 * @param {import('./types.js').PairResult} r
 */
function worstOom(r) {
  let worst = null;
  for (const d of r.devices) {
    if (d.memory == null || !(d.peak_memory > d.memory)) continue;
    if (!worst || d.peak_memory - d.memory > worst.peak_memory - /** @type {number} */ (worst.memory)) worst = d;
  }
  return worst;
}

/** How far a pair's device went past its memory, in words. @param {import('./types.js').DeviceResult} d */
function oomWords(d) {
  const cap = /** @type {number} */ (d.memory);
  return `${d.id} needs ${formatBytes(d.peak_memory)} of its ${formatBytes(cap)}, ${formatBytes(d.peak_memory - cap)} (${howMuch(cap, d.peak_memory)}) too much`;
}

/**
 * The answer: the fastest pair (or the tied ones) among those within memory, how much
 * faster it is than the next, its gap to the bound (the table's figure), whether pairs ran
 * out of memory, and what a planning placer's search did.
 * @param {Context} ctx @param {Comparison} c @returns {(string | Node)[]}
 */
export function answerOf(ctx, c) {
  const ran = c.results.filter((r) => !r.error);
  if (!ran.length) return ['No pair ran: every pair failed (see the table).'];
  const fits = ran.filter((r) => !r.oom);
  const pool = fits.length ? fits : ran;
  const best = bestMakespan(pool);
  const winners = pool.filter((r) => isBest(r.makespan, best));
  const first = winners[0];
  const b = document.createElement('b');
  b.textContent = winners.map((r) => rowLabel(ctx, r)).slice(0, 4).join(', ')
    + (winners.length > 4 ? ` and ${winners.length - 4} more` : '');
  /** @type {(string | Node)[]} */
  const out = [];
  if (!fits.length) {
    const d = worstOom(first);
    out.push(`Every pair runs out of memory${d ? ` (the fastest: ${oomWords(d)})` : ''}, so none of these makespans could run as simulated. `);
  }
  out.push(winners.length > 1 ? `Fastest (${winners.length} pairs tied): ` : 'Fastest: ', b,
    `, makespan ${formatSeconds(best)}${first.gap > 0 ? `, ${formatRatio(first.gap)} the lower bound` : ''}`);
  const next = pool.filter((r) => !isBest(r.makespan, best)).sort((x, y) => x.makespan - y.makespan)[0];
  out.push(next
    ? `; the next pair, ${rowLabel(ctx, next)}, takes ${howMuch(best, next.makespan)} longer (${formatSeconds(next.makespan)}).`
    : pool.length > 1 ? '; every pair that ran is tied.' : '.');
  if (fits.length && fits.length < ran.length) {
    const faster = ran.filter((r) => r.oom && r.makespan < best).length;
    out.push(` ${ran.length - fits.length} pair(s) run out of memory${faster ? ` (${faster} of them would be faster)` : ''} and are left out of this answer.`);
  }
  // A searching placer (pesto) that never beat where it started says so.
  const searched = ran.filter((r) => (r.plan?.history?.length ?? 0) > 0 && r.plan?.bound_scope !== 'none')
    .sort((x, y) => x.makespan - y.makespan)[0];
  const h = searched?.plan?.history;
  if (searched && h && h.every((p) => p.objective >= h[0].objective)) {
    const rep = searched.plan_reports?.[0];
    out.push(` ${rowLabel(ctx, searched)}: no improvement over the warm start (${formatSeconds(h[0].objective)})`
      + `${rep ? ` in ${formatCount(rep.work)} ${rep.work_unit}` : ''}.`);
  }
  return out;
}

/** The table sort of the state: `col` ascending, `-col` descending, null: none. @param {string | null} s */
function sortOf(s) {
  if (!s) return { key: null, dir: 1 };
  return s.startsWith('-') ? { key: s.slice(1), dir: -1 } : { key: s, dir: 1 };
}

/**
 * What the link orders changed, when there are several: each order's median iteration time
 * against `random`'s (TicTac19's baseline) or the first order's, per placer and scheduler.
 * @param {Comparison} c
 * @returns {string[]}
 */
function orderAnswer(c) {
  if (!manyOrders(c)) return [];
  const ok = c.results.filter((r) => !r.error && r.iteration_time);
  const groups = new Map();
  for (const r of ok) {
    const k = `${r.placer}/${r.scheduler}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  }
  const out = [];
  for (const rows of [...groups.values()].slice(0, 3)) {
    const base = rows.find((r) => r.link_order === 'random') ?? rows[0];
    const others = rows.filter((r) => r !== base);
    if (!others.length || !base.iteration_time) continue;
    const b = base.iteration_time.p50;
    const parts = others.map((r) => {
      const p = /** @type {import('./types.js').Distribution} */ (r.iteration_time).p50;
      return `${r.link_order} ${formatSeconds(p)} (${p <= b ? '' : '+'}${((p / b - 1) * 100).toFixed(1)}%)`;
    });
    const who = groups.size > 1 ? `${base.placer} / ${base.scheduler}: ` : '';
    out.push(` ${who}Median iteration: ${base.link_order} ${formatSeconds(b)}, ${parts.join(', ')}.`);
  }
  return out;
}

/** Columns after placer and scheduler (and link order) that a failed row spans, besides
 * the iteration and ordering columns. */
const TABLE_COLS = 8;

/**
 * A planning placer's plan cell (pesto.md §5.6): the status as the engine words it, its own
 * bound with units and the gap to it; the objective in the title.
 * @param {import('./types.js').PairResult} r @returns {[string, string, string | undefined]}
 */
function planCell(r) {
  const p = r.plan;
  if (!p) return ['–', 'plan-col', 'this placer does not plan'];
  const bound = p.bound != null && p.bound_scope === 'instance'
    ? `; bound ${formatSeconds(p.bound)}, gap ${formatRatio(r.makespan / p.bound)}` : '';
  return [`${p.status}${bound}`, 'plan-col',
    `predicted makespan ${formatSeconds(p.objective)}${p.bound != null ? `, bound ${formatSeconds(p.bound)} (${p.bound_scope})` : ''}`];
}

/** Which of the TicTac19 columns a comparison has (the body's has-* classes show their heads). @param {Comparison} c */
function columnsOf(c) {
  return {
    orders: manyOrders(c),
    iterations: c.results.some((r) => r.iteration_time),
    ordering: c.results.some((r) => r.ordering),
    // A placer that bounds its plan (pesto): heuristics' plans (heft) claim nothing to show.
    plans: c.results.some((r) => r.plan && r.plan.bound_scope !== 'none'),
  };
}

/** The results table, sorted as the state says; one tab stop, on the chosen row. @param {Context} ctx */
function renderTable(ctx) {
  const { state, current } = ctx;
  if (!current) return;
  const rows = rowsOf(ctx, current.comparison);
  const sort = sortOf(state.sort);
  if (sort.key) {
    const k = sort.key;
    rows.sort((a, b) => {
      // Rows that failed on every seed sort last, whichever the direction.
      const fa = !!a.error && !a.makespans.length;
      const fb = !!b.error && !b.makespans.length;
      if (fa !== fb) return fa ? 1 : -1;
      // A column of the table: a row field, by the header's data-sort.
      const x = /** @type {any} */ (a)[k];
      const y = /** @type {any} */ (b)[k];
      if (typeof x === 'string') return sort.dir * x.localeCompare(y);
      return sort.dir * ((x ?? Infinity) - (y ?? Infinity));
    });
  }
  for (const th of $('results-table').tHead.rows[0].cells) {
    th.setAttribute('aria-sort', th.dataset.sort === sort.key ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none');
  }
  const body = $('results-table').tBodies[0];
  body.replaceChildren();
  const best = bestMakespan(rows);
  const chosen = chosenPair(ctx);
  const cols = columnsOf(current.comparison);
  /** @type {Map<string, string>} a failure message -> the first pair that showed it */
  const said = new Map();
  for (const r of rows) {
    const tr = document.createElement('tr');
    tr.dataset.placer = r.placer;
    tr.dataset.scheduler = r.scheduler;
    tr.dataset.order = r.link_order;
    tr.dataset.makespan = String(r.makespan);
    if (r.p50 != null) tr.dataset.p50 = String(r.p50);
    tr.tabIndex = -1;
    const failed = !!r.error && !r.makespans.length;
    if (r.error) tr.dataset.error = r.error;
    if (!r.error && isBest(r.makespan, best)) tr.classList.add('best');
    if (chosen && sameRow(chosen, r)) tr.classList.add('chosen');
    const td = (text, cls, title) => {
      const el = document.createElement('td');
      el.textContent = text;
      if (cls) el.className = cls;
      if (title) el.title = title;
      tr.append(el);
      return el;
    };
    // Names stay whole; a long one (an uploaded strategy list, a hash) wraps inside its cell.
    td(r.placer, r.placer.length > 20 ? 'name long' : 'name');
    td(r.scheduler, r.scheduler.length > 20 ? 'name long' : 'name');
    // The TicTac19 cells only when the comparison has them (a plain table keeps its cells).
    if (cols.orders) td(r.link_order, 'name order-col');
    /** The failure message once per distinct message: collapsible; later rows point to it. */
    const failure = (el, lead) => {
      const key = /** @type {string} */ (r.error);
      const first = said.get(key);
      if (first) {
        el.textContent = `${lead}: the same reason as ${first}`;
        return;
      }
      said.set(key, rowLabel(ctx, r));
      const details = document.createElement('details');
      const summary = document.createElement('summary');
      summary.textContent = `${lead}: why`;
      const p = document.createElement('p');
      p.textContent = key;
      details.append(summary, p);
      el.append(details);
    };
    if (failed) {
      tr.classList.add('failed');
      const el = td('', 'failure');
      el.colSpan = TABLE_COLS + (cols.iterations ? 2 : 0) + (cols.ordering ? 2 : 0) + (cols.plans ? 1 : 0);
      failure(el, 'failed on every seed');
    } else {
      const d = r.delta;
      td(formatSeconds(r.makespan), 'num', String(r.makespan));
      const change = d == null ? '' : d > 0.05 ? 'worse' : d < -0.05 ? 'better' : '';
      td(d == null ? '' : `${d > 0 ? '+' : ''}${d.toFixed(1)}%`, `num delta-col ${change}`);
      if (cols.iterations) {
        td(r.p50 == null ? '–' : formatSeconds(r.p50), 'num iter-col', r.p50 == null ? undefined : String(r.p50));
        td(r.p95 == null ? '–' : formatSeconds(r.p95), 'num iter-col', r.p95 == null ? undefined : String(r.p95));
      }
      if (cols.ordering) {
        td(r.efficiency == null ? '–' : formatSig(r.efficiency, 3), 'num ord-col',
          r.efficiency == null ? 'no worker has distinct Eq. 1 and Eq. 2 bounds' : String(r.efficiency));
        td(r.straggler == null ? '–' : formatShare(r.straggler), 'num ord-col', r.straggler == null ? undefined : String(r.straggler));
      }
      td(current.comparison.scenario.seeds > 1 ? formatSeconds(r.makespan_std) : '–', 'num');
      td(formatRatio(r.gap), 'num');
      if (cols.plans) td(...planCell(r));
      td(formatBytes(r.traffic_bytes), 'num', String(r.traffic_bytes));
      td(formatBytes(r.peak), 'num', String(r.peak));
      td(formatWallSeconds(r.placement_seconds), 'num');
      const last = td(r.oom ? 'OOM' : '', r.oom ? 'oom failure' : 'failure');
      if (r.error) failure(last, `failed on ${current.comparison.scenario.seeds - r.makespans.length} seed(s)`);
    }
    body.append(tr);
  }
  // One tab stop: the chosen row (or the first); arrows move, Enter or Space choose.
  const stop = body.querySelector('tr.chosen') ?? body.rows[0];
  if (stop) stop.tabIndex = 0;
}

/** Keyboard and mouse on the results rows (bound once; rows are redrawn). @param {Context} ctx */
function bindTableRows(ctx) {
  const body = $('results-table').tBodies[0];
  const rowOf = (t) => (t instanceof Element ? t.closest('tr') : null);
  const choose = (tr) => {
    if (!tr || tr.classList.contains('failed')) return;
    ctx.on.choosePair(tr.dataset.placer, tr.dataset.scheduler, tr.dataset.order);
    // The table was redrawn: keep the focus on the same pair.
    const again = [...body.rows].find((x) => x.dataset.placer === tr.dataset.placer && x.dataset.scheduler === tr.dataset.scheduler
      && x.dataset.order === tr.dataset.order);
    again?.focus();
  };
  body.addEventListener('click', (e) => {
    if (e.target instanceof Element && e.target.closest('details')) return;
    choose(rowOf(e.target));
  });
  body.addEventListener('keydown', (e) => {
    const tr = rowOf(e.target);
    if (!tr || e.target !== tr) return;
    const rows = [...body.rows];
    const i = rows.indexOf(tr);
    const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: rows.length - 1 }[e.key];
    if (to !== undefined) {
      e.preventDefault();
      const next = rows[Math.max(0, Math.min(rows.length - 1, to))];
      for (const r of rows) r.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      choose(tr);
    }
  });
}

/** The pair menus' options and choices, and the chosen row's mark. @param {Context} ctx */
export function renderPairSelect(ctx) {
  const { state, current } = ctx;
  const sel = $('pair-select');
  sel.replaceChildren();
  for (const r of current?.comparison.results ?? []) {
    if (r.error) continue;
    sel.append(new Option(rowLabel(ctx, r), `${r.placer}\n${r.scheduler}\n${r.link_order}`));
  }
  const r = chosenPair(ctx);
  if (r) sel.value = `${r.placer}\n${r.scheduler}\n${r.link_order}`;
  const sel2 = $('pair2-select');
  sel2.replaceChildren(new Option('none', ''));
  for (const o of sel.options) sel2.append(new Option(o.text, o.value));
  const r2 = findPair(ctx, state.pair2);
  sel2.value = r2 ? `${r2.placer}\n${r2.scheduler}\n${r2.link_order}` : '';
  for (const tr of $('results-table').tBodies[0].rows) {
    tr.classList.toggle('chosen', !!r && tr.dataset.placer === r.placer && tr.dataset.scheduler === r.scheduler
      && tr.dataset.order === r.link_order);
  }
  $('memory-caption').textContent = r ? `(${rowLabel(ctx, r)})` : '';
}

/**
 * The results as CSV, full precision, the unit in every column name as in the sweep's CSV
 * (src/report/sweep.rs): `_s` seconds (or `_units` for abstract speeds), `_bytes`, `_per_s`.
 * @param {Comparison} c
 */
function toCsv(c) {
  const t = abstractUnits() ? 'units' : 's';
  const b = abstractUnits() ? 'units' : 'bytes';
  /** @type {[string, string][]} the result's field, the column's name */
  const fields = [['placer', 'placer'], ['scheduler', 'scheduler'], ['link_order', 'link_order'],
    ['makespan', `makespan_${t}`], ['makespan_std', `makespan_std_${t}`], ['makespan_min', `makespan_min_${t}`],
    ['makespan_max', `makespan_max_${t}`], ['lower_bound', `lower_bound_${t}`], ['gap', 'gap_ratio'],
    ['traffic_bytes', `traffic_${b}`], ['transfers', 'transfers'], ['placement_seconds', 'placement_wall_s'],
    ['peak_memory', `peak_memory_${b}`], ['oom', 'oom'], ['error', 'error'],
    ['iteration_p5', `iteration_p5_${t}`], ['iteration_p50', `iteration_p50_${t}`], ['iteration_p95', `iteration_p95_${t}`],
    ['throughput', `throughput_per_${t === 's' ? 's' : 'unit'}`], ['efficiency', 'efficiency'], ['speedup', 'speedup'],
    ['straggler', 'straggler_share'], ['straggler_p95', 'straggler_p95_share'],
    ['theoretical_best', `theoretical_best_${t}`], ['theoretical_worst', `theoretical_worst_${t}`]];
  const cols = fields.map((f) => f[0]);
  /** @param {import('./types.js').PairResult} r @param {string} k */
  const value = (r, k) => {
    const it = r.iteration_time;
    const o = r.ordering;
    switch (k) {
      case 'peak_memory': return r.devices.reduce((m, d) => Math.max(m, d.peak_memory), 0);
      case 'iteration_p5': return it?.p5;
      case 'iteration_p50': return it?.p50;
      case 'iteration_p95': return it?.p95;
      case 'efficiency': return o?.efficiency;
      case 'speedup': return o?.speedup;
      case 'straggler': return o?.straggler.mean;
      case 'straggler_p95': return o?.straggler.p95;
      case 'theoretical_best': return o?.theoretical_best;
      case 'theoretical_worst': return o?.theoretical_worst;
      default: return /** @type {any} */ (r)[k];
    }
  };
  const q = (v) => {
    const s = v == null ? '' : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [fields.map((f) => f[1]).join(',')];
  for (const r of c.results) lines.push(cols.map((k) => q(value(r, k))).join(','));
  return lines.join('\n') + '\n';
}

/**
 * The results as a Markdown table, numbers in the page's units (the table's text).
 * @param {Context} ctx @param {Comparison} c
 */
function toMarkdown(ctx, c) {
  setAbstractUnits(unitsOf(ctx, c));
  const cell = (v) => String(v).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const many = manyOrders(c);
  const iter = c.results.some((r) => r.iteration_time);
  const ord = c.results.some((r) => r.ordering);
  /** @type {[string, boolean, (r: import('./types.js').PairResult, ran: boolean) => string][]} */
  const cols = [
    ['placer', false, (r) => r.placer],
    ['scheduler', false, (r) => r.scheduler],
    ...(many ? [/** @type {[string, boolean, (r: any) => string]} */ (['link order', false, (r) => r.link_order])] : []),
    ['makespan', true, (r, ran) => (ran ? formatSeconds(r.makespan) : '')],
    ...(iter ? /** @type {[string, boolean, (r: any, ran: boolean) => string][]} */ ([
      ['p50 iteration', true, (r, ran) => (ran && r.iteration_time ? formatSeconds(r.iteration_time.p50) : '')],
      ['p95 iteration', true, (r, ran) => (ran && r.iteration_time ? formatSeconds(r.iteration_time.p95) : '')],
      ['throughput', true, (r, ran) => (ran && r.throughput != null ? formatRate(r.throughput) : '')],
    ]) : []),
    ...(ord ? /** @type {[string, boolean, (r: any, ran: boolean) => string][]} */ ([
      ['E', true, (r, ran) => (ran && r.ordering?.efficiency != null ? formatSig(r.ordering.efficiency, 3) : '')],
      ['straggler', true, (r, ran) => (ran && r.ordering ? formatShare(r.ordering.straggler.mean) : '')],
    ]) : []),
    ['std', true, (r, ran) => (ran && c.scenario.seeds > 1 ? formatSeconds(r.makespan_std) : '')],
    ['gap to bound', true, (r, ran) => (ran ? formatRatio(r.gap) : '')],
    ['traffic', true, (r, ran) => (ran ? formatBytes(r.traffic_bytes) : '')],
    ['peak memory', true, (r, ran) => (ran ? formatBytes(r.devices.reduce((m, d) => Math.max(m, d.peak_memory), 0)) : '')],
    ['OOM', false, (r) => (r.oom ? 'OOM' : '')],
    ['error', false, (r) => r.error ?? ''],
  ];
  const lines = [`| ${cols.map((x) => x[0]).join(' | ')} |`, `|${cols.map((x) => (x[1] ? ' ---: ' : ' --- ')).join('|')}|`];
  for (const r of c.results) {
    const ran = !r.error || r.makespans.length > 0;
    lines.push(`| ${cols.map((x) => cell(x[2](r, ran))).join(' | ')} |`);
  }
  const its = (c.scenario.iterations ?? 1) > 1 ? `, ${c.scenario.iterations} iterations per seed` : '';
  return `${c.graph.name}: ${c.graph.nodes} ops, ${c.scenario.seeds} seed(s)${its}\n\n${lines.join('\n')}\n`;
}

/** The table's sort buttons and rows, the exports and the share link. @param {Context} ctx */
export function bindResults(ctx) {
  const { state } = ctx;
  // Results: each header is a sort button (keyboard too); rows by arrows and Enter.
  for (const th of $('results-table').tHead.rows[0].cells) {
    const button = document.createElement('button');
    button.type = 'button';
    button.append(...th.childNodes);
    th.append(button);
    button.addEventListener('click', () => {
      const k = th.dataset.sort;
      // Ascending first; the same column again flips it ('-' first: descending).
      state.sort = state.sort === k ? `-${k}` : k;
      syncUrl(ctx);
      renderTable(ctx);
    });
  }
  bindTableRows(ctx);
  // The skip link (the first Tab stop): to the results, without touching the link fragment.
  $('skip').addEventListener('click', (e) => {
    e.preventDefault();
    $('results-start').focus();
    $('results').scrollIntoView({ block: 'start' });
  });
  $('copy-md').addEventListener('click', async () => {
    if (!ctx.current) return;
    const md = toMarkdown(ctx, ctx.current.comparison);
    try {
      await navigator.clipboard.writeText(md);
      notice('The results are copied as a Markdown table.');
    } catch {
      download('placesim-comparison.md', md, 'text/markdown');
      notice('No clipboard here: the Markdown table was downloaded instead.');
    }
  });
  $('export-json').addEventListener('click', () => {
    if (ctx.current) download('placesim-comparison.json', JSON.stringify(ctx.current.comparison, null, 2));
  });
  $('export-csv').addEventListener('click', () => {
    if (ctx.current) download('placesim-comparison.csv', toCsv(ctx.current.comparison), 'text/csv');
  });
  $('share').addEventListener('click', async () => {
    let url;
    try { url = location.origin + location.pathname + writeHash(ctx); } catch (e) { show($('run-error'), e.message); return; }
    notice('');
    const box = $('share-url');
    box.value = url;
    box.hidden = false;
    box.select();
    try { await navigator.clipboard.writeText(url); notice('Link copied.'); } catch { notice('The link is in the box above: copy it from there.'); }
  });
}
