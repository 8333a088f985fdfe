// Unit tests of www/timeline-data.js in node: the engine's Timeline -> the typed arrays the
// page's timeline draws from (lane order, moved buffers), node ids as one string, and search.
// Run: cd tests/browser && node --test timeline-data.test.mjs (make test-browser runs it too).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactTimeline, namesOf, nodeName, findNames, laneArrays, laneBuffers } from '../../www/timeline-data.js';

/** A hand-made Timeline (report::trace::timeline's shape): 4 ops on 2 devices, 3 transfers. */
function timeline() {
  return {
    makespan: 7, lower_bound: 4, placement_seconds: 0.001,
    devices: [{ id: 'gpu0', kind: 'gpu' }, { id: 'gpu1', kind: 'gpu' }],
    nodes: ['conv/a', 'conv/b', 'relu', 'Ünïcode'],
    op_types: ['Conv', 'Relu'],
    op_type: [0, 0, 1, 1],
    // d1 runs op 3 at 1 and op 1 at 1 (a tie: index order), d0 runs op 2 at 5, op 0 at 0.
    ops: [[0, 0, 2], [1, 1, 3], [0, 5, 7], [1, 1, 1.5]],
    // Link 1 -> 0 twice (out of start order), 0 -> 1 once; one with ready before start.
    transfers: [[1, 0, 3, 4, 5, 100, 1], [0, 1, 2, 2, 3, 50, 0], [1, 0, 3, 3, 3.5, 10, 3]],
    memory: [[0, 10, 2, 0], [1, 5]],
    ready: [0, 1, 5, 1],
    edges: [0, 1, 50, 1, 2, 100],
    critical_path: { steps: [{ op: 0 }, { transfer: 1 }, { op: 1 }, { transfer: 0 }, { op: 2 }], idle: 1 },
  };
}

test('compactTimeline: typed arrays in lane order, every buffer moved', () => {
  const tl = timeline();
  const names = namesOf(tl.nodes, 1);
  const { data, transfer } = compactTimeline(tl, names);
  assert.deepEqual([...data.op_device], [0, 1, 0, 1]);
  assert.deepEqual([...data.op_start], [0, 1, 5, 1]);
  assert.deepEqual([...data.op_end], [2, 3, 7, 1.5]);
  assert.deepEqual([...data.op_type], [0, 0, 1, 1]);
  // By device, then start, then index: d0 (0 at 0, 2 at 5), d1 (1 and 3 both at 1: 1 first).
  assert.deepEqual([...data.op_order], [0, 2, 1, 3]);
  // By link (src * 2 + dst: 0 -> 1 is 1, 1 -> 0 is 2), then start.
  assert.deepEqual([...data.tr_order], [1, 2, 0]);
  assert.deepEqual([...data.tr_src], [1, 0, 1]);
  assert.deepEqual([...data.tr_ready], [3, 2, 3]);
  assert.deepEqual([...data.tr_bytes], [100, 50, 10]);
  assert.deepEqual([...data.tr_producer], [1, 0, 3]);
  assert.deepEqual([...data.critical], [0, -2, 1, -1, 2]);
  assert.equal(data.critical_idle, 1);
  assert.deepEqual(data.memory.map((m) => [...m]), [[0, 10, 2, 0], [1, 5]]);
  assert.deepEqual([...data.edges], [0, 1, 50, 1, 2, 100]);
  assert.equal(data.names, names);
  // Each typed array's buffer is in the transfer list once (none is shared).
  const arrays = [data.op_type, data.op_device, data.op_start, data.op_end, data.op_order, data.tr_src, data.tr_dst,
    data.tr_ready, data.tr_start, data.tr_end, data.tr_bytes, data.tr_producer, data.tr_order, ...data.memory,
    data.ready, data.edges, data.critical, names.ends];
  assert.equal(new Set(transfer).size, transfer.length);
  for (const a of arrays) assert.ok(transfer.includes(a.buffer));
  assert.equal(transfer.length, arrays.length);
  // Without names (the page has them): none sent, nor their buffer.
  const again = compactTimeline(timeline(), null);
  assert.equal(again.data.names, null);
  assert.equal(again.transfer.length, arrays.length - 1);
});

