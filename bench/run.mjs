// The benchmark: `npm run bench` (builds first), or `node bench/run.mjs [options]`. See docs/performance.md.
//
//   --quick              3 rounds, 10 s pathological limit, two esquery builds, no memory pass, no probe
//   --rounds N           timed rounds per configuration (default 5; every configuration also lints once to warm up)
//   --limit S            seconds a pathological case may take before it is killed (default 30)
//   --jobs N             pathological cases run at once, each in its own process (default 2)
//   --only LIST          sections, comma-separated: real, pathological, type-checked, instructions, probe
//                        (default: real,pathological,probe)
//   --type-checked       add the recommended-type-checked section (bench/type-checked.mjs; a few minutes)
//   --instructions       add instruction counts under valgrind (bench/instructions.mjs; about 14 min with the mirrors)
//   --generated          add the generated corpus (bench/generate.mjs) to the one-process comparison; it flatters
//                        (uniform, handler-dense code), so it is off by default
//   --scales LIST        its scales (default 1,2,4): the same files holding k× the code
//   --paired-rounds N    rounds of the paired per-file measurement (default 5; 0 leaves it out)
//   --mirror-budget KB   bytes of source per fetched server repository in the mirror corpus (default 120)
//   --patho-configs LIST configurations for the pathological cases (default: every rule (strict))
//   --no-memory          skip the peak-RSS pass (one process per configuration, one lint each)
//   --no-probe           skip bench/probe.mjs
//   --json FILE          also write the raw results there (always written to bench/out/results.json)
//
// Real code: the published MCP servers installed as devDependencies (their built JavaScript), and, when
// MCP_STATELESS_MIRRORS names a folder of fetched <owner>+<name>/repo mirrors, the servers' own sources. All
// configurations lint the same files in ONE process (bench/measure.mjs), interleaved round by round; medians are
// reported as ratios to parse-only and to the one-empty-rule floor. Pathological cases (bench/pathological.mjs) each run
// in their own process with a time limit and are reported "> N s (killed)" when they pass it.

import { fork, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchOptions } from './cli.mjs';
import { extractMirrors, measureFiles, mirrorRootFromEnv, mirrorServerFiles, OUT, publishedServerFiles, ROOT, walkSources } from './corpora.mjs';
import { runCase, writeCases } from './pathological.mjs';

const { values: opts } = benchOptions(
  import.meta.url,
  {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    limit: { type: 'string' },
    jobs: { type: 'string', default: '2' },
    only: { type: 'string' },
    'type-checked': { type: 'boolean', default: false },
    instructions: { type: 'boolean', default: false },
    generated: { type: 'boolean', default: false },
    scales: { type: 'string', default: '1,2,4' },
    'mirror-budget': { type: 'string', default: '120' },
    'paired-rounds': { type: 'string' },
    'patho-configs': { type: 'string', default: 'every rule (strict)' },
    'no-memory': { type: 'boolean', default: false },
    'no-probe': { type: 'boolean', default: false },
    json: { type: 'string' },
  },
  { helpLines: 20, onError: fail },
);
const QUICK = opts.quick;
const num = (name, fallback, min) => {
  const v = Number(opts[name] ?? fallback);
  if (!Number.isFinite(v) || v < min) fail(`--${name} must be a number ≥ ${min} (got "${opts[name]}")`);
  return v;
};
const ROUNDS = Math.floor(num('rounds', QUICK ? 3 : 5, 1));
const PAIRED_ROUNDS = Math.floor(num('paired-rounds', QUICK ? 1 : 5, 0));
const LIMIT_MS = num('limit', QUICK ? 10 : 30, 0.1) * 1000;
const JOBS = Math.floor(num('jobs', 2, 1));
const MIRROR_BUDGET = num('mirror-budget', 120, 1) * 1024;
const sections = new Set((opts.only ?? `real,pathological${QUICK || opts['no-probe'] ? '' : ',probe'}${opts['type-checked'] ? ',type-checked' : ''}${opts.instructions ? ',instructions' : ''}`).split(','));
for (const s of sections) if (!['real', 'pathological', 'type-checked', 'instructions', 'probe'].includes(s)) fail(`unknown section "${s}" in --only (real, pathological, type-checked, instructions, probe)`);
const CONFIGS = ['parse-only', 'empty rule (floor)', 'recommended', 'every rule (strict)', 'security (peer)'];
const PATHO_CONFIGS = opts['patho-configs'].split(',').map((s) => s.trim());
for (const c of PATHO_CONFIGS) if (!CONFIGS.includes(c)) fail(`unknown configuration "${c}" in --patho-configs (${CONFIGS.join(', ')})`);

