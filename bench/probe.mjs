// The probe's own overhead per round, against the bare minimum a round needs: two concurrent
// tools/call requests on already-connected SDK clients, with no markers checked, no assertions,
// no bookkeeping. `node bench/probe.mjs [--rounds N] [--reps N]` after `npx tsc -p tsconfig.json`
// (`npm run bench` builds and runs it).
//
// Both sides call the clean fixture server (tests/fixtures/probe-servers/clean.mjs) with the same
// arguments. A probe round is timed from the end of one round to the end of the next (onRound), so it
// includes everything the probe does per round: filling the template, firing the calls, scanning the
// replies, the assertions. Probe runs and direct runs alternate, repetition by repetition, so that
// background load hits both alike; medians are reported. The fixed cost of a probe run (starting the
// server and connecting, teardown, killing the process tree) is reported separately.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEFAULT_COMMAND, runProbe } from '../dist/src/probe/run.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE = path.join(here, '..', 'tests', 'fixtures', 'probe-servers', 'clean.mjs');
const { values: opts } = parseArgs({
  options: { rounds: { type: 'string', default: '20' }, reps: { type: 'string', default: '3' } },
});
const ROUNDS = Math.max(3, Number(opts.rounds));
const REPS = Math.max(1, Number(opts.reps));
// the default command sleeps 0.2 s per call: fewer rounds say as much
const SLOW_ROUNDS = Math.max(3, Math.round(ROUNDS / 4));

const runsRoot = mkdtempSync(path.join(tmpdir(), 'mcp-probe-bench-'));
const serverEnv = { ...process.env, RUNS_ROOT: runsRoot };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fill = (template, marker, workspace) =>
  Object.fromEntries(Object.entries(template).map(([k, v]) => [k, v.replaceAll('{marker}', marker).replaceAll('{workspace}', workspace)]));

/** Per-round times (ms) of two concurrent calls on connected clients, nothing else. */
async function directRounds(clients, template, rounds) {
  const times = [];
  for (let round = 1; round <= rounds; round++) {
    const started = performance.now();
    await Promise.all(
      clients.map((client, i) =>
        client.callTool({ name: 'run_command', arguments: fill(template, `s${i}-${round}-bench`, `bench-direct-${i}`) }),
      ),
    );
    times.push(performance.now() - started);
  }
  return times.slice(1); // the probe side drops its first round too
}

/** Per-round times (ms) of the probe, end of round to end of round, plus its fixed cost. */
async function probeRounds(options, template, rounds) {
  const ends = [];
  const result = await runProbe({
    ...options,
    rounds,
    args: template,
    teardown: false,
    onRound: () => ends.push(performance.now()),
  });
  if (result.verdict !== 'pass') throw new Error(`probe did not pass the clean fixture: ${result.reason}`);
  const times = ends.slice(1).map((t, i) => t - ends[i]);
  const fixed = result.timings.totalMs - result.timings.roundsMs;
  return { times, fixed };
}

async function connectHttp(url) {
  const client = new Client({ name: 'bench-direct', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, close: async () => { await transport.terminateSession().catch(() => {}); await client.close(); } };
}

function startHttpServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FIXTURE, '--http', '0'], { env: serverEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d) => {
      err += d;
      const m = /LISTENING (\d+)/.exec(err);
      if (m) resolve({ url: `http://127.0.0.1:${m[1]}/mcp`, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGKILL'); }) });
    });
    child.once('exit', (code) => reject(new Error(`fixture exited with ${code}: ${err}`)));
  });
}

const cases = [
  { transport: 'stdio', label: '`echo {marker}`', rounds: ROUNDS, template: { command: 'echo {marker}', workspace: '{workspace}' } },
  { transport: 'Streamable HTTP', label: '`echo {marker}`', rounds: ROUNDS, template: { command: 'echo {marker}', workspace: '{workspace}' } },
  {
    transport: 'Streamable HTTP',
    label: 'default command (sleeps 0.2 s)',
    rounds: SLOW_ROUNDS,
    template: { command: DEFAULT_COMMAND, workspace: '{workspace}' },
  },
];

const http = await startHttpServer();
const rows = [];
try {
  for (const c of cases) {
    const direct = [];
    const probe = [];
    const fixed = [];
    // direct clients: two HTTP sessions, or one stdio connection carrying both calls (as the probe does)
    let clients;
    let closeAll;
    if (c.transport === 'stdio') {
      const client = new Client({ name: 'bench-direct', version: '1' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [FIXTURE], env: serverEnv, stderr: 'ignore' }));
      clients = [client, client];
      closeAll = () => client.close();
    } else {
      const pair = await Promise.all([connectHttp(http.url), connectHttp(http.url)]);
      clients = pair.map((p) => p.client);
      closeAll = () => Promise.all(pair.map((p) => p.close()));
    }
    const probeOptions =
      c.transport === 'stdio'
        ? { command: [process.execPath, FIXTURE], env: { RUNS_ROOT: runsRoot }, secondProcess: false }
        : { url: http.url };
    await directRounds(clients, c.template, 3); // warm-up
    for (let rep = 0; rep < REPS; rep++) {
      direct.push(...(await directRounds(clients, c.template, c.rounds)));
      const p = await probeRounds(probeOptions, c.template, c.rounds);
      probe.push(...p.times);
      fixed.push(p.fixed);
    }
    await closeAll();
    const d = median(direct);
    const p = median(probe);
    rows.push({ ...c, d, p, ratio: p / d, fixed: median(fixed) });
  }
} finally {
  await http.stop();
  rmSync(runsRoot, { recursive: true, force: true });
}

const f = (ms) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
console.log(`Probe overhead per round: 2 sessions, ${REPS} repetitions, medians (first round of each run dropped).\n`);
console.log('| transport | tool call | rounds per run | direct pair, ms/round | probe, ms/round | ratio | probe fixed cost per run, ms |');
console.log('|---|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.transport} | ${r.label} | ${r.rounds} | ${f(r.d)} | ${f(r.p)} | ${r.ratio.toFixed(2)} | ${Math.round(r.fixed)} |`);
}
console.log(
  '\nThe fixed cost is starting the server (stdio) or opening the sessions (HTTP), listing tools, and killing the process tree; teardown is off here. The stdio pair shares one connection, as the probe\'s in-process sessions do.',
);
