// The page's one unit formatter: the results table, the charts (through charts/svg.js), the
// bounds, the what-if rows and the form's unit hints all print numbers through here.
//
// A scenario's numbers are in physical units (seconds, bytes, FLOP/s) or, when its device
// speeds are abstract (below 10^6 work per second, as in Mayer17's 10..100), in abstract
// units: then times and sizes are printed as "units" and never as seconds or kB
// (`setAbstractUnits`). Wall-clock times (how long a placer took here) are always seconds
// (`formatWallSeconds`).
//
// Not here: the DOM, or deciding which pair is best (app.js).

/** Device speeds below this (work per second) mean the scenario is in abstract units. */
export const ABSTRACT_SPEED = 1e6;

let abstract = false;

/** Prints times and sizes as abstract units (true) or seconds and bytes (false). */
export function setAbstractUnits(on) { abstract = !!on; }

/** Whether times and sizes print as abstract units. */
export function abstractUnits() { return abstract; }

/** Whether a cluster whose fastest device has this speed is in abstract units. */
export function isAbstractSpeed(maxSpeed) { return Number.isFinite(maxSpeed) && maxSpeed < ABSTRACT_SPEED; }

/** Decimal places needed to write x (in its unit) exactly, up to 9. */
export function decimalsFor(x) {
  x = Math.abs(x);
  for (let d = 0; d < 9; d++) {
    const s = x * 10 ** d;
    if (Math.abs(s - Math.round(s)) < 1e-6 * Math.max(1, s)) return d;
  }
  return 9;
}

/** A number with `digits` significant digits, without trailing zeros; large ones grouped. */
export function formatSig(x, digits = 3) {
  if (!Number.isFinite(x)) return '–';
  if (Math.abs(x) >= 1e15 || (x !== 0 && Math.abs(x) < 1e-6)) return x.toExponential(digits - 1).replace('e+', 'e');
  if (Math.abs(x) >= 10 ** digits) return Math.round(x).toLocaleString('en-US');
  return String(Number(x.toPrecision(digits)));
}

/** A plain count: 12, 1,234, 12.5 (means over seeds may be fractional). */
export function formatCount(x) {
  if (!Number.isFinite(x)) return '–';
  const r = Math.round(x * 10) / 10;
  return r.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

/** @type {[number, string][]} */
const TIME_UNITS = [[1, 's'], [1e-3, 'ms'], [1e-6, 'µs'], [1e-9, 'ns']];
/** @type {[number, string][]} */
const BYTE_UNITS = [[1e12, 'TB'], [1e9, 'GB'], [1e6, 'MB'], [1e3, 'kB'], [1, 'B']];
/** @type {[number, string][]} */
const SI = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, '']];

/** @param {[number, string][]} units @param {number} maxAbs @returns {[number, string]} */
function pick(units, maxAbs) {
  for (const u of units) if (maxAbs >= u[0]) return u;
  return units[units.length - 1];
}

/** Seconds as a short human string (1.23 s, 45.6 ms), or abstract time units. */
export function formatSeconds(s, digits = 3) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  if (abstract) return `${formatSig(s, digits)} units`;
  if (s === 0) return '0 s';
  const [scale, name] = pick(TIME_UNITS, Math.abs(s));
  return `${formatSig(s / scale, digits)} ${name}`;
}

/** Wall-clock seconds (always physical: how long something took in this browser). */
export function formatWallSeconds(s, digits = 3) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  if (s === 0) return '0 s';
  const [scale, name] = pick(TIME_UNITS, Math.abs(s));
  return `${formatSig(s / scale, digits)} ${name}`;
}

/** A formatter for time-axis ticks: one unit chosen by the largest value, decimals by the step. */
export function timeTickFormatter(maxAbs, step) {
  if (abstract) {
    const dec = decimalsFor(step);
    return (v) => (v === 0 ? '0' : Math.abs(v) >= 1e6 ? formatSig(v, 3) : v.toFixed(dec));
  }
  const [scale, name] = pick(TIME_UNITS, Math.abs(maxAbs) || Math.abs(step) || 1);
  const dec = decimalsFor(step / scale);
  return (v) => (v === 0 ? '0' : `${(v / scale).toFixed(dec)} ${name}`);
}

/** Bytes with decimal units (1 kB = 1000 B): 1.5 GB, 300 kB; or abstract size units. */
export function formatBytes(b, digits = 3) {
  if (b === null || b === undefined || !Number.isFinite(b)) return '–';
  if (abstract) return `${formatSig(b, digits)} units`;
  if (b === 0) return '0 B';
  const [scale, name] = pick(BYTE_UNITS, Math.abs(b));
  return `${formatSig(b / scale, digits)} ${name}`;
}

/** A formatter for byte-axis ticks. */
export function byteTickFormatter(maxAbs, step) {
  if (abstract) {
    const dec = decimalsFor(step);
    return (v) => (v === 0 ? '0' : Math.abs(v) >= 1e6 ? formatSig(v, 3) : v.toFixed(dec));
  }
  const [scale, name] = pick(BYTE_UNITS, Math.abs(maxAbs) || Math.abs(step) || 1);
  const dec = decimalsFor(step / scale);
  return (v) => (v === 0 ? '0' : `${(v / scale).toFixed(dec)} ${name}`);
}

/** A device speed (work per second): 15 TFLOP/s, or abstract work units per time unit. */
export function formatSpeed(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  if (abstract) return `${formatSig(x, digits)} units/unit`;
  const [scale, prefix] = pick(SI, Math.abs(x));
  return `${formatSig(x / scale, digits)} ${prefix}FLOP/s`;
}

/** A bandwidth (bytes per second): 10 GB/s, or abstract units. */
export function formatBandwidth(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  if (abstract) return `${formatSig(x, digits)} units/unit`;
  return `${formatBytes(x, digits)}/s`;
}

/** A ratio to a bound: 1.02×. */
export function formatRatio(x) {
  return Number.isFinite(x) ? `${formatSig(x, 3)}×` : '–';
}

/** The unit words for the form's labels: {time, bytes, speed, bandwidth}. */
export function unitNames() {
  return abstract
    ? { time: 'units', bytes: 'units', speed: 'work units per time unit', bandwidth: 'size units per time unit' }
    : { time: 's', bytes: 'bytes', speed: 'FLOP/s', bandwidth: 'bytes/s' };
}

/**
 * Whether `x` is within a relative tolerance of the best (smallest) value: floating-point
 * noise must not make nine rows "best" while a chart picks one.
 */
export const BEST_TOLERANCE = 1e-9;
/** @param {number} x @param {number} best */
export function isBest(x, best) {
  return Number.isFinite(x) && Number.isFinite(best) && x <= best + Math.abs(best) * BEST_TOLERANCE;
}

/** A rate per time unit: iterations per second (12.5 /s), or per abstract time unit. */
export function formatRate(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return `${formatSig(x, digits)} ${abstract ? '/unit' : '/s'}`;
}

/** A share of a whole as a percentage: 0.123 -> 12.3%. */
export function formatShare(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return `${formatSig(x * 100, digits)}%`;
}
