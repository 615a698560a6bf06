import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDuration, parseProbeArgs, probeMain } from '../../src/probe/cli.js';
import { findForeignMarkers, markerFor, readBack } from '../../src/probe/markers.js';
import { runProbe } from '../../src/probe/run.js';
import { DEFAULT_COMMAND, fillTemplate, planArguments, planTeardownArguments, selectTeardown, selectTool } from '../../src/probe/tools.js';
import { checkWorkspace } from '../../src/probe/workspace.js';
import { scratchDir } from './helpers.js';

const tool = (name: string, properties: Record<string, object>, required: string[] = []): Tool => ({
  name,
  inputSchema: { type: 'object', properties, required },
});
const runCommand = tool('run_command', { command: { type: 'string' }, timeout: { type: 'integer' }, workspace: { type: 'string' } }, ['command']);
const teardown = tool('teardown_workspace', { workspace: { type: 'string' } }, ['workspace']);
const notes = tool('add_note', { text: { type: 'string' } }, ['text']);

describe('argument parsing', () => {
  it('splits options from the server command at --', () => {
    const { options, format } = parseProbeArgs([
      '--rounds', '3', '--sessions', '4', '--call-timeout', '1500ms', '--connect-timeout', '30', '--timeout', '2m', '--format', 'json',
      '--env', 'A=1', '--env', 'B=x=y', '--no-second-process', '--tool', 'run', '--args', '{"command":"{marker}"}',
      '--', 'node', 'server.js', '--rounds', '9',
    ]);
    expect(format).toBe('json');
    expect(options).toEqual({
      command: ['node', 'server.js', '--rounds', '9'],
      rounds: 3,
      sessions: 4,
      callTimeoutMs: 1500,
      connectTimeoutMs: 30_000,
      timeoutMs: 120_000,
      env: { A: '1', B: 'x=y' },
      secondProcess: false,
      tool: 'run',
      args: '{"command":"{marker}"}',
    });
  });

  it('reads durations; a bare number is seconds', () => {
    expect(parseDuration('20', '--t')).toBe(20_000);
    expect(parseDuration('1.5s', '--t')).toBe(1500);
    expect(parseDuration('250ms', '--t')).toBe(250);
    expect(() => parseDuration('soon', '--t')).toThrow(/not a duration/);
    expect(() => parseDuration('0', '--t')).toThrow(/positive/);
  });

  it('headers, url, teardown options', () => {
    const { options } = parseProbeArgs(['--url', 'http://127.0.0.1:1/mcp', '--header', 'Authorization: Bearer a:b', '--no-teardown']);
    expect(options).toEqual({ url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer a:b' }, teardown: false });
  });

  it.each([
    [['--bogus', '--', 'x'], /Unknown option '--bogus'/],
    [['node', 'server.js'], /unexpected argument "node": put the server command after --/],
    [['--format', 'xml', '--', 'x'], /--format must be text or json/],
    [[], /nothing to probe/],
    [['--env', 'NOVALUE', '--', 'x'], /--env expects KEY=VALUE/],
    [['--rounds', 'many', '--', 'x'], /--rounds: not a whole number/],
    [['--teardown', 't', '--no-teardown', '--', 'x'], /exclude each other/],
  ])('rejects %j with exit 2 and a reason', async (argv, reason) => {
    let stderr = '';
    const code = await probeMain(argv, { stdout: { write: () => true }, stderr: { write: (t: string) => (stderr += t) }, handleSignals: false });
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toMatch(reason);
    expect(stderr).toMatch(/mcp-stateless probe --help/);
  });

  it('--help prints usage and exits 0', async () => {
    let stdout = '';
    const code = await probeMain(['--help'], { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: () => true }, handleSignals: false });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage:/);
    expect(stdout).toMatch(/--workspace-root DIR/);
  });
});

