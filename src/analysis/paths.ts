import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { isFunction, isInside, memberName, staticString, unwrap, type FunctionNode, type Node } from './ast.js';
import type { ModuleModel } from './model.js';
import type { Variable } from './module.js';
import {
  fsCallOf,
  isGlobalRef,
  knownCallOrigin,
  moduleRef,
  objectLiteralOf,
  optionProperty,
  processCallOf,
  type FsCall,
  type FsEffect,
  type ModuleNames,
  type ProcessCall,
} from './processes.js';
import { enclosingClass, resolveValues, returnedExpressions } from './resolve.js';

/**
 * Where the parts of a path come from. Leaves of the ValueOrigins vocabulary plus:
 * - `random-call`: a random name or `mkdtemp` made while serving this call (unique per call);
 * - `random-startup`: the same made once at start-up (one name for every call);
 * - `unknown`: a part the module does not show (an imported helper's result): never treated as fixed.
 */
export type Tag =
  | 'input' | 'scope' | 'context' | 'session' | 'auth' | 'fresh' | 'const' | 'module' | 'env'
  | 'tmpdir' | 'cwd' | 'homedir' | 'time' | 'dirname' | 'random-call' | 'random-startup' | 'unknown';

export interface Trace {
  tags: Set<Tag>;
  /** A tool argument that reaches here with no sound containment guard on the way. */
  rawInput: Node | null;
  /** A guard on the way that looks right and is not. */
  unsound: { node: Node; reason: string } | null;
}

const PER_CALL: Tag[] = ['input', 'scope', 'context', 'session', 'auth', 'fresh', 'random-call'];

/** Nothing in the path depends on the call, and every part is known. */
export function isFixed(t: Trace): boolean {
  if (t.tags.size === 0 || t.tags.has('unknown')) return false;
  return !PER_CALL.some((p) => t.tags.has(p));
}

export function isPerCall(t: Trace): boolean {
  return PER_CALL.some((p) => t.tags.has(p));
}

/** Why a fixed path is the same for every caller, in the words reports use. */
export function fixedReason(t: Trace): string {
  if (t.tags.has('random-startup')) return 'its random part is made once at start-up';
  if (t.tags.has('time')) return 'a timestamp is not unique across concurrent callers';
  if (t.tags.has('tmpdir')) return 'it is under the shared system temp dir';
  if (t.tags.has('cwd')) return "it is under the server's working directory";
  if (t.tags.has('homedir')) return "it is under the server's home directory";
  if (t.tags.has('env')) return 'it comes from the environment read at start-up';
  if (t.tags.has('dirname')) return "it is next to the server's own source";
  return 'nothing in it depends on the call';
}

export interface PathOptions {
  /** Function names trusted as containment guards (their result, or a value passed to them, is contained). */
  guards: string[];
  /** Trust calls to imported functions named like a guard (`validatePath`) that the module cannot show. */
  trustImportedGuardNames: boolean;
  modules: ModuleNames;
}

export const DEFAULT_PATH_OPTIONS: PathOptions = { guards: [], trustImportedGuardNames: true, modules: { fs: [], process: [] } };

const GUARD_NAME = /valid|check|assert|ensure|guard|safe|verify|within|inside|allowed|contain|sanitiz|sanitis|confine/i;
const PATH_PASSTHROUGH = new Set(['join', 'resolve', 'normalize', 'relative', 'dirname', 'format', 'toNamespacedPath', 'parse']);
const STRING_PASSTHROUGH = new Set(['trim', 'trimStart', 'trimEnd', 'replace', 'replaceAll', 'toLowerCase', 'toUpperCase', 'slice', 'substring', 'substr', 'normalize', 'toString', 'concat', 'padStart', 'padEnd', 'valueOf']);
const DECODERS = new Set(['decodeURIComponent', 'decodeURI', 'unescape']);
const MAX_DEPTH = 40;

interface Ctx {
  depth: number;
  seen: Set<Node>;
  /** Parameters bound to the arguments of the call being followed. */
  env: Map<Variable, { expr: Node; pos: Node; env: Map<Variable, { expr: Node; pos: Node; env: unknown }> }>;
  /** Past a `decodeURIComponent`: guards further upstream checked the encoded value and do not count. */
  decoded: boolean;
}

type Bound = Ctx['env'] extends Map<Variable, infer B> ? B : never;

/** Steps one path trace may take; real paths take a few dozen. */
const TRACE_STEPS = 2_000;

function copyTrace(t: Trace): Trace {
  return { tags: new Set(t.tags), rawInput: t.rawInput, unsound: t.unsound };
}

function emptyTrace(): Trace {
  return { tags: new Set(), rawInput: null, unsound: null };
}

function merge(into: Trace, t: Trace): Trace {
  t.tags.forEach((x) => into.tags.add(x));
  into.rawInput ??= t.rawInput;
  into.unsound ??= t.unsound;
  return into;
}

function tag(...tags: Tag[]): Trace {
  return { tags: new Set(tags), rawInput: null, unsound: null };
}

type GuardVerdict = { sound: true } | { sound: false; reason: string; node: Node } | null;

/**
 * The path analysis of one module: where each filesystem path and working directory comes from, whether a tool argument
 * reaches it unguarded, and which guards look right and are not. Built per model and options, on first use.
 */
export class PathAnalysis {
  private readonly guardFns = new Map<FunctionNode, GuardVerdict>();
  readonly fsCalls: FsCall[] = [];
  readonly processCalls: ProcessCall[] = [];

  constructor(
    readonly model: ModuleModel,
    readonly options: PathOptions,
  ) {
    // A module where nothing serves a call has no path a caller controls: skip classifying its calls.
    if (model.reached.size === 0) return;
    for (const call of model.facts.allCalls) {
      const fsc = fsCallOf(model.facts, call, options.modules);
      if (fsc) {
        this.fsCalls.push(fsc);
        continue;
      }
      const pc = processCallOf(model.facts, call, options.modules);
      if (pc) this.processCalls.push(pc);
    }
  }

  private readonly traces = new Map<Node, Map<Node, Trace>>();
  /** Steps left in the trace being computed: past them every part is unknown (never reported as fixed or raw). */
  private stepsLeft = 0;

  /** Trace a path expression used at `pos` (the call that uses it). Memoised per expression and position. */
  trace(expr: Node, pos: Node = expr): Trace {
    let perPos = this.traces.get(expr);
    const known = perPos?.get(pos);
    if (known) return copyTrace(known);
    this.stepsLeft = TRACE_STEPS;
    const t = this.walk(expr, pos, { depth: 0, seen: new Set(), env: new Map(), decoded: false });
    if (!perPos) {
      perPos = new Map();
      this.traces.set(expr, perPos);
    }
    perPos.set(pos, copyTrace(t));
    return t;
  }

  private walk(expr: Node, pos: Node, ctx: Ctx): Trace {
    if (ctx.depth > MAX_DEPTH || ctx.seen.has(expr) || this.stepsLeft <= 0) return tag('unknown');
    this.stepsLeft--;
    this.model.facts.budget.tick('path traces');
    const n = unwrap(expr);
    const next: Ctx = { ...ctx, depth: ctx.depth + 1, seen: new Set([...ctx.seen, expr]) };
    switch (n.type) {
      case AST_NODE_TYPES.Literal:
        return typeof n.value === 'string' && /^\/tmp(\/|$)/.test(n.value) ? tag('const', 'tmpdir') : tag('const');
      case AST_NODE_TYPES.TemplateLiteral: {
        if (/^\/tmp(\/|$)/.test(n.quasis[0].value.cooked ?? '')) {
          const t = tag('const', 'tmpdir');
          for (const e of n.expressions) merge(t, this.walk(e, pos, next));
          return t;
        }
        const t = tag('const');
        for (const e of n.expressions) merge(t, this.walk(e, pos, next));
        return t;
      }
      case AST_NODE_TYPES.BinaryExpression:
        if (n.operator !== '+') return tag('const');
        return merge(this.walk(n.left, pos, next), this.walk(n.right, pos, next));
      case AST_NODE_TYPES.LogicalExpression:
        return merge(this.walk(n.left, pos, next), this.walk(n.right, pos, next));
      case AST_NODE_TYPES.ConditionalExpression:
        return merge(this.walk(n.consequent, n.consequent, next), this.walk(n.alternate, n.alternate, next));
      case AST_NODE_TYPES.Identifier:
        return this.identifier(n, pos, next);
      case AST_NODE_TYPES.MemberExpression:
        return this.member(n, pos, next);
      case AST_NODE_TYPES.CallExpression:
        return this.call(n, pos, next);
      case AST_NODE_TYPES.NewExpression: {
        const k = knownCallOrigin(this.model.facts, n);
        if (k === 'time') return tag('time');
        const c = unwrap(n.callee);
        if (c.type === AST_NODE_TYPES.Identifier && c.name === 'URL' && n.arguments[0]) return this.walk(n.arguments[0], pos, next);
        return tag('unknown');
      }
      case AST_NODE_TYPES.ArrayExpression: {
        const t = emptyTrace();
        for (const e of n.elements) if (e) merge(t, this.walk(e.type === AST_NODE_TYPES.SpreadElement ? e.argument : e, pos, next));
        return t;
      }
      default:
        return tag('unknown');
    }
  }

