// The page's one State object, its defaults, and the mapping State <-> the engine's
// Scenario (src/scenario/mod.rs).
//
// TensorFlow-Playground style: the field initialisers of `State` are the defaults. A share
// link (docs/url-format.md) is the state's scenario written by the engine's one link codec,
// src/scenario/link/, through its wasm build: `linkOf` gives what `page_fragment` writes, and
// `stateOf` turns what `read_link` read back into a State. Only values that differ from the
// defaults reach the link (the codec leaves out defaults).
//
// Not here: the DOM (app.js and the modules beside it), running anything (worker.js),
// and the link format itself.

/**
 * @typedef {import('./types.js').Scenario} Scenario
 * @typedef {import('./types.js').ClusterGen} ClusterGen
 * @typedef {import('./types.js').ClusterJson} ClusterJson
 * @typedef {import('./types.js').DeviceJson} DeviceJson
 * @typedef {import('./types.js').Link} Link
 * @typedef {import('./types.js').GraphHash} GraphHash
 * @typedef {import('./types.js').PageView} PageView
 * @typedef {import('./types.js').Range} Range
 * @typedef {import('./types.js').Replication} Replication
 * @typedef {{placers: string[], schedulers: string[]}} Registry the default strategy lists
 *   (the engine's `default_scenario`: every scheduler, every placer but `pinned`)
 */

/**
 * @typedef {object} Replica The page's replica settings (the scenario's `replica`).
 * @property {string[]} workers device ids of the workers
 * @property {string[]} ps device ids of the parameter servers
 * @property {string | null} target forward only: the op the graph is pruned to (the loss);
 *   null: training (forward and backward, each worker's update goes to the servers)
 * @property {boolean} aggregate the servers sum the workers' updates before one update
 * @property {number | null} balance server-worker transfer time / compute time on the first worker
 * @property {string[] | null} paramOps op types that read a parameter (null: the engine's)
 * @property {boolean} sources every source with outgoing bytes is a parameter read
 */

/** The version of the scenario JSON the page writes. */
export const SCENARIO_VERSION = 1;

/** The explicit device table `cluster=explicit` means when the link has no `dev`. */
export const DEFAULT_DEVICES = Object.freeze([
  Object.freeze({ id: 'cpu0', kind: 'cpu', speed: 2e11, memory: 6.4e10 }),
  Object.freeze({ id: 'gpu0', kind: 'gpu', speed: 1.5e13, memory: 1.6e10 }),
  Object.freeze({ id: 'gpu1', kind: 'gpu', speed: 1.5e13, memory: 1.6e10 }),
]);

