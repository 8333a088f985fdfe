// Browser tests of the timeline beyond the anchors (issue 12) and the first visit (issue 11):
// find an op, its details with units, the engine's critical path, two pairs on one time axis,
// Open in Perfetto, what-if ghost bars, and the first view in milliseconds on a real machine.
// Run: make test-browser (see DEVELOPERS.md).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serverAndBrowser, results, byPair, cli, ROOT } from './harness.mjs';

const env = serverAndBrowser({ before, after });

/** A 1280x800 page after its first run, recording errors; `path` is a fragment or ''. */
async function open(path = '', contextOptions = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 }, ...contextOptions });
  const page = await context.newPage();
  page.errors = [];
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => page.errors.push(`pageerror: ${e.message}`));
  await page.goto(env.server.url + path);
  await page.waitForSelector('html[data-ready=true]', { timeout: 60000 });
  await results(page, 300000);
  await page.waitForSelector('#chart-timeline canvas', { timeout: 120000 });
  return page;
}

/**
 * The chosen pair's timeline as the engine's Timeline shape (ops as [device, start, end], ...),
 * read back from the typed arrays the page draws from (www/timeline-data.js).
 */
function timelineOf(page) {
  return page.evaluate(() => {
    const t = window.placesim.pairRun.result.timeline;
    const name = (v) => t.names.text.slice(v > 0 ? t.names.ends[v - 1] : 0, t.names.ends[v]);
    return {
      makespan: t.makespan,
      devices: t.devices,
      nodes: Array.from(t.names.ends, (_, v) => name(v)),
      ops: Array.from(t.op_start, (s, v) => [t.op_device[v], s, t.op_end[v]]),
      transfers: Array.from(t.tr_start, (s, x) => [t.tr_src[x], t.tr_dst[x], t.tr_ready[x], s, t.tr_end[x], t.tr_bytes[x], t.tr_producer[x]]),
      critical_path: { steps: Array.from(t.critical, (c) => (c >= 0 ? { op: c } : { transfer: -1 - c })), idle: t.critical_idle },
    };
  });
}

const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

test('the first visit compares a real graph on a real machine, read in ms; an old link keeps its own defaults', async () => {
  const page = await open('');
  assert.equal(await page.$eval('#graph-select', (el) => el.value), 'vgg16_ops_train');
  const state = await page.evaluate(() => ({ cluster: window.placesim.state.cluster, dev: window.placesim.state.dev.map((d) => d.id) }));
  assert.deepEqual(state, { cluster: 'explicit', dev: ['cpu0', 'gpu0', 'gpu1', 'gpu2', 'gpu3'] });
  assert.match(await page.textContent('#answer'), /makespan \d+(\.\d+)? ms/);
  const cells = await page.$$eval('#results-table tbody tr:not([data-error]) td.num:nth-of-type(3)', (t) => t.map((x) => x.textContent));
  assert.ok(cells.length > 20 && cells.every((c) => / (ms|µs|s)$/.test(c)), `makespans: ${cells.slice(0, 5)}`);
  // Its link names the graph and the cluster, and gives the same numbers in a fresh page.
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /graph=vgg16_ops_train/);
  const first = byPair(await results(page));
  const again = await open(hash);
  assert.deepEqual(byPair(await results(again)), first);
  // A link from before (every field left out) is still the link default: resnet50_layers on
  // a generated cluster, with the CLI's numbers for it.
  const old = await open('#v=1');
  assert.deepEqual(await old.evaluate(() => [window.placesim.state.graph, window.placesim.state.cluster]), ['resnet50_layers', 'generate']);
  const fromCli = JSON.parse(cli(['compare', '--graph', 'resnet50_layers', '--devices', '4', '--speed', '5e12..1.5e13',
    '--bandwidth', '1e9..1e10', '--latency', '1e-5..1e-5', '--json']));
  const oldRows = byPair(await results(old));
  for (const r of fromCli.results) if (!r.error) assert.equal(oldRows[`${r.placer}/${r.scheduler}`], String(r.makespan), `${r.placer}/${r.scheduler}`);
  for (const p of [page, again, old]) {
    assert.deepEqual(p.errors, []);
    await p.context().close();
  }
});

