// Browser tests of the page's TicTac19 part: the parameter-server panel, link orders as rows,
// iterations, the CDF and ordering charts, the replica's link and the CLI's numbers for it.
// Run: make test-browser (or, after make site cli: cd tests/browser && node --test ps.test.mjs).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, openPage, results, cli, ROOT } from './harness.mjs';

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

/** The shipped forward-pass preset with few iterations (the test's speed), as a scenario file. */
async function smallScenario() {
  const sc = JSON.parse(await readFile(join(ROOT, 'scenarios/tictac19_inception_v3_fw.json'), 'utf8'));
  sc.iterations = 50;
  sc.cluster = { file: join(ROOT, 'scenarios', sc.cluster.file) };
  const dir = await mkdtemp(join(tmpdir(), 'placesim-ps-'));
  const path = join(dir, 'tictac19_small.json');
  await writeFile(path, JSON.stringify(sc));
  return path;
}

async function rowsOf(page) {
  await results(page);
  return page.$$eval('#results-table tbody tr', (rs) => rs.map((r) => ({
    order: r.dataset.order, makespan: Number(r.dataset.makespan), p50: Number(r.dataset.p50), error: r.dataset.error,
  })));
}

test('a TicTac19 replica link: a row per link order, tao beats random, CDF and ordering charts, the CLI\'s numbers, a link that round-trips', async () => {
  const file = await smallScenario();
  const frag = cli(['compare', '--scenario', file, '--url'])?.trim();
  assert.ok(frag, 'the CLI (target/release/placesim) is missing: make cli');
  assert.match(frag, /^#v=2&.*&order=random,tio,tao&iterations=50&replica\.workers=w0,w1,w2,w3&replica\.ps=ps0/);
  const fromCli = JSON.parse(/** @type {string} */ (cli(['compare', '--scenario', file, '--json'])));

  const page = await openPage(browser, server.url + frag);
  const rows = await rowsOf(page);
  assert.deepEqual(rows.map((r) => r.order), ['random', 'tio', 'tao']);
  assert.ok(rows.every((r) => !r.error), JSON.stringify(rows));
  const by = Object.fromEntries(rows.map((r) => [r.order, r]));
  assert.ok(by.tao.p50 < by.random.p50, `tao p50 ${by.tao.p50} vs random ${by.random.p50}`);
  // The page's numbers are the CLI's, bit for bit.
  for (const r of fromCli.results) {
    assert.equal(by[r.link_order].makespan, r.makespan, `makespan of ${r.link_order}`);
    assert.equal(by[r.link_order].p50, r.iteration_time.p50, `p50 of ${r.link_order}`);
  }
  // The columns of a replica: link order, p50 / p95, E and straggler, with units.
  const visible = await page.$$eval('#results-table thead th', (ths) => ths.filter((t) => getComputedStyle(t).display !== 'none')
    .map((t) => t.dataset.sort));
  for (const k of ['link_order', 'p50', 'p95', 'efficiency', 'straggler']) assert.ok(visible.includes(k), `${k} in ${visible}`);
  const cells = await page.$$eval('#results-table tbody tr:first-child td', (tds) => tds.map((t) => t.textContent));
  assert.ok(cells.some((t) => /^\d.* s$/.test(t)) && cells.some((t) => /%$/.test(t)), `${cells}`);
  assert.match(await page.textContent('#answer'), /Median iteration: random .* tao .*%\)/);

  // The CSV has a row per order with its iteration and ordering figures.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  const csv = (await readFile(/** @type {string} */ (await download.path()), 'utf8')).trim().split('\n').map((l) => l.split(','));
  const col = (k) => csv[0].indexOf(k);
  assert.deepEqual(csv.slice(1).map((l) => l[col('link_order')]), ['random', 'tio', 'tao']);
  for (const l of csv.slice(1)) {
    const r = fromCli.results.find((x) => x.link_order === l[col('link_order')]);
    assert.equal(Number(l[col('iteration_p50_s')]), r.iteration_time.p50);
    assert.equal(Number(l[col('straggler_share')]), r.ordering.straggler.mean);
  }

  // Fig. 8: a CDF line per row, as many steps as iterations.
  assert.equal(await page.isVisible('#chart-cdf svg'), true);
  const lines = await page.$$eval('#chart-cdf .pc-line', (ls) => ls.map((l) => [l.getAttribute('data-order'), l.getAttribute('data-count')]));
  assert.deepEqual(lines, [['random', '50'], ['tio', '50'], ['tao', '50']]);
  // Fig. 9: throughput, E and straggler bars; the throughput's references are each row's own.
  const thr = await page.$$eval('#chart-ordering .pc-bar[data-panel=throughput]', (bs) => bs.map((b) => ({
    order: b.getAttribute('data-order'), v: Number(b.getAttribute('data-value')),
    best: Number(b.querySelector('.pc-ref-best')?.getAttribute('data-value')),
    worst: Number(b.querySelector('.pc-ref-worst')?.getAttribute('data-value')),
  })));
  assert.equal(thr.length, 3);
  for (const b of thr) {
    const r = fromCli.results.find((x) => x.link_order === b.order);
    assert.equal(b.v, r.throughput);
    assert.equal(b.best, 1 / r.ordering.theoretical_best);
    assert.equal(b.worst, 1 / r.ordering.theoretical_worst);
  }
  assert.equal(await page.$$eval('#chart-ordering .pc-bar[data-panel=efficiency]', (b) => b.length), 3);
  assert.equal(await page.$$eval('#chart-ordering .pc-bar[data-panel=straggler]', (b) => b.length), 3);
  // One tab stop per chart.
  assert.equal(await page.$$eval('#chart-cdf [tabindex="0"]', (x) => x.length), 1);
  assert.equal(await page.$$eval('#chart-ordering [tabindex="0"]', (x) => x.length), 1);

  // The timeline runs the chosen row's order (the best: tao), and shows the server -> worker links.
  await page.waitForFunction(() => window.placesim.pairRun?.order === 'tao');
  assert.equal(JSON.parse(await page.evaluate(() => window.placesim.pairRun.scenario)).link_order, 'tao');
  // The timeline is one iteration of that row: within the row's iteration times (the replica's
  // balanced bandwidths and all).
  const within = (order) => page.evaluate((o) => {
    const { comparison, pairRun } = window.placesim;
    const it = comparison.results.find((r) => r.link_order === o).iteration_time;
    const t = pairRun.result.timeline.makespan;
    return it.min <= t && t <= it.max ? 'ok' : `${t} outside ${it.min} .. ${it.max}`;
  }, order);
  assert.equal(await within('tao'), 'ok');
  await page.waitForSelector('#chart-timeline [data-links]');
  assert.ok(Number(await page.getAttribute('#chart-timeline [data-links]', 'data-links')) >= 4);
  // Choosing the random row (the keyboard on the CDF: End is the last line, Home the first).
  await page.focus('#chart-cdf [tabindex="0"]');
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.placesim.pairRun?.order === 'random');
  assert.equal(await page.evaluate(() => window.placesim.state.pair), 'pinned/fifo/random');
  assert.equal(await within('random'), 'ok');
  assert.match(await page.textContent('#timeline-status'), /pinned \/ fifo \/ random, seed 0.*random order/);
  assert.equal(await page.$eval('#results-table tr.chosen', (tr) => tr.dataset.order), 'random');
  assert.equal(await page.$eval('#pair-select', (s) => s.value), 'pinned\nfifo\nrandom');

  // The panel shows the link's replica.
  assert.equal(await page.isChecked('#replica-on'), true);
  assert.equal(await page.inputValue('#replica-workers'), 'w0, w1, w2, w3');
  assert.equal(await page.inputValue('#replica-ps'), 'ps0');
  assert.equal(await page.inputValue('#iterations'), '50');
  assert.deepEqual(await page.$$eval('#order-list input:checked', (b) => b.map((x) => x.value)), ['random', 'tio', 'tao']);
  assert.equal(await page.isDisabled('#links'), true);
  assert.match(await page.textContent('#links-note'), /fcfs: a replica/);

  // The page's own link is the CLI's (plus the chosen row), and a fresh page gives the same numbers.
  const own = await page.evaluate(() => window.placesim.fragment());
  assert.equal(own, `${frag}&pair=pinned%2Ffifo%2Frandom`);
  await page.context().close();
  const again = await openPage(browser, server.url + own);
  const rows2 = await rowsOf(again);
  assert.deepEqual(rows2, rows);
  await again.waitForFunction(() => window.placesim.pairRun?.order === 'random');
  assert.deepEqual(again.errors, []);
  assert.deepEqual(page.errors, []);
  await again.context().close();
});

