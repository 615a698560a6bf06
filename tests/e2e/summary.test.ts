// The server summary (`mcp-stateless report --format json` → `summary`): valid against docs/server-summary.schema.json,
// and it says what the probe needs: which tool writes which state and which tool reads it back, files and processes,
// the rules that fired in each tool, and the teardown tool — across files with whole-server analysis.
import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report.js';
import { isServerSummary, type ServerSummary } from '../../src/summary.js';

const root = path.resolve(import.meta.dirname, '../..');
const schema = JSON.parse(readFileSync(path.join(root, 'docs/server-summary.schema.json'), 'utf8')) as object;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

function valid(summary: ServerSummary): void {
  const ok = validate(summary);
  expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 1)).toEqual([]);
  expect(ok).toBe(true);
  expect(isServerSummary(JSON.parse(JSON.stringify(summary)))).toBe(true);
}

describe('server summary', () => {
  it('summarises the leaky example: writers, readers, files, processes and the rules that fired per tool', async () => {
    const { summary } = await buildReport([path.join(root, 'examples/leaky-server')]);
    valid(summary);
    expect(summary.mode).toBe('one-file');
    const tool = (name: string) => summary.tools.find((t) => t.name === name)!;
    expect(summary.tools.map((t) => t.name).sort()).toEqual(['add_note', 'build', 'clean_up', 'last_output', 'run_command', 'scan', 'set_target']);
    // A "current target" set by one tool and read by another.
    const target = summary.state.find((s) => s.name === 'currentTarget')!;
    expect(target).toMatchObject({ scope: 'module', writers: ['set_target'], readers: ['scan'] });
    expect(tool('set_target').state).toEqual([expect.objectContaining({ state: target.id, access: 'write', what: 'assigns currentTarget' })]);
    // Output at a fixed path written by one tool and read back by another.
    const fixed = summary.state.find((s) => s.scope === 'file')!;
    expect(fixed).toMatchObject({ name: "'/tmp/last-output.txt'", writers: ['run_command'], readers: ['last_output'] });
    expect(tool('last_output').files).toEqual([expect.objectContaining({ effect: 'read', origin: 'fixed', state: fixed.id })]);
    // Processes and their isolation; rules attributed to the tool whose code they are in.
    expect(tool('run_command').processes).toEqual([expect.objectContaining({ api: 'spawn', cwd: true, home: false, tmpdir: false })]);
    expect(tool('run_command').rules).toContain('mcp-stateless/require-child-process-isolation');
    expect(tool('set_target').rules).toEqual(['mcp-stateless/no-cross-call-binding']);
    expect(summary.findings.every((f) => f.tool === null || summary.tools.some((t) => t.name === f.tool))).toBe(true);
    expect(summary.teardown).toMatchObject({ tool: 'clean_up', file: expect.stringMatching(/runner\.ts$/) });
  });

  it('a helper shared by several tools is each tool\'s: every saver writes the fixed file, every loader reads it', async () => {
    const { summary } = await buildReport([path.join(root, 'tests/fixtures/summary/notebook.ts')]);
    valid(summary);
    const file = summary.state.find((s) => s.scope === 'file')!;
    expect(file.name).toBe('NOTEBOOK');
    expect([...file.writers].sort()).toEqual(['append', 'clear']);
    expect([...file.readers].sort()).toEqual(['append', 'show']);
    // The finding in the shared helper belongs to every tool that runs it.
    for (const name of ['append', 'clear', 'show']) expect(summary.tools.find((t) => t.name === name)!.rules).toContain('mcp-stateless/no-fixed-path-io');
  });

  it('a database at a fixed path is a file state: the tool that inserts writes it, the one that selects reads it', async () => {
    const { summary } = await buildReport([path.join(root, 'tests/fixtures/summary/todo-db.ts')]);
    valid(summary);
    const file = summary.state.find((s) => s.scope === 'file')!;
    expect(file).toMatchObject({ name: "path.join(__dirname, 'todos.db')", writers: ['add'], readers: ['list'] });
    expect(summary.tools.find((t) => t.name === 'list')!.files).toEqual([expect.objectContaining({ effect: 'read', api: 'database', origin: 'fixed', state: file.id, line: 15 })]);
    // Reported where the database is opened, at start-up: no tool's code.
    expect(summary.findings).toEqual([expect.objectContaining({ ruleId: 'mcp-stateless/no-fixed-path-io', line: 7, column: 25, tool: null })]);
  });

  it('the clean example has tools but no shared state', async () => {
    const { summary } = await buildReport([path.join(root, 'examples/clean-server')]);
    valid(summary);
    expect(summary.tools.length).toBeGreaterThan(0);
    expect(summary.state.filter((s) => s.writers.length > 0 && s.readers.length > 0)).toEqual([]);
    expect(summary.findings).toEqual([]);
  });

  it('whole-server analysis finds the teardown tool registered from another file', async () => {
    const dir = path.join(root, 'tests/fixtures/teardown-cross-file');
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const typed = await buildReport(['src'], { typeChecked: true });
      valid(typed.summary);
      expect(typed.summary.mode).toBe('whole-server');
      expect(typed.summary.teardown).toMatchObject({ tool: 'teardown', file: 'src/tools/teardown.ts' });
      expect(typed.summary.tools.find((t) => t.name === 'build')).toMatchObject({ file: 'src/tools/build.ts', scopeArguments: ['workspace'] });
      expect(typed.hazards.total).toBe(0);
      // One file at a time, build.ts does not know the server has a teardown tool.
      const single = await buildReport(['src']);
      expect(single.hazards.findings.map((f) => `${f.file}:${f.line}:${f.column} ${f.ruleId}`)).toEqual(['src/tools/build.ts:8:3 mcp-stateless/require-teardown-tool']);
    } finally {
      process.chdir(cwd);
    }
  });
});
