// The Sweep panel: a what-if sweep of the page's scenario (src/sweep.rs, src/scenario/sweep.rs). The
// engine checks the factors and writes each factor's scenario (`sweep_plan`); each factor's
// comparison runs on the page's pool of workers (its work items, unmerged: Pool.runParts);
// the engine merges every factor's parts into the sweep and its CSV (`sweep_merge`), the same
// bytes as `placesim sweep --csv` on the same scenario. The axis, the factors and the chart's
// scale are in the one State (and so in the link). Cancel stops the pool's workers.
// Not here: any number (the engine computes them), the chart's drawing (charts/sweep.js).

import { SWEEP_DEFAULTS } from './state.js';

/** How many pairs the sweep charts draw by default (the best at ×1). */
const SWEEP_BEST = 6;
import { setAbstractUnits, abstractUnits } from './units.js';

/**
 * @typedef {import('./types.js').SweepResult} SweepResult
 * @typedef {{
 *   engine: typeof import('./pkg/placesim.js'),
 *   state: import('./state.js').State,
 *   pool: {runParts: (scenario: string, graphText: string | null, onProgress?: (done: number, total: number) => void)
 *     => Promise<{parts: import('./types.js').Partial[], ms: number}>, cancel: () => void},
 *   scenario: () => string, graphText: () => string | null, syncUrl: () => void,
 * }} SweepContext
 */

/** @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);

/** Factors as the input shows them: `1, 2, 4, 8`. @param {number[]} fs */
const factorsText = (fs) => fs.map((f) => String(f)).join(', ');

/**
 * Wires the panel; returns {render()}, which shows the state's sweep settings (after a link).
 * @param {SweepContext} ctx
 */
export function initSweep(ctx) {
  const { engine, state } = ctx;
  /** @type {SweepResult | null} */
  let last = null;
  /** @type {string | null} the scenario `last` is of */
  let ranFor = null;
  /** @type {any[]} the two charts (makespan, gap to the bound) */
  let charts = [];
  let seq = 0;

  const error = (text) => {
    $('sweep-error').textContent = text || '';
    $('sweep-error').hidden = !text;
  };
  const busy = (on, text) => {
    $('sweep-run').disabled = on;
    $('sweep-cancel').disabled = !on;
    $('sweep-status').textContent = text || '';
    if (!on) $('sweep-progress').value = 0;
  };

  /** The engine's plan of the input's factors, or null after showing its error. */
  const plan = () => {
    try {
      return engine.sweep_plan(ctx.scenario(), state.sweepAxis, $('sweep-factors').value);
    } catch (e) {
      error(e.message);
      return null;
    }
  };

  // Whether the charts show every pair (a disclosure, like the help panel: not in the link).
  let showAll = false;
  $('sweep-all').addEventListener('click', () => {
    showAll = !showAll;
    draw();
  });

  const draw = async () => {
    if (!last) return;
    const { drawSweep } = await import('./charts/sweep.js');
    const was = abstractUnits();
    setAbstractUnits(!last.sweep.physical);
    for (const c of charts) c.destroy();
    // The best few pairs by default (66 lines in ten colours read as none); all on demand.
    const best = showAll ? undefined : SWEEP_BEST;
    charts = [
      drawSweep($('chart-sweep'), last.sweep, { log: state.sweepLog, metric: 'makespan', best }),
      drawSweep($('chart-sweep-gap'), last.sweep, { log: state.sweepLog, metric: 'gap', best }),
    ];
    const pairs = new Set(last.sweep.points.map((p) => `${p.placer}\n${p.scheduler}\n${p.link_order}`)).size;
    const all = $('sweep-all');
    all.hidden = pairs <= SWEEP_BEST;
    all.textContent = showAll ? `show the best ${SWEEP_BEST} pairs only` : `show all ${pairs} pairs`;
    all.setAttribute('aria-pressed', String(showAll));
    setAbstractUnits(was);
  };

  const run = async () => {
    const mine = ++seq;
    error('');
    const graph = ctx.graphText();
    if (!graph) { error('No valid graph is loaded.'); return; }
    const p = plan();
    if (!p) return;
    state.sweepFactors = p.spec.factors;
    ctx.syncUrl();
    const n = p.scenarios.length;
    const parts = [];
    busy(true, 'starting…');
    try {
      for (let i = 0; i < n; i++) {
        const label = `×${p.spec.factors[i]} (${i + 1} of ${n}): `;
        const r = await ctx.pool.runParts(p.scenarios[i], graph, (done, total) => {
          $('sweep-progress').max = n * total;
          $('sweep-progress').value = i * total + done;
          $('sweep-status').textContent = `${label}${Math.round((100 * done) / Math.max(total, 1))}% of ${total} steps`;
        });
        if (mine !== seq) return;
        parts.push(r.parts);
      }
      ranFor = ctx.scenario();
      last = engine.sweep_merge(ranFor, p.spec, parts);
    } catch (e) {
      if (mine !== seq) return;
      busy(false, e.cancelled ? 'cancelled' : '');
      if (!e.cancelled) error(e.message);
      return;
    }
    busy(false, `${n} factors × ${last.sweep.points.length / n} pairs done`);
    $('sweep-csv').disabled = false;
    await draw();
  };

  $('sweep-axis').addEventListener('change', (e) => {
    const from = state.sweepAxis;
    state.sweepAxis = e.target.value;
    // The other axis's default factors become this one's.
    if (factorsText(state.sweepFactors) === factorsText(SWEEP_DEFAULTS[from])) {
      state.sweepFactors = [...SWEEP_DEFAULTS[state.sweepAxis]];
      $('sweep-factors').value = factorsText(state.sweepFactors);
    }
    const p = plan();
    if (p) { error(''); state.sweepFactors = p.spec.factors; }
    ctx.syncUrl();
  });
  $('sweep-factors').addEventListener('change', () => {
    const p = plan();
    if (!p) return;
    error('');
    state.sweepFactors = p.spec.factors;
    ctx.syncUrl();
  });
  $('sweep-log').addEventListener('change', (e) => {
    state.sweepLog = e.target.checked;
    ctx.syncUrl();
    draw();
  });
  $('sweep-run').addEventListener('click', run);
  $('sweep-cancel').addEventListener('click', () => {
    seq++;
    ctx.pool.cancel();
    busy(false, 'cancelled');
  });
  $('sweep-csv').addEventListener('click', async () => {
    if (!last) return;
    const { downloadBlob } = await import('./charts/export.js');
    downloadBlob(new Blob([last.csv], { type: 'text/csv' }), `sweep-${last.sweep.axis}.csv`);
  });

  const render = () => {
    // A sweep of another scenario (a link or preset opened since) is not this one's.
    if (last && ctx.scenario() !== ranFor) {
      last = null;
      for (const c of charts) c.destroy();
      charts = [];
      $('chart-sweep').replaceChildren();
      $('chart-sweep-gap').replaceChildren();
      $('sweep-csv').disabled = true;
      $('sweep-status').textContent = '';
    }
    $('sweep-axis').value = state.sweepAxis;
    $('sweep-factors').value = factorsText(state.sweepFactors);
    $('sweep-log').checked = state.sweepLog;
    error('');
  };
  render();
  return { render };
}