  private identifier(id: TSESTree.Identifier, pos: Node, ctx: Ctx): Trace {
    const facts = this.model.facts;
    const v = facts.variableOf(id);
    if (!v || v.defs.length === 0) {
      if (id.name === '__dirname' || id.name === '__filename') return tag('dirname');
      if (id.name === 'undefined') return tag('const');
      return tag('unknown');
    }
    const bound = ctx.env.get(v);
    if (bound) return this.walk(bound.expr, bound.pos, { ...ctx, env: bound.env as Ctx['env'] });
    const def = v.defs[0];
    if (!def) return tag('unknown');
    if (def.type === 'ImportBinding') return tag('module');
    if (def.type === 'FunctionName' || def.type === 'ClassName') return tag('unknown');
    const startup = !this.model.isHandlerCode(def.name) && !this.writtenInHandler(v) && (def.type === 'Variable' || def.type === 'Parameter');
    if (startup) {
      // Fixed for the life of the process (or the server instance): what it was made from only says why.
      const inner = def.type === 'Variable' ? this.variableInit(v, pos, ctx) : emptyTrace();
      const t = tag('module');
      inner.tags.forEach((x) => {
        if (x === 'random-call') t.tags.add('random-startup');
        else if (x !== 'unknown' && !PER_CALL.includes(x)) t.tags.add(x);
      });
      return t;
    }
    const guard = this.guardOn(v, pos);
    let t: Trace;
    if (def.type === 'Parameter') t = this.parameter(v, def.node as FunctionNode, id, ctx);
    else if (def.type === 'Variable') t = this.variableInit(v, pos, ctx);
    else t = tag('unknown');
    if (!t.rawInput || !guard) return t;
    if (guard.sound && ctx.decoded) return { tags: t.tags, rawInput: t.rawInput, unsound: { node: id, reason: 'the check runs before decodeURIComponent, so an encoded `..%2F` passes it' } };
    if (guard.sound) return { tags: t.tags, rawInput: null, unsound: null };
    return { tags: t.tags, rawInput: t.rawInput, unsound: t.unsound ?? { node: guard.node, reason: guard.reason } };
  }

  private writtenInHandler(v: Variable): boolean {
    return v.references.some((r) => r.isWrite() && !r.init && this.model.isHandlerCode(r.identifier));
  }

  private variableInit(v: Variable, pos: Node, ctx: Ctx): Trace {
    const def = v.defs[0];
    const decl = def.node as TSESTree.VariableDeclarator;
    const t = emptyTrace();
    if (decl.init) {
      merge(t, this.walk(decl.init, decl.init, ctx));
      if (decl.id.type !== AST_NODE_TYPES.Identifier) {
        const o = this.model.origins.variable(v);
        if (o.has('scope')) t.tags.add('scope');
      }
    } else {
      const loop = decl.parent?.parent;
      if (loop && (loop.type === AST_NODE_TYPES.ForOfStatement || loop.type === AST_NODE_TYPES.ForInStatement)) merge(t, this.walk(loop.right, loop.right, ctx));
    }
    for (const ref of v.references) {
      if (ref.isWrite() && !ref.init && ref.writeExpr && ref.identifier.range[0] < pos.range[0]) merge(t, this.walk(ref.writeExpr, ref.writeExpr, ctx));
    }
    if (t.tags.size === 0) t.tags.add('unknown');
    return t;
  }

  private parameter(v: Variable, fn: FunctionNode, id: TSESTree.Identifier, ctx: Ctx): Trace {
    const reg = this.model.discovery.handlerRegistration(fn);
    if (reg) {
      const o = this.model.origins.variable(v);
      const t = emptyTrace();
      o.forEach((x) => {
        if (x === 'input' || x === 'scope' || x === 'context' || x === 'session' || x === 'auth') t.tags.add(x);
      });
      if (t.tags.has('input') || t.tags.has('scope')) t.rawInput = id;
      if (t.tags.size === 0) t.tags.add('unknown');
      return t;
    }
    // A same-file helper: whatever its call sites pass.
    const index = fn.params.findIndex((p) => paramBinds(p, v.name));
    const sites = index >= 0 ? this.model.callSitesOf(fn) : [];
    if (sites.length === 0) return tag('unknown');
    const t = emptyTrace();
    for (const site of sites) {
      const arg = site.arguments[index];
      if (!arg || arg.type === AST_NODE_TYPES.SpreadElement) {
        const p = fn.params[index];
        if (p && p.type === AST_NODE_TYPES.AssignmentPattern) merge(t, this.walk(p.right, p.right, ctx));
        else t.tags.add('unknown');
        continue;
      }
      const target = fn.params[index];
      let expr: Node = arg;
      // function f({ dir }) called as f({ dir: x }): follow the property.
      if (target.type === AST_NODE_TYPES.ObjectPattern) {
        const obj = objectLiteralOf(this.model.facts, arg);
        const key = destructuredKey(target, v.name);
        const prop = obj && key ? optionProperty(obj, key) : null;
        if (prop) expr = prop.value;
        else if (obj) {
          t.tags.add('unknown');
          continue;
        }
      }
      merge(t, this.walk(expr, site, ctx));
    }
    return t;
  }

  private member(m: TSESTree.MemberExpression, pos: Node, ctx: Ctx): Trace {
    const facts = this.model.facts;
    const name = memberName(m);
    const obj = unwrap(m.object);
    if (obj.type === AST_NODE_TYPES.MetaProperty) return name === 'dirname' || name === 'filename' || name === 'url' ? tag('dirname') : tag('unknown');
    if (obj.type === AST_NODE_TYPES.MemberExpression && name && memberName(obj) === 'env') {
      const root = unwrap(obj.object);
      if (root.type === AST_NODE_TYPES.Identifier && root.name === 'process' && isGlobalRef(facts, root)) {
        if (name === 'HOME' || name === 'USERPROFILE') return tag('env', 'homedir');
        if (name === 'TMPDIR' || name === 'TEMP' || name === 'TMP') return tag('env', 'tmpdir');
        return tag('env');
      }
    }
    if (obj.type === AST_NODE_TYPES.ThisExpression) {
      const cls = enclosingClass(m);
      if (cls && this.model.classLifetime(cls) && name && !this.thisFieldWrittenInHandler(cls, name)) {
        // Fixed for the instance's life; what the field was set from only says why (a start-up mkdtemp…).
        const t = tag('module');
        for (const a of this.model.facts.assignments) {
          const l = unwrap(a.left);
          if (l.type !== AST_NODE_TYPES.MemberExpression || unwrap(l.object).type !== AST_NODE_TYPES.ThisExpression || memberName(l) !== name || !isInside(a, cls) || ctx.seen.has(a)) continue;
          this.walk(a.right, a.right, { ...ctx, seen: new Set([...ctx.seen, a]) }).tags.forEach((x) => {
            if (x === 'random-call' || x === 'random-startup') t.tags.add('random-startup');
            else if (x !== 'unknown' && !PER_CALL.includes(x)) t.tags.add(x);
          });
        }
        return t;
      }
      return tag('unknown');
    }
    const ref = moduleRef(facts, m, this.options.modules);
    if (ref) return tag('module');
    const base = this.walk(m.object, pos, ctx);
    if (name === null && !m.computed) return base;
    if (name === null) {
      // A lookup into a fixed table by a caller's key is not a path the caller built.
      if (!isPerCall(base)) return { tags: new Set([...base.tags]), rawInput: null, unsound: base.unsound };
      return merge(base, this.walk(m.property, pos, ctx));
    }
    if (this.model.settings.scopeArguments.includes(name) && (base.tags.has('input') || base.tags.has('scope'))) base.tags.add('scope');
    if (name === 'length') return { tags: new Set(['const']), rawInput: null, unsound: null };
    return base;
  }

  private thisFieldWrittenInHandler(cls: Node, name: string): boolean {
    for (const a of this.model.facts.assignments) {
      const l = unwrap(a.left);
      if (l.type === AST_NODE_TYPES.MemberExpression && unwrap(l.object).type === AST_NODE_TYPES.ThisExpression && memberName(l) === name && isInside(a, cls) && this.model.isHandlerCode(a)) {
        return true;
      }
    }
    return false;
  }

