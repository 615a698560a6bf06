import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDuration, parseProbeArgs, probeMain, PROBE_USAGE } from '../../src/probe/cli.js';
import { loadProbeDependencies, MissingDependencyError } from '../../src/probe/deps.js';
import { findMarkers, marker, ownMarkers, readBack } from '../../src/probe/markers.js';
import { ProtocolWatch } from '../../src/probe/protocol.js';
import { runProbe } from '../../src/probe/run.js';
import { ProcessStdioTransport } from '../../src/probe/stdio-transport.js';
import { checkWorkspace } from '../../src/probe/workspace.js';
import { scratchDir } from './helpers.js';

const quiet = { stdout: { write: () => true }, stderr: { write: () => true }, handleSignals: false };

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

  it('planning switches', () => {
    const parsed = parseProbeArgs(['--auto', '--source', 'src', '--type-checked', '--plan', '--allow-destructive', '--allow-open-world', '--no-cleanup', '--scratch-home', '--', 'node', 's.js']);
    expect(parsed.plan).toBe(true);
    expect(parsed.options).toEqual({
      command: ['node', 's.js'],
      source: 'src',
      typeChecked: true,
      planOnly: true,
      allowDestructive: true,
      allowOpenWorld: true,
      cleanup: false,
      scratchHome: true,
    });
    expect(parseProbeArgs(['--summary', 'report.json', '--', 'x']).summaryFile).toBe('report.json');
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
    [['--sessions', '1', '--', 'x'], /^mcp-stateless probe: --sessions must be from 2 to 25, got 1$/],
    [['--sessions', '26', '--', 'x'], /^mcp-stateless probe: --sessions must be from 2 to 25, got 26$/],
    [['--auto', '--tool', 't', '--', 'x'], /--auto and --tool exclude each other/],
    [['--args', '{}', '--', 'x'], /--args needs --tool/],
    [['--type-checked', '--', 'x'], /--type-checked applies to the lint: give --source DIR/],
  ])('rejects %j with exit 2 and a reason', async (argv, reason) => {
    let stderr = '';
    const code = await probeMain(argv, { ...quiet, stderr: { write: (t: string) => (stderr += t) } });
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toMatch(reason);
    expect(stderr).toMatch(/mcp-stateless probe --help/);
  });

  it('--help prints usage, with the range of --sessions, and exits 0', async () => {
    let stdout = '';
    const code = await probeMain(['--help'], { ...quiet, stdout: { write: (t: string) => (stdout += t) } });
    expect(code).toBe(0);
    expect(stdout).toBe(`${PROBE_USAGE}\n`);
    expect(stdout).toMatch(/--sessions N {13}independent sessions, 2 to 25 \(default 2\)/);
    expect(stdout).toMatch(/Exit code: 0 isolated, 1 leak, 2 could not run the probe, 3 inconclusive/);
  });
});

describe('optional peer dependencies', () => {
  const missing = (names: string[]) => async (specifier: string) => {
    const name = names.find((n) => specifier === n || specifier.startsWith(`${n}/`));
    if (name) throw Object.assign(new Error(`Cannot find package '${name}' imported from /x/probe/deps.js`), { code: 'ERR_MODULE_NOT_FOUND' });
    return import(specifier);
  };

  it('one line naming every missing package and what to install', async () => {
    await expect(loadProbeDependencies(missing(['ajv', '@modelcontextprotocol/sdk']))).rejects.toThrow(
      'mcp-stateless probe needs @modelcontextprotocol/sdk and ajv (optional peer dependencies of eslint-plugin-mcp-stateless, not installed): npm install --save-dev @modelcontextprotocol/sdk@^1.32.2 ajv@^8.20.0',
    );
    await expect(loadProbeDependencies(missing(['ajv-formats']))).rejects.toBeInstanceOf(MissingDependencyError);
  });

  it('the CLI prints it and exits 2 before starting anything', async () => {
    let stderr = '';
    const code = await probeMain(['--', 'node', 'never-started.js'], { ...quiet, stderr: { write: (t: string) => (stderr += t) }, importer: missing(['@modelcontextprotocol/sdk']) });
    expect(code).toBe(2);
    expect(stderr).toBe(
      'mcp-stateless probe needs @modelcontextprotocol/sdk (optional peer dependency of eslint-plugin-mcp-stateless, not installed): npm install --save-dev @modelcontextprotocol/sdk@^1.32.2\n',
    );
  });

  it('an error inside a package that is there is not mistaken for a missing package', async () => {
    const broken = async (specifier: string) => {
      if (specifier === 'ajv') throw Object.assign(new Error("Cannot find module './compile/codegen' imported from ajv"), { code: 'ERR_MODULE_NOT_FOUND' });
      return import(specifier);
    };
    // a module missing inside an installed package is a broken install: it propagates as it is
    await expect(loadProbeDependencies(broken)).rejects.toThrow("Cannot find module './compile/codegen' imported from ajv");
    await expect(loadProbeDependencies(broken)).rejects.not.toBeInstanceOf(MissingDependencyError);
    const other = async (specifier: string) => {
      if (specifier === 'ajv') throw new SyntaxError('Unexpected token');
      return import(specifier);
    };
    await expect(loadProbeDependencies(other)).rejects.toThrow(SyntaxError);
  });
});

