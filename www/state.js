// The page's one State object and its URL fragment (format v=1, docs/url-format.md).
//
// TensorFlow-Playground style: the field initialisers of `State` are the defaults, PROPS is
// the table of serializable properties with their types, and only properties that differ
// from their defaults are written to the URL. src/share.rs reads and writes the same
// format (the CLI's `placesim compare --url`); the two must agree key for key, in the same
// order. The graph payload (embedded compressed or named by hash), the strategy parameters
// and the what-if speeds are written by hand after the table's keys, as in share.rs.
//
// Not here: the DOM (app.js) and running anything (worker.js).

export const FORMAT_VERSION = 1;
/** Largest compressed graph (bytes before base64url) embedded in a link. */
export const EMBED_LIMIT = 24 * 1024;

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
  upload = null;
  graphHash = null;
  // Cluster: generated from ranges, or an explicit device table.
  cluster = 'generate';
  devices = 4;
  speed = [5e12, 1.5e13];
  bandwidth = [1e9, 1e10];
  latency = [1e-5, 1e-5];
  memory = null;
  memfraction = null;
  kinds = [];
  dev = DEFAULT_DEVICES.map((d) => ({ ...d }));
  bw = 1.2e10;
  lat = 1e-5;
  // A cluster with more than a device table (links, link types, kinds), from a link's
  // `clusterz`: kept whole; table edits change its devices.
  clusterJson = null;
  // Strategies: null means every registered one.
  placers = null;
  schedulers = null;
  params = {};
  links = 'parallel';
  order = 'fifo';
  seeds = 1;
  seed = 0;
  randcost = null;
  randbytes = null;
  randmem = null;
  // What-if.
  whatifCompute = 1;
  whatifBandwidth = 1;
  whatifSpeeds = {};
  // Page view: the pair whose timeline is shown ("placer/scheduler").
  pair = null;
}

// The table of simple serializable properties, in the order keys are written.
// `when` limits a key to one cluster mode. Types: name, int, num, range, list, enum, devs.
export const PROPS = [
  { key: 'graph', field: 'graph', type: 'name', when: (s) => !s.upload && !s.graphHash },
  { key: 'cluster', field: 'cluster', type: 'enum', values: ['generate', 'explicit'], when: (s) => !s.clusterJson },
  { key: 'devices', field: 'devices', type: 'int', when: generated },
  { key: 'speed', field: 'speed', type: 'range', when: generated },
  { key: 'bandwidth', field: 'bandwidth', type: 'range', when: generated },
  { key: 'latency', field: 'latency', type: 'range', when: generated },
  { key: 'memory', field: 'memory', type: 'num', when: generated },
  { key: 'memfraction', field: 'memfraction', type: 'num', when: generated },
  { key: 'kinds', field: 'kinds', type: 'list', when: generated },
  { key: 'dev', field: 'dev', type: 'devs', when: table },
  { key: 'bw', field: 'bw', type: 'num', when: table },
  { key: 'lat', field: 'lat', type: 'num', when: table },
];
const LATER_PROPS = [
  { key: 'links', field: 'links', type: 'enum', values: ['parallel', 'fcfs'] },
  { key: 'order', field: 'order', type: 'name' },
  { key: 'seeds', field: 'seeds', type: 'int' },
  { key: 'seed', field: 'seed', type: 'int' },
  { key: 'randcost', field: 'randcost', type: 'range' },
  { key: 'randbytes', field: 'randbytes', type: 'range' },
  { key: 'randmem', field: 'randmem', type: 'range' },
  { key: 'whatif.compute', field: 'whatifCompute', type: 'num' },
  { key: 'whatif.bandwidth', field: 'whatifBandwidth', type: 'num' },
];
function generated(s) { return s.cluster === 'generate' && !s.clusterJson; }
function table(s) { return s.cluster === 'explicit' && !s.clusterJson; }

const DEFAULTS = new State();

// ---------------------------------------------------------------------------------------
// Atoms, exactly as src/share.rs writes them.

/** The shorter of the plain and the exponent form (plain on a tie), both exact. */
export function formatNumber(x) {
  let plain = String(x).replace('e+', 'e');
  const exp = x.toExponential().replace('e+', 'e');
  return exp.length < plain.length ? exp : plain;
}

function parseNumber(key, s) {
  if (s === '' || !/^[0-9.eE+-]+$/.test(s)) throw linkError(`${key}: '${s}' is not a number`);
  const x = Number(s);
  if (!Number.isFinite(x)) throw linkError(`${key}: '${s}' is not a number`);
  return x;
}

