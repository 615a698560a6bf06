// The per-module index (src/analysis/module.ts): one walk that files calls, functions, assignments and `this` members
// under their owning function. The walk does not expand identifiers and literals, except an identifier that carries
// decorators (a parameter's), whose calls are code like any other.
import { parseForESLint } from '@typescript-eslint/parser';
import { describe, expect, it } from 'vitest';
import { ModuleFacts } from '../../src/analysis/module.js';
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