function fail(msg) {
  console.error(`bench: ${msg}`);
  process.exit(2);
}
if (!existsSync(path.join(ROOT, 'dist', 'src', 'index.js'))) fail('dist/ is missing: run `npm run build` first (npm run bench does)');
mkdirSync(OUT, { recursive: true });
const log = (s) => process.stderr.write(`${s}\n`);
const t0 = Date.now();
const load0 = os.loadavg();
const results = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, options: { rounds: ROUNDS, limitMs: LIMIT_MS, quick: QUICK } };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const f0 = (x) => (x == null ? '—' : x.toFixed(0));
const f2 = (x) => (x == null || !Number.isFinite(x) ? '—' : x.toFixed(2));
const mib = (kib) => (kib == null ? '—' : (kib / 1024).toFixed(0));
const md = [];

// ---------------------------------------------------------------------------------------------------------------
// Real code, every configuration in one process
// ---------------------------------------------------------------------------------------------------------------

function collectCorpora() {
  const corpora = [];
  const published = publishedServerFiles();
  if (published.missing.length) log(`bench: not installed (run npm ci): ${published.missing.join(', ')}`);
  if (published.files.length) {
    corpora.push({ name: 'published servers (built JS)', files: published.files.map((f) => f.file), groups: new Set(published.files.map((f) => f.group)).size, what: 'packages' });
  }
  const mirrorRoot = mirrorRootFromEnv();
  if (mirrorRoot) {
    log(`bench: extracting mirrors from ${mirrorRoot} into bench/out/mirrors/ …`);
    const extracted = extractMirrors(mirrorRoot, log);
    const files = mirrorServerFiles(extracted, { perRepoBytes: MIRROR_BUDGET });
    if (files.length) corpora.push({ name: 'fetched servers (sources)', files: files.map((f) => f.file), groups: new Set(files.map((f) => f.group)).size, what: 'repositories' });
    else log(`bench: MCP_STATELESS_MIRRORS=${mirrorRoot} holds no usable mirror`);
  }
  if (opts.generated) {
    const scales = opts.scales.split(',').map(Number);
    if (!scales.every((k) => [1, 2, 4].includes(k))) fail(`--scales takes 1, 2 and 4 (got "${opts.scales}")`);
    const gen = path.join(OUT, 'generated');
    const version = path.join(gen, 'VERSION');
    const need = !scales.every((k) => existsSync(path.join(gen, `x${k}`)));
    if (need || !existsSync(version)) {
      log('bench: generating the synthetic corpus …');
      spawnSync(process.execPath, [path.join(ROOT, 'bench', 'generate.mjs'), gen], { stdio: ['ignore', 'ignore', 'inherit'] });
    }
    for (const k of scales) corpora.push({ name: `generated ${k}×`, files: walkSources(path.join(gen, `x${k}`)), groups: 8, what: 'server shapes', scale: k });
  }
  for (const c of corpora) {
    const m = measureFiles(c.files);
    Object.assign(c, { lines: m.lines, bytes: m.bytes });
  }
  return corpora;
}

