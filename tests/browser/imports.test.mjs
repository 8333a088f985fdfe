// The page's module import graph has no cycle (the project's rule): every module under www/
// (charts/ included), static and dynamic imports. No browser needed. The checker is
// import-cycles.mjs (also a command: node tests/browser/import-cycles.mjs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importsOf, graphOf, cyclesOf, readModules } from './import-cycles.mjs';

const WWW = join(dirname(fileURLToPath(import.meta.url)), '../../www');

test('www/ has no import cycle', () => {
  const graph = graphOf(readModules(WWW));
  assert.ok(graph.has('app.js') && graph.has('charts/timeline/index.js'), 'the page and its charts were read');
  assert.ok(graph.get('app.js').includes('runner.js'), 'app.js imports were read');
  const cycles = cyclesOf(graph).map((c) => [...c, c[0]].join(' -> '));
  assert.deepEqual(cycles, [], `import cycles in www/:\n${cycles.join('\n')}`);
});

test('the checker finds a cycle of two modules (temporary folder)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'placesim-imports-'));
  try {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'a.js'), "import { b } from './sub/b.js';\nexport const a = () => b;\n");
    writeFileSync(join(dir, 'sub', 'b.js'), "import { a } from '../a.js';\nexport const b = () => a;\n");
    writeFileSync(join(dir, 'c.js'), "import { a } from './a.js';\n");
    const cycles = cyclesOf(graphOf(readModules(dir)));
    assert.deepEqual(cycles, [['a.js', 'sub/b.js']]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the checker reads multi-line, dynamic and re-export imports, not comments or regexes', () => {
  const files = new Map([
    ['x.js', "import {\n  one,\n  two,\n} from './y.js';\nconst m = () => import('./z.js');\n"],
    ['y.js', "export * from './w.js';\n/** @typedef {import('./x.js').T} T */\n// import { x } from './x.js';\nconst r = /['\"]/g;\n"],
    ['z.js', "export { one } from './y.js';\nconst s = 'import \"./x.js\"';\n"],
    ['w.js', "const later = await import(`./x.js`);\n"],
  ]);
  assert.deepEqual(importsOf(files.get('x.js')), ['./y.js', './z.js']);
  assert.deepEqual(importsOf(files.get('y.js')), ['./w.js']);
  const graph = graphOf(files);
  assert.deepEqual(graph.get('z.js'), ['y.js']);
  // x -> y -> w -> x (the dynamic import closes it); x -> z -> y -> w -> x.
  assert.deepEqual(cyclesOf(graph), [['w.js', 'x.js', 'y.js'], ['w.js', 'x.js', 'z.js', 'y.js']]);
});
