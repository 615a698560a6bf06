// JavaScript with ESLint's default parser, ES modules and CommonJS, under ESLint 10 and ESLint 9.
import { Linter as Linter10 } from 'eslint';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the ESLint 9 alias package has no types of its own here
import { Linter as Linter9 } from 'eslint9';
import plugin from '../../src/index.js';

const dir = path.resolve(import.meta.dirname, '../fixtures/javascript');

type AnyLinter = { verify(code: string, config: unknown, filename: string): { line: number; column: number; ruleId: string | null; fatal?: boolean }[] };

function lint(LinterClass: new (o: { configType: 'flat' }) => AnyLinter, file: string) {
  const linter = new LinterClass({ configType: 'flat' });
  const code = readFileSync(path.join(dir, file), 'utf8');
  const sourceType = file.endsWith('.cjs') ? 'commonjs' : 'module';
  return linter
    .verify(code, [{ files: ['**/*.{mjs,cjs}'], languageOptions: { sourceType } }, ...plugin.configs.recommended], path.join(dir, file))
    .map((m) => `${m.line}:${m.column} ${m.ruleId}`);
}

describe.each([
  ['ESLint 10', Linter10 as unknown as new (o: { configType: 'flat' }) => AnyLinter],
  ['ESLint 9', Linter9 as unknown as new (o: { configType: 'flat' }) => AnyLinter],
])('%s, default parser', (_name, LinterClass) => {
  it('reports module state in an ES module', () => {
    expect(lint(LinterClass, 'server.mjs')).toEqual(['9:3 mcp-stateless/no-module-accumulator']);
  });
  it('reports module state in CommonJS', () => {
    expect(lint(LinterClass, 'server.cjs')).toEqual(['9:41 mcp-stateless/no-cross-call-binding']);
  });
});
