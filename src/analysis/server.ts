import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { analyze } from '@typescript-eslint/scope-manager';
import { visitorKeys } from '@typescript-eslint/visitor-keys';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as ts from 'typescript';
import { append, functionDisplayName, isFunction, propertyKeyName, type FunctionNode, type Node } from './ast.js';
import { Discovery, mayRegisterHandlers } from './discovery.js';
import { describeHandler, ModuleModel, type CrossRoot, type ImportTarget, type InputParam, type LongLivedParam, type ModuleLinks } from './model.js';
import { isRelativeSource, ModuleFacts } from './module.js';
import { getPathAnalysis } from './paths.js';
import { classMember, propertyOf, resolveValues, resolveVariable, returnedExpressions, type Value } from './resolve.js';
import { settingsKey, type McpSettings } from './settings.js';
import { toolNames } from './teardown.js';
import { toEstree, type ParserConversion } from './estree.js';
import { cachedPer } from './cache.js';
import { AnalysisBudgetExceeded } from './budget.js';

/** One module of the program, as far as it does not depend on the rest of the program (cached per source file). */
interface UnitFacts {
  facts: ModuleFacts;
  discovery: Discovery;
}

interface Unit extends UnitFacts {
  fileName: string;
  text: string;
  /** The module model, built with the links known when it was built. */
  model: ModuleModel | null;
  /** Bumped whenever this unit gains a root or a long-lived class: its model must be rebuilt. */
  version: number;
  modelVersion: number;
}

/** A file as ESLint is linting it: its name, text and the tree typescript-eslint's parser made of it. */
export interface LintedFile {
  fileName: string;
  text: string;
  ast: TSESTree.Program;
}

const MAX_ROUNDS = 25;

// Per source file and settings: the facts and discovery of a module do not depend on the rest of the program, so a new
// program (an editor edit) re-analyses only the files whose source file changed. Keyed by TypeScript's SourceFile
// objects, which a new program reuses for unchanged files; collected with them.
const unitCache = new WeakMap<ts.SourceFile, Map<string, UnitFacts>>();

/**
 * The server as a whole: the modules of one TypeScript program joined across imports. Built once per program (the
 * first file that asks pays; every later file reuses it). It tells each module which of its functions serve calls
 * because another module registers or reaches them, and which of its classes another module keeps one instance of;
 * and it answers questions about the whole server (its tools, its teardown tool).
 */
export class ServerModel {
  private readonly units = new Map<string, Unit | null>();
  private readonly roots = new Map<string, Map<number, CrossRoot>>();
  private readonly longLived = new Map<string, Set<number>>();
  private readonly params = new Map<string, Map<number, LongLivedParam[]>>();
  private readonly tsApi: typeof ts | null;
  private readonly settingsKey: string;
  /** Modules indexed (parsed, scope-analysed and walked) while building this model, not taken from the cache. */
  analysedModules = 0;

  constructor(
    private readonly program: ts.Program,
    private readonly settings: McpSettings,
    /** How typescript-eslint's parser will convert this program's files (the model converts once for both), if known. */
    private readonly parser: ParserConversion | null = null,
    /** The file whose lint builds the model, as typescript-eslint's parser already converted it (not converted again). */
    current: LintedFile | null = null,
  ) {
    this.tsApi = loadTypeScript();
    this.settingsKey = settingsKey(settings);
    this.current = parser ? current : null;
    this.build();
    this.current = null;
  }

  private current: LintedFile | null;

  /** Is this class (by the start of its range in that file) instantiated once, at module level, by another module? */
  classIsLongLived(fileName: string, rangeStart: number): boolean {
    return this.longLived.get(path.resolve(fileName))?.has(rangeStart) ?? false;
  }

  /** Functions of one file that other files register or reach (by their range in that file's text). */
  rootsFor(fileName: string): CrossRoot[] {
    return [...(this.roots.get(path.resolve(fileName))?.values() ?? [])];
  }

