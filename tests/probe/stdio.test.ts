import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatText } from '../../src/probe/report.js';
import { cli, errorLine, fixture, isAlive, leaks, newTag, ownBack, processesWith, scratchDir } from './helpers.js';

// Every server the probe starts here carries PROBE_TEST_TAG=<tag> in its environment, and so does
// everything those servers start; a process with the tag still alive after a run is a leftover.
const FILE_TAG = newTag('probe-stdio');
const scratch = scratchDir('probe-stdio');
const RUNS_ROOT = path.join(scratch.dir, 'runs');

function stdio(tag: string, server: string[], probeArgs: string[], extraEnv: string[] = []): string[] {
  return [
    '--format', 'json',
    '--env', `PROBE_TEST_TAG=${FILE_TAG}-${tag}`,
    '--env', `RUNS_ROOT=${RUNS_ROOT}`,
    '--env', `FIXED_OUTPUT_PATH=${path.join(scratch.dir, `${tag}-output.log`)}`,
    ...extraEnv.flatMap((e) => ['--env', e]),
    ...probeArgs,
    '--', ...server,
  ];
}
const node = (name: string, ...args: string[]) => [process.execPath, fixture(name), ...args];

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
describe.concurrent('probe over stdio: command runners', () => {
  it('isolated: the clean command runner, with workspace checks, cleanup and an idempotent teardown', async () => {
    const run = await cli(stdio('clean', node('clean.mjs'), ['--rounds', '2', '--workspace-root', RUNS_ROOT]));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 0, verdict: 'isolated' });
    expect(result.reason).toBe(
      "isolated: 1 pair checked across 3 sessions in 2 rounds, concurrently and sequentially; every session got its own marker back and none saw another's; teardown teardown_workspace idempotent; every workspace held only its own files",
    );
    // two sessions interleaved on process 1, the witness on process 2
    expect(result.sessions.map((s) => `${s.name}@${s.connection}`)).toEqual(['alpha@server process 1', 'bravo@server process 1', 'charlie@server process 2']);
    expect(result.connections.map((c) => c.pid)).toHaveLength(2);
    expect(result.plan!.tools.map((t) => `${t.name}:${t.role}`)).toEqual(['run_command:writer', 'teardown_workspace:teardown']);
    // the one pair, seen in every order between the three sessions, concurrently and one after another
    expect(result.pairs).toEqual([
      {
        writer: 'run_command',
        reader: 'run_command',
        origin: 'schema',
        status: 'isolated',
        orders: ['alpha→bravo', 'alpha→charlie', 'bravo→alpha', 'bravo→charlie', 'charlie→alpha', 'charlie→bravo'],
        concurrent: true,
        sequential: true,
        carries: true,
      },
    ]);
    expect(result.passes.map((p) => `${p.round}:${p.pass}:${p.calls}:${p.foreign}`)).toEqual(['1:concurrent:3:0', '1:sequential:3:0', '2:concurrent:3:0', '2:sequential:3:0']);
    expect(ownBack(result)).toEqual(['alpha', 'bravo', 'charlie']);
    expect(result.workspaces.map((w) => `${w.round}:${w.session}:${w.ownMarker}:${w.foreignMarkers.length}`)).toEqual([
      '1:alpha:true:0', '1:bravo:true:0', '1:charlie:true:0', '2:alpha:true:0', '2:bravo:true:0', '2:charlie:true:0',
    ]);
    expect(result.teardown.calls.map((c) => `${c.session}#${c.attempt}:${c.outcome}`)).toEqual([
      'alpha#1:result', 'alpha#2:result', 'bravo#1:result', 'bravo#2:result', 'charlie#1:result', 'charlie#2:result',
    ]);
    expect(result.teardown.workspacesRemoved).toEqual({ alpha: true, bravo: true, charlie: true });
    for (const s of result.sessions) expect(existsSync(path.join(RUNS_ROOT, s.workspace))).toBe(false);
    expect(result.cleanup).toMatchObject({ status: 'clean', tools: ['run_command'], leftovers: [], scratch: { removed: true } });
    expect(existsSync(result.cleanup.scratch!.dir)).toBe(false);
    expectNoLeftovers('clean', result.connections.map((c) => c.pid));
  });

  it('leak: the module-level "current workspace" race, between the sessions of one process only', async () => {
    const run = await cli(stdio('current', node('current-workspace.mjs'), ['--rounds', '1', '--workspace-root', RUNS_ROOT]));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'leak' });
    const found = leaks(result);
    expect(found.length).toBeGreaterThan(0);
    // the witness on its own process has its own module state: never involved
    expect(found.every((l) => /^(alpha>bravo|bravo>alpha) via run_command$/.test(l))).toBe(true);
    // the concurrent pass found it first: it needs the race
    expect(result.evidence[0]?.via).toMatchObject({ round: 1, pass: 'concurrent', tool: 'run_command' });
    expect(result.reason).toMatch(/^leak in 1 of 1 round: run_command returned session (alpha|bravo)'s marker to session (bravo|alpha) \(round 1, concurrent\): (alpha|bravo) sent it to run_command too \(round 1, concurrent\)/);
    expectNoLeftovers('current', result.connections.map((c) => c.pid));
  });

  it('leak: output read back through a fixed path, in-process and across processes', async () => {
    const run = await cli(stdio('fixed', node('fixed-path.mjs'), ['--rounds', '2']));
    expect({ code: run.code, verdict: run.json!.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(leaks(run.json!).length).toBeGreaterThan(0);
  });

  it('a server that serializes its calls leaks only through the second process; without it, nothing shows', async () => {
    const withWitness = await cli(stdio('serial', node('fixed-path.mjs', '--serialize'), ['--rounds', '2']));
    expect({ code: withWitness.code, verdict: withWitness.json!.verdict }).toEqual({ code: 1, verdict: 'leak' });
    const found = leaks(withWitness.json!);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((l) => l.includes('charlie'))).toBe(true);

    const without = await cli(stdio('serial-one', node('fixed-path.mjs', '--serialize'), ['--rounds', '1', '--no-second-process']));
    expect({ code: without.code, verdict: without.json!.verdict }).toEqual({ code: 0, verdict: 'isolated' });
    expect(without.json!.connections).toHaveLength(1);
    expect(without.json!.sessions.map((s) => s.name)).toEqual(['alpha', 'bravo']);
  });

  it('inconclusive, never isolated: a server that returns nothing', async () => {
    const run = await cli(stdio('empty', node('empty.mjs'), ['--rounds', '1', '--no-second-process']));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 3, verdict: 'inconclusive' });
    expect(result.evidence).toEqual([]);
    expect(ownBack(result)).toEqual([]);
    expect(result.reason).toBe("inconclusive: nothing carried a marker back: no reply contained anything the probe sent, so no session could have seen another's");
    expect(result.toConclude).toEqual(['--tool NAME --args JSON naming a tool that returns what it is given or keeps']);
  });

  it('inconclusive: a teardown whose second call is an error; --no-teardown judges isolation alone', async () => {
    const run = await cli(stdio('strict', node('clean.mjs', '--strict-teardown'), ['--rounds', '1', '--no-second-process']));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 3, verdict: 'inconclusive' });
    expect(result.evidence).toEqual([]);
    expect(result.teardown.status).toBe('failed');
    expect(result.teardown.calls.filter((c) => c.attempt === 2).map((c) => c.outcome)).toEqual(['tool-error', 'tool-error']);
    expect(result.reason).toMatch(/^inconclusive: teardown: the second teardown \(must be harmless\) of probe-[0-9a-f]{8}-alpha returned an error: "no such workspace: probe-[0-9a-f]{8}-alpha"$/);
    const alone = await cli(stdio('strict-alone', node('clean.mjs', '--strict-teardown'), ['--rounds', '1', '--no-teardown', '--no-second-process']));
    expect({ code: alone.code, verdict: alone.json!.verdict, teardown: alone.json!.teardown.status }).toEqual({ code: 0, verdict: 'isolated', teardown: 'skipped' });
  });

  it('leak, and nothing left behind: a runner with one cwd and the server\'s own $HOME for every caller', async () => {
    const cwd = path.join(scratch.dir, 'cwd-runner-cwd');
    const home = path.join(scratch.dir, 'cwd-runner-home');
    mkdirSync(cwd, { recursive: true });
    mkdirSync(home, { recursive: true });
    const run = await cli(stdio('cwd', node('cwd-runner.mjs'), ['--rounds', '1', '--cwd', cwd], [`HOME=${home}`]));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'leak' });
    // alpha, bravo and the witness charlie all share the one directory: every pair of them
    expect(leaks(result)).toEqual([
      'alpha>bravo via run_command', 'alpha>charlie via run_command', 'bravo>alpha via run_command',
      'bravo>charlie via run_command', 'charlie>alpha via run_command', 'charlie>bravo via run_command',
    ]);
    // the marker files the calls wrote into the server's cwd and $HOME are gone (TMPDIR was the probe's scratch)
    expect(result.cleanup).toMatchObject({ status: 'clean', tools: ['run_command'] });
    expect(readdirSync(cwd)).toEqual([]);
    expect(readdirSync(home)).toEqual([]);
  });
});