  private call(c: TSESTree.CallExpression, pos: Node, ctx: Ctx): Trace {
    const facts = this.model.facts;
    const known = knownCallOrigin(facts, c);
    if (known === 'random') return tag(this.model.isHandlerCode(c) ? 'random-call' : 'random-startup');
    if (known) return tag(known);
    const callee = unwrap(c.callee);
    const args = c.arguments.filter((a): a is TSESTree.Expression => a.type !== AST_NODE_TYPES.SpreadElement);
    const ref = moduleRef(facts, callee, this.options.modules);
    if (ref) {
      const last = ref.path[ref.path.length - 1];
      if (ref.module === 'path' && PATH_PASSTHROUGH.has(last)) return this.union(args, pos, ctx);
      if (ref.module === 'path' && (last === 'basename' || last === 'extname')) {
        // basename() cannot name anything outside the directory it is joined to.
        const t = this.union(args.slice(0, 1), pos, ctx);
        return { tags: t.tags, rawInput: null, unsound: t.unsound };
      }
      if (ref.module === 'fs' && (last === 'realpath' || last === 'realpathSync')) return this.union(args.slice(0, 1), pos, ctx);
      if (ref.module === 'util' || ref.module === 'path') return this.union(args, pos, ctx);
      if ((ref.path.join('.') === 'fileURLToPath' || last === 'fileURLToPath') && args[0]) return this.walk(args[0], pos, ctx);
      return tag('unknown');
    }
    if (callee.type === AST_NODE_TYPES.Identifier && isGlobalRef(facts, callee)) {
      if (DECODERS.has(callee.name) && args[0]) return this.walk(args[0], pos, { ...ctx, decoded: true });
      if (callee.name === 'String' && args[0]) return this.walk(args[0], pos, ctx);
    }
    if (callee.type === AST_NODE_TYPES.MemberExpression) {
      const m = memberName(callee);
      if (m && STRING_PASSTHROUGH.has(m)) {
        const t = this.walk(callee.object, pos, ctx);
        if (m === 'replace' || m === 'replaceAll' || m === 'concat' || m === 'padStart' || m === 'padEnd') for (const a of args.slice(m === 'concat' ? 0 : 1)) merge(t, this.walk(a, pos, ctx));
        return t;
      }
      if (m === 'join' && unwrap(callee.object).type === AST_NODE_TYPES.ArrayExpression) return this.walk(callee.object, pos, ctx);
      // Schema validation (`Schema.parse(args)`, `safeParse(args).data`) checks shapes, not where a path points.
      if (m && /^(safeParse|parse)(Async)?$/.test(m) && args[0] && !moduleRef(facts, callee.object, this.options.modules)) return this.walk(args[0], pos, ctx);
    }
    const name = callee.type === AST_NODE_TYPES.Identifier ? callee.name : callee.type === AST_NODE_TYPES.MemberExpression ? memberName(callee) : null;
    const fns = resolveValues(facts, callee).flatMap((v) => (v.kind === 'function' ? [v.node] : []));
    if (name && this.options.guards.includes(name)) {
      const t = this.union(args, pos, ctx);
      return { tags: t.tags, rawInput: null, unsound: null };
    }
    if (fns.length === 0) {
      // An imported or unknown function: its result is not followed.
      const t = tag('unknown');
      const a = this.union(args, pos, ctx);
      a.tags.forEach((x) => (PER_CALL.includes(x) ? t.tags.add(x) : undefined));
      return t;
    }
    const out = emptyTrace();
    for (const fn of fns) {
      const g = this.guardFunction(fn);
      const env = new Map(ctx.env);
      fn.params.forEach((p, i) => {
        const target = p.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p;
        if (target.type !== AST_NODE_TYPES.Identifier) return;
        const v = this.model.facts.scopeOf(fn).set.get(target.name);
        const arg = args[i] ?? (p.type === AST_NODE_TYPES.AssignmentPattern ? p.right : null);
        if (v && arg) env.set(v as Variable, { expr: arg, pos: c, env: ctx.env } as Bound);
      });
      const returns = returnedExpressions(fn).filter((r) => !isGuardResultLiteral(r));
      const t = emptyTrace();
      for (const r of returns) merge(t, this.walk(r, r, { ...ctx, env }));
      if (returns.length === 0) t.tags.add('unknown');
      if (g && g.sound) {
        t.rawInput = null;
        t.unsound = null;
      } else if (g && !g.sound && t.rawInput) t.unsound ??= { node: g.node, reason: g.reason };
      merge(out, t);
    }
    return out;
  }

  private union(args: Node[], pos: Node, ctx: Ctx): Trace {
    const t = emptyTrace();
    for (const a of args) merge(t, this.walk(a, pos, ctx));
    if (args.length === 0) t.tags.add('unknown');
    return t;
  }

  // ---------------------------------------------------------------- guards

  /**
   * A containment check on `v` that protects its use at `pos`: an `if` before `pos` that rejects (throws/returns) when
   * the check says "outside", an `if`/ternary/`&&` whose checked branch contains `pos`, or a guard function called on
   * `v` as a statement before `pos`. Also checks on values derived from `v` (`path.relative(root, v)`, `realpath(v)`).
   */
  guardOn(v: Variable, pos: Node): GuardVerdict {
    let unsound: GuardVerdict = null;
    for (const { variable, relative } of this.derived(v)) {
      for (const ref of variable.references) {
        const r = ref.identifier as TSESTree.Identifier;
        if (r === pos || isInside(pos, r)) continue;
        const check = this.checkAt(r, relative);
        if (!check) continue;
        if (!this.protects(check.node, check.insideWhenTrue, pos)) continue;
        if (check.verdict.sound) {
          if (!relative && check.kind === 'startsWith' && !this.normalised(variable)) {
            unsound ??= { sound: false, reason: 'the path is checked before `..` segments are resolved (no path.resolve/realpath first)', node: check.node };
            continue;
          }
          return { sound: true };
        }
        unsound ??= check.verdict;
      }
    }
    return unsound;
  }

  /** `v` and the variables holding `path.relative(root, v)` / `realpath(v)` / `path.resolve(v)`. */
  private derived(v: Variable): { variable: Variable; relative: boolean }[] {
    const out = [{ variable: v, relative: false }];
    for (const ref of v.references) {
      let n: Node = ref.identifier;
      let p = n.parent;
      if (!p || p.type !== AST_NODE_TYPES.CallExpression) continue;
      const ref2 = moduleRef(this.model.facts, p.callee, this.options.modules);
      if (!ref2) continue;
      const last = ref2.path[ref2.path.length - 1];
      const relative = ref2.module === 'path' && last === 'relative' && p.arguments[1] === n;
      const resolving = (ref2.module === 'path' && (last === 'resolve' || last === 'normalize')) || (ref2.module === 'fs' && /^realpath/.test(last));
      if (!relative && !resolving) continue;
      n = p;
      while (n.parent && (n.parent.type === AST_NODE_TYPES.AwaitExpression || n.parent.type === AST_NODE_TYPES.TSAsExpression)) n = n.parent;
      const decl = n.parent;
      if (decl && decl.type === AST_NODE_TYPES.VariableDeclarator && decl.init === n && decl.id.type === AST_NODE_TYPES.Identifier) {
        const dv = this.model.facts.variableOf(decl.id);
        if (dv && dv !== v) out.push({ variable: dv, relative });
      }
    }
    return out;
  }

  /** Whether `v`'s value went through path.resolve/normalize/join/realpath (so `..` is gone). */
  private normalised(v: Variable): boolean {
    const def = v.defs[0];
    if (!def) return false;
    if (def.type === 'Variable') {
      const init = (def.node as TSESTree.VariableDeclarator).init;
      return !!init && this.normalisingExpr(init, 0);
    }
    return false;
  }

  private normalisingExpr(e: Node, depth: number): boolean {
    if (depth > 4) return false;
    const n = unwrap(e);
    if (n.type === AST_NODE_TYPES.CallExpression) {
      const ref = moduleRef(this.model.facts, n.callee, this.options.modules);
      if (ref) {
        const last = ref.path[ref.path.length - 1];
        return (ref.module === 'path' && ['resolve', 'normalize', 'join'].includes(last)) || (ref.module === 'fs' && /^realpath/.test(last));
      }
      const fns = resolveValues(this.model.facts, n.callee).flatMap((v) => (v.kind === 'function' ? [v.node] : []));
      if (fns.length) return fns.every((fn) => returnedExpressions(fn).some((r) => this.normalisingExpr(r, depth + 1)));
      const name = n.callee.type === AST_NODE_TYPES.Identifier ? n.callee.name : n.callee.type === AST_NODE_TYPES.MemberExpression ? memberName(n.callee) : null;
      return !!name && (this.options.guards.includes(name) || /resolve|normali[sz]e|realpath|canonical/i.test(name));
    }
    if (n.type === AST_NODE_TYPES.Identifier) {
      const v = this.model.facts.variableOf(n);
      const def = v?.defs[0];
      if (def?.type === 'Variable') {
        const init = (def.node as TSESTree.VariableDeclarator).init;
        return !!init && this.normalisingExpr(init, depth + 1);
      }
    }
    if (n.type === AST_NODE_TYPES.ConditionalExpression) return this.normalisingExpr(n.consequent, depth + 1) && this.normalisingExpr(n.alternate, depth + 1);
    return false;
  }

