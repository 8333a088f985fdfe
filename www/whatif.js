// The what-if panel: compute, bandwidth and latency scales (log2 sliders) and per-device
// speeds, each change re-running the comparison after a pause (debounced). A generated
// cluster's device controls wait for a baseline run of the current settings (their 1x is
// a device's mean drawn speed).
// A change re-runs through the context's callback (ctx.on.run: running is above this module).
// Not here: running (runner.js), or the results' before/after (results.js, the charts).

import { scenarioOf } from './state.js';
import { formatSpeed } from './units.js';
import { $, num, formatNumber, debounce } from './dom.js';
import { syncUrl } from './link.js';

/** @typedef {import('./context.js').Context} Context */

/** A slider's log2 value as a factor. @param {string | number} v */
const factor = (v) => Number((2 ** Number(v)).toPrecision(6));
/** @param {number} f */
const formatFactor = (f) => String(Number(f.toPrecision(3)));

/**
 * The devices the what-if panel shows, id -> base speed (the controls' 1x), or null when
 * there is none to show yet. A device table's base is its table speed. A generated
 * cluster's devices (d0, d1, ...) draw their speeds per seed: the base is the baseline
 * comparison's speed of the device, the mean of its draws over the seeds, when the
 * baseline ran the current cluster settings, seeds and seed.
 * @param {Context} ctx @returns {Map<string, number> | null}
 */
function whatIfBases(ctx) {
  const { state, baseline } = ctx;
  if (state.cluster === 'explicit' || state.clusterJson) {
    return new Map(state.dev.map((d) => [d.id, d.speed]));
  }
  const row = baseline?.comparison.results[0];
  if (!row || !baseline || baseline.speedKey !== speedKey(scenarioOf(state, ctx.all, false))) return null;
  return new Map(row.devices.map((d) => [d.id, d.speed]));
}

/** What a generated cluster's device speeds depend on (the graph and strategies do not count). @param {any} sc */
export function speedKey(sc) {
  return JSON.stringify([sc.cluster, sc.seeds, sc.seed]);
}

const DEVICE_HELP = {
  explicit: 'Device speeds: a slider scales the device\'s table speed (1× = the table), the number is the speed itself. '
    + 'A set speed replaces the table\'s, and the compute scale multiplies it like every other device\'s; '
    + 'the factor on the right is the device\'s total change (its own × the compute scale).',
  generate: 'Device speeds: a generated device draws its speed per seed; a slider scales its mean speed over the '
    + 'seeds (1× = no change), the number is the speed itself. A set speed replaces that device\'s drawn speed in '
    + 'every seed, and the compute scale multiplies it like every other device\'s; the factor on the right is the '
    + 'device\'s total change. Empty the number to go back to the drawn speeds.',
  waiting: 'Run the comparison to get a speed control per generated device (each starts at the device\'s mean '
    + 'speed over the seeds).',
};

/** Shows the state's what-if in the panel (a device row per device with a base speed). @param {Context} ctx */
export function renderWhatIf(ctx) {
  const { state } = ctx;
  const v = (f) => String(Math.round(Math.log2(f) * 10) / 10);
  $('wi-compute').value = v(state.whatifCompute);
  $('wi-compute-out').textContent = formatFactor(state.whatifCompute);
  $('wi-bw').value = v(state.whatifBandwidth);
  $('wi-bw-out').textContent = formatFactor(state.whatifBandwidth);
  $('wi-lat').value = v(state.whatifLatency);
  $('wi-lat-out').textContent = formatFactor(state.whatifLatency);
  const bases = whatIfBases(ctx);
  const explicit = state.cluster === 'explicit' || state.clusterJson;
  $('wi-devices-help').textContent = DEVICE_HELP[explicit ? 'explicit' : bases ? 'generate' : 'waiting'];
  const box = $('wi-devices');
  // The same devices with the same bases: update in place (a slider may be held right now).
  const sig = bases ? JSON.stringify([...bases]) : '';
  if (box.dataset.sig === sig) { syncWhatIfRows(ctx); return; }
  box.dataset.sig = sig;
  box.replaceChildren();
  box.hidden = !bases;
  for (const [id, base] of bases || []) {
    const row = document.createElement('div');
    row.className = 'wi-dev';
    row.dataset.device = id;
    row.dataset.base = String(base);
    const name = document.createElement('span');
    name.className = 'wi-name';
    name.textContent = id;
    name.title = `${id}: ${explicit ? 'table speed' : 'mean drawn speed'} ${formatNumber(base)}`;
    const slider = document.createElement('input');
    slider.type = 'range';
    slider.min = '-3';
    slider.max = '3';
    slider.step = '0.1';
    slider.dataset.device = id;
    slider.setAttribute('aria-label', `${id} speed factor`);
    const speed = document.createElement('input');
    speed.type = 'number';
    speed.step = 'any';
    speed.min = '0';
    speed.dataset.device = id;
    speed.setAttribute('aria-label', `${id} speed`);
    const out = document.createElement('output');
    out.className = 'wi-factor';
    row.append(name, slider, speed, out);
    box.append(row);
  }
  syncWhatIfRows(ctx);
}

