// Compare the rules' own time of two builds of the plugin on one folder of TypeScript:
// `node bench/ab.mjs <baseline-dist-index.js> [<candidate-dist-index.js>] [dir] [rounds] [config]`.
// One process, one ESLint instance per build with `stats: true`, rounds alternating which build goes first; prints each
// build's rule time per lint (ESLint times each rule's listeners inside every file's own lint, so the machine's drift
// falls on both builds alike) and the candidate/baseline ratio. Use it to check that a change to the analysis made the
// rules cheaper; the bench's ratios to the floor are the figures to report.
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [baseline, candidate = new URL('../dist/src/index.js', import.meta.url).pathname, dirArg = '.', roundsArg = '6', config = 'recommended'] = process.argv.slice(2);
if (!baseline) {
  console.error('usage: node bench/ab.mjs <baseline-dist-index.js> [<candidate-dist-index.js>] [dir] [rounds] [config]');
  process.exit(2);
}
const load = async (file) => (await import(pathToFileURL(path.resolve(file)).href)).default;
const builds = { baseline: await load(baseline), candidate: await load(candidate) };
const dir = path.resolve(dirArg);
const files = ['**/*.ts'];
const engines = Object.fromEntries(
  Object.entries(builds).map(([k, plugin]) => [
    k,
    new ESLint({ cwd: dir, overrideConfigFile: true, stats: true, overrideConfig: [{ files, languageOptions: { parser: tsParser } }, ...plugin.configs[config].map((c) => ({ ...c, files }))] }),
  ]),
);
const totals = { baseline: { rules: 0, parse: 0 }, candidate: { rules: 0, parse: 0 } };
for (const e of Object.values(engines)) await e.lintFiles(['.']); // warm-up
const rounds = Number(roundsArg);
for (let r = 0; r < rounds; r++) {
  for (const k of r % 2 ? ['baseline', 'candidate'] : ['candidate', 'baseline']) {
    for (const result of await engines[k].lintFiles(['.'])) {
      for (const pass of result.stats?.times?.passes ?? []) {
        totals[k].parse += pass.parse?.total ?? 0;
        for (const t of Object.values(pass.rules ?? {})) totals[k].rules += t.total;
      }
    }
  }
}
for (const [k, t] of Object.entries(totals)) console.log(`${k.padEnd(9)} rules ${(t.rules / rounds).toFixed(1)} ms per lint, parse ${(t.parse / rounds).toFixed(0)} ms (rules ${((100 * t.rules) / t.parse).toFixed(1)}% of parse)`);
console.log(`candidate/baseline rule time: ${(totals.candidate.rules / totals.baseline.rules).toFixed(3)}`);