function runMeasure(job, label) {
  const jobFile = path.join(OUT, `job-${label}.json`);
  writeFileSync(jobFile, JSON.stringify(job));
  return new Promise((resolve, reject) => {
    const child = fork(path.join(ROOT, 'bench', 'measure.mjs'), [jobFile], { execArgv: ['--expose-gc'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code, signal) => {
      if (code === 0) resolve(JSON.parse(out));
      else reject(new Error(`bench/measure.mjs (${label}) exited with ${signal ?? code}`));
    });
  });
}

async function realSection() {
  const corpora = collectCorpora();
  if (!corpora.length) {
    md.push('### Real code\n\nNo corpus: the published servers are not installed (npm ci) and MCP_STATELESS_MIRRORS is not set.\n');
    return;
  }
  const statsCorpus = corpora.find((c) => c.name.startsWith('fetched')) ?? corpora[0];
  log(`bench: real code — ${corpora.map((c) => `${c.name}: ${c.files.length} files, ${c.lines} lines`).join('; ')}; ${ROUNDS} rounds`);
  const job = { configs: CONFIGS, rounds: ROUNDS, pairedRounds: PAIRED_ROUNDS, corpora: corpora.map((c) => ({ name: c.name, files: c.files })), stats: false };
  const main = await runMeasure(job, 'real');
  log('bench: per-rule times (ESLint stats, every rule) …');
  const stats = await runMeasure({ configs: ['every rule (strict)'], rounds: 0, corpora: [{ name: statsCorpus.name, files: statsCorpus.files }], stats: true, statsRounds: QUICK ? 1 : 3 }, 'stats');
  const rss = {};
  if (!QUICK && !opts['no-memory']) {
    log('bench: peak RSS, one process per configuration …');
    for (const c of CONFIGS) rss[c] = (await runMeasure({ mode: 'rss', configs: [c], corpora: job.corpora }, `rss-${c.replace(/\W+/g, '-')}`)).maxRssKiB;
  }
  results.real = { corpora: corpora.map(({ files, ...c }) => ({ ...c, files: files.length })), main, stats, rss };

  md.push(`### Real code: every configuration in one process (${ROUNDS} interleaved rounds after a warm-up; medians of CPU time)`);
  md.push('');
  md.push('Ratios are medians of the per-round ratios (each round lints the corpus once with every configuration, in rotating order), with the lowest and highest round in brackets. Peak RSS: each configuration alone in a fresh process, one lint of every corpus.');
  md.push('');
  for (const c of corpora) {
    const r = main.corpora[c.name];
    const runs = r.runs;
    const perRound = (cfg, base) => runs[cfg].map((x, i) => x.cpuMs / runs[base][i].cpuMs);
    md.push(`#### ${c.name}: ${c.files.length} files from ${c.groups} ${c.what}, ${c.lines.toLocaleString('en')} lines, ${(c.bytes / 1024).toFixed(0)} KiB`);
    md.push('');
    md.push('| configuration | CPU ms | wall ms | × parse-only | × floor | findings | parse errors | peak RSS MiB |');
    md.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const cfg of CONFIGS) {
      const xs = runs[cfg];
      const rp = perRound(cfg, 'parse-only');
      const rf = perRound(cfg, 'empty rule (floor)');
      const range = (rs) => `${f2(median(rs))} (${f2(Math.min(...rs))}–${f2(Math.max(...rs))})`;
      md.push(`| ${cfg} | ${f0(median(xs.map((x) => x.cpuMs)))} | ${f0(median(xs.map((x) => x.wallMs)))} | ${cfg === 'parse-only' ? '1.00' : range(rp)} | ${cfg === 'empty rule (floor)' ? '1.00' : range(rf)} | ${xs[0].findings} | ${xs[0].fatal} | ${mib(rss[cfg])} |`);
    }
    md.push('');
  }
  if (PAIRED_ROUNDS > 0) {
    md.push(`### Real code, paired per file (${PAIRED_ROUNDS} rounds; CPU time summed over the files)`);
    md.push('');
    md.push(
      'Each file is linted by every configuration back to back (after one untimed parse-only lint of it), in an order drawn at random (seeded) for each file and round, so the machine\'s drift falls on all of them alike within milliseconds. Ratios are medians of the per-round ratios of the summed CPU time (range in brackets); wall time in the last column.',
    );
    md.push('');
    md.push('| corpus | configuration | CPU ms | × parse-only | × floor | × floor, wall |');
    md.push('| --- | --- | ---: | ---: | ---: | ---: |');
    for (const c of corpora) {
      const p = main.corpora[c.name].paired;
      if (!p) continue;
      for (const cfg of CONFIGS) {
        const xs = p.runs[cfg];
        const ratio = (base, k = 'cpuMs') => xs.map((x, i) => x[k] / p.runs[base][i][k]);
        const range = (rs) => `${f2(median(rs))} (${f2(Math.min(...rs))}–${f2(Math.max(...rs))})`;
        const isFloor = cfg === 'empty rule (floor)';
        md.push(`| ${c.name} | ${cfg} | ${f0(median(xs.map((x) => x.cpuMs)))} | ${cfg === 'parse-only' ? '1.00' : range(ratio('parse-only'))} | ${isFloor ? '1.00' : range(ratio('empty rule (floor)'))} | ${isFloor ? '1.00' : range(ratio('empty rule (floor)', 'wallMs'))} |`);
      }
    }
    md.push('');
  }
  const gens = corpora.filter((c) => c.scale);
  if (gens.length > 1) {
    md.push('#### Generated corpus scaling (same files, k× the code in each; CPU ms medians)');
    md.push('');
    md.push(`| configuration | ${gens.map((g) => `${g.scale}×`).join(' | ')} | ${gens.slice(1).map((g) => `${g.scale}×/${gens[0].scale}× (ideal ${g.scale / gens[0].scale})`).join(' | ')} |`);
    md.push(`| --- | ${gens.map(() => '---:').join(' | ')} | ${gens.slice(1).map(() => '---:').join(' | ')} |`);
    for (const cfg of CONFIGS) {
      const ms = gens.map((g) => median(main.corpora[g.name].runs[cfg].map((x) => x.cpuMs)));
      md.push(`| ${cfg} | ${ms.map(f0).join(' | ')} | ${ms.slice(1).map((m) => f2(m / ms[0])).join(' | ')} |`);
    }
    md.push('');
  }
  // Per rule.
  const st = stats.corpora[statsCorpus.name].stats;
  const n = st.runs.length;
  const parse = median(st.runs.map((x) => x.parse));
  const total = median(st.runs.map((x) => x.total));
  const ids = Object.keys(st.runs[0]?.rules ?? {});
  const perRule = ids.map((id) => [id, median(st.runs.map((x) => x.rules[id] ?? 0))]).sort((a, b) => b[1] - a[1]);
  const pluginTotal = perRule.reduce((a, [, ms]) => a + ms, 0);
  md.push(`#### Per rule: ESLint \`stats\`, every rule, ${statsCorpus.name} (median of ${n})`);
  md.push('');
  md.push(`ESLint's per-file total (parse + traversal + rules), summed over the files. ${st.sharedLine ? '`bench-shared/shared-analysis` builds the shared per-file model before any rule asks; each rule\'s line is its own work on top.' : 'The first rule to ask builds the shared model and carries its cost.'}`);
  md.push('');
  md.push('| rule | ms | % of total |');
  md.push('| --- | ---: | ---: |');
  md.push(`| (parse) | ${f0(parse)} | ${((100 * parse) / total).toFixed(1)}% |`);
  for (const [id, ms] of perRule) md.push(`| ${id} | ${ms.toFixed(1)} | ${((100 * ms) / total).toFixed(2)}% |`);
  md.push(`| all of this plugin | ${pluginTotal.toFixed(0)} | ${((100 * pluginTotal) / total).toFixed(1)}% |`);
  md.push(`| total | ${f0(total)} | 100% |`);
  md.push('');
}

