import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { analyze } from '@typescript-eslint/scope-manager';
import { parse, simpleTraverse } from '@typescript-eslint/typescript-estree';
import { visitorKeys } from '@typescript-eslint/visitor-keys';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as ts from 'typescript';
import { isFunction, type FunctionNode } from './ast.js';
import { Discovery, type HandlerKind, type Registration } from './discovery.js';
import { describeHandler, ServerModel, type HandlerRef } from './model.js';
import { ModuleFacts } from './module.js';
import { classMember, propertyOf, resolveValues, resolveVariable, returnedExpressions, type Value } from './resolve.js';
import type { McpSettings } from './settings.js';

/** A function in some module that serves calls because code in another module registers or calls it. */
export interface CrossRoot {
  range: [number, number];
  kind: HandlerKind;
  name: string | null;
  /** `registered in src/index.ts:42`, `reached from tool 'search' (src/index.ts)`. */
  via: string;
  /** True when the other module registers it as a handler (its parameters are the call's input and context). */
  registered: boolean;
}

interface Unit {
  fileName: string;
  facts: ModuleFacts;
  discovery: Discovery;
  model: ServerModel | null;
}

const MAX_ROUNDS = 25;

/**
 * The server as a whole: per-module facts for every source file of a TypeScript program, joined across imports.
 * Built once per program (the first file that asks pays; every later file reuses it). It answers one question for the
 * per-file model: which functions of this file serve calls because another file registers or reaches them.
 */
export class ProjectModel {
  private readonly units = new Map<string, Unit | null>();
  private readonly roots = new Map<string, Map<number, CrossRoot>>();
  private readonly tsApi: typeof ts | null;

  constructor(
    private readonly program: ts.Program,
    private readonly settings: McpSettings,
  ) {
    this.tsApi = loadTypeScript();
    this.build();
  }

  private readonly longLived = new Map<string, Set<number>>();

  private markLongLived(u: Unit, cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression): void {
    let set = this.longLived.get(u.fileName);
    if (!set) {
      set = new Set();
      this.longLived.set(u.fileName, set);
    }
    set.add(cls.range[0]);
  }

  /** Is this class (by its range in that file) instantiated once, at module level, by another module? */
  classIsLongLived(fileName: string, rangeStart: number): boolean {
    return this.longLived.get(path.resolve(fileName))?.has(rangeStart) ?? false;
  }

  /** Extra roots for one file (by the range of the function in that file's text). */
  rootsFor(fileName: string): CrossRoot[] {
    return [...(this.roots.get(path.resolve(fileName))?.values() ?? [])];
  }

  /** Number of modules analysed (for benchmarks and tests). */
  get moduleCount(): number {
    let n = 0;
    for (const u of this.units.values()) if (u) n++;
    return n;
  }

  private unit(fileName: string): Unit | null {
    const key = path.resolve(fileName);
    if (this.units.has(key)) return this.units.get(key)!;
    let unit: Unit | null = null;
    const sf = this.program.getSourceFile(fileName);
    if (sf && !sf.isDeclarationFile && !/[\\/]node_modules[\\/]/.test(fileName)) {
      try {
        const ast = parse(sf.text, { range: true, loc: true, jsx: /\.[jt]sx$/.test(fileName), comment: false });
        simpleTraverse(ast, { enter() {} }, true);
        const scopeManager = analyze(ast, { sourceType: 'module' });
        const facts = new ModuleFacts(ast, scopeManager as never, visitorKeys as Record<string, readonly string[]>, this.settings);
        unit = { fileName: key, facts, discovery: new Discovery(facts), model: null };
      } catch {
        unit = null; // input the analysis cannot parse is not ours to judge
      }
    }
    this.units.set(key, unit);
    return unit;
  }

  private build(): void {
    const dirty = new Set<Unit>();
    for (const sf of this.program.getSourceFiles()) {
      const u = this.unit(sf.fileName);
      if (u && (u.discovery.registrations.length > 0 || u.discovery.external.length > 0)) dirty.add(u);
    }
    for (let round = 0; round < MAX_ROUNDS && dirty.size > 0; round++) {
      const batch = [...dirty];
      dirty.clear();
      for (const u of batch) {
        u.model = ServerModel.fromFacts(u.facts, u.discovery, this.settings, this.localRoots(u), (cls) => this.classIsLongLived(u.fileName, cls.range[0]));
        // Handlers registered here but defined elsewhere.
        for (const ext of u.discovery.external) {
          const line = ext.site.loc.start.line;
          const via = `registered with ${ext.via} in ${this.rel(u.fileName)}:${line}`;
          for (const t of this.resolveImport(u, ext.source, ext.imported, ext.path)) {
            if (this.addRoot(t.unit, t.fn, { kind: ext.kind, name: ext.name, via, registered: true })) dirty.add(t.unit);
          }
        }
        // Functions elsewhere that handler code here calls.
        for (const call of u.model.externalReach) {
          const via = `reached from ${describeHandler(call.ref)} (${this.rel(u.fileName)})`;
          const r = call.ref.registration;
          for (const t of this.resolveImport(u, call.source, call.imported, call.path)) {
            if (this.addRoot(t.unit, t.fn, { kind: r.kind, name: call.ref.routedName ?? r.name, via, registered: false })) dirty.add(t.unit);
          }
        }
      }
    }
  }