  /** What the rest of the program tells one module. */
  linksFor(fileName: string): ModuleLinks {
    const key = path.resolve(fileName);
    return {
      roots: this.rootsFor(key),
      longLivedElsewhere: (start) => this.classIsLongLived(key, start),
      longLivedParams: (start) => this.params.get(key)?.get(start) ?? [],
      inputParams: (start) => this.inputs.get(key)?.get(start) ?? [],
      importTargets: (source, imported, memberPath) => this.importTargets(key, source, imported, memberPath),
    };
  }

  private readonly targetMemo = new Map<string, ImportTarget[]>();

  /** The functions (with their module's model) an import of one file stands for, through a member path. */
  importTargets(fileName: string, source: string, imported: string, memberPath: readonly string[]): ImportTarget[] {
    const key = `${fileName}\u0000${source}\u0000${imported}\u0000${memberPath.join('\u0000')}`;
    let out = this.targetMemo.get(key);
    if (!out) {
      this.targetMemo.set(key, []); // re-entrant questions (a module asking about itself) get nothing
      out = this.leavingOutOverBudget([], () => this.resolveImport(fileName, source, imported, [...memberPath])).map(({ unit, fn }) => ({ fileName: unit.fileName, fn, model: () => this.modelOf(unit) }));
      this.targetMemo.set(key, out);
    }
    return out.some((t) => this.isLeftOut(t.fileName)) ? out.filter((t) => !this.isLeftOut(t.fileName)) : out;
  }

  private isLeftOut(fileName: string): boolean {
    const u = this.units.get(fileName);
    return !u || u.facts.budget.isExceeded;
  }

  /**
   * Ask a question that may reach into other modules. A module that passes its step budget on the way (a vendored
   * bundle under src/) is left out of the server from then on, and the question gets `empty`: every other module is
   * still analysed, and the module itself is reported by its own lint.
   */
  private leavingOutOverBudget<T>(empty: T, ask: () => T): T {
    try {
      return ask();
    } catch (e) {
      if (!(e instanceof AnalysisBudgetExceeded)) throw e;
      const key = path.resolve(e.fileName);
      if (!this.units.get(key)) throw e;
      this.units.set(key, null);
      return empty;
    }
  }

  /**
   * The module model the join already built for this file, when the program's text of it is `text` (what ESLint is
   * linting); null when the file was not analysed here or the text differs (then the caller builds its own).
   */
  modelFor(fileName: string, text: string): ModuleModel | null {
    const u = this.units.get(path.resolve(fileName));
    if (!u || u.text !== text) return null;
    return this.modelOf(u);
  }

  /** Every module model of the server: the modules that register handlers or that handler code reaches. */
  moduleModels(): ModuleModel[] {
    const out: ModuleModel[] = [];
    for (const u of this.units.values()) if (u) out.push(this.modelOf(u));
    return out;
  }

  /** The names of every tool the server serves, whichever module registers or routes it. */
  toolNames(): string[] {
    const out = new Set<string>();
    for (const m of this.moduleModels()) for (const n of toolNames(m)) out.add(n);
    return [...out];
  }

  /** Number of modules analysed (for benchmarks and tests). */
  get moduleCount(): number {
    let n = 0;
    for (const u of this.units.values()) if (u) n++;
    return n;
  }

  private modelOf(u: Unit): ModuleModel {
    if (!u.model || u.modelVersion !== u.version) {
      u.model = new ModuleModel(u.facts, this.linksFor(u.fileName), u.discovery);
      u.modelVersion = u.version;
    }
    return u.model;
  }

  private unit(fileName: string): Unit | null {
    const key = path.resolve(fileName);
    if (this.units.has(key)) {
      const known = this.units.get(key)!;
      // A module past its step budget is left out of the server: questions about it get no answer, like unknown code.
      if (known && known.facts.budget.isExceeded) {
        this.units.set(key, null);
        return null;
      }
      return known;
    }
    let unit: Unit | null = null;
    const sf = this.program.getSourceFile(fileName);
    if (sf && !sf.isDeclarationFile && !/[\\/]node_modules[\\/]/.test(fileName)) {
      const cached = this.unitFacts(sf, key);
      if (cached) unit = { ...cached, fileName: key, text: sf.text, model: null, version: 0, modelVersion: -1 };
    }
    this.units.set(key, unit);
    return unit;
  }