function parseInt10(key, s) {
  if (!/^[0-9]+$/.test(s)) throw linkError(`${key}: '${s}' is not a whole number`);
  const x = Number(s);
  if (!Number.isSafeInteger(x)) throw linkError(`${key}: '${s}' is too large`);
  return x;
}

function parseRange(key, s) {
  const i = s.indexOf('..');
  if (i < 0) { const x = parseNumber(key, s); return [x, x]; }
  return [parseNumber(key, s.slice(0, i)), parseNumber(key, s.slice(i + 2))];
}

const enc = encodeURIComponent;
function dec(key, s) {
  try { return decodeURIComponent(s); } catch { throw linkError(`${key}: malformed percent escape`); }
}

function linkError(message) { return new Error(`link: ${message}`); }

export function base64url(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function unbase64url(key, s) {
  if (!/^[A-Za-z0-9_\-+/=]*$/.test(s)) throw linkError(`${key}: not base64url`);
  let b = s.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (b.length % 4 === 1) throw linkError(`${key}: not base64url`);
  b += '='.repeat((4 - (b.length % 4)) % 4);
  const bin = atob(b);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pipe(bytes, stream) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

/** deflate-raw of a text (what miniz_oxide inflates in share.rs). */
export async function deflate(text) {
  return pipe(new TextEncoder().encode(text), new CompressionStream('deflate-raw'));
}

export async function inflate(key, bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(
      await pipe(bytes, new DecompressionStream('deflate-raw')));
  } catch {
    throw linkError(`${key}: the compressed data is damaged`);
  }
}

function sameDevices(a, b) {
  return a.length === b.length && a.every((d, i) =>
    d.id === b[i].id && (d.kind || '') === (b[i].kind || '') && d.speed === b[i].speed
    && (d.memory ?? null) === (b[i].memory ?? null));
}

function same(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length
      && a.every((x, i) => same(x, b[i]));
  }
  return a === b;
}

function write(type, v) {
  switch (type) {
    case 'int': return String(v);
    case 'num': return formatNumber(v);
    case 'range': return `${formatNumber(v[0])}..${formatNumber(v[1])}`;
    case 'list': return v.map(enc).join(',');
    case 'devs': return v.map((d) => [enc(d.id), enc(d.kind || ''), formatNumber(d.speed),
      d.memory == null ? '' : formatNumber(d.memory)].join(':')).join(',');
    default: return enc(v);
  }
}

function read(p, v) {
  switch (p.type) {
    case 'int': return parseInt10(p.key, v);
    case 'num': return parseNumber(p.key, v);
    case 'range': return parseRange(p.key, v);
    case 'list': return v === '' ? [] : v.split(',').map((x) => dec(p.key, x));
    case 'enum':
      if (!p.values.includes(v)) throw linkError(`${p.key}: '${v}' is not one of ${p.values.join(', ')}`);
      return v;
    case 'devs': return v.split(',').map((item, i) => {
      const parts = item.split(':');
      const key = `dev[${i}]`;
      if (parts.length !== 4) throw linkError(`dev: device ${i} must be id:kind:speed:memory, got '${item}'`);
      const d = { id: dec(key, parts[0]) };
      const kind = dec(key, parts[1]);
      if (kind) d.kind = kind;
      d.speed = parseNumber(key, parts[2]);
      if (parts[3] !== '') d.memory = parseNumber(key, parts[3]);
      return d;
    });
    case 'name': {
      const name = dec(p.key, v);
      if (p.key === 'graph' && !/^[A-Za-z0-9_-]{1,200}$/.test(name)) {
        throw linkError(`graph: '${name}' is not a bundled graph name (letters, digits, '_', '-')`);
      }
      return name;
    }
    default: return dec(p.key, v);
  }
}

/** SHA-256 of a text, lowercase hex; `hashFn` is used where crypto.subtle is missing. */
export async function sha256(text, hashFn) {
  if (globalThis.crypto?.subtle) {
    const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
    return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
  }
  return hashFn(text);
}

// ---------------------------------------------------------------------------------------
// State <-> fragment.

/**
 * The fragment (from '#' on) of a state. `all` = {placers, schedulers}: the registry's
 * names, which a state with null strategies means (and which are not written).
 */
