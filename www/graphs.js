// The graph box: the bundled graph list, loading the state's graph (fetching a bundled
// one), uploads (graph JSON or an ONNX model, imported by the engine in a worker), the file
// a link names by its hash, and the drop zone. An upload is known by its SHA-256, computed
// once in a worker, so a big graph never blocks the main thread (uploads.js keeps it).
// A change marks the results stale and a given linked file runs, through the context's
// callbacks (ctx.on: the form and running are above this module).
// Not here: the cluster (controls.js), running anything (runner.js), the link's text (link.js).

import { scenarioOf } from './state.js';
import { $, show } from './dom.js';
import { knowUpload } from './uploads.js';
import { renderPs } from './ps.js';
import { readFrom } from './pool.js';

/** @typedef {import('./context.js').Context} Context */

/** What importing an uploaded ONNX model reported (ops not sized...), by upload. */
/** @type {WeakMap<object, string[]>} */
const importNotes = new WeakMap();

/**
 * Validates a graph's text in a worker (never on the main thread: a 48k-op graph takes
 * hundreds of ms): its summary; with `hash`, its SHA-256 and whether a link names it by
 * hash (too large to embed); with `linked`, throws unless it is the file a link names.
 * @param {Context} ctx @param {string} text @param {string} name
 * @param {{hash?: boolean, linked?: import('./types.js').GraphHash | null, validate?: boolean}} [opts]
 *   `validate: false`: hashing only (the pool's parse validates it: Pool.parseAhead), `info` null
 * @returns {Promise<{info: import('./types.js').GraphInfo, sha256: string | null, hashed: boolean}>}
 */
async function inspectGraph(ctx, text, name, opts = {}) {
  const m = await ctx.inspectRunner.run({
    type: 'inspect', graphText: text, name, hash: !!opts.hash, linked: opts.linked ?? null, validate: opts.validate ?? true,
  });
  return m.result;
}

/**
 * Loads the state's graph (fetches a bundled one) and validates it in a worker; `known` is
 * the summary of a text the worker has validated already (an upload). Whether it loaded.
 * @param {Context} ctx @param {import('./types.js').GraphInfo} [known] @returns {Promise<boolean>}
 */
export async function loadGraph(ctx, known) {
  const { state } = ctx;
  show($('graph-error'), '');
  $('hash-ask').hidden = true;
  $('unsized-ask').hidden = true;
  ctx.graphText = null;
  ctx.graphName = null;
  $('graph-info').textContent = '';
  if (state.graphHash) {
    $('hash-ask-text').textContent = `This link uses the graph '${state.graphHash.name}', which is too large to embed. `
      + `Give that file (SHA-256 ${state.graphHash.sha256}) to run it.`;
    $('hash-ask').hidden = false;
    return false;
  }
  let text;
  let name;
  if (state.upload) {
    text = state.upload.text;
    name = state.upload.name;
  } else {
    name = state.graph;
    try {
      const r = await fetch(`graphs/${encodeURIComponent(name)}.json`);
      if (!r.ok) throw new Error(`the bundled graph '${name}' is not on this site (HTTP ${r.status})`);
      text = await r.text();
    } catch (e) {
      show($('graph-error'), e.message);
      return false;
    }
  }
  try {
    const info = known ?? (await inspectGraph(ctx, text, name)).info;
    ctx.graphText = text;
    ctx.graphName = name;
    try { ctx.pool.preload(JSON.stringify(scenarioOf(state, ctx.all, false)), text); } catch { /* the run says why */ }
    // The timeline's worker gets the text now, in a task of its own, not in the run's last task.
    ctx.pairRunner.keepText(text);
    if (state.replica) renderPs(ctx); // the loss op candidates are this graph's
    $('graph-info').textContent = `${info.name}: ${info.nodes} ops, ${info.edges} edges, `
      + `${info.colocation_groups} colocation groups${state.upload ? ' (uploaded)' : ''}`
      + (state.upload ? (importNotes.get(state.upload) ?? []).map((n) => `\n${n}`).join('') : '');
    return true;
  } catch (e) {
    // Cancelled: a newer load's validation replaced this one's (inspectRunner runs one at a
    // time), and that load reports for itself; its cleared error box stays clear.
    if (!e.cancelled) show($('graph-error'), e.message);
    return false;
  }
}

