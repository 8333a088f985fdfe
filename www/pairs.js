// A comparison's rows by name: a pair's key in the state (`placer/scheduler[/order]`), a
// row's label, the best makespan, which row the page shows (the state's pair, else the
// first of the best), and whether its speeds are in abstract units.
// Not here: the DOM, or running a pair (runner.js).

import { isBest, isAbstractSpeed } from './units.js';

/**
 * @typedef {import('./context.js').Context} Context
 * @typedef {import('./types.js').Comparison} Comparison
 * @typedef {import('./types.js').PairResult} PairResult
 */

/**
 * A row's key in the state's `pair` (and the link's): `placer/scheduler`, and
 * `/order` when the comparison has several link orders.
 * @param {string} p @param {string} s @param {string} [o]
 */
export function pairKey(p, s, o) { return o ? `${p}/${s}/${o}` : `${p}/${s}`; }

/** @param {{placer: string, scheduler: string, link_order: string}} a @param {{placer: string, scheduler: string, link_order: string}} b */
export function sameRow(a, b) { return a.placer === b.placer && a.scheduler === b.scheduler && a.link_order === b.link_order; }

/** Whether a comparison has rows of several link orders (the table's link order column). @param {Comparison} c */
export function manyOrders(c) { return new Set(c.results.map((r) => r.link_order)).size > 1; }

/**
 * A row's name: `placer / scheduler`, and `/ order` when there are several (by default:
 * when the current comparison has several).
 * @param {Context} ctx @param {{placer: string, scheduler: string, link_order: string}} r @param {boolean} [many]
 */
export function rowLabel(ctx, r, many = !!ctx.current && manyOrders(ctx.current.comparison)) {
  return many ? `${r.placer} / ${r.scheduler} / ${r.link_order}` : `${r.placer} / ${r.scheduler}`;
}

/** The smallest makespan of the pairs that ran; rows within BEST_TOLERANCE of it are best. @param {{error?: string | null, makespan: number}[]} results */
export function bestMakespan(results) {
  return Math.min(...results.filter((r) => !r.error).map((r) => r.makespan));
}

/** The row a pair key (`placer/scheduler[/order]`) names, when it ran. @param {Context} ctx @param {string | null} key */
export function findPair(ctx, key) {
  const { current } = ctx;
  if (!current || !key) return null;
  const [p, s, o] = key.split('/');
  return current.comparison.results.find((x) => x.placer === p && x.scheduler === s && (o === undefined || x.link_order === o) && !x.error) ?? null;
}

/** The row the page shows: the state's pair, else the first of the best. @param {Context} ctx @returns {PairResult | null} */
export function chosenPair(ctx) {
  const { current } = ctx;
  if (!current) return null;
  const rs = current.comparison.results;
  const r = findPair(ctx, ctx.state.pair);
  if (r) return r;
  // The first of the best pairs (the table's and the chart's tolerance), in the comparison's order.
  const best = bestMakespan(rs);
  return rs.find((r) => !r.error && isBest(r.makespan, best)) ?? null;
}

/**
 * Whether a comparison's speeds are abstract units: by the larger device speed of its
 * baseline (no what-if; the context's, else the comparison itself).
 * @param {Context} ctx @param {Comparison} c
 */
export function unitsOf(ctx, c) {
  const { baseline } = ctx;
  const speeds = (baseline?.comparison ?? c).results.flatMap((r) => r.devices.map((d) => d.speed));
  return isAbstractSpeed(Math.max(...speeds));
}
