// The plugin's share of each lint, from ESLint's own per-rule statistics: `node bench/share.mjs [options]` (build first).
//
//   --config NAME        recommended (default) or "every rule (strict)"
//   --passes N           passes over each corpus after one warm-up pass (default 8)
//   --top N              how many files to list by the plugin's time (default 10)
//   --mirror-budget KB   bytes of source per fetched server repository, as bench/run.mjs (default 120)
//   --rules              also list each rule's time per pass (sum over files of its median)
//
// Why a fourth view: the timed ratios (bench/run.mjs) divide the CPU time of two different lints, and on this shared
// two-core machine identical lints move by 5–30% between rounds. Here the numerator and the denominator come from the
// same lint: ESLint's `stats` time every rule's creation and listeners and the parse of each file, so the machine's
// speed at that moment scales both. The share is the plugin's rule time over the whole lint (parse, ESLint's traversal,
// every rule); `lint ÷ (lint − plugin)` is then what the config costs over the same lint without the plugin's rules. It
// leaves out collection of the plugin's garbage that lands in ESLint's own code (about 1% of a lint) and ESLint's cost
// of twelve rules rather than one (about 0.5%, counted), and stats' own timing calls add to the rules' time: read it
// beside the floor ratios, not instead of them. Medians per file over the passes.

import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { benchOptions } from './cli.mjs';
import { benchConfigs } from './configs.mjs';
import { realCorpora, ROOT } from './corpora.mjs';

const { values: opts } = benchOptions(
  import.meta.url,
  {
    config: { type: 'string', default: 'recommended' },
    passes: { type: 'string', default: '8' },
    top: { type: 'string', default: '10' },
    'mirror-budget': { type: 'string', default: '120' },
    rules: { type: 'boolean', default: false },
  },
  { helpLines: 16, onError: fail },
);

function fail(message) {
  console.error(`bench/share: ${message}`);
  process.exit(2);
}

const whole = (name) => {
  const n = Number(opts[name]);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} takes a whole number ≥ 1 (got "${opts[name]}")`);
  return n;
};
const PASSES = whole('passes');
const TOP = whole('top');
const MIRROR_BUDGET = whole('mirror-budget') * 1024;
if (opts.config !== 'recommended' && opts.config !== 'every rule (strict)') fail(`--config is recommended or "every rule (strict)" (got "${opts.config}")`);

const plugin = (await import(new URL('../dist/src/index.js', import.meta.url).href)).default;
const corpora = realCorpora(MIRROR_BUDGET, (l) => console.error(l));
if (corpora.length === 0) fail('no corpus: run npm ci (published servers), or set MCP_STATELESS_MIRRORS');

const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: benchConfigs(plugin)[opts.config], ignorePatterns: ['!**/node_modules/'], cache: false, stats: true });
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const PREFIX = 'mcp-stateless/';

console.log(`### The plugin's share of each lint (${opts.config}; ESLint stats, medians of ${PASSES} passes after a warm-up)\n`);
console.log('| corpus | files | lint ms per pass | plugin ms per pass | share | lint ÷ (lint − plugin) |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
const tops = [];
for (const corpus of corpora) {
  const texts = corpus.files.map((f) => readFileSync(f, 'utf8'));
  const per = corpus.files.map(() => ({ plugin: [], lint: [], rules: new Map() }));
  for (let pass = 0; pass <= PASSES; pass++) {
    for (let i = 0; i < texts.length; i++) {
      const [result] = await eslint.lintText(texts[i], { filePath: corpus.files[i] });
      if (pass === 0 || !result.stats) continue;
      const times = result.stats.times.passes[0];
      let mine = 0;
      let rules = 0;
      for (const [id, t] of Object.entries(times.rules ?? {})) {
        rules += t.total;
        if (!id.startsWith(PREFIX)) continue;
        mine += t.total;
        const own = per[i].rules.get(id);
        if (own) own.push(t.total);
        else per[i].rules.set(id, [t.total]);
      }
      per[i].plugin.push(mine);
      per[i].lint.push(times.total ?? times.parse.total + rules + times.fix.total);
    }
  }
  const rows = corpus.files.map((f, i) => ({ file: path.relative(ROOT, f), plugin: median(per[i].plugin), lint: median(per[i].lint) }));
  const plugin = rows.reduce((s, r) => s + r.plugin, 0);
  const lint = rows.reduce((s, r) => s + r.lint, 0);
  console.log(`| ${corpus.name} | ${rows.length} | ${lint.toFixed(0)} | ${plugin.toFixed(1)} | ${((100 * plugin) / lint).toFixed(1)}% | ${(lint / (lint - plugin)).toFixed(3)}× |`);
  const byRule = new Map();
  for (const p of per) for (const [id, ts] of p.rules) byRule.set(id, (byRule.get(id) ?? 0) + median(ts));
  tops.push({ corpus: corpus.name, rows: rows.sort((a, b) => b.plugin - a.plugin).slice(0, TOP), byRule, plugin });
}
for (const t of tops) {
  if (opts.rules) {
    console.log(`\n#### ${t.corpus}: each rule's time per pass\n`);
    console.log('| rule | ms per pass | of the plugin |');
    console.log('| --- | ---: | ---: |');
    for (const [id, ms] of [...t.byRule].sort((a, b) => b[1] - a[1])) console.log(`| ${id.slice(PREFIX.length)} | ${ms.toFixed(2)} | ${((100 * ms) / t.plugin).toFixed(1)}% |`);
  }
  console.log(`\n#### ${t.corpus}: the ${t.rows.length} files where the plugin spends most\n`);
  console.log('| file | plugin ms | lint ms | share |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const r of t.rows) console.log(`| ${r.file.replace(/^node_modules\//, '')} | ${r.plugin.toFixed(2)} | ${r.lint.toFixed(2)} | ${((100 * r.plugin) / r.lint).toFixed(1)}% |`);
}