export class State {
  // Graph: a bundled graph by name, or an uploaded one ({name, text}); `graphHash` is set
  // while a link names its graph by hash and the file has not been given yet.
  graph = 'resnet50_layers';
  /** @type {{name: string, text: string} | null} */
  upload = null;
  /** @type {GraphHash | null} */
  graphHash = null;
  // Cluster: generated from ranges, or an explicit device table.
  /** @type {'generate' | 'explicit'} */
  cluster = 'generate';
  devices = 4;
  /** @type {Range} */
  speed = [5e12, 1.5e13];
  /** @type {Range} */
  bandwidth = [1e9, 1e10];
  /** @type {Range} */
  latency = [1e-5, 1e-5];
  /** @type {number | null} */
  memory = null;
  /** @type {number | null} */
  memfraction = null;
  /** @type {string[]} */
  kinds = [];
  /** @type {DeviceJson[]} */
  dev = DEFAULT_DEVICES.map((d) => ({ ...d }));
  bw = 1.2e10;
  lat = 1e-5;
  // A cluster with more than a device table (links, link types, kinds), from a link's
  // `clusterz` or a cluster file: kept whole; table edits change its devices.
  /** @type {ClusterJson | null} */
  clusterJson = null;
  // Strategies: null means every registered one.
  /** @type {string[] | null} */
  placers = null;
  /** @type {string[] | null} */
  schedulers = null;
  /** @type {Record<string, number>} */
  params = {};
  /** @type {'parallel' | 'fcfs'} */
  links = 'parallel';
  // What a node's static placement footprint counts (Pesto21 §3.1 counts inputs and outputs).
  /** @type {import('./types.js').Footprint} */
  footprint = 'outputs';
  // Link-queue orders under fcfs links: each is a third axis of the comparison (a row per
  // placer x scheduler x order).
  /** @type {string[]} */
  orders = ['fifo'];
  // Simulated steps per seed, each with fresh runtime randomness (TicTac19 §5).
  iterations = 1;
  // TicTac19's parameter-server replicas: null, or the workers and servers (device ids).
  /** @type {Replica | null} */
  replica = null;
  seeds = 1;
  seed = 0;
  /** @type {Range | null} */
  randcost = null;
  /** @type {Range | null} */
  randbytes = null;
  /** @type {Range | null} */
  randmem = null;
  // What-if.
  whatifCompute = 1;
  whatifBandwidth = 1;
  whatifLatency = 1;
  /** @type {Record<string, number>} */
  whatifSpeeds = {};
  // Page view: the pair whose timeline is shown ("placer/scheduler"), the seed index of
  // that timeline, the results table's sort (a column, '-' first for descending) and the
  // makespan chart's scale.
  /** @type {string | null} */
  pair = null;
  pairSeed = 0;
  // A second pair's timeline below the first, on a shared time axis (null: none).
  /** @type {string | null} */
  pair2 = null;
  /** @type {string | null} */
  sort = null;
  // The makespan chart's value axis: logarithmic (short bars of the winners stay visible).
  logScale = false;
  // The Sweep panel: the what-if factor it varies, its factors (SWEEP_DEFAULTS[axis] is
  // not written in the link) and its chart's factor axis (logarithmic or linear).
  /** @type {'compute' | 'bandwidth' | 'latency'} */
  sweepAxis = 'compute';
  /** @type {number[]} */
  sweepFactors = [...SWEEP_DEFAULTS.compute];
  sweepLog = false;
}

/** The Sweep panel's factors per axis when nothing else is set (Pesto21 Fig. 8's range). */
export const SWEEP_DEFAULTS = { compute: [1, 2, 4, 8], bandwidth: [1, 0.5, 0.2, 0.1], latency: [1, 2, 4, 8] };

/** @param {unknown} a @param {unknown} b */
function same(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length
      && a.every((x, i) => same(x, b[i]));
  }
  return a === b;
}

// ---------------------------------------------------------------------------------------
// State <-> link (the engine's codec writes and reads the text).

/**
 * What the engine's `page_fragment` writes for a state: the scenario (an upload as
 * `{file: name}` with its text), a graph still named by hash, and the view.
 * @param {State} s
 * @param {Registry} all
 */
export function linkOf(s, all) {
  return {
    scenario: JSON.stringify(scenarioOf(s, all)),
    graphText: s.upload && !s.graphHash ? s.upload.text : undefined,
    graphHash: s.graphHash,
    /** @type {PageView} */
    view: {
      pair: s.pair, pair_seed: s.pairSeed, pair2: s.pair2, sort: s.sort, log_scale: s.logScale,
      sweep: s.sweepAxis === 'compute' && same(s.sweepFactors, SWEEP_DEFAULTS.compute)
        ? null : { axis: s.sweepAxis, factors: [...s.sweepFactors] },
      sweep_log: s.sweepLog,
    },
  };
}

/**
 * The state of a link the engine read (`read_link`).
 * @param {Link} link
 * @param {Registry} all
 */
