// The page's module import graph and its cycles (the project's rule: none). Reads every
// .js/.mjs file under a folder, takes its relative imports (static `import ... from './x.js'`,
// side-effect `import './x.js'`, `export ... from './x.js'`, dynamic `import('./x.js')`), and
// finds every cycle. JSDoc type imports (`@typedef {import('./x.js').T}`) are in comments and
// are not imports at run time: comments are removed first.
// Run: node tests/browser/import-cycles.mjs [folder]   (default www/; exit 1 on a cycle)

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether a `/` after this code starts a regex literal (not a division). @param {string} before */
function regexCanStart(before) {
  const t = before.trimEnd();
  return t === '' || /[(,=:[!&|?{};+\-*%<>~^]$/.test(t) || /\b(?:return|typeof|case|in|of|void|throw|delete)$/.test(t);
}

/** Removes comments and regex literals, keeping strings (an import's specifier). @param {string} src */
function stripComments(src) {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    const n = src[i + 1];
    if (c === '/' && n === '*') {
      const end = src.indexOf('*/', i + 2);
      i = end < 0 ? src.length : end + 2;
      out += ' ';
    } else if (c === '/' && n === '/') {
      const end = src.indexOf('\n', i);
      i = end < 0 ? src.length : end;
    } else if (c === '/' && regexCanStart(out)) {
      // A regex literal (/[",\n]/ holds quotes): skipped whole, classes and escapes included.
      let j = i + 1;
      let inClass = false;
      while (j < src.length && src[j] !== '\n' && (inClass || src[j] !== '/')) {
        if (src[j] === '\\') j++;
        else if (src[j] === '[') inClass = true;
        else if (src[j] === ']') inClass = false;
        j++;
      }
      out += ' ';
      i = j + 1;
    } else if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += src[j] === '\\' ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const STATIC = /(?:^|[;\s}])(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?(['"])(\.{1,2}\/[^'"]+)\1/g;
const DYNAMIC = /\bimport\s*\(\s*(['"`])(\.{1,2}\/[^'"`]+)\1\s*\)/g;

/** The relative specifiers a module's source imports. @param {string} src @returns {string[]} */
export function importsOf(src) {
  const code = stripComments(src);
  const found = new Set();
  for (const re of [STATIC, DYNAMIC]) {
    for (const m of code.matchAll(re)) found.add(m[2]);
  }
  return [...found];
}

/**
 * The import graph of a set of modules. @param {Map<string, string>} files path -> source
 * (paths '/'-separated, relative to one root) @returns {Map<string, string[]>} path -> imported paths in the set
 */
export function graphOf(files) {
  const graph = new Map();
  for (const [path, src] of files) {
    const deps = [];
    for (const spec of importsOf(src)) {
      const target = join(dirname(path), spec).split('\\').join('/');
      if (files.has(target)) deps.push(target);
    }
    graph.set(path, deps.sort());
  }
  return graph;
}

/**
 * Every elementary cycle of a graph, each once, starting at its least module (Johnson-style
 * search from each start over modules not less than it; the page's graph is small).
 * @param {Map<string, string[]>} graph @returns {string[][]}
 */
export function cyclesOf(graph) {
  const nodes = [...graph.keys()].sort();
  const cycles = [];
  for (const start of nodes) {
    const path = [start];
    const onPath = new Set(path);
    const walk = (node) => {
      for (const next of graph.get(node) || []) {
        if (next === start) cycles.push([...path]);
        else if (next > start && !onPath.has(next)) {
          path.push(next); onPath.add(next);
          walk(next);
          path.pop(); onPath.delete(next);
        }
      }
    };
    walk(start);
  }
  return cycles;
}

/** The modules under a folder (skipping node_modules). @param {string} root @returns {Map<string, string>} */
export function readModules(root) {
  const files = new Map();
  const visit = (dir) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules') continue;
      const p = join(dir, name);
      if (statSync(p).isDirectory()) visit(p);
      else if (/\.m?js$/.test(name)) files.set(relative(root, p).split('\\').join('/'), readFileSync(p, 'utf8'));
    }
  };
  visit(root);
  return files;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] || join(dirname(fileURLToPath(import.meta.url)), '../../www');
  const graph = graphOf(readModules(root));
  const cycles = cyclesOf(graph);
  for (const c of cycles) console.log([...c, c[0]].join(' -> '));
  console.log(`${graph.size} modules, ${cycles.length} cycle(s)`);
  process.exit(cycles.length ? 1 : 0);
}
