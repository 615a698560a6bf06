import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cli,
  errorLine,
  fixture,
  leaks,
  newTag,
  processesWith,
  scratchDir,
  startHttpFixture,
  type HttpFixture,
} from './helpers.js';

const FILE_TAG = newTag('probe-http');
const scratch = scratchDir('probe-http');
const RUNS_ROOT = path.join(scratch.dir, 'runs');
const env = (tag: string) => ({
  PROBE_TEST_TAG: `${FILE_TAG}-${tag}`,
  RUNS_ROOT,
  FIXED_OUTPUT_PATH: path.join(scratch.dir, `${tag}-output.log`),
});

/** Start an HTTP fixture that is stopped (its whole process group) when the test finishes. */
async function serve(name: string, args: string[], tag: string, onTestFinished: OnTestFinished): Promise<HttpFixture> {
  const server = await startHttpFixture(name, args, env(tag));
  onTestFinished(() => server.stop());
  return server;
}
type OnTestFinished = (fn: () => Promise<void>) => void;

afterAll(() => {
  const left = processesWith(FILE_TAG, { prefix: true });
  scratch.remove();
  expect(left).toEqual([]);
});

const json = ['--format', 'json'];

describe.concurrent('probe over Streamable HTTP: verdicts', () => {
  it('isolated: the clean command runner (one McpServer + transport per session), with three sessions', async ({ onTestFinished }) => {
    const server = await serve('clean.mjs', [], 'clean', onTestFinished);
    const run = await cli([...json, '--url', server.url, '--rounds', '2', '--sessions', '3', '--workspace-root', RUNS_ROOT]);
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 0, verdict: 'isolated' });
    expect(result.target).toEqual({ transport: 'http', url: server.url });
    expect(result.settings.secondProcess).toBe(false);
    expect(result.sessions.map((s) => `${s.name}@${s.connection}`)).toEqual([
      'alpha@HTTP session 1 (alpha)',
      'bravo@HTTP session 2 (bravo)',
      'charlie@HTTP session 3 (charlie)',
    ]);
    // independent sessions, each with its own Mcp-Session-Id
    const ids = result.connections.map((c) => c.sessionId);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect(result.pairs[0]?.orders).toEqual(['alpha→bravo', 'alpha→charlie', 'bravo→alpha', 'bravo→charlie', 'charlie→alpha', 'charlie→bravo']);
    // the same JSON-RPC ids from every session at once, three times: each got its own reply
    expect(result.transport).toMatchObject({ call: 'tools/call run_command', bursts: 3, status: 'clean' });
    expect(result.transport!.exchanges.map((x) => `${x.session}:${x.id}:${x.outcome}`)).toEqual([
      'alpha:900001:reply', 'bravo:900001:reply', 'charlie:900001:reply',
      'alpha:900002:reply', 'bravo:900002:reply', 'charlie:900002:reply',
      'alpha:900003:reply', 'bravo:900003:reply', 'charlie:900003:reply',
    ]);
    expect(result.teardown).toMatchObject({ status: 'passed', tool: 'teardown_workspace', workspacesRemoved: { alpha: true, bravo: true, charlie: true } });
    for (const s of result.sessions) expect(existsSync(path.join(RUNS_ROOT, s.workspace))).toBe(false);
    expect(result.protocolFaults).toEqual([]);
  });

  it('leak: the module-level "current workspace" race across sessions', async ({ onTestFinished }) => {
    const server = await serve('current-workspace.mjs', [], 'current', onTestFinished);
    const run = await cli([...json, '--url', server.url, '--rounds', '2', '--workspace-root', RUNS_ROOT]);
    expect({ code: run.code, verdict: run.json!.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(leaks(run.json!).every((l) => /^(alpha>bravo|bravo>alpha) via run_command$/.test(l))).toBe(true);
    expect(leaks(run.json!).length).toBeGreaterThan(0);
    // the tool leaks, the transport does not: replies sent with the same id never crossed
    expect(run.json!.transport?.status).toBe('clean');
  });

  it('leak: output read back through a fixed path', async ({ onTestFinished }) => {
    const server = await serve('fixed-path.mjs', [], 'fixed', onTestFinished);
    const run = await cli([...json, '--url', server.url, '--rounds', '2']);
    expect({ code: run.code, verdict: run.json!.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(leaks(run.json!).length).toBeGreaterThan(0);
  });

  it('leak: per-session notes filed under the wrong session, unaided', async ({ onTestFinished }) => {
    const server = await serve('session-notes.mjs', [], 'notes', onTestFinished);
    const run = await cli([...json, '--url', server.url, '--rounds', '2']);
    expect({ code: run.code, verdict: run.json!.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(leaks(run.json!).some((l) => / via add_note$/.test(l))).toBe(true);
    // each reply still holds the caller's own note: the tool leaks, the transport routes correctly
    expect(run.json!.evidence.some((e) => e.kind === 'transport')).toBe(false);
  });

  it('isolated and leak: notes per workspace, and one notebook for all, with several tools', async ({ onTestFinished }) => {
    const scoped = await serve('notes.mjs', [], 'notes-scoped', onTestFinished);
    const shared = await serve('notes.mjs', ['--shared'], 'notes-shared', onTestFinished);
    const [a, b] = await Promise.all([cli([...json, '--url', scoped.url, '--rounds', '1']), cli([...json, '--url', shared.url, '--rounds', '1'])]);
    expect({ code: a.code, verdict: a.json!.verdict }).toEqual({ code: 0, verdict: 'isolated' });
    expect({ code: b.code, verdict: b.json!.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(leaks(b.json!)).toEqual([
      'alpha>bravo via list_notes', 'alpha>bravo via read_note', 'alpha>bravo via search_notes',
      'bravo>alpha via list_notes', 'bravo>alpha via read_note', 'bravo>alpha via search_notes',
    ]);
  });

  it('inconclusive: a server that returns nothing', async ({ onTestFinished }) => {
    const server = await serve('empty.mjs', [], 'empty', onTestFinished);
    const run = await cli([...json, '--url', server.url, '--rounds', '1']);
    expect({ code: run.code, verdict: run.json!.verdict }).toEqual({ code: 3, verdict: 'inconclusive' });
    expect(run.json!.evidence).toEqual([]);
    expect(run.json!.ownMarkers).toEqual({ alpha: { returned: false }, bravo: { returned: false } });
  });
});

describe.concurrent('probe over Streamable HTTP: one McpServer shared by every session (GHSA-345p-7cg4-v4c7)', () => {
  it('names the transport-level leak: a reply sent to one session answers another\'s request with the same id', async ({ onTestFinished }) => {
    const server = await serve('shared-server.mjs', [], 'shared', onTestFinished);
    const run = await cli([...json, '--url', server.url, '--rounds', '1', '--call-timeout', '1500ms']);
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(result.transport?.status).toBe('crossed');
    // bravo connected last: every reply goes to it, so it reads alpha's reply and alpha gets none
    expect(result.evidence[0]).toMatchObject({ kind: 'transport', observer: 'bravo', owner: 'alpha' });
    // The check above always shows the crossing (it sends bursts until one does); whether a round of the probe also
    // catches bravo reading alpha's reply depends on both requests with one id being in flight at once, which load
    // decides: the reason says "in 1 of 1 round" only when it did.
    expect(result.reason).toMatch(
      /^leak( in 1 of 1 round)?: replies cross between HTTP sessions: bravo's request id 90000\d \(tools\/call run_command\) was answered with session alpha's reply \(mcpsl-[0-9a-f]{8}-alpha-\d+-k0\), sent with the same id at the same moment: one MCP server or transport serves every connection \(the lint's no-shared-server-connection\)/,
    );
    // under load a burst can land before the crossing shows (bravo's request not yet open when alpha's reply is sent):
    // the check then sends another burst, and alpha never gets a reply in any of them
    const alpha = result.transport!.exchanges.filter((x) => x.session === 'alpha').map((x) => x.outcome);
    expect(alpha.length).toBeGreaterThanOrEqual(1);
    expect(new Set(alpha)).toEqual(new Set(['no-reply']));
    // the rounds: alpha's call always goes unanswered (its reply goes to bravo's connection); bravo reads alpha's
    // output there when the two calls were in flight together
    expect(result.calls.find((c) => c.session === 'alpha' && c.round === 1)?.outcome).toBe('timeout');
    expect(leaks(result)).toEqual(result.reason.startsWith('leak in 1 of 1 round') ? ['alpha>bravo via run_command'] : []);
  });

  it('with the advisory code as written, SDK 1.32.2 refuses the second session: a clear failure', async ({ onTestFinished }) => {
    const server = await serve('shared-server.mjs', ['--verbatim'], 'verbatim', onTestFinished);
    const run = await cli(['--url', server.url, '--rounds', '1', '--call-timeout', '5s']);
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/could not open HTTP session 2 \(bravo\) at .*Already connected to a transport/);
  });
});

describe.concurrent('probe over Streamable HTTP: servers it cannot probe', () => {
  it('a server that hangs in tools/call', async ({ onTestFinished }) => {
    const server = await serve('hang.mjs', [], 'hang', onTestFinished);
    const run = await cli(['--url', server.url, '--call-timeout', '1500ms']);
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/round 1: (alpha|bravo) got no answer to tools\/call within 1\.50 s/);
    expect(run.ms).toBeLessThan(20_000);
  });

  it('a server that never answers initialize', async ({ onTestFinished }) => {
    const server = await serve('hang.mjs', ['--on-init'], 'hang-init', onTestFinished);
    const run = await cli(['--url', server.url, '--connect-timeout', '1500ms']);
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/HTTP session 1 \(alpha\) got no answer to initialize from .* within 1\.50 s \(--connect-timeout\)$/);
    expect(run.ms).toBeLessThan(20_000);
  });

  it('nothing listening', async () => {
    const port = await freePort();
    const run = await cli(['--url', `http://127.0.0.1:${port}/mcp`]);
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/could not open HTTP session 1 \(alpha\) at http:\/\/127\.0\.0\.1:\d+\/mcp: .*ECONNREFUSED/);
  });

  it('an HTTP endpoint that is not MCP', async () => {
    const web: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    try {
      const port = (web.address() as { port: number }).port;
      const run = await cli(['--url', `http://127.0.0.1:${port}/mcp`]);
      expect(run.code).toBe(2);
      expect(errorLine(run)).toMatch(/could not open HTTP session 1 \(alpha\).*content type/i);
    } finally {
      web.closeAllConnections();
      await new Promise((resolve) => web.close(resolve));
    }
  });
});

describe.concurrent('probe over Streamable HTTP: server started by the probe', () => {
  it('starts the server, waits for the port, probes, and stops the whole tree', async () => {
    const port = await freePort();
    const tag = `${FILE_TAG}-own`;
    const run = await cli([
      ...json, '--url', `http://127.0.0.1:${port}/mcp`, '--rounds', '1', '--env', `PROBE_TEST_TAG=${tag}`, '--env', `RUNS_ROOT=${RUNS_ROOT}`,
      '--', process.execPath, fixture('clean.mjs'), '--http', String(port),
    ]);
    expect(run.code).toBe(0);
    expect(run.json!.verdict).toBe('isolated');
    expect(run.json!.target.command?.slice(1)).toEqual([fixture('clean.mjs'), '--http', String(port)]);
    expect(processesWith(tag)).toEqual([]);
  });

  it('a server that exits before listening', async () => {
    const port = await freePort();
    const tag = `${FILE_TAG}-own-crash`;
    const run = await cli(['--url', `http://127.0.0.1:${port}/mcp`, '--env', `PROBE_TEST_TAG=${tag}`, '--', process.execPath, fixture('crash.mjs'), '--on-start']);
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/the server process \(pid \d+\) exited with code 3 before listening on 127\.0\.0\.1:\d+; last stderr line: "fatal/);
    expect(processesWith(tag)).toEqual([]);
  });

  it('a hanging HTTP server that ignores SIGTERM is killed with its grandchild', async () => {
    const port = await freePort();
    const tag = `${FILE_TAG}-own-hang`;
    const run = await cli([
      '--url', `http://127.0.0.1:${port}/mcp`, '--call-timeout', '1500ms', '--env', `PROBE_TEST_TAG=${tag}`,
      '--', process.execPath, fixture('hang.mjs'), '--http', String(port),
    ]);
    expect(run.code).toBe(2);
    expect(errorLine(run)).toMatch(/round 1: (alpha|bravo) got no answer to tools\/call within 1\.50 s \(--call-timeout\)$/);
    expect(processesWith(tag)).toEqual([]);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
