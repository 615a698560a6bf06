// The crash-and-hang sweep: `npm run sweep -- [dirs...] [options]` (builds first), or `node bench/sweep.mjs …`.
//
// Lints every .js/.mjs/.cjs/.jsx/.ts/.mts/.cts/.tsx file under the folders (node_modules included, .d.ts included)
// with every rule on at its strictest, each file in a worker process that is killed when the file passes the time
// limit, and prints rule exceptions (rule, file, first stack frame), timeouts, parse errors (counted apart: not ours),
// the slowest files and totals. Exit code 1 when a rule threw, a worker died, or a file timed out because of the
// rules (see below); 2 on a usage error; 0 otherwise.
//
//   dirs                 folders to sweep (default: node_modules, plus the fetched servers' sources when
//                        MCP_STATELESS_MIRRORS names a folder of <owner>+<name>/repo mirrors)
//   --limit S            CPU seconds one file may take (default 10)
//   --jobs N             worker processes (default 2)
//   --slowest N          how many of the slowest files to list (default 15)
//   --no-dts             leave out .d.ts/.d.mts/.d.cts files (default: included; valid input with unusual shapes)
//   --no-dedupe          lint byte-identical copies too (default: each distinct content once)
//   --eager              count event listeners, then/forEach/map callbacks and use() as registrations, so library
//                        code runs through the handler analysis too
//   --max-files N        stop after the first N files (in path order), for a quick look
//   --json FILE          write every file's outcome there
//
// A timed-out file is linted again with one empty rule and the same limit: if that also times out, the time is
// ESLint's and the parser's, not this plugin's, and it is listed apart without failing the run. If it finishes, the
// file is linted once more with every rule and the limit on top of ESLint's own time: a timeout is ours only when the
// rules alone need more than the limit (a 9.9 s parse plus 0.4 s of rules is ESLint's time, not ours).

import { fork } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchOptions } from './cli.mjs';
import { extractMirrors, mirrorRootFromEnv, ROOT } from './corpora.mjs';
import { cpuSecondsOf } from './pathological.mjs';
import { DECLARATION, dedupeByContent, listSweepFiles } from './sweep-core.mjs';

const { values: opts, positionals } = benchOptions(
  import.meta.url,
  {
    limit: { type: 'string', default: '10' },
    jobs: { type: 'string', default: '2' },
    slowest: { type: 'string', default: '15' },
    'no-dts': { type: 'boolean', default: false },
    'no-dedupe': { type: 'boolean', default: false },
    eager: { type: 'boolean', default: false },
    'max-files': { type: 'string' },
    json: { type: 'string' },
  },
  { helpLines: 23, onError: usage, allowPositionals: true },
);
const num = (name, min) => {
  const v = Number(opts[name]);
  if (!Number.isFinite(v) || v < min) usage(`--${name} must be a number ≥ ${min} (got "${opts[name]}")`);
  return v;
};
const LIMIT_MS = num('limit', 0.1) * 1000;
const JOBS = Math.floor(num('jobs', 1));
const SLOWEST = Math.floor(num('slowest', 0));
const MAX_FILES = opts['max-files'] !== undefined ? Math.floor(num('max-files', 1)) : Infinity;

function usage(msg) {
  console.error(`sweep: ${msg} (npm run sweep -- --help)`);
  process.exit(2);
}
if (!existsSync(path.join(ROOT, 'dist', 'src', 'index.js'))) usage('dist/ is missing: run `npm run build` first (npm run sweep does)');
const log = (s) => process.stderr.write(`${s}\n`);

// ---------------------------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------------------------

