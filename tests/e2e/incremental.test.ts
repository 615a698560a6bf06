// Whole-server analysis in the editor: a new TypeScript program after an edit re-analyses only the files whose source
// changed (per-module facts are cached by TypeScript's SourceFile objects, which a new program reuses), and a linted
// file that the server model already analysed is not indexed a second time.
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it, vi } from 'vitest';
import plugin from '../../src/index.js';
import { ModuleFacts } from '../../src/analysis/module.js';
import { serverModelOf } from '../../src/analysis/server.js';
import { readSettings } from '../../src/analysis/settings.js';

const TOOLS = 49;
const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-stateless-incremental-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function toolFile(i: number, edit = ''): string {
  return `const seen${i}: string[] = [];${edit}
export async function tool${i}(args: { q: string }) {
  seen${i}.push(args.q);
  return { content: [{ type: 'text' as const, text: String(seen${i}.length) }] };
}
`;
}

const files = new Map<string, string>();
files.set(
  path.join(dir, 'src/index.ts'),
  [
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';`,
    ...Array.from({ length: TOOLS }, (_, i) => `import { tool${i} } from './tools/t${i}.js';`),
    `const server = new McpServer({ name: 'x', version: '1' });`,
    ...Array.from({ length: TOOLS }, (_, i) => `server.tool('t${i}', 'tool ${i}', {}, tool${i});`),
  ].join('\n'),
);
for (let i = 0; i < TOOLS; i++) files.set(path.join(dir, `src/tools/t${i}.ts`), toolFile(i));
mkdirSync(path.join(dir, 'src/tools'), { recursive: true });
for (const [f, text] of files) writeFileSync(f, text);

const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, skipLibCheck: true, types: [] };
const sourceFiles = new Map<string, ts.SourceFile>();

/** A program over the current texts; an unchanged text keeps its SourceFile object, as the language service does. */
function program(old?: ts.Program): ts.Program {
  const host = ts.createCompilerHost(options, true);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion) => {
    const text = files.get(path.resolve(fileName));
    if (text === undefined) return read(fileName, languageVersion);
    const known = sourceFiles.get(fileName);
    if (known && known.text === text) return known;
    const sf = ts.createSourceFile(fileName, text, languageVersion, true);
    sourceFiles.set(fileName, sf);
    return sf;
  };
  return ts.createProgram([...files.keys()], options, host, old);
}

function lintAll(p: ts.Program): number {
  const linter = new Linter({ configType: 'flat', cwd: dir });
  let findings = 0;
  for (const [file, text] of files) {
    const messages = linter.verify(
      text,
      [
        ...(plugin.configs['recommended-type-checked'] as never[]),
        // The programs the test makes, instead of the config's project service.
        { files: ['**/*.ts'], languageOptions: { parser: tsParser as never, parserOptions: { projectService: false, programs: [p] } } },
      ],
      file,
    );
    expect(messages.filter((m) => !m.ruleId).map((m) => m.message)).toEqual([]);
    findings += messages.length;
  }
  return findings;
}

describe('whole-server analysis across edits', () => {
  const settings = readSettings({ 'mcp-stateless': { crossFile: true } });

  it('indexes every linted file once: the server model hands over the modules it analysed', () => {
    const spy = vi.spyOn(ModuleFacts.prototype as unknown as { index: () => void }, 'index');
    const p1 = program();
    expect(lintAll(p1)).toBe(TOOLS); // one accumulator per tool module, found across files
    expect(serverModelOf(p1, settings).analysedModules).toBe(TOOLS + 1);
    expect(spy).toHaveBeenCalledTimes(TOOLS + 1);
    spy.mockRestore();
  });

  it('after editing one file, the new program re-analyses that file only', () => {
    const p1 = program();
    lintAll(p1);
    const edited = path.join(dir, 'src/tools/t7.ts');
    files.set(edited, toolFile(7, ' // edited'));
    const p2 = program(p1);
    expect(p2.getSourceFile(path.join(dir, 'src/tools/t8.ts'))).toBe(p1.getSourceFile(path.join(dir, 'src/tools/t8.ts')));
    const spy = vi.spyOn(ModuleFacts.prototype as unknown as { index: () => void }, 'index');
    expect(lintAll(p2)).toBe(TOOLS);
    expect(serverModelOf(p2, settings).analysedModules).toBe(1);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });
});
