// The page's link: the state's fragment as the engine writes it (src/scenario/link/, through
// state.js's linkOf), kept in the address bar, and a fragment read back into a State. An
// upload too large to embed is written by its hash (uploads.js keeps those).
// Not here: the link format (the engine's codec), the State's fields (state.js), or
// opening a link (open.js: it replaces the state and runs).

import * as engine from './pkg/placesim.js';
import { linkOf, stateOf } from './state.js';
import { uploadHashes } from './uploads.js';

/** @typedef {import('./context.js').Context} Context */

/**
 * The state's link fragment, written by the engine (src/scenario/link/).
 * @param {Context} ctx @param {import('./state.js').State} s @returns {string}
 */
export function fragmentOf(ctx, s) {
  const link = linkOf(s, ctx.all);
  const hashed = s.upload && uploadHashes.get(s.upload);
  if (hashed) return engine.page_fragment(link.scenario, undefined, hashed, link.view);
  const f = engine.page_fragment(link.scenario, link.graphText, link.graphHash, link.view);
  if (s.upload && f.includes('&graphsha256=')) {
    const g = engine.read_link(f).graph;
    if (g.kind === 'hashed') uploadHashes.set(s.upload, { sha256: g.sha256, name: g.name });
  }
  return f;
}

/** Shows the state's link in the address bar; returns its fragment. @param {Context} ctx @returns {string} */
export function writeHash(ctx) {
  const f = fragmentOf(ctx, ctx.state);
  ctx.writtenHash = f;
  if (location.hash !== f) history.replaceState(null, '', f);
  return f;
}

/**
 * Keeps the address bar in step with the state (history.replaceState, no run needed). A
 * state the engine refuses to write (say, a duplicate device id) leaves the URL as it was:
 * the run says what is wrong.
 * @param {Context} ctx
 */
export function syncUrl(ctx) {
  try { writeHash(ctx); } catch { /* shown when run */ }
}

/** The state of a link fragment, read by the engine (src/scenario/link/). @param {Context} ctx @param {string} hash */
export function readLink(ctx, hash) {
  return stateOf(engine.read_link(hash), ctx.all);
}
