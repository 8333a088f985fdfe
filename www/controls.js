// The cluster and model controls: state -> controls (renderControls draws the whole form
// from the State, after a link or a preset), and controls -> state, one small binder per
// section (cluster source, generated cluster, device table, model options, seeds, run).
// Each change marks the results stale and updates the link. The run button runs through
// the context's callback (ctx.on.run: running is above this module).
// Not here: the graph box (graphs.js), the parameter-server panel (ps.js), the what-if panel
// (whatif.js), the results (results.js), or running (runner.js).

import * as engine from './pkg/placesim.js';
import { setCluster, scenarioOf } from './state.js';
import { setAbstractUnits, isAbstractSpeed, unitNames, abstractUnits } from './units.js';
import { $, show, notice, num, setNum, formatNumber } from './dom.js';
import { syncUrl } from './link.js';
import { renderGraphSelect, readFile } from './graphs.js';
import { renderPs } from './ps.js';
import { renderWhatIf } from './whatif.js';

/** @typedef {import('./context.js').Context} Context */

/** @type {[string, 'speed' | 'bandwidth' | 'latency', 0 | 1][]} */
const GEN_INPUTS = [
  ['gen-speed-lo', 'speed', 0], ['gen-speed-hi', 'speed', 1],
  ['gen-bw-lo', 'bandwidth', 0], ['gen-bw-hi', 'bandwidth', 1],
  ['gen-lat-lo', 'latency', 0], ['gen-lat-hi', 'latency', 1],
];

/** Draws the whole form from the state. @param {Context} ctx */
export function renderControls(ctx) {
  const { state } = ctx;
  renderGraphSelect(ctx);
  const explicit = state.cluster === 'explicit' || state.clusterJson;
  $('mode-generate').checked = !explicit;
  $('mode-explicit').checked = !!explicit;
  $('gen-box').hidden = !!explicit;
  $('table-box').hidden = !explicit;
  $('gen-devices').value = String(state.devices);
  $('gen-kinds').value = state.kinds.join(',');
  for (const [id, field, i] of GEN_INPUTS) setNum($(id), state[field][i]);
  setNum($('gen-memory'), state.memory);
  setNum($('gen-memfraction'), state.memfraction);
  renderDeviceTable(ctx);
  setNum($('table-bw'), state.clusterJson ? state.clusterJson.bandwidth : state.bw);
  setNum($('table-lat'), state.clusterJson ? (state.clusterJson.latency ?? 0) : state.lat);
  $('cluster-extra').hidden = !state.clusterJson;
  const whole = state.clusterJson;
  if (whole) {
    const extra = ['links', 'link_types', 'kinds'].filter((k) => k in whole);
    $('cluster-extra').textContent = `${whole.name || 'This cluster'} also has ${extra.join(', ') || 'other settings'}; `
      + 'they are kept (the table edits its devices).';
  }
  renderClusterPresets(ctx);
  $('links').value = state.links;
  $('footprint').value = state.footprint;
  renderStrategies(ctx);
  renderPs(ctx);
  ctx.sweepPanel?.render();
  setNum($('rand-cost-lo'), state.randcost?.[0]);
  setNum($('rand-cost-hi'), state.randcost?.[1]);
  setNum($('rand-bytes-lo'), state.randbytes?.[0]);
  setNum($('rand-bytes-hi'), state.randbytes?.[1]);
  setNum($('rand-mem-lo'), state.randmem?.[0]);
  setNum($('rand-mem-hi'), state.randmem?.[1]);
  $('random-box').open = !!(state.randcost || state.randbytes || state.randmem);
  $('seeds').value = String(state.seeds);
  $('seed').value = String(state.seed);
  $('pair-seed').value = String(state.pairSeed);
  $('log-scale').checked = state.logScale;
  renderUnitLabels(ctx);
  renderWhatIf(ctx);
}

/** @param {Context} ctx */
function renderClusterPresets(ctx) {
  const { clusterIndex } = ctx;
  const sel = $('cluster-preset');
  // A loader, not a state: the cluster in use is named under the device table (its `name`).
  sel.replaceChildren(new Option(clusterIndex.length ? 'load one…' : 'none on this site', ''));
  for (const c of clusterIndex) sel.append(new Option(`${c.name} (${c.devices} devices)`, c.name));
  sel.value = '';
}

