// Unusual but valid syntax inside MCP handlers, so the analysis runs over it: every rule on (strict options), no
// crash, and the exact findings where the syntax changes what the analysis must see. Fixtures: tests/fixtures/syntax/.
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const dir = path.resolve(import.meta.dirname, 'fixtures/syntax');

function rules(): Linter.RulesRecord {
  const out: Linter.RulesRecord = {};
  for (const [name, rule] of Object.entries(plugin.rules)) {
    const strictOptions = (rule.meta.docs as { strictOptions?: unknown[] } | undefined)?.strictOptions ?? [];
    out[`mcp-stateless/${name}`] = ['error', ...strictOptions];
  }
  return out;
}

/** Lint a fixture with every rule; a rule exception fails the test with ESLint's message (rule id and line). */
function lint(file: string): string[] {
  const text = readFileSync(path.join(dir, file), 'utf8');
  const languageOptions: Linter.LanguageOptions = file.endsWith('.cjs')
    ? { ecmaVersion: 'latest', sourceType: 'commonjs' }
    : { parser: tsParser as never, parserOptions: { ecmaFeatures: { jsx: file.endsWith('.tsx') } } };
  const messages = new Linter({ configType: 'flat' }).verify(
    text,
    [{ files: ['**/*.ts', '**/*.tsx', '**/*.cjs'], plugins: { 'mcp-stateless': plugin as never }, languageOptions, rules: rules() }],
    { filename: `syntax/${file}` },
  );
  return messages.map((m) => `${m.line}:${m.column} ${m.ruleId ?? `FATAL ${m.message}`}`);
}

describe('unusual but valid syntax inside handlers', () => {
  it('names of Object.prototype members as methods, events and schemas (`x.constructor({...})` made a rule throw)', () => {
    expect(lint('prototype-names.ts')).toEqual(['19:3 mcp-stateless/no-module-accumulator']);
  });

  it('CommonJS: require, module.exports', () => {
    expect(lint('commonjs.cjs')).toEqual(['9:3 mcp-stateless/no-module-accumulator']);
  });

  it('`import fs = require()`, a namespace and `export =` (this fixture made no-fixed-path-io throw)', () => {
    expect(lint('export-equals.ts')).toEqual(['11:3 mcp-stateless/no-cross-call-binding', '12:78 mcp-stateless/no-unguarded-path-join']);
  });

  it('decorators on a tool class and its method; a static field mutated from the class’s own method is reported', () => {
    expect(lint('decorators.ts')).toEqual(['16:5 mcp-stateless/no-module-accumulator']);
  });

  it('`using` and `await using` declarations', () => {
    expect(lint('using.ts')).toEqual(['10:3 mcp-stateless/no-module-accumulator']);
  });

  it('optional chaining and optional calls on the server and on module state', () => {
    expect(lint('optional.ts')).toEqual(['6:3 mcp-stateless/no-module-accumulator', '8:3 mcp-stateless/no-cross-call-binding']);
  });

  it('computed and private members, static blocks: a private Map field of a long-lived instance is reported like a public one', () => {
    expect(lint('members.ts')).toEqual(['12:5 mcp-stateless/no-module-accumulator']);
  });

  it('getters and setters: a setter write read back through the getter', () => {
    expect(lint('accessors.ts')).toEqual(['20:3 mcp-stateless/no-cross-call-binding', '21:3 mcp-stateless/no-cross-call-binding']);
  });

  it('generators and async generators reached from a handler', () => {
    expect(lint('generators.ts')).toEqual(['6:5 mcp-stateless/no-module-accumulator']);
  });

  it('JSX in a .tsx handler', () => {
    expect(lint('component.tsx')).toEqual(['11:3 mcp-stateless/no-module-accumulator']);
  });

  it('top-level await before the handlers', () => {
    expect(lint('top-level-await.ts')).toEqual(['9:3 mcp-stateless/no-cross-call-binding']);
  });

  it('shadowed names: local `path`, `fs` and `process` that are not the Node ones report nothing', () => {
    expect(lint('shadowed.ts')).toEqual([]);
  });

  it('`require("node:fs")` and `import * as fs` are the same module', () => {
    expect(lint('require-vs-import.ts')).toEqual(['7:22 mcp-stateless/no-fixed-path-io', '11:23 mcp-stateless/no-fixed-path-io']);
  });
});