// ---------------------------------------------------------------------------------------------------------------
// Pathological cases, each in its own process with a time limit
// ---------------------------------------------------------------------------------------------------------------

async function pathologicalSection() {
  const cases = writeCases({ quick: QUICK });
  const tasks = [];
  for (const c of cases) for (const cfg of PATHO_CONFIGS) tasks.push({ c, cfg });
  log(`bench: pathological — ${tasks.length} runs, ${JOBS} at a time, ${LIMIT_MS / 1000} s limit each`);
  const out = new Map();
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const t = tasks[next++];
      const r = await runCase(t.cfg, t.c.file, LIMIT_MS);
      out.set(`${t.c.id}\0${t.cfg}`, r);
      log(`  ${t.c.id} [${t.cfg}]: ${r.killed ? `> ${LIMIT_MS / 1000} s CPU (killed)` : r.error ? `error: ${r.error}` : `${f0(r.cpuMs)} ms CPU, ${f0(r.wallMs)} ms wall`}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(JOBS, tasks.length) }, worker));
  results.pathological = cases.map((c) => ({ ...c, runs: Object.fromEntries(PATHO_CONFIGS.map((cfg) => [cfg, out.get(`${c.id}\0${cfg}`)])) }));

  const cell = (r) => (!r ? '—' : r.killed ? (r.by === 'wall' ? `**killed after ${f0(r.wallMs / 1000)} s wall (${f0(r.cpuMs)} ms CPU)**` : `**> ${r.limitMs / 1000} s (killed)**`) : r.error ? `error: ${r.error.slice(0, 80)}` : `${f0(r.cpuMs)}${r.fatal ? ` (parse error: ${r.fatalMessage})` : ''}`);
  md.push(`### Pathological inputs (each in a fresh process after a warm-up; CPU ms of one lint; killed after ${LIMIT_MS / 1000} s of CPU time)`);
  md.push('');
  md.push(`| case | lines | parse only ms | ${PATHO_CONFIGS.map((c) => `${c} ms`).join(' | ')} | findings | slowest rule (wall ms) | peak RSS MiB |`);
  md.push(`| --- | ---: | ---: | ${PATHO_CONFIGS.map(() => '---:').join(' | ')} | ---: | --- | ---: |`);
  for (const c of results.pathological) {
    const last = c.runs[PATHO_CONFIGS[PATHO_CONFIGS.length - 1]];
    const lines = c.lines ?? readFileSync(c.file, 'utf8').split('\n').length;
    const parse = Object.values(c.runs).find((r) => r?.parseMs != null)?.parseMs;
    md.push(`| ${c.id} | ${lines} | ${f0(parse)} | ${PATHO_CONFIGS.map((cfg) => cell(c.runs[cfg])).join(' | ')} | ${last && !last.killed && !last.error ? last.findings : '—'} | ${last?.slowestRule ? `${last.slowestRule.id.replace('mcp-stateless/', '')} ${f0(last.slowestRule.ms)}` : '—'} | ${mib(last?.maxRssKiB)} |`);
  }
  md.push('');
  // Growth ratios: the same shape at twice the size.
  const growth = [];
  const byId = new Map(results.pathological.map((c) => [c.id, c]));
  const ratio = (a, b, cfg) => {
    const ra = byId.get(a)?.runs[cfg];
    const rb = byId.get(b)?.runs[cfg];
    if (!ra || !rb) return '—';
    if (rb.killed) return ra.killed ? 'both killed' : `> ${f2(rb.limitMs / ra.cpuMs)}× (larger killed)`;
    if (ra.killed || ra.error || rb.error) return '—';
    return `${f2(rb.cpuMs / ra.cpuMs)}×`;
  };
  for (const [a, b, ideal] of [['tools-250', 'tools-500', 2], ['tools-500', 'tools-1000', 2], ['tools-1000', 'tools-2000', 2], ['concat-steps-1000', 'concat-steps-2000', 2], ['locals-7-handler', 'locals-8-handler', null], ['locals-7-plain', 'locals-8-plain', null]]) {
    if (byId.has(a) && byId.has(b)) growth.push(`| ${b} / ${a} | ${ideal ? `${ideal}×` : '≈ 1.4× (48 vs 35 assignments)'} | ${PATHO_CONFIGS.map((cfg) => ratio(a, b, cfg)).join(' | ')} |`);
  }
  if (growth.length) {
    md.push('Growth (CPU time of the larger over the smaller):');
    md.push('');
    md.push(`| cases | linear would be | ${PATHO_CONFIGS.join(' | ')} |`);
    md.push(`| --- | --- | ${PATHO_CONFIGS.map(() => '---:').join(' | ')} |`);
    md.push(...growth);
    md.push('');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Targets (issue 13's "done when"), from what was measured
// ---------------------------------------------------------------------------------------------------------------

function targets() {
  const lines = [];
  const cfg = PATHO_CONFIGS[PATHO_CONFIGS.length - 1];
  if (results.pathological) {
    const p = new Map(results.pathological.map((c) => [c.id, c.runs[cfg]]));
    const ms = (r) => (!r ? null : r.killed ? Infinity : r.error ? null : r.cpuMs);
    const show = (r) => (!r ? 'not run' : r.killed ? `> ${r.limitMs / 1000} s (killed)` : r.error ? 'error' : `${f0(r.cpuMs)} ms`);
    const l8 = ['locals-8-handler', 'locals-8-plain'].map((id) => [id, p.get(id)]);
    lines.push(`- the 8-locals files under 1 s (${cfg}, CPU): ${l8.map(([id, r]) => `${id} ${show(r)}`).join(', ')} — ${l8.every(([, r]) => ms(r) != null && ms(r) < 1000) ? 'met' : 'missed'}`);
    const esq = results.pathological.filter((c) => c.group === 'esquery').map((c) => [c.id, c.runs[cfg]]);
    if (esq.length) lines.push(`- esquery's builds under 2 s each (CPU): ${esq.map(([id, r]) => `${id.replace('esquery/', '')} ${show(r)}`).join(', ')} — ${esq.every(([, r]) => ms(r) != null && ms(r) < 2000) ? 'met' : 'missed'}`);
    const a = p.get('tools-1000');
    const b = p.get('tools-2000');
    if (a && b) {
      const ok = !a.killed && !b.killed && !a.error && !b.error && b.cpuMs / a.cpuMs <= 2.2;
      lines.push(`- 2,000 tools in at most 2.2× the time of 1,000: ${a.killed || b.killed ? `${show(a)} vs ${show(b)}` : `${f2(b.cpuMs / a.cpuMs)}× (CPU)`} — ${ok ? 'met' : 'missed'}`);
    }
  }
  if (results.real) {
    const servers = results.real.corpora.filter((c) => !c.scale);
    for (const c of servers) {
      const runs = results.real.main.corpora[c.name].runs;
      const r = (x) => median(runs[x].map((v, i) => v.cpuMs / runs['empty rule (floor)'][i].cpuMs));
      lines.push(`- ${c.name}, whole-corpus rounds: recommended ≤ 1.05× the floor: ${f2(r('recommended'))}× — ${r('recommended') <= 1.05 ? 'met' : 'missed'}; every rule ≤ 1.10×: ${f2(r('every rule (strict)'))}× — ${r('every rule (strict)') <= 1.1 ? 'met' : 'missed'}`);
      const p = results.real.main.corpora[c.name].paired;
      if (p) {
        const q = (x) => median(p.runs[x].map((v, i) => v.cpuMs / p.runs['empty rule (floor)'][i].cpuMs));
        lines.push(`- ${c.name}, paired per file: recommended ≤ 1.05× the floor: ${f2(q('recommended'))}× — ${q('recommended') <= 1.05 ? 'met' : 'missed'}; every rule ≤ 1.10×: ${f2(q('every rule (strict)'))}× — ${q('every rule (strict)') <= 1.1 ? 'met' : 'missed'}`);
      }
    }
  }
  for (const [name, c] of Object.entries(results.instructions ?? {})) {
    const floor = c.perPass['empty rule (floor)'];
    const x = (k) => c.perPass[k] / floor;
    lines.push(`- ${name}, instructions counted: recommended ≤ 1.05× the floor: ${x('recommended').toFixed(3)}× — ${x('recommended') <= 1.05 ? 'met' : 'missed'}; every rule ≤ 1.10×: ${x('every rule (strict)').toFixed(3)}× — ${x('every rule (strict)') <= 1.1 ? 'met' : 'missed'}`);
  }
  if (lines.length) md.push('### Targets (issue 13)', '', ...lines, '');
}

// ---------------------------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------------------------

if (sections.has('real')) await realSection();
if (sections.has('pathological')) await pathologicalSection();
if (sections.has('instructions')) {
  // Counted, not timed: a separate script (valgrind), whose table goes in as it prints it.
  log('bench: instruction counts (bench/instructions.mjs) …');
  const raw = path.join(OUT, 'instructions.json');
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bench', 'instructions.mjs'), '--json', raw, '--mirror-budget', String(MIRROR_BUDGET / 1024)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
  md.push(r.stdout.trim(), '');
  if (r.status === 0) results.instructions = JSON.parse(readFileSync(raw, 'utf8'));
  else md.push(`(bench/instructions.mjs exited with ${r.status ?? r.signal})`, '');
}
targets();
if (sections.has('type-checked')) {
  log('bench: recommended-type-checked (bench/type-checked.mjs) …');
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bench', 'type-checked.mjs')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
  md.push(r.stdout.trim(), '');
  if (r.status !== 0) md.push(`(bench/type-checked.mjs exited with ${r.status ?? r.signal})`, '');
}
const load1 = os.loadavg();
md.push(`Machine: ${os.cpus().length} CPUs, node ${process.version}; load average ${load0.map(f2).join(' ')} → ${load1.map(f2).join(' ')}; ${((Date.now() - t0) / 1000).toFixed(0)} s. ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC.`);
const text = md.join('\n');
console.log(text);
writeFileSync(path.join(OUT, 'results.md'), `${text}\n`);
writeFileSync(path.join(OUT, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
if (opts.json) writeFileSync(opts.json, `${JSON.stringify(results, null, 2)}\n`);

// Another engineer's wire-level probe benchmark, when present.
const probe = path.join(ROOT, 'bench', 'probe.mjs');
if (sections.has('probe') && existsSync(probe)) {
  console.log('\n### bench/probe.mjs\n');
  const r = spawnSync(process.execPath, [probe], { stdio: 'inherit' });
  if (r.status !== 0) console.log(`(bench/probe.mjs exited with ${r.status ?? r.signal}; the lint benchmark above is unaffected)`);
}
