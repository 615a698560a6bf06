// The benchmark: `npm run bench` (builds first), or `node bench/run.mjs [--reps N] [--scales 1,2,4] [--no-probe]`.
//
// Lints the generated corpus (bench/generate.mjs → bench/out/) with the ESLint Node API and the typescript-eslint
// parser in five configurations: parse-only (no rules), one empty rule (the floor every enabled rule pays: traversal
// and code-path analysis), this plugin's `recommended` and `strict`, and eslint-plugin-security's `recommended` as a
// peer. Each configuration runs in its own child process (bench/worker.mjs), warmed up once, then the configurations
// take turns, repetition by repetition, so background load hits them alike; the median is reported. Time is the
// child's CPU time (user + system), which other processes on the machine disturb far less than wall time; wall time
// is printed too. Everything is reported as ratios measured in the same run.

import { fork, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GENERATOR_VERSION, PATHOLOGICAL, SCALES, expectedFindings, generateAll } from './generate.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = path.join(here, 'out');
const { values: opts } = parseArgs({
  options: {
    reps: { type: 'string', default: '3' },
    scales: { type: 'string', default: SCALES.join(',') },
    'no-probe': { type: 'boolean', default: false },
  },
});
const REPS = Math.max(1, Number(opts.reps));
const scales = opts.scales.split(',').map(Number);
const CONFIG_NAMES = ['parse-only', 'empty rule', 'recommended', 'strict', 'security (peer)'];

// ---------------------------------------------------------------------------------------------------------------
// Corpus
// ---------------------------------------------------------------------------------------------------------------

const versionFile = path.join(outDir, 'VERSION');
let corpusInfo;
if (!existsSync(versionFile) || Number(readFileSync(versionFile, 'utf8')) !== GENERATOR_VERSION || !scales.every((k) => existsSync(path.join(outDir, `x${k}`)))) {
  process.stderr.write('bench: generating the corpus…\n');
  corpusInfo = generateAll(outDir);
} else {
  corpusInfo = countCorpus();
}

function countCorpus() {
  const corpora = {};
  for (const k of SCALES) {
    const dir = path.join(outDir, `x${k}`);
    if (!existsSync(dir)) continue;
    let files = 0;
    let lines = 0;
    for (const f of walkFiles(dir)) {
      files++;
      lines += readFileSync(f, 'utf8').split('\n').length;
    }
    corpora[k] = { files, lines };
  }
  const p = path.join(outDir, 'pathological', 'pathological.ts');
  return { corpora, pathological: { file: p, lines: readFileSync(p, 'utf8').split('\n').length } };
}

function* walkFiles(dir) {
  for (const e of readdirSyncSafe(dir)) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) yield* walkFiles(full);
    else yield full;
  }
}
function readdirSyncSafe(dir) {
  return existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : [];
}

// ---------------------------------------------------------------------------------------------------------------
// Workers
// ---------------------------------------------------------------------------------------------------------------

