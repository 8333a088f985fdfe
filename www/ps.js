// The parameter-server panel (TicTac19): a replica's workers, servers and loss op, the
// iterations per seed and the link orders; a replica or a link order other than fifo sets
// links to fcfs, said under the panel. A change marks the results stale through the
// context's callback (ctx.on.stale: the form, controls.js, is above this module).
// Not here: the rest of the cluster and model settings (controls.js), the engine's check
// of a replica (the run reports it), or the results' TicTac19 columns (results.js).

import { needsFcfs } from './state.js';
import { $, show, num, setNum } from './dom.js';

/** @typedef {import('./context.js').Context} Context */

/** TensorFlow's loss op, the end of TicTac19's forward runs. */
const LOSS_OP = 'SparseSoftmaxCrossEntropyWithLogits';
// The forward/training choice while forward-only has no loss op yet (the state says
// training), and why the panel changed something else: ctx.ps (context.js).

/** The device ids of the state's cluster (a generated one's are d0 .. d{n-1}). @param {Context} ctx @returns {string[]} */
function deviceIds(ctx) {
  const { state } = ctx;
  if (state.cluster === 'generate' && !state.clusterJson) return Array.from({ length: state.devices }, (_, i) => `d${i}`);
  return state.dev.map((d) => d.id);
}

/**
 * The node ids of the current graph that contain TensorFlow's loss op name, the most likely
 * first (outside gradients, shortest). A text search: the graph is never parsed here.
 * @param {Context} ctx @returns {string[]}
 */
function lossCandidates(ctx) {
  const { graphText } = ctx;
  if (!graphText || !graphText.includes(LOSS_OP)) return [];
  const found = new Set();
  const re = /"id"\s*:\s*"((?:[^"\\]|\\.)*)"/g;
  let m;
  while ((m = re.exec(graphText)) && found.size < 200) {
    if (m[1].includes(LOSS_OP)) found.add(JSON.parse(`"${m[1]}"`));
  }
  // The op itself (its own name is the loss op's), outside gradients, then the shortest id.
  const rank = (id) => (/(^|\/)gradients/.test(id) ? 2 : id.split('/').pop().includes(LOSS_OP) ? 0 : 1);
  return [...found].sort((a, b) => rank(a) - rank(b) || a.length - b.length || (a < b ? -1 : 1));
}

/** A comma-separated list of ids, trimmed, empty items dropped. */
/** @param {string} text */
function idList(text) { return text.split(',').map((x) => x.trim()).filter((x) => x); }

/** Shows the state's replica, iterations and link orders. @param {Context} ctx */
export function renderPs(ctx) {
  const { state, graphText } = ctx;
  const r = state.replica;
  $('replica-on').checked = !!r;
  $('replica-box').hidden = !r;
  if (r) {
    $('replica-workers').value = r.workers.join(', ');
    $('replica-ps').value = r.ps.join(', ');
    const forward = r.target !== null || ctx.ps.forwardWanted;
    $('replica-forward').checked = forward;
    $('replica-train').checked = !forward;
    $('replica-target-label').hidden = !forward;
    $('replica-target').value = r.target ?? '';
    setNum($('replica-balance'), r.balance);
    $('replica-aggregate').checked = r.aggregate;
    const cands = lossCandidates(ctx);
    $('replica-target-list').replaceChildren(...cands.slice(0, 20).map((id) => new Option(id, id)));
    const ids = new Set(deviceIds(ctx));
    const unknown = [...r.workers, ...r.ps].filter((id) => !ids.has(id));
    $('replica-target-info').textContent = [
      forward && r.target === null
        ? (graphText && !cands.length
          ? `This graph has no node whose id contains ${LOSS_OP}: type the id of its loss op, or choose training.`
          : 'Type the id of the loss op (the forward pass is pruned to it and its ancestors).')
        : '',
      unknown.length ? `Not devices of this cluster: ${unknown.join(', ')} (the cluster has ${[...ids].slice(0, 8).join(', ')}${ids.size > 8 ? ', …' : ''}).` : '',
    ].filter((x) => x).join(' ');
  }
  $('iterations').value = String(state.iterations);
  for (const box of $('order-list').querySelectorAll('input')) box.checked = state.orders.includes(box.value);
  const forced = needsFcfs(state);
  const links = $('links');
  links.disabled = forced;
  const why = state.replica ? 'a replica' : `the link order${state.orders.length > 1 ? 's' : ''} ${state.orders.filter((o) => o !== 'fifo').join(', ')}`;
  show($('links-note'), forced ? `Links are fcfs: ${why} orders transfers that wait for a link, and parallel links never make one wait.` : '');
  show($('ps-note'), ctx.ps.note);
}

