// Browser tests of the playground in headless Chromium (see DEVELOPERS.md).
// Run: make test-browser (builds the site and the CLI, starts a static server on a free port).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { startServer, launch, openPage, results, byPair, cli, downloadText } from './harness.mjs';

/** The page at the link defaults (`#v=1`: resnet50_layers on a generated cluster), where these
 * tests start; the first visit without a link (a hardware preset) is timeline.test.mjs's. */
const linkDefaults = () => `${server.url}#v=1`;

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function shareUrl(page) {
  await page.$eval('#share-url', (el) => { el.value = ''; });
  await page.click('#share');
  await page.waitForFunction(() => document.getElementById('share-url').value !== '');
  return page.inputValue('#share-url');
}

async function setValue(page, selector, value) {
  await page.fill(selector, String(value));
  await page.dispatchEvent(selector, 'change');
}

test('the page loads with no console errors', async () => {
  const page = await openPage(browser, linkDefaults());
  const graphs = await page.$$eval('#graph-select option', (o) => o.map((x) => x.value));
  assert.ok(graphs.includes('vgg19_layers'), `bundled graphs: ${graphs}`);
  assert.ok(await page.$$eval('#placer-list input', (x) => x.length) >= 1);
  assert.ok(await page.$$eval('#scheduler-list input', (x) => x.length) >= 1);
  assert.match(await page.textContent('#graph-info'), /ops/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a comparison on a bundled graph fills the table, every chart and the timeline; exports work', async () => {
  const page = await openPage(browser, linkDefaults());
  await page.selectOption('#graph-select', 'inception_v3_layers');
  await page.waitForFunction(() => /inception/.test(document.getElementById('graph-info').textContent));
  await page.click('#run');
  const rows = await results(page);
  const c = await page.evaluate(() => window.placesim.comparison);
  assert.equal(rows.length, c.results.length);
  // Every pair, but `given` (it replays a plan) only with the placer that plans, heft; a
  // note says so once.
  const replays = c.scenario.schedulers.filter((s) => s === 'given').length;
  assert.equal(replays, 1);
  assert.equal(rows.length, c.scenario.placers.length * (c.scenario.schedulers.length - 1) + 1);
  assert.ok(rows.some((r) => r.placer === 'heft' && r.scheduler === 'given'));
  assert.match(await page.textContent('#results-notes'), /scheduler 'given' replays a placer's plan.*\(heft, pesto\)/);
  for (const r of rows) {
    const want = c.results.find((x) => x.placer === r.placer && x.scheduler === r.scheduler);
    assert.equal(Number(r.makespan), want.makespan);
    assert.equal(r.makespan, String(want.makespan));
  }
  // Sorting by makespan (click the header) orders the rows.
  await page.click('th[data-sort=makespan]');
  const sorted = (await results(page)).filter((r) => !r.error).map((r) => Number(r.makespan));
  assert.deepEqual(sorted, [...sorted].sort((a, b) => a - b));

  // Every chart draws something, and the timeline of the chosen pair shows.
  await page.waitForFunction(() => window.placesim.pairRun && document.querySelector('#chart-timeline svg, #chart-timeline canvas'));
  for (const id of ['chart-makespan', 'chart-traffic', 'chart-memory', 'chart-timeline']) {
    const size = await page.$eval(`#${id}`, (el) => {
      const g = el.querySelector('svg, canvas');
      if (!g) return null;
      const r = g.getBoundingClientRect();
      return { w: r.width, h: r.height, children: g.childElementCount };
    });
    assert.ok(size && size.w > 0 && size.h > 0, `${id} drew nothing: ${JSON.stringify(size)}`);
  }
  assert.equal(await page.evaluate(() => window.placesim.pairRun.result.timeline.op_start.length), c.graph.nodes);
  assert.equal(await page.$eval('#chart-timeline .pc-timeline', (el) => Number(el.dataset.ops)), c.graph.nodes);

  // Exports: JSON is the comparison; CSV has a row per pair; the trace is Chrome trace JSON.
  const json = JSON.parse(await downloadText(page, () => page.click('#export-json')));
  assert.deepEqual(json, JSON.parse(JSON.stringify(c)));
  const csv = (await downloadText(page, () => page.click('#export-csv'))).trim().split('\n');
  assert.equal(csv.length, c.results.length + 1);
  assert.match(csv[0], /^placer,scheduler,link_order,makespan_(s|units),makespan_std_(s|units),/);
  const trace = JSON.parse(await downloadText(page, () => page.click('#export-trace')));
  assert.ok(trace.traceEvents.some((e) => e.ph === 'X'));
  // Chart exports produce files.
  const svgText = await downloadText(page, () => page.click('[data-export=chart-makespan][data-fmt=svg]'));
  assert.match(svgText, /<svg/);
  const png = await downloadText(page, () => page.click('[data-export=chart-timeline][data-fmt=png]'));
  assert.ok(png.length > 0);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// The scenario of the share test, as CLI options and as the page sets it.
const SHARED = {
  graph: 'vgg19_ops_infer', devices: 6, speed: [2e12, 1.5e13], bandwidth: [1e9, 2e10], seeds: 3, seed: 7,
};
const sharedCliArgs = [
  'compare', '--graph', SHARED.graph, '--devices', String(SHARED.devices),
  '--speed', SHARED.speed.join('..'), '--bandwidth', SHARED.bandwidth.join('..'), '--latency', '1e-5..1e-5',
  '--seeds', String(SHARED.seeds), '--seed', String(SHARED.seed),
];

test('a shared link reopened in a fresh page gives identical numbers, equal to the CLI', async () => {
  const page = await openPage(browser, linkDefaults());
  await page.selectOption('#graph-select', SHARED.graph);
  await page.waitForFunction((g) => document.getElementById('graph-info').textContent.includes(g), SHARED.graph);
  await setValue(page, '#gen-devices', SHARED.devices);
  await setValue(page, '#gen-speed-lo', SHARED.speed[0]);
  await setValue(page, '#gen-speed-hi', SHARED.speed[1]);
  await setValue(page, '#gen-bw-lo', SHARED.bandwidth[0]);
  await setValue(page, '#gen-bw-hi', SHARED.bandwidth[1]);
  await setValue(page, '#seeds', SHARED.seeds);
  await setValue(page, '#seed', SHARED.seed);
  await page.click('#run');
  const first = byPair(await results(page));
  const url = await shareUrl(page);
  assert.match(url, /#v=1&graph=vgg19_ops_infer&devices=6&speed=2e12\.\.1\.5e13&bandwidth=1e9\.\.2e10/);
  await page.context().close();

  const again = await openPage(browser, url);
  const second = byPair(await results(again)); // runs by itself
  assert.deepEqual(second, first);
  assert.deepEqual(again.errors, []);
  await again.context().close();

  const out = cli([...sharedCliArgs, '--json']);
  assert.ok(out, 'the CLI (target/release/placesim) is missing: make cli');
  const fromCli = JSON.parse(out);
  const cliPairs = Object.fromEntries(fromCli.results.map((r) => [`${r.placer}/${r.scheduler}`, r.makespan]));
  for (const [k, v] of Object.entries(first)) assert.equal(Number(v), cliPairs[k], `pair ${k}`);
  assert.equal(Object.keys(cliPairs).length, Object.keys(first).length);

  // The CLI's own link, opened in the page, gives the CLI's numbers.
  const frag = cli([...sharedCliArgs, '--url']).trim();
  assert.match(frag, /^#v=1&/);
  const fromLink = await openPage(browser, server.url + frag);
  const viaCli = byPair(await results(fromLink));
  assert.equal(Object.keys(viaCli).length, Object.keys(cliPairs).length);
  for (const [k, v] of Object.entries(viaCli)) assert.equal(Number(v), cliPairs[k], `pair ${k} via --url`);
  await fromLink.context().close();
});

// One codec (src/scenario/link/, through wasm) writes and reads links; the page maps its State to
// the engine's scenario and back (state.js). That mapping must lose nothing: every state
// comes back from its link, and the link says what the page means.
test('a page state comes back whole from the link the engine writes for it', async () => {
  const page = await openPage(browser, linkDefaults());
  const cases = await page.evaluate(async () => {
    const engine = await import('./pkg/placesim.js');
    const { State, linkOf, stateOf, scenarioOf, setCluster } = await import('./state.js');
    // The page's default lists: the engine's (every placer but pinned, every scheduler).
    const d = engine.default_scenario();
    const all = { placers: d.placers, schedulers: d.schedulers };
    const states = [new State()];
    let s = new State();
    Object.assign(s, { graph: 'vgg19_layers', devices: 50, speed: [10, 100], bandwidth: [10, 60], latency: [0, 0],
      memory: 1.6e10, memfraction: 0.25, kinds: ['cpu', 'gpu'], placers: [all.placers[all.placers.length - 1]], links: 'fcfs',
      seeds: 10, seed: 12345, randcost: [1, 100], randbytes: [1, 100], randmem: [0, 5], whatifCompute: 2, whatifBandwidth: 0.5, whatifLatency: 4,
      whatifSpeeds: { d10: 3, d1: 42.5 }, params: { 'msr.delta': 5 }, pair: 'single/fifo', pairSeed: 7, sort: '-gap' });
    states.push(s);
    s = new State();
    Object.assign(s, { cluster: 'explicit', dev: [{ id: 'gpu:0,a', speed: 1.5e13 }, { id: 'cpu0', kind: 'cpu', speed: 0.25, memory: 64 }],
      bw: 1e9, lat: 0, whatifSpeeds: { cpu0: 0.5 }, schedulers: [all.schedulers[0]] });
    states.push(s);
    s = new State();
    // An upload travels as its exact text (whitespace and all).
    s.upload = { name: 'tiny', text: '{"name": "tiny",\n  "nodes": [{"id": "a", "cost": 1}]}\n' };
    states.push(s);
    s = new State();
    setCluster(s, { name: 'kinds', devices: [{ id: 'c', kind: 'cpu', speed: 1e11 }, { id: 'g', kind: 'gpu', speed: 1e13, memory: 8e9 }],
      bandwidth: 1e10, latency: 1e-6, kinds: { gpu: { MatMul: 4 } } });
    s.whatifSpeeds = { g: 2e13 };
    states.push(s);
    s = new State();
    s.graphHash = { sha256: 'ab'.repeat(32), name: 'a big graph' };
    states.push(s);
    // TicTac19: a replica, link orders (a row per order), iterations (format v2).
    s = new State();
    setCluster(s, { devices: [{ id: 'ps0', speed: 1e11 }, { id: 'w 1', speed: 1e11 }, { id: 'w2', speed: 1e11 }], bandwidth: 1.25e8, latency: 1e-4 });
    Object.assign(s, { graph: 'alexnet_ops_train', placers: ['pinned'], links: 'fcfs', orders: ['random', 'tio', 'tao'], iterations: 50,
      replica: { workers: ['w 1', 'w2'], ps: ['ps0'], target: 'loss/op', aggregate: true, balance: 0.5, paramOps: ['VariableV2'], sources: true },
      pair: 'pinned/fifo/tao' });
    states.push(s);
    s = new State();
    Object.assign(s, { links: 'fcfs', orders: ['tao'], iterations: 3 });
    states.push(s);
    // Pesto21's footprint rule (format v2, written only when not the default).
    s = new State();
    s.footprint = 'inputs_outputs';
    states.push(s);
    return states.map((st) => {
      const l = linkOf(st, all);
      const f = engine.page_fragment(l.scenario, l.graphText, l.graphHash, l.view);
      const back = stateOf(engine.read_link(f), all);
      return {
        f, state: JSON.parse(JSON.stringify(st)), back: JSON.parse(JSON.stringify(back)),
        scenario: scenarioOf(st, all), scenarioBack: scenarioOf(back, all),
      };
    });
  });
  for (const c of cases) {
    assert.deepEqual(c.back, c.state, c.f);
    assert.deepEqual(c.scenarioBack, c.scenario, c.f);
  }
  // The keys say what the page means (docs/url-format.md).
  assert.equal(cases[0].f, '#v=1');
  assert.match(cases[1].f, new RegExp('^#v=1&graph=vgg19_layers&devices=50&speed=10\\.\\.100&bandwidth=10\\.\\.60&latency=0\\.\\.0'
    + '&memory=1\\.6e10&memfraction=0\\.25&kinds=cpu,gpu&placers=[a-z_-]+&msr\\.delta=5&links=fcfs&seeds=10&seed=12345'
    + '&randcost=1\\.\\.100&randbytes=1\\.\\.100&randmem=0\\.\\.5&whatif\\.compute=2&whatif\\.bandwidth=0\\.5&whatif\\.latency=4'
    + '&whatif\\.speeds=d1:42\\.5,d10:3&pair=single%2Ffifo&pairseed=7&sort=-gap$'));
  assert.match(cases[2].f, /^#v=1&cluster=explicit&dev=gpu%3A0%2Ca::1\.5e13:,cpu0:cpu:0\.25:64&bw=1e9&lat=0&schedulers=[a-z_-]+&whatif\.speeds=cpu0:0\.5$/);
  assert.match(cases[3].f, /^#v=1&graphz=[A-Za-z0-9_-]+$/);
  assert.match(cases[4].f, /^#v=1&clusterz=[A-Za-z0-9_-]+&whatif\.speeds=g:2e13$/);
  assert.equal(cases[5].f, `#v=1&graphsha256=${'ab'.repeat(32)}&graphname=a%20big%20graph`);
  assert.match(cases[6].f, /^#v=2&graph=alexnet_ops_train&cluster=explicit&dev=ps0::1e11:,w%201::1e11:,w2::1e11:&bw=1\.25e8&lat=1e-4&placers=pinned&links=fcfs&order=random,tio,tao&iterations=50&replica\.workers=w%201,w2&replica\.ps=ps0&replica\.target=loss%2Fop&replica\.aggregate=1&replica\.paramops=VariableV2&replica\.sources=1&replica\.balance=0\.5&pair=pinned%2Ffifo%2Ftao$/);
  assert.equal(cases[7].f, '#v=2&links=fcfs&order=tao&iterations=3');
  assert.equal(cases[8].f, '#v=2&footprint=inputs_outputs');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// The page's defaults (State's field initialisers) are a hand copy of the engine's default
// scenario (src/scenario/defaults.rs): the scenario a new State maps to must be the engine's.
test("a new State's scenario is the engine's default scenario", async () => {
  const page = await openPage(browser, linkDefaults());
  const { engine, page: ours } = await page.evaluate(async () => {
    const engine = await import('./pkg/placesim.js');
    const { State, scenarioOf } = await import('./state.js');
    const d = engine.default_scenario();
    return { engine: d, page: scenarioOf(new State(), { placers: d.placers, schedulers: d.schedulers }, false) };
  });
  // Absent, null and empty mean the same to the engine's reader.
  const norm = (v) => {
    if (Array.isArray(v)) return v.map(norm);
    if (v && typeof v === 'object') {
      const out = {};
      for (const k of Object.keys(v).sort()) {
        const x = norm(v[k]);
        if (x === null || x === undefined) continue;
        if (typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length === 0) continue;
        out[k] = x;
      }
      return out;
    }
    return v;
  };
  assert.deepEqual(norm(ours), norm(engine));
  await page.close();
});

test('a bad upload shows the engine error; a good one is embedded in the link', async () => {
  const page = await openPage(browser, linkDefaults());
  const before = await page.textContent('#graph-info');
  await page.setInputFiles('#graph-file', {
    name: 'broken.json', mimeType: 'application/json',
    buffer: Buffer.from('{"nodes":[{"id":"a","cost":1}],"edges":[{"src":"a","dst":"zz"}]}'),
  });
  await page.waitForSelector('#graph-error:not([hidden])');
  assert.match(await page.textContent('#graph-error'), /broken\.json: graph: edges\[0\]\.dst names unknown node 'zz'/);
  assert.equal(await page.textContent('#graph-info'), before, 'the previous graph stays');

  // Drag and drop, not JSON at all.
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['not json'], 'junk.json', { type: 'application/json' }));
    document.getElementById('drop-zone').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.waitForFunction(() => document.getElementById('graph-error').textContent.startsWith('junk.json'));
  assert.match(await page.textContent('#graph-error'), /junk\.json: graph: not valid JSON/);

  // A good upload whose name is markup: shown as text, embedded in the link, same numbers.
  const graph = {
    name: '<img src=x onerror="window.pwned=1">',
    nodes: [{ id: 'a', cost: 4e12 }, { id: 'b', cost: 2e12 }, { id: 'c', cost: 3e12 }, { id: 'd', cost: 1e12 }],
    edges: [{ src: 'a', dst: 'b', bytes: 1e8 }, { src: 'a', dst: 'c', bytes: 1e8 }, { src: 'b', dst: 'd', bytes: 1e8 }, { src: 'c', dst: 'd', bytes: 1e8 }],
  };
  await page.setInputFiles('#graph-file', { name: 'mine.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(graph)) });
  await page.waitForFunction(() => document.getElementById('graph-info').textContent.includes('uploaded'));
  assert.equal(await page.isHidden('#graph-error'), true);
  await page.click('#run');
  const first = byPair(await results(page));
  const url = await shareUrl(page);
  assert.match(url, /graphz=/);
  assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  await page.context().close();
  const again = await openPage(browser, url);
  assert.deepEqual(byPair(await results(again)), first);
  assert.match(await again.textContent('#graph-info'), /<img src=x/);
  assert.deepEqual(again.errors, []);
  await again.context().close();
});

test('an ONNX model uploads through the engine; a truncated one shows its error', async () => {
  const page = await openPage(browser, linkDefaults());
  const model = await readFile(new URL('../fixtures/onnx/tiny_cnn.onnx', import.meta.url));
  const before = await page.textContent('#graph-info');
  await page.setInputFiles('#graph-file', { name: 'cut.onnx', mimeType: 'application/octet-stream', buffer: model.subarray(0, 100) });
  await page.waitForSelector('#graph-error:not([hidden])');
  assert.match(await page.textContent('#graph-error'), /cut\.onnx: not an ONNX model .*truncated/);
  assert.equal(await page.textContent('#graph-info'), before, 'the previous graph stays');
  // What the page posts to its workers: the kinds of an import request's fields.
  await page.evaluate(() => {
    const post = Worker.prototype.postMessage;
    /** @type {any} */ (window).__imports = [];
    Worker.prototype.postMessage = function (m, ...rest) {
      if (m?.type === 'import') {
        /** @type {any} */ (window).__imports.push(Object.fromEntries(Object.entries(m)
          .map(([k, v]) => [k, v === null ? 'null' : v?.constructor?.name ?? typeof v])));
      }
      return post.call(this, m, ...rest);
    };
  });
  await page.setInputFiles('#graph-file', { name: 'tiny_cnn.onnx', mimeType: 'application/octet-stream', buffer: model });
  await page.waitForFunction(() => document.getElementById('graph-info').textContent.includes('uploaded'));
  // The worker is handed the File (passed by reference) and reads it: the main thread never
  // reads or copies a model's bytes (that was main-thread tasks of 150-161 ms on a 346 MB model).
  const sent = await page.evaluate(() => /** @type {any} */ (window).__imports);
  assert.equal(sent.length, 1);
  assert.equal(sent[0].file, 'File');
  assert.deepEqual(Object.values(sent[0]).filter((kind) => /Array|Buffer/.test(kind) && kind !== 'Array'), []);
  const info = await page.textContent('#graph-info');
  assert.match(info, /^tiny_cnn: 11 ops, 11 edges/);
  assert.match(info, /ONNX import: 11 ops, 1\.4688e5 forward FLOPs/);
  await page.click('#run');
  assert.ok((await results(page)).length > 0);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('cancel stops a long run and the page runs again afterwards', async () => {
  const page = await openPage(browser, linkDefaults());
  // The default comparison ran on load; a cancelled run leaves it as it was.
  const before = await page.evaluate(() => JSON.stringify(window.placesim.comparison));
  await page.selectOption('#graph-select', 'transformer2_ops_train');
  await page.waitForFunction(() => /transformer/.test(document.getElementById('graph-info').textContent));
  await setValue(page, '#seeds', 200);
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('progress').value > 0);
  // The page stays responsive while the worker runs.
  const t0 = Date.now();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  assert.ok(Date.now() - t0 < 1000);
  await page.click('#cancel');
  await page.waitForFunction(() => document.getElementById('status').textContent === 'cancelled');
  assert.equal(await page.isEnabled('#run'), true);
  assert.equal(await page.evaluate(() => JSON.stringify(window.placesim.comparison)), before);
  await setValue(page, '#seeds', 1);
  await page.selectOption('#graph-select', 'alexnet_layers');
  await page.waitForFunction(() => /alexnet/.test(document.getElementById('graph-info').textContent));
  await page.click('#run');
  const rows = await results(page);
  assert.ok(rows.length > 0);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

async function slide(page, selector, value) {
  await page.$eval(selector, (el, v) => { el.value = v; el.dispatchEvent(new Event('input', { bubbles: true })); }, value);
}

/** The results rows with the text of their change-vs-baseline cell. */
async function rowsWithDelta(page) {
  await results(page);
  return page.$$eval('#results-table tbody tr', (rows) => rows.map((r) => ({
    key: `${r.dataset.placer}/${r.dataset.scheduler}`, makespan: r.dataset.makespan, error: r.dataset.error,
    delta: r.querySelector('td.delta-col')?.textContent ?? '', // a failed pair's row has none
  })));
}

test('what-if sliders re-run by themselves and show the change against the baseline', async () => {
  const page = await openPage(browser, linkDefaults());
  await page.click('#mode-explicit');
  await page.click('#run');
  const base = byPair(await results(page));
  // Compute x2 (slider value 1 = 2^1).
  await slide(page, '#wi-compute', '1');
  await page.waitForFunction(() => window.placesim.comparison?.scenario.what_if?.compute === 2);
  const rows = await results(page);
  // Every pair that ran shows its change (a failed pair, e.g. expert without layers, has none).
  const deltas = await page.$$eval('#results-table tbody tr:not([data-error]) td.delta-col', (t) => t.map((x) => x.textContent));
  assert.ok(deltas.length > 20, `deltas: ${deltas}`);
  assert.ok(deltas.every((d) => /%$/.test(d)), `deltas: ${deltas}`);
  for (const r of rows) {
    if (r.error) continue;
    assert.ok(Number(r.makespan) < Number(base[`${r.placer}/${r.scheduler}`]), `${r.placer}/${r.scheduler} got faster`);
  }
  // A per-device speed slider.
  await slide(page, '#wi-devices input[type=range][data-device=gpu0]', '-1');
  await page.waitForFunction(() => window.placesim.comparison?.scenario.what_if?.speeds?.gpu0 === 7.5e12);
  assert.match(await page.evaluate(() => location.hash), /whatif\.compute=2&whatif\.speeds=gpu0:7\.5e12/);
  // Reset: back to the baseline numbers.
  await page.click('#wi-reset');
  await page.waitForFunction(() => !window.placesim.comparison?.scenario.what_if);
  assert.deepEqual(byPair(await results(page)), base);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// A generated cluster draws device speeds per seed: its what-if controls start at each
// device's mean speed over the seeds (the comparison's devices[i].speed), and a set speed
// replaces the device's draw in every seed.
const GEN = { graph: 'vgg19_layers', devices: 60, seeds: 3, seed: 5 };
const genCliArgs = [
  'compare', '--graph', GEN.graph, '--devices', String(GEN.devices), '--speed', '5e12..1.5e13',
  '--bandwidth', '1e9..1e10', '--latency', '1e-5..1e-5', '--seeds', String(GEN.seeds), '--seed', String(GEN.seed),
];

test('what-if on a generated cluster: per-device speeds re-run, show the change, travel in the link, match the CLI', async () => {
  const page = await openPage(browser, linkDefaults());
  await page.selectOption('#graph-select', GEN.graph);
  await page.waitForFunction((g) => document.getElementById('graph-info').textContent.includes(g), GEN.graph);
  await setValue(page, '#gen-devices', GEN.devices);
  await setValue(page, '#seeds', GEN.seeds);
  await setValue(page, '#seed', GEN.seed);
  assert.equal(await page.$$eval('#wi-devices .wi-dev', (r) => r.length), 0, 'no controls before a baseline');
  assert.match(await page.textContent('#wi-devices-help'), /Run the comparison/);
  await page.click('#run');
  const base = byPair(await results(page));
  const c = await page.evaluate(() => window.placesim.comparison);
  const speeds = c.results[0].devices.map((d) => d.speed);
  assert.equal(speeds.length, GEN.devices);
  for (const r of c.results) assert.deepEqual(r.devices.map((d) => d.speed), speeds);

  // One row per device, each starting at the device's mean speed; 60 of them scroll.
  await page.click('#wi-devices-details summary');
  const panel = await page.$$eval('#wi-devices .wi-dev', (rows) => rows.map((r) => ({
    id: r.dataset.device, base: r.dataset.base, speed: r.querySelector('input[type=number]').value,
    slider: r.querySelector('input[type=range]').value,
  })));
  assert.deepEqual(panel.map((p) => p.id), c.results[0].devices.map((d) => d.id));
  for (const [i, p] of panel.entries()) {
    assert.equal(Number(p.base), speeds[i], `device ${p.id}`);
    assert.equal(Number(p.speed), Number(speeds[i].toPrecision(4)), `device ${p.id} shows its speed to 4 digits`);
    assert.equal(p.slider, '0');
    assert.ok(speeds[i] >= 5e12 && speeds[i] <= 1.5e13, `${p.id}: ${speeds[i]}`);
  }
  const box = await page.$eval('#wi-devices', (el) => ({ client: el.clientHeight, scroll: el.scrollHeight }));
  assert.ok(box.client < 400 && box.scroll > box.client, `the device list scrolls: ${JSON.stringify(box)}`);
  assert.match(await page.textContent('#wi-devices-help'), /replaces that device's drawn speed in every seed/);

  // Halve d2 with its slider (2^-1 of its mean speed), and give d0 a speed by number:
  // the comparison re-runs by itself.
  const d2 = Number((speeds[2] * 0.5).toPrecision(6));
  await slide(page, '#wi-devices input[type=range][data-device=d2]', '-1');
  await page.waitForFunction((want) => window.placesim.comparison?.scenario.what_if?.speeds?.d2 === want, d2);
  assert.equal(Number(await page.inputValue('#wi-devices input[type=number][data-device=d2]')), d2);
  assert.equal(await page.textContent('#wi-devices .wi-dev[data-device=d2] .wi-factor'), '×0.5');
  await setValue(page, '#wi-devices input[type=number][data-device=d0]', 3e13);
  await page.waitForFunction(() => window.placesim.comparison?.scenario.what_if?.speeds?.d0 === 3e13);
  assert.equal(await page.textContent('#wi-devices-count'), '2 device speeds set');
  const after = await page.evaluate(() => window.placesim.comparison);
  assert.equal(after.results[0].devices[0].speed, 3e13);
  assert.equal(after.results[0].devices[2].speed, d2);
  assert.equal(after.results[0].devices[1].speed, speeds[1]);

  // Each pair's change against the baseline, as the table shows it.
  const rows = await rowsWithDelta(page);
  let changed = 0;
  for (const r of rows) {
    if (r.error) continue;
    const d = (Number(r.makespan) / Number(base[r.key]) - 1) * 100;
    assert.equal(r.delta, `${d > 0 ? '+' : ''}${d.toFixed(1)}%`, r.key);
    if (r.makespan !== base[r.key]) changed++;
  }
  assert.ok(changed > 0, 'some pair changed');
  const hash = await page.evaluate(() => location.hash);
  // Numbers as links write them: the shorter of the plain and the exponent form.
  const short = (x) => [String(x), x.toExponential().replace('e+', 'e')].reduce((a, b) => (b.length < a.length ? b : a));
  assert.ok(hash.endsWith(`&whatif.speeds=d0:3e13,d2:${short(d2)}`), hash);
  const whatIf = byPair(await results(page));
  const url = await shareUrl(page);
  await page.context().close();

  // The link in a fresh page: the same numbers, the same controls.
  const again = await openPage(browser, url);
  assert.deepEqual(byPair(await results(again)), whatIf);
  await again.waitForSelector('#wi-devices .wi-dev[data-device=d2].set');
  assert.equal(Number(await again.inputValue('#wi-devices input[type=number][data-device=d2]')), d2);
  assert.equal(await again.inputValue('#wi-devices input[type=range][data-device=d2]'), '-1');
  assert.equal(Number(await again.getAttribute('#wi-devices .wi-dev[data-device=d1]', 'data-base')), speeds[1]);
  const deltas = await rowsWithDelta(again);
  assert.ok(deltas.filter((r) => !r.error).every((r) => /%$/.test(r.delta)));
  assert.deepEqual(again.errors, []);

  // The CLI gives the same numbers for the same scenario, and writes the same link.
  const speedOf = ['--speed-of', `d0=${3e13}`, '--speed-of', `d2=${d2}`];
  const out = cli([...genCliArgs, ...speedOf, '--json']);
  assert.ok(out, 'the CLI (target/release/placesim) is missing: make cli');
  const fromCli = JSON.parse(out);
  assert.equal(fromCli.results.length, Object.keys(whatIf).length);
  for (const r of fromCli.results) assert.equal(Number(whatIf[`${r.placer}/${r.scheduler}`]), r.makespan, `${r.placer}/${r.scheduler}`);
  assert.deepEqual(fromCli.results[0].devices.map((d) => d.speed), after.results[0].devices.map((d) => d.speed));
  assert.equal(cli([...genCliArgs, ...speedOf, '--url']).trim(), new URL(url).hash);

  // Reset: the drawn speeds again, the baseline numbers, the controls at their means.
  await again.click('#wi-reset');
  await again.waitForFunction(() => !window.placesim.comparison?.scenario.what_if);
  assert.deepEqual(byPair(await results(again)), base);
  assert.equal(Number(await again.inputValue('#wi-devices input[type=number][data-device=d2]')), Number(speeds[2].toPrecision(4)));
  assert.equal(await again.$$eval('#wi-devices .wi-dev.set', (r) => r.length), 0);
  assert.equal(await again.textContent('#wi-devices-count'), '');
  assert.doesNotMatch(await again.evaluate(() => location.hash), /whatif/);

  // Fewer devices drop the speeds of devices the cluster no longer has.
  await slide(again, '#wi-devices input[type=range][data-device=d59]', '1');
  await again.waitForFunction(() => window.placesim.comparison?.scenario.what_if?.speeds?.d59 > 0);
  await setValue(again, '#gen-devices', 59);
  assert.deepEqual(await again.evaluate(() => window.placesim.state.whatifSpeeds), {});
  assert.deepEqual(again.errors, []);
  await again.context().close();
});

test('a graph too large to embed is linked by hash: the page asks for the file and checks it', async () => {
  const text = await readFile(new URL('../../graphs/inception_v3_ops_infer.json', import.meta.url));
  const page = await openPage(browser, linkDefaults());
  await page.setInputFiles('#graph-file', { name: 'inception.json', mimeType: 'application/json', buffer: text });
  await page.waitForFunction(() => document.getElementById('graph-info').textContent.includes('uploaded'));
  await page.click('#run');
  const first = byPair(await results(page));
  const url = await shareUrl(page);
  // The upload's digest (the worker's, by Web Crypto) is the standard one: Node's here, and
  // the engine's (sha2) when the link is opened below and the file checked against it.
  assert.match(url, new RegExp(`graphsha256=${createHash('sha256').update(text).digest('hex')}&graphname=`));
  assert.doesNotMatch(url, /graphz=/);
  await page.context().close();

  const again = await openPage(browser, url);
  await again.waitForSelector('#hash-ask:not([hidden])');
  assert.match(await again.textContent('#hash-ask-text'), /Give that file/);
  await again.setInputFiles('#hash-file', { name: 'other.json', mimeType: 'application/json', buffer: Buffer.from('{"nodes":[{"id":"a","cost":1}]}') });
  await again.waitForSelector('#graph-error:not([hidden])');
  assert.match(await again.textContent('#graph-error'), /^other\.json: .*is not the linked one \(SHA-256 [0-9a-f]{64}, the link wants [0-9a-f]{64}\)/);
  await again.setInputFiles('#hash-file', { name: 'inception.json', mimeType: 'application/json', buffer: text });
  assert.deepEqual(byPair(await results(again)), first); // runs by itself once the file checks out
  assert.deepEqual(again.errors, []);
  await again.context().close();
});

test('a cluster the engine rejects shows its error', async () => {
  const page = await openPage(browser, linkDefaults());
  await page.click('#mode-explicit');
  await page.fill('#device-table tbody tr:nth-child(2) input[aria-label$=id]', 'cpu0');
  await page.dispatchEvent('#device-table tbody tr:nth-child(2) input[aria-label$=id]', 'change');
  await page.click('#run');
  await page.waitForSelector('#run-error:not([hidden])');
  assert.match(await page.textContent('#run-error'), /duplicate device id 'cpu0'/);
  assert.equal(await page.isEnabled('#run'), true);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a link the page cannot read says why, at the top of the results', async () => {
  const page = await openPage(browser, `${server.url}#v=1&graph=vgg19_layers&cost=1..100`);
  await page.waitForSelector('#link-error:not([hidden])');
  assert.match(await page.textContent('#link-error'), /unknown key 'cost'/);
  assert.equal(await page.$$eval('tr[data-makespan]', (r) => r.length), 0, 'nothing ran');
  assert.deepEqual(page.errors, []);
  // A good link opened afterwards clears the message and runs.
  await page.evaluate(() => { location.hash = '#v=1&graph=vgg19_layers&placers=single&schedulers=fifo'; });
  await page.waitForSelector('tr[data-makespan]');
  assert.equal(await page.isHidden('#link-error'), true);
  await page.context().close();
});

test('a bundled cluster with per-kind op speeds travels whole in the link and matches the CLI', async () => {
  const page = await openPage(browser, linkDefaults());
  await page.selectOption('#graph-select', 'vgg19_layers');
  await page.waitForFunction(() => /vgg19_layers/.test(document.getElementById('graph-info').textContent));
  await page.selectOption('#cluster-preset', 'carbonari_small');
  await page.waitForFunction(() => !document.getElementById('cluster-extra').hidden);
  assert.match(await page.textContent('#cluster-extra'), /kinds/);
  assert.equal(await page.$$eval('#device-table tbody tr', (r) => r.length), 3);
  await page.click('#run');
  const first = byPair(await results(page));
  const url = await shareUrl(page);
  assert.match(url, /clusterz=/);
  await page.context().close();

  const again = await openPage(browser, url);
  assert.deepEqual(byPair(await results(again)), first);
  await again.context().close();

  const fromCli = JSON.parse(cli(['compare', '--graph', 'vgg19_layers', '--cluster', 'graphs/clusters/carbonari_small.json', '--json']));
  for (const r of fromCli.results) assert.equal(Number(first[`${r.placer}/${r.scheduler}`]), r.makespan, `${r.placer}/${r.scheduler}`);

  // A broken cluster file shows the engine's error.
  const bad = await openPage(browser, linkDefaults());
  await bad.setInputFiles('#cluster-file', { name: 'c.json', mimeType: 'application/json', buffer: Buffer.from('{"devices":[{"id":"a","speed":0}],"bandwidth":1}') });
  await bad.waitForSelector('#cluster-error:not([hidden])');
  assert.match(await bad.textContent('#cluster-error'), /c\.json: cluster: device 'a': speed must be a finite number > 0/);
  assert.deepEqual(bad.errors, []);
  await bad.context().close();
});

/** The comparison without its wall-clock figures (placement seconds vary run to run). */
function withoutSeconds(c) {
  const copy = JSON.parse(JSON.stringify(c));
  for (const r of copy.results) delete r.placement_seconds;
  return copy;
}

test('an edited upload of the same name and byte length gives new numbers, equal to the CLI', async () => {
  const graph = (cost) => JSON.stringify({
    name: 'same',
    nodes: [{ id: 'a', cost }, { id: 'b', cost: 2e12 }, { id: 'c', cost: 3e12 }, { id: 'd', cost: 1e12 }],
    edges: [{ src: 'a', dst: 'b', bytes: 1e8 }, { src: 'a', dst: 'c', bytes: 1e8 }, { src: 'b', dst: 'd', bytes: 1e8 }, { src: 'c', dst: 'd', bytes: 1e8 }],
  });
  const before = graph(4e12);
  const edited = graph(9e12);
  assert.equal(Buffer.byteLength(before), Buffer.byteLength(edited));
  assert.notEqual(before, edited);
  const page = await openPage(browser, linkDefaults());
  const put = async (text) => {
    await page.setInputFiles('#graph-file', { name: 'same.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    await page.waitForFunction((t) => window.placesim.state.upload?.text === t, text);
  };
  await put(before);
  await page.click('#run');
  const first = byPair(await results(page));
  // An upload runs by itself (issue 25), like a preset.
  await put(edited);
  await page.waitForFunction((old) => {
    const rows = [...document.querySelectorAll('#results-table tbody tr')];
    return !document.getElementById('run').disabled && rows.length > 0
      && rows.some((r) => r.dataset.makespan !== old[`${r.dataset.placer}/${r.dataset.scheduler}`]);
  }, first, { timeout: 120000 });
  const second = byPair(await results(page));
  assert.notDeepEqual(second, first);
  // The CLI on the edited file, with the page's default cluster: the page's numbers.
  const dir = await mkdtemp(join(tmpdir(), 'placesim-'));
  const file = join(dir, 'same.json');
  await writeFile(file, edited);
  const fromCli = JSON.parse(cli(['compare', '--graph', file, '--devices', '4', '--speed', '5e12..1.5e13',
    '--bandwidth', '1e9..1e10', '--latency', '1e-5..1e-5', '--json']));
  assert.equal(fromCli.results.length, Object.keys(second).length);
  for (const r of fromCli.results) assert.equal(second[`${r.placer}/${r.scheduler}`], String(r.makespan), `${r.placer}/${r.scheduler}`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the table sort and the timeline seed are in the URL as they change, and come back on reload', async () => {
  const page = await openPage(browser, linkDefaults());
  await page.selectOption('#graph-select', 'vgg19_layers');
  await page.waitForFunction(() => /vgg19_layers/.test(document.getElementById('graph-info').textContent));
  // A setting reaches the URL at once, with no run.
  await setValue(page, '#seeds', 3);
  await page.waitForFunction(() => location.hash.includes('seeds=3'));
  // Nothing ran for it (the comparison is still the one run on load, of 1 seed).
  assert.equal(await page.evaluate(() => window.placesim.comparison.scenario.seeds), 1);
  await page.click('#run');
  await results(page);
  await page.click('th[data-sort=makespan]');
  await page.click('th[data-sort=makespan]'); // again: descending
  await page.waitForFunction(() => location.hash.includes('sort=-makespan'));
  await setValue(page, '#pair-seed', 2);
  await page.waitForFunction(() => location.hash.includes('pairseed=2'));
  await page.waitForFunction(() => window.placesim.pairRun?.seed === 2);
  const sorted = (await results(page)).filter((r) => !r.error).map((r) => Number(r.makespan));
  assert.deepEqual(sorted, [...sorted].sort((a, b) => b - a));
  const url = page.url();
  const makespan = (await page.evaluate(() => window.placesim.pairRun.result.timeline.makespan));

  await page.reload();
  await page.waitForSelector('html[data-ready=true]');
  const again = (await results(page)).filter((r) => !r.error).map((r) => Number(r.makespan));
  assert.deepEqual(again, sorted);
  assert.equal(await page.getAttribute('th[data-sort=makespan]', 'aria-sort'), 'descending');
  assert.equal(await page.inputValue('#pair-seed'), '2');
  await page.waitForFunction(() => window.placesim.pairRun?.seed === 2);
  assert.equal(await page.evaluate(() => window.placesim.pairRun.result.timeline.makespan), makespan);
  assert.equal(page.url(), url);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a pool of workers gives the bits of one worker', async () => {
  // One seed: the items are per placer; nine seeds on three workers: still per placer;
  // nine seeds on two: per seed. Every split merges to the same comparison.
  for (const [seeds, pool] of [[1, 3], [9, 3], [9, 2]]) {
    const frag = `#v=1&graph=vgg19_ops_infer&devices=6&seeds=${seeds}&seed=3&links=fcfs`;
    const one = await openPage(browser, `${server.url}?workers=1${frag}`);
    assert.equal(await one.evaluate(() => window.placesim.workers), 1);
    const rowsOne = await results(one);
    const cOne = await one.evaluate(() => window.placesim.comparison);
    const many = await openPage(browser, `${server.url}?workers=${pool}${frag}`);
    assert.equal(await many.evaluate(() => window.placesim.workers), pool);
    const rowsMany = await results(many);
    const cMany = await many.evaluate(() => window.placesim.comparison);
    assert.ok(rowsOne.length > 10);
    assert.deepEqual(rowsMany, rowsOne, `${seeds} seeds on ${pool} workers`);
    assert.deepEqual(withoutSeconds(cMany), withoutSeconds(cOne));
    assert.equal(cMany.results[0].makespans.length, seeds);
    if (seeds === 1) {
      // A re-run (here a what-if) hands out the items longest first, by their times in the
      // last run: another order over the workers, the same bits.
      const before = await many.evaluate(() => window.placesim.timings.lastPool.itemMs);
      const whatIf = [];
      for (const page of [one, many]) {
        await page.evaluate(() => { window.placesim.timings.lastCompareMs = -1; });
        await page.fill('#wi-compute', '1');
        await page.dispatchEvent('#wi-compute', 'input');
        await page.waitForFunction(() => window.placesim.timings.lastCompareMs > 0);
        whatIf.push(withoutSeconds(await page.evaluate(() => window.placesim.comparison)));
      }
      const order = await many.evaluate(() => window.placesim.timings.lastPool.order);
      assert.deepEqual(order, [...before.keys()].sort((a, b) => before[b] - before[a]));
      assert.notDeepEqual(order, [...before.keys()], 'the items kept the plan order');
      assert.deepEqual(whatIf[1], whatIf[0]);
      assert.notDeepEqual(whatIf[0], withoutSeconds(cOne), 'the what-if changed nothing');
    }
    // After its first comparison, each page warms the engine once, in a worker (the
    // warm-up's errors are dropped: this fails if it threw).
    // Its item times, keyed as the pool keys items (by placer name), order a new graph's run.
    for (const page of [one, many]) {
      await page.waitForFunction(() => window.placesim.timings.warmUpMs > 0, null, { timeout: 30000 });
      const cost = await page.evaluate(() => window.placesim.timings.warmUpCost);
      assert.deepEqual(Object.keys(cost).sort(), [...new Set(cOne.results.map((r) => r.placer))].sort());
      const times = Object.values(cost);
      assert.ok(times.every((ms) => ms >= 0) && times.reduce((a, b) => a + b) > 0, JSON.stringify(cost));
    }
    assert.deepEqual(one.errors, []);
    assert.deepEqual(many.errors, []);
    await one.context().close();
    await many.context().close();
  }
});

test('an upload changed on disk afterwards: a worker that cannot read the file is sent the text; never the new content', async () => {
  // The workers are sent an upload's File, not its text (pool.js readFrom): a worker that
  // first needs the text after the file changed (the trace's) cannot read the file (the
  // browser refuses a changed one), and the page sends it the text instead.
  const graph = (p) => JSON.stringify({
    name: 'disk',
    nodes: [{ id: `${p}a`, cost: 4e12 }, { id: `${p}b`, cost: 2e12 }, { id: `${p}c`, cost: 3e12 }],
    edges: [{ src: `${p}a`, dst: `${p}b`, bytes: 1e8 }, { src: `${p}a`, dst: `${p}c`, bytes: 1e8 }],
  });
  const dir = await mkdtemp(join(tmpdir(), 'placesim-'));
  const file = join(dir, 'disk.json');
  await writeFile(file, graph('old_'));
  const page = await openPage(browser, linkDefaults());
  await page.setInputFiles('#graph-file', file);
  await page.waitForFunction(() => window.placesim.state.upload?.name === 'disk' && window.placesim.comparison?.graph.name === 'disk'
    && !document.getElementById('run').disabled && window.placesim.pairRun, null, { timeout: 120000 });
  await results(page);
  await writeFile(file, graph('edited_longer_'));
  const trace = await downloadText(page, () => page.click('#export-trace'));
  assert.match(trace, /old_a/);
  assert.doesNotMatch(trace, /edited_longer_/);
  assert.doesNotMatch(await page.textContent('#timeline-status'), /failed/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