  /**
   * The check a reference takes part in, if any: `r.startsWith(root + sep)` (true = inside), `rel.startsWith('..')`
   * (true = outside), `path.isAbsolute(rel)`, `RE.test(r)` with a name allow-list, `guard(r)`.
   */
  private checkAt(r: TSESTree.Identifier, relative: boolean): { node: Node; insideWhenTrue: boolean; verdict: GuardVerdict & object; kind: string } | null {
    const facts = this.model.facts;
    const p = r.parent;
    if (!p) return null;
    // r.startsWith(x)
    if (p.type === AST_NODE_TYPES.MemberExpression && p.object === r && p.parent?.type === AST_NODE_TYPES.CallExpression && p.parent.callee === p) {
      const m = memberName(p);
      const call = p.parent;
      if (m === 'startsWith' && call.arguments[0]) {
        const arg = call.arguments[0];
        if (relative) {
          const s = staticString(arg);
          if (s !== null && s.startsWith('..')) return { node: call, insideWhenTrue: false, verdict: { sound: true }, kind: 'relative' };
          return null;
        }
        if (staticString(arg) !== null && !/[\\/]$/.test(staticString(arg)!)) return null; // startsWith('~') etc.: not a containment check
        const sound = this.endsWithSeparator(arg, 0);
        return {
          node: call,
          insideWhenTrue: true,
          kind: 'startsWith',
          verdict: sound ? { sound: true } : { sound: false, node: call, reason: 'startsWith(root) without a trailing separator also accepts a sibling (`/runs/a` vs `/runs/ab`)' },
        };
      }
      if (relative && (m === 'includes' || m === 'split') ) {
        const s = staticString(call.arguments[0]);
        if (m === 'includes' && s === '..') return { node: call, insideWhenTrue: false, verdict: { sound: true }, kind: 'relative' };
      }
      return null;
    }
    if (p.type === AST_NODE_TYPES.CallExpression && p.arguments.includes(r)) {
      const callee = unwrap(p.callee);
      const ref = moduleRef(facts, callee, this.options.modules);
      if (relative && ref && ref.module === 'path' && ref.path[ref.path.length - 1] === 'isAbsolute') {
        return { node: p, insideWhenTrue: false, verdict: { sound: true }, kind: 'relative' };
      }
      // /^[\w-]+$/.test(r): a name allow-list that cannot spell `..` or a separator.
      if (callee.type === AST_NODE_TYPES.MemberExpression && memberName(callee) === 'test') {
        const re = this.regexOf(callee.object);
        if (re) {
          const probes = ['..', '.', '', 'a/b', '../x', 'a\\b', '/etc'];
          const escapes = probes.filter((s) => re.test(s));
          return escapes.length === 0
            ? { node: p, insideWhenTrue: true, verdict: { sound: true }, kind: 'allowlist' }
            : { node: p, insideWhenTrue: true, verdict: { sound: false, node: p, reason: `the allow-list pattern also accepts ${JSON.stringify(escapes[0])}` }, kind: 'allowlist' };
        }
        return null;
      }
      const name = callee.type === AST_NODE_TYPES.Identifier ? callee.name : callee.type === AST_NODE_TYPES.MemberExpression ? memberName(callee) : null;
      if (!name || ref) return null;
      if (this.options.guards.includes(name)) return { node: p, insideWhenTrue: true, verdict: { sound: true }, kind: 'guard' };
      const fns = resolveValues(facts, callee).flatMap((v) => (v.kind === 'function' ? [v.node] : []));
      if (fns.length) {
        const verdicts = fns.map((f) => this.guardFunction(f));
        const bad = verdicts.find((x) => x && !x.sound);
        if (bad) return { node: p, insideWhenTrue: true, verdict: bad, kind: 'guard' };
        if (verdicts.every((x) => x && x.sound)) return { node: p, insideWhenTrue: true, verdict: { sound: true }, kind: 'guard' };
        return null;
      }
      if (this.options.trustImportedGuardNames && GUARD_NAME.test(name)) return { node: p, insideWhenTrue: true, verdict: { sound: true }, kind: 'guard' };
    }
    return null;
  }

  private regexOf(e: Node): RegExp | null {
    const n = unwrap(e);
    if (n.type === AST_NODE_TYPES.Literal && 'regex' in n && n.regex) {
      try {
        return new RegExp(n.regex.pattern, n.regex.flags.replace(/[gy]/g, ''));
      } catch {
        return null;
      }
    }
    if (n.type === AST_NODE_TYPES.Identifier) {
      const v = this.model.facts.variableOf(n);
      const def = v?.defs[0];
      if (def?.type === 'Variable') {
        const init = (def.node as TSESTree.VariableDeclarator).init;
        return init ? this.regexOf(init) : null;
      }
    }
    return null;
  }

  private endsWithSeparator(arg: Node, depth: number): boolean {
    if (depth > 4) return false;
    const n = unwrap(arg);
    const s = staticString(n);
    if (s !== null) return /[\\/]$/.test(s);
    if (this.isSep(n)) return true;
    if (n.type === AST_NODE_TYPES.BinaryExpression && n.operator === '+') return this.endsWithSeparator(n.right, depth + 1);
    if (n.type === AST_NODE_TYPES.TemplateLiteral) {
      const tail = n.quasis[n.quasis.length - 1].value.cooked ?? '';
      if (tail) return /[\\/]$/.test(tail);
      const last = n.expressions[n.expressions.length - 1];
      return !!last && this.endsWithSeparator(last, depth + 1);
    }
    if (n.type === AST_NODE_TYPES.ConditionalExpression) return this.endsWithSeparator(n.consequent, depth + 1) || this.endsWithSeparator(n.alternate, depth + 1);
    if (n.type === AST_NODE_TYPES.Identifier) {
      const v = this.model.facts.variableOf(n);
      const def = v?.defs[0];
      if (def?.type === 'Variable') {
        const init = (def.node as TSESTree.VariableDeclarator).init;
        if (init && this.endsWithSeparator(init, depth + 1)) return true;
      }
      // root = root.endsWith(sep) ? root : root + sep
      return !!v && v.references.some((ref) => ref.isWrite() && ref.writeExpr && !ref.init && this.endsWithSeparator(ref.writeExpr, depth + 1));
    }
    if (n.type === AST_NODE_TYPES.CallExpression) {
      const ref = moduleRef(this.model.facts, n.callee, this.options.modules);
      if (ref && ref.module === 'path' && ref.path[ref.path.length - 1] === 'join') {
        const lastArg = n.arguments[n.arguments.length - 1];
        return !!lastArg && this.isSep(lastArg);
      }
    }
    return false;
  }

  private isSep(n: Node): boolean {
    const u = unwrap(n);
    if (u.type === AST_NODE_TYPES.MemberExpression && memberName(u) === 'sep') {
      const ref = moduleRef(this.model.facts, u.object, this.options.modules);
      return !!ref && ref.module === 'path';
    }
    if (u.type === AST_NODE_TYPES.Identifier) {
      const ref = moduleRef(this.model.facts, u, this.options.modules);
      return !!ref && ref.module === 'path' && ref.path[ref.path.length - 1] === 'sep';
    }
    return false;
  }

  /**
   * Does a check at `check` protect the use at `pos`? Yes when `pos` is in the branch the check lets through
   * (`if (inside) { use }`, `inside ? use : …`, `inside && use`), or when an earlier `if` rejects the outside case and
   * leaves (throw/return/continue).
   */
  private protects(check: Node, insideWhenTrue: boolean, pos: Node): boolean {
    let inside = insideWhenTrue;
    let n: Node = check;
    let p = n.parent;
    while (p) {
      if (p.type === AST_NODE_TYPES.UnaryExpression && p.operator === '!') inside = !inside;
      else if (p.type === AST_NODE_TYPES.BinaryExpression && (p.operator === '===' || p.operator === '==' || p.operator === '!==' || p.operator === '!=')) {
        const other = p.left === n ? p.right : p.left;
        const o = unwrap(other);
        if (o.type === AST_NODE_TYPES.Literal && typeof o.value === 'boolean') {
          if ((o.value === false) !== (p.operator === '!==' || p.operator === '!=')) inside = !inside;
        } else return false;
      } else if (p.type === AST_NODE_TYPES.LogicalExpression) {
        if (p.left === n && p.operator === '&&' && inside && isInside(pos, p.right)) return true;
        if (p.left === n && p.operator === '||' && !inside && isInside(pos, p.right)) return true;
      } else if (p.type === AST_NODE_TYPES.IfStatement && p.test === n) {
        if (isInside(pos, p.consequent)) return inside;
        if (p.alternate && isInside(pos, p.alternate)) return !inside;
        if (!inside && exits(p.consequent) && pos.range[0] > p.range[1] && sameOrEnclosingBlock(p, pos)) return true;
        return false;
      } else if (p.type === AST_NODE_TYPES.ConditionalExpression && p.test === n) {
        if (isInside(pos, p.consequent)) return inside;
        if (isInside(pos, p.alternate)) return !inside;
        return false;
      } else if (p.type === AST_NODE_TYPES.ExpressionStatement || (p.type === AST_NODE_TYPES.AwaitExpression && p.parent?.type === AST_NODE_TYPES.ExpressionStatement)) {
        // assertInside(root, p); — a guard called for its throw.
        const stmt = p.type === AST_NODE_TYPES.ExpressionStatement ? p : (p.parent as TSESTree.ExpressionStatement);
        return check.type === AST_NODE_TYPES.CallExpression && unwrap(stmt.expression) === check && pos.range[0] > stmt.range[1] && sameOrEnclosingBlock(stmt, pos);
      } else if (p.type === AST_NODE_TYPES.ReturnStatement || isFunction(p) || p.type === AST_NODE_TYPES.BlockStatement) {
        return false;
      } else if (p.type === AST_NODE_TYPES.CallExpression && p.callee.type === AST_NODE_TYPES.MemberExpression && ['some', 'every', 'find', 'filter'].includes(memberName(p.callee) ?? '')) {
        // dirs.some(d => p.startsWith(d + sep)): the check of one element stands for the whole test.
      } else if (p.type === AST_NODE_TYPES.AwaitExpression || p.type === AST_NODE_TYPES.TSAsExpression || p.type === AST_NODE_TYPES.TSNonNullExpression || p.type === AST_NODE_TYPES.ChainExpression) {
        // transparent
      } else if (p.type === AST_NODE_TYPES.VariableDeclarator && p.init === n && p.id.type === AST_NODE_TYPES.Identifier) {
        // const ok = check; if (!ok) throw … — follow the flag.
        const fv = this.model.facts.variableOf(p.id);
        if (!fv) return false;
        return fv.references.some((ref) => !ref.init && this.protects(ref.identifier, inside, pos));
      }
      n = p;
      p = p.parent;
    }
    return false;
  }