  private unitFacts(sf: ts.SourceFile, fileName: string): UnitFacts | null {
    let perSettings = unitCache.get(sf);
    const hit = perSettings?.get(this.settingsKey);
    if (hit) return hit;
    let facts: UnitFacts | null = null;
    try {
      const current = this.current;
      const ast = current && current.text === sf.text && path.resolve(current.fileName) === fileName ? current.ast : toEstree(sf, fileName, this.parser);
      // No lib globals: the analysis treats a variable without definitions as no variable (a global), and building the
      // hundreds of ES lib globals for every module was a tenth of its cost.
      const scopeManager = analyze(ast, { sourceType: 'module', lib: [] });
      const moduleFacts = new ModuleFacts(ast, scopeManager as never, visitorKeys as Record<string, readonly string[]>, this.settings, fileName);
      moduleFacts.projectSources = this.projectSourcesOf(moduleFacts, fileName);
      facts = { facts: moduleFacts, discovery: moduleFacts.budget.phase('discovery', () => new Discovery(moduleFacts)) };
      this.analysedModules++;
    } catch {
      return null; // input the analysis cannot parse is not ours to judge
    }
    if (!perSettings) {
      perSettings = new Map();
      unitCache.set(sf, perSettings);
    }
    perSettings.set(this.settingsKey, facts);
    return facts;
  }

  private build(): void {
    const dirty = new Set<Unit>();
    for (const sf of this.program.getSourceFiles()) {
      if (sf.isDeclarationFile || !mayRegisterHandlers(sf.text, this.settings)) continue;
      const u = this.unit(sf.fileName);
      if (u && (u.discovery.registrations.length > 0 || u.discovery.external.length > 0)) dirty.add(u);
    }
    for (let round = 0; round < MAX_ROUNDS && dirty.size > 0; round++) {
      const batch = [...dirty];
      dirty.clear();
      for (const u of batch) {
        if (this.isLeftOut(u.fileName)) continue;
        this.leavingOutOverBudget(undefined, () => this.joinFrom(u, dirty));
      }
    }
  }

  /** One round of the join from module `u`: the handlers it registers elsewhere and the code elsewhere it reaches. */
  private joinFrom(u: Unit, dirty: Set<Unit>): void {
    const model = this.modelOf(u);
    // Handlers registered here but defined elsewhere.
    for (const ext of u.discovery.external) {
      const line = ext.site.loc.start.line;
      const via = `registered with ${ext.via} in ${this.rel(u.fileName)}:${line}`;
      for (const t of this.resolveImport(u, ext.source, ext.imported, ext.path)) {
        if (this.addRoot(t.unit, t.fn, { kind: ext.kind, name: ext.name, via, registered: true })) dirty.add(t.unit);
      }
    }
    // Functions elsewhere that handler code here calls, and the process-wide objects it hands them.
    for (const call of model.externalReach) {
      const via = `reached from ${describeHandler(call.ref)} (${this.rel(u.fileName)})`;
      const r = call.ref.registration;
      if (call.keyed) {
        for (const t of this.importedMapEntries(u, call.source, call.imported, call.path)) {
          if (this.addRoot(t.unit, t.fn, { kind: r.kind, name: call.ref.routedName ?? t.key, via, registered: false })) dirty.add(t.unit);
        }
        continue;
      }
      const handed = longLivedArguments(model, call.call);
      const given = toolArguments(model, call.call);
      for (const t of this.resolveImport(u, call.source, call.imported, call.path)) {
        if (this.addRoot(t.unit, t.fn, { kind: r.kind, name: call.ref.routedName ?? r.name, via, registered: false })) dirty.add(t.unit);
        for (const g of given) {
          if (this.addInput(t.unit, t.fn, { index: g.index, key: g.key, scope: g.scope, from: `${this.rel(u.fileName)}:${g.line}`, handler: describeHandler(call.ref) })) dirty.add(t.unit);
        }
        for (const h of handed) {
          const lp: LongLivedParam = { index: h.index, name: h.name, from: `${this.rel(u.fileName)}:${h.line}`, within: h.within, methods: (m) => this.methodsOf(u, h.arg, m) };
          if (this.addParam(t.unit, t.fn, lp)) dirty.add(t.unit);
        }
      }
    }
  }

