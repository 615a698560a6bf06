// End to end: `mcp-stateless report` on the bundled example servers and on the definitions fixture, through the CLI
// entry point (in process) and buildReport. Hazards are checked against a direct ESLint run over the same files, so
// the test keeps holding when example files gain hazards; the server.ts files are also pinned exactly.
import tsParser from '@typescript-eslint/parser';
import { ESLint, type Linter } from 'eslint';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main, zeroConfig } from '../../src/cli.js';
import plugin, { configs } from '../../src/index.js';
import { buildReport, type Report } from '../../src/report.js';

const root = path.resolve(import.meta.dirname, '../..');
const abs = (p: string) => path.join(root, p);
/** How the report names a file: relative to the working directory, forward slashes. */
const rel = (p: string) => path.relative(process.cwd(), abs(p)).split(path.sep).join('/');

function sink(): Writable & { text: string } {
  const s = new Writable({
    write(chunk, _enc, done) {
      s.text += String(chunk);
      done();
    },
  }) as Writable & { text: string };
  s.text = '';
  return s;
}

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = sink();
  const err = sink();
  const code = await main(['report', ...argv], out, err);
  return { code, stdout: out.text, stderr: err.text };
}

/** The same files linted directly with ESLint: `file:line:col ruleId message`, sorted. */
async function direct(paths: string[], config: Linter.Config[]): Promise<{ files: string[]; hazards: string[] }> {
  const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config });
  const results = await eslint.lintFiles(paths.map(abs));
  return {
    files: results.map((r) => path.relative(process.cwd(), r.filePath).split(path.sep).join('/')).sort(),
    hazards: results
      .flatMap((r) =>
        r.messages
          .filter((m) => m.ruleId?.startsWith('mcp-stateless/'))
          .map((m) => `${path.relative(process.cwd(), r.filePath).split(path.sep).join('/')}:${m.line}:${m.column} ${m.ruleId} ${m.message}`),
      )
      .sort(),
  };
}
const TS: Linter.Config = { files: ['**/*.ts'], languageOptions: { parser: tsParser as never } };
const recommended = [TS, ...(plugin.configs.recommended as Linter.Config[])];
const strict = [TS, ...(plugin.configs.strict as Linter.Config[])];

const asLines = (r: Report) => r.hazards.findings.map((f) => `${f.file}:${f.line}:${f.column} ${f.ruleId} ${f.message}`).sort();

const LEAKY = rel('examples/leaky-server/server.ts');
const CLEAN = rel('examples/clean-server/server.ts');

const SERVER_HANDLERS = [
  { kind: 'tool', name: 'add_note', via: 'registerTool', at: `${CLEAN}:20`, registeredAt: `${CLEAN}:17` },
  { kind: 'tool', name: 'scan', via: 'registerTool', at: `${CLEAN}:30`, registeredAt: `${CLEAN}:27` },
  { kind: 'tool', name: 'add_note', via: 'registerTool', at: `${LEAKY}:21`, registeredAt: `${LEAKY}:18` },
  { kind: 'tool', name: 'set_target', via: 'registerTool', at: `${LEAKY}:31`, registeredAt: `${LEAKY}:28` },
  { kind: 'tool', name: 'scan', via: 'registerTool', at: `${LEAKY}:40`, registeredAt: `${LEAKY}:37` },
];

const LEAKY_HAZARDS = [
  `${LEAKY}:15:3 mcp-stateless/no-module-accumulator`,
  `${LEAKY}:23:5 mcp-stateless/no-session-keyed-state`,
  `${LEAKY}:32:5 mcp-stateless/no-cross-call-binding`,
  `${LEAKY}:41:22 mcp-stateless/no-first-caller-cache`,
  `${LEAKY}:42:5 mcp-stateless/no-process-global-mutation`,
];

