// Type-checked runs convert each file to ESTree once: the server model converts the program's files with the settings
// typescript-eslint's parser will ask for, and the parser takes that conversion instead of making its own. What ESLint
// and every other rule see must not change: the same tree (tokens and comments included), the same type information
// through the parser's services, the same findings.
import tsParser from '@typescript-eslint/parser';
import tseslint from 'typescript-eslint';
import type { TSESTree } from '@typescript-eslint/utils';
import { ESLint, type Rule } from 'eslint';
import { ESLint as ESLint9 } from 'eslint9';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';
import { getModuleModel } from '../../src/analysis/door.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/cross-file');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'mcp-stateless-shared-conversion-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Seen {
  tree: string;
  types: string[];
  handedOver: boolean;
}

/** Lint a fresh copy of the cross-file fixture (its own program), recording what ESLint saw for every file. */
async function lintCopy(Eslint: typeof ESLint, name: string, parser: unknown): Promise<{ seen: Map<string, Seen>; findings: string[] }> {
  const root = path.join(tmp, name);
  cpSync(fixture, root, { recursive: true });
  const seen = new Map<string, Seen>();
  const record: Rule.RuleModule = {
    create(context) {
      return {
        'Program:exit'(node) {
          const services = context.sourceCode.parserServices as { program: ts.Program; getTypeAtLocation(n: unknown): ts.Type };
          const checker = services.program.getTypeChecker();
          const types: string[] = [];
          const tree = JSON.stringify(node, (key, value: unknown) => {
            if (key === 'parent') return undefined;
            if (value && typeof value === 'object' && (value as { type?: string }).type === 'Identifier' && key !== 'tokens') {
              types.push(`${(value as TSESTree.Identifier).name}: ${checker.typeToString(services.getTypeAtLocation(value)).replaceAll(root, '<root>')}`);
            }
            return value;
          });
          const model = getModuleModel(context as never);
          seen.set(path.relative(root, context.filename), { tree, types, handedOver: model.facts.ast === (node as unknown) });
        },
      };
    },
  };
  const eslint = new Eslint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: parser as never, parserOptions: { tsconfigRootDir: root } } },
      ...(plugin.configs['recommended-type-checked'] as never[]),
      { files: ['**/*.ts'], plugins: { record: { rules: { record } } }, rules: { 'record/record': 'error' } },
    ],
  });
  const results = await eslint.lintFiles(['.']);
  const findings = results.flatMap((r) => r.messages.map((m) => `${path.relative(root, r.filePath)}:${m.line}:${m.column} ${m.ruleId} ${m.message}`));
  return { seen, findings };
}

describe('one ESTree conversion per file in type-checked runs', () => {
  it.each([
    ['10', ESLint, tsParser],
    ['9', ESLint9 as unknown as typeof ESLint, tsParser],
    ['10 (typescript-eslint’s `parser`, as the README configures it)', ESLint, tseslint.parser],
  ])('hands the model’s conversion to the parser and changes nothing ESLint %s sees', async (label, Eslint, parser) => {
    const major = label.slice(0, 2).trim() + (parser === tsParser ? '' : '-tseslint');
    const shared = await lintCopy(Eslint, `shared-${major}`, parser);
    // The same parser behind a wrapper: the model cannot know how it converts, so nothing is handed over.
    const wrapped = { meta: { name: 'wrapped-parser' }, parseForESLint: (code: string, options: unknown) => tsParser.parseForESLint(code, options as never) };
    const own = await lintCopy(Eslint, `own-${major}`, wrapped);

    expect(shared.seen.size).toBeGreaterThan(5);
    expect([...shared.seen.keys()].sort()).toEqual([...own.seen.keys()].sort());
    // The model analyses every file of this server, and each one's tree is ESLint's too (the file whose lint built the
    // model gave the model its tree; every other file's tree was handed to the parser). Without the hand-over none is.
    expect([...shared.seen].filter(([, s]) => !s.handedOver).map(([f]) => f)).toEqual([]);
    expect([...own.seen.values()].some((s) => s.handedOver)).toBe(false);
    for (const [file, s] of shared.seen) {
      const o = own.seen.get(file)!;
      expect(s.tree, file).toBe(o.tree);
      expect(s.types, file).toEqual(o.types);
      expect(s.types.length, file).toBeGreaterThan(0);
    }
    expect(shared.findings.length).toBeGreaterThan(0);
    expect(shared.findings.filter((f) => !f.includes('record/record'))).toEqual(own.findings);
  });

  it('parses a fixed text afresh (a new source file is never handed an old conversion)', async () => {
    const root = path.join(tmp, 'fix');
    cpSync(fixture, root, { recursive: true });
    writeFileSync(path.join(root, 'src/lib/late.ts'), 'let limit = 3;\nexport const LIMIT = limit;\n');
    const eslint = new ESLint({
      cwd: root,
      fix: true,
      overrideConfigFile: true,
      overrideConfig: [
        { files: ['**/*.ts'], languageOptions: { parser: tsParser as never, parserOptions: { tsconfigRootDir: root } } },
        ...(plugin.configs['recommended-type-checked'] as never[]),
        { files: ['**/*.ts'], rules: { 'prefer-const': 'error' } },
      ],
    });
    const results = await eslint.lintFiles(['.']);
    const late = results.find((r) => r.filePath.endsWith('late.ts'))!;
    expect(late.output).toBe('const limit = 3;\nexport const LIMIT = limit;\n');
    expect(late.messages).toEqual([]);
    expect(results.flatMap((r) => r.messages.filter((m) => m.fatal))).toEqual([]);
  });
});
