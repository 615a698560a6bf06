// The four best-known MCP servers on npm (devDependencies, @2026.8.31), probed unaided: no --tool, no --args. The
// test only points their storage into scratch directories (the memory file, the filesystem server's directory).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, leaks, newTag, processesWith, scratchDir } from './helpers.js';
import { SUMMARIES } from './summaries.js';

const require = createRequire(import.meta.url);
const serverPath = (name: string) => path.join(path.dirname(require.resolve(`@modelcontextprotocol/${name}/package.json`)), 'dist', 'index.js');
const FILE_TAG = newTag('probe-real');
const scratch = scratchDir('probe-real');

afterAll(() => {
  const left = processesWith(FILE_TAG, { prefix: true });
  scratch.remove();
  expect(left).toEqual([]);
});

const probe = (tag: string, args: string[], server: string[]) =>
  cli(['--format', 'json', '--rounds', '1', '--env', `PROBE_TEST_TAG=${FILE_TAG}-${tag}`, ...args, '--', process.execPath, ...server]);

describe.concurrent('the four reference servers, unaided', () => {
  it('server-memory: leak — one knowledge graph in one file for every caller; cleaned up through delete_entities', async () => {
    const memory = path.join(scratch.dir, 'memory.jsonl');
    // two rounds: both orders of the sequential pass (concurrent writes to the one file may lose each other's entities)
    const run = await probe('memory', ['--rounds', '2', '--env', `MEMORY_FILE_PATH=${memory}`], [serverPath('server-memory')]);
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(result.plan!.writers).toEqual(['create_entities', 'create_relations', 'add_observations']);
    expect(result.plan!.readers).toEqual(['read_graph', 'search_nodes', 'open_nodes', 'resources/list']);
    // what one session wrote with create_entities, another read back through every reader
    const found = leaks(result);
    for (const reader of ['read_graph', 'search_nodes', 'open_nodes']) {
      expect(found).toContain(`alpha>bravo via ${reader}`);
      expect(found).toContain(`bravo>alpha via ${reader}`);
    }
    // through the file, across processes too: the witness on server process 2 reads the others' entities
    expect(found.some((l) => /^(alpha|bravo)>charlie via read_graph$/.test(l))).toBe(true);
    expect(result.reason).toMatch(/^leak in 2 of 2 rounds: read_graph returned session alpha's marker to session bravo \(round 1, sequential\): alpha wrote it with create_entities \(round 1, sequential\)/);
    // the probe removed its own entities and nothing of this run is left in the graph
    expect(result.cleanup).toMatchObject({ status: 'clean', tools: ['delete_entities', 'delete_observations', 'delete_relations'], leftovers: [] });
    expect(readFileSync(memory, 'utf8')).not.toMatch(/mcpsl-/);
  });

  it('server-sequential-thinking: leak — one thought history per process; branch ids come back to other callers', async () => {
    const run = await probe('thinking', [], [serverPath('server-sequential-thinking')]);
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(result.plan!.tools.map((t) => `${t.name}:${t.role}`)).toEqual(['sequentialthinking:writer']);
    // in-process only: the witness process has its own history
    expect(leaks(result)).toEqual(['alpha>bravo via sequentialthinking', 'bravo>alpha via sequentialthinking']);
    expect(result.evidence[0]?.context).toMatch(/"branches": \[/);
    expect(result.cleanup.status).toBe('unknown'); // no tool lists or removes thoughts; they went with the process
  });

  it('server-filesystem: leak — one directory tree for every caller; nothing written outside the probe\'s scratch', async () => {
    const allowed = path.join(scratch.dir, 'allowed');
    mkdirSync(allowed);
    const run = await probe('fs', [], [serverPath('server-filesystem'), allowed]);
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'leak' });
    // the probe offered its own directory as the MCP root, and the server worked there
    expect(result.connections.every((c) => c.rootsRequested === true)).toBe(true);
    expect(readdirSync(allowed)).toEqual([]);
    expect(result.plan!.tools.filter((t) => t.role === 'skipped').map((t) => `${t.name}:${t.skip?.because}`)).toEqual([
      'write_file:destructive', 'edit_file:destructive', 'move_file:destructive',
    ]);
    // a directory created by one session is listed for another
    expect(leaks(result)).toEqual(expect.arrayContaining(['alpha>bravo via list_directory', 'bravo>alpha via list_directory', 'alpha>bravo via directory_tree']));
    expect(result.evidence.every((e) => e.kind !== 'cross-session' || e.writtenBy?.tool === 'create_directory')).toBe(true);
    expect(existsSync(result.cleanup.scratch!.dir)).toBe(false);

    // with --allow-destructive the file written by one session is read by the other
    const files = await probe('fs-write', ['--allow-destructive'], [serverPath('server-filesystem'), allowed]);
    expect(files.json!.verdict).toBe('leak');
    expect(leaks(files.json!).filter((l) => l.endsWith(' via read_text_file')).length).toBeGreaterThan(0);
    expect(files.json!.evidence.some((e) => e.via.tool === 'read_text_file' && e.writers?.includes('write_file'))).toBe(true);
    expect(readdirSync(allowed)).toEqual([]);
  });

  it('server-everything: inconclusive unaided (the tools that keep caller data are skipped); with --allow-open-world, a leak through resources/list', async () => {
    const run = await probe('everything', [], [serverPath('server-everything')]);
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 3, verdict: 'inconclusive' });
    expect(result.evidence).toEqual([]);
    expect(result.inconclusive).toEqual([
      'not exercised: gzip-file-as-resource (annotated openWorldHint)',
      'not exercised: simulate-research-query (answers only task-augmented calls (execution.taskSupport: required), which the probe does not make)',
    ]);
    expect(result.toConclude).toEqual(['--allow-open-world']);
    // what was exercised showed nothing crossing: echo, the readers, the toggles
    expect(result.pairs.every((p) => p.status === 'isolated')).toBe(true);

    const open = await probe('everything-open', ['--allow-open-world'], [serverPath('server-everything')]);
    expect({ code: open.code, verdict: open.json!.verdict }).toEqual({ code: 1, verdict: 'leak' });
    // the gzipped "file" is registered as a resource of the one server every caller on the connection shares
    expect(leaks(open.json!)).toEqual(['alpha>bravo via resources/list', 'bravo>alpha via resources/list']);
    // the probe handed it a data: URI, not a URL on the network
    const gzip = open.json!.calls.find((c) => c.tool === 'gzip-file-as-resource')!;
    expect(String(gzip.arguments.data)).toMatch(/^data:text\/plain,mcpsl-/);
  });

  it('server-memory with the lint\'s summary: the verdict names the memory file\'s line', async () => {
    const memory = path.join(scratch.dir, 'memory-lint.jsonl');
    const run = await probe('memory-lint', ['--summary', path.join(SUMMARIES, 'server-memory.json'), '--env', `MEMORY_FILE_PATH=${memory}`], [serverPath('server-memory')]);
    const result = run.json!;
    expect(result.verdict).toBe('leak');
    expect(result.plan!.pairs.slice(0, 18).every((p) => p.origin === 'lint')).toBe(true);
    expect(result.reason).toMatch(
      /^leak in 1 of 1 round: create_entities writes this\.memoryFilePath at index\.js:109; read_graph returned session alpha's marker to session bravo \(round 1, sequential\)/,
    );
    // the hazards it cannot reach are named, not dropped
    expect(result.lint.filter((n) => !n.exercised).map((n) => `${n.tool}@${n.line}`)).toEqual(['resources/subscribe@486', 'resources/unsubscribe@490']);
    expect(run.stdout).toBeTruthy();
  });

  // The real lint, as a child process (`mcp-stateless report --format json`), on a copy of server-memory's dist: the
  // zero-config lint ignores node_modules/ and dist/.
  it('--auto --source on server-memory: the real lint\'s summary, and the verdict names the memory file\'s line', async () => {
    const source = path.join(scratch.dir, 'server-memory-src');
    mkdirSync(source);
    copyFileSync(serverPath('server-memory'), path.join(source, 'index.js'));
    const memory = path.join(scratch.dir, 'memory-auto.jsonl');
    const run = await probe('memory-auto', ['--auto', '--source', source, '--env', `MEMORY_FILE_PATH=${memory}`], [serverPath('server-memory')]);
    const result = run.json!;
    expect({ code: run.code, verdict: result.verdict }).toEqual({ code: 1, verdict: 'leak' });
    expect(result.plan!.source).toBe('schemas+lint');
    expect(result.timings.lintMs).toBeGreaterThan(0);
    // the pair the lint found first, from the file both sides of it touch
    expect(result.plan!.pairs[0]).toMatchObject({ writer: 'create_entities', origin: 'lint', state: { name: 'this.memoryFilePath', write: { file: 'index.js', line: 109 } } });
    expect(result.reason).toMatch(
      /^leak in 1 of 1 round: create_entities writes this\.memoryFilePath at index\.js:109; read_graph returned session alpha's marker to session bravo \(round 1, sequential\)/,
    );
    // the lint's findings on create_entities (lines 54 and 109) were exercised; the subscribe handlers are named as not
    expect(result.lint.map((n) => `${n.rule.replace('mcp-stateless/', '')} ${n.tool}@${n.line}:${n.exercised}`)).toEqual([
      'no-fixed-path-io create_entities@54:true',
      'no-fixed-path-io create_entities@109:true',
      'no-module-accumulator resources/subscribe@486:false',
      'no-module-accumulator resources/unsubscribe@490:false',
    ]);
  });

  it('--source on something the lint cannot read: one line, exit 2', async () => {
    const run = await cli(['--auto', '--source', path.join(scratch.dir, 'no-such-dir'), '--', process.execPath, serverPath('server-memory')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^mcp-stateless probe: could not run the probe: --source: not a directory: .*no-such-dir\n$/);
  });
});