const tmp = mkdtempSync(path.join(tmpdir(), 'mcp-stateless-report-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('report on the example servers', () => {
  it('lists the files, every handler, and exactly the hazards a direct ESLint run finds (JSON)', async () => {
    const { code, stdout, stderr } = await cli('--format', 'json', abs('examples'));
    expect(stderr).toBe('');
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as Report;
    const expected = await direct(['examples'], recommended);

    expect(report.tool).toBe('mcp-stateless report');
    expect(report.version).toBe(plugin.meta.version);
    expect(report.config).toBe('recommended');
    expect(report.files).toEqual(expected.files);
    expect(report.files).toEqual(expect.arrayContaining([CLEAN, LEAKY]));
    expect(report.unparsed).toEqual([]);

    // Handlers: exactly these in the two server.ts files, with location and how they were registered.
    const serverHandlers = report.handlers
      .filter((h) => h.file === CLEAN || h.file === LEAKY)
      .map((h) => ({ kind: h.kind, name: h.name, via: h.via, at: `${h.file}:${h.line}`, registeredAt: `${h.registeredAt.file}:${h.registeredAt.line}` }));
    expect(serverHandlers).toEqual(SERVER_HANDLERS);
    for (const h of report.handlers) {
      expect(report.files).toContain(h.file);
      expect(h.routes).toEqual([]);
      expect(h.column).toBeGreaterThan(0);
    }

    // Hazards: the same as ESLint's own run, and exactly these in the server.ts files.
    expect(asLines(report)).toEqual(expected.hazards);
    const inServers = report.hazards.findings.filter((f) => f.file === CLEAN || f.file === LEAKY);
    expect(inServers.map((f) => `${f.file}:${f.line}:${f.column} ${f.ruleId}`)).toEqual(LEAKY_HAZARDS);
    expect(inServers.every((f) => f.severity === 'error' && f.message.length > 20)).toBe(true);
    expect(report.hazards.total).toBe(expected.hazards.length);
    const byRule: Record<string, number> = {};
    for (const f of report.hazards.findings) byRule[f.ruleId] = (byRule[f.ruleId] ?? 0) + 1;
    expect(report.hazards.byRule).toEqual(byRule);
    expect(Object.keys(report.hazards.byRule)).toEqual(Object.keys(byRule).sort());

    expect(report.rulesRun).toEqual(Object.keys(configs.recommended[0]!.rules!).sort());
    expect(report.definitions).toEqual([]);
    expect(report.verdict.status).toBe('hazards');
    expect(report.verdict.text).toMatch(new RegExp(`^${report.hazards.total} static hazards found by \\d+ rules in (\\d+ of )?${report.files.length} files: not ready to register as shared`));
    expect(report.verdict.text).toContain('the interleaved probe is still required');
    expect(report.exitCode).toBe(1);
  });

  it('prints Markdown by default: verdict, handler table, each finding under its rule', async () => {
    const { code, stdout } = await cli(abs('examples'));
    expect(code).toBe(1);
    const report = await buildReport([abs('examples')]);
    expect(stdout.split('\n')[0]).toBe('# mcp-stateless registration report');
    const verdicts = stdout.split('\n').filter((l) => l.startsWith('**Verdict:**'));
    expect(verdicts).toEqual([`**Verdict:** ${report.verdict.text}`]);
    expect(stdout).not.toContain('no static hazards were found');
    expect(stdout).toContain('## Handlers found\n\n| kind | name | location | registered via |\n| --- | --- | --- | --- |\n');
    for (const h of SERVER_HANDLERS) expect(stdout).toContain(`| ${h.kind} | \`${h.name}\` | \`${h.at}\` | \`${h.via}\` |`);
    for (const [ruleId, count] of Object.entries(report.hazards.byRule)) expect(stdout).toContain(`### ${ruleId} (${count})\n`);
    for (const f of report.hazards.findings) expect(stdout).toContain(`- \`${f.file}:${f.line}:${f.column}\`: ${f.message}\n`);
    expect(stdout).toContain(`- Files linted: ${report.files.length}\n- Handlers found: ${report.handlers.length}\n- Hazards: ${report.hazards.total}\n`);
  });

  it('on the clean server: no static hazards were found, and the interleaved probe is still required', async () => {
    const { code, stdout, stderr } = await cli('--strict', abs('examples/clean-server/server.ts'));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const verdict = stdout.split('\n').find((l) => l.startsWith('**Verdict:**'));
    expect(verdict).toBe(
      '**Verdict:** no static hazards were found in 1 file (2 handlers, 0 definitions checked). Static analysis cannot prove statelessness: ' +
        'the interleaved probe is still required before registering as shared (`mcp-stateless probe`, see docs/probe.md).',
    );
    expect(stdout).toContain('## Hazards by rule\n\nNone found.\n');
    expect(stdout).toContain(`| tool | \`add_note\` | \`${CLEAN}:20\` | \`registerTool\` |`);
    expect(stdout).toContain(`| tool | \`scan\` | \`${CLEAN}:30\` | \`registerTool\` |`);
    // Never claims the server is stateless.
    expect(stdout).not.toMatch(/\b(is|are) stateless\b/i);
    expect(stdout).not.toMatch(/\bsafe to (share|register)\b/i);
  });

  it('with --type-checked, lists handlers defined in one file and registered in another', async () => {
    const report = await buildReport([abs('tests/fixtures/cross-file/src')], { typeChecked: true });
    const names = report.handlers.map((h) => `${h.name ?? '—'} ${path.basename(h.file)}`).sort();
    expect(names).toEqual(['add_note notes.ts', 'browse browse.ts', 'draft index.ts', 'think index.ts', '— index.ts']);
    expect(report.hazards.total).toBe(7);
  });

  it('says when the definition rules did not run and when no handlers were found', async () => {
    const report = await buildReport([abs('examples/clean-server/server.ts')]);
    expect(report.verdict.status).toBe('no-static-hazards');
    expect(report.verdict.text).toContain('the definition rules did not run (use --strict)');
    const empty = path.join(tmp, 'empty');
    mkdirSync(empty);
    writeFileSync(path.join(empty, 'util.ts'), 'export const add = (a: number, b: number) => a + b;\n');
    const none = await buildReport([empty], { strict: true });
    expect(none.handlers).toEqual([]);
    expect(none.exitCode).toBe(0);
    expect(none.verdict.text).toMatch(/^no static hazards were found in 1 file \(0 handlers, 0 definitions checked; note: no handlers were found/);
    expect(none.verdict.text).toContain('the interleaved probe is still required');
  });

  it('--out DIR writes the Markdown and the JSON, and prints the verdict', async () => {
    const dir = path.join(tmp, 'out', 'nested');
    const { code, stdout } = await cli('--strict', '--out', dir, abs('examples/clean-server/server.ts'));
    expect(code).toBe(0);
    const md = readFileSync(path.join(dir, 'mcp-stateless-report.md'), 'utf8');
    const json = JSON.parse(readFileSync(path.join(dir, 'mcp-stateless-report.json'), 'utf8')) as Report;
    expect(md).toBe((await cli('--strict', abs('examples/clean-server/server.ts'))).stdout);
    expect(json).toEqual(JSON.parse((await cli('--strict', '--format', 'json', abs('examples/clean-server/server.ts'))).stdout));
    expect(json.handlers.map((h) => h.name)).toEqual(['add_note', 'scan']);
    expect(stdout).toBe(
      `Verdict: ${json.verdict.text}\nmcp-stateless report: wrote ${path.join(dir, 'mcp-stateless-report.md')} and ${path.join(dir, 'mcp-stateless-report.json')}\n`,
    );
  });

  it('lists the names a dispatcher routes to under the dispatcher', async () => {
    const dir = path.join(tmp, 'dispatch');
    mkdirSync(dir);
    writeFileSync(
      path.join(dir, 'server.ts'),
      `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const server = new Server({ name: 'x', version: '1' }, { capabilities: { tools: {} } });
const seen: string[] = [];
async function search(q: string) { seen.push(q); return q; }
async function fetchUrl(u: string) { return u; }
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  switch (request.params.name) {
    case 'search': return search(String(request.params.arguments?.q));
    case 'fetch': return fetchUrl(String(request.params.arguments?.u));
  }
  throw new Error('unknown tool');
});
`,
    );
    const report = await buildReport([dir]);
    const file = path.relative(process.cwd(), path.join(dir, 'server.ts')).split(path.sep).join('/');
    expect(report.handlers).toEqual([
      { kind: 'tool', name: null, via: 'setRequestHandler(tools/call)', file, line: 7, column: 49, registeredAt: { file, line: 7, column: 1 }, routes: ['search', 'fetch'] },
    ]);
    expect(report.hazards.findings.map((f) => `${f.line}:${f.column} ${f.ruleId}`)).toEqual(['5:36 mcp-stateless/no-module-accumulator']);
    expect(report.hazards.findings[0]!.message).toContain("'search'");
    const md = (await cli(dir)).stdout;
    expect(md).toContain(`| tool | — (routes \`search\`, \`fetch\`) | \`${file}:7\` | \`setRequestHandler(tools/call)\` |`);
  });
});

describe('report on definition records', () => {
  const FIXTURE = 'tests/fixtures/definitions';
  const REGISTRY_TS = rel(`${FIXTURE}/registry.ts`);

  it('--strict: each record with its fields and the definition rules’ verdict; hazards as ESLint finds them', async () => {
    const { code, stdout } = await cli('--strict', '--format', 'json', abs(FIXTURE));
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as Report;
    const expected = await direct([FIXTURE], strict);
    // Zero config lints JavaScript and TypeScript: registry.ts, not the JSON files.
    expect(report.files).toEqual([REGISTRY_TS]);
    expect(report.files).toEqual(expected.files);
    expect(asLines(report)).toEqual(expected.hazards);
    expect(report.handlers).toEqual([]);
    expect(report.hazards.byRule).toEqual({
      'mcp-stateless/no-implicit-global-share': 3,
      'mcp-stateless/require-max-concurrent': 2,
      'mcp-stateless/require-statelessness-probe': 2,
    });
    const rows = report.definitions.map((d) => [
      `${d.file}:${d.line}:${d.column}`,
      d.form,
      d.name,
      d.model.text,
      d.maxConcurrent.text,
      d.shareScope.text,
      d.statelessnessProbePassed.text,
      d.verdict,
      d.findings.map((f) => f.ruleId.replace('mcp-stateless/', '')),
    ]);
    expect(rows).toEqual([
      [`${REGISTRY_TS}:16:3`, 'record', 'kali', "'shared'", '8', "'global'", 'true', 'fail', ['no-implicit-global-share']],
      [`${REGISTRY_TS}:17:3`, 'record', 'nmap', "'shared'", '—', "'global'", '—', 'fail', ['require-max-concurrent', 'require-statelessness-probe', 'no-implicit-global-share']],
      [`${REGISTRY_TS}:18:3`, 'record', 'browser', "'shared'", '0', '—', 'false', 'fail', ['require-max-concurrent', 'require-statelessness-probe']],
      [`${REGISTRY_TS}:24:3`, 'record', 'notes', "'sidecar'", '—', "'tenant'", '—', 'fail', ['no-implicit-global-share']],
      [`${REGISTRY_TS}:25:3`, 'record', 'scratch', "'warm_pool'", '—', '—', '—', 'pass', []],
    ]);
    // The JSON carries the values, not only their text.
    expect(report.definitions[0]).toMatchObject({
      model: { state: 'known', value: 'shared' },
      maxConcurrent: { state: 'known', value: 8 },
      shareScope: { state: 'known', value: 'global' },
      statelessnessProbePassed: { state: 'known', value: true },
      probePassed: { state: 'known', value: true },
    });
    expect(report.definitions[1]!.maxConcurrent).toEqual({ state: 'absent', text: '—' });
    // Every definition-rule finding is attributed to exactly one record.
    const attributed = report.definitions.flatMap((d) => d.findings);
    expect(attributed.length).toBe(report.hazards.total);
    expect(report.verdict.status).toBe('hazards');
  });

  it('renders the definitions table in Markdown', async () => {
    const { stdout } = await cli('--strict', abs(FIXTURE));
    expect(stdout).toContain(
      '| location | form | name | model | maxConcurrent | shareScope | statelessnessProbePassed | verdict |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n',
    );
    expect(stdout).toContain(`| \`${REGISTRY_TS}:18\` | record | \`browser\` | 'shared' | 0 | — | false | fail (require-max-concurrent, require-statelessness-probe) |`);
    expect(stdout).toContain(`| \`${REGISTRY_TS}:25\` | record | \`scratch\` | 'warm_pool' | — | — | — | pass |`);
  });

  it('without --strict the records are listed but not checked', async () => {
    const report = await buildReport([abs(`${FIXTURE}/registry.ts`)]);
    expect(report.exitCode).toBe(0);
    expect(report.definitions.map((d) => [d.name, d.verdict])).toEqual([
      ['kali', 'not-checked'],
      ['nmap', 'not-checked'],
      ['browser', 'not-checked'],
      ['notes', 'not-checked'],
      ['scratch', 'not-checked'],
    ]);
    expect(report.verdict.text).toContain('the definition rules did not run (use --strict)');
  });

  it('JSON registries, through a config with configs.json', async () => {
    const config = [...(zeroConfig(true) as Linter.Config[]), ...(configs.json as Linter.Config[])];
    const report = await buildReport([abs(FIXTURE)], { overrideConfig: config });
    const expected = await direct([FIXTURE], [...strict, ...(configs.json as Linter.Config[])]);
    expect(report.config).toBe('custom');
    expect(report.files).toEqual(expected.files);
    expect(asLines(report)).toEqual(expected.hazards);
    const json = (name: string) => report.definitions.filter((d) => d.file === rel(`${FIXTURE}/${name}`)).map((d) => [d.line, d.form, d.name, d.verdict]);
    expect(json('clean-registry.json')).toEqual([
      [6, 'record', 'kali', 'pass'],
      [14, 'record', 'notes', 'pass'],
      [15, 'record', 'pool', 'pass'],
    ]);
    expect(json('mcp.definition.json')).toEqual([[1, 'definition', 'kali', 'fail']]);
    // registry.json holds the same records as registry.ts, with the same verdicts.
    expect(json('registry.json').map(([, form, name, verdict]) => [form, name, verdict])).toEqual([
      ['record', 'kali', 'fail'],
      ['record', 'nmap', 'fail'],
      ['record', 'browser', 'fail'],
      ['record', 'notes', 'fail'],
      ['record', 'scratch', 'pass'],
    ]);
    expect(report.definitions.flatMap((d) => d.findings).length).toBe(report.hazards.total);
  });
});

describe('docs/report.md', () => {
  const doc = readFileSync(abs('docs/report.md'), 'utf8');

  it('shows the real report of the clean example (the rules-run list and version elided)', async () => {
    const shown = /```markdown\n([\s\S]*?)```/.exec(doc)![1]!;
    const { stdout } = await cli('--strict', abs('examples/clean-server/server.ts'));
    const elide = (md: string) => md.replace(/^- Config: `strict` \(rules run: .*\)$/m, '- Config: `strict` (rules run: …)').replace(/^- Version: .*$/m, '- Version: …');
    expect(elide(shown)).toBe(elide(stdout));
  });

  it('quotes the leaky example’s verdict and shows the JSON’s keys', async () => {
    const report = await buildReport([abs('examples/leaky-server/server.ts')]);
    expect(report.verdict.text.startsWith('5 static hazards found by 5 rules in 1 file: not ready to register as shared')).toBe(true);
    expect(doc).toContain('"5 static hazards found by 5 rules in 1 file: not ready to\nregister as shared…"');
    const shown = JSON.parse(/```json\n([\s\S]*?)```/.exec(doc)![1]!) as Record<string, unknown>;
    expect(Object.keys(shown)).toEqual(Object.keys(report));
  });
});

describe('report usage errors', () => {
  it('exits 2 with one clear line', async () => {
    const missing = await cli('no/such/dir');
    expect(missing).toEqual({ code: 2, stdout: '', stderr: 'mcp-stateless report: no such file or directory: no/such/dir\n' });
    const bad = await cli('--frobnicate');
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toMatch(/^mcp-stateless report: Unknown option '--frobnicate'/);
    const format = await cli('--format', 'xml', abs('examples'));
    expect(format).toEqual({ code: 2, stdout: '', stderr: "mcp-stateless report: unknown format 'xml' (use markdown or json)\n" });
    const config = await cli('--config', 'no-such.config.js', abs('examples'));
    expect(config).toEqual({ code: 2, stdout: '', stderr: 'mcp-stateless report: config file not found: no-such.config.js\n' });
    const file = path.join(tmp, 'a-file');
    writeFileSync(file, '');
    const out = await cli('--out', file, abs('examples'));
    expect(out).toEqual({ code: 2, stdout: '', stderr: `mcp-stateless report: --out must name a directory: ${file}\n` });
  });

  it('--help prints the usage and exits 0', async () => {
    const { code, stdout } = await cli('--help');
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toBe('Usage: mcp-stateless report [options] [paths...]');
  });
});
