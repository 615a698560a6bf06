import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, errorLine, failedAssertions, fixture, isAlive, newTag, processesWith, scratchDir, assertionStatuses } from './helpers.js';

// Every server the probe starts here carries PROBE_TEST_TAG=<tag> in its environment, and so does
// everything those servers start; a process with the tag still alive after a run is a leftover.
const FILE_TAG = newTag('probe-stdio');
const scratch = scratchDir('probe-stdio');
const RUNS_ROOT = path.join(scratch.dir, 'runs');

function stdio(tag: string, fixtureArgs: string[], probeArgs: string[], extraEnv: string[] = []): string[] {
  return [
    '--format', 'json',
    '--env', `PROBE_TEST_TAG=${FILE_TAG}-${tag}`,
    '--env', `RUNS_ROOT=${RUNS_ROOT}`,
    '--env', `FIXED_OUTPUT_PATH=${path.join(scratch.dir, `${tag}-output.log`)}`,
    ...extraEnv.flatMap((e) => ['--env', e]),
    ...probeArgs,
    '--', process.execPath, ...fixtureArgs,
  ];
}

function expectNoLeftovers(tag: string, pids: (number | undefined)[]): void {
  expect(processesWith(`${FILE_TAG}-${tag}`)).toEqual([]);
  for (const pid of pids) if (pid !== undefined) expect(isAlive(pid)).toBe(false);
}

afterAll(() => {
  const left = processesWith(FILE_TAG, { prefix: true });
  scratch.remove();
  expect(left).toEqual([]);
});

