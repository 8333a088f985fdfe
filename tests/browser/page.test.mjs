// Browser tests of the page's flow (issue 12): the answer first, errors where the user looks,
// honest units, the keyboard, presets, and an axe-core accessibility check.
// Run: make test-browser (see DEVELOPERS.md).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
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

/** A page of the given window size that records errors; waits until the page is ready. */
async function open(path = '', width = 1280, height = 800, colorScheme = 'light') {
  const context = await browser.newContext({ viewport: { width, height }, acceptDownloads: true, colorScheme });
  const page = await context.newPage();
  page.errors = [];
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => page.errors.push(`pageerror: ${e.message}`));
  await page.goto(server.url + path);
  await page.waitForSelector('html[data-ready=true]', { timeout: 60000 });
  return page;
}

/** Where an element is on screen: its box, and whether all of it is inside the window. */
async function box(page, selector) {
  return page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return {
      top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width,
      inView: r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth && r.width > 0,
    };
  });
}

test('answer first: the default comparison runs on load, its results are in view at 1280x800 and 800 px wide', async () => {
  for (const [w, h] of [[1280, 800], [800, 800]]) {
    const page = await open('', w, h);
    await results(page);
    assert.equal(await page.evaluate(() => scrollY), 0);
    // The answer, the table's header and its first rows, without scrolling.
    assert.ok((await box(page, '#answer')).inView, `${w}: the answer is off screen`);
    assert.match(await page.textContent('#answer'), /^Fastest/);
    assert.ok((await box(page, '#results-table thead')).inView, `${w}: the table is off screen`);
    assert.ok((await box(page, '#results-table tbody tr:nth-child(3)')).inView, `${w}: the first rows are off screen`);
    // Run, Cancel and progress stay in view after scrolling to the end of the page.
    await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
    assert.ok(await page.evaluate(() => scrollY) > 0);
    for (const id of ['#run', '#cancel', '#progress']) assert.ok((await box(page, id)).inView, `${w}: ${id} scrolled away`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('a bad link says why at the top of the results; notices show there too', async () => {
  for (const bad of ['devices=999999', 'seeds=0', 'speed=-5..0']) {
    const page = await open(`#v=1&${bad}`);
    const msg = page.locator('#messages .error:not([hidden])');
    await msg.waitFor({ timeout: 60000 });
    const text = await msg.textContent();
    assert.ok(text.length > 10, `${bad}: ${text}`);
    const where = await box(page, '#messages .error:not([hidden])');
    assert.ok(where.inView, `${bad}: the error is off screen`);
    // It is the first thing in the results column, and nothing claims to wait for a graph.
    const results = await box(page, '#results');
    assert.ok(where.top - results.top < 40, `${bad}: the error is not at the top of the results`);
    assert.doesNotMatch(await page.textContent('#results'), /Choose a graph/);
    await page.context().close();
  }
  // The engine's message names the limit; the form's limits are the engine's.
  const page = await open('#v=1&devices=999999');
  await page.locator('#messages .error:not([hidden])').waitFor();
  assert.match(await page.textContent('#messages'), /1024/);
  assert.equal(await page.getAttribute('#gen-devices', 'max'), '1024');
  assert.equal(await page.getAttribute('#seeds', 'max'), '1000');
  // A status message (the share link) shows at the top of the results, not by the button.
  await page.goto(`${server.url}#v=1&graph=vgg19_layers&placers=single,hash&schedulers=fifo`);
  await page.waitForSelector('html[data-ready=true]');
  await results(page);
  await page.click('#share');
  await page.locator('#notice:not([hidden])').waitFor();
  assert.match(await page.textContent('#notice'), /[Ll]ink/);
  assert.ok((await box(page, '#notice')).inView);
  await page.context().close();
});

test('honest numbers: units in the table, abstract units as units, best rows by tolerance like the chart, a failure said once', async () => {
  const page = await open('');
  await results(page);
  const cells = await page.$$eval('#results-table tbody tr:not(.failed) td:nth-child(3)', (t) => t.map((x) => x.textContent));
  assert.ok(cells.every((c) => /\d (s|ms|µs|ns)$/.test(c)), `makespans: ${cells.slice(0, 5)}`);
  // The table's best rows are the chart's starred bars (one tolerance for both).
  const bestRows = await page.$$eval('#results-table tr.best', (r) => r.map((x) => `${x.dataset.placer}/${x.dataset.scheduler}`).sort());
  const bestBars = await page.$$eval('#chart-makespan .pc-bar[data-best]', (b) => b.map((x) => `${x.dataset.placer}/${x.dataset.scheduler}`).sort());
  assert.ok(bestRows.length >= 1);
  assert.deepEqual(bestBars, bestRows);
  // expert fails on every bundled graph (no layer labels): its message is shown once, the
  // other rows point to it, and the table stays inside its panel.
  const failed = await page.$$eval('#results-table tr.failed', (r) => r.map((x) => x.dataset.error));
  assert.ok(failed.length >= 2, `failed rows: ${failed.length}`);
  const shown = await page.$$eval('#results-table tr.failed details p', (p) => p.map((x) => x.textContent));
  assert.equal(shown.length, new Set(failed).size);
  const wrap = await box(page, '#table-wrap');
  const table = await box(page, '#results-table');
  assert.ok(table.width < 1100, `the table is ${table.width} px wide`);
  assert.ok(wrap.right <= 1280);
  // One seed: no error bars, and the axis says so.
  assert.equal(await page.$$eval('#chart-makespan .pc-errorbar', (e) => e.length), 0);
  assert.match(await page.textContent('#chart-makespan .pc-axis-label'), /1 seed/);
  // Log scale: in the state and the link, and back from it.
  await page.check('#log-scale');
  await page.waitForFunction(() => location.hash.includes('scale=log'));
  assert.equal(await page.getAttribute('#chart-makespan svg', 'data-scale'), 'log');
  const again = await open(await page.evaluate(() => location.hash));
  await results(again);
  assert.equal(await again.isChecked('#log-scale'), true);
  assert.equal(await again.getAttribute('#chart-makespan svg', 'data-scale'), 'log');
  await again.context().close();
  await page.context().close();

  // Abstract speeds (10..100 work per second, as Mayer17's): units, never seconds or bytes.
  const abs = await open('#v=1&graph=vgg19_layers&devices=4&speed=10..100&bandwidth=10..60&latency=0..0&placers=single,hash&schedulers=fifo,pct&seeds=3');
  await results(abs);
  const text = await abs.$$eval('#results-table tbody td.num', (t) => t.map((x) => x.textContent));
  const timesAndSizes = text.filter((c) => /\d/.test(c) && !/×$|%$/.test(c));
  // The wall-clock placing column is real seconds; every other number is in units.
  const placing = await abs.$$eval('#results-table tbody tr', (r) => r.map((x) => x.cells[8]?.textContent));
  const rest = timesAndSizes.filter((c) => !placing.includes(c));
  assert.ok(rest.length > 0 && rest.every((c) => /units$/.test(c)), `cells: ${rest}`);
  assert.match(await abs.textContent('#answer'), /units/);
  // (the bounds line ends with the wall-clock time of the comparison, in real seconds)
  assert.doesNotMatch((await abs.textContent('#bounds')).split('Compared')[0], /\d (s|ms|µs|kB|MB|GB)\b/);
  assert.match(await abs.textContent('#results-caption'), /abstract units/);
  // The timeline: simulated times in units, its placement time the wall clock's (real seconds).
  await abs.waitForSelector('#chart-timeline .pc-tl-facts');
  const facts = await abs.textContent('#chart-timeline .pc-tl-facts');
  // Three significant digits, scientific from a million up (issue 25: never 12,856,072,248 units).
  assert.match(facts, /^makespan \d+(\.\d+)?(e\d+)? units · lower bound \d+(\.\d+)?(e\d+)? units/);
  assert.match(facts, /placed in \d+(\.\d+)? (s|ms|µs) \(wall clock\)$/);
  // Several seeds: error bars, and the axis says over how many.
  assert.match(await abs.textContent('#chart-makespan .pc-axis-label'), /mean ± std over 3 seeds/);
  assert.deepEqual(abs.errors, []);
  await abs.context().close();
});

test('keyboard only: upload, run and pair choice (table rows and the chart, one tab stop each)', async () => {
  const page = await open('');
  await results(page);
  /** Presses Tab (or Shift+Tab) until `pred` holds for the focused element; fails after 120
   * (the first visit's device table of 5 devices is 25 stops). */
  const tabTo = async (pred, back = false) => {
    for (let i = 0; i < 120; i++) {
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      if (await page.evaluate(pred)) return i + 1;
    }
    throw new Error(`never reached: ${pred}`);
  };
  // The first stop is the skip link to the results, then Run.
  await page.evaluate(() => /** @type {HTMLElement} */ (document.activeElement)?.blur());
  assert.equal(await tabTo(() => document.activeElement?.id === 'run'), 2);
  // The drop zone opens the file picker with Enter.
  await tabTo(() => document.activeElement?.id === 'drop-zone');
  // Enter activates the file input (what opens the picker). Headless Chromium's chooser
  // event after a programmatic click proved unreliable, so the test sees the activation
  // itself, then gives the input its file as the picker would.
  await page.evaluate(() => document.getElementById('graph-file').addEventListener('click', () => {
    /** @type {any} */ (window).fileInputActivated = true;
  }, { once: true }));
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /** @type {any} */ (window).fileInputActivated === true, null, { timeout: 10000 });
  const graph = await readFile(new URL('../../graphs/vgg19_layers.json', import.meta.url), 'utf8');
  await page.setInputFiles('#graph-file', { name: 'mine.json', mimeType: 'application/json', buffer: Buffer.from(graph) });
  await page.waitForFunction(() => document.getElementById('graph-info').textContent.includes('uploaded'));
  // Back to Run, and run.
  await tabTo(() => document.activeElement?.id === 'run', true);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.placesim.comparison?.scenario.graph.file);
  await results(page);
  // The table's rows are one tab stop; arrows move, Enter chooses the pair.
  await tabTo(() => document.activeElement?.tagName === 'TR');
  assert.equal(await page.$$eval('#results-table tbody tr[tabindex="0"]', (r) => r.length), 1);
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  const row = await page.evaluate(() => {
    const tr = /** @type {HTMLElement} */ (document.activeElement);
    return `${tr.dataset.placer}/${tr.dataset.scheduler}`;
  });
  await page.keyboard.press('Enter');
  await page.waitForFunction((p) => window.placesim.state.pair === p, row);
  // The makespan chart is one tab stop too; an arrow and Enter choose another pair.
  assert.equal(await page.$$eval('#chart-makespan [tabindex="0"]', (b) => b.length), 1);
  await tabTo(() => !!document.activeElement?.closest('#chart-makespan'));
  await page.keyboard.press('ArrowRight');
  const bar = await page.evaluate(() => {
    const g = /** @type {HTMLElement} */ (document.activeElement);
    return `${g.dataset.placer}/${g.dataset.scheduler}`;
  });
  assert.notEqual(bar, row);
  await page.keyboard.press('Enter');
  await page.waitForFunction((p) => window.placesim.state.pair === p, bar);
  // Sorting by keyboard: the header cells are buttons.
  await page.focus('#results-table th[data-sort=makespan] button');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.placesim.state.sort === 'makespan');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('presets: a paper\'s experiment by title opens, says what it is, and runs', async () => {
  const page = await open('');
  await results(page);
  const options = await page.$$eval('#preset optgroup', (g) => g.map((x) => x.label));
  assert.ok(options.includes('Mayer17') && options.includes('Carbonari17'), `${options}`);
  const mayer = await page.$$eval('#preset optgroup[label=Mayer17] option', (o) => o.map((x) => x.textContent));
  assert.ok(mayer.every((t) => /50 generated devices/.test(t)), `${mayer}`);
  await page.selectOption('#preset', 'carbonari_resnet50_small');
  await page.waitForFunction(() => window.placesim.comparison?.scenario.placers.join() === 'single,tf-greedy,submodular,submodular-gi');
  await results(page);
  assert.match(await page.textContent('#preset-info'), /Carbonari17.*2 CPU cores \+ 1 GPU.*4 placers/);
  assert.match(await page.evaluate(() => location.hash), /placers=single,tf-greedy,submodular,submodular-gi/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('what-if: a set device speed is multiplied by the compute scale (the row shows the total)', async () => {
  const page = await open('#v=1&graph=resnet50_layers&devices=1&speed=1e13..1e13&placers=single&schedulers=fifo');
  const base = Number((await results(page))[0].makespan);
  await page.$eval('#wi-compute', (e) => { e.value = '-1'; e.dispatchEvent(new Event('input', { bubbles: true })); });
  await page.click('#wi-devices-details summary');
  await page.waitForSelector('#wi-devices .wi-dev[data-device=d0]');
  await page.$eval('#wi-devices input[type=range][data-device=d0]', (e) => { e.value = '-2'; e.dispatchEvent(new Event('input', { bubbles: true })); });
  await page.waitForFunction(() => window.placesim.comparison?.scenario.what_if?.speeds?.d0 === 2.5e12
    && window.placesim.comparison.scenario.what_if.compute === 0.5);
  const rows = await results(page);
  // x0.25 of its own, x0.5 compute: an eighth of the speed, eight times the makespan.
  assert.ok(Math.abs(Number(rows[0].makespan) / base - 8) < 1e-9, `${rows[0].makespan} / ${base}`);
  assert.equal(await page.textContent('#wi-devices .wi-dev[data-device=d0] .wi-factor'), '×0.125');
  await page.context().close();
});

test('axe-core finds no serious or critical accessibility violations (1280 and 390 px wide, light and dark)', async () => {
  for (const [w, h, scheme] of [[1280, 800, 'light'], [390, 844, 'light'], [1280, 800, 'dark'], [390, 844, 'dark']]) {
    const page = await open('', w, h, scheme);
    assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), scheme === 'dark');
    await results(page);
    await page.waitForFunction(() => document.querySelector('#chart-timeline svg, #chart-timeline canvas'));
    await page.addScriptTag({ content: AXE });
    const violations = await page.evaluate(async () => {
      const r = await /** @type {any} */ (window).axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
    });
    const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(bad, [], `${w} px, ${scheme}: ${JSON.stringify(bad, null, 1)}`);
    if (w === 390) {
      // Narrow: the page does not scroll sideways; the table scrolls inside its panel.
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1));
      const wrap = await page.$eval('#table-wrap', (el) => ({ client: el.clientWidth, scroll: el.scrollWidth }));
      assert.ok(wrap.scroll > wrap.client, `the table fits in ${wrap.client} px?`);
    }
    await page.context().close();
  }
});
