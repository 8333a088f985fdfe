// Pesto21's exact-mode target in wasm (issues 10 and 21: 20-op instances on 2-4 GPUs with
// congested links proven optimal in under a second, natively and in wasm, with pesto's
// default settings). Prints figures (wall seconds, and the process's CPU seconds, less
// sensitive to other work on a shared machine),
// asserts only that wasm gives the native comparison's bits (placement seconds aside).
//
//   cargo bench --bench pesto -- write target/pesto-wasm   # the instances, and native runs
//   node benches/pesto_wasm.mjs target/pesto-wasm          # the same in wasm (www/pkg)
//   node benches/pesto_wasm.mjs target/pesto-wasm 'seed3|n20_k4'   # only names matching a regex
//
// `make bench-wasm` does both. The engine is the page's build (www/pkg, `make pkg`), run by
// Node's V8 through the same calls the page's workers make (Session.load, run_items,
// merge_parts).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { initSync, Session, work_plan, merge_parts } from '../www/pkg/placesim.js';

initSync({ module: readFileSync(new URL('../www/pkg/placesim_bg.wasm', import.meta.url)) });

const dir = process.argv[2];
if (!dir) throw new Error('usage: node benches/pesto_wasm.mjs DIR [NAME-REGEX] (DIR written by cargo bench --bench pesto -- write DIR)');
const only = new RegExp(process.argv[3] ?? '');
const names = readdirSync(dir).filter((f) => f.endsWith('.scenario.json')).map((f) => f.slice(0, -'.scenario.json'.length))
  .filter((name) => only.test(name)).sort();
if (names.length === 0) throw new Error(`no *.scenario.json in ${dir}${process.argv[3] ? ` matching /${process.argv[3]}/` : ''}`);

/** A value with its keys sorted and maps as objects, without clock readings (placement seconds). */
const canon = (v) => {
  if (v instanceof Map) v = Object.fromEntries(v);
  if (Array.isArray(v)) return v.map(canon);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.keys(v).sort().filter((k) => k !== 'placement_seconds').map((k) => [k, canon(v[k])]));
};
const bits = (c) => JSON.stringify(canon(c));

const fmt = (s) => `${s.toFixed(3)} s`;
let under = 0;
let mismatches = 0;
console.log('pesto default settings, 20 ops, fcfs links, wasm against native:');
for (const name of names) {
  const read = (what) => readFileSync(join(dir, `${name}.${what}.json`), 'utf8');
  const scenario = read('scenario');
  const native = JSON.parse(read('native'));
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const session = new Session();
  session.load(scenario, read('graph'), read('cluster'));
  const plan = work_plan(scenario, 1);
  const part = session.run_items(plan.items, null);
  const wasm = merge_parts(scenario, [part]);
  const secs = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(c0);
  const cpu = (used.user + used.system) / 1e6;
  session.free();
  if (secs < 1) under += 1;
  const same = bits(wasm) === bits(native.comparison);
  if (!same) mismatches += 1;
  const row = wasm.results[0];
  const p = row.plan ?? {};
  console.log(`  ${name}: wasm ${fmt(secs)} (cpu ${fmt(cpu)}), native ${fmt(native.seconds)}; ${p.status ?? row.error}, `
    + `objective ${p.objective}, bound ${p.bound}${same ? '' : '  DIFFERS FROM NATIVE'}`);
}
const proven = names.filter((name) => JSON.parse(readFileSync(join(dir, `${name}.native.json`), 'utf8')).comparison.results[0].plan?.status === 'optimal (proven)').length;
console.log(`${under} of ${names.length} under a second in wasm; ${proven} of ${names.length} proven natively; ${names.length - mismatches} of ${names.length} equal to native`);
if (mismatches) process.exit(1);