/** A replica of the state's cluster: its first device the server, the others workers. */
/** @param {Context} ctx @returns {import('./state.js').Replica} */
function defaultReplica(ctx) {
  const ids = deviceIds(ctx);
  const loss = lossCandidates(ctx)[0] ?? null;
  return {
    workers: ids.slice(1), ps: ids.slice(0, 1), target: loss, aggregate: false, balance: null, paramOps: null, sources: false,
  };
}

/** The panel's inputs. @param {Context} ctx */
export function bindPs(ctx) {
  const { state } = ctx;
  const changed = (note = '') => {
    ctx.ps.note = note;
    if (needsFcfs(state) && state.links !== 'fcfs') {
      state.links = 'fcfs';
      $('links').value = 'fcfs';
    }
    renderPs(ctx);
    ctx.on.stale();
  };
  $('replica-on').addEventListener('change', (e) => {
    if (!e.target.checked) { state.replica = null; ctx.ps.forwardWanted = false; changed(); return; }
    const ids = deviceIds(ctx);
    if (ids.length < 2) {
      e.target.checked = false;
      changed('A replica needs at least two devices: a parameter server and a worker.');
      return;
    }
    state.replica = defaultReplica(ctx);
    ctx.ps.forwardWanted = state.replica.target !== null;
    const notes = [`Server ${state.replica.ps.join(', ')}, workers ${state.replica.workers.join(', ')}: edit them above.`];
    if (state.orders.length === 1 && state.orders[0] === 'fifo') {
      state.orders = ctx.strategyInfo.link_orders.map((q) => q.name).filter((n) => ['random', 'tio', 'tao'].includes(n));
      notes.push(`Link orders set to ${state.orders.join(', ')} (TicTac19's comparison).`);
    }
    if (state.links !== 'fcfs') notes.push('Links set to fcfs.');
    changed(notes.join(' '));
  });
  const ids = (id, field) => $(id).addEventListener('change', (e) => {
    if (!state.replica) return;
    state.replica[field] = idList(e.target.value);
    changed();
  });
  ids('replica-workers', 'workers');
  ids('replica-ps', 'ps');
  for (const id of ['replica-forward', 'replica-train']) {
    $(id).addEventListener('change', (e) => {
      if (!state.replica) return;
      ctx.ps.forwardWanted = e.target.value === 'forward';
      state.replica.target = ctx.ps.forwardWanted ? (lossCandidates(ctx)[0] ?? null) : null;
      changed();
    });
  }
  $('replica-target').addEventListener('change', (e) => {
    if (!state.replica) return;
    state.replica.target = e.target.value.trim() || null;
    changed();
  });
  $('replica-balance').addEventListener('change', (e) => {
    if (!state.replica) return;
    const v = num(e.target);
    state.replica.balance = v != null && v > 0 ? v : null;
    changed();
  });
  $('replica-aggregate').addEventListener('change', (e) => {
    if (!state.replica) return;
    state.replica.aggregate = e.target.checked;
    changed();
  });
  $('iterations').addEventListener('change', (e) => {
    const n = Math.round(Number(e.target.value));
    // The engine's most iterations per seed (limits(), src/scenario/mod.rs MAX_ITERATIONS).
    const max = ctx.limits.max_iterations;
    if (n >= 1 && n <= max) { state.iterations = n; changed(); return; }
    e.target.value = String(state.iterations);
    changed(`Iterations go from 1 to ${max} (the engine's limit); kept ${state.iterations}.`);
  });
  $('order-list').addEventListener('change', () => {
    const picked = [...$('order-list').querySelectorAll('input:checked')].map((b) => b.value);
    if (!picked.length) { changed(`Choose at least one link order; kept ${state.orders.join(', ')}.`); return; }
    const was = state.links;
    state.orders = picked;
    changed(needsFcfs(state) && was !== 'fcfs' ? 'Links set to fcfs: a link order other than fifo orders transfers that wait for a link.' : '');
  });
}

/** Forgets the panel's own choices (a link or a preset replaced the state). @param {Context} ctx */
export function resetPs(ctx) {
  ctx.ps.forwardWanted = false;
  ctx.ps.note = '';
}