describe('option validation in runProbe (exit 2 without starting anything)', () => {
  it.each([
    [{ command: ['node', 'x'], sessions: 1 }, /sessions must be at least 2/],
    [{ command: ['node', 'x'], rounds: 0 }, /rounds must be a whole number from 1/],
    [{ url: 'ftp://127.0.0.1/mcp' }, /not an http\(s\) URL/],
    [{}, /nothing to probe/],
  ])('%j', async (options, reason) => {
    const result = await runProbe(options);
    expect(result.verdict).toBe('error');
    expect(result.exitCode).toBe(2);
    expect(result.reason).toMatch(reason);
    expect(result.connections).toEqual([]);
  });
});

describe('tool selection and arguments', () => {
  it('picks the only tool with a command argument', () => {
    expect(selectTool([notes, runCommand, teardown], undefined)).toEqual({ tool: runCommand, selectedBy: 'auto' });
    expect(selectTool([notes, runCommand], 'add_note')).toEqual({ tool: notes, selectedBy: 'option' });
  });

  it('asks for --tool, listing the tools, when the choice is not obvious', () => {
    const shell = tool('shell', { cmd: { type: 'string' } });
    expect(() => selectTool([runCommand, shell, notes], undefined)).toThrow(
      'cannot pick the tool to probe: 2 tools have a command-like argument (run_command, shell); pass --tool NAME (tools: run_command, shell, add_note)',
    );
    expect(() => selectTool([notes], undefined)).toThrow(/no tool has a command-like string argument; pass --tool NAME \(tools: add_note\)/);
    expect(() => selectTool([notes], 'exec')).toThrow('the server does not list a tool named "exec"; it lists: add_note');
    expect(() => selectTool([], undefined)).toThrow('the server lists no tools');
  });

  it('defaults the arguments of a command runner', () => {
    const plan = planArguments(runCommand, undefined);
    expect(plan.template).toEqual({ command: DEFAULT_COMMAND, workspace: '{workspace}' });
    expect(plan.warnings).toEqual([]);
    // the default exercises the working directory, $HOME and $TMPDIR
    expect(DEFAULT_COMMAND).toMatch(/probe-marker\.txt.*\$HOME.*TMPDIR/);
  });

  it('refuses defaults it cannot fill, and templates without {marker}', () => {
    const needy = tool('run', { command: { type: 'string' }, host: { type: 'string' } }, ['command', 'host']);
    expect(() => planArguments(needy, undefined)).toThrow('tool "run" requires host, which the default arguments do not fill; pass --args');
    expect(() => planArguments(runCommand, '{"command":"echo hi"}')).toThrow(/no \{marker\} placeholder/);
    expect(() => planArguments(runCommand, '{"command":')).toThrow(/--args is not valid JSON/);
    expect(() => planArguments(runCommand, '["{marker}"]')).toThrow(/--args must be a JSON object/);
  });

  it('warns when calls carry no workspace', () => {
    expect(planArguments(notes, '{"text":"{marker}"}').warnings).toEqual(['"add_note" takes no workspace argument; every caller shares whatever scope the server picks']);
    expect(planArguments(runCommand, '{"command":"echo {marker}"}').warnings[0]).toMatch(/do not pass \{workspace\} although "run_command" takes "workspace"/);
  });

  it('fills placeholders everywhere and leaves shell syntax alone', () => {
    const filled = fillTemplate(
      { command: 'echo {marker} > "${TMPDIR:-/tmp}/x"', nested: [{ ws: '{workspace}' }, 3, '{round}:{session}'], other: '{unknown}' },
      { marker: 'alpha-1-abcd', workspace: 'probe-abcd-alpha', session: 'alpha', round: 1 },
    );
    expect(filled).toEqual({ command: 'echo alpha-1-abcd > "${TMPDIR:-/tmp}/x"', nested: [{ ws: 'probe-abcd-alpha' }, 3, '1:alpha'], other: '{unknown}' });
  });

  it('finds the teardown tool and its arguments', () => {
    const cleanup = tool('cleanup_run', { run_id: { type: 'string' } }, ['run_id']);
    expect(selectTeardown([runCommand, teardown], undefined, runCommand)).toBe(teardown);
    expect(selectTeardown([runCommand, cleanup], undefined, runCommand)).toBe(cleanup);
    expect(selectTeardown([runCommand], undefined, runCommand)).toBeNull();
    expect(selectTeardown([runCommand, teardown], false, runCommand)).toBeNull();
    expect(() => selectTeardown([runCommand], 'nuke', runCommand)).toThrow(/does not list a teardown tool named "nuke"/);
    const plan = planArguments(runCommand, undefined);
    expect(planTeardownArguments(teardown, undefined, plan)).toEqual({ workspace: '{workspace}' });
    expect(planTeardownArguments(cleanup, undefined, plan)).toEqual({ run_id: '{workspace}' });
    expect(planTeardownArguments(tool('cleanup', { token: { type: 'string' } }, ['token']), undefined, plan)).toMatch(/requires token; pass --teardown-args/);
  });
});