// Probe runs mostly wait on child processes, so the tests of each group run concurrently.
describe.concurrent('probe over stdio: verdicts', () => {
  it('passes the clean command runner, with workspace checks and an idempotent teardown', async () => {
    const run = await cli(stdio('clean', [fixture('clean.mjs')], ['--rounds', '3', '--workspace-root', RUNS_ROOT]));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 0, verdict: 'pass' });
    expect(result.rounds).toHaveLength(3);
    expect(result.tool).toMatchObject({ name: 'run_command', selectedBy: 'auto', commandArgument: 'command', workspaceArgument: 'workspace' });
    // two sessions interleaved on process 1, the witness on process 2
    expect(result.sessions.map((s) => `${s.name}@${s.connection}`)).toEqual([
      'alpha@server process 1',
      'bravo@server process 1',
      'charlie@server process 2',
    ]);
    expect(result.connections.map((c) => c.pid)).toHaveLength(2);
    for (const round of result.rounds) {
      expect(round.passed).toBe(true);
      // 3 sessions: 6 isolation + 3 own-marker + 3 workspace assertions
      expect(round.assertions.map((a) => a.kind).sort()).toEqual([
        ...Array(6).fill('isolation'),
        ...Array(3).fill('own-marker'),
        ...Array(3).fill('workspace'),
      ]);
      expect(round.assertions.every((a) => a.status === 'passed')).toBe(true);
      expect(round.calls.every((c) => c.ownMarker && c.foreignMarkers.length === 0)).toBe(true);
      expect(round.markers.alpha).toBe(`alpha-${round.round}-${result.runId}`);
    }
    expect(result.teardown.status).toBe('passed');
    expect(result.teardown.tool).toBe('teardown_workspace');
    expect(result.teardown.calls.map((c) => `${c.session}#${c.attempt}:${c.outcome}`)).toEqual([
      'alpha#1:result', 'alpha#2:result', 'bravo#1:result', 'bravo#2:result', 'charlie#1:result', 'charlie#2:result',
    ]);
    expect(result.teardown.workspacesRemoved).toEqual({ alpha: true, bravo: true, charlie: true });
    for (const s of result.sessions) expect(existsSync(path.join(RUNS_ROOT, s.workspace))).toBe(false);
    expectNoLeftovers('clean', result.connections.map((c) => c.pid));
  });

  it('finds the module-level "current workspace" race', async () => {
    const run = await cli(stdio('current', [fixture('current-workspace.mjs')], ['--rounds', '2', '--workspace-root', RUNS_ROOT]));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'leak' });
    // both in-process sessions run in whichever workspace was set last: one of them sees the other every round
    const leaks = failedAssertions(result, 'isolation');
    for (const round of [1, 2]) {
      expect(leaks.filter((l) => l.startsWith(`${round}:`)).some((l) => /alpha->bravo|bravo->alpha/.test(l))).toBe(true);
    }
    // the witness on its own process has its own module state: never involved
    expect(leaks.some((l) => l.includes('charlie'))).toBe(false);
    // and the workspace check sees the other session's file in the workspace that was used
    expect(failedAssertions(result, 'workspace').length).toBeGreaterThan(0);
    expect(result.reason).toMatch(/^leak in 2 of 2 rounds: round 1: (alpha|bravo) received (bravo|alpha)'s marker/);
    expectNoLeftovers('current', result.connections.map((c) => c.pid));
  });

  it('finds output read back through a fixed path, in-process and across processes', async () => {
    const run = await cli(stdio('fixed', [fixture('fixed-path.mjs')], ['--rounds', '2']));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(failedAssertions(result, 'isolation').length).toBeGreaterThan(0);
    expect(result.failures.filter((f) => f.kind === 'leak').length).toBeGreaterThan(0);
  });

  it('needs the second process for a server that serializes its calls', async () => {
    // One call at a time inside a process: interleaving on one connection cannot overlap two calls,
    // but the second process writes the same fixed file at the same time.
    const withWitness = await cli(stdio('serial', [fixture('fixed-path.mjs'), '--serialize'], ['--rounds', '2']));
    expect({ code: withWitness.code, verdict: withWitness.json!.verdict }).toEqual({ code: 1, verdict: 'leak' });
    const leaks = failedAssertions(withWitness.json!, 'isolation');
    expect(leaks.length).toBeGreaterThan(0);
    expect(leaks.every((l) => l.includes('charlie'))).toBe(true);

    const without = await cli(stdio('serial-one', [fixture('fixed-path.mjs'), '--serialize'], ['--rounds', '2', '--no-second-process']));
    expect({ code: without.code, verdict: without.json!.verdict }).toEqual({ code: 0, verdict: 'pass' });
    expect(without.json!.connections).toHaveLength(1);
    expect(without.json!.sessions.map((s) => s.name)).toEqual(['alpha', 'bravo']);
  });

  it('finds per-session notes shared by everybody on the connection', async () => {
    const run = await cli(stdio('notes', [fixture('session-notes.mjs')], ['--rounds', '2', '--tool', 'add_note', '--args', '{"text":"{marker}"}']));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(result.tool?.selectedBy).toBe('option');
    const leaks = failedAssertions(result, 'isolation');
    expect(leaks.some((l) => /alpha->bravo|bravo->alpha/.test(l))).toBe(true);
    expect(leaks.some((l) => l.includes('charlie'))).toBe(false);
    expect(result.teardown.status).toBe('absent');
    expect(result.warnings.join('\n')).toMatch(/no workspace argument/);
  });

  it('fails a server that returns nothing: every session must get its own marker back', async () => {
    const run = await cli(stdio('empty', [fixture('empty.mjs')], ['--rounds', '2']));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'fail' });
    expect(assertionStatuses(result, 'isolation')).toEqual(['passed']);
    expect(failedAssertions(result, 'own-marker')).toEqual([
      '1:alpha', '1:bravo', '1:charlie', '2:alpha', '2:bravo', '2:charlie',
    ]);
    expect(result.reason).toMatch(/round 1: alpha: the reply does not contain alpha-1-[0-9a-f]{8} \(empty reply\)/);
  });

  it('fails a teardown whose second call is an error', async () => {
    const run = await cli(stdio('strict', [fixture('clean.mjs'), '--strict-teardown'], ['--rounds', '1']));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'fail' });
    expect(assertionStatuses(result, 'isolation')).toEqual(['passed']);
    expect(assertionStatuses(result, 'own-marker')).toEqual(['passed']);
    expect(result.teardown.status).toBe('failed');
    expect(result.teardown.calls.filter((c) => c.attempt === 2).map((c) => c.outcome)).toEqual(['tool-error', 'tool-error', 'tool-error']);
    expect(result.failures.every((f) => f.kind === 'teardown')).toBe(true);
  });
});