export function stateOf(link, all) {
  const sc = link.scenario;
  const s = new State();
  const g = link.graph;
  if (g.kind === 'embedded') s.upload = { name: g.name, text: g.text };
  else if (g.kind === 'hashed') s.graphHash = { sha256: g.sha256, name: g.name };
  else if ('bundled' in sc.graph) s.graph = sc.graph.bundled;
  if ('generate' in sc.cluster) {
    const c = sc.cluster.generate;
    s.devices = c.devices;
    s.speed = c.speed;
    s.bandwidth = c.bandwidth;
    s.latency = c.latency ?? [0, 0];
    s.memory = c.memory ?? null;
    s.memfraction = c.memory_fraction ?? null;
    s.kinds = c.kinds ?? [];
  } else if ('inline' in sc.cluster) {
    setCluster(s, sc.cluster.inline);
  }
  s.placers = same(sc.placers, all.placers) ? null : sc.placers;
  s.schedulers = same(sc.schedulers, all.schedulers) ? null : sc.schedulers;
  s.params = { ...sc.params };
  s.links = sc.links;
  s.footprint = sc.footprint ?? 'outputs';
  s.orders = Array.isArray(sc.link_order) ? [...sc.link_order] : [sc.link_order ?? 'fifo'];
  s.iterations = sc.iterations ?? 1;
  const r = sc.replica;
  s.replica = r ? {
    workers: [...r.workers], ps: [...r.ps], target: r.forward_target ?? null, aggregate: !!r.aggregate,
    balance: r.balance ?? null, paramOps: r.param_ops ? [...r.param_ops] : null, sources: !!r.params_from_sources,
  } : null;
  s.seeds = sc.seeds;
  s.seed = sc.seed;
  s.randcost = sc.randomize?.cost ?? null;
  s.randbytes = sc.randomize?.bytes ?? null;
  s.randmem = sc.randomize?.mem ?? null;
  s.whatifCompute = sc.what_if?.compute ?? 1;
  s.whatifBandwidth = sc.what_if?.bandwidth ?? 1;
  s.whatifLatency = sc.what_if?.latency ?? 1;
  s.whatifSpeeds = { ...sc.what_if?.speeds };
  s.pair = link.view.pair ?? null;
  s.pairSeed = link.view.pair_seed ?? 0;
  s.pair2 = link.view.pair2 ?? null;
  s.sort = link.view.sort ?? null;
  s.logScale = link.view.log_scale ?? false;
  s.sweepAxis = link.view.sweep?.axis ?? 'compute';
  s.sweepFactors = link.view.sweep ? [...link.view.sweep.factors] : [...SWEEP_DEFAULTS.compute];
  s.sweepLog = link.view.sweep_log ?? false;
  return s;
}

// ---------------------------------------------------------------------------------------
// State -> scenario JSON (the engine's Scenario, src/scenario/mod.rs).

/**
 * The cluster JSON of an explicit (table or whole) cluster.
 * @param {State} s
 * @returns {ClusterJson}
 */
export function clusterOf(s) {
  const devices = s.dev.map((d) => {
    /** @type {DeviceJson} */
    const o = { id: d.id, speed: d.speed };
    if (d.kind) o.kind = d.kind;
    if (d.memory != null) o.memory = d.memory;
    return o;
  });
  if (s.clusterJson) {
    // Keep links, link types and kinds; the table owns the devices.
    return { ...s.clusterJson, devices };
  }
  return { devices, bandwidth: s.bw, latency: s.lat };
}

/**
 * Whether cluster JSON is only a device table (id, kind, speed, memory), bandwidth and
 * latency, which the table edits (as the link codec writes it, `dev`/`bw`/`lat`); anything more
 * is kept whole in `clusterJson` (and travels compressed, `clusterz`).
 * @param {any} c
 * @returns {boolean}
 */
export function isSimpleCluster(c) {
  /** @param {unknown} x */
  const isNum = (x) => typeof x === 'number';
  /** @param {any} o @param {string[]} keys */
  const only = (o, keys) => o && typeof o === 'object' && !Array.isArray(o) && Object.keys(o).every((k) => keys.includes(k));
  return only(c, ['name', 'devices', 'bandwidth', 'latency']) && Array.isArray(c.devices)
    && c.devices.every((d) => only(d, ['id', 'kind', 'speed', 'memory']) && typeof d.id === 'string'
      && (d.kind == null || typeof d.kind === 'string') && isNum(d.speed) && (d.memory == null || isNum(d.memory)))
    && isNum(c.bandwidth) && (c.latency == null || isNum(c.latency));
}