describe('option validation in runProbe (exit 2 without starting anything)', () => {
  it.each([
    [{ command: ['node', 'x'], sessions: 1 }, /^sessions must be at least 2: the probe needs someone to leak to$/],
    [{ command: ['node', 'x'], sessions: 26 }, /^sessions must be a whole number from 2 to 25, got 26$/],
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

describe('markers and read-back', () => {
  it('one shape for every run: this run\'s, an earlier run\'s, and the old shape are all found; lookalikes are not', () => {
    const run = '0a1b2c3d';
    expect(marker(run, 'alpha', 3, 'k0')).toBe('mcpsl-0a1b2c3d-alpha-3-k0');
    const text = `x MCPSL-0A1B2C3D-Bravo-12-P3.txt mcpsl-ffffffff-alpha-1-k0 bravo-2-8599037d alpha-1-k0 mcpsl-0a1b2c3d-alpha-3 mcpsl-0a1b2c3d-alpha-3-k0`;
    expect(findMarkers(text).map((m) => `${m.text}|${m.run}|${m.session}|${m.step}|${m.slot}${m.legacy ? '|legacy' : ''}`)).toEqual([
      'mcpsl-0a1b2c3d-bravo-12-p3|0a1b2c3d|bravo|12|p3',
      'mcpsl-ffffffff-alpha-1-k0|ffffffff|alpha|1|k0',
      'mcpsl-0a1b2c3d-alpha-3-k0|0a1b2c3d|alpha|3|k0',
      'bravo-2-8599037d|8599037d|bravo|2|k0|legacy',
    ]);
    expect(ownMarkers(text, run, 'alpha')).toEqual(['mcpsl-0a1b2c3d-alpha-3-k0']);
  });

  it('reads text, embedded resources, resource links and structured content', () => {
    const text = readBack({
      content: [
        { type: 'text', text: 'one' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///x', text: 'two' } },
        { type: 'resource_link', uri: 'demo://r/three', name: 'three' },
      ],
      structuredContent: { out: 'four' },
    });
    expect(text).toBe('one\ntwo\nfile:///x\ndemo://r/three\nthree\n{"out":"four"}');
    expect(readBack({ content: [] })).toBe('');
    expect(readBack(undefined)).toBe('');
  });
});

describe('protocol watch', () => {
  it('one reply per request: a duplicate, or a reply to an id never sent, is a fault', () => {
    const watch = new ProtocolWatch('server process 1');
    watch.outgoing({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} });
    watch.incoming({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    watch.incoming({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    watch.incoming({ jsonrpc: '2.0', id: 7, result: {} });
    watch.incoming({ jsonrpc: '2.0', method: 'notifications/message', params: {} });
    expect(watch.faults).toEqual([
      { connection: 'server process 1', kind: 'duplicate-reply', id: 1, detail: 'a second reply to request id 1: {"content":[]}' },
      { connection: 'server process 1', kind: 'unknown-id', id: 7, detail: 'a reply to request id 7, which this connection never sent: {}' },
    ]);
  });
});

describe('stdio framing', () => {
  /** Start `node -e script` behind the probe's stdio transport and collect what it delivers. */
  async function frame(script: string, maxMessageBytes?: number): Promise<{ messages: unknown[]; transport: ProcessStdioTransport }> {
    const transport = new ProcessStdioTransport({ command: process.execPath, args: ['-e', script], label: 'server process 1', maxMessageBytes });
    const messages: unknown[] = [];
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    transport.onmessage = (m) => messages.push(m);
    transport.onerror = () => undefined;
    await transport.start();
    await closed;
    await transport.close();
    return { messages, transport };
  }

  it('accepts a valid 50 MB reply, as HTTP does, split over many chunks', async () => {
    const { messages, transport } = await frame(
      "const t='x'.repeat(50*1024*1024); process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:1,result:{content:[{type:'text',text:t}]}})+'\\n'); process.stdout.write('{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\\n');",
    );
    expect(transport.violation).toBeUndefined();
    expect(messages).toHaveLength(2);
    const first = messages[0] as { result: { content: { text: string }[] } };
    expect(first.result.content[0]?.text.length).toBe(50 * 1024 * 1024);
    expect(messages[1]).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('refuses a message over the limit with one line naming the limit, with or without a newline', async () => {
    const big = "process.stdout.write('{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"' + 'x'.repeat(2*1024*1024) + '\"}}'); setTimeout(() => {}, 2000)";
    const { transport } = await frame(big, 1024 * 1024);
    expect(transport.violation).toEqual({
      line: expect.stringMatching(/^\{"jsonrpc":"2\.0","id":1,"result":\{"t":"x{81}$/), // the start of it, not 2 MB
      why: "a message larger than 1 MiB, the probe's limit for one JSON-RPC message on both transports,",
    });
  });

  it('HTTP applies the same limit to a response body', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { t: 'x'.repeat(2 * 1024 * 1024) } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const { limitedFetch } = await import('../../src/probe/protocol.js');
      const small = await (await limitedFetch(4 * 1024 * 1024)(`http://127.0.0.1:${port}/`)).text();
      expect(small.length).toBeGreaterThan(2 * 1024 * 1024);
      await expect((await limitedFetch(1024 * 1024)(`http://127.0.0.1:${port}/`)).text()).rejects.toThrow(
        "the server sent a message larger than 1 MiB, the probe's limit for one JSON-RPC message on both transports",
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('names the line that is not JSON-RPC, in full sentences', async () => {
    const { transport } = await frame("process.stdout.write('server v1 starting\\n'); setTimeout(() => {}, 500)");
    expect(transport.violation).toEqual({ line: 'server v1 starting' });
  });
});

describe('workspace check', () => {
  // made in beforeAll, not at collection: a filtered run (-t) that skips these tests leaves no directory behind
  let scratch: ReturnType<typeof scratchDir>;
  beforeAll(() => {
    scratch = scratchDir('probe-unit');
  });
  afterAll(() => scratch?.remove());
  const run = 'deadbeef';

  it('accepts a workspace with only its own markers', async () => {
    const dir = path.join(scratch.dir, 'own');
    mkdirSync(path.join(dir, 'sub'), { recursive: true });
    writeFileSync(path.join(dir, 'sub', `${marker(run, 'alpha', 2)}.txt`), `${marker(run, 'alpha', 2)}\n`);
    expect(await checkWorkspace('alpha', dir, 1, run)).toEqual({ session: 'alpha', round: 1, dir, exists: true, files: 1, ownMarker: true, foreignMarkers: [] });
  });

  it('reports another session\'s marker (in a file or in its name) and an earlier run\'s, without following symlinks', async () => {
    const dir = path.join(scratch.dir, 'leaky');
    const elsewhere = path.join(scratch.dir, 'elsewhere.txt');
    mkdirSync(path.join(dir, '.cache'), { recursive: true });
    writeFileSync(path.join(dir, 'own.txt'), marker(run, 'alpha', 1));
    writeFileSync(path.join(dir, '.cache', 'state'), `last=${marker(run, 'bravo', 1)}\n`);
    writeFileSync(path.join(dir, `${marker('00000000', 'alpha', 1)}.txt`), 'residue');
    writeFileSync(elsewhere, marker(run, 'bravo', 9));
    symlinkSync(elsewhere, path.join(dir, 'link'));
    const check = await checkWorkspace('alpha', dir, 1, run);
    expect(check.foreignMarkers.sort((a, b) => a.file.localeCompare(b.file))).toEqual([
      { marker: marker(run, 'bravo', 1), file: path.join('.cache', 'state') },
      { marker: marker('00000000', 'alpha', 1), file: `${marker('00000000', 'alpha', 1)}.txt` },
    ]);
    expect(check.ownMarker).toBe(true);
  });

  it('reports a missing directory', async () => {
    const check = await checkWorkspace('alpha', path.join(scratch.dir, 'nope'), 1, run);
    expect(check).toMatchObject({ exists: false, ownMarker: false, files: 0 });
  });
});