describe.concurrent('probe over stdio: servers it cannot probe (exit 2, one line, nothing left running)', () => {
  it('a server printing garbage on stdout', async () => {
    const run = await cli(stdio('garbage', [fixture('garbage-stdout.mjs')], ['--rounds', '1', '--no-second-process']));
    expect(run.code).toBe(2);
    expect(run.json!.verdict).toBe('error');
    expect(errorLine(run)).toMatch(/^mcp-stateless probe: could not run the probe: server process \d wrote something that is not JSON-RPC to stdout before answering initialize: "fixture-garbage-stdout v1\.0\.0 starting/);
    expect(run.ms).toBeLessThan(15_000); // detected at once, not after the 20 s connect timeout
    expectNoLeftovers('garbage', []);
  });

  it('a server crashing on the first tools/call', async () => {
    const run = await cli(stdio('crash', [fixture('crash.mjs')], ['--rounds', '3']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/could not run the probe: round 1: (alpha|bravo|charlie): server process \d \(pid \d+\) exited with code 139 during tools\/call; last stderr line: "segmentation fault \(simulated\)"$/);
    expect(run.json!.rounds).toHaveLength(1); // stopped, not retried
    expect(run.json!.teardown.status).toBe('not-run');
    expectNoLeftovers('crash', run.json!.connections.map((c) => c.pid));
  });

  it('a server exiting at start', async () => {
    const run = await cli(stdio('crash-start', [fixture('crash.mjs'), '--on-start'], ['--no-second-process']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/server process \d \(pid \d+\) exited with code 3 before answering initialize; last stderr line: "fatal: could not load configuration/);
    expectNoLeftovers('crash-start', []);
  });

  it('a server hanging in tools/call that ignores SIGTERM and has a grandchild', async () => {
    const tag = 'hang';
    const run = await cli(stdio(tag, [fixture('hang.mjs')], ['--rounds', '3', '--call-timeout', '1500ms']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/could not run the probe: round 1: (alpha|bravo|charlie) got no answer to tools\/call within 1\.50 s \(--call-timeout\)$/);
    expect(run.json!.rounds).toHaveLength(1);
    expect(run.json!.rounds[0]!.calls.map((c) => c.outcome)).toEqual(['timeout', 'timeout', 'timeout']);
    expect(run.ms).toBeLessThan(20_000); // not the 120 s run timeout
    expectNoLeftovers(tag, run.json!.connections.map((c) => c.pid));
  });

  it('a server that never answers initialize', async () => {
    const run = await cli(stdio('hang-init', [fixture('hang.mjs'), '--on-init'], ['--connect-timeout', '1500ms', '--no-second-process']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/server process \d did not answer initialize within 1\.50 s \(--connect-timeout\)$/);
    expect(run.ms).toBeLessThan(20_000);
    expectNoLeftovers('hang-init', []);
  });

  it('the run timeout wins over a long call timeout', async () => {
    const run = await cli(stdio('run-timeout', [fixture('hang.mjs')], ['--call-timeout', '60s', '--timeout', '3s', '--no-second-process']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/the run did not finish within 3\.00 s \(--timeout\)$/);
    expect(run.ms).toBeLessThan(20_000); // not the 60 s call timeout
    expectNoLeftovers('run-timeout', []);
  });

  it('a tool that is not listed, with the list of tools', async () => {
    const run = await cli(stdio('no-tool', [fixture('clean.mjs')], ['--tool', 'exec', '--no-second-process']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/the server does not list a tool named "exec"; it lists: run_command, teardown_workspace$/);
    expectNoLeftovers('no-tool', []);
  });

  it('no obvious tool: asks for --tool and lists the tools', async () => {
    const run = await cli(stdio('pick', [fixture('session-notes.mjs')], ['--no-second-process']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/cannot pick the tool to probe: no tool has a command-like string argument; pass --tool NAME \(tools: add_note\)$/);
  });

  it('a command that does not exist', async () => {
    const run = await cli(['--', 'mcp-stateless-no-such-server-binary']);
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/could not start the server \(mcp-stateless-no-such-server-binary\): .*ENOENT/);
  });
});