export async function toFragment(s, all, hashFn) {
  const kv = [['v', String(FORMAT_VERSION)]];
  const put = (k, v) => kv.push([k, v]);
  for (const p of PROPS) {
    if (p.key === 'cluster') await putGraph(s, put, hashFn);
    if (p.when && !p.when(s)) continue;
    const v = s[p.field];
    const changed = p.type === 'devs' ? !sameDevices(v, DEFAULTS.dev) : !same(v, DEFAULTS[p.field]);
    if (changed && v != null) put(p.key, write(p.type, v));
  }
  if (s.clusterJson) put('clusterz', base64url(await deflate(JSON.stringify(clusterOf(s)))));
  const placers = s.placers ?? all.placers;
  if (!same(placers, all.placers)) put('placers', write('list', placers));
  const schedulers = s.schedulers ?? all.schedulers;
  if (!same(schedulers, all.schedulers)) put('schedulers', write('list', schedulers));
  for (const k of Object.keys(s.params).sort(byUtf8)) put(enc(k), formatNumber(s.params[k]));
  for (const p of LATER_PROPS) {
    if (s[p.field] != null && !same(s[p.field], DEFAULTS[p.field])) put(p.key, write(p.type, s[p.field]));
  }
  const ids = Object.keys(s.whatifSpeeds).sort(byUtf8);
  if (ids.length) {
    put('whatif.speeds', ids.map((id) => `${enc(id)}:${formatNumber(s.whatifSpeeds[id])}`).join(','));
  }
  if (s.pair) put('pair', enc(s.pair));
  return '#' + kv.map(([k, v]) => `${k}=${v}`).join('&');
}