/**
 * Puts a cluster (bundled, uploaded, or from a link) into the state as an explicit cluster.
 * @param {State} s
 * @param {ClusterJson} c
 */
export function setCluster(s, c) {
  s.cluster = 'explicit';
  s.dev = c.devices.map((d) => {
    /** @type {DeviceJson} */
    const o = { id: d.id, speed: d.speed };
    if (d.kind) o.kind = d.kind;
    if (d.memory != null) o.memory = d.memory;
    return o;
  });
  if (isSimpleCluster(c)) {
    s.clusterJson = null;
    s.bw = c.bandwidth;
    s.lat = c.latency ?? 0;
  } else {
    s.clusterJson = c;
  }
  s.whatifSpeeds = {};
}

/**
 * The scenario object the engine runs; `whatIf = false` leaves the what-if out. An
 * uploaded graph (or one a link names by hash) is `{file: name}`: the page passes its text.
 * @param {State} s
 * @param {Registry} all
 * @returns {Scenario}
 */
export function scenarioOf(s, all, whatIf = true) {
  /** @type {Scenario} */
  const sc = {
    version: SCENARIO_VERSION,
    graph: s.graphHash ? { file: s.graphHash.name } : s.upload ? { file: s.upload.name } : { bundled: s.graph },
    cluster: s.cluster === 'generate' && !s.clusterJson
      ? { generate: generateSpec(s) }
      : { inline: clusterOf(s) },
    placers: s.placers ?? all.placers,
    schedulers: s.schedulers ?? all.schedulers,
    params: { ...s.params },
    links: s.links,
    link_order: s.orders.length === 1 ? s.orders[0] : [...s.orders],
    seeds: s.seeds,
    seed: s.seed,
  };
  if (s.iterations !== 1) sc.iterations = s.iterations;
  if (s.footprint !== 'outputs') sc.footprint = s.footprint;
  if (s.replica) sc.replica = replicationOf(s.replica);
  if (s.randcost || s.randbytes || s.randmem) {
    sc.randomize = {};
    if (s.randcost) sc.randomize.cost = s.randcost;
    if (s.randbytes) sc.randomize.bytes = s.randbytes;
    if (s.randmem) sc.randomize.mem = s.randmem;
  }
  if (whatIf) {
    sc.what_if = { compute: s.whatifCompute, bandwidth: s.whatifBandwidth, speeds: { ...s.whatifSpeeds } };
    if (s.whatifLatency !== 1) sc.what_if.latency = s.whatifLatency;
  }
  return sc;
}

/**
 * The scenario's `replica` of the page's replica settings.
 * @param {Replica} r
 * @returns {Replication}
 */
export function replicationOf(r) {
  /** @type {Replication} */
  const o = { workers: [...r.workers], ps: [...r.ps] };
  if (r.target != null) o.forward_target = r.target;
  if (r.aggregate) o.aggregate = true;
  if (r.paramOps) o.param_ops = [...r.paramOps];
  if (r.sources) o.params_from_sources = true;
  if (r.balance != null) o.balance = r.balance;
  return o;
}

/**
 * Whether the state needs contended (fcfs) links: a replica, or a link order other than
 * fifo (the engine refuses either under parallel links).
 * @param {State} s
 */
export function needsFcfs(s) {
  return s.replica !== null || s.orders.some((o) => o !== 'fifo');
}

/** @param {State} s */
function generateSpec(s) {
  /** @type {ClusterGen} */
  const g = { devices: s.devices, speed: s.speed, bandwidth: s.bandwidth, latency: s.latency };
  if (s.memory != null) g.memory = s.memory;
  if (s.memfraction != null) g.memory_fraction = s.memfraction;
  if (s.kinds.length) g.kinds = s.kinds;
  return g;
}

/** @param {State} s */
export function whatIfActive(s) {
  return s.whatifCompute !== 1 || s.whatifBandwidth !== 1 || s.whatifLatency !== 1
    || Object.keys(s.whatifSpeeds).length > 0;
}
