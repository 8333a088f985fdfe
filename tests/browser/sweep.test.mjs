// Browser tests of the Sweep panel (www/sweep.js, charts/sweep.js) and the optimiser's
// controls (pesto's panel, progress, cancel, the rows' plan column). See DEVELOPERS.md.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, results, cli, downloadText } from './harness.mjs';

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

const SCENARIO = 'scenarios/carbonari_vgg19_small.json';

test('a bandwidth sweep draws a line per pair, travels in the link and downloads the CLI\'s CSV', async () => {
  const frag = cli(['compare', '--scenario', SCENARIO, '--url']);
  assert.ok(frag, 'the CLI (target/release/placesim) is missing: make cli');
  const page = await openPage(browser, server.url + frag.trim());
  const rows = await results(page);
  await page.selectOption('#sweep-axis', 'bandwidth');
  // The other axis's defaults follow the axis.
  assert.equal(await page.inputValue('#sweep-factors'), '1, 0.5, 0.2, 0.1');
  // A bad factor is the engine's error, naming the axis's factors; the state keeps the last good list.
  await page.fill('#sweep-factors', '1, 0');
  await page.dispatchEvent('#sweep-factors', 'change');
  await page.waitForSelector('#sweep-error:not([hidden])');
  assert.match(await page.textContent('#sweep-error'), /bandwidth factors: factor 2 is 0/);
  await page.fill('#sweep-factors', '1, 0.5, 0.1');
  await page.dispatchEvent('#sweep-factors', 'change');
  assert.equal(await page.isHidden('#sweep-error'), true);
  await page.check('#sweep-log');
  await page.click('#sweep-run');
  await page.waitForSelector('#chart-sweep svg[data-lines]', { timeout: 300000 });
  assert.equal(await page.textContent('#sweep-status'), `3 factors × ${rows.length} pairs done`);
  // The best six pairs by default; every pair on demand.
  const lines = Number(await page.getAttribute('#chart-sweep svg', 'data-lines'));
  assert.equal(lines, Math.min(6, rows.length));
  if (rows.length > 6) {
    assert.equal(await page.textContent('#sweep-all'), `show all ${rows.length} pairs`);
    await page.click('#sweep-all');
    await page.waitForSelector(`#chart-sweep svg[data-lines="${rows.length}"]`);
  }
  assert.equal(await page.locator('#chart-sweep .pc-point').count(), 3 * rows.length);
  // The second metric: makespan / lower bound, a line per pair, every value at least 1.
  assert.equal(await page.getAttribute('#chart-sweep-gap svg', 'data-metric'), 'gap');
  assert.equal(Number(await page.getAttribute('#chart-sweep-gap svg', 'data-lines')), rows.length);
  const gaps = await page.$$eval('#chart-sweep-gap .pc-point', (els) => els.map((e) => Number(e.dataset.value)));
  assert.equal(gaps.length, 3 * rows.length);
  assert.ok(gaps.every((g) => g >= 1 - 1e-12), gaps.join(','));
  // Units on both axes.
  const ticks = await page.$$eval('#chart-sweep .pc-tick', (els) => els.map((e) => e.textContent));
  assert.ok(ticks.some((t) => /\d (s|ms|µs)$/.test(t)), ticks.join('|'));
  assert.ok(ticks.includes('×0.1') && ticks.includes('×1'), ticks.join('|'));
  assert.match(await page.textContent('#chart-sweep'), /bandwidth factor \(× every link bandwidth\), log scale/);
  // Keyboard: the chart is one tab stop; the arrows move between its lines.
  await page.focus('#chart-sweep .pc-line[tabindex="0"]');
  await page.keyboard.press('ArrowDown');
  const focused = await page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
  assert.match(focused ?? '', /×0\.1 .*×0\.5 .*×1 /);

  const csv = await downloadText(page, () => page.click('#sweep-csv'));
  const fromCli = cli(['sweep', '--scenario', SCENARIO, '--bandwidth', '1,0.5,0.1', '--csv']);
  assert.equal(csv, fromCli, 'the page\'s CSV is the CLI\'s, byte for byte');
  assert.match(csv.split('\n')[0], /^bandwidth_factor,placer,scheduler,link_order,makespan_s,/);

  // The sweep's settings travel in the link and come back in a fresh page.
  const url = page.url();
  assert.match(url, /&sweep=bandwidth:1,0\.5,0\.1&sweepscale=log/);
  const again = await openPage(browser, url);
  assert.equal(await again.inputValue('#sweep-factors'), '1, 0.5, 0.1');
  assert.equal(await again.inputValue('#sweep-axis'), 'bandwidth');
  assert.equal(await again.isChecked('#sweep-log'), true);
  assert.deepEqual(page.errors, []);
  assert.deepEqual(again.errors, []);
  await again.context().close();
  await page.context().close();
});