test('the parameter-server panel: a replica from the cluster, fcfs links forced, the loss op found, all in the link', async () => {
  const page = await openPage(browser, linkDefaults());
  await results(page);
  await page.selectOption('#graph-select', 'alexnet_ops_train');
  await page.waitForFunction(() => /alexnet/.test(document.getElementById('graph-info').textContent));
  // The default generated cluster: d0 the server, d1..d3 the workers.
  await page.check('#replica-on');
  assert.equal(await page.inputValue('#replica-workers'), 'd1, d2, d3');
  assert.equal(await page.inputValue('#replica-ps'), 'd0');
  assert.equal(await page.isChecked('#replica-forward'), true);
  assert.equal(await page.inputValue('#replica-target'), 'SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits');
  assert.equal(await page.inputValue('#links'), 'fcfs');
  assert.equal(await page.isDisabled('#links'), true);
  assert.deepEqual(await page.$$eval('#order-list input:checked', (b) => b.map((x) => x.value)), ['random', 'tio', 'tao']);
  assert.match(await page.textContent('#ps-note'), /Server d0, workers d1, d2, d3.*random, tio, tao.*fcfs/);
  // The iterations' limit is the engine's (limits().max_iterations): more is refused, said.
  const max = await page.evaluate(() => document.getElementById('iterations').max);
  assert.equal(max, '10000');
  assert.equal(await page.textContent('#iterations-max'), max);
  await page.fill('#iterations', String(Number(max) + 1));
  await page.dispatchEvent('#iterations', 'change');
  assert.equal(await page.inputValue('#iterations'), '1');
  assert.match(await page.textContent('#ps-note'), /Iterations go from 1 to 10000 \(the engine's limit\); kept 1\./);
  await page.fill('#iterations', '20');
  await page.dispatchEvent('#iterations', 'change');
  await page.fill('#replica-workers', 'd1, d2');
  await page.dispatchEvent('#replica-workers', 'change');
  await page.check('#replica-train');
  assert.equal(await page.isHidden('#replica-target-label'), true);
  await page.fill('#replica-balance', '0.8');
  await page.dispatchEvent('#replica-balance', 'change');
  const f = await page.evaluate(() => location.hash);
  assert.match(f, /^#v=2&graph=alexnet_ops_train&links=fcfs&order=random,tio,tao&iterations=20&replica\.workers=d1,d2&replica\.ps=d0&replica\.balance=0\.8/);
  // An id that is not a device is said at once.
  await page.fill('#replica-ps', 'nope');
  await page.dispatchEvent('#replica-ps', 'change');
  assert.match(await page.textContent('#replica-target-info'), /Not devices of this cluster: nope/);
  // A graph without the loss op: forward-only asks for its id.
  await page.selectOption('#graph-select', 'resnet50_layers');
  await page.waitForFunction(() => /resnet50/.test(document.getElementById('graph-info').textContent));
  await page.check('#replica-forward');
  assert.match(await page.textContent('#replica-target-info'), /no node whose id contains SparseSoftmaxCrossEntropyWithLogits/);
  // Off again: links stay fcfs (the orders still need them) and the orders stay.
  await page.uncheck('#replica-on');
  assert.equal(await page.isDisabled('#links'), true);
  assert.match(await page.textContent('#links-note'), /link orders random, tio, tao/);
  await page.uncheck('#order-list input[value=random]');
  await page.uncheck('#order-list input[value=tio]');
  // The last order cannot go: it stays, and the panel says why.
  await page.click('#order-list input[value=tao]');
  assert.equal(await page.isChecked('#order-list input[value=tao]'), true);
  assert.match(await page.textContent('#ps-note'), /at least one link order/);
  assert.match(await page.evaluate(() => location.hash), /^#v=2&links=fcfs&order=tao&iterations=20$/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