describe.concurrent('probe over stdio: servers with several tools', () => {
  it('isolated: notes kept under the caller\'s workspace — writers, readers given their own and the other\'s key, a stateless helper', async () => {
    const run = await cli(stdio('notes', node('notes.mjs'), ['--rounds', '2', '--workspace-root', RUNS_ROOT]));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 0, verdict: 'isolated' });
    expect(result.plan!.tools.map((t) => `${t.name}:${t.role}`)).toEqual([
      'add_note:writer', 'list_notes:reader', 'read_note:reader', 'search_notes:reader', 'delete_note:skipped', 'slugify:writer', 'teardown_workspace:teardown',
    ]);
    expect(result.pairs).toHaveLength(10);
    expect(result.pairs.every((p) => p.status === 'isolated' && p.concurrent && p.sequential)).toBe(true);
    // the readers carried each session's own notes back: the pairs are informative, not merely silent
    expect(result.pairs.filter((p) => p.carries).map((p) => `${p.writer}>${p.reader}`)).toEqual(['add_note>list_notes', 'add_note>read_note', 'add_note>search_notes']);
    // cross reads happened: each session asked for another's note under its own workspace, and got nothing
    expect(result.calls.filter((c) => c.mode === 'cross').map((c) => c.outcome).includes('tool-error')).toBe(true);
    // cleanup went through the deleter, only with the probe's own note titles
    expect(result.cleanup).toMatchObject({ status: 'clean', tools: ['delete_note'] });
    expect(result.calls.filter((c) => c.mode === 'cleanup').every((c) => JSON.stringify(c.arguments).includes(`mcpsl-${result.runId}-${c.session}-`))).toBe(true);
  });

  it('leak: the same tools over one notebook; the evidence names the writer, the reader, the sessions and the round', async () => {
    const run = await cli(stdio('notes-shared', node('notes.mjs', '--shared'), ['--rounds', '2']));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(leaks(result).filter((l) => !l.includes('charlie'))).toEqual([
      'alpha>bravo via list_notes', 'alpha>bravo via read_note', 'alpha>bravo via search_notes',
      'bravo>alpha via list_notes', 'bravo>alpha via read_note', 'bravo>alpha via search_notes',
    ]);
    // a leak that needs no race: alpha wrote, then bravo read, in the sequential pass
    expect(result.reason).toMatch(
      /^leak in 2 of 2 rounds: list_notes returned session alpha's marker to session bravo \(round 1, sequential\): alpha wrote it with add_note \(round 1, sequential\) \(\+\d+ more\)$/,
    );
    // asked for alpha's key, bravo got alpha's note: the cross read shows it too
    expect(result.evidence.some((e) => e.via.tool === 'read_note' && e.via.mode === 'cross' && e.owner === 'alpha' && e.observer === 'bravo')).toBe(true);
    expect(result.pairs.filter((p) => p.status === 'leak').map((p) => `${p.writer}>${p.reader}`)).toEqual(['add_note>list_notes', 'add_note>read_note', 'add_note>search_notes']);
  });

  it('inconclusive, never isolated: shared notes that no reply ever shows', async () => {
    const run = await cli(stdio('notes-opaque', node('notes.mjs', '--opaque'), ['--rounds', '1', '--no-second-process']));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 3, verdict: 'inconclusive' });
    expect(result.reason).toBe(
      'inconclusive: what add_note takes never came back to the session that sent it, in its reply or through a reader: whether it is kept, and for whom, cannot be seen',
    );
  });

  it('per-session notes shared by everybody on the connection: found unaided now', async () => {
    const run = await cli(stdio('session-notes', node('session-notes.mjs'), ['--rounds', '2']));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(leaks(result).filter((l) => l.includes('charlie'))).toEqual([]);
    expect(leaks(result)).toEqual(['alpha>bravo via add_note', 'bravo>alpha via add_note']);
    expect(result.teardown.status).toBe('absent');
    expect(result.warnings).toContain("the server lists no teardown tool (teardown, cleanup, delete_workspace); a finished run's data may linger");
  });

  it('--plan prints the plan and calls nothing', async () => {
    const run = await cli(['--plan', '--format', 'json', '--env', `PROBE_TEST_TAG=${FILE_TAG}-plan`, '--env', `RUNS_ROOT=${RUNS_ROOT}`, '--', ...node('notes.mjs')]);
    expect(run.code).toBe(0);
    expect(run.json!.calls).toEqual([]);
    expect(run.json!.connections).toHaveLength(1); // no second process for a plan
    const text = formatText(run.json!, { plan: true });
    expect(text).toMatch(/^ {2}plan: 7 tools, from the tools' input schemas: 2 writers \(add_note, slugify\), 3 readers \(list_notes, read_note, search_notes\), 10 pairs$/m);
    expect(text).toMatch(/^ {2}skipped: delete_note: annotated destructiveHint \(--allow-destructive\)$/m);
    expect(text).toMatch(/^ {17}args \{"workspace":"\{workspace\}","title":"\{key\}","body":"\{p1\}"\}$/m);
    expect(text).toMatch(/^ {4}add_note → list_notes$/m);
    expect(text).toMatch(/^ {2}order, per session and pass: add_note, slugify, list_notes, read_note, search_notes; then, given another session's key: read_note, search_notes$/m);
    expect(text).toMatch(/^ {2}cleanup: delete_note \{"workspace":"\{workspace\}","title":"\{key\}"\}$/m);
    expect(text).toMatch(/^PLAN \(exit 0\): plan only \(--plan\): nothing was called\n$/m);
  });
});