  /**
   * A same-file function the analysis can see reject an escape: it holds a sound check on something derived from its
   * parameters and throws/returns on the outside case (or returns the check). Unsound when its only checks look right
   * and are not, or when it lets everything through while its allow-list is empty (fail-open). Null: not a guard.
   */
  guardFunction(fn: FunctionNode): GuardVerdict {
    if (this.guardFns.has(fn)) return this.guardFns.get(fn)!;
    this.guardFns.set(fn, null);
    const verdict = this.computeGuardFunction(fn);
    this.guardFns.set(fn, verdict);
    return verdict;
  }

  private computeGuardFunction(fn: FunctionNode): GuardVerdict {
    const facts = this.model.facts;
    let sound = false;
    let unsound: GuardVerdict = null;
    for (const call of facts.allCalls) {
      if (call.type !== AST_NODE_TYPES.CallExpression || !isInside(call, fn) || call === fn.parent) continue;
      const callee = unwrap(call.callee);
      if (callee.type !== AST_NODE_TYPES.MemberExpression) continue;
      const m = memberName(callee);
      if (m === 'startsWith' && call.arguments[0]) {
        const obj = unwrap(callee.object);
        const arg0 = staticString(call.arguments[0]);
        if (arg0 !== null) {
          if (arg0.startsWith('..') && this.isRelativeValue(obj)) sound = true;
          continue;
        }
        if (this.endsWithSeparator(call.arguments[0], 0)) {
          if (obj.type === AST_NODE_TYPES.Identifier) {
            const v = facts.variableOf(obj);
            if (v && !this.normalised(v) && v.defs[0]?.type !== 'Parameter') {
              unsound ??= { sound: false, node: call, reason: 'the path is checked before `..` segments are resolved (no path.resolve/realpath first)' };
              continue;
            }
          }
          sound = true;
        } else unsound ??= { sound: false, node: call, reason: 'startsWith(root) without a trailing separator also accepts a sibling (`/runs/a` vs `/runs/ab`)' };
      }
      if (m === 'test') {
        const re = this.regexOf(callee.object);
        if (re) {
          const escapes = ['..', '.', '', 'a/b', '../x', 'a\\b', '/etc'].filter((s) => re.test(s));
          if (escapes.length === 0) sound = true;
        }
      }
    }
    if (!sound && !unsound) return null;
    if (!sound) return unsound;
    const failOpen = this.failOpen(fn);
    if (failOpen) return { sound: false, node: failOpen, reason: 'it lets every path through when its allow-list is empty (fail-open)' };
    return { sound: true };
  }

  private isRelativeValue(n: Node): boolean {
    const u = unwrap(n);
    if (u.type === AST_NODE_TYPES.CallExpression) {
      const ref = moduleRef(this.model.facts, u.callee, this.options.modules);
      return !!ref && ref.module === 'path' && ref.path[ref.path.length - 1] === 'relative';
    }
    if (u.type === AST_NODE_TYPES.Identifier) {
      const v = this.model.facts.variableOf(u);
      const def = v?.defs[0];
      if (def?.type === 'Variable') {
        const init = (def.node as TSESTree.VariableDeclarator).init;
        return !!init && this.isRelativeValue(init);
      }
    }
    return false;
  }

  /** `if (!allowed.length) return true;` / `if (allowed.length === 0) return p;` inside a guard. */
  private failOpen(fn: FunctionNode): Node | null {
    const stack: Node[] = fn.body.type === AST_NODE_TYPES.BlockStatement ? [...fn.body.body] : [];
    while (stack.length) {
      const s = stack.pop()!;
      if (s.type === AST_NODE_TYPES.IfStatement) {
        if (testsEmpty(s.test) && lets(s.consequent, fn)) return s;
        stack.push(s.consequent);
        if (s.alternate) stack.push(s.alternate);
      } else if (s.type === AST_NODE_TYPES.BlockStatement) stack.push(...s.body);
    }
    return null;
  }

  // ---------------------------------------------------------------- sinks

  /** The path arguments of a filesystem call, with what the call does to each. */
  pathArgs(f: FsCall): { arg: Node; effect: FsEffect }[] {
    const out: { arg: Node; effect: FsEffect }[] = [];
    for (const [i, effect] of f.spec.paths) {
      const a = f.call.arguments[i];
      if (a && a.type !== AST_NODE_TYPES.SpreadElement) out.push({ arg: a, effect: f.method === 'open' || f.method === 'openSync' ? f.effect : effect });
    }
    return out;
  }

  /** The options object literal of a process call and its properties, following `opts.cwd = …` assignments. */
  processOptions(p: ProcessCall): { literal: TSESTree.ObjectExpression | null; props: Map<string, Node>; opaque: boolean } {
    const props = new Map<string, Node>();
    if (!p.options) return { literal: null, props, opaque: false };
    const literal = objectLiteralOf(this.model.facts, p.options);
    if (!literal) return { literal: null, props, opaque: true };
    let opaque = false;
    for (const prop of literal.properties) {
      if (prop.type === AST_NODE_TYPES.SpreadElement) {
        opaque = true;
        continue;
      }
      const key = prop.computed ? staticString(prop.key) : prop.key.type === AST_NODE_TYPES.Identifier ? prop.key.name : staticString(prop.key);
      if (key) props.set(key, prop.value);
    }
    for (const [k, v] of memberWrites(this.model, p.options, p.call)) props.set(k, v);
    return { literal, props, opaque };
  }

  /** The env object a process gets: its explicit keys, and whether it inherits `process.env`. */
  envOf(envExpr: Node, at: Node): { keys: Map<string, Node>; inherits: boolean; opaque: boolean; literal: TSESTree.ObjectExpression | null } {
    const facts = this.model.facts;
    const keys = new Map<string, Node>();
    const e = unwrap(envExpr);
    if (isProcessEnvNode(this.model, e)) return { keys, inherits: true, opaque: false, literal: null };
    if (e.type === AST_NODE_TYPES.Identifier) {
      // const env = process.env;
      const v = facts.variableOf(e);
      const def = v?.defs[0];
      const init = def?.type === 'Variable' ? (def.node as TSESTree.VariableDeclarator).init : null;
      if (init && isProcessEnvNode(this.model, init)) return { keys: memberWrites(this.model, e, at), inherits: true, opaque: false, literal: null };
    }
    const literal = objectLiteralOf(facts, e);
    if (!literal) {
      // Object.assign({}, process.env, { HOME }) and other shapes: not followed.
      return { keys, inherits: false, opaque: true, literal: null };
    }
    let inherits = false;
    let opaque = false;
    for (const prop of literal.properties) {
      if (prop.type === AST_NODE_TYPES.SpreadElement) {
        if (isProcessEnvNode(this.model, prop.argument)) inherits = true;
        else {
          const inner = objectLiteralOf(facts, prop.argument);
          if (inner) {
            const sub = this.envOf(prop.argument, at);
            sub.keys.forEach((v, k) => keys.set(k, v));
            inherits ||= sub.inherits;
            opaque ||= sub.opaque;
          } else opaque = true;
        }
        continue;
      }
      const key = prop.computed ? staticString(prop.key) : prop.key.type === AST_NODE_TYPES.Identifier ? prop.key.name : staticString(prop.key);
      if (key) keys.set(key, prop.value);
    }
    for (const [k, v] of memberWrites(this.model, e, at)) keys.set(k, v);
    return { keys, inherits, opaque, literal };
  }
}

function isProcessEnvNode(model: ModuleModel, n: Node): boolean {
  const u = unwrap(n);
  return u.type === AST_NODE_TYPES.MemberExpression && memberName(u) === 'env' && unwrap(u.object).type === AST_NODE_TYPES.Identifier && (unwrap(u.object) as TSESTree.Identifier).name === 'process' && isGlobalRef(model.facts, unwrap(u.object) as TSESTree.Identifier);
}