describe('markers and read-back', () => {
  it('sees other sessions’ markers from any round of this run, and nothing else', () => {
    const run = '0a1b2c3d';
    const text = `alpha-1-${run} bravo-3-${run} bravo-2-ffffffff charlie-1-${run}x alpha-12-${run}`;
    expect(findForeignMarkers(text, ['bravo', 'charlie'], run)).toEqual([`bravo-3-${run}`, `charlie-1-${run}`]);
    expect(findForeignMarkers(text, ['delta'], run)).toEqual([]);
    expect(markerFor('alpha', 2, run)).toBe(`alpha-2-${run}`);
  });

  it('reads text, embedded resources and structured content', () => {
    const text = readBack({
      content: [
        { type: 'text', text: 'one' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///x', text: 'two' } },
      ],
      structuredContent: { out: 'three' },
    });
    expect(text).toBe('one\ntwo\n{"out":"three"}');
    expect(readBack({ content: [] })).toBe('');
    expect(readBack(undefined)).toBe('');
  });
});

describe('workspace check', () => {
  const scratch = scratchDir('probe-unit');
  afterAll(() => scratch.remove());
  const run = 'deadbeef';

  it('accepts a workspace with only its own marker', async () => {
    const dir = path.join(scratch.dir, 'own');
    mkdirSync(path.join(dir, 'sub'), { recursive: true });
    writeFileSync(path.join(dir, 'sub', 'probe-marker.txt'), `alpha-2-${run}\n`);
    expect(await checkWorkspace('alpha', dir, `alpha-2-${run}`, ['bravo'], run)).toEqual({
      session: 'alpha', dir, exists: true, files: 1, ownMarker: true, foreignMarkers: [],
    });
  });

  it('reports another session’s marker with the file it is in, without following symlinks', async () => {
    const dir = path.join(scratch.dir, 'leaky');
    const elsewhere = path.join(scratch.dir, 'elsewhere.txt');
    mkdirSync(path.join(dir, '.cache'), { recursive: true });
    writeFileSync(path.join(dir, 'probe-marker.txt'), `alpha-1-${run}\n`);
    writeFileSync(path.join(dir, '.cache', 'state'), `last=bravo-1-${run}\n`);
    writeFileSync(elsewhere, `bravo-9-${run}`);
    symlinkSync(elsewhere, path.join(dir, 'link'));
    const check = await checkWorkspace('alpha', dir, `alpha-1-${run}`, ['bravo'], run);
    expect(check.foreignMarkers).toEqual([{ marker: `bravo-1-${run}`, file: path.join('.cache', 'state') }]);
    expect(check.ownMarker).toBe(true);
  });

  it('reports a missing directory', async () => {
    const check = await checkWorkspace('alpha', path.join(scratch.dir, 'nope'), `alpha-1-${run}`, ['bravo'], run);
    expect(check).toMatchObject({ exists: false, ownMarker: false, files: 0 });
  });
});