test('compactTimeline: entries that are not numbers stay out of the lanes', () => {
  const tl = timeline();
  tl.ops[2] = [5, 0, 1]; // no such device
  tl.ops[3] = [1, Number.NaN, 1];
  tl.transfers[1] = [0, 9, 0, 0, 1, 1, 0];
  tl.ops[0] = [0, 3, 2]; // ends before it starts: drawn as an instant
  const { data } = compactTimeline(tl, null);
  assert.deepEqual([...data.op_device], [0, 1, -1, -1]);
  assert.deepEqual([...data.op_order], [0, 1]);
  assert.equal(data.op_end[0], 3);
  assert.deepEqual([...data.tr_order], [2, 0]);
});

test('names: one string, each id sliced back; search within ids only, case-insensitive', () => {
  const names = namesOf(['conv/a', 'conv/b', 'relu', 'Ünïcode', ''], 3);
  assert.equal(names.seq, 3);
  assert.equal(names.text, 'conv/aconv/breluÜnïcode');
  assert.deepEqual(['conv/a', 'conv/b', 'relu', 'Ünïcode', ''], [0, 1, 2, 3, 4].map((v) => nodeName(names, v)));
  assert.equal(nodeName(names, 9), '9');
  assert.deepEqual(findNames(names, 'CONV'), [0, 1]);
  assert.deepEqual(findNames(names, 'ünï'), [3]);
  // 'aconv' and 'brelu' exist only across two ids: no match.
  assert.deepEqual(findNames(names, 'aconv'), []);
  assert.deepEqual(findNames(names, 'brelu'), []);
  assert.deepEqual(findNames(names, 'e'), [2, 3]);
  assert.deepEqual(findNames(names, ''), []);
  // An id whose lower case is longer (İ -> i̇) is still found, one id at a time.
  const odd = namesOf(['İstanbul', 'x/İzmir', 'other'], 1);
  assert.deepEqual(findNames(odd, 'i̇z'), [1]);
  assert.deepEqual(findNames(odd, 'other'), [2]);
});

test('laneArrays: each lane a range of the order, its intervals, every item placed in its lane', () => {
  const { data } = compactTimeline(timeline(), null);
  const la = laneArrays(data);
  // d0: op_order[0, 2) = ops 0 (0-2) and 2 (5-7); d1: [2, 4) = ops 1 (1-3) and 3 (1-1.5).
  assert.deepEqual([...la.devRange], [0, 2, 2, 4]);
  assert.deepEqual([...la.opStarts], [0, 5, 1, 1]);
  assert.deepEqual([...la.opEnds], [2, 7, 3, 1.5]);
  // A running maximum, restarted at d1's first op.
  assert.deepEqual([...la.opMaxEnd], [2, 7, 3, 3]);
  assert.deepEqual([...la.opLane], [0, 1, 0, 1]);
  assert.deepEqual([...la.opPos], [0, 0, 1, 1]);
  // Links 0 -> 1 (key 1: transfer 1) and 1 -> 0 (key 2: transfers 2 then 0), lanes 2 and 3.
  assert.deepEqual([...la.links], [1, 0, 1, 2, 1, 3]);
  assert.deepEqual([...la.trStarts], [2, 3, 4]);
  assert.deepEqual([...la.trMaxEnd], [3, 3.5, 5]);
  assert.deepEqual([...la.xLane], [3, 2, 3]);
  assert.deepEqual([...la.xPos], [1, 0, 0]);
  assert.deepEqual([...la.typeTime], [4, 2.5]);
  assert.deepEqual([...la.typeCount], [2, 2]);
  assert.equal(la.opEndMax, 7);
  assert.equal(la.trEndMax, 5);
  assert.deepEqual(la.memT.map((m) => [...m]), [[0, 2], [1]]);
  assert.deepEqual(la.memB.map((m) => [...m]), [[10, 0], [5]]);
  assert.deepEqual([...la.memMax], [10, 5]);
  const buffers = laneBuffers(la);
  assert.equal(new Set(buffers).size, buffers.length);
});