  private rel(fileName: string): string {
    const dir = this.program.getCurrentDirectory();
    return path.relative(dir, fileName) || fileName;
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
    u.version++;
    return true;
  }

  /** The functions `arg.method(…)` runs, for an object `arg` of module `u` (a class of `u` or of an import). */
  private methodsOf(u: Unit, arg: TSESTree.Node, method: string): ImportTarget[] {
    const out: ImportTarget[] = [];
    for (const v of resolveValues(u.facts, arg)) {
      if (v.kind === 'instance') {
        for (const f of classMember(u.facts, v.node, method, false, new Set(), 0)) if (f.kind === 'function') out.push({ fileName: u.fileName, fn: f.node, model: () => this.modelOf(u) });
      } else if (v.kind === 'import') {
        append(out, this.importTargets(u.fileName, v.source, v.imported, [...v.path, method]));
      }
    }
    return out;
  }

  private readonly inputs = new Map<string, Map<number, InputParam[]>>();

  private addInput(u: Unit, fn: FunctionNode, p: InputParam): boolean {
    return this.addPerFunction(this.inputs, u, fn, p, (x) => x.index === p.index && x.key === p.key);
  }

  private addParam(u: Unit, fn: FunctionNode, p: LongLivedParam): boolean {
    return this.addPerFunction(this.params, u, fn, p, (x) => x.index === p.index);
  }

  /** Add a fact about a function of module `u` (by file and function start) unless `same` finds it there already. */
  private addPerFunction<T>(store: Map<string, Map<number, T[]>>, u: Unit, fn: FunctionNode, fact: T, same: (x: T) => boolean): boolean {
    let perFn = store.get(u.fileName);
    if (!perFn) {
      perFn = new Map();
      store.set(u.fileName, perFn);
    }
    const list = perFn.get(fn.range[0]) ?? [];
    if (list.some(same)) return false;
    perFn.set(fn.range[0], [...list, fact]);
    u.version++;
    return true;
  }

  private markLongLived(u: Unit, cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression): void {
    let set = this.longLived.get(u.fileName);
    if (!set) {
      set = new Set();
      this.longLived.set(u.fileName, set);
    }
    if (set.has(cls.range[0])) return;
    set.add(cls.range[0]);
    u.version++;
  }

  private resolutionCache: ts.ModuleResolutionCache | undefined;
  /** Resolved specifiers by importing directory and kind of module (`.mts`/`.cts` resolve in their own mode). */
  private readonly resolved = new Map<string, string | null>();

  private resolveModule(from: string, source: string): string | null {
    const key = `${path.dirname(from)}\0${/\.[mc][jt]s$/.test(from) ? path.extname(from) : ''}\0${source}`;
    let target = this.resolved.get(key);
    if (target === undefined) {
      target = this.resolveModuleUncached(from, source);
      this.resolved.set(key, target);
    }
    return target;
  }

  /** The bare import sources of a module that resolve to this program's own source files (workspace packages). */
  private projectSourcesOf(facts: ModuleFacts, fileName: string): ReadonlySet<string> {
    const out = new Set<string>();
    for (const { source } of facts.imports.values()) {
      if (isRelativeSource(source) || out.has(source) || source.startsWith('node:')) continue;
      const target = this.resolveModule(fileName, source);
      if (target) out.add(source);
    }
    return out;
  }