/**
 * Loads cluster JSON text into the state after the engine has validated it.
 * @param {Context} ctx @param {string} text @param {string} label
 */
function useClusterText(ctx, text, label) {
  show($('cluster-error'), '');
  try {
    engine.validate_cluster(text);
    setCluster(ctx.state, JSON.parse(text));
  } catch (e) {
    show($('cluster-error'), `${label}: ${e.message}`);
    return;
  }
  renderControls(ctx);
  staleResults(ctx);
}

/** The explicit cluster's device table. @param {Context} ctx */
function renderDeviceTable(ctx) {
  const { state } = ctx;
  const body = $('device-table').tBodies[0];
  body.replaceChildren();
  $('device-count').textContent = `${state.dev.length} device${state.dev.length === 1 ? '' : 's'}`;
  state.dev.forEach((d, i) => {
    const tr = document.createElement('tr');
    const cell = (field, type, value) => {
      const td = document.createElement('td');
      const input = document.createElement('input');
      input.type = type;
      if (type === 'number') { input.step = 'any'; input.min = '0'; }
      input.value = value;
      input.setAttribute('aria-label', `device ${i + 1} ${field}`);
      input.addEventListener('change', () => {
        const row = state.dev[i];
        if (field === 'id') {
          if (row.id in state.whatifSpeeds) {
            state.whatifSpeeds[input.value] = state.whatifSpeeds[row.id];
            delete state.whatifSpeeds[row.id];
          }
          row.id = input.value;
        }
        else if (field === 'kind') { if (input.value) row.kind = input.value; else delete row.kind; }
        else if (field === 'speed') row.speed = num(input) ?? row.speed;
        else if (field === 'memory') { const m = num(input); if (m == null) delete row.memory; else row.memory = m; }
        syncCluster(ctx);
        renderWhatIf(ctx);
        staleResults(ctx);
      });
      td.append(input);
      tr.append(td);
    };
    cell('id', 'text', d.id);
    cell('kind', 'text', d.kind || '');
    cell('speed', 'number', formatNumber(d.speed));
    cell('memory', 'number', d.memory == null ? '' : formatNumber(d.memory));
    const td = document.createElement('td');
    const rm = document.createElement('button');
    rm.type = 'button';
    rm.textContent = 'remove';
    rm.disabled = state.dev.length <= 1;
    rm.addEventListener('click', () => {
      const [gone] = state.dev.splice(i, 1);
      delete state.whatifSpeeds[gone.id];
      syncCluster(ctx);
      renderDeviceTable(ctx);
      renderWhatIf(ctx);
      staleResults(ctx);
    });
    td.append(rm);
    tr.append(td);
    body.append(tr);
  });
}

/** Table edits of a whole cluster from a link (clusterz) go into its JSON too. @param {Context} ctx */
function syncCluster(ctx) {
  const { state } = ctx;
  if (!state.clusterJson) return;
  state.clusterJson.bandwidth = num($('table-bw')) ?? state.clusterJson.bandwidth;
  state.clusterJson.latency = num($('table-lat')) ?? 0;
}

