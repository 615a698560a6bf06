// One pathological case in its own process: `node bench/pathological-child.mjs <config> <file>` (forked by run.mjs,
// which kills it at the time limit). Warms up on a small generated file with the same configuration, times parsing
// alone (no rules) on the case, then sends `start` and lints the case once with the configuration. Messages over IPC:
// { phase: 'parse', ms } → { phase: 'start' } → { phase: 'done', cpuMs, wallMs, findings, fatal, byRule, slowestRule,
// maxRssKiB }. If the lint does not finish, run.mjs kills the process and reports the limit.

import { Linter } from 'eslint';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { benchConfigs } from './configs.mjs';
import { localsSource, manyToolsSource } from './pathological.mjs';

const [config, file] = process.argv.slice(2);
const plugin = (await import('../dist/src/index.js')).default;
const configs = benchConfigs(plugin);
if (!configs[config]) throw new Error(`unknown configuration ${config}`);
const send = (m) => new Promise((resolve) => (process.send ? process.send(m, resolve) : (console.log(JSON.stringify(m)), resolve())));

// A virtual path outside node_modules/ (which flat config ignores by default), keeping the extension.
const virtual = (f) => `pathological/${path.basename(f)}`;
const linter = new Linter({ configType: 'flat' });
const text = readFileSync(file, 'utf8');

// Warm-up: module loading and JIT, on small files of both languages, so the timed lint is the case's own cost.
for (const [name, src] of [['warm.ts', localsSource(3, 'handler')], ['warm.js', manyToolsSource(5)]]) {
  linter.verify(src, configs[config], { filename: `pathological/${name}` });
  linter.verify(src, configs['parse-only'], { filename: `pathological/${name}` });
}

const p0 = process.cpuUsage();
linter.verify(text, configs['parse-only'], { filename: virtual(file) });
const p = process.cpuUsage(p0);
await send({ phase: 'parse', ms: (p.user + p.system) / 1000 });

await send({ phase: 'start' });
const c0 = process.cpuUsage();
const t1 = performance.now();
// verifyAndFix without fixing is one plain pass; it is the Linter entry point that collects `stats` (rule times).
const { messages } = linter.verifyAndFix(text, configs[config], { filename: virtual(file), stats: true, fix: false });
const wallMs = performance.now() - t1;
const c = process.cpuUsage(c0);
const byRule = {};
let fatal = 0;
for (const m of messages) {
  if (m.fatal) fatal++;
  else if (m.ruleId) byRule[m.ruleId] = (byRule[m.ruleId] ?? 0) + 1;
}
let slowestRule = null;
for (const pass of linter.getTimes().passes ?? []) {
  for (const [id, t] of Object.entries(pass.rules ?? {})) if (!slowestRule || t.total > slowestRule.ms) slowestRule = { id, ms: t.total };
}
await send({
  phase: 'done',
  cpuMs: (c.user + c.system) / 1000,
  wallMs,
  findings: Object.values(byRule).reduce((a, b) => a + b, 0),
  fatal,
  fatalMessage: messages.find((m) => m.fatal)?.message ?? null,
  byRule,
  slowestRule,
  maxRssKiB: process.resourceUsage().maxRSS,
});
process.exit(0);