  private rel(fileName: string): string {
    const dir = this.program.getCurrentDirectory();
    return path.relative(dir, fileName) || fileName;
  }

  private localRoots(u: Unit): [FunctionNode, Registration][] {
    const out: [FunctionNode, Registration][] = [];
    const roots = this.roots.get(u.fileName);
    if (!roots) return out;
    const byStart = functionsByStart(u.facts);
    for (const r of roots.values()) {
      const fn = byStart.get(r.range[0]);
      if (fn && fn.range[1] === r.range[1]) out.push([fn, crossRegistration(fn, r)]);
    }
    return out;
  }

  private addRoot(u: Unit, fn: FunctionNode, info: Omit<CrossRoot, 'range'>): boolean {
    if (u.discovery.handlerRegistration(fn)) return false; // already a handler there
    let m = this.roots.get(u.fileName);
    if (!m) {
      m = new Map();
      this.roots.set(u.fileName, m);
    }
    if (m.has(fn.range[0])) return false;
    m.set(fn.range[0], { range: [fn.range[0], fn.range[1]], ...info });
    return true;
  }

  private resolveModule(from: string, source: string): string | null {
    const tsApi = this.tsApi;
    if (tsApi) {
      const r = tsApi.resolveModuleName(source, from, this.program.getCompilerOptions(), tsApi.sys);
      const f = r.resolvedModule?.resolvedFileName;
      if (f && !r.resolvedModule?.isExternalLibraryImport) return path.resolve(f);
      if (f) return null;
    }
    if (!source.startsWith('.')) return null;
    const base = path.resolve(path.dirname(from), source);
    const stem = base.replace(/\.(m|c)?js$/, '');
    for (const c of [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${stem}.cts`, `${stem}.js`, `${stem}.mjs`, path.join(base, 'index.ts'), path.join(base, 'index.js')]) {
      if (this.program.getSourceFile(c)) return c;
    }
    return null;
  }

  /** The functions an import (with a member path) stands for in the module it comes from. */
  private resolveImport(from: Unit, source: string, imported: string, memberPath: string[], depth = 0): { unit: Unit; fn: FunctionNode }[] {
    if (depth > 8) return [];
    const target = this.resolveModule(from.fileName, source);
    if (!target) return [];
    const u = this.unit(target);
    if (!u) return [];
    let name = imported;
    let rest = memberPath;
    if (name === '*') {
      if (rest.length === 0) return [];
      name = rest[0];
      rest = rest.slice(1);
    }
    const out: { unit: Unit; fn: FunctionNode }[] = [];
    const exported = this.exportValues(u, name);
    for (const f of exported.forwards) out.push(...this.resolveImport(u, f.source, f.name, rest, depth + 1));
    for (const v of exported.values) {
      for (const fv of applyPath(u.facts, [v], rest, (cls) => this.markLongLived(u, cls))) {
        if (fv.kind === 'function') out.push({ unit: u, fn: fv.node });
        else if (fv.kind === 'import') out.push(...this.resolveImport(u, fv.source, fv.imported, fv.path, depth + 1));
        else if (fv.kind === 'object' || fv.kind === 'instance') {
          // A tool object or tool instance passed by reference: its handler member serves the call.
          for (const prop of this.settings.handlerProperties) {
            const found = propertyOf(u.facts, fv, prop, new Set(), 0);
            const fns = found.filter((x) => x.kind === 'function');
            if (fns.length) {
              for (const f of fns) if (f.kind === 'function') out.push({ unit: u, fn: f.node });
              break;
            }
          }
        }
      }
    }
    return out;
  }

  /** What module `u` exports under `name` (following re-exports). */
  private exportValues(u: Unit, name: string): { values: Value[]; forwards: { source: string; name: string }[] } {
    const facts = u.facts;
    const out: Value[] = [];
    const forwards: { source: string; name: string }[] = [];
    const moduleScope = facts.scopeManager.scopes.find((s) => s.block.type === AST_NODE_TYPES.Program && s.type === 'module') ?? facts.scopeManager.scopes[0];
    const local = (n: string): Value[] => {
      const v = moduleScope?.set.get(n);
      return v ? resolveVariable(facts, v as never) : [];
    };
    for (const st of facts.ast.body) {
      if (st.type === AST_NODE_TYPES.ExportNamedDeclaration) {
        const d = st.declaration;
        if (d) {
          if ((d.type === AST_NODE_TYPES.FunctionDeclaration || d.type === AST_NODE_TYPES.ClassDeclaration) && d.id?.name === name) out.push(...resolveValues(facts, d));
          if (d.type === AST_NODE_TYPES.VariableDeclaration) {
            for (const decl of d.declarations) {
              if (decl.id.type === AST_NODE_TYPES.Identifier && decl.id.name === name && decl.init) out.push(...resolveValues(facts, decl.init));
            }
          }
        }
        for (const spec of st.specifiers) {
          const exported = spec.exported.type === AST_NODE_TYPES.Identifier ? spec.exported.name : String(spec.exported.value);
          if (exported !== name) continue;
          const localName = spec.local.type === AST_NODE_TYPES.Identifier ? spec.local.name : String(spec.local.value);
          if (st.source) forwards.push({ source: st.source.value, name: localName });
          else out.push(...local(localName));
        }
      } else if (st.type === AST_NODE_TYPES.ExportDefaultDeclaration && name === 'default') {
        out.push(...resolveValues(facts, st.declaration));
      } else if (st.type === AST_NODE_TYPES.ExportAllDeclaration && !st.exported) {
        forwards.push({ source: st.source.value, name });
      } else if (st.type === AST_NODE_TYPES.ExpressionStatement && st.expression.type === AST_NODE_TYPES.AssignmentExpression) {
        // CommonJS: exports.name = …, module.exports.name = …, module.exports = { name }
        const left = st.expression.left;
        const text = memberText(left);
        if (text === `exports.${name}` || text === `module.exports.${name}`) out.push(...resolveValues(facts, st.expression.right));
        if (text === 'module.exports') {
          for (const v of resolveValues(facts, st.expression.right)) out.push(...(name === 'default' ? [v] : propertyOf(facts, v, name, new Set(), 0)));
        }
      }
    }
    return { values: out, forwards };
  }
}

function memberText(node: TSESTree.Node): string | null {
  if (node.type === AST_NODE_TYPES.Identifier) return node.name;
  if (node.type === AST_NODE_TYPES.MemberExpression && !node.computed && node.property.type === AST_NODE_TYPES.Identifier) {
    const o = memberText(node.object);
    return o ? `${o}.${node.property.name}` : null;
  }
  return null;
}

function applyPath(facts: ModuleFacts, values: Value[], steps: string[], onLongLived?: (cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression) => void): Value[] {
  let cur = values;
  for (const step of steps) {
    const next: Value[] = [];
    for (const v of cur) {
      if (step === '()') {
        if (v.kind === 'function') for (const r of returnedExpressions(v.node)) next.push(...resolveValues(facts, r));
        else if (v.kind === 'import') next.push({ ...v, path: [...v.path, step] });
      } else if (step === 'new()' || step === 'new()!') {
        if (v.kind === 'class') {
          next.push({ kind: 'instance', node: v.node });
          if (step === 'new()!') onLongLived?.(v.node);
        }
        else if (v.kind === 'import') next.push({ ...v, path: [...v.path, step] });
      } else if (step === '[]') {
        if (v.kind === 'array') {
          for (const el of v.node.elements) if (el && el.type !== AST_NODE_TYPES.SpreadElement) next.push(...resolveValues(facts, el));
        } else if (v.kind === 'import') next.push({ ...v, path: [...v.path, step] });
      } else if (v.kind === 'class' || v.kind === 'instance') {
        next.push(...classMember(facts, v.node, step, v.kind === 'class', new Set(), 0));
      } else next.push(...propertyOf(facts, v, step, new Set(), 0));
    }
    cur = next;
  }
  return cur;
}

const startIndex = new WeakMap<ModuleFacts, Map<number, FunctionNode>>();
export function functionsByStart(facts: ModuleFacts): Map<number, FunctionNode> {
  let m = startIndex.get(facts);
  if (!m) {
    m = new Map();
    for (const f of facts.functions) if (isFunction(f) && !m.has(f.range[0])) m.set(f.range[0], f);
    startIndex.set(facts, m);
  }
  return m;
}

/** The registration a cross-file root stands for, in this file's own AST. */
export function crossRegistration(fn: FunctionNode, r: CrossRoot): Registration {
  return {
    kind: r.kind,
    name: r.name,
    handler: fn,
    site: fn,
    via: r.via,
    inputParam: r.registered ? 0 : null,
    contextParam: r.registered ? 1 : null,
    external: true,
  };
}

function loadTypeScript(): typeof ts | null {
  try {
    return createRequire(import.meta.url)('typescript') as typeof ts;
  } catch {
    return null;
  }
}

export type { HandlerRef };