const dirs = positionals.map((d) => path.resolve(d));
for (const d of dirs) if (!existsSync(d)) usage(`no such file or folder: ${d}`);
if (!dirs.length) {
  dirs.push(path.join(ROOT, 'node_modules'));
  const mirrors = mirrorRootFromEnv();
  if (mirrors) {
    log(`sweep: extracting the mirrors in ${mirrors} into bench/out/mirrors/ …`);
    for (const m of extractMirrors(mirrors, log)) if (!m.error) dirs.push(m.dir);
  }
}
const listed = listSweepFiles(dirs, { dts: !opts['no-dts'] });
const { unique, duplicates } = opts['no-dedupe'] ? { unique: listed, duplicates: 0 } : dedupeByContent(listed);
const files = unique.slice(0, MAX_FILES);
const dts = files.filter((f) => DECLARATION.test(f)).length;
log(`sweep: ${files.length} files (${dts} declaration files; ${duplicates} byte-identical copies skipped) under ${dirs.length} folder${dirs.length === 1 ? '' : 's'}; ${JOBS} workers, ${LIMIT_MS / 1000} s CPU limit per file`);

// ---------------------------------------------------------------------------------------------------------------
// Workers
// ---------------------------------------------------------------------------------------------------------------

const workerArg = JSON.stringify({ root: ROOT, eager: opts.eager });

