// A second instrument for the real-code ratio, simpler than bench/measure.mjs: one process lints the TypeScript files
// of one directory with parse-only, the one-empty-rule floor, recommended and every rule (strict), interleaved for N
// rounds (the order rotates each round), gc() and a quiet process before each lint, process CPU time; prints every round and the medians
// of the per-round ratios. `node --expose-gc bench/interleaved.mjs <dir> [rounds]` (after npm run build).
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import path from 'node:path';
import plugin from '../dist/src/index.js';

const [dirArg, roundsArg = '7'] = process.argv.slice(2);
if (!dirArg) {
  console.error('usage: node --expose-gc bench/interleaved.mjs <dir> [rounds]');
  process.exit(2);
}
const dir = path.resolve(dirArg);
const rounds = Number(roundsArg);
const files = ['**/*.ts'];
const base = [{ files, languageOptions: { parser: tsParser } }];
const floor = { files, plugins: { bench: { rules: { empty: { create: () => ({}) } } } }, rules: { 'bench/empty': 'error' } };
const only = (configs) => configs.map((c) => ({ ...c, files }));
const make = (extra) => new ESLint({ cwd: dir, overrideConfigFile: true, overrideConfig: [...base, ...extra] });
const eslints = { parse: make([]), floor: make([floor]), recommended: make(only(plugin.configs.recommended)), strict: make(only(plugin.configs.strict)) };
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
// After a full GC, V8 sweeps and uncommits memory on background threads; wait for quiet so that CPU time is not
// charged to the next configuration.
async function settle() {
  globalThis.gc?.();
  for (let i = 0; i < 40; i++) {
    const c0 = cpu();
    await new Promise((resolve) => setTimeout(resolve, 25));
    if (cpu() - c0 < 1.5) return;
  }
}
for (const e of Object.values(eslints)) await e.lintFiles(['.']); // warm-up
const times = Object.fromEntries(Object.keys(eslints).map((k) => [k, []]));
const names = Object.keys(eslints);
for (let r = 0; r < rounds; r++) {
  for (const k of [...names.slice(r % names.length), ...names.slice(0, r % names.length)]) {
    await settle();
    const t0 = cpu();
    await eslints[k].lintFiles(['.']);
    times[k].push(cpu() - t0);
  }
}
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const ratio = (k, of) => median(times[k].map((v, i) => v / times[of][i])).toFixed(3);
for (const [k, v] of Object.entries(times)) console.log(k.padEnd(12), v.map((x) => x.toFixed(0).padStart(6)).join(''));
console.log(`recommended/floor ${ratio('recommended', 'floor')}  strict/floor ${ratio('strict', 'floor')}  floor/parse ${ratio('floor', 'parse')}${globalThis.gc ? '' : '  (run with --expose-gc)'}`);
