// A run's timeline as the page receives it from a worker: typed arrays (moved to the page,
// never copied or decoded object by object), with ops and transfers already in the order the
// chart's lanes draw them (by device or link, then by start). worker.js builds it from the
// engine's `Timeline` (report::trace::timeline), so that switching the timeline's pair on a
// 48,000-op graph costs the main thread a few linear passes instead of decoding and sorting
// hundreds of thousands of small objects. Node ids go once per graph (see `TimelineNames`).
//
//   compactTimeline(tl, names)   the engine's Timeline -> TimelineData and its buffers (worker)
//   namesOf(nodes)               node ids -> TimelineNames (worker)
//   laneArrays(data)             the lanes' per-op arrays the chart's layout reads (worker)
//   nodeName(names, v)           node v's id (page)
//   findNames(names, query)      nodes whose id contains a text, case-insensitive (page)
//
// Not here: drawing, or anything the engine computes.

/**
 * Node ids as one string and where each ends: id v is `text.slice(ends[v - 1] ?? 0, ends[v])`.
 * One string clones as one copy, where 48,000 strings clone (and are collected) one by one.
 * @typedef {object} TimelineNames
 * @property {number} seq which names these are (worker.js numbers each set it sends)
 * @property {string} text
 * @property {Uint32Array} ends
 */

/**
 * @typedef {object} TimelineData One run's schedule in typed arrays (times in seconds, sizes in
 * bytes). An op or transfer the run did not record has device (or src) -1 and is in no lane.
 * @property {number} makespan
 * @property {number} lower_bound
 * @property {number} placement_seconds
 * @property {import('./types.js').TimelineDevice[]} devices
 * @property {string[]} op_types
 * @property {TimelineNames | null} names null when the worker left them out (the page has them)
 * @property {Uint32Array} op_type per node, an index into op_types
 * @property {Int32Array} op_device per node
 * @property {Float64Array} op_start per node
 * @property {Float64Array} op_end per node (at least its start)
 * @property {Uint32Array} op_order the recorded ops by (device, start, index)
 * @property {Int32Array} tr_src per transfer
 * @property {Int32Array} tr_dst
 * @property {Float64Array} tr_ready
 * @property {Float64Array} tr_start
 * @property {Float64Array} tr_end (at least its start)
 * @property {Float64Array} tr_bytes
 * @property {Uint32Array} tr_producer the node whose output it carries
 * @property {Uint32Array} tr_order the recorded transfers by (src, dst, start, index)
 * @property {Float64Array[]} memory per device: [t0, bytes0, t1, bytes1, ...]
 * @property {Float64Array} ready per node: when its last input was on its device
 * @property {Float64Array} edges the graph's edges flattened: [src, dst, bytes, ...]
 * @property {Int32Array} critical the critical path in time order: op v as v, transfer x as -1 - x
 * @property {number} critical_idle seconds on the critical path where nothing on it ran
 * @property {LaneArrays} [lanes] the lanes' arrays, made by the worker (`laneArrays`); the
 *   chart makes them itself when absent
 */

/**
 * @typedef {object} LaneArrays What the chart's layout (charts/timeline/layout.js `prepare`)
 * computes per op and transfer, computed in the worker: a lane per device (its ops are the
 * range [a, b) of op_order), then a lane per busy link (a range of tr_order).
 * @property {Int32Array} devRange per device: a, b
 * @property {Float64Array} opStarts op_order's starts, ends, and running maximum of ends (restarted per device)
 * @property {Float64Array} opEnds
 * @property {Float64Array} opMaxEnd
 * @property {Int32Array} links per busy link, in tr_order: key (src * devices + dst), a, b
 * @property {Float64Array} trStarts tr_order's starts, ends, and running maximum of ends (restarted per link)
 * @property {Float64Array} trEnds
 * @property {Float64Array} trMaxEnd
 * @property {Int32Array} opLane per node: its lane (-1: none) and position in it
 * @property {Int32Array} opPos
 * @property {Int32Array} xLane per transfer: likewise
 * @property {Int32Array} xPos
 * @property {Float64Array} typeTime per op type: seconds of its recorded ops, and their count
 * @property {Int32Array} typeCount
 * @property {number} opEndMax the latest op end (-Infinity: none)
 * @property {number} trEndMax the latest transfer end or ready time (-Infinity: none)
 * @property {Float64Array[]} memT per device: its memory curve's times and bytes
 * @property {Float64Array[]} memB
 * @property {Float64Array} memMax per device: the curve's largest bytes (-Infinity: none)
 */