function startWorker() {
  const child = fork(path.join(ROOT, 'bench', 'sweep-worker.mjs'), [workerArg], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
  const w = { child, busy: null, stderrTail: () => stderr.trim().split('\n').slice(-2).join(' | ') };
  w.ready = new Promise((resolve, reject) => {
    child.once('message', (m) => (m.ready ? resolve() : reject(new Error('worker did not start'))));
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} at start: ${w.stderrTail()}`)));
  });
  return w;
}

/** Lint `queue` ({ id, file, mode }) over JOBS workers; resolves to Map(id → outcome). */
async function runQueue(queue, onDone = () => {}) {
  const outcomes = new Map();
  let next = 0;
  const lane = async () => {
    let w = startWorker();
    await w.ready;
    while (next < queue.length) {
      const task = queue[next++];
      const outcome = await new Promise((resolve) => {
        const t0 = performance.now();
        const cpu0 = cpuSecondsOf(w.child.pid);
        let done = false;
        const settle = (o) => {
          if (done) return;
          done = true;
          clearInterval(poll);
          w.child.off('message', onMessage);
          w.child.off('exit', onExit);
          resolve(o);
        };
        const onMessage = (m) => m.id === task.id && settle(m.outcome);
        const onExit = (code, signal) => settle({ workerDied: `${signal ?? `exit code ${code}`}: ${w.stderrTail()}` });
        const poll = setInterval(() => {
          const wallMs = performance.now() - t0;
          const cpu = cpuSecondsOf(w.child.pid);
          const cpuMs = cpu0 != null && cpu != null ? (cpu - cpu0) * 1000 : null;
          const limit = task.limitMs ?? LIMIT_MS;
          if ((cpuMs ?? wallMs) > limit || wallMs > 10 * limit) {
            w.child.off('exit', onExit);
            w.child.kill('SIGKILL');
            settle({ timeout: true, cpuMs, wallMs });
          }
        }, 50);
        w.child.on('message', onMessage);
        w.child.on('exit', onExit);
        w.child.send(task);
      });
      outcomes.set(task.id, outcome);
      onDone(task, outcome);
      if (outcome.timeout || outcome.workerDied) {
        w.child.kill('SIGKILL');
        w = startWorker();
        await w.ready;
      }
    }
    w.child.kill();
  };
  await Promise.all(Array.from({ length: Math.min(JOBS, queue.length) }, lane));
  return outcomes;
}

const t0 = Date.now();
const load0 = os.loadavg();
let done = 0;
const main = await runQueue(
  files.map((file, id) => ({ id, file, mode: 'all' })),
  (task, o) => {
    done++;
    if (o.crash) log(`  EXCEPTION ${o.crash.rule ?? '(no rule)'} in ${rel(task.file)}: ${o.crash.message}`);
    if (o.timeout) log(`  TIMEOUT ${rel(task.file)} (> ${LIMIT_MS / 1000} s)`);
    if (o.workerDied) log(`  WORKER DIED on ${rel(task.file)}: ${o.workerDied}`);
    if (done % 500 === 0) log(`  ${done}/${files.length} files, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  },
);
const timedOut = files.map((file, id) => ({ id, file })).filter((t) => main.get(t.id).timeout);
let floor = new Map();
if (timedOut.length) {
  log(`sweep: ${timedOut.length} timeouts; linting them again with one empty rule to tell ESLint's time from ours …`);
  floor = await runQueue(timedOut.map((t) => ({ ...t, mode: 'floor' })));
}
// A file whose lint with one empty rule finishes close to the limit (TypeScript's own bundles) cannot tell the rules'
// time from ESLint's at that limit: lint it again with every rule and the limit on top of ESLint's own time. Only a
// file whose rules alone need more than the limit is a timeout of ours.
const nearLimit = timedOut.filter((t) => floor.get(t.id) && !floor.get(t.id).timeout && floor.get(t.id).cpuMs != null);
let extended = new Map();
if (nearLimit.length) {
  log(`sweep: ${nearLimit.length} of them lint within the limit with one empty rule; linting them again with every rule and ${LIMIT_MS / 1000} s on top of that …`);
  extended = await runQueue(nearLimit.map((t) => ({ ...t, mode: 'all', limitMs: floor.get(t.id).cpuMs + LIMIT_MS })));
}

// ---------------------------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------------------------

function rel(f) {
  const r = path.relative(ROOT, f);
  return r.startsWith('..') ? f : r;
}
const all = files.map((file, id) => ({ file: rel(file), ...main.get(id), floor: floor.get(id) ?? null, extended: extended.get(id) ?? null }));
const linted = all.filter((o) => !o.timeout && !o.workerDied && !o.error && !o.crash);
const crashes = all.filter((o) => o.crash);
const died = all.filter((o) => o.workerDied);
const readErrors = all.filter((o) => o.error);
const timeouts = all.filter((o) => o.timeout);
const oursTimeouts = timeouts.filter((o) => !o.floor?.timeout && !(o.extended && !o.extended.timeout && !o.extended.workerDied));
const eslintTimeouts = timeouts.filter((o) => !oursTimeouts.includes(o));
const parseErrors = linted.filter((o) => o.parseError);
const findings = linted.reduce((n, o) => n + o.findings, 0);
// ESLint's stats are wall time; on a loaded machine wall time overstates the work, so the rules' share of each file's
// CPU time is estimated as rulesMs × cpuMs / ms, and the "over 2 s" counts use CPU time.
for (const o of linted) o.rulesCpuMs = o.ms > 0 ? (o.rulesMs * o.cpuMs) / o.ms : 0;
const cpuTotal = linted.reduce((n, o) => n + o.cpuMs, 0);
const rulesCpu = linted.reduce((n, o) => n + o.rulesCpuMs, 0);
const over2 = linted.filter((o) => o.cpuMs > 2000);
// Timed-out files relinted with the longer limit count too: the rules' time is measured there.
const extendedRulesCpu = (o) => (o.extended && !o.extended.timeout && o.extended.ms > 0 ? (o.extended.rulesMs * o.extended.cpuMs) / o.extended.ms : 0);
const rulesOver2 = [...linted.filter((o) => o.rulesCpuMs > 2000), ...timeouts.filter((o) => extendedRulesCpu(o) > 2000)];
const s = (n) => (n / 1000).toFixed(1);

const out = [];
out.push(`sweep: ${all.length} files (${dts} .d.ts), every rule at its strictest${opts.eager ? ', eager registration settings' : ''}; ${(linted.length - parseErrors.length)} linted, ${parseErrors.length} parse errors (not ours), ${crashes.length} rule exceptions, ${died.length} worker deaths, ${timeouts.length} timeouts (${oursTimeouts.length} ours, ${eslintTimeouts.length} ESLint's own), ${readErrors.length} unreadable`);
out.push(`  ${findings} findings; ${s(cpuTotal)} s CPU summed over files, the rules ${s(rulesCpu)} s (${((100 * rulesCpu) / Math.max(cpuTotal, 1)).toFixed(1)}%); files over 2 s CPU: ${over2.length}, of which the rules alone took over 2 s: ${rulesOver2.length}; ${((Date.now() - t0) / 1000).toFixed(0)} s wall with ${JOBS} workers, load ${load0.map((x) => x.toFixed(1)).join(' ')} → ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
if (crashes.length) {
  out.push('', 'Rule exceptions:');
  for (const o of crashes) out.push(`  ${o.crash.rule ?? '(no rule)'}  ${o.file}\n      ${o.crash.message}\n      ${o.crash.at ?? ''}`);
}
if (died.length) {
  out.push('', 'Worker processes that died (out of memory, native stack overflow):');
  for (const o of died) out.push(`  ${o.file}: ${o.workerDied}`);
}
if (timeouts.length) {
  out.push('', `Timeouts (> ${LIMIT_MS / 1000} s CPU):`);
  for (const o of oursTimeouts) out.push(`  ${o.file}  (one empty rule: ${o.floor?.cpuMs != null ? `${o.floor.cpuMs.toFixed(0)} ms CPU` : o.floor?.workerDied ? 'worker died' : '?'}; the time is the rules')`);
  for (const o of eslintTimeouts) {
    if (o.floor?.timeout) out.push(`  ${o.file}  (one empty rule also times out: ESLint's and the parser's time, not ours)`);
    else out.push(`  ${o.file}  (one empty rule: ${o.floor.cpuMs.toFixed(0)} ms CPU; with every rule and the limit on top of that: ${o.extended.cpuMs?.toFixed(0) ?? '?'} ms, the rules ${extendedRulesCpu(o).toFixed(0)} ms: ESLint's time, not ours)`);
  }
}
if (readErrors.length) {
  out.push('', 'Unreadable files:');
  for (const o of readErrors) out.push(`  ${o.file}: ${o.error}`);
}
if (SLOWEST > 0 && linted.length) {
  const top = Math.min(SLOWEST, linted.length);
  out.push('', `Slowest ${top} files by the rules' time (CPU ms; rules = ESLint stats' share of the file's CPU time):`);
  out.push('   rules    total    parse   KiB  slowest rule (wall ms)                file');
  for (const o of [...linted].sort((a, b) => b.rulesCpuMs - a.rulesCpuMs).slice(0, top)) {
    const parseCpu = o.ms > 0 ? (o.parseMs * o.cpuMs) / o.ms : 0;
    out.push(`  ${o.rulesCpuMs.toFixed(0).padStart(6)}  ${o.cpuMs.toFixed(0).padStart(7)}  ${parseCpu.toFixed(0).padStart(7)}  ${(o.bytes / 1024).toFixed(0).padStart(4)}  ${(o.slowestRule ? `${o.slowestRule.id.replace('mcp-stateless/', '')} ${o.slowestRule.ms.toFixed(0)}` : '').padEnd(36)}  ${o.file}`);
  }
  out.push('', `Slowest ${top} files in all (CPU ms: parse + ESLint + rules):`);
  for (const o of [...linted].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, top)) out.push(`  ${o.cpuMs.toFixed(0).padStart(7)}  (rules ${o.rulesCpuMs.toFixed(0)})  ${(o.bytes / 1024).toFixed(0)} KiB  ${o.file}`);
}
const noted = linted.filter((o) => o.notes?.length);
if (noted.length) {
  out.push('', `Linted, with a fatal message from ESLint itself (${noted.length}; the rules ran):`);
  for (const o of noted.slice(0, 10)) out.push(`  ${o.file}: ${o.notes[0]}`);
}
if (parseErrors.length) {
  out.push('', `Parse errors (${parseErrors.length}; the input's, not ours), first 10:`);
  for (const o of parseErrors.slice(0, 10)) out.push(`  ${o.file}: ${o.parseError}`);
}
console.log(out.join('\n'));
if (opts.json) writeFileSync(opts.json, `${JSON.stringify({ dirs, limitMs: LIMIT_MS, duplicates, files: all }, null, 1)}\n`);
process.exit(crashes.length || died.length || oursTimeouts.length ? 1 : 0);