const PESTO = ['compare', '--graph', 'alexnet_layers', '--devices', '2', '--speed', '1e12..4e12', '--bandwidth', '1e9..1e10',
  '--links', 'fcfs', '--placers', 'pesto,heft', '--schedulers', 'given,fifo'];

test('pesto shows its panel, reports progress, cancels, and its rows say the plan\'s status as the CLI does', async () => {
  const long = cli([...PESTO, '--param', 'pesto.budget=1e13', '--url']);
  assert.ok(long, 'the CLI (target/release/placesim) is missing: make cli');
  const page = await openPage(browser, server.url);
  await page.evaluate((f) => { location.hash = f; }, long.trim());
  await page.waitForFunction(() => document.getElementById('progress').value > 0, null, { timeout: 120000 });
  assert.equal(await page.isVisible('#pesto-box'), true);
  const keys = await page.$$eval('#pesto-params input', (els) => els.map((e) => e.dataset.param));
  assert.deepEqual(keys.sort(), ['pesto.budget', 'pesto.mode', 'pesto.seconds']);
  assert.equal(await page.inputValue('#pesto-params input[data-param="pesto.budget"]'), '1e13');
  await page.click('#cancel');
  await page.waitForFunction(() => document.getElementById('status').textContent === 'cancelled');
  assert.equal(await page.isEnabled('#run'), true);

  // A small budget finishes: every pesto row carries the engine's status, as the CLI's.
  const short = cli([...PESTO, '--param', 'pesto.budget=200', '--url']).trim();
  await page.evaluate((f) => { location.hash = f; }, short);
  await page.waitForFunction(() => document.querySelector('#results-table tbody tr[data-placer="pesto"]')
    && !document.getElementById('run').disabled && document.body.classList.contains('has-plans'), null, { timeout: 300000 });
  const cells = await page.$$eval('#results-table tbody tr', (trs) => trs.map((tr) => ({
    pair: `${tr.dataset.placer}/${tr.dataset.scheduler}`, plan: tr.querySelector('td.plan-col')?.textContent ?? '',
  })));
  const json = JSON.parse(cli([...PESTO, '--param', 'pesto.budget=200', '--json']));
  for (const r of json.results) {
    const cell = cells.find((c) => c.pair === `${r.placer}/${r.scheduler}`);
    assert.ok(cell, `${r.placer}/${r.scheduler} is in the table`);
    if (r.plan) assert.ok(cell.plan.startsWith(r.plan.status), `${cell.plan} vs ${r.plan.status}`);
    else assert.equal(cell.plan, '–');
    if (r.placer === 'pesto') assert.match(r.plan.status, /^(optimal \(proven\)|best found after \d+ schedules simulated)/);
    assert.notEqual(r.plan?.status, 'optimal');
  }
  assert.ok(cells.some((c) => /bound \d.* (s|ms|µs), gap /.test(c.plan)), cells.map((c) => c.plan).join('|'));
  // A long plan wraps inside its cell (it used to run on over the traffic column).
  const overflow = await page.$$eval('#results-table td.plan-col', (tds) => tds.filter((td) => td.scrollWidth > td.clientWidth + 1).length);
  assert.equal(overflow, 0, 'a plan cell overflows into the next column');

  // The convergence chart in pesto's panel is drawn from the real result: one point per
  // improvement of the row's plan.history, with the CLI's numbers, units on both axes, and
  // one tab stop whose arrow keys move between the improvements.
  await page.waitForSelector('#chart-convergence svg');
  const chart = await page.$eval('#chart-convergence svg', (svg) => ({
    pair: svg.dataset.pair,
    labels: [...svg.querySelectorAll('.pc-axis-label, .pc-tick')].map((t) => t.textContent),
    points: [...svg.querySelectorAll('.pc-improvement')].map((c) => [c.dataset.work, c.dataset.objective, c.dataset.bound]),
    tabs: [...svg.querySelectorAll('.pc-improvement')].map((c) => c.getAttribute('tabindex')),
  }));
  const row = json.results.find((r) => `${r.placer} / ${r.scheduler}` === chart.pair);
  assert.ok(row?.plan?.history?.length, `${chart.pair} has a history in the CLI's JSON`);
  assert.deepEqual(chart.points, row.plan.history.map((p) => [String(p.work), String(p.objective), String(p.bound)]));
  assert.ok(chart.labels.includes(`work done (${row.plan_reports[0].work_unit})`), chart.labels.join('|'));
  assert.ok(chart.labels.some((t) => / (s|ms|µs)$/.test(t)), chart.labels.join('|'));
  assert.equal(chart.tabs.filter((t) => t === '0').length, 1);
  if (chart.points.length > 1) {
    await page.focus('#chart-convergence .pc-improvement[tabindex="0"]');
    await page.keyboard.press('ArrowRight');
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-work'));
    assert.equal(focused, chart.points[1][0]);
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
