// What the page opens: a link's state (at start, and when the address bar's fragment
// changes), one of the papers' experiments (the preset menu), or the first visit's real
// graph and cluster; each replaces the state, redraws the form and runs.
// Not here: the link's text (link.js), the State's fields (state.js), or start-up (app.js).

import * as engine from './pkg/placesim.js';
import { setCluster } from './state.js';
import { $, show } from './dom.js';
import { readLink, syncUrl } from './link.js';
import { loadGraph } from './graphs.js';
import { renderControls, presetKey, showActivePreset } from './controls.js';
import { resetPs } from './ps.js';
import { runComparison } from './runner.js';

/** @typedef {import('./context.js').Context} Context */

/** A link that cannot be read: said at the top of the results, where the user looks. @param {Error} e */
export function showLinkError(e) {
  show($('link-error'), `This link could not be opened: ${e.message}. The page shows its defaults instead.`);
}

/**
 * Opens a link's fragment: its state replaces the page's, then its graph loads and runs.
 * Whether it ran (false: the link could not be read, or its graph is missing).
 * @param {Context} ctx @param {string} hash @returns {Promise<boolean>}
 */
export async function openLink(ctx, hash) {
  const { state } = ctx;
  let s;
  try {
    s = readLink(ctx, hash);
  } catch (e) {
    showLinkError(e);
    return false;
  }
  show($('link-error'), '');
  for (const k of Object.keys(s)) state[k] = s[k];
  ctx.activePreset = null;
  showActivePreset(ctx);
  resetPs(ctx);
  ctx.baseline = null;
  renderControls(ctx);
  if (await loadGraph(ctx)) {
    await runComparison(ctx);
    return true;
  }
  return false;
}

/**
 * The first visit's comparison (no link): a real graph on a real machine, so the first
 * numbers read in milliseconds and gigabytes. A training step (what the header says the page
 * simulates) of VGG-16 on a node of 4 x V100 16 GB: its tensors do not fit one GPU, so
 * where each op runs matters (heft beats `single` by a quarter, critical-path is 30 times
 * slower), as in the papers; it runs in well under 2 s. Only the first visit: a link that leaves a
 * field out still means State's default (the engine's link defaults, src/scenario/link/), so an
 * old link opens with its own numbers. The page's link then names this graph and cluster.
 */
const FIRST_VISIT = Object.freeze({ graph: 'vgg16_ops_train', cluster: 'hw_1node_4xV100_nvlink' });

/** @param {Context} ctx */
export async function firstVisit(ctx) {
  const { state } = ctx;
  if (!ctx.graphIndex.some((g) => g.name === FIRST_VISIT.graph)) return;
  try {
    const r = await fetch(`graphs/clusters/${encodeURIComponent(FIRST_VISIT.cluster)}.json`);
    if (!r.ok) return;
    const text = await r.text();
    engine.validate_cluster(text);
    state.graph = FIRST_VISIT.graph;
    setCluster(state, JSON.parse(text));
  } catch (e) {
    console.warn(`the first visit's cluster: ${e.message}`);
    return;
  }
  renderControls(ctx);
  syncUrl(ctx);
}

/** The papers' experiments (scenarios/*.json, listed by make site) in the preset menu. @param {Context} ctx */
export function renderPresets(ctx) {
  const { presets } = ctx;
  const sel = $('preset');
  sel.replaceChildren(new Option(presets.length ? 'choose an experiment…' : 'none on this site', ''));
  const groups = new Map();
  for (const p of presets) {
    const paper = p.title.split(':')[0];
    if (!groups.has(paper)) {
      const g = document.createElement('optgroup');
      g.label = paper;
      groups.set(paper, g);
      sel.append(g);
    }
    groups.get(paper).append(new Option(p.title.slice(paper.length + 1).trim(), p.name));
  }
}

/**
 * Opens a preset: its scenario goes through the engine's link codec (page_fragment, then
 * read_link), so a preset is exactly the state its link would give; then it runs.
 * @param {Context} ctx @param {string} name
 */
async function openPreset(ctx, name) {
  const { state } = ctx;
  const p = ctx.presets.find((x) => x.name === name);
  if (!p) return;
  try {
    const r = await fetch(`scenarios/${encodeURIComponent(name)}.json`);
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    const f = engine.page_fragment(await r.text(), undefined, null, {});
    const s = readLink(ctx, f);
    for (const k of Object.keys(s)) state[k] = s[k];
  } catch (e) {
    show($('run-error'), `The preset '${p.title}' could not be opened: ${e.message}`);
    return;
  }
  $('preset-info').textContent = `${p.title}. ${p.sentence}`;
  resetPs(ctx);
  ctx.baseline = null;
  renderControls(ctx);
  ctx.activePreset = { name, scenario: '' };
  syncUrl(ctx);
  ctx.activePreset.scenario = presetKey(ctx);
  showActivePreset(ctx);
  if (await loadGraph(ctx)) await runComparison(ctx, { reveal: true });
}

/** The preset menu, and a fragment changed in the address bar (not by the page). @param {Context} ctx */
export function bindOpen(ctx) {
  const sel = /** @type {HTMLSelectElement} */ ($('preset'));
  // Arrow keys only move the menu's choice (Chromium fires `change` on each); Enter or the
  // button opens it. A mouse choice opens at once.
  let keyed = false;
  const open = () => {
    keyed = false;
    if (sel.value) openPreset(ctx, sel.value);
  };
  sel.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      open();
    } else if (['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown'].includes(e.key) || e.key.length === 1) {
      keyed = true;
    }
  });
  sel.addEventListener('mousedown', () => { keyed = false; });
  sel.addEventListener('change', () => {
    if (!keyed) { open(); return; }
    $('preset-open').disabled = !sel.value;
  });
  $('preset-open').addEventListener('click', open);
  window.addEventListener('hashchange', async () => {
    if (location.hash === ctx.writtenHash) return;
    await openLink(ctx, location.hash);
  });
}