class Worker {
  constructor(config) {
    this.config = config;
    this.child = fork(path.join(here, 'worker.mjs'), [config], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.pending = null;
    this.child.on('message', (m) => {
      const p = this.pending;
      this.pending = null;
      if (!p) return;
      if (m.ok) p.resolve(m.value);
      else p.reject(new Error(`${config}: ${m.error}`));
    });
    this.child.on('exit', (code) => {
      if (this.pending) this.pending.reject(new Error(`${config}: worker exited with ${code}`));
    });
    this.ready = new Promise((resolve, reject) => (this.pending = { resolve, reject }));
  }
  send(msg) {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.child.send(msg);
    });
  }
  lint(dir) {
    return this.send({ cmd: 'lint', dir });
  }
  stats(dir) {
    return this.send({ cmd: 'stats', dir });
  }
  async exit() {
    const v = await this.send({ cmd: 'exit' });
    return v.maxRssKiB;
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Configurations measured at the larger scales (the scaling question is about these). */
const SCALING_CONFIGS = ['parse-only', 'recommended', 'strict'];

/** Lint `dir` with each configuration: warm-up, then `reps` rounds in rotating order. */
async function measureScale(dir, reps, names) {
  const workers = names.map((c) => new Worker(c));
  await Promise.all(workers.map((w) => w.ready));
  const runs = new Map(names.map((c) => [c, []]));
  for (const w of workers) await w.lint(dir); // warm-up, one at a time
  for (let r = 0; r < reps; r++) {
    for (let i = 0; i < workers.length; i++) {
      const w = workers[(i + r) % workers.length];
      runs.get(w.config).push(await w.lint(dir));
      process.stderr.write('.');
    }
  }
  const out = {};
  for (const w of workers) {
    const rs = runs.get(w.config);
    out[w.config] = { cpuMs: median(rs.map((x) => x.cpuMs)), wallMs: median(rs.map((x) => x.wallMs)), findings: rs[0].findings, fatal: rs[0].fatal, files: rs[0].files, maxRssKiB: await w.exit() };
  }
  process.stderr.write('\n');
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------------------------

const load0 = os.loadavg();
const results = { scales: {}, stats: null, pathological: null };
for (const k of scales) {
  process.stderr.write(`bench: ${k}x (${corpusInfo.corpora[k].files} files, ${corpusInfo.corpora[k].lines} lines) `);
  results.scales[k] = await measureScale(path.join(outDir, `x${k}`), k === scales[0] ? REPS + 2 : REPS, k === scales[0] ? CONFIG_NAMES : SCALING_CONFIGS);
}

// Per-rule time: ESLint's `stats: true`, strict config, with the shared analysis on its own line ahead of the rules.
{
  process.stderr.write('bench: per-rule stats ');
  const w = new Worker('strict + shared-analysis line');
  await w.ready;
  const dir = path.join(outDir, `x${scales[0]}`);
  await w.stats(dir);
  const runs = [];
  for (let r = 0; r < REPS; r++) {
    runs.push(await w.stats(dir));
    process.stderr.write('.');
  }
  await w.exit();
  const ids = Object.keys(runs[0].rules);
  results.stats = {
    scale: scales[0],
    parse: median(runs.map((x) => x.parse)),
    total: median(runs.map((x) => x.total)),
    rules: Object.fromEntries(ids.map((id) => [id, median(runs.map((x) => x.rules[id] ?? 0))])),
  };
  process.stderr.write('\n');
}

// The pathological file: cold first run (a fresh process, as in a pre-commit hook) and warm median.
{
  process.stderr.write('bench: pathological ');
  const dir = path.join(outDir, 'pathological');
  const out = {};
  for (const c of ['parse-only', 'strict']) {
    const w = new Worker(c);
    await w.ready;
    const first = await w.lint(dir);
    const rest = [];
    for (let r = 0; r < 3; r++) rest.push(await w.lint(dir));
    out[c] = { firstWallMs: first.wallMs, firstCpuMs: first.cpuMs, wallMs: median(rest.map((x) => x.wallMs)), cpuMs: median(rest.map((x) => x.cpuMs)), findings: first.findings, fatal: first.fatal, maxRssKiB: await w.exit() };
    process.stderr.write('.');
  }
  results.pathological = out;
  process.stderr.write('\n');
}
const load1 = os.loadavg();

// ---------------------------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------------------------

const f0 = (x) => x.toFixed(0);
const f2 = (x) => x.toFixed(2);
const mib = (kib) => (kib / 1024).toFixed(0);
const lines = [];
const k1 = scales[0];
const s1 = results.scales[k1];
const parse1 = s1['parse-only'].cpuMs;
const floor1 = s1['empty rule'].cpuMs;

lines.push(`### ${k1}× corpus: ${corpusInfo.corpora[k1].files} files, ${corpusInfo.corpora[k1].lines} lines (median of ${REPS + 2} after a warm-up)`);
lines.push('');
lines.push('| configuration | CPU ms | wall ms | × parse-only | × empty-rule floor | findings | peak RSS MiB |');
lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const c of CONFIG_NAMES) {
  const r = s1[c];
  lines.push(`| ${c} | ${f0(r.cpuMs)} | ${f0(r.wallMs)} | ${f2(r.cpuMs / parse1)} | ${f2(r.cpuMs / floor1)} | ${r.findings}${r.fatal ? ` (+${r.fatal} fatal)` : ''} | ${mib(r.maxRssKiB)} |`);
}
lines.push('');

if (scales.length > 1) {
  lines.push(`### Scaling (CPU ms, median of ${REPS}; the same files, k× the code in each)`);
  lines.push('');
  lines.push(`| configuration | ${scales.map((k) => `${k}× ms`).join(' | ')} | ${scales.slice(1).map((k) => `${k}×/${k1}× (ideal ${k / k1})`).join(' | ')} | ${scales.slice(1).map((k) => `${k}× peak RSS MiB`).join(' | ')} |`);
  lines.push(`| --- | ${scales.map(() => '---:').join(' | ')} | ${scales.slice(1).map(() => '---:').join(' | ')} | ${scales.slice(1).map(() => '---:').join(' | ')} |`);
  for (const c of SCALING_CONFIGS) {
    const row = scales.map((k) => f0(results.scales[k][c].cpuMs));
    const ratios = scales.slice(1).map((k) => f2(results.scales[k][c].cpuMs / results.scales[k1][c].cpuMs));
    const rss = scales.slice(1).map((k) => mib(results.scales[k][c].maxRssKiB));
    lines.push(`| ${c} | ${row.join(' | ')} | ${ratios.join(' | ')} | ${rss.join(' | ')} |`);
  }
  lines.push('');
  lines.push(`Overhead over parse-only by scale (CPU): ${scales.map((k) => `${k}×: recommended ${f2(results.scales[k].recommended.cpuMs / results.scales[k]['parse-only'].cpuMs)}, strict ${f2(results.scales[k].strict.cpuMs / results.scales[k]['parse-only'].cpuMs)}`).join('; ')}.`);
  lines.push('');
}

{
  const st = results.stats;
  lines.push(`### Per rule (ESLint \`stats: true\`, strict, ${st.scale}× corpus, median of ${REPS})`);
  lines.push('');
  lines.push('Total is ESLint\'s per-file total (parse + traversal + every rule), summed over the files. `bench/shared-analysis` builds the shared per-file model (handler discovery, reach, state accesses, definition records) before any rule asks; each rule\'s line is its own work on top. Without that line, the first rule to ask pays for the model.');
  lines.push('');
  lines.push('| rule | ms | % of total |');
  lines.push('| --- | ---: | ---: |');
  lines.push(`| (parse) | ${f0(st.parse)} | ${((100 * st.parse) / st.total).toFixed(1)}% |`);
  for (const [id, ms] of Object.entries(st.rules).sort((a, b) => b[1] - a[1])) lines.push(`| ${id} | ${ms.toFixed(1)} | ${((100 * ms) / st.total).toFixed(2)}% |`);
  lines.push(`| total | ${f0(st.total)} | 100% |`);
  lines.push('');
}

{
  const p = results.pathological;
  const exp = Object.values(expectedFindings()).reduce((a, b) => a + b, 0);
  lines.push(`### Pathological file (${corpusInfo.pathological.lines} lines: ${PATHOLOGICAL.handlers} handlers, ${PATHOLOGICAL.nesting}-level nesting, ${PATHOLOGICAL.chain}-step helper chain, ${PATHOLOGICAL.ring}-function call cycle)`);
  lines.push('');
  lines.push('| configuration | first run, fresh process: wall ms | warm: wall ms (median of 3) | warm CPU ms | findings (expected) | peak RSS MiB |');
  lines.push('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const [c, r] of Object.entries(p)) lines.push(`| ${c} | ${f0(r.firstWallMs)} | ${f0(r.wallMs)} | ${f0(r.cpuMs)} | ${r.findings}${c === 'strict' ? ` (${exp})` : ''}${r.fatal ? ` +${r.fatal} fatal` : ''} | ${mib(r.maxRssKiB)} |`);
  lines.push('');
}

{
  const rec = s1.recommended.cpuMs / parse1;
  const st = results.stats;
  const ruleShares = Object.entries(st.rules).filter(([id]) => !id.startsWith('bench/')).map(([id, ms]) => [id, ms / st.total]);
  const worst = ruleShares.sort((a, b) => b[1] - a[1])[0];
  const shared = (st.rules['bench/shared-analysis'] ?? 0) / st.total;
  const scaleOk = scales.slice(1).every((k) => ['recommended', 'strict'].every((c) => Math.abs(results.scales[k][c].cpuMs / results.scales[k1][c].cpuMs / (k / k1) - 1) <= 0.1));
  const p = results.pathological.strict;
  lines.push('### Targets');
  lines.push('');
  lines.push(`- recommended ≤ 1.15× parse-only: ${f2(rec)}× — ${rec <= 1.15 ? 'met' : 'missed'}`);
  lines.push(`- no single rule above 3% of the total: worst ${worst[0]} ${(100 * worst[1]).toFixed(2)}% — ${worst[1] <= 0.03 ? 'met' : 'missed'}; the shared analysis line is ${(100 * shared).toFixed(2)}%${shared > 0.03 ? ' (above 3%)' : ''}`);
  if (scales.length > 1) lines.push(`- scaling within 10% of linear (recommended, strict): ${scaleOk ? 'met' : 'missed'}`);
  lines.push(`- pathological file under 2 s, no stack overflow: first run ${f0(p.firstWallMs)} ms, warm ${f0(p.wallMs)} ms, ${p.fatal ? 'FATAL' : 'no crash'} — ${p.firstWallMs < 2000 && !p.fatal ? 'met' : p.wallMs < 2000 && !p.fatal ? 'met warm, missed cold' : 'missed'}`);
  lines.push('');
  lines.push(`Load average during the run: ${load0.map(f2).join(' ')} → ${load1.map(f2).join(' ')} (${os.cpus().length} CPUs); node ${process.version}.`);
}

const md = lines.join('\n');
console.log(md);
writeFileSync(path.join(outDir, 'results.md'), `${md}\n`);
writeFileSync(path.join(outDir, 'results.json'), `${JSON.stringify({ corpus: corpusInfo, results }, null, 2)}\n`);

// Another engineer's wire-level probe benchmark, when present.
const probe = path.join(here, 'probe.mjs');
if (!opts['no-probe'] && existsSync(probe)) {
  console.log('\n### bench/probe.mjs\n');
  const r = spawnSync(process.execPath, [probe], { stdio: 'inherit' });
  if (r.status !== 0) console.log(`(bench/probe.mjs exited with ${r.status ?? r.signal}; the lint benchmark above is unaffected)`);
}
