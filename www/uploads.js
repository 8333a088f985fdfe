// What the page knows of an upload, by upload (the State's `upload` object): the SHA-256
// of its text (the engine's graph_sha256, computed once per upload in a worker, so a big
// graph never blocks the main thread), and, for one too large to embed in a link, the hash
// the link names it by. Shared by the graph box (graphs.js, which learns them), the link
// (link.js) and running (runner.js: a comparison's key).
// Not here: reading or validating an upload (graphs.js), the link's text (link.js).

/** @typedef {import('./context.js').Context} Context */

// An upload's SHA-256, asked once.
/** @type {WeakMap<object, Promise<string>>} */
const uploadShas = new WeakMap();

// An upload too large to embed is written by its hash, computed once per upload.
/** @type {WeakMap<object, import('./types.js').GraphHash>} */
export const uploadHashes = new WeakMap();

/** An upload's SHA-256, hashed in a worker the first time. @param {Context} ctx @param {{name: string, text: string}} u @returns {Promise<string>} */
export function uploadSha(ctx, u) {
  const known = uploadShas.get(u);
  if (known) return known;
  const p = ctx.hashRunner.run({ type: 'sha256', text: u.text }).then((m) => m.result);
  p.catch(() => uploadShas.delete(u)); // cancelled or failed: asked again next time
  uploadShas.set(u, p);
  return p;
}

/** What a worker's check of an upload found: its SHA-256, and whether a link names it by hash. @param {{name: string, text: string}} u @param {{sha256: string | null, hashed: boolean}} r */
export function knowUpload(u, r) {
  if (r.sha256) uploadShas.set(u, Promise.resolve(r.sha256));
  if (r.sha256 && r.hashed) uploadHashes.set(u, { sha256: r.sha256, name: u.name });
}
