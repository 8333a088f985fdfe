// The page's one unit formatter: the results table, the charts (through charts/svg.js), the
// bounds, the what-if rows and the form's unit hints all print numbers through here.
//
// A scenario's numbers are in physical units (seconds, bytes, FLOP/s) or, when its device
// speeds are abstract (below 10^6 work per second, as in Mayer17's 10..100), in abstract
// units: then times and sizes are printed as "units" and never as seconds or kB
// (`setAbstractUnits`). Wall-clock times (how long a placer took here) are always seconds
// (`formatWallSeconds`).
//
// Not here: the DOM, or deciding which pair is best (pairs.js).

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
  if (x === 0) return 0;
  for (let d = 0; d < 9; d++) {
    const s = x * 10 ** d;
    // A step below one in the last place needs another decimal (1e-9 is not 0 decimals).
    if (s >= 0.5 && Math.abs(s - Math.round(s)) < 1e-6 * Math.max(1, s)) return d;
  }
  return 9;
}

/** Below this magnitude `formatSig` writes scientific notation (1.23e-5, not 0.0000123). */
const SCIENTIFIC_BELOW = 1e-4;

/**
 * A number with `digits` significant digits, without trailing zeros; large ones grouped,
 * tiny ones (below 10^-4) and huge ones (10^15 and up) in scientific notation: 1.23e-5.
 */
export function formatSig(x, digits = 3) {
  if (!Number.isFinite(x)) return '–';
  // From a million up, scientific: 12,856,072,248 would claim eleven digits where three are meant.
  if (Math.abs(x) >= 1e6 || (x !== 0 && Math.abs(Number(x.toPrecision(digits))) < SCIENTIFIC_BELOW)) {
    return Number(x.toPrecision(digits)).toExponential().replace('e+', 'e');
  }
  if (Math.abs(x) >= 10 ** digits) return Math.round(x).toLocaleString('en-US');
  return String(Number(x.toPrecision(digits)));
}

/** A plain count: 12, 1,234, 12.5 (means over seeds may be fractional). */
export function formatCount(x) {
  if (!Number.isFinite(x)) return '–';
  const r = Math.round(x * 10) / 10;
  return r.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

/** Largest first; below a tenth of the smallest (0.1 ps) a time is written in seconds, scientific: 7.8e-16 s. */
/** @type {[number, string][]} */
const TIME_UNITS = [[1, 's'], [1e-3, 'ms'], [1e-6, 'µs'], [1e-9, 'ns'], [1e-12, 'ps']];
/** @type {[number, string][]} */
const BYTE_UNITS = [[1e12, 'TB'], [1e9, 'GB'], [1e6, 'MB'], [1e3, 'kB'], [1, 'B']];
/** @type {[number, string][]} */
const SI = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, '']];

/**
 * The unit for a magnitude: the largest whose scale it reaches; the smallest down to a tenth
 * of it (0.78 ps reads well); null below that (the caller writes the base unit in scientific
 * notation).
 * @param {[number, string][]} units @param {number} maxAbs @returns {[number, string] | null}
 */
function pick(units, maxAbs) {
  for (const u of units) if (maxAbs >= u[0]) return u;
  const smallest = units[units.length - 1];
  return maxAbs >= smallest[0] / 10 ? smallest : null;
}

/**
 * `x` in the unit that suits it, with `digits` significant digits: 45.6 ms. A value that
 * rounds up to 1000 of its unit takes the next one (999.9996 µs -> 1 ms, not 1000 µs); one
 * below a tenth of the smallest unit is the base unit in scientific notation (7.8e-16 s).
 * @param {number} x @param {[number, string][]} units largest first, the base unit (scale 1) among them
 */
function scaled(x, units, digits) {
  const rounded = Math.abs(Number(x.toPrecision(digits)));
  const u = pick(units, rounded);
  if (!u) return `${formatSig(x, digits)} ${units.find((v) => v[0] === 1)?.[1]}`;
  return `${formatSig(x / u[0], digits)} ${u[1]}`;
}

/** Seconds as a short human string (1.23 s, 45.6 ms, 780 ps), or abstract time units. */
export function formatSeconds(s, digits = 3) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  if (abstract) return `${formatSig(s, digits)} units`;
  if (s === 0) return '0 s';
  return scaled(s, TIME_UNITS, digits);
}

/** Wall-clock seconds (always physical: how long something took in this browser). */
export function formatWallSeconds(s, digits = 3) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  if (s === 0) return '0 s';
  return scaled(s, TIME_UNITS, digits);
}

/**
 * A tick formatter: one unit for the axis, chosen by its largest value, decimals by the step;
 * abstract units print bare numbers (the axis title says "units"). An axis below the smallest
 * unit (or abstract and below 10^-4) prints scientific numbers of the base unit, with the
 * digits its step needs.
 * @param {[number, string][]} units
 */
function tickFormatter(units, maxAbs, step) {
  const top = Math.abs(maxAbs) || Math.abs(step) || 1;
  const sci = (suffix) => {
    const digits = Math.min(15, Math.max(1, Math.ceil(Math.log10(top / (Math.abs(step) || top))) + 1));
    return (v) => (v === 0 ? '0' : `${formatSig(v, digits)}${suffix}`);
  };
  if (abstract) {
    if (top >= 1e6) return (v) => (v === 0 ? '0' : formatSig(v, 3));
    if (top < SCIENTIFIC_BELOW) return sci('');
    const dec = decimalsFor(step);
    return (v) => (v === 0 ? '0' : v.toFixed(dec));
  }
  const u = pick(units, top);
  if (!u) return sci(` ${units.find((v) => v[0] === 1)?.[1]}`);
  const dec = decimalsFor(step / u[0]);
  return (v) => (v === 0 ? '0' : `${(v / u[0]).toFixed(dec)} ${u[1]}`);
}

/** A formatter for time-axis ticks: one unit chosen by the largest value, decimals by the step. */
export function timeTickFormatter(maxAbs, step) {
  return tickFormatter(TIME_UNITS, maxAbs, step);
}

/** Bytes with decimal units (1 kB = 1000 B): 1.5 GB, 300 kB; or abstract size units. */
export function formatBytes(b, digits = 3) {
  if (b === null || b === undefined || !Number.isFinite(b)) return '–';
  if (abstract) return `${formatSig(b, digits)} units`;
  if (b === 0) return '0 B';
  return scaled(b, BYTE_UNITS, digits);
}

/** A formatter for byte-axis ticks. */
export function byteTickFormatter(maxAbs, step) {
  return tickFormatter(BYTE_UNITS, maxAbs, step);
}

/** A device speed (work per second): 15 TFLOP/s, or abstract work units per time unit. */
export function formatSpeed(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  if (abstract) return `${formatSig(x, digits)} units/unit`;
  return scaled(x, SI.map(([k, p]) => [k, `${p}FLOP/s`]), digits);
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

/** A share of a whole as a percentage: 0.123 -> 12.3%; below 0.01% (not zero) "<0.01%". */
export function formatShare(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  if (x > 0 && x < 1e-4) return '<0.01%';
  return `${formatSig(x * 100, digits)}%`;
}