/**
 * Runs of equal `key` in `order` (sorted by key): [key, a, b] triples.
 * @param {Uint32Array} order @param {(i: number) => number} key
 */
function runs(order, key) {
  const out = [];
  for (let a = 0; a < order.length;) {
    const k = key(order[a]);
    let b = a + 1;
    while (b < order.length && key(order[b]) === k) b++;
    out.push(k, a, b);
    a = b;
  }
  return out;
}

/**
 * A range's starts, ends and running maximum of ends, restarted at each run.
 * @param {Uint32Array} order @param {number[]} ranges [key, a, b, ...]
 * @param {Float64Array} startOf @param {Float64Array} endOf
 */
function intervals(order, ranges, startOf, endOf) {
  const n = order.length;
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  const maxEnd = new Float64Array(n);
  for (let r = 0; r < ranges.length; r += 3) {
    let m = -Infinity;
    for (let i = ranges[r + 1]; i < ranges[r + 2]; i++) {
      starts[i] = startOf[order[i]];
      ends[i] = endOf[order[i]];
      if (ends[i] > m) m = ends[i];
      maxEnd[i] = m;
    }
  }
  return { starts, ends, maxEnd };
}

/**
 * The lanes' per-op and per-transfer arrays of a timeline (`LaneArrays`): made in the worker
 * beside the timeline, so that the page's main thread does not walk a 48,000-op run to lay
 * it out (the layout's passes were most of a long task: docs/bench.md, issue 24m).
 * @param {TimelineData} tl @returns {LaneArrays}
 */
export function laneArrays(tl) {
  const D = tl.devices.length;
  const N = tl.op_start.length;
  const X = tl.tr_start.length;
  const T = tl.op_types.length;
  const typeTime = new Float64Array(T);
  const typeCount = new Int32Array(T);
  let opEndMax = -Infinity;
  for (const v of tl.op_order) {
    const t = tl.op_type[v];
    if (t < T) {
      typeTime[t] += tl.op_end[v] - tl.op_start[v];
      typeCount[t] += 1;
    }
    if (tl.op_end[v] > opEndMax) opEndMax = tl.op_end[v];
  }
  const devRuns = runs(tl.op_order, (v) => tl.op_device[v]);
  const devRange = new Int32Array(2 * D);
  for (let r = 0; r < devRuns.length; r += 3) {
    const d = devRuns[r];
    if (d >= 0 && d < D) { devRange[2 * d] = devRuns[r + 1]; devRange[2 * d + 1] = devRuns[r + 2]; }
  }
  const ops = intervals(tl.op_order, devRuns, tl.op_start, tl.op_end);
  let trEndMax = -Infinity;
  for (const x of tl.tr_order) {
    if (tl.tr_end[x] > trEndMax) trEndMax = tl.tr_end[x];
    if (tl.tr_ready[x] > trEndMax) trEndMax = tl.tr_ready[x];
  }
  const linkRuns = runs(tl.tr_order, (x) => tl.tr_src[x] * D + tl.tr_dst[x]);
  const trs = intervals(tl.tr_order, linkRuns, tl.tr_start, tl.tr_end);
  const opLane = new Int32Array(N).fill(-1);
  const opPos = new Int32Array(N);
  for (let d = 0; d < D; d++) {
    for (let i = devRange[2 * d]; i < devRange[2 * d + 1]; i++) {
      opLane[tl.op_order[i]] = d;
      opPos[tl.op_order[i]] = i - devRange[2 * d];
    }
  }
  const xLane = new Int32Array(X).fill(-1);
  const xPos = new Int32Array(X);
  for (let r = 0; r < linkRuns.length; r += 3) {
    for (let i = linkRuns[r + 1]; i < linkRuns[r + 2]; i++) {
      xLane[tl.tr_order[i]] = D + r / 3;
      xPos[tl.tr_order[i]] = i - linkRuns[r + 1];
    }
  }
  const memT = [];
  const memB = [];
  const memMax = new Float64Array(D).fill(-Infinity);
  for (let d = 0; d < D; d++) {
    const curve = tl.memory[d] ?? new Float64Array(0);
    const m = curve.length >> 1;
    const mt = new Float64Array(m);
    const mb = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      mt[i] = curve[2 * i];
      mb[i] = curve[2 * i + 1];
      if (mb[i] > memMax[d]) memMax[d] = mb[i];
    }
    memT.push(mt);
    memB.push(mb);
  }
  return {
    devRange, opStarts: ops.starts, opEnds: ops.ends, opMaxEnd: ops.maxEnd,
    links: Int32Array.from(linkRuns), trStarts: trs.starts, trEnds: trs.ends, trMaxEnd: trs.maxEnd,
    opLane, opPos, xLane, xPos, typeTime, typeCount, opEndMax, trEndMax, memT, memB, memMax,
  };
}