/** The placer, scheduler, parameter and link order lists. @param {Context} ctx */
function renderStrategies(ctx) {
  const { state, all, strategyInfo } = ctx;
  const list = (el, infos, field) => {
    el.replaceChildren();
    const chosen = state[field] ?? all[field];
    for (const s of infos) {
      const label = document.createElement('label');
      label.className = 'strategy';
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.value = s.name;
      box.checked = chosen.includes(s.name);
      box.addEventListener('change', () => {
        const picked = [...el.querySelectorAll('input:checked')].map((b) => b.value);
        state[field] = picked.length === all[field].length && picked.every((x, i) => x === all[field][i]) ? null : picked;
        renderPestoBox(ctx);
        staleResults(ctx);
      });
      const name = document.createElement('b');
      name.textContent = s.name;
      const summary = document.createElement('span');
      summary.className = 'summary';
      summary.textContent = s.summary;
      label.append(box, ' ', name, ' ', summary);
      el.append(label);
    }
  };
  list($('placer-list'), strategyInfo.placers, 'placers');
  list($('scheduler-list'), strategyInfo.schedulers, 'schedulers');
  const params = $('param-list');
  params.replaceChildren();
  const every = [...strategyInfo.placers, ...strategyInfo.schedulers, ...strategyInfo.link_orders];
  for (const s of every) {
    for (const p of s.params) params.append(paramLabel(ctx, s.name, p));
  }
  if (!params.childElementCount) params.textContent = 'No strategy has parameters.';
  renderPestoBox(ctx);
  const orders = $('order-list');
  orders.replaceChildren();
  for (const q of strategyInfo.link_orders) {
    const label = document.createElement('label');
    label.title = q.summary;
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = q.name;
    box.checked = state.orders.includes(q.name);
    box.setAttribute('aria-describedby', 'ps-note');
    label.append(box, ` ${q.name}`);
    orders.append(label);
  }
}

/**
 * A strategy parameter's input, `strategy.name`, in state.params (a default is not kept);
 * every input of the same parameter (the list and the pesto panel) shows the same value.
 * @param {Context} ctx @param {string} strategy @param {import('./types.js').ParamSpec} p
 */
function paramLabel(ctx, strategy, p) {
  const { state } = ctx;
  const key = `${strategy}.${p.name}`;
  const label = document.createElement('label');
  label.title = p.doc;
  label.append(`${key} `);
  const input = document.createElement('input');
  input.type = 'number';
  input.step = 'any';
  input.dataset.param = key;
  input.placeholder = formatNumber(p.default);
  if (key in state.params) input.value = formatNumber(state.params[key]);
  input.addEventListener('change', () => {
    const v = num(input);
    if (v == null || v === p.default) delete state.params[key];
    else state.params[key] = v;
    for (const other of document.querySelectorAll(`input[data-param="${key}"]`)) {
      if (other !== input) /** @type {HTMLInputElement} */ (other).value = input.value;
    }
    staleResults(ctx);
  });
  label.append(input);
  return label;
}

/** The optimiser's panel: pesto's budget, mode and seconds cap, when pesto is a chosen placer. @param {Context} ctx */
function renderPestoBox(ctx) {
  const { state, all, strategyInfo } = ctx;
  const pesto = strategyInfo.placers.find((x) => x.name === 'pesto');
  const on = !!pesto && (state.placers ?? all.placers).includes('pesto');
  $('pesto-box').hidden = !on;
  $('pesto-params').replaceChildren(...(on && pesto
    ? pesto.params.filter((p) => ['budget', 'mode', 'seconds'].includes(p.name)).map((p) => paramLabel(ctx, 'pesto', p))
    : []));
}

/** The unit hints of the form's labels, from the state's cluster. @param {Context} ctx */
function renderUnitLabels(ctx) {
  const { state } = ctx;
  const maxSpeed = state.cluster === 'generate' && !state.clusterJson
    ? state.speed[1] : Math.max(...state.dev.map((d) => d.speed));
  const was = abstractUnits();
  setAbstractUnits(isAbstractSpeed(maxSpeed));
  const names = unitNames();
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.unit[data-unit]'))) {
    el.textContent = names[/** @type {'time' | 'bytes' | 'speed' | 'bandwidth'} */ (el.dataset.unit)] ?? '';
  }
  setAbstractUnits(was);
}

/** What makes the state a preset's: its scenario (what-if included), not the view (pair, sort). @param {Context} ctx */
export function presetKey(ctx) {
  return JSON.stringify(scenarioOf(ctx.state, ctx.all, true));
}

/**
 * The preset menu shows the preset last opened while the state is still that preset's
 * scenario; once a setting changes, the menu is back at its prompt and says so.
 * @param {Context} ctx
 */
