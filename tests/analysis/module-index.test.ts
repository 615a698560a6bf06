// The per-module index (src/analysis/module.ts): one walk that files calls, functions, assignments and `this` members
// under their owning function. The walk does not expand identifiers and literals, except an identifier that carries
// decorators (a parameter's), whose calls are code like any other.
import tsParser, { parseForESLint } from '@typescript-eslint/parser';
import { Linter as Linter10 } from 'eslint';
import { Linter as Linter9 } from 'eslint9';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModuleFacts, type TraversalStep } from '../../src/analysis/module.js';
import { readSettings } from '../../src/analysis/settings.js';

function facts(code: string): ModuleFacts {
  const { ast, scopeManager, visitorKeys } = parseForESLint(code, { range: true, loc: true, sourceType: 'module' });
  return new ModuleFacts(ast as never, scopeManager as never, visitorKeys, readSettings({}), 'x.ts');
}

const calleeNames = (f: ModuleFacts) => f.allCalls.map((c) => (c.callee.type === 'Identifier' ? c.callee.name : c.callee.type));

describe('module index', () => {
  it("files a call in a parameter's decorator under the function that owns the parameter", () => {
    const f = facts(`class Tools {
  constructor(@Inject(token()) private readonly store: Store) {}
  run(@Arg('x') x: string) { return save(x); }
}`);
    expect(calleeNames(f).sort()).toEqual(['Arg', 'Inject', 'save', 'token']);
    // (The parser's own output has no parent links: owners are what the walk recorded.)
    const call = (name: string) => f.allCalls.find((c) => c.callee.type === 'Identifier' && c.callee.name === name)!;
    const run = f.ownerOf(call('save'));
    expect(run?.type).toBe('FunctionExpression');
    expect(f.ownerOf(call('Arg'))).toBe(run);
    expect(f.ownerOf(call('Inject'))).not.toBe(run);
  });

  it('indexes calls, functions, assignments and this-members, and no identifier or literal', () => {
    const f = facts(`let n = 0;
export function handler(args: { q: string }) {
  n = args.q.length;
  const g = () => this.count;
  return [g(), 'text', 42, JSON.stringify(args)];
}`);
    expect(f.functions.map((fn) => fn.type)).toEqual(['FunctionDeclaration', 'ArrowFunctionExpression']);
    expect(calleeNames(f).sort()).toEqual(['MemberExpression', 'g']);
    expect(f.assignments).toHaveLength(1);
    expect(f.thisMembers).toHaveLength(1);
    expect(f.ownerOf(f.thisMembers[0]!)).toBe(f.functions[1]);
  });
});

// In a lint the index reads ESLint's own traversal of the file (`SourceCode#traverse()`) instead of walking: both ways
// must file the same nodes, in the same order, under the same owners — on every fixture file, under ESLint 10 and 9.
describe('module index from ESLint traversal steps', () => {
  const root = path.resolve(__dirname, '../fixtures');
  const fixtureFiles = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|tsx|js|mjs|cjs)$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(root, f));
  const lists = ['allCalls', 'functions', 'classes', 'objects', 'assignments', 'updates', 'thisMembers', 'switches'] as const;

  function compare(a: ModuleFacts, b: ModuleFacts): void {
    for (const k of lists) expect(b[k], k).toEqual(a[k]);
    for (const k of lists) b[k].forEach((n, i) => expect(n, k).toBe(a[k][i]));
    for (const k of ['callsByOwner', 'childFunctions', 'choicesByOwner'] as const) {
      expect([...b[k].keys()], k).toEqual([...a[k].keys()]);
      for (const [owner, nodes] of a[k]) nodes.forEach((n, i) => expect(b[k].get(owner)![i], k).toBe(n));
    }
    expect([...b.imports.entries()].map(([name, v]) => [name, v.source, v.imported])).toEqual([...a.imports.entries()].map(([name, v]) => [name, v.source, v.imported]));
    for (const n of [...a.allCalls, ...a.functions, ...a.assignments, ...a.thisMembers]) expect(b.ownerOf(n)).toBe(a.ownerOf(n));
  }

  for (const [name, Linter] of [['ESLint 10', Linter10], ['ESLint 9', Linter9]] as const) {
    it(`files the same nodes as the walk (${name})`, () => {
      expect(fixtureFiles.length).toBeGreaterThan(20);
      let compared = 0;
      const rule = {
        create(context: { sourceCode: { ast: never; scopeManager: never; visitorKeys: never; traverse(): Iterable<TraversalStep> }; filename: string }) {
          return {
            'Program:exit'() {
              const sc = context.sourceCode;
              const walked = new ModuleFacts(sc.ast, sc.scopeManager, sc.visitorKeys, readSettings({}), context.filename);
              const stepped = new ModuleFacts(sc.ast, sc.scopeManager, sc.visitorKeys, readSettings({}), context.filename, { steps: sc.traverse() });
              compare(walked, stepped);
              compared++;
            },
          };
        },
      };
      // Built during the traversal by listeners (the way a lint builds it now): the same facts again.
      const listened: ModuleFacts[] = [];
      const listening = {
        create(context: { sourceCode: { ast: never; scopeManager: never; visitorKeys: never }; filename: string }) {
          const sc = context.sourceCode;
          const facts = new ModuleFacts(sc.ast, sc.scopeManager, sc.visitorKeys, readSettings({}), context.filename, { during: 'traversal' });
          return {
            ...facts.traversalListeners(),
            'Program:exit'() {
              compare(new ModuleFacts(sc.ast, sc.scopeManager, sc.visitorKeys, readSettings({}), context.filename), facts);
              listened.push(facts);
            },
          };
        },
      };
      const linter = new Linter({ configType: 'flat', cwd: root });
      for (const file of fixtureFiles) {
        const messages = linter.verify(readFileSync(file, 'utf8'), [{ files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs', '**/*.cjs'], languageOptions: { parser: tsParser, sourceType: 'module' }, plugins: { t: { rules: { index: rule as never, listen: listening as never } } }, rules: { 't/index': 'error', 't/listen': 'error' } }], file);
        expect(messages.filter((m) => m.fatal || m.ruleId === 't/index' || m.ruleId === 't/listen'), file).toEqual([]);
      }
      expect(compared).toBe(fixtureFiles.length);
      expect(listened.length).toBe(fixtureFiles.length);
    });
  }
});