/** The buffers of a LaneArrays, to move it. @param {LaneArrays} la @returns {ArrayBuffer[]} */
export function laneBuffers(la) {
  return [la.devRange, la.opStarts, la.opEnds, la.opMaxEnd, la.links, la.trStarts, la.trEnds, la.trMaxEnd,
    la.opLane, la.opPos, la.xLane, la.xPos, la.typeTime, la.typeCount, ...la.memT, ...la.memB, la.memMax]
    .map((a) => /** @type {ArrayBuffer} */ (a.buffer));
}

/** @param {string[]} nodes @param {number} seq @returns {TimelineNames} */
export function namesOf(nodes, seq) {
  const ends = new Uint32Array(nodes.length);
  let at = 0;
  for (let v = 0; v < nodes.length; v++) {
    at += String(nodes[v]).length;
    ends[v] = at;
  }
  return { seq, text: nodes.join(''), ends };
}

/** Node v's id. @param {TimelineNames} names @param {number} v */
export function nodeName(names, v) {
  if (!(v >= 0 && v < names.ends.length)) return String(v);
  return names.text.slice(v > 0 ? names.ends[v - 1] : 0, names.ends[v]);
}

/** The index i with ends[i - 1] <= at < ends[i] (the node whose id holds position `at`). */
function nodeAt(ends, at) {
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ends[mid] <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Lower-cased ids, kept per names object (built on the first search). */
const lowered = new WeakMap();

/**
 * Nodes whose id contains `query` (case-insensitive), ascending. Searches the one string of
 * ids: a hit that runs across two ids is no match.
 * @param {TimelineNames} names @param {string} query @returns {number[]}
 */
export function findNames(names, query) {
  const q = query.toLowerCase();
  if (!q) return [];
  let low = lowered.get(names);
  if (low === undefined) {
    low = names.text.toLowerCase();
    // Lower-casing may change a string's length (İ -> i̇): then ids are searched one by one.
    if (low.length !== names.text.length) low = null;
    lowered.set(names, low);
  }
  const found = [];
  if (low === null) {
    for (let v = 0; v < names.ends.length; v++) if (nodeName(names, v).toLowerCase().includes(q)) found.push(v);
    return found;
  }
  let at = low.indexOf(q);
  while (at >= 0) {
    const v = nodeAt(names.ends, at);
    if (at + q.length <= names.ends[v]) {
      found.push(v);
      at = low.indexOf(q, names.ends[v]);
    } else {
      at = low.indexOf(q, at + 1);
    }
  }
  return found;
}

/**
 * Indices of the items with a lane (lane[i] >= 0), by (lane, start, index).
 * @param {Int32Array | Float64Array} lane @param {Float64Array} start
 */
function laneOrder(lane, start) {
  const out = [];
  for (let i = 0; i < lane.length; i++) if (lane[i] >= 0) out.push(i);
  const order = Uint32Array.from(out);
  order.sort((a, b) => lane[a] - lane[b] || start[a] - start[b] || a - b);
  return order;
}

const finite = (x) => typeof x === 'number' && Number.isFinite(x);

/**
 * The engine's Timeline as TimelineData, and the buffers to move with it. `names` are the
 * node ids to send (null: the page has them). Entries that are not numbers where numbers
 * belong (never from the engine) are left out of the lanes rather than drawn wrong.
 * @param {import('./types.js').Timeline} tl @param {TimelineNames | null} names
 * @returns {{data: TimelineData, transfer: ArrayBuffer[]}}
 */
export function compactTimeline(tl, names) {
  const D = tl.devices.length;
  const N = tl.nodes.length;
  const opType = new Uint32Array(N);
  const opDevice = new Int32Array(N).fill(-1);
  const opStart = new Float64Array(N);
  const opEnd = new Float64Array(N);
  for (let v = 0; v < N; v++) {
    const t = tl.op_type[v];
    opType[v] = Number.isInteger(t) && t >= 0 ? t : 0;
    const o = tl.ops[v];
    if (!Array.isArray(o)) continue;
    const [d, s, e] = o;
    if (!(Number.isInteger(d) && d >= 0 && d < D && finite(s) && finite(e))) continue;
    opDevice[v] = d;
    opStart[v] = s;
    opEnd[v] = Math.max(s, e);
  }
  const X = tl.transfers.length;
  const trSrc = new Int32Array(X).fill(-1);
  const trDst = new Int32Array(X).fill(-1);
  const trReady = new Float64Array(X);
  const trStart = new Float64Array(X);
  const trEnd = new Float64Array(X);
  const trBytes = new Float64Array(X);
  const trProducer = new Uint32Array(X);
  const trLink = new Int32Array(X).fill(-1);
  for (let x = 0; x < X; x++) {
    const t = tl.transfers[x];
    if (!Array.isArray(t)) continue;
    const [src, dst, ready, start, end, bytes, producer] = t;
    if (!(Number.isInteger(src) && Number.isInteger(dst) && src >= 0 && dst >= 0 && src < D && dst < D)) continue;
    if (!(finite(start) && finite(end))) continue;
    trSrc[x] = src;
    trDst[x] = dst;
    trLink[x] = src * D + dst;
    trReady[x] = finite(ready) ? ready : start;
    trStart[x] = start;
    trEnd[x] = Math.max(start, end);
    trBytes[x] = finite(bytes) ? bytes : 0;
    trProducer[x] = Number.isInteger(producer) && producer >= 0 ? producer : 0;
  }
  const memory = tl.memory.map((m) => Float64Array.from(m ?? [], (b) => (finite(b) ? b : 0)));
  const steps = tl.critical_path?.steps ?? [];
  const critical = Int32Array.from(steps, (st) => ('op' in st ? st.op : -1 - st.transfer));
  const data = {
    makespan: tl.makespan,
    lower_bound: tl.lower_bound,
    placement_seconds: tl.placement_seconds,
    devices: tl.devices,
    op_types: tl.op_types,
    names,
    op_type: opType,
    op_device: opDevice,
    op_start: opStart,
    op_end: opEnd,
    op_order: laneOrder(opDevice, opStart),
    tr_src: trSrc,
    tr_dst: trDst,
    tr_ready: trReady,
    tr_start: trStart,
    tr_end: trEnd,
    tr_bytes: trBytes,
    tr_producer: trProducer,
    tr_order: laneOrder(trLink, trStart),
    memory,
    ready: Float64Array.from(tl.ready ?? []),
    edges: Float64Array.from(tl.edges ?? []),
    critical,
    critical_idle: tl.critical_path?.idle ?? 0,
  };
  const transfer = [
    opType, opDevice, opStart, opEnd, data.op_order, trSrc, trDst, trReady, trStart, trEnd, trBytes,
    trProducer, data.tr_order, ...memory, data.ready, data.edges, critical,
  ].map((a) => /** @type {ArrayBuffer} */ (a.buffer));
  if (names) transfer.push(/** @type {ArrayBuffer} */ (names.ends.buffer));
  return { data, transfer };
}
