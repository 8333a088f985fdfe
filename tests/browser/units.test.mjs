// Unit tests of the page's one unit formatter (www/units.js), in node (the module has no DOM):
// hand-written expectations for tiny, boundary and abstract values.
// Run: cd tests/browser && node --test units.test.mjs (make test-browser runs it too).

import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatSig, formatSeconds, formatWallSeconds, formatBytes, formatSpeed, formatBandwidth, formatShare,
  timeTickFormatter, byteTickFormatter, setAbstractUnits, isAbstractSpeed,
} from '../../www/units.js';

afterEach(() => setAbstractUnits(false));

test('formatSig: significant digits, no trailing zeros, grouping, scientific only when tiny or huge', () => {
  assert.equal(formatSig(0.035114), '0.0351');
  assert.equal(formatSig(1.5), '1.5');
  assert.equal(formatSig(2), '2');
  assert.equal(formatSig(0), '0');
  assert.equal(formatSig(12345), '12,345');
  assert.equal(formatSig(0.00078), '0.00078');
  assert.equal(formatSig(0.0001), '0.0001');
  assert.equal(formatSig(0.0000123456), '1.23e-5');
  assert.equal(formatSig(-0.0000123456), '-1.23e-5');
  // 0.000099996 rounds to 0.0001 at 3 digits: printed as that, not as 1e-4.
  assert.equal(formatSig(0.000099996), '0.0001');
  assert.equal(formatSig(7.8e-13), '7.8e-13');
  assert.equal(formatSig(2.5e16), '2.5e16');
  assert.equal(formatSig(Infinity), '–');
  assert.equal(formatSig(NaN), '–');
});

test('formatSeconds: sub-nanosecond times in ps, below a picosecond in scientific seconds', () => {
  // The case: 7.8e-13 s printed as "0.00078 ns".
  assert.equal(formatSeconds(7.8e-13), '0.78 ps');
  assert.equal(formatSeconds(7.8e-12), '7.8 ps');
  assert.equal(formatSeconds(4.2e-10), '420 ps');
  assert.equal(formatSeconds(1e-9), '1 ns');
  assert.equal(formatSeconds(3.5114e-2), '35.1 ms');
  assert.equal(formatSeconds(2), '2 s');
  assert.equal(formatSeconds(0), '0 s');
  assert.equal(formatSeconds(-2.5e-6), '-2.5 µs');
  // Below a tenth of a picosecond: the base unit in scientific notation, never "0.00078 ps".
  assert.equal(formatSeconds(1e-13), '0.1 ps');
  assert.equal(formatSeconds(9e-14), '9e-14 s');
  assert.equal(formatSeconds(7.8e-16), '7.8e-16 s');
  assert.equal(formatSeconds(null), '–');
  assert.equal(formatSeconds(Infinity), '–');
  assert.equal(formatWallSeconds(7.8e-13), '0.78 ps');
});

test('formatSeconds: a value that rounds to 1000 of its unit takes the next unit', () => {
  assert.equal(formatSeconds(0.0009999996), '1 ms');
  assert.equal(formatSeconds(0.0009994), '999 µs');
  assert.equal(formatSeconds(0.9999), '1 s');
  assert.equal(formatSeconds(9.9996e-10), '1 ns');
  assert.equal(formatSeconds(0.0009999996, 6), '1 ms');
  assert.equal(formatSeconds(0.000123456789, 6), '123.457 µs');
  assert.equal(formatBytes(999999), '1 MB');
  assert.equal(formatBytes(999499), '999 kB');
});

test('formatBytes, formatSpeed, formatBandwidth: decimal units, tiny values scientific', () => {
  assert.equal(formatBytes(1500), '1.5 kB');
  assert.equal(formatBytes(2.5e9), '2.5 GB');
  assert.equal(formatBytes(12), '12 B');
  assert.equal(formatBytes(0.5), '0.5 B');
  assert.equal(formatBytes(3e-7), '3e-7 B');
  assert.equal(formatSpeed(1.5e13), '15 TFLOP/s');
  assert.equal(formatSpeed(0.25), '0.25 FLOP/s');
  assert.equal(formatBandwidth(1e10), '10 GB/s');
  // A share: a percentage, tiny ones (a few kB of a 550 GB host) as "<0.01%", never 4.3e-5%.
  assert.equal(formatShare(0.123), '12.3%');
  assert.equal(formatShare(4.3e-7), '<0.01%');
  assert.equal(formatShare(1e-4), '0.01%');
  assert.equal(formatShare(0), '0%');
});

test('abstract units: every time and size says "units", tiny ones scientific', () => {
  setAbstractUnits(true);
  assert.equal(formatSeconds(7.8e-13), '7.8e-13 units');
  assert.equal(formatSeconds(0.00078), '0.00078 units');
  assert.equal(formatSeconds(42.5), '42.5 units');
  assert.equal(formatSeconds(123456), '123,456 units');
  assert.equal(formatBytes(3e-7), '3e-7 units');
  assert.equal(formatSpeed(50), '50 units/unit');
  assert.ok(isAbstractSpeed(100) && !isAbstractSpeed(1e12));
});

test('tick formatters: one unit per axis, ps for sub-nanosecond axes, scientific below', () => {
  let f = timeTickFormatter(2e-12, 5e-13);
  assert.deepEqual([0, 5e-13, 1e-12, 1.5e-12].map(f), ['0', '0.5 ps', '1.0 ps', '1.5 ps']);
  f = timeTickFormatter(0.04, 0.01);
  assert.deepEqual([0, 0.01, 0.02].map(f), ['0', '10 ms', '20 ms']);
  f = timeTickFormatter(4e-13, 1e-13);
  assert.deepEqual([0, 1e-13, 2e-13].map(f), ['0', '0.1 ps', '0.2 ps']);
  f = timeTickFormatter(2e-15, 5e-16);
  assert.deepEqual([0, 5e-16, 1e-15].map(f), ['0', '5e-16 s', '1e-15 s']);
  // A deep zoom late in a run: the axis's unit, with the decimals its step needs.
  f = timeTickFormatter(1, 1e-9);
  assert.deepEqual([0.500000001, 0.500000002].map(f), ['0.500000001 s', '0.500000002 s']);
  f = byteTickFormatter(3e9, 1e9);
  assert.deepEqual([0, 1e9, 2e9].map(f), ['0', '1 GB', '2 GB']);
  setAbstractUnits(true);
  f = timeTickFormatter(40, 10);
  assert.deepEqual([0, 10, 20].map(f), ['0', '10', '20']);
  f = timeTickFormatter(4e-9, 1e-9);
  assert.deepEqual([0, 1e-9, 2e-9].map(f), ['0', '1e-9', '2e-9']);
  f = timeTickFormatter(4e6, 1e6);
  assert.deepEqual([1e6, 2e6].map(f), ['1e6', '2e6']);
  // Issue 25: a large abstract figure keeps its three digits (the docs' example link).
  assert.equal(formatSeconds(12856072248), '1.29e10 units');
});
