// Browser tests of the page's second pass (issue 25): a stale answer is marked as such, the
// answer says how much (and out of memory, and an optimiser that did not improve), the
// preset menu and the keyboard, the phone, the what-if beside the answer, the sweep, memory
// and convergence charts, sorting, uploads, plain error text, units, the first view, and
// axe-core after each kind of run.
// Run: make test-browser (see DEVELOPERS.md).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { deflateRawSync } from 'node:zlib';
import { startServer, launch, results } from './harness.mjs';

let server;
let browser;
const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

before(async () => {
  server = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** A page of the given window size that records errors; waits until its first run ends. */
async function open(path = '', width = 1280, height = 800) {
  const context = await browser.newContext({ viewport: { width, height }, acceptDownloads: true });
  const page = await context.newPage();
  page.errors = [];
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => page.errors.push(`pageerror: ${e.message}`));
  await page.goto(server.url + path);
  await page.waitForSelector('html[data-ready=true]', { timeout: 60000 });
  await page.waitForFunction(() => !document.getElementById('run').disabled, null, { timeout: 600000 });
  return page;
}

/** Chooses a preset with the mouse (or selectOption) and waits for its comparison. */
async function preset(page, name) {
  await page.evaluate(() => { /** @type {any} */ (window).before = window.placesim.comparison; });
  await page.selectOption('#preset', name);
  await page.waitForFunction(() => window.placesim.comparison !== /** @type {any} */ (window).before
    && !document.getElementById('run').disabled, null, { timeout: 600000 });
}

/** Serious or critical axe-core violations, every <details> open (every panel). */
async function axe(page) {
  await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
  if (!(await page.evaluate(() => !!(/** @type {any} */ (window).axe)))) await page.addScriptTag({ content: AXE });
  const v = await page.evaluate(async () => {
    const r = await /** @type {any} */ (window).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return v.filter((x) => x.impact === 'serious' || x.impact === 'critical');
}

test('first view: a training graph that does not fit one GPU, an answer that says by how much; sorting, memory chart, units', async () => {
  const page = await open('');
  const rows = await results(page);
  const s = await page.evaluate(() => ({ graph: window.placesim.state.graph, cluster: window.placesim.state.cluster,
    ms: window.placesim.timings.lastCompareMs }));
  console.log(`first view: ${s.graph}, compared in ${Math.round(s.ms)} ms`);
  // 14: a training step on a hardware preset, where the strategies differ.
  assert.equal(s.graph, 'vgg16_ops_train');
  assert.equal(s.cluster, 'explicit');
  const ran = rows.filter((r) => !r.error).map((r) => Number(r.makespan));
  assert.ok(Math.max(...ran) / Math.min(...ran) > 2, 'the strategies differ');
  // `single` spills off its GPU: the graph does not fit one.
  const single = await page.evaluate(() => window.placesim.comparison.results.find((r) => r.placer === 'single' && !r.error)
    .devices.filter((d) => d.ops > 0).length);
  assert.ok(single > 1, 'single needs more than one GPU');
  // 3: the answer says by how much, and its gap is the table's.
  const answer = await page.textContent('#answer');
  assert.match(answer, /^Fastest: .+, makespan [\d.]+ ms, ([\d.]+)× the lower bound; the next pair, .+, takes [\d.]+% longer \([\d.]+ ms\)\.$/);
  const best = await page.$eval('#results-table tbody tr.best td:nth-of-type(6)', (td) => td.textContent);
  assert.ok(answer.includes(`${best} the lower bound`), `${answer} vs the table's ${best}`);
  // 13: the header speaks of a training step, and so does the graph.
  assert.match(await page.textContent('.lede'), /training step/);

  // 10: failed rows (expert: no layers) sort last in both directions.
  for (const dir of ['makespan', '-makespan']) {
    await page.click('#results-table th[data-sort=makespan] button');
    await page.waitForFunction((d) => window.placesim.state.sort === d, dir);
    const failed = await page.$$eval('#results-table tbody tr', (trs) => trs.map((tr) => tr.classList.contains('failed')));
    const first = failed.indexOf(true);
    assert.ok(first > 0 && failed.slice(first).every(Boolean), `${dir}: ${failed.map(Number).join('')}`);
  }

  // 9: each device against its own capacity: a GPU's bar is not flat beside the 550 GB host.
  await page.waitForSelector('#chart-memory svg[data-mode=single]');
  assert.equal(await page.getAttribute('#chart-memory svg', 'data-scale'), 'relative');
  const gpuBar = await page.$eval('#chart-memory .pc-device[data-device=gpu0] .pc-bar-rect', (r) => Number(r.getAttribute('height')));
  assert.ok(gpuBar > 20, `gpu0's bar is ${gpuBar} px`);
  // 13: GB is said to be 10^9 bytes; the CSV's columns carry units.
  assert.match(await page.textContent('#results-body'), /1 GB = 109 bytes/);
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  const head = (await readFile(/** @type {string} */ (await dl.path()), 'utf8')).split('\n')[0];
  assert.match(head, /makespan_s,makespan_std_s,.*traffic_bytes,.*peak_memory_bytes/);
  // 13: the device table (collapsed by default) shows whole values in its inputs.
  assert.equal(await page.$eval('#device-details', (d) => d.open), false);
  await page.click('#device-details summary');
  const cut = await page.$$eval('#device-table input', (is) => is.filter((i) => i.scrollWidth > i.clientWidth + 1).map((i) => i.value));
  assert.deepEqual(cut, []);
  // 7: the what-if sliders sit next to the answer.
  const gap = await page.evaluate(() => document.getElementById('wi-compute').getBoundingClientRect().top
    - document.getElementById('answer').getBoundingClientRect().bottom);
  assert.ok(gap >= 0 && gap < 300, `the what-if is ${gap} px below the answer`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('stale results are marked in words during a run and after Cancel; the preset menu is keyboard-safe', async () => {
  const page = await open('');
  await results(page);
  const answer = await page.textContent('#answer');
  assert.equal(await page.isHidden('#stale-note'), true);
  // 1: a changed setting marks the answer as not current (a status a screen reader hears).
  await page.selectOption('#links', 'fcfs');
  await page.waitForSelector('#stale-note:not([hidden])');
  assert.match(await page.textContent('#stale-note'), /^Not current: the settings changed/);
  assert.equal(await page.getAttribute('#stale-note', 'role'), 'status');
  assert.equal(await page.getAttribute('#answer', 'aria-describedby'), 'stale-note');
  await page.selectOption('#links', 'parallel');

  // 5: an arrow key in the menu chooses without running; Enter runs.
  await page.focus('#preset');
  await page.evaluate(() => { /** @type {any} */ (window).shown = window.placesim.comparison; });
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const chosen = await page.$eval('#preset', (s) => s.value);
  assert.notEqual(chosen, '');
  assert.equal(await page.isDisabled('#run'), false, 'an arrow key started a run');
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.placesim.comparison === /** @type {any} */ (window).shown), true);
  assert.equal(await page.isDisabled('#run'), false, 'an arrow key started a run');
  // A Pesto21 preset: mid-run the old answer is marked, after Cancel too.
  await page.selectOption('#preset', 'pesto21_rnnlm_ops_train');
  await page.focus('#preset');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#cancel:not([disabled])');
  await page.waitForSelector('#stale-note:not([hidden])');
  assert.match(await page.textContent('#stale-note'), /Not current: .*previous settings.*running/);
  assert.equal(await page.textContent('#answer'), answer);
  assert.equal(await page.$eval('#results-body', (b) => b.classList.contains('stale')), true);
  await page.click('#cancel');
  await page.waitForFunction(() => /cancelled/.test(document.getElementById('stale-note').textContent));
  assert.equal(await page.isVisible('#stale-note'), true);
  // The menu shows the active preset.
  assert.equal(await page.$eval('#preset', (s) => s.value), 'pesto21_rnnlm_ops_train');

  // 5: the skip link is the first Tab stop and lands on the results; few stops before them.
  // Focus from the top of the page (a spot before every Tab stop).
  const fromTop = () => page.evaluate(() => {
    const a = document.getElementById('test-top') ?? document.createElement('span');
    a.id = 'test-top';
    a.tabIndex = -1;
    document.body.prepend(a);
    a.focus();
  });
  await fromTop();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip-link');
  let stops = 1;
  while (!(await page.evaluate(() => !!document.activeElement?.closest('#results'))) && stops < 200) {
    await page.keyboard.press('Tab');
    stops++;
  }
  console.log(`Tab stops before the results, not using the skip link: ${stops}`);
  assert.ok(stops < 60, `${stops} Tab stops before the results`);
  await fromTop();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'results-start');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('out of memory in the answer; a pesto that did not improve says so; axe-core after a Pesto21-style run', async () => {
  const page = await open('');
  await results(page);
  // 2: Mayer17's VGG-16: every pair runs out of memory, said with the device and by how much.
  await preset(page, 'mayer17_vgg16_ops_train');
  const answer = await page.textContent('#answer');
  assert.match(answer, /^Every pair runs out of memory \(the fastest: d\d+ needs [\d,.]+ units of its [\d,.]+ units, [\d,.]+ units \([\d.]+%\) too much\)/);
  const gap = /([\d.]+)× the lower bound/.exec(answer)?.[1];
  const best = await page.$eval('#results-table tbody tr.best td:nth-of-type(6)', (td) => td.textContent);
  assert.equal(`${gap}×`, best);
  assert.equal(await page.$eval('#preset', (s) => s.value), 'mayer17_vgg16_ops_train');
  // A setting changed: the menu is back at its prompt and says from which preset.
  await page.selectOption('#links', 'fcfs');
  assert.equal(await page.$eval('#preset', (s) => s.value), '');
  assert.match(await page.textContent('#preset-info'), /^Changed from the preset Mayer17/);

  // 4: pesto with a budget too small to improve on its warm start.
  const p = await open('#v=1&graph=alexnet_ops_train&devices=3&placers=pesto,heft&schedulers=given,pct&pesto.budget=1');
  await results(p);
  assert.match(await p.textContent('#answer'), /pesto \/ given: no improvement over the warm start \([\d.]+ \w+\) in [\d,]+ schedules simulated\./);
  await p.waitForSelector('#chart-convergence svg');
  const titles = await p.$$eval('#chart-convergence .pc-title', (t) => t.map((x) => x.textContent));
  assert.ok(titles.join(' ').startsWith('Convergence of pesto / given: best makespan and lower bound against work'), titles.join('|'));
  assert.ok(titles.every((t) => !t.includes('…')), titles.join('|'));
  assert.match(await p.textContent('#chart-convergence .pc-subtitle'), /no improvement over the warm start/);
  assert.match(await p.textContent('#convergence-caption'), /^Budget 1 schedule simulated\. This search did [\d,]+ schedules simulated\./);
  // 15: no serious or critical violation on any panel after a run with a convergence chart.
  assert.deepEqual(await axe(p), []);
  for (const x of [page, p]) {
    assert.deepEqual(x.errors, []);
    await x.context().close();
  }
});

test('phone: presets near the top, the answer brought into view after a run; TicTac19 preset wording and axe-core', async () => {
  const page = await open('', 390, 844);
  await results(page);
  // 6: the preset chooser comes first, above the results.
  const [presetTop, resultsTop] = await page.evaluate(() => ['preset', 'results'].map((id) => document.getElementById(id).getBoundingClientRect().top + scrollY));
  assert.ok(presetTop < 300 && presetTop < resultsTop, `preset at ${presetTop}, results at ${resultsTop}`);
  // After a preset's run its answer is on screen.
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await preset(page, 'tictac19_alexnet_fw_w1');
  await page.waitForTimeout(200);
  const r = await page.$eval('#answer', (el) => { const b = el.getBoundingClientRect(); return { top: b.top, bottom: b.bottom }; });
  assert.ok(r.top >= 0 && r.top < 844, `the answer is at ${r.top}`);
  // 13: "1 server", never "1 servers".
  const caption = await page.textContent('#results-caption');
  assert.ok(!/\b1 servers\b|\bx1 workers\b/.test(caption), caption);
  // 15: axe-core after a TicTac19 run (CDF and ordering charts), every panel open.
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('sweep: the best pairs by default, every pair on demand, a log axis over decades; axe-core after it', async () => {
  const page = await open('#v=1&graph=alexnet_ops_train&devices=4&seeds=1');
  const rows = await results(page);
  await page.fill('#sweep-factors', '1, 0.1');
  await page.dispatchEvent('#sweep-factors', 'change');
  await page.click('#sweep-run');
  await page.waitForSelector('#chart-sweep svg[data-lines]', { timeout: 300000 });
  const ok = rows.filter((r) => !r.error).length;
  assert.ok(ok > 6);
  // 8: six lines (and legend entries) by default.
  assert.equal(await page.getAttribute('#chart-sweep svg', 'data-lines'), '6');
  assert.equal(await page.locator('#chart-sweep .pc-legend-item').count(), 6);
  assert.match(await page.textContent('#chart-sweep .pc-subtitle'), new RegExp(`the best 6 of ${rows.length} pairs`));
  await page.click('#sweep-all');
  await page.waitForSelector(`#chart-sweep svg[data-lines="${rows.length}"]`);
  const vals = await page.$$eval('#chart-sweep .pc-point', (ps) => ps.map((x) => Number(/** @type {HTMLElement} */ (x).dataset.value)));
  const decades = Math.max(...vals) / Math.min(...vals) >= 10;
  assert.equal(await page.getAttribute('#chart-sweep svg', 'data-value-scale'), decades ? 'log' : 'linear');
  // 15: the sweep's lines have a role with their labels.
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('an upload runs like a preset; a cut link and import errors read as plain words', async () => {
  const page = await open('');
  await results(page);
  // 11: an uploaded graph runs by itself.
  const graph = await readFile(new URL('../../graphs/vgg19_layers.json', import.meta.url), 'utf8');
  await page.setInputFiles('#graph-file', { name: 'mine.json', mimeType: 'application/json', buffer: Buffer.from(graph) });
  await page.waitForFunction(() => window.placesim.comparison?.scenario.graph.file, null, { timeout: 120000 });
  await results(page);
  assert.equal(await page.isHidden('#stale-note'), true);
  // 12: a link cut short names its field in plain words, no Rust Debug text.
  const z = deflateRawSync(Buffer.from(graph)).toString('base64url');
  const cut = await open(`#v=1&graphz=${z.slice(0, (z.length >> 1) & ~3)}`);
  const text = await cut.textContent('#link-error');
  assert.match(text, /graphz: the compressed data is cut short or damaged/);
  assert.ok(!/DecompressError|Status|\{|--[a-z]/.test(text), text);
  // 12: an ONNX import's error names no CLI flag.
  await page.click('#onnx-options summary');
  await page.fill('#onnx-shapes', 'nosuchinput=1x2');
  const onnx = await readFile(new URL('../../tests/fixtures/onnx/mlp.onnx', import.meta.url));
  await page.setInputFiles('#graph-file', { name: 'mlp.onnx', mimeType: 'application/octet-stream', buffer: onnx });
  await page.waitForFunction(() => !document.getElementById('graph-error').hidden
    || /mlp/.test(document.getElementById('graph-info').textContent), null, { timeout: 60000 });
  const err = await page.$eval('#graph-error', (e) => (e.hidden ? '' : e.textContent));
  assert.match(err, /input shape 'nosuchinput' names no input of the model/);
  assert.ok(!/--[a-z]/.test(err), err);
  assert.ok(await page.isHidden('#unsized-ask'), 'no offer for an error that is not about sizing');
  // A model whose FLOPs could not be sized: the error names the node, and the page offers
  // the import with those ops at cost 0 (the CLI's --allow-unsized), whose notes say so.
  await page.fill('#onnx-shapes', '');
  const unsized = await readFile(new URL('../../tests/fixtures/onnx/data_dependent.onnx', import.meta.url));
  await page.setInputFiles('#graph-file', { name: 'data_dependent.onnx', mimeType: 'application/octet-stream', buffer: unsized });
  await page.waitForSelector('#unsized-ask:not([hidden])', { timeout: 60000 });
  assert.match(await page.textContent('#graph-error'), /node 'nz' \(NonZero\) could not be sized/);
  await page.click('#unsized-go');
  await page.waitForFunction(() => /data_dependent/.test(document.getElementById('graph-info').textContent), null, { timeout: 60000 });
  assert.match(await page.textContent('#graph-info'), /not sized \(cost 0\): nz/);
  assert.ok(await page.isHidden('#graph-error') && await page.isHidden('#unsized-ask'));
  for (const x of [page, cut]) await x.context().close();
});
