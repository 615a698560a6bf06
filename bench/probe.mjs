// The probe's speed, two figures (`node bench/probe.mjs [--reps N]` after `npx tsc -p tsconfig.json`;
// `npm run bench` builds and runs it):
//
// 1. An unaided probe of @modelcontextprotocol/server-memory (a devDependency): no --tool, no --args, the default
//    rounds, stdio with the second process; its memory file in a scratch directory. How long from start to verdict,
//    how many calls, and where the time goes. It should be seconds, not minutes.
// 2. The probe's own overhead per concurrent pass against the bare minimum: two concurrent tools/call requests on
//    already-connected SDK clients, no markers checked, no bookkeeping, on the clean fixture
//    (tests/fixtures/probe-servers/clean.mjs) with `echo {marker}`. Probe runs and direct runs alternate, repetition by
//    repetition, so background load hits both alike; medians are reported, and the ratio.

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runProbe } from '../dist/src/probe/run.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const FIXTURE = path.join(here, '..', 'tests', 'fixtures', 'probe-servers', 'clean.mjs');
const MEMORY = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');
const { values: opts } = parseArgs({ options: { reps: { type: 'string', default: '5' }, rounds: { type: 'string', default: '10' } } });
const REPS = Math.max(1, Number(opts.reps));
const ROUNDS = Math.max(3, Number(opts.rounds));

const scratch = mkdtempSync(path.join(tmpdir(), 'mcp-probe-bench-'));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const f = (ms) => (ms < 10 ? ms.toFixed(2) : ms < 1000 ? ms.toFixed(0) : `${(ms / 1000).toFixed(2)} s`);

try {
  // ---- 1. server-memory, unaided ----------------------------------------------------------------------------------
  const runs = [];
  for (let rep = 0; rep < REPS; rep++) {
    const result = await runProbe({ command: [process.execPath, MEMORY], env: { MEMORY_FILE_PATH: path.join(scratch, `memory-${rep}.jsonl`) } });
    if (result.verdict !== 'leak') throw new Error(`server-memory should be a leak, got ${result.verdict}: ${result.reason}`);
    runs.push(result);
  }
  const t = (k) => median(runs.map((r) => r.timings[k]));
  const calls = median(runs.map((r) => r.calls.length));
  console.log(`Unaided probe of @modelcontextprotocol/server-memory (stdio, ${runs[0].settings.rounds} rounds, ${runs[0].sessions.length} sessions on 2 processes), ${REPS} runs, medians.\n`);
  console.log('| verdict | total | connect (2 processes) | rounds | cleanup and stop | calls | pairs |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  console.log(`| ${runs[0].verdict} | ${f(t('totalMs'))} | ${f(t('connectMs'))} | ${f(t('roundsMs'))} | ${f(t('cleanupMs'))} | ${calls} | ${runs[0].pairs.length} |`);

  // ---- 2. overhead per concurrent pass ------------------------------------------------------------------------------
  const template = { command: 'echo {marker}', workspace: '{workspace}' };
  const env = { ...process.env, RUNS_ROOT: path.join(scratch, 'runs') };
  const client = new Client({ name: 'bench-direct', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [FIXTURE], env, stderr: 'ignore' }));
  const direct = [];
  const probe = [];
  const pair = async (round) =>
    Promise.all(['a', 'b'].map((s) => client.callTool({ name: 'run_command', arguments: { command: `echo ${s}-${round}`, workspace: `bench-${s}` } })));
  for (let i = 0; i < 3; i++) await pair(i); // warm-up
  for (let rep = 0; rep < REPS; rep++) {
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      await pair(round);
      direct.push(performance.now() - started);
    }
    const result = await runProbe({
      command: [process.execPath, FIXTURE],
      env: { RUNS_ROOT: path.join(scratch, 'runs') },
      secondProcess: false,
      rounds: ROUNDS,
      tool: 'run_command',
      args: template,
      teardown: false,
      cleanup: false,
      onPass: (p) => {
        if (p.pass === 'concurrent' && p.round > 1) probe.push(p.durationMs);
      },
    });
    if (result.verdict !== 'isolated') throw new Error(`the clean fixture should be isolated, got ${result.verdict}: ${result.reason}`);
  }
  await client.close();
  const d = median(direct);
  const p = median(probe);
  console.log(`\nProbe overhead per concurrent pass (2 sessions, one stdio connection, \`echo {marker}\`), ${REPS} × ${ROUNDS} rounds, medians.\n`);
  console.log('| direct pair, ms | probe pass, ms | ratio |');
  console.log('|---:|---:|---:|');
  console.log(`| ${f(d)} | ${f(p)} | ${(p / d).toFixed(2)} |`);
  console.log('\nA probe pass includes filling and validating the arguments (ajv), sending, scanning the replies for markers and recording every call; the pass duration is rounded to whole ms.');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
