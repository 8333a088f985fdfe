// Small DOM and number helpers the page's modules share: elements by id, status lines,
// number inputs, downloads, debouncing.
// Not here: any state (State or the page's context), or anything the engine computes.

// Elements by id, untyped: the type check is for the engine's data and the State (an
// element's type is what index.html says, which tsc does not read).
/** @type {(id: string) => any} */
export const $ = (id) => document.getElementById(id);

/** Shows `text` in `el` (textContent), or hides `el` when there is none. @param {any} el @param {string} [text] */
export function show(el, text) {
  el.textContent = text || '';
  el.hidden = !text;
}

/** A status message ("link copied", ...) at the top of the results, where the user looks. @param {string} text */
export function notice(text) {
  show($('notice'), text);
}

/** An input's number, or null when it is empty or not a number. @param {any} input @returns {number | null} */
export function num(input) {
  const v = input.value.trim();
  if (v === '') return null;
  const x = Number(v);
  return Number.isFinite(x) ? x : null;
}

/** @param {any} input @param {number | null | undefined} x */
export function setNum(input, x) { input.value = x == null ? '' : formatNumber(x); }

/** A number as links write it: the shorter of the plain and the exponent form, both exact. @param {number} x */
export function formatNumber(x) {
  const plain = String(x).replace('e+', 'e');
  const exp = x.toExponential().replace('e+', 'e');
  return exp.length < plain.length ? exp : plain;
}

/** Saves a text or a Blob (a worker's, passed by reference) as a file. @param {string} name @param {string | Blob} text */
export function download(name, text, type = 'application/json') {
  const url = URL.createObjectURL(text instanceof Blob ? text : new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/**
 * `fn`, called `ms` after the last of a burst of calls.
 * @template {any[]} A @param {(...args: A) => void} fn @param {number} ms @returns {(...args: A) => void}
 */
export function debounce(fn, ms) {
  /** @type {any} */
  let t = null;
  return (...args) => { clearTimeout(t); t = setTimeout(() => fn(...args), ms); };
}