describe.concurrent('probe over stdio: a server written in Python (no SDK)', () => {
  const py = (...args: string[]) => ['python3', fixture('notes.py'), ...args];

  it('leak: one module-level list of notes', async () => {
    const run = await cli(stdio('py', py(), ['--rounds', '1']));
    expect({ code: run.code, verdict: run.json!.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(leaks(run.json!).filter((l) => !l.includes('charlie'))).toEqual(['alpha>bravo via list_notes', 'bravo>alpha via list_notes']);
  });

  it('isolated: notes kept per workspace argument', async () => {
    const run = await cli(stdio('py-scoped', py('--scoped'), ['--rounds', '1', '--no-second-process']));
    expect({ code: run.code, verdict: run.json!.verdict }).toEqual({ code: 0, verdict: 'isolated' });
  });

  it('duplicate replies and replies to ids never sent are protocol faults, reported, never passed', async () => {
    const run = await cli(stdio('py-faults', py('--scoped', '--duplicate', '--unknown-id'), ['--rounds', '1', '--no-second-process']));
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 3, verdict: 'inconclusive' });
    expect(new Set(result.protocolFaults.map((f) => f.kind))).toEqual(new Set(['duplicate-reply', 'unknown-id']));
    expect(result.protocolFaults.find((f) => f.kind === 'duplicate-reply')?.detail).toMatch(/^a second reply to request id \d+: \{"content":/);
    expect(result.protocolFaults.find((f) => f.kind === 'unknown-id')).toEqual({
      connection: 'server process 1',
      kind: 'unknown-id',
      id: 424242,
      detail: 'a reply to request id 424242, which this connection never sent: {"content":[{"type":"text","text":"for nobody"}]}',
    });
    expect(result.reason).toMatch(/^inconclusive: protocol fault on server process 1: a second reply to request id \d+: \{"content":.*\(\+\d+ more\)$/);
  });

  it('a reply over the old 10 MB line limit is read, not refused (50 MB: see the stdio framing unit test)', async () => {
    const run = await cli(stdio('py-big', py('--scoped', '--big-mb', '12'), ['--rounds', '1', '--no-second-process']));
    expect({ code: run.code, verdict: run.json!.verdict }).toEqual({ code: 0, verdict: 'isolated' });
    const first = run.json!.calls.find((c) => c.tool === 'list_notes')!;
    expect(first.outcome).toBe('result');
    expect(first.excerpt).toMatch(/^- mcpsl-[0-9a-f]{8}-alpha-1-p1 x{300}/); // the padding came through
  });
});

describe.concurrent('probe over stdio: servers it cannot probe (exit 2, one line, nothing left running)', () => {
  it('a server printing garbage on stdout', async () => {
    const run = await cli(stdio('garbage', node('garbage-stdout.mjs'), ['--rounds', '1', '--no-second-process']));
    expect(run.code).toBe(2);
    expect(run.json!.verdict).toBe('error');
    expect(errorLine(run)).toMatch(/^mcp-stateless probe: could not run the probe: server process \d wrote something that is not JSON-RPC to stdout before answering initialize: "fixture-garbage-stdout v1\.0\.0 starting/);
    expect(run.ms).toBeLessThan(15_000); // detected at once, not after the 20 s connect timeout
    expectNoLeftovers('garbage', []);
  });

  it('a server crashing on the first tools/call', async () => {
    const run = await cli(stdio('crash', node('crash.mjs'), ['--rounds', '3']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/could not run the probe: round 1: (alpha|bravo|charlie): server process \d \(pid \d+\) exited with code 139 during tools\/call; last stderr line: "segmentation fault \(simulated\)"$/);
    expect(run.json!.passes).toHaveLength(1); // stopped, not retried
    expect(run.json!.teardown.status).toBe('not-run');
    expectNoLeftovers('crash', run.json!.connections.map((c) => c.pid));
  });

  it('a server exiting at start', async () => {
    const run = await cli(stdio('crash-start', node('crash.mjs', '--on-start'), ['--no-second-process']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/server process \d \(pid \d+\) exited with code 3 before answering initialize; last stderr line: "fatal: could not load configuration/);
    expectNoLeftovers('crash-start', []);
  });

  it('a server hanging in tools/call that ignores SIGTERM and has a grandchild', async () => {
    const tag = 'hang';
    const run = await cli(stdio(tag, node('hang.mjs'), ['--rounds', '3', '--call-timeout', '1500ms']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/could not run the probe: round 1: (alpha|bravo|charlie) got no answer to tools\/call within 1\.50 s \(--call-timeout\)$/);
    expect(run.json!.passes).toHaveLength(1);
    expect(run.json!.calls.filter((c) => c.round === 1).map((c) => c.outcome)).toEqual(['timeout', 'timeout', 'timeout']);
    expect(run.ms).toBeLessThan(20_000); // not the 120 s run timeout
    expectNoLeftovers(tag, run.json!.connections.map((c) => c.pid));
  });

  it('a server that never answers initialize', async () => {
    const run = await cli(stdio('hang-init', node('hang.mjs', '--on-init'), ['--connect-timeout', '1500ms', '--no-second-process']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/server process \d did not answer initialize within 1\.50 s \(--connect-timeout\)$/);
    expect(run.ms).toBeLessThan(20_000);
    expectNoLeftovers('hang-init', []);
  });

  it('the run timeout wins over a long call timeout', async () => {
    const run = await cli(stdio('run-timeout', node('hang.mjs'), ['--call-timeout', '60s', '--timeout', '3s', '--no-second-process']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/the run did not finish within 3\.00 s \(--timeout\)$/);
    expect(run.ms).toBeLessThan(20_000); // not the 60 s call timeout
    expectNoLeftovers('run-timeout', []);
  });

  it('a tool that is not listed, with the list of tools', async () => {
    const run = await cli(stdio('no-tool', node('clean.mjs'), ['--tool', 'exec', '--no-second-process']));
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/the server does not list a tool named "exec"; it lists: run_command, teardown_workspace$/);
    expectNoLeftovers('no-tool', []);
  });

  it('a command that does not exist', async () => {
    const run = await cli(['--', 'mcp-stateless-no-such-server-binary']);
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/could not start the server \(mcp-stateless-no-such-server-binary\): .*ENOENT/);
  });
});
