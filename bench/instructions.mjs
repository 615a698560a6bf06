// Instruction counts: what each configuration costs, counted rather than timed. `node bench/instructions.mjs [options]`
// (build first: `npm run build`). Needs valgrind; see docs/performance.md.
//
//   --configs LIST       configurations, comma-separated (default: parse-only, the floor, recommended, every rule);
//                        without the floor, counts only (to compare two builds by one configuration)
//   --passes N           counted passes over the corpus per configuration (default 2)
//   --repeat N           count each process N times and take the median (default 1; 3 for comparing two builds)
//   --jobs N             valgrind processes at once (default: the number of CPUs)
//   --mirror-budget KB   bytes of source per fetched server repository, as bench/run.mjs (default 120)
//   --json FILE          also write the raw counts there
//
// BENCH_PLUGIN=<path of another build's src/index.js> counts that build instead of dist/ (copy dist/ somewhere inside
// the project first, e.g. bench/out/dist-base, so it loads the same dependencies): two builds, the same count.
//
// Why: on a shared two-core machine the timed instruments move by ±5–25% between configurations that cost the same
// (parse-only measured 0.94–1.06× the floor in paired runs), which is larger than the difference the targets ask about
// (1.05× against 1.08×). Counting the instructions a process executes under valgrind (cachegrind without its cache
// simulation) does not depend on the neighbours, and V8's `--predictable --predictable-gc-schedule --single-threaded`
// take the time-based decisions out of garbage collection and compilation: the same run counts the same to within
// about 0.1–0.6%. One configuration's cost is (count of 1 + N passes − count of 1 pass) / N, so start-up, module
// loading and the first pass's compilation fall out. Instructions are not time (cache misses and mispredictions weigh
// differently, and the fixed GC schedule is not the default one), so this is a third view beside the two timed ones,
// not a replacement: a change that does not move the counts did not make the plugin cheaper.

import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchOptions } from './cli.mjs';
import { OUT, realCorpora, ROOT } from './corpora.mjs';

const DEFAULT_CONFIGS = ['parse-only', 'empty rule (floor)', 'recommended', 'every rule (strict)'];

const { values: opts } = benchOptions(
  import.meta.url,
  {
    configs: { type: 'string', default: DEFAULT_CONFIGS.join(',') },
    passes: { type: 'string', default: '2' },
    repeat: { type: 'string', default: '1' },
    jobs: { type: 'string', default: String(os.availableParallelism?.() ?? os.cpus().length) },
    'mirror-budget': { type: 'string', default: '120' },
    json: { type: 'string' },
  },
  { helpLines: 11, onError: fail },
);

function fail(message) {
  console.error(`bench/instructions: ${message}`);
  process.exit(2);
}

const positive = (name) => {
  const n = Number(opts[name]);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} takes a whole number ≥ 1 (got "${opts[name]}")`);
  return n;
};
const PASSES = positive('passes');
const REPEAT = positive('repeat');
const JOBS = positive('jobs');
const MIRROR_BUDGET = positive('mirror-budget') * 1024;
const CONFIGS = opts.configs.split(',').map((c) => c.trim()).filter(Boolean);
const KNOWN = [...DEFAULT_CONFIGS, 'security (peer)'];
for (const c of CONFIGS) if (!KNOWN.includes(c)) fail(`unknown configuration "${c}" in --configs (${KNOWN.join(', ')})`);

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  fail('valgrind is not installed (apt-get install valgrind); the timed instruments are in bench/run.mjs');
}

const corpora = realCorpora(MIRROR_BUDGET, (l) => console.error(l));
if (corpora.length === 0) fail('no corpus: run npm ci (published servers), or set MCP_STATELESS_MIRRORS');

mkdirSync(OUT, { recursive: true });
const jobFile = path.join(OUT, 'instructions-job.json');
writeFileSync(jobFile, JSON.stringify({ corpora }));

/** Instructions one process executes: `passes` counted passes after one first pass (0 = the first pass only). */
function count(corpus, config, passes) {
  return new Promise((resolve, reject) => {
    const args = [
      '--tool=cachegrind',
      '--cache-sim=no',
      '--cachegrind-out-file=/dev/null',
      process.execPath,
      '--single-threaded',
      '--predictable',
      '--predictable-gc-schedule',
      path.join(ROOT, 'bench', 'instructions-child.mjs'),
      jobFile,
      String(corpus),
      config,
      String(passes),
    ];
    const child = spawn('valgrind', args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      const m = /I\s+refs:\s+([\d,]+)/.exec(err);
      if (code !== 0 || !m) reject(new Error(`valgrind ${config} (${passes} passes) exited ${code}: ${err.split('\n').filter((l) => !l.startsWith('==')).slice(-3).join(' ')}`));
      else resolve(Number(m[1].replace(/,/g, '')));
    });
  });
}

const tasks = [];
corpora.forEach((c, ci) => {
  for (const config of CONFIGS) for (const passes of [0, PASSES]) for (let r = 0; r < REPEAT; r++) tasks.push({ ci, config, passes });
});
/** Every count of a process, by corpus, configuration and passes; the median is used. */
const counts = new Map();
let next = 0;
let done = 0;
const started = Date.now();
async function worker() {
  while (next < tasks.length) {
    const t = tasks[next++];
    const key = `${t.ci}|${t.config}|${t.passes}`;
    const n = await count(t.ci, t.config, t.passes);
    counts.set(key, [...(counts.get(key) ?? []), n]);
    process.stderr.write(`\rbench/instructions: ${++done}/${tasks.length} processes counted`);
  }
}
try {
  await Promise.all(Array.from({ length: Math.min(JOBS, tasks.length) }, worker));
} catch (e) {
  process.stderr.write('\n');
  fail(e.message);
}
process.stderr.write(`, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);