export function showActivePreset(ctx) {
  const sel = /** @type {HTMLSelectElement} */ ($('preset'));
  const a = ctx.activePreset;
  const on = !!a && (a.scenario === '' || a.scenario === presetKey(ctx));
  if (a && !on) {
    const p = ctx.presets.find((x) => x.name === a.name);
    $('preset-info').textContent = p ? `Changed from the preset ${p.title}.` : '';
    ctx.activePreset = null;
  }
  if (document.activeElement !== sel) sel.value = on && a ? a.name : '';
  $('preset-open').disabled = !sel.value;
}

/**
 * Marks the results on the page as not current (greyed, and said in words before the
 * answer, which screen readers hear too): the settings changed, a run is under way, or it
 * was cancelled. The next drawn results clear it (clearStale).
 * @param {string} why
 */
export function markStale(why) {
  const note = $('stale-note');
  note.textContent = why;
  note.hidden = false;
  $('results-body').classList.add('stale');
  $('answer').setAttribute('aria-describedby', 'stale-note');
}

/** The results on the page are the current settings' (see markStale). */
export function clearStale() {
  $('stale-note').hidden = true;
  $('stale-note').textContent = '';
  $('results-body').classList.remove('stale');
  $('answer').removeAttribute('aria-describedby');
}

/**
 * After a change of the settings: the link follows, the results say they are stale, the
 * what-if panel's device controls wait for a baseline of these settings.
 * @param {Context} ctx
 */
export function staleResults(ctx) {
  syncUrl(ctx);
  renderUnitLabels(ctx);
  showActivePreset(ctx);
  if (ctx.current) markStale('Not current: the settings changed since these results. Run the comparison to update them.');
  renderWhatIf(ctx); // a generated cluster's device controls wait for a baseline of these settings
}

/** Where the cluster comes from: a bundled one, a file, generated or a device table. @param {Context} ctx */
function bindClusterSource(ctx) {
  const { state } = ctx;
  $('cluster-preset').addEventListener('change', async (e) => {
    const name = e.target.value;
    if (!name) return;
    try {
      const r = await fetch(`graphs/clusters/${encodeURIComponent(name)}.json`);
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      useClusterText(ctx, await r.text(), name);
    } catch (err) {
      show($('cluster-error'), `${name}: ${err.message}`);
    }
  });
  $('cluster-file').addEventListener('change', async (e) => {
    const f = e.target.files[0];
    e.target.value = '';
    if (!f) return;
    try { useClusterText(ctx, (await readFile(ctx, f)).text, f.name); } catch (err) { show($('cluster-error'), `${f.name}: ${err.message}`); }
  });
  for (const id of ['mode-generate', 'mode-explicit']) {
    $(id).addEventListener('change', (e) => {
      state.cluster = e.target.value;
      if (state.cluster === 'generate') state.clusterJson = null;
      state.whatifSpeeds = {};
      renderControls(ctx);
      // Chosen by hand: the table opens (it starts closed: 5 inputs per device are many Tab stops).
      if (state.cluster === 'explicit') /** @type {HTMLDetailsElement} */ ($('device-details')).open = true;
      staleResults(ctx);
    });
  }
}

/** A generated cluster's devices, kinds, speed, bandwidth, latency and memory. @param {Context} ctx */
function bindGeneratedCluster(ctx) {
  const { state } = ctx;
  $('gen-devices').addEventListener('change', (e) => {
    const n = Math.round(Number(e.target.value));
    if (!(n >= 1 && n <= ctx.limits.max_devices)) {
      // The engine's limit (src/model/cluster.rs MAX_DEVICES): said where the user looks.
      e.target.value = String(state.devices);
      notice(`A generated cluster has 1 to ${ctx.limits.max_devices} devices (the engine's limit); kept ${state.devices}.`);
      return;
    }
    state.devices = n;
    // Speeds of devices the cluster no longer has (a generated device is d0 .. d{n-1}).
    for (const id of Object.keys(state.whatifSpeeds)) {
      const m = /^d(0|[1-9][0-9]*)$/.exec(id);
      if (!m || Number(m[1]) >= n) delete state.whatifSpeeds[id];
    }
    staleResults(ctx);
  });
  $('gen-kinds').addEventListener('change', (e) => {
    state.kinds = e.target.value.split(',').map((k) => k.trim()).filter((k) => k);
    staleResults(ctx);
  });
  for (const [id, field, i] of GEN_INPUTS) {
    $(id).addEventListener('change', (e) => {
      const v = num(e.target);
      if (v != null) { state[field] = [...state[field]]; state[field][i] = v; }
      staleResults(ctx);
    });
  }
  $('gen-memory').addEventListener('change', (e) => { state.memory = num(e.target); staleResults(ctx); });
  $('gen-memfraction').addEventListener('change', (e) => { state.memfraction = num(e.target); staleResults(ctx); });
}