  private resolveModuleUncached(from: string, source: string): string | null {
    const tsApi = this.tsApi;
    if (tsApi) {
      // One resolution cache per server model: the modules of a server import from the same few directories.
      this.resolutionCache ??= tsApi.createModuleResolutionCache(this.program.getCurrentDirectory(), (f) => (tsApi.sys.useCaseSensitiveFileNames ? f : f.toLowerCase()), this.program.getCompilerOptions());
      const r = tsApi.resolveModuleName(source, from, this.program.getCompilerOptions(), tsApi.sys, this.resolutionCache);
      const f = r.resolvedModule?.resolvedFileName;
      if (f && !r.resolvedModule?.isExternalLibraryImport) return path.resolve(f);
      // A workspace package linked into node_modules whose real path is this program's own source (not a declaration).
      if (f && !f.includes(`${path.sep}node_modules${path.sep}`) && !/\.d\.[mc]?ts$/.test(f) && this.program.getSourceFile(f)) return path.resolve(f);
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

  /** The module an import comes from, what it exports under the imported name (`* as ns`: the path's first step), and the rest of the path. */
  private exportOf(from: string, source: string, imported: string, memberPath: string[]): { u: Unit; exported: ReturnType<ServerModel['exportValues']>; rest: string[] } | null {
    const target = this.resolveModule(from, source);
    const u = target ? this.unit(target) : null;
    if (!u) return null;
    if (imported !== '*') return { u, exported: this.exportValues(u, imported), rest: memberPath };
    if (memberPath.length === 0) return null;
    return { u, exported: this.exportValues(u, memberPath[0]), rest: memberPath.slice(1) };
  }

  /** The functions an import (with a member path) stands for in the module it comes from. */
  private resolveImport(from: Unit | string, source: string, imported: string, memberPath: string[], depth = 0): { unit: Unit; fn: FunctionNode }[] {
    if (depth > 8) return [];
    const found = this.exportOf(typeof from === 'string' ? from : from.fileName, source, imported, memberPath);
    if (!found) return [];
    const { u, exported, rest } = found;
    const out: { unit: Unit; fn: FunctionNode }[] = [];
    for (const f of exported.forwards) append(out, this.resolveImport(u, f.source, f.name, rest, depth + 1));
    for (const v of exported.values) {
      for (const fv of applyPath(u.facts, [v], rest, (cls) => this.markLongLived(u, cls))) {
        if (fv.kind === 'function') out.push({ unit: u, fn: fv.node });
        else if (fv.kind === 'import') append(out, this.resolveImport(u, fv.source, fv.imported, fv.path, depth + 1));
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

  /**
   * The functions of a map that another module exports (`export const FILE_TOOLS = { read_file: readFile, … }`), each
   * with its key: spread parts and values imported from further modules are followed.
   */
  private importedMapEntries(from: Unit, source: string, imported: string, memberPath: string[], depth = 0): { unit: Unit; fn: FunctionNode; key: string }[] {
    if (depth > 4) return [];
    const found = this.exportOf(from.fileName, source, imported, memberPath);
    if (!found) return [];
    const { u, exported, rest } = found;
    const out: { unit: Unit; fn: FunctionNode; key: string }[] = [];
    for (const f of exported.forwards) append(out, this.importedMapEntries(u, f.source, f.name, rest, depth + 1));
    const seen = new Set<Node>();
    const visit = (values: Value[], level: number): void => {
      for (const v of values) {
        if (v.kind === 'import') {
          if (u.facts.isProjectSource(v.source)) append(out, this.importedMapEntries(u, v.source, v.imported, v.path, depth + 1));
          continue;
        }
        if (v.kind !== 'object' || seen.has(v.node)) continue;
        seen.add(v.node);
        for (const p of v.node.properties) {
          if (p.type === AST_NODE_TYPES.SpreadElement) {
            if (level < 4) visit(resolveValues(u.facts, p.argument), level + 1);
            continue;
          }
          const key = propertyKeyName(p);
          if (key === null) continue;
          for (const fv of resolveValues(u.facts, p.value)) {
            if (fv.kind === 'function') out.push({ unit: u, fn: fv.node, key });
            else if (fv.kind === 'import' && u.facts.isProjectSource(fv.source)) for (const t of this.resolveImport(u, fv.source, fv.imported, fv.path, depth + 1)) out.push({ ...t, key });
          }
        }
      }
    };
    for (const v of exported.values) visit(applyPath(u.facts, [v], rest), 0);
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
          if ((d.type === AST_NODE_TYPES.FunctionDeclaration || d.type === AST_NODE_TYPES.ClassDeclaration) && d.id?.name === name) append(out, resolveValues(facts, d));
          if (d.type === AST_NODE_TYPES.VariableDeclaration) {
            for (const decl of d.declarations) {
              if (decl.id.type === AST_NODE_TYPES.Identifier && decl.id.name === name && decl.init) append(out, resolveValues(facts, decl.init));
            }
          }
        }
        for (const spec of st.specifiers) {
          const exported = spec.exported.type === AST_NODE_TYPES.Identifier ? spec.exported.name : String(spec.exported.value);
          if (exported !== name) continue;
          const localName = spec.local.type === AST_NODE_TYPES.Identifier ? spec.local.name : String(spec.local.value);
          if (st.source) forwards.push({ source: st.source.value, name: localName });
          else append(out, local(localName));
        }
      } else if (st.type === AST_NODE_TYPES.ExportDefaultDeclaration && name === 'default') {
        append(out, resolveValues(facts, st.declaration));
      } else if (st.type === AST_NODE_TYPES.ExportAllDeclaration && !st.exported) {
        forwards.push({ source: st.source.value, name });
      } else if (st.type === AST_NODE_TYPES.ExpressionStatement && st.expression.type === AST_NODE_TYPES.AssignmentExpression) {
        // CommonJS: exports.name = …, module.exports.name = …, module.exports = { name }
        const left = st.expression.left;
        const text = memberText(left);
        if (text === `exports.${name}` || text === `module.exports.${name}`) append(out, resolveValues(facts, st.expression.right));
        if (text === 'module.exports') {
          for (const v of resolveValues(facts, st.expression.right)) append(out, (name === 'default' ? [v] : propertyOf(facts, v, name, new Set(), 0)));
        }
      }
    }
    return { values: out, forwards };
  }
}

/**
 * The arguments of a call that are process-wide objects of the calling module: a module-level binding holding an
 * instance or a container (`startPortForward(k8sManager, input)`, `handle(name, args, state)`).
 */
function longLivedArguments(model: ModuleModel, call: TSESTree.Node): { index: number; name: string; line: number; arg: TSESTree.Node; within?: string }[] {
  if (call.type !== AST_NODE_TYPES.CallExpression) return [];
  const facts = model.facts;
  const out: { index: number; name: string; line: number; arg: TSESTree.Node; within?: string }[] = [];
  call.arguments.forEach((a, index) => {
    if (a.type !== AST_NODE_TYPES.Identifier) return;
    const v = facts.variableOf(a);
    const def = v?.defs[0];
    if (!v || def?.type !== 'Variable' || !(facts.isModuleLevel(v) || model.isFactoryBinding(v))) return;
    const init = (def.node as TSESTree.VariableDeclarator).init;
    const i = init ? unwrapExpression(init) : null;
    if (i && (i.type === AST_NODE_TYPES.NewExpression || i.type === AST_NODE_TYPES.ObjectExpression || i.type === AST_NODE_TYPES.ArrayExpression)) {
      const block = v.scope.variableScope.block as TSESTree.Node;
      const factory = facts.isModuleLevel(v) || !isFunction(block) ? null : functionDisplayName(block);
      out.push({ index, name: a.name, line: def.node.loc.start.line, arg: a, within: factory === null ? undefined : `\`${factory}()\`` });
    }
  });
  return out;
}

function unwrapExpression(n: TSESTree.Node): TSESTree.Node {
  let cur = n;
  while (cur.type === AST_NODE_TYPES.TSAsExpression || cur.type === AST_NODE_TYPES.TSSatisfiesExpression || cur.type === AST_NODE_TYPES.TSNonNullExpression) cur = cur.expression;
  return cur;
}

function memberText(node: TSESTree.Node): string | null {
  if (node.type === AST_NODE_TYPES.Identifier) return node.name;
  if (node.type === AST_NODE_TYPES.MemberExpression && !node.computed && node.property.type === AST_NODE_TYPES.Identifier) {
    const o = memberText(node.object);
    return o ? `${o}.${node.property.name}` : null;
  }
  return null;
}

/**
 * The arguments of a call in handler code that carry a tool argument with no sound containment guard on the way (as
 * the path analysis of the calling module traces them: through its helpers' parameters, `Schema.parse(args)`,
 * joins): what another module's function receives there is the caller's input. A guard's result is not.
 */
function toolArguments(model: ModuleModel, call: TSESTree.Node): { index: number; key: string | null; scope: boolean; line: number }[] {
  if (call.type !== AST_NODE_TYPES.CallExpression) return [];
  const out: { index: number; key: string | null; scope: boolean; line: number }[] = [];
  const paths = getPathAnalysis(model);
  call.arguments.forEach((a, index) => {
    if (a.type === AST_NODE_TYPES.SpreadElement) return;
    if (a.type === AST_NODE_TYPES.ObjectExpression) {
      // `listVariables({ workspacePath, service })`: each property for the parameter that destructures it.
      for (const p of a.properties) {
        if (p.type !== AST_NODE_TYPES.Property) continue;
        const key = propertyKeyName(p);
        const t = key !== null ? paths.trace(p.value, call) : null;
        if (t?.rawInput) out.push({ index, key, scope: t.tags.has('scope'), line: p.loc.start.line });
      }
      return;
    }
    const t = paths.trace(a, call);
    if (t.rawInput === null) return;
    out.push({ index, key: null, scope: t.tags.has('scope'), line: a.loc.start.line });
  });
  return out;
}

function applyPath(facts: ModuleFacts, values: Value[], steps: string[], onLongLived?: (cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression) => void): Value[] {
  let cur = values;
  for (const step of steps) {
    const next: Value[] = [];
    for (const v of cur) {
      if (step === '()') {
        if (v.kind === 'function') for (const r of returnedExpressions(v.node)) append(next, resolveValues(facts, r));
        else if (v.kind === 'import') next.push({ ...v, path: [...v.path, step] });
      } else if (step === 'new()' || step === 'new()!') {
        if (v.kind === 'class') {
          next.push({ kind: 'instance', node: v.node });
          if (step === 'new()!') onLongLived?.(v.node);
        } else if (v.kind === 'import') next.push({ ...v, path: [...v.path, step] });
      } else if (step === '[]') {
        // An element of an array, or any value of a map (`{ [tool.name]: run }` indexed by the tool name).
        if (v.kind === 'array') {
          for (const el of v.node.elements) if (el && el.type !== AST_NODE_TYPES.SpreadElement) append(next, resolveValues(facts, el));
        } else if (v.kind === 'object') {
          for (const p of v.node.properties) if (p.type === AST_NODE_TYPES.Property) append(next, resolveValues(facts, p.value));
        } else if (v.kind === 'import') next.push({ ...v, path: [...v.path, step] });
      } else if (v.kind === 'class' || v.kind === 'instance') {
        append(next, classMember(facts, v.node, step, v.kind === 'class', new Set(), 0));
      } else append(next, propertyOf(facts, v, step, new Set(), 0));
    }
    cur = next;
  }
  return cur;
}

function loadTypeScript(): typeof ts | null {
  try {
    return createRequire(import.meta.url)('typescript') as typeof ts;
  } catch {
    return null;
  }
}

/** One server model per TypeScript program and settings (WeakMap: collected with the program). */
const servers = new WeakMap<object, Map<string, ServerModel>>();

export function serverModelOf(program: ts.Program, settings: McpSettings, parser: ParserConversion | null = null, current: LintedFile | null = null): ServerModel {
  return cachedPer(servers, program, settingsKey(settings), () => new ServerModel(program, settings, parser, current));
}