// A count moves by about 0.1–0.4% between identical processes (where a major collection lands): the median of
// `--repeat` counts takes a stray one out.
const median = (a) => [...a].sort((x, y) => x - y)[(a.length - 1) >> 1];
const results = new Map([...counts].map(([k, v]) => [k, median(v)]));
const md = ['### Instructions per pass (valgrind, counted)', ''];
md.push(`Each configuration: (instructions of one process making 1 + ${PASSES} passes − those of one making 1 pass) / ${PASSES}${REPEAT > 1 ? `, each count the median of ${REPEAT}` : ''}; \`node --single-threaded --predictable --predictable-gc-schedule\`, files linted one by one in a fixed order.`, '');
const raw = {};
corpora.forEach((c, ci) => {
  const perPass = Object.fromEntries(CONFIGS.map((config) => [config, (results.get(`${ci}|${config}|${PASSES}`) - results.get(`${ci}|${config}|0`)) / PASSES]));
  raw[c.name] = { files: c.files.length, passes: PASSES, repeat: REPEAT, perPass, counts: Object.fromEntries(CONFIGS.flatMap((config) => [0, PASSES].map((p) => [`${config}, ${1 + p} pass${p ? 'es' : ''}`, counts.get(`${ci}|${config}|${p}`)]))) };
  const floor = perPass['empty rule (floor)'];
  const parse = perPass['parse-only'];
  md.push(`#### ${c.name}: ${c.files.length} files`, '', '| configuration | instructions per pass (millions) | × parse-only | × floor |', '| --- | ---: | ---: | ---: |');
  for (const config of CONFIGS) {
    md.push(`| ${config} | ${(perPass[config] / 1e6).toFixed(0)} | ${parse ? (perPass[config] / parse).toFixed(3) : '—'} | ${floor ? (perPass[config] / floor).toFixed(3) : '—'} |`);
  }
  md.push('');
  const checks = [];
  // Without the floor (a build compared with another by one configuration's counts) there is no ratio to check.
  if (floor && perPass.recommended !== undefined) checks.push(`recommended ≤ 1.05× the floor: ${(perPass.recommended / floor).toFixed(3)}× — ${perPass.recommended / floor <= 1.05 ? 'met' : 'missed'}`);
  if (floor && perPass['every rule (strict)'] !== undefined) checks.push(`every rule ≤ 1.10×: ${(perPass['every rule (strict)'] / floor).toFixed(3)}× — ${perPass['every rule (strict)'] / floor <= 1.1 ? 'met' : 'missed'}`);
  if (checks.length) md.push(`Targets, counted: ${checks.join('; ')}.`, '');
});
const text = md.join('\n');
console.log(text);
writeFileSync(path.join(OUT, 'instructions.md'), text + '\n');
if (opts.json) writeFileSync(opts.json, JSON.stringify(raw, null, 2));