test('timeline: find an op by name, its details with units, the critical path ends at the makespan', async () => {
  const page = await open('#v=1&graph=resnet50_ops_infer&devices=4&pair=hash/fifo');
  const tl = await timelineOf(page);
  // The critical path, checked here from the timeline's own times: consecutive steps, the
  // last ending at the makespan, durations plus idle equal to the makespan.
  const span = (st) => ('op' in st ? [tl.ops[st.op][1], tl.ops[st.op][2]] : [tl.transfers[st.transfer][3], tl.transfers[st.transfer][4]]);
  const steps = tl.critical_path.steps;
  assert.ok(steps.length > 1, 'a path of several steps');
  for (let i = 1; i < steps.length; i++) assert.ok(span(steps[i - 1])[1] <= span(steps[i])[0] + 1e-12, `step ${i} overlaps`);
  assert.ok(close(span(steps[steps.length - 1])[1], tl.makespan), 'the path ends at the makespan');
  const total = steps.reduce((a, st) => a + span(st)[1] - span(st)[0], 0) + tl.critical_path.idle;
  assert.ok(close(total, tl.makespan), `${total} vs ${tl.makespan}`);
  assert.ok(steps.some((st) => 'transfer' in st), 'hash placement: some transfer binds');
  // The chart draws it and says so.
  const root = await page.$eval('#chart-timeline .pc-timeline', (el) => ({ ...el.dataset }));
  assert.equal(Number(root.criticalSteps), steps.length);
  assert.ok(close(Number(root.criticalEnd), tl.makespan));
  assert.ok(close(Number(root.criticalSum), tl.makespan));
  assert.equal(await page.$eval('#chart-timeline .pc-tl-critical input', (el) => el.checked), true);

  // Find an op by its exact name with the keyboard: the search box, then Enter.
  const v = steps.filter((st) => 'op' in st).at(-1).op;
  const name = tl.nodes[v];
  await page.focus('#chart-timeline .pc-tl-search');
  await page.keyboard.type(name);
  await page.waitForFunction(() => Number(document.querySelector('#chart-timeline .pc-timeline').dataset.matches) >= 1);
  const before = await page.evaluate(() => window.placesim.timelines[0].getView());
  await page.keyboard.press('Enter');
  await page.waitForFunction((want) => document.querySelector('#chart-timeline .pc-timeline').dataset.selected === want, `op:${v}`);
  const view = await page.evaluate(() => window.placesim.timelines[0].getView());
  assert.ok(view[1] - view[0] < before[1] - before[0], 'Enter zooms to the match');
  assert.ok(view[0] <= tl.ops[v][1] && tl.ops[v][2] <= view[1], 'the match is in view');
  const details = await page.textContent('#chart-timeline .pc-tl-details');
  assert.ok(details.includes(name), details);
  assert.match(details, /critical pathyes/);
  assert.match(details, /waiting\d+(\.\d+)? ?(s|ms|µs|ns)/);
  // Its inputs with their bytes, in units.
  assert.match(details, /inputs \(\d+\)/);
  assert.match(details, /: \d+(\.\d+)? (B|kB|MB|GB)/);

  // A transfer on the path: its link and bytes.
  const x = steps.find((st) => 'transfer' in st).transfer;
  await page.evaluate((id) => window.placesim.timelines[0].select('transfer', id), x);
  const td = await page.textContent('#chart-timeline .pc-tl-details');
  const [src, dst] = tl.transfers[x];
  assert.ok(td.includes(`${tl.devices[src].id} → ${tl.devices[dst].id}`), td);
  assert.match(td, /bytes\d+(\.\d+)? (B|kB|MB|GB)/);
  assert.match(td, /waiting.*queued for the link/);

  // Keyboard on the chart: ] steps along the critical path from its first step, Esc clears.
  await page.focus('#chart-timeline canvas');
  await page.keyboard.press('Escape');
  await page.keyboard.press(']');
  const firstStep = steps[0];
  const want = 'op' in firstStep ? `op:${firstStep.op}` : `transfer:${firstStep.transfer}`;
  await page.waitForFunction((w) => document.querySelector('#chart-timeline .pc-timeline').dataset.selected === w, want);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('two pairs side by side on one time axis, in the link', async () => {
  const page = await open('#v=1&graph=resnet50_ops_infer&devices=4&pair=hash/fifo');
  await page.selectOption('#pair2-select', { label: 'single / fifo' });
  await page.waitForSelector('#chart-timeline2 canvas', { timeout: 60000 });
  assert.match(await page.evaluate(() => location.hash), /pair2=single%2Ffifo/);
  const [a, b] = await page.evaluate(() => [window.placesim.pairRun.result.timeline.makespan, window.placesim.pairRun2.result.timeline.makespan]);
  assert.ok(a !== b, 'two different runs');
  // One axis: both start on the longer run, and zooming one zooms the other.
  const views = () => page.evaluate(() => window.placesim.timelines.map((t) => t.getView()));
  let [v1, v2] = await views();
  assert.deepEqual(v1, v2);
  assert.ok(close(v1[1], Math.max(a, b) * 1.01));
  await page.focus('#chart-timeline2 canvas');
  await page.keyboard.press('+');
  [v1, v2] = await views();
  assert.deepEqual(v1, v2);
  assert.ok(v1[1] - v1[0] < Math.max(a, b));
  // The link brings both back.
  const again = await open(await page.evaluate(() => location.hash));
  await again.waitForSelector('#chart-timeline2 canvas', { timeout: 60000 });
  assert.equal(await again.evaluate(() => window.placesim.pairRun2.result.timeline.makespan), b);
  for (const p of [page, again]) {
    assert.deepEqual(p.errors, []);
    await p.context().close();
  }
});

test('Open in Perfetto sends the trace after PING / PONG', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
  // A stand-in for ui.perfetto.dev (no internet here) that speaks its postMessage protocol.
  await context.route('https://ui.perfetto.dev/**', (route) => route.fulfill({
    contentType: 'text/html',
    body: `<!doctype html><title>perfetto</title><script>
      window.received = null;
      addEventListener('message', (e) => {
        if (e.data === 'PING') { e.source.postMessage('PONG', e.origin); return; }
        if (e.data && e.data.perfetto) {
          const p = e.data.perfetto;
          window.received = { title: p.title, text: new TextDecoder().decode(p.buffer) };
        }
      });
    </script>`,
  }));
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${env.server.url}#v=1&graph=vgg19_layers&pair=heft/heft`);
  await page.waitForSelector('html[data-ready=true]', { timeout: 60000 });
  await results(page);
  await page.waitForSelector('#chart-timeline canvas');
  const [popup] = await Promise.all([context.waitForEvent('page'), page.click('#open-perfetto')]);
  await popup.waitForFunction(() => window.received !== null, null, { timeout: 60000 });
  const got = await popup.evaluate(() => window.received);
  assert.match(got.title, /heft \/ heft/);
  const trace = JSON.parse(got.text);
  const ops = trace.traceEvents.filter((e) => e.ph === 'X' && e.cat !== 'transfer');
  assert.equal(ops.length, await page.evaluate(() => window.placesim.pairRun.result.timeline.op_start.length));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('what-if: the makespan, traffic and memory charts show each bar before it (ghost) and the change in units', async () => {
  const page = await open('#v=1&graph=vgg19_layers');
  assert.equal(await page.$$eval('#chart-makespan .pc-ghost', (g) => g.length), 0);
  await page.$eval('#wi-compute', (el) => { el.value = '1'; el.dispatchEvent(new Event('input', { bubbles: true })); });
  await page.waitForFunction(() => window.placesim.comparison?.scenario.what_if?.compute === 2);
  await results(page);
  await page.waitForFunction(() => document.querySelectorAll('#chart-makespan .pc-ghost').length > 0);
  const bars = await page.$$eval('#chart-makespan .pc-bar[data-baseline]', (g) => g.map((x) => ({
    value: Number(x.dataset.value), base: Number(x.dataset.baseline), label: x.getAttribute('aria-label'),
    placer: x.dataset.placer, scheduler: x.dataset.scheduler,
  })));
  assert.ok(bars.length > 10);
  const base = await page.evaluate(() => window.placesim.baseline.results.map((r) => [`${r.placer}/${r.scheduler}`, r.makespan]));
  const baseBy = Object.fromEntries(base);
  for (const b of bars) {
    assert.equal(b.base, baseBy[`${b.placer}/${b.scheduler}`]);
    assert.ok(b.value < b.base, 'compute x2 is faster');
    assert.match(b.label, /−\d+(\.\d+)? (s|ms|µs|ns) \(−\d+(\.\d+)?%\) against the baseline/);
  }
  assert.ok(await page.$$eval('#chart-makespan .pc-legend-item', (l) => l.some((x) => x.dataset.label === 'before the what-if')));

  // The memory chart of the chosen pair: each device's peak before the what-if as a ghost bar,
  // the baseline row's device of the same id, and the change in its tooltip.
  await page.waitForFunction(() => document.querySelectorAll('#chart-memory .pc-device .pc-ghost').length > 0);
  const mem = await page.$eval('#chart-memory svg', (svg) => ({
    placer: svg.dataset.placer, scheduler: svg.dataset.scheduler, legend: svg.querySelector('.pc-legend').textContent,
    devices: [...svg.querySelectorAll('.pc-device')].map((g) => ({ id: g.dataset.device, peak: Number(g.dataset.peak), base: g.dataset.baseline })),
  }));
  const rowsOf = (c) => c.results.find((r) => r.placer === mem.placer && r.scheduler === mem.scheduler).devices;
  const [now, then] = await page.evaluate(() => [window.placesim.comparison, window.placesim.baseline]).then(([c, b]) => [rowsOf(c), rowsOf(b)]);
  assert.equal(mem.devices.length, now.length);
  for (const d of mem.devices) {
    assert.equal(d.peak, now.find((x) => x.id === d.id).peak_memory);
    assert.equal(Number(d.base), then.find((x) => x.id === d.id).peak_memory, `${d.id}: the baseline's peak`);
  }
  assert.match(mem.legend, /before the what-if/);
  await page.hover('#chart-memory .pc-device[data-baseline] .pc-hit');
  const tip = await page.textContent('.pc-tooltip');
  assert.match(tip, /peak before the what-if\d+(\.\d+)? (B|kB|MB|GB)/);
  assert.match(tip, /change[+−]\d+(\.\d+)? (B|kB|MB|GB)( \([+−]\d+(\.\d+)?%\))? against the baseline/);
  // Without a what-if: no ghosts anywhere.
  await page.click('#wi-reset');
  await page.waitForFunction(() => (window.placesim.comparison?.scenario.what_if?.compute ?? 1) === 1);
  await page.waitForFunction(() => document.querySelectorAll('#chart-memory .pc-ghost, #chart-makespan .pc-ghost, #chart-traffic .pc-ghost').length === 0);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a torchvision model exported to ONNX compares on the 4 x V100 preset in milliseconds, with the CLI numbers', async () => {
  // tests/fixtures/onnx/resnet18_torchvision.onnx: PyTorch's export of torchvision's ResNet-18
  // (graph and dims only; tools/onnx_fixtures.py --torchvision).
  const page = await open('');
  const fixture = join(ROOT, 'tests/fixtures/onnx/resnet18_torchvision.onnx');
  await page.setInputFiles('#graph-file', { name: 'resnet18_torchvision.onnx', mimeType: 'application/octet-stream', buffer: await readFile(fixture) });
  await page.waitForFunction(() => document.getElementById('graph-info').textContent.includes('uploaded'));
  assert.match(await page.textContent('#graph-info'), /^resnet18_torchvision: 65 ops/);
  await page.click('#run');
  await page.waitForFunction(() => window.placesim.comparison?.graph?.name === 'resnet18_torchvision', null, { timeout: 120000 });
  const rows = byPair(await results(page));
  assert.match(await page.textContent('#answer'), /makespan \d+(\.\d+)? (ms|µs)/);
  const cells = await page.$$eval('#results-table tbody tr:not([data-error]) td.num:nth-of-type(3)', (t) => t.map((x) => x.textContent));
  assert.ok(cells.length > 20 && cells.every((c) => / (ms|µs)$/.test(c)), `makespans: ${cells.slice(0, 5)}`);
  // The CLI on the same file and preset: the same numbers, bit for bit.
  const fromCli = JSON.parse(cli(['compare', '--graph', fixture, '--cluster', 'hw_1node_4xV100_nvlink', '--json']));
  let compared = 0;
  for (const r of fromCli.results) {
    if (r.error) continue;
    assert.equal(rows[`${r.placer}/${r.scheduler}`], String(r.makespan), `${r.placer}/${r.scheduler}`);
    compared += 1;
  }
  assert.ok(compared > 20, `${compared} pairs compared`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