/** `opts.cwd = x` / `env['HOME'] = x` / `Object.assign(env, { … })` before `at`, for an identifier `expr`. */
function memberWrites(model: ModuleModel, expr: Node, at: Node): Map<string, Node> {
  const out = new Map<string, Node>();
  const n = unwrap(expr);
  if (n.type !== AST_NODE_TYPES.Identifier) return out;
  const v = model.facts.variableOf(n);
  if (!v) return out;
  for (const ref of v.references) {
    const id = ref.identifier;
    if (id.range[0] > at.range[0]) continue;
    const p = id.parent;
    if (p?.type === AST_NODE_TYPES.MemberExpression && p.object === id && p.parent?.type === AST_NODE_TYPES.AssignmentExpression && p.parent.left === p) {
      const key = memberName(p);
      if (key) out.set(key, p.parent.right);
    }
    if (p?.type === AST_NODE_TYPES.CallExpression && p.arguments[0] === id && p.callee.type === AST_NODE_TYPES.MemberExpression && memberName(p.callee) === 'assign') {
      for (const a of p.arguments.slice(1)) {
        const lit = objectLiteralOf(model.facts, a);
        if (!lit) continue;
        for (const prop of lit.properties) {
          if (prop.type !== AST_NODE_TYPES.Property) continue;
          const key = prop.key.type === AST_NODE_TYPES.Identifier && !prop.computed ? prop.key.name : staticString(prop.key);
          if (key) out.set(key, prop.value);
        }
      }
    }
  }
  return out;
}

function paramBinds(p: Node, name: string): boolean {
  const t = p.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p;
  if (t.type === AST_NODE_TYPES.Identifier) return t.name === name;
  if (t.type === AST_NODE_TYPES.ObjectPattern) return destructuredKey(t, name) !== null;
  return false;
}

function destructuredKey(pattern: TSESTree.ObjectPattern, local: string): string | null {
  for (const p of pattern.properties) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const value = p.value.type === AST_NODE_TYPES.AssignmentPattern ? p.value.left : p.value;
    if (value.type === AST_NODE_TYPES.Identifier && value.name === local) {
      return p.key.type === AST_NODE_TYPES.Identifier && !p.computed ? p.key.name : staticString(p.key);
    }
  }
  return null;
}

/** `return false`/`return null`/`throw` results of a guard are not paths. */
function isGuardResultLiteral(r: Node): boolean {
  const u = unwrap(r);
  return u.type === AST_NODE_TYPES.Literal && (u.value === null || typeof u.value === 'boolean');
}

/** A statement (or block) that always leaves: throw, return, continue, break, or `process.exit()`. */
export function exits(s: Node): boolean {
  switch (s.type) {
    case AST_NODE_TYPES.ThrowStatement:
    case AST_NODE_TYPES.ReturnStatement:
    case AST_NODE_TYPES.ContinueStatement:
    case AST_NODE_TYPES.BreakStatement:
      return true;
    case AST_NODE_TYPES.BlockStatement:
      return s.body.some((b) => exits(b));
    case AST_NODE_TYPES.IfStatement:
      return !!s.alternate && exits(s.consequent) && exits(s.alternate);
    default:
      return false;
  }
}

/** `pos` runs after `stmt` in the same block or a block nested in it (stmt's block encloses pos). */
function sameOrEnclosingBlock(stmt: Node, pos: Node): boolean {
  const block = stmt.parent;
  return !!block && isInside(pos, block);
}

function testsEmpty(test: Node): boolean {
  const t = unwrap(test);
  if (t.type === AST_NODE_TYPES.LogicalExpression) return testsEmpty(t.left) || testsEmpty(t.right);
  if (t.type === AST_NODE_TYPES.UnaryExpression && t.operator === '!') {
    const a = unwrap(t.argument);
    return (a.type === AST_NODE_TYPES.MemberExpression && memberName(a) === 'length') || a.type === AST_NODE_TYPES.Identifier || a.type === AST_NODE_TYPES.MemberExpression;
  }
  if (t.type === AST_NODE_TYPES.BinaryExpression) {
    const l = unwrap(t.left);
    const r = unwrap(t.right);
    const isLen = (x: Node) => x.type === AST_NODE_TYPES.MemberExpression && memberName(x) === 'length';
    const zero = (x: Node) => x.type === AST_NODE_TYPES.Literal && (x.value === 0 || x.value === 1);
    return (isLen(l) && zero(r)) || (isLen(r) && zero(l));
  }
  return false;
}

/** A branch that lets the path through: `return true`, or `return <param>`. */
function lets(s: Node, fn: FunctionNode): boolean {
  const stmts = s.type === AST_NODE_TYPES.BlockStatement ? s.body : [s];
  for (const st of stmts) {
    if (st.type !== AST_NODE_TYPES.ReturnStatement || !st.argument) continue;
    const a = unwrap(st.argument);
    if (a.type === AST_NODE_TYPES.Literal && a.value === true) return true;
    if (a.type === AST_NODE_TYPES.Identifier && fn.params.some((p) => paramBinds(p, a.name))) return true;
  }
  return false;
}

const analyses = new WeakMap<ModuleModel, Map<string, PathAnalysis>>();

/** The path analysis for a model and options, built once per file and options. */
export function getPathAnalysis(model: ModuleModel, options: Partial<PathOptions> = {}): PathAnalysis {
  const full: PathOptions = {
    guards: options.guards ?? [],
    trustImportedGuardNames: options.trustImportedGuardNames ?? true,
    modules: { fs: options.modules?.fs ?? [], process: options.modules?.process ?? [] },
  };
  const key = JSON.stringify(full);
  let per = analyses.get(model);
  if (!per) {
    per = new Map();
    analyses.set(model, per);
  }
  let a = per.get(key);
  if (!a) {
    a = new PathAnalysis(model, full);
    per.set(key, a);
  }
  return a;
}

/** A short text for a node, as reports quote it (`path.join(os.tmpdir(), 'out.json')`), cut to one line. */
export function quote(text: string): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > 60 ? `${one.slice(0, 57)}…` : one;
}

/** JSON-schema fragments the filesystem/process rules share (plain JSON, described). */
export const MODULE_OPTION_SCHEMAS = {
  fsModules: {
    type: 'array',
    items: { type: 'string', minLength: 1 },
    description: "Extra module specifiers whose exports behave like `fs` (for example a project's own fs wrapper package).",
  },
  processModules: {
    type: 'array',
    items: { type: 'string', minLength: 1 },
    description: 'Extra module specifiers whose `spawn`/`exec`/`execFile`/`fork` exports start child processes like `child_process`.',
  },
} as const;

export interface ModuleOptions {
  fsModules?: string[];
  processModules?: string[];
}

export function modulesOf(o: ModuleOptions): ModuleNames {
  return { fs: o.fsModules ?? [], process: o.processModules ?? [] };
}

/**
 * A key under which two path expressions name the same file: identifiers of start-up bindings are replaced by what they
 * hold, `this.x` of a long-lived instance by its field, everything else by its source text.
 */
export function pathKey(model: ModuleModel, expr: Node, text: (n: Node) => string, depth = 0): string {
  const n = unwrap(expr);
  if (depth > 6) return text(n);
  if (n.type === AST_NODE_TYPES.Identifier) {
    const v = model.facts.variableOf(n);
    const def = v?.defs[0];
    if (v && def?.type === 'Variable' && !v.references.some((r) => r.isWrite() && !r.init)) {
      const init = (def.node as TSESTree.VariableDeclarator).init;
      if (init && (def.node as TSESTree.VariableDeclarator).id.type === AST_NODE_TYPES.Identifier) return pathKey(model, init, text, depth + 1);
    }
    return v ? `${n.name}@${v.defs[0]?.name.range[0] ?? 0}` : n.name;
  }
  if (n.type === AST_NODE_TYPES.CallExpression) return `${text(n.callee)}(${n.arguments.map((a) => pathKey(model, a, text, depth + 1)).join(',')})`;
  if (n.type === AST_NODE_TYPES.TemplateLiteral) {
    return n.quasis.map((q, i) => (q.value.cooked ?? '') + (n.expressions[i] ? `\${${pathKey(model, n.expressions[i], text, depth + 1)}}` : '')).join('');
  }
  if (n.type === AST_NODE_TYPES.BinaryExpression) return `${pathKey(model, n.left, text, depth + 1)}+${pathKey(model, n.right, text, depth + 1)}`;
  const s = staticString(n);
  if (s !== null) return JSON.stringify(s);
  return text(n);
}

/** Redirection and output-file targets in a shell command (`> /tmp/out.txt`, `-o out.json`, `tee log`). */
export interface ShellTarget {
  /** The target as written, with `${…}` for interpolated parts. */
  text: string;
  /** Expressions interpolated into the target. */
  parts: Node[];
}