/**
 * An uploaded file's graph JSON text and import notes: an ONNX model (`.onnx`, or protobuf's
 * first byte 0x08) is read and imported by the engine in a worker with the ONNX import options;
 * `allowUnsized`: go on when ops that carry FLOPs cannot be sized (they cost 0).
 * Graph JSON is read as text; the workers are sent the file rather than that text (pool.js readFrom).
 * @param {Context} ctx @param {File} file @param {boolean} [allowUnsized]
 * @returns {Promise<{text: string, notes: string[]}>}
 */
export async function readFile(ctx, file, allowUnsized = false) {
  const head = new Uint8Array(await file.slice(0, 1).arrayBuffer());
  if (!/\.onnx$/i.test(file.name) && head[0] !== 0x08) {
    if (file.size > 200 * 1024 * 1024) throw new Error(`${file.name}: a graph JSON file larger than 200 MB`);
    const text = await file.text();
    readFrom(text, file);
    return { text, notes: [] };
  }
  // protobuf's limit for one message, and so for an .onnx file without external data.
  if (file.size >= 2 ** 31) {
    throw new Error(`${file.name}: larger than 2 GiB, protobuf's limit for one .onnx file (save the weights as external data: the import reads only the .onnx file)`);
  }
  const batch = Number(/** @type {HTMLInputElement} */ ($('onnx-batch')).value);
  // The worker reads the File itself: a File is passed by reference, where its bytes would
  // be read and copied on this thread (vit_b_16, 346 MB: tasks of 150-161 ms; 961 MB: up to
  // 2.4 s; docs/bench.md "Session 16: ONNX files read in the worker").
  const m = await ctx.hashRunner.run({
    type: 'import', file, name: file.name,
    train: /** @type {HTMLInputElement} */ ($('onnx-train')).checked,
    batch: Number.isInteger(batch) && batch > 0 ? batch : 0,
    shapes: /** @type {HTMLInputElement} */ ($('onnx-shapes')).value.split(',').map((x) => x.trim()).filter(Boolean),
    dtype: /** @type {HTMLSelectElement} */ ($('onnx-dtype')).value,
    allowUnsized,
  });
  return /** @type {{text: string, notes: string[]}} */ (m.result);
}

/**
 * An ONNX model whose ops that carry FLOPs could not be sized: the error, and an offer to
 * import this file anyway with those ops at cost 0 (the engine's "unsized ops allowed").
 * The file stays with the button only, until the next upload.
 * @param {Context} ctx @param {File} file @param {string} message
 */
function offerUnsized(ctx, file, message) {
  show($('graph-error'), message);
  const ask = $('unsized-ask');
  ask.hidden = !/could not be sized/.test(message);
  /** @type {HTMLButtonElement} */ ($('unsized-go')).onclick = ask.hidden ? null : () => {
    ask.hidden = true;
    upload(ctx, file, true);
  };
}

/** @param {Context} ctx @param {File} file @param {boolean} [allowUnsized] */
async function upload(ctx, file, allowUnsized = false) {
  const { state } = ctx;
  show($('graph-error'), '');
  offerUnsized(ctx, file, '');
  let text;
  let notes;
  try {
    ({ text, notes } = await readFile(ctx, file, allowUnsized));
  } catch (e) {
    offerUnsized(ctx, file, e.message);
    return;
  }
  const stem = file.name.replace(/\.(json|onnx)$/i, '') || 'graph';
  // The pool's workers parse it meanwhile (the run after the upload does not wait for
  // them), the first one's parse validating it; the inspect worker only hashes it then.
  const parsed = ctx.pool.parseAhead(text, stem);
  parsed?.catch(() => {}); // handled below, unless the hashing failed first
  let r;
  try {
    r = await inspectGraph(ctx, text, stem, { hash: true, validate: !parsed });
    if (parsed) {
      try {
        r.info = await parsed;
      } catch (e) {
        if (!e.cancelled) throw e;
        // A run cancelled the parse: validated here instead.
        r.info = (await inspectGraph(ctx, text, stem)).info;
      }
    }
  } catch (e) {
    if (e.cancelled) return;
    // Keep the previous graph; say what is wrong with this file.
    show($('graph-error'), `${file.name}: ${e.message}`);
    return;
  }
  state.upload = { name: r.info.name, text };
  importNotes.set(state.upload, notes);
  state.graphHash = null;
  knowUpload(state.upload, r);
  renderGraphSelect(ctx);
  // An upload runs like a preset: the answer for the new graph, not a stale one.
  if (await loadGraph(ctx, r.info)) {
    ctx.on.stale();
    ctx.on.run({ reveal: true });
  } else ctx.on.stale();
}