/** The device table's link figures and its add button (its rows bind themselves). @param {Context} ctx */
function bindDeviceTable(ctx) {
  const { state } = ctx;
  $('table-bw').addEventListener('change', (e) => {
    const v = num(e.target);
    if (v != null) state.bw = v;
    syncCluster(ctx);
    staleResults(ctx);
  });
  $('table-lat').addEventListener('change', (e) => {
    state.lat = num(e.target) ?? 0;
    syncCluster(ctx);
    staleResults(ctx);
  });
  $('add-device').addEventListener('click', () => {
    let n = state.dev.length;
    while (state.dev.some((d) => d.id === `dev${n}`)) n++;
    state.dev.push({ id: `dev${n}`, kind: 'gpu', speed: 1e13 });
    renderDeviceTable(ctx);
    renderWhatIf(ctx);
    staleResults(ctx);
  });
}

/** Links, memory footprint and the random-cost ranges. @param {Context} ctx */
function bindModelOptions(ctx) {
  const { state } = ctx;
  $('links').addEventListener('change', (e) => { state.links = e.target.value; staleResults(ctx); });
  $('footprint').addEventListener('change', (e) => { state.footprint = e.target.value; staleResults(ctx); });
  const randRange = (lo, hi, field) => {
    const update = () => {
      const a = num($(lo));
      const b = num($(hi));
      state[field] = a == null && b == null ? null : [a ?? b, b ?? a];
      staleResults(ctx);
    };
    $(lo).addEventListener('change', update);
    $(hi).addEventListener('change', update);
  };
  randRange('rand-cost-lo', 'rand-cost-hi', 'randcost');
  randRange('rand-bytes-lo', 'rand-bytes-hi', 'randbytes');
  randRange('rand-mem-lo', 'rand-mem-hi', 'randmem');
}

/** Seeds and the seed. @param {Context} ctx */
function bindSeeds(ctx) {
  const { state } = ctx;
  $('seeds').addEventListener('change', (e) => {
    const n = Math.round(Number(e.target.value));
    if (n >= 1 && n <= ctx.limits.max_seeds) state.seeds = n;
    else {
      e.target.value = String(state.seeds);
      notice(`Seeds go from 1 to ${ctx.limits.max_seeds} (the engine's limit); kept ${state.seeds}.`);
    }
    staleResults(ctx);
  });
  $('seed').addEventListener('change', (e) => {
    const n = Number(e.target.value);
    if (Number.isSafeInteger(n) && n >= 0) state.seed = n;
    else e.target.value = String(state.seed);
    staleResults(ctx);
  });
  $('new-seed').addEventListener('click', () => {
    state.seed = engine.fresh_seed();
    $('seed').value = String(state.seed);
    staleResults(ctx);
  });
}

/** Run and Cancel (Cancel stops the comparison, the timeline and the trace). @param {Context} ctx */
function bindRun(ctx) {
  $('run').addEventListener('click', () => ctx.on.run({ reveal: true }));
  $('cancel').addEventListener('click', () => {
    ctx.pool.cancel();
    ctx.pairRunner.cancel();
    ctx.traceRunner.cancel();
  });
}

/** The form's sections, each by its own binder. @param {Context} ctx */
export function bindControls(ctx) {
  bindClusterSource(ctx);
  bindGeneratedCluster(ctx);
  bindDeviceTable(ctx);
  bindModelOptions(ctx);
  bindSeeds(ctx);
  bindRun(ctx);
}
