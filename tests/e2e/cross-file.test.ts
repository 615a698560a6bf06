// Whole-server analysis: a multi-file fixture project linted with type information (recommended-type-checked) finds
// the hazards that sit in functions registered or reached from another file; without type information, the same
// rules behave exactly as recommended does.
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import plugin from '../../src/index.js';
import { TYPE_INFO_MISSING } from '../../src/analysis/door.js';
import { ServerModel } from '../../src/analysis/server.js';
import { lintProject } from './lint-project.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/cross-file');

async function lint(config: 'recommended' | 'recommended-type-checked') {
  const { files, findings } = await lintProject(fixture, config, ['src']);
  return { files, findings: findings.map((f) => f.at).sort(), messages: findings.map((f) => f.message) };
}

describe('cross-file analysis', () => {
  afterEach(() => vi.restoreAllMocks());

  it('builds the project model once per program, not once per file (runs first: the program is cached afterwards)', async () => {
    const spy = vi.spyOn(ServerModel.prototype as unknown as { build: () => void }, 'build');
    const { files } = await lint('recommended-type-checked');
    expect(files).toBe(10);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('recommended-type-checked finds hazards in handlers registered and reached from other files', async () => {
    const { findings, messages } = await lint('recommended-type-checked');
    expect(findings).toEqual([
      // thinker.process(…) on the module-level instance of a class from another file: the call that fills its history.
      'src/index.ts:15:74 mcp-stateless/no-module-accumulator',
      'src/lib/recorder.ts:12:5 mcp-stateless/no-module-accumulator',
      'src/lib/thinker.ts:6:5 mcp-stateless/no-module-accumulator',
      'src/tools/browse.ts:4:14 mcp-stateless/no-first-caller-cache',
      'src/tools/notes.ts:6:3 mcp-stateless/no-module-accumulator',
      'src/tools/search.ts:7:3 mcp-stateless/no-cross-call-binding',
      // Recorder.getInstance().record(…): the singleton's method pushes into its entries.
      'src/tools/search.ts:8:3 mcp-stateless/no-module-accumulator',
    ]);
    // Reports name the tool that reaches the line, even through the dispatcher in another file.
    expect(messages.find((m) => m.includes('this.entries'))).toContain("tool 'search'");
    expect(messages.find((m) => m.includes('this.history'))).toContain("tool 'think'");
    expect(messages.find((m) => m.includes('`history`'))).toContain("tool 'add_note'");
  });

  it('recommended (no type information) stays single-file and silent on this project', async () => {
    const { findings, files } = await lint('recommended');
    expect(files).toBe(10);
    expect(findings).toEqual([]);
  });

  it('the CLI runs whole-server analysis with --type-checked, zero config', async () => {
    const { main } = await import('../../src/cli.js');
    let out = '';
    const sink = { write: (c: string) => ((out += c), true) } as unknown as NodeJS.WritableStream;
    const code = await main(['--type-checked', '--format', 'json', path.join(fixture, 'src')], sink, sink);
    expect(code).toBe(1);
    const results = JSON.parse(out) as { messages: unknown[] }[];
    expect(results.reduce((n, r) => n + r.messages.length, 0)).toBe(7);
  });

  it('fails with one clear line when the type-checked config has no type information', () => {
    const linter = new Linter({ configType: 'flat' });
    const run = () =>
      linter.verify(
        'export const x = 1;',
        [{ files: ['**/*.ts'], languageOptions: { parser: tsParser as never }, plugins: { 'mcp-stateless': plugin as never }, settings: { 'mcp-stateless': { crossFile: true } }, rules: { 'mcp-stateless/no-module-accumulator': 'error' } }],
        'x.ts',
      );
    expect(run).toThrow(TYPE_INFO_MISSING);
  });
});