export function shellTargets(model: ModuleModel, command: Node): ShellTarget[] {
  const pieces: (string | Node)[] = [];
  flattenCommand(model, command, pieces, 0);
  let str = '';
  const exprs: Node[] = [];
  for (const p of pieces) {
    if (typeof p === 'string') str += p;
    else {
      str += `\u0000${exprs.length}\u0001`;
      exprs.push(p);
    }
  }
  const out: ShellTarget[] = [];
  const patterns = [/(?:^|[^<>&\d])(?:\d|&)?>>?\s*(?!&)([^\s;|&<>()]+)/g, /(?:^|\s)(?:-o|--output(?:-file)?|--out-file|--log-file)(?:=|\s+)([^\s;|&<>()]+)/g, /\btee\s+(?:-a\s+)?([^\s;|&<>()]+)/g];
  for (const re of patterns) {
    for (const m of str.matchAll(re)) {
      const raw = m[1].replace(/^["']|["']$/g, '');
      if (/^\/dev\/(null|stdout|stderr|tty)$/.test(raw) || raw === '-') continue;
      const parts: Node[] = [];
      const text = raw.replace(/\u0000(\d+)\u0001/g, (_, i: string) => {
        parts.push(exprs[Number(i)]);
        return '${…}';
      });
      out.push({ text, parts });
    }
  }
  return out;
}

function flattenCommand(model: ModuleModel, e: Node, out: (string | Node)[], depth: number): void {
  const n = unwrap(e);
  const s = staticString(n);
  if (s !== null) {
    out.push(s);
    return;
  }
  if (n.type === AST_NODE_TYPES.TemplateLiteral) {
    n.quasis.forEach((q, i) => {
      out.push(q.value.cooked ?? q.value.raw);
      if (n.expressions[i]) flattenCommand(model, n.expressions[i], out, depth + 1);
    });
    return;
  }
  if (n.type === AST_NODE_TYPES.BinaryExpression && n.operator === '+') {
    flattenCommand(model, n.left, out, depth + 1);
    flattenCommand(model, n.right, out, depth + 1);
    return;
  }
  if (n.type === AST_NODE_TYPES.Identifier && depth < 3) {
    const v = model.facts.variableOf(n);
    const def = v?.defs[0];
    if (v && def?.type === 'Variable' && !v.references.some((r) => r.isWrite() && !r.init)) {
      const init = (def.node as TSESTree.VariableDeclarator).init;
      const u = init ? unwrap(init) : null;
      if (u && (u.type === AST_NODE_TYPES.TemplateLiteral || u.type === AST_NODE_TYPES.BinaryExpression || staticString(u) !== null)) {
        flattenCommand(model, u, out, depth + 1);
        return;
      }
    }
  }
  out.push(n);
}

/** A fallback for a missing scope argument, and what it falls back to. */
export interface ScopeFallback {
  scope: Node;
  fallback: Node;
  what: string;
}

/**
 * Fallbacks for a missing scope argument in handler code: `workspace || os.homedir()`, `workspace ?? process.cwd()`,
 * `workspace ? … : '/tmp'`, `{ workspace = os.tmpdir() }`, `if (!workspace) return RUNS_ROOT`, and an empty-string
 * default joined straight onto a root. A dedicated sub-directory (`path.join(ROOT, '_adhoc')`, `'_adhoc'`) is fine.
 */
export function sharedFallback(model: ModuleModel): ScopeFallback[] {
  const analysis = getPathAnalysis(model);
  const out: ScopeFallback[] = [];
  const facts = model.facts;
  const isScope = (n: Node): boolean => {
    const u = unwrap(n);
    if (u.type === AST_NODE_TYPES.UnaryExpression && u.operator === '!') return isScope(u.argument);
    if (u.type === AST_NODE_TYPES.CallExpression && u.callee.type === AST_NODE_TYPES.MemberExpression && memberName(u.callee) === 'trim') return isScope(u.callee.object);
    if (u.type !== AST_NODE_TYPES.Identifier && u.type !== AST_NODE_TYPES.MemberExpression) return false;
    return model.origins.has(u, 'scope');
  };
  const check = (scope: Node, fallback: Node) => {
    if (!model.isHandlerCode(fallback)) return;
    const what = sharedTarget(model, analysis, fallback);
    if (what) out.push({ scope: scopeNode(scope), fallback, what });
  };
  for (const fn of facts.functions) {
    if (!model.reached.has(fn)) continue;
    // ({ workspace = os.homedir() }) => …, (workspace = '') => …
    const patterns: Node[] = [...fn.params];
    while (patterns.length) {
      const p = patterns.pop()!;
      if (p.type === AST_NODE_TYPES.AssignmentPattern) {
        if (p.left.type === AST_NODE_TYPES.Identifier && model.settings.scopeArguments.includes(p.left.name)) {
          if (staticString(p.right) === '') {
            if (emptyJoinedWithoutCheck(model, p.left, fn)) out.push({ scope: p.left, fallback: p.right, what: 'an empty scope, which joins to the runs root itself' });
          } else check(p.left, p.right);
        }
        patterns.push(p.left);
      } else if (p.type === AST_NODE_TYPES.ObjectPattern) {
        for (const q of p.properties) if (q.type === AST_NODE_TYPES.Property) patterns.push(q.value);
      }
    }
  }
  const visit = (n: Node) => {
    if (n.type === AST_NODE_TYPES.LogicalExpression && (n.operator === '||' || n.operator === '??') && isScope(n.left)) {
      if (staticString(n.right) === '') {
        if (model.isHandlerCode(n)) out.push({ scope: scopeNode(n.left), fallback: n.right, what: 'an empty scope, which joins to the runs root itself' });
      } else check(n.left, n.right);
    } else if (n.type === AST_NODE_TYPES.ConditionalExpression && isScope(n.test)) {
      const negated = unwrap(n.test).type === AST_NODE_TYPES.UnaryExpression;
      check(n.test, negated ? n.consequent : n.alternate);
    } else if (n.type === AST_NODE_TYPES.IfStatement && isScope(n.test) && unwrap(n.test).type === AST_NODE_TYPES.UnaryExpression) {
      const stmts = n.consequent.type === AST_NODE_TYPES.BlockStatement ? n.consequent.body : [n.consequent];
      for (const s of stmts) {
        if (s.type === AST_NODE_TYPES.ReturnStatement && s.argument) check(n.test, s.argument);
        if (s.type === AST_NODE_TYPES.ExpressionStatement && s.expression.type === AST_NODE_TYPES.AssignmentExpression && isScope(s.expression.left)) check(n.test, s.expression.right);
      }
    }
  };
  // Only handler code can fall back for a caller: ask nothing of the rest of the file.
  for (const [node, owner] of facts.owner) if (owner && model.reached.has(owner)) visit(node);
  return out.sort((a, b) => a.fallback.range[0] - b.fallback.range[0]);
}

function scopeNode(n: Node): Node {
  let u = unwrap(n);
  while (u.type === AST_NODE_TYPES.UnaryExpression) u = unwrap(u.argument);
  return u;
}

/** What a fallback value is, when it is shared or privileged; null for a dedicated directory or something unknown. */
function sharedTarget(model: ModuleModel, analysis: PathAnalysis, fallback: Node): string | null {
  const s = staticString(fallback);
  if (s !== null) {
    if (s === '') return 'an empty scope, which joins to the runs root itself';
    if (s === '.' || s === './') return "the server's working directory";
    if (s.startsWith('~')) return "the server's home directory";
    if (s.startsWith('/') || /^[A-Za-z]:[\\/]/.test(s)) return 'a fixed absolute path every caller shares';
    return null;
  }
  const t = analysis.trace(fallback);
  if (t.tags.has('unknown') || isPerCall(t)) return null;
  const u = unwrap(fallback);
  const joinsSubdir = u.type === AST_NODE_TYPES.CallExpression && u.arguments.length > 1;
  if (joinsSubdir) {
    // path.join(ROOT, '_adhoc') is a dedicated directory; path.join(os.homedir(), '.cache') still is the home.
    if (t.tags.has('homedir')) return "a directory under the server's home directory";
    return null;
  }
  if (t.tags.has('homedir')) return "the server's home directory";
  if (t.tags.has('cwd')) return "the server's working directory";
  if (t.tags.has('tmpdir')) return 'the shared system temp dir';
  if (u.type === AST_NODE_TYPES.Identifier || u.type === AST_NODE_TYPES.MemberExpression) {
    // A long-lived directory used as the root other paths are joined onto.
    const v = u.type === AST_NODE_TYPES.Identifier ? model.facts.variableOf(u) : null;
    const init = v?.defs[0]?.type === 'Variable' ? (v.defs[0].node as TSESTree.VariableDeclarator).init : null;
    const is = init ? staticString(init) : null;
    if (is !== null) return sharedTarget(model, analysis, init!);
    if (v && v.references.some((r) => isJoinRoot(model, r.identifier))) return 'the runs root itself, shared by every run';
  }
  return null;
}

function isJoinRoot(model: ModuleModel, id: Node): boolean {
  const p = id.parent;
  if (!p || p.type !== AST_NODE_TYPES.CallExpression || p.arguments[0] !== id || p.arguments.length < 2) return false;
  const ref = moduleRef(model.facts, p.callee);
  return !!ref && ref.module === 'path' && ['join', 'resolve'].includes(ref.path[ref.path.length - 1]);
}

/** `(workspace = '') => path.join(ROOT, workspace)` with no emptiness test on `workspace` in that function. */
function emptyJoinedWithoutCheck(model: ModuleModel, id: TSESTree.Identifier, fn: FunctionNode): boolean {
  const v = model.facts.scopeOf(fn).set.get(id.name) as Variable | undefined;
  if (!v) return false;
  let joined = false;
  for (const ref of v.references) {
    const r = ref.identifier;
    const p = r.parent;
    if (!p) continue;
    if (isTest(r)) return false;
    if (p.type === AST_NODE_TYPES.CallExpression && p.arguments.includes(r as TSESTree.Expression)) {
      const m = moduleRef(model.facts, p.callee);
      if (m && m.module === 'path' && ['join', 'resolve'].includes(m.path[m.path.length - 1])) joined = true;
    }
    if (p.type === AST_NODE_TYPES.TemplateLiteral) joined = true;
  }
  return joined;
}

function isTest(r: Node): boolean {
  let n: Node = r;
  let p = n.parent;
  while (p) {
    if ((p.type === AST_NODE_TYPES.IfStatement || p.type === AST_NODE_TYPES.ConditionalExpression) && p.test === n) return true;
    if (p.type === AST_NODE_TYPES.LogicalExpression && p.left === n) return true;
    if (p.type === AST_NODE_TYPES.UnaryExpression || p.type === AST_NODE_TYPES.BinaryExpression || (p.type === AST_NODE_TYPES.MemberExpression && p.object === n) || p.type === AST_NODE_TYPES.CallExpression) {
      n = p;
      p = p.parent;
      if (n.type === AST_NODE_TYPES.CallExpression) {
        const c = n.callee;
        if (!(c.type === AST_NODE_TYPES.MemberExpression && ['trim', 'test'].includes(memberName(c) ?? ''))) return false;
      }
      continue;
    }
    return false;
  }
  return false;
}

export const DEFAULT_TEARDOWN_PATTERN = '(teardown|tear_down|cleanup|clean_up|delete[-_]?workspace|remove[-_]?workspace|destroy[-_]?workspace|delete[-_]?run|purge)';

export interface TeardownFacts {
  /** Tools that touch the filesystem at paths derived from the caller's scope argument, with the first such call. */
  scopedTools: Map<string, Node>;
  /** Names of tools that match the teardown pattern. */
  teardownTools: string[];
  /** Removal calls in teardown tools that fail when the data is already gone. */
  notIdempotent: FsCall[];
  /** Where a missing-teardown report goes. */
  anchor: Node | null;
}

function toolNameOf(model: ModuleModel, node: Node): string | null {
  const h = model.handlerOf(node);
  if (!h || h.registration.kind !== 'tool') return null;
  return h.routedName ?? h.registration.name ?? caseLabelOf(node);
}

/** `case 'teardown':` (or `if (name === 'teardown')`) around a node inside a tools/call dispatcher. */
function caseLabelOf(node: Node): string | null {
  let child: Node = node;
  for (let n = node.parent; n; child = n, n = n.parent) {
    if (n.type === AST_NODE_TYPES.SwitchCase && n.test && child !== n.test) {
      const label = staticString(n.test);
      if (label !== null && /name|tool|method/i.test(textOfDiscriminant(n.parent.discriminant))) return label;
    }
    if (n.type === AST_NODE_TYPES.IfStatement && n.consequent === child) {
      const t = unwrap(n.test);
      if (t.type === AST_NODE_TYPES.BinaryExpression && (t.operator === '===' || t.operator === '==')) {
        const label = staticString(t.right) ?? staticString(t.left);
        if (label !== null && /name|tool|method/i.test(textOfDiscriminant(t.left) + textOfDiscriminant(t.right))) return label;
      }
    }
  }
  return null;
}

function textOfDiscriminant(n: Node): string {
  const u = unwrap(n);
  if (u.type === AST_NODE_TYPES.Identifier) return u.name;
  if (u.type === AST_NODE_TYPES.MemberExpression) return memberName(u) ?? '';
  return '';
}

/** Which tools take the scope and touch files, which tools tear a scope down, and whether that teardown is idempotent. */
export function teardownFacts(model: ModuleModel, pattern: RegExp, modules: ModuleNames): TeardownFacts {
  const analysis = getPathAnalysis(model, { modules });
  const scopedTools = new Map<string, Node>();
  const names = new Set<string>();
  for (const r of model.registrations) if (r.kind === 'tool' && r.name) names.add(r.name);
  for (const h of model.reached.values()) if (h.registration.kind === 'tool' && h.routedName) names.add(h.routedName);
  for (const sw of model.facts.switches) {
    if (!model.isHandlerCode(sw)) continue;
    for (const c of sw.cases) {
      const s = c.test ? staticString(c.test) : null;
      if (s) names.add(s);
    }
  }
  const teardownTools = [...names].filter((n) => pattern.test(n));
  const sinks: { node: Node; at: Node }[] = [];
  for (const f of analysis.fsCalls) for (const { arg } of analysis.pathArgs(f)) sinks.push({ node: arg, at: f.call });
  for (const p of analysis.processCalls) {
    const cwd = analysis.processOptions(p).props.get('cwd');
    if (cwd) sinks.push({ node: cwd, at: p.call });
  }
  for (const s of sinks) {
    const name = toolNameOf(model, s.at);
    if (!name || pattern.test(name) || scopedTools.has(name)) continue;
    if (analysis.trace(s.node, s.at).tags.has('scope')) scopedTools.set(name, s.at);
  }
  const notIdempotent: FsCall[] = [];
  for (const f of analysis.fsCalls) {
    if (f.effect !== 'remove' || !model.isHandlerCode(f.call)) continue;
    const name = toolNameOf(model, f.call);
    if (!name || !pattern.test(name)) continue;
    if (!idempotentRemoval(model, f)) notIdempotent.push(f);
  }
  const anchor = model.discovery.serverConstructions[0] ?? model.registrations[0]?.site ?? null;
  return { scopedTools, teardownTools, notIdempotent, anchor };
}

/** `rm(dir, { recursive: true, force: true })`, fs-extra `remove`, or a removal whose ENOENT is tolerated. */
function idempotentRemoval(model: ModuleModel, f: FsCall): boolean {
  const method = f.method.replace(/Sync$/, '');
  if (method === 'remove' || method === 'emptyDir' || method === 'emptydir') return true;
  if (method === 'rm') {
    const opts = f.call.arguments[1] ? objectLiteralOf(model.facts, f.call.arguments[1]) : null;
    const force = opts ? optionProperty(opts, 'force') : null;
    if (force && unwrap(force.value).type === AST_NODE_TYPES.Literal && (unwrap(force.value) as TSESTree.Literal).value === true) return true;
  }
  for (let n: Node | undefined = f.call, child: Node = f.call; n; child = n, n = n.parent) {
    if (n.type === AST_NODE_TYPES.TryStatement && n.block === child && n.handler && toleratesMissing(n.handler.body)) return true;
    if (n.type === AST_NODE_TYPES.IfStatement && n.consequent === child && /exists|pathExists|access/.test(textOfCalls(n.test))) return true;
    if (n.type === AST_NODE_TYPES.MemberExpression && n.object === child && memberName(n) === 'catch') {
      const cb = n.parent?.type === AST_NODE_TYPES.CallExpression ? n.parent.arguments[0] : null;
      if (cb && (isFunction(cb) ? toleratesMissing(cb.body) : true)) return true;
    }
    if (isFunction(n)) break;
  }
  return false;
}

function toleratesMissing(body: Node): boolean {
  let mentionsEnoent = false;
  let rethrows = false;
  const stack: Node[] = [body];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === AST_NODE_TYPES.Literal && n.value === 'ENOENT') mentionsEnoent = true;
    if (n.type === AST_NODE_TYPES.ThrowStatement) rethrows = true;
    for (const key of Object.keys(n)) {
      if (key === 'parent') continue;
      const c = (n as unknown as Record<string, unknown>)[key];
      if (Array.isArray(c)) for (const x of c) if (x && typeof (x as Node).type === 'string') stack.push(x as Node);
      if (c && typeof (c as Node).type === 'string' && key !== 'parent') stack.push(c as Node);
    }
  }
  return mentionsEnoent || !rethrows;
}

function textOfCalls(n: Node): string {
  const u = unwrap(n);
  if (u.type === AST_NODE_TYPES.CallExpression) {
    const c = unwrap(u.callee);
    return c.type === AST_NODE_TYPES.Identifier ? c.name : c.type === AST_NODE_TYPES.MemberExpression ? (memberName(c) ?? '') : '';
  }
  if (u.type === AST_NODE_TYPES.LogicalExpression) return `${textOfCalls(u.left)} ${textOfCalls(u.right)}`;
  return '';
}