/** Shows the state's device speeds in the panel's rows, leaving the control in use alone. @param {Context} ctx */
function syncWhatIfRows(ctx) {
  const { state } = ctx;
  const bases = whatIfBases(ctx);
  const set = Object.keys(state.whatifSpeeds).length;
  $('wi-devices-count').textContent = set ? `${set} device speed${set > 1 ? 's' : ''} set` : '';
  // The panel's summary: the current what-if in a few words (it stays when the panel is closed).
  const parts = [['compute', state.whatifCompute], ['bandwidth', state.whatifBandwidth], ['latency', state.whatifLatency]]
    .filter(([, f]) => f !== 1).map(([k, f]) => `${k} ${formatFactor(/** @type {number} */ (f))}`);
  if (set) parts.push(`${set} device speed${set > 1 ? 's' : ''} set`);
  $('whatif-summary').textContent = parts.length ? parts.join(', ') : 'none (the settings as they are)';
  if (set) /** @type {HTMLDetailsElement} */ ($('wi-devices-details')).open = true;
  if (!bases) return;
  for (const row of $('wi-devices').children) {
    const id = row.dataset.device;
    const base = bases.get(id);
    if (base == null) continue;
    const speed = state.whatifSpeeds[id];
    const f = speed == null ? 1 : speed / base;
    const [, slider, number, out] = row.children;
    if (document.activeElement !== slider) {
      slider.value = String(Math.min(3, Math.max(-3, Math.round(Math.log2(f) * 10) / 10)));
    }
    // An unset device shows its base speed to 4 digits (the exact one is in the tooltip).
    if (document.activeElement !== number) number.value = formatNumber(speed ?? Number(base.toPrecision(4)));
    // The device's total change: its own factor times the compute scale (the engine
    // multiplies every device, a set one too).
    const total = f * state.whatifCompute;
    out.textContent = `×${formatFactor(total)}`;
    out.title = `${id}: ${formatSpeed(base * total)} in the what-if (×${formatFactor(f)} of its own, ×${formatFactor(state.whatifCompute)} compute)`;
    row.classList.toggle('set', speed != null);
  }
}

/** The panel's sliders, numbers and reset: log2 sliders, debounced automatic re-runs. @param {Context} ctx */
export function bindWhatIf(ctx) {
  const { state } = ctx;
  const rerun = debounce(() => ctx.on.run({ auto: true }), 300);
  $('wi-compute').addEventListener('input', (e) => {
    state.whatifCompute = factor(e.target.value);
    $('wi-compute-out').textContent = formatFactor(state.whatifCompute);
    syncWhatIfRows(ctx);
    syncUrl(ctx);
    rerun();
  });
  $('wi-bw').addEventListener('input', (e) => {
    state.whatifBandwidth = factor(e.target.value);
    $('wi-bw-out').textContent = formatFactor(state.whatifBandwidth);
    syncUrl(ctx);
    rerun();
  });
  $('wi-lat').addEventListener('input', (e) => {
    state.whatifLatency = factor(e.target.value);
    $('wi-lat-out').textContent = formatFactor(state.whatifLatency);
    syncUrl(ctx);
    rerun();
  });
  // Per-device speeds: the slider scales the device's base speed (log2), the number is the
  // speed itself. Sliding back to 1x or emptying the number clears the device's speed.
  $('wi-devices').addEventListener('input', (e) => {
    const t = e.target;
    if (t.type !== 'range' || t.dataset.device === undefined) return;
    const id = t.dataset.device;
    const base = whatIfBases(ctx)?.get(id);
    const f = factor(t.value);
    if (f === 1 || base == null) delete state.whatifSpeeds[id];
    else state.whatifSpeeds[id] = Number((base * f).toPrecision(6));
    syncWhatIfRows(ctx);
    syncUrl(ctx);
    rerun();
  });
  $('wi-devices').addEventListener('change', (e) => {
    const t = e.target;
    if (t.type !== 'number' || t.dataset.device === undefined) return;
    const id = t.dataset.device;
    const v = num(t);
    const explicit = state.cluster === 'explicit' || state.clusterJson;
    if (t.value.trim() === '' || (explicit && v === whatIfBases(ctx)?.get(id))) delete state.whatifSpeeds[id];
    else if (v != null && v > 0) state.whatifSpeeds[id] = v;
    else { // not a speed: show the current one again
      const base = whatIfBases(ctx)?.get(id);
      const cur = state.whatifSpeeds[id] ?? (base == null ? null : Number(base.toPrecision(4)));
      t.value = cur == null ? '' : formatNumber(cur);
      return;
    }
    syncWhatIfRows(ctx);
    syncUrl(ctx);
    rerun();
  });
  $('wi-reset').addEventListener('click', () => {
    state.whatifCompute = 1;
    state.whatifBandwidth = 1;
    state.whatifLatency = 1;
    state.whatifSpeeds = {};
    renderWhatIf(ctx);
    ctx.on.run({ auto: true });
  });
}