/** @param {Context} ctx @param {File} file */
async function giveHashedFile(ctx, file) {
  const { state } = ctx;
  let text;
  try { ({ text } = await readFile(ctx, file)); } catch (e) { show($('graph-error'), e.message); return; }
  const linked = state.graphHash;
  if (!linked) return;
  let r;
  try {
    // The hash check (and the parse) in a worker: the main thread never hashes a big file.
    r = await inspectGraph(ctx, text, linked.name, { hash: true, linked });
  } catch (e) {
    if (e.cancelled) return;
    show($('graph-error'), `${file.name}: ${e.message}`);
    return;
  }
  state.upload = { name: linked.name, text };
  state.graphHash = null;
  knowUpload(state.upload, r);
  if (await loadGraph(ctx, r.info)) ctx.on.run();
}

/** The graph menu: the bundled graphs, and the upload or the linked file. @param {Context} ctx */
export function renderGraphSelect(ctx) {
  const { state, graphIndex } = ctx;
  const sel = $('graph-select');
  sel.replaceChildren();
  if (state.upload || state.graphHash) {
    const name = state.upload?.name ?? state.graphHash?.name;
    sel.append(new Option(`uploaded: ${name}`, ''));
  }
  for (const g of graphIndex) {
    sel.append(new Option(`${g.name} (${g.nodes} ops)`, g.name));
  }
  if (!state.upload && !state.graphHash && !graphIndex.some((g) => g.name === state.graph)) {
    sel.append(new Option(`${state.graph} (not on this site)`, state.graph));
  }
  sel.value = state.upload || state.graphHash ? '' : state.graph;
}

/** The graph menu, the file inputs and the drop zone. @param {Context} ctx */
export function bindGraphControls(ctx) {
  const { state } = ctx;
  $('graph-select').addEventListener('change', async (e) => {
    const v = e.target.value;
    if (!v) return;
    state.graph = v;
    state.upload = null;
    state.graphHash = null;
    renderGraphSelect(ctx);
    await loadGraph(ctx);
    ctx.on.stale();
  });
  $('graph-file').addEventListener('change', (e) => {
    if (e.target.files[0]) upload(ctx, e.target.files[0]);
    e.target.value = '';
  });
  $('hash-file').addEventListener('change', (e) => {
    if (e.target.files[0]) giveHashedFile(ctx, e.target.files[0]);
    e.target.value = '';
  });
  const zone = $('drop-zone');
  // The drop zone is a button too: Enter or Space (or a click) opens the file picker.
  zone.setAttribute('role', 'button');
  zone.addEventListener('keydown', (e) => {
    if (e.target !== zone || (e.key !== 'Enter' && e.key !== ' ')) return;
    e.preventDefault();
    (state.graphHash ? $('hash-file') : $('graph-file')).click();
  });
  zone.addEventListener('click', (e) => {
    if (e.target === zone || (e.target instanceof Element && e.target.tagName === 'SPAN' && !e.target.closest('label'))) {
      (state.graphHash ? $('hash-file') : $('graph-file')).click();
    }
  });
  for (const t of ['dragenter', 'dragover']) {
    zone.addEventListener(t, (e) => { e.preventDefault(); zone.classList.add('over'); });
  }
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    const f = e.dataTransfer?.files?.[0];
    if (f) (state.graphHash ? giveHashedFile(ctx, f) : upload(ctx, f));
  });
  // A file dropped elsewhere must not navigate away from the page.
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());
}