// BTreeMap<String, _> order (bytes), which share.rs writes in.
function byUtf8(a, b) {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

// The link payload of each uploaded graph, computed once (compressing and hashing a
// 20,000-op graph takes a while).
const payloads = new WeakMap();

async function putGraph(s, put, hashFn) {
  if (s.graphHash) {
    put('graphsha256', s.graphHash.sha256);
    put('graphname', enc(s.graphHash.name));
    return;
  }
  if (!s.upload) return;
  let kv = payloads.get(s.upload);
  if (!kv) {
    const z = await deflate(s.upload.text);
    kv = z.length <= EMBED_LIMIT
      ? [['graphz', base64url(z)]]
      : [['graphsha256', await sha256(s.upload.text, hashFn)], ['graphname', enc(s.upload.name)]];
    payloads.set(s.upload, kv);
  }
  for (const [k, v] of kv) put(k, v);
}

/**
 * A state from a fragment (with or without '#'). A link that names its graph by hash
 * gives a state with `graphHash = {sha256, name}`: the page then asks for the file.
 */
export async function fromFragment(f) {
  f = f.replace(/^#/, '');
  const pairs = new Map();
  for (const item of f.split('&').filter((x) => x)) {
    const i = item.indexOf('=');
    const k = dec('key', i < 0 ? item : item.slice(0, i));
    if (pairs.has(k)) throw linkError(`key '${k}' appears twice`);
    pairs.set(k, i < 0 ? '' : item.slice(i + 1));
  }
  const v = pairs.get('v');
  if (v === undefined) throw linkError('not a placesim link: it has no format version (v=1)');
  if (v !== String(FORMAT_VERSION)) {
    throw linkError(`link format version '${v}' is not supported (this page reads v=${FORMAT_VERSION})`);
  }
  pairs.delete('v');
  const s = new State();
  const props = new Map([...PROPS, ...LATER_PROPS].map((p) => [p.key, p]));
  let hash = null;
  let hashName = 'graph';
  for (const [k, val] of pairs) {
    const p = props.get(k);
    if (p) {
      s[p.field] = read(p, val);
      if (k === 'dev') s.cluster = 'explicit';
      continue;
    }
    switch (k) {
      case 'graphz': {
        const text = await inflate(k, unbase64url(k, val));
        let name = 'graph';
        try { name = JSON.parse(text).name || name; } catch {
          throw linkError('graphz: the embedded graph is not JSON');
        }
        s.upload = { name: String(name), text };
        break;
      }
      case 'graphsha256':
        if (!/^[0-9a-fA-F]{64}$/.test(val)) throw linkError('graphsha256: not 64 hex digits');
        hash = val.toLowerCase();
        break;
      case 'graphname': hashName = dec(k, val); break;
      case 'clusterz': {
        const text = await inflate(k, unbase64url(k, val));
        let c;
        try { c = JSON.parse(text); } catch {
          throw linkError('clusterz: the embedded cluster is not JSON');
        }
        if (!c || !Array.isArray(c.devices)) throw linkError('clusterz: the embedded cluster has no device list');
        const speeds = s.whatifSpeeds;
        setCluster(s, c); // a plain device table becomes dev/bw/lat again, as in share.rs
        s.whatifSpeeds = speeds;
        break;
      }
      case 'placers': s.placers = read({ key: k, type: 'list' }, val); break;
      case 'schedulers': s.schedulers = read({ key: k, type: 'list' }, val); break;
      case 'whatif.speeds':
        for (const item of val.split(',').filter((x) => x)) {
          const j = item.indexOf(':');
          if (j < 0) throw linkError(`whatif.speeds: '${item}' is not id:speed`);
          s.whatifSpeeds[dec(k, item.slice(0, j))] = parseNumber(k, item.slice(j + 1));
        }
        break;
      case 'pair': s.pair = dec(k, val); break;
      default:
        if (k.includes('.')) { s.params[k] = parseNumber(k, val); break; }
        throw linkError(`unknown key '${k}'`);
    }
  }
  if (hash) s.graphHash = { sha256: hash, name: hashName };
  return s;
}

// ---------------------------------------------------------------------------------------
// State -> scenario JSON (the engine's Scenario, src/model/scenario.rs).

/** The cluster JSON of an explicit (table or whole) cluster. */
export function clusterOf(s) {
  const devices = s.dev.map((d) => {
    const o = { id: d.id };
    if (d.kind) o.kind = d.kind;
    o.speed = d.speed;
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
 * latency, which a link writes as `dev`/`bw`/`lat` (share.rs: simple_cluster); a `name` is
 * dropped. Anything more travels whole, compressed (`clusterz`).
 */
export function isSimpleCluster(c) {
  const isNum = (x) => typeof x === 'number';
  const only = (o, keys) => o && typeof o === 'object' && !Array.isArray(o) && Object.keys(o).every((k) => keys.includes(k));
  return only(c, ['name', 'devices', 'bandwidth', 'latency']) && Array.isArray(c.devices)
    && c.devices.every((d) => only(d, ['id', 'kind', 'speed', 'memory']) && typeof d.id === 'string'
      && (d.kind == null || typeof d.kind === 'string') && isNum(d.speed) && (d.memory == null || isNum(d.memory)))
    && isNum(c.bandwidth) && (c.latency == null || isNum(c.latency));
}

/** Puts a cluster (bundled, uploaded, or from a link) into the state as an explicit cluster. */
export function setCluster(s, c) {
  s.cluster = 'explicit';
  s.dev = c.devices.map((d) => {
    const o = { id: d.id };
    if (d.kind) o.kind = d.kind;
    o.speed = d.speed;
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

/** The scenario object the engine runs; `whatIf = false` leaves the what-if out. */
export function scenarioOf(s, all, whatIf = true) {
  const sc = {
    version: FORMAT_VERSION,
    graph: s.upload ? { file: s.upload.name } : { bundled: s.graph },
    cluster: s.cluster === 'generate' && !s.clusterJson
      ? { generate: generateSpec(s) }
      : { inline: clusterOf(s) },
    placers: s.placers ?? all.placers,
    schedulers: s.schedulers ?? all.schedulers,
    params: { ...s.params },
    links: s.links,
    link_order: s.order,
    seeds: s.seeds,
    seed: s.seed,
  };
  if (s.randcost || s.randbytes || s.randmem) {
    sc.randomize = {};
    if (s.randcost) sc.randomize.cost = s.randcost;
    if (s.randbytes) sc.randomize.bytes = s.randbytes;
    if (s.randmem) sc.randomize.mem = s.randmem;
  }
  if (whatIf) {
    sc.what_if = { compute: s.whatifCompute, bandwidth: s.whatifBandwidth, speeds: { ...s.whatifSpeeds } };
  }
  return sc;
}

function generateSpec(s) {
  const g = { devices: s.devices, speed: s.speed, bandwidth: s.bandwidth, latency: s.latency };
  if (s.memory != null) g.memory = s.memory;
  if (s.memfraction != null) g.memory_fraction = s.memfraction;
  if (s.kinds.length) g.kinds = s.kinds;
  return g;
}

export function whatIfActive(s) {
  return s.whatifCompute !== 1 || s.whatifBandwidth !== 1 || Object.keys(s.whatifSpeeds).length > 0;
}
