import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { destructuredKeyOf, isFunction, isInside, memberName, paramBinds, staticString, unwrap, type FunctionNode, type Node } from './ast.js';
import { Guards, GUARD_NAME } from './guards.js';
import type { ModuleModel } from './model.js';
import type { Variable } from './module.js';
import type { PathOptions } from './options.js';
import {
  fileWriterCallOf,
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
import { isChoiceArgument, isNameArgument } from './choices.js';
import { cachedPer } from './cache.js';
import { mayOpenStores, storeOpenOf } from './stores.js';

/**
 * Where the parts of a path come from. Leaves of the ValueOrigins vocabulary plus:
 * - `random-call`: a random name or `mkdtemp` made while serving this call (unique per call);
 * - `random-startup`: the same made once at start-up (one name for every call);
 * - `choice`: a tool argument that can only be one of a fixed set (`z.enum`), or a file extension: it cannot name
 *   another directory and does not tell concurrent callers apart;
 * - `unknown`: a part the module does not show (an imported helper's result): never treated as fixed.
 */
export type Tag =
  | 'input' | 'scope' | 'context' | 'session' | 'auth' | 'fresh' | 'const' | 'module' | 'env'
  | 'tmpdir' | 'cwd' | 'homedir' | 'time' | 'dirname' | 'random-call' | 'random-startup' | 'choice' | 'unknown';

export interface Trace {
  tags: Set<Tag>;
  /** A tool argument that reaches here with no sound containment guard on the way. */
  rawInput: Node | null;
  /** A guard on the way that looks right and is not. */
  unsound: { node: Node; reason: string } | null;
  /** Where MCP session identity enters the path (`extra.sessionId`), when it does. */
  sessionAt?: Node | null;
  /** The handler of another module whose call handed `rawInput` in (`tool 'read'`), with whole-server analysis. */
  handedBy?: string;
}

const PER_CALL: Tag[] = ['input', 'scope', 'context', 'session', 'auth', 'fresh', 'random-call'];
const CALLER_TAGS: Tag[] = ['input', 'scope', 'context', 'session', 'auth'];

/** Nothing in the path depends on the call, and every part is known. */
export function isFixed(t: Trace): boolean {
  if (t.tags.size === 0 || t.tags.has('unknown')) return false;
  return !PER_CALL.some((p) => t.tags.has(p));
}

export function isPerCall(t: Trace): boolean {
  return PER_CALL.some((p) => t.tags.has(p));
}

/**
 * The path is keyed by MCP session identity and by nothing the caller passes: the same directory for every call a
 * harness session makes (a whole run), and for every run that reuses the session.
 */
export function isSessionKeyed(t: Trace): boolean {
  return !!t.sessionAt && t.tags.has('session') && !['input', 'scope', 'auth', 'random-call', 'unknown'].some((x) => t.tags.has(x as Tag));
}

/** Why a fixed path is the same for every caller, in the words reports use. */
export function fixedReason(t: Trace): string {
  const choice = t.tags.has('choice') ? '; the rest of it (a file extension, a value from a fixed set) does not tell callers apart' : '';
  return baseReason(t) + choice;
}

const PLACES: [Tag, string][] = [
  ['tmpdir', 'under the shared system temp dir'],
  ['homedir', "under the server's home directory"],
  ['cwd', "under the server's working directory"],
  ['dirname', "next to the server's own source"],
];

function baseReason(t: Trace): string {
  if (t.tags.has('random-startup')) return 'its random part is made once at start-up';
  if (t.tags.has('time')) return 'a timestamp is not unique across concurrent callers';
  // Every shared place the path may be under (`process.env.HOME || process.cwd()` is either).
  const places = PLACES.filter(([tag]) => t.tags.has(tag)).map(([, where]) => where);
  if (places.length > 0) return `it is ${places.join(' or ')}`;
  if (t.tags.has('env')) return 'it comes from the environment read at start-up';
  return 'nothing in it depends on the call';
}


const SESSION_NAMES = new Set(['sessionId', 'session_id', 'sessionID']);

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
  return { tags: new Set(t.tags), rawInput: t.rawInput, unsound: t.unsound, sessionAt: t.sessionAt ?? null, ...(t.handedBy ? { handedBy: t.handedBy } : {}) };
}

function emptyTrace(): Trace {
  return { tags: new Set(), rawInput: null, unsound: null };
}

function merge(into: Trace, t: Trace): Trace {
  t.tags.forEach((x) => into.tags.add(x));
  into.rawInput ??= t.rawInput;
  into.unsound ??= t.unsound;
  if (t.sessionAt) into.sessionAt ??= t.sessionAt;
  if (t.handedBy && into.rawInput === t.rawInput) into.handedBy ??= t.handedBy;
  return into;
}

function tag(...tags: Tag[]): Trace {
  return { tags: new Set(tags), rawInput: null, unsound: null };
}


/**
 * The path analysis of one module: where each filesystem path and working directory comes from, whether a tool argument
 * reaches it unguarded, and which guards look right and are not. Built per model and options, on first use.
 */
export class PathAnalysis {
  readonly guards: Guards;
  readonly fsCalls: FsCall[] = [];
  readonly processCalls: ProcessCall[] = [];
  /** Persistent stores (embedded databases, JSON-file stores) opened here, with the path each opens. */
  readonly storeOpens: { open: TSESTree.CallExpression | TSESTree.NewExpression; path: Node }[] = [];

  constructor(
    readonly model: ModuleModel,
    readonly options: PathOptions,
  ) {
    this.guards = new Guards(model, options);
    // A module where nothing serves a call has no path a caller controls: skip classifying its calls.
    if (model.reached.size === 0) return;
    const stores = mayOpenStores(model);
    for (const call of model.facts.allCalls) {
      if (stores) {
        const open = storeOpenOf(model, call);
        if (open) {
          this.storeOpens.push({ open: call, path: open.path });
          continue;
        }
      }
      const fsc = fsCallOf(model.facts, call, options.modules) ?? fileWriterCallOf(model.facts, call, options.modules);
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
        const t = /^\/tmp(\/|$)/.test(n.quasis[0].value.cooked ?? '') ? tag('const', 'tmpdir') : tag('const');
        n.expressions.forEach((e, i) => {
          const part = this.walk(e, pos, next);
          merge(t, isExtensionSlot(n, i) ? asChoice(part) : part);
        });
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
    const guard = this.guards.guardOn(v, pos);
    let t: Trace;
    if (def.type === 'Parameter') t = this.parameter(v, def.node as FunctionNode, id, ctx);
    else if (def.type === 'Variable') t = this.variableInit(v, pos, ctx);
    else t = tag('unknown');
    // A module binding handler code writes (`activeProject = args.project`) holds whichever caller wrote it last: still
    // caller text for containment, but not this call's own, so a path made from it is shared.
    if (def.type === 'Variable' && facts.isModuleLevel(v)) t = { ...t, tags: new Set([...t.tags].filter((x) => !CALLER_TAGS.includes(x)).concat('module')) };
    if (!t.rawInput || !guard) return t;
    if (guard.sound && ctx.decoded) return { tags: t.tags, rawInput: t.rawInput, handedBy: t.handedBy, unsound: { node: id, reason: 'the check runs before decodeURIComponent, so an encoded `..%2F` passes it' } };
    if (guard.sound) return { tags: t.tags, rawInput: null, unsound: null };
    return { tags: t.tags, rawInput: t.rawInput, handedBy: t.handedBy, unsound: t.unsound ?? { node: guard.node, reason: guard.reason } };
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
    // A write earlier in the same function reaches this use; one in another function (another tool's call writing a
    // module binding, a closure) may run before it whatever the order of the text.
    const useOwner = this.model.facts.ownerOf(pos);
    for (const ref of v.references) {
      if (!ref.isWrite() || ref.init || !ref.writeExpr) continue;
      if (ref.identifier.range[0] < pos.range[0] || this.model.facts.ownerOf(ref.identifier as Node) !== useOwner) merge(t, this.walk(ref.writeExpr, ref.writeExpr, ctx));
    }
    if (t.tags.size === 0) t.tags.add('unknown');
    return t;
  }

  private parameter(v: Variable, fn: FunctionNode, id: TSESTree.Identifier, ctx: Ctx): Trace {
    const reg = this.model.discovery.handlerRegistration(fn);
    if (reg) {
      const o = this.model.origins.variable(v);
      if (o.has('input') && !o.has('scope') && this.isChoice(destructuredKeyOfParams(fn, v.name) ?? null, reg)) return tag('choice');
      const t = emptyTrace();
      o.forEach((x) => {
        if (x === 'input' || x === 'scope' || x === 'context' || x === 'session' || x === 'auth') t.tags.add(x);
      });
      if ((t.tags.has('input') || t.tags.has('scope')) && !this.isName(destructuredKeyOfParams(fn, v.name) ?? null, reg)) t.rawInput = id;
      if (t.tags.has('session')) t.sessionAt = id;
      if (t.tags.size === 0) t.tags.add('unknown');
      return t;
    }
    // A same-file helper: whatever its call sites pass.
    const index = fn.params.findIndex((p) => paramBinds(p, v.name));
    const sites = index >= 0 ? this.model.callSitesOf(fn) : [];
    // A function of this module that another module's handler code hands a tool argument (whole-server analysis).
    const declared = index >= 0 ? fn.params[index] : null;
    const given =
      declared?.type === AST_NODE_TYPES.Identifier
        ? this.model.inputParam(fn, index)
        : declared?.type === AST_NODE_TYPES.ObjectPattern
          ? this.model.inputParam(fn, index, destructuredKeyOf(declared, v.name))
          : undefined;
    if (sites.length === 0 && !given) return tag('unknown');
    const t = emptyTrace();
    if (given) {
      t.tags.add('input');
      if (given.scope) t.tags.add('scope');
      t.rawInput = id;
      t.handedBy = `${given.handler} (call at ${given.from})`;
    }
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
        const key = destructuredKeyOf(target, v.name);
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
    if (name !== null) {
      // options.outputPath where options = { ...DEFAULTS, ...args } (or Object.assign({}, DEFAULTS, args)).
      const own = this.propertyOfLiteral(m.object, name, pos, ctx);
      if (own) {
        if (this.model.settings.scopeArguments.includes(name) && (own.tags.has('input') || own.tags.has('scope'))) own.tags.add('scope');
        return own;
      }
    }
    const base = this.walk(m.object, pos, ctx);
    if (name === null && !m.computed) return base;
    if (name === null) {
      // A lookup into a fixed table by a caller's key is not a path the caller built.
      if (!isPerCall(base)) return { tags: new Set([...base.tags]), rawInput: null, unsound: base.unsound };
      return merge(base, this.walk(m.property, pos, ctx));
    }
    if (this.model.settings.scopeArguments.includes(name) && (base.tags.has('input') || base.tags.has('scope'))) base.tags.add('scope');
    if (name === 'length') return { tags: new Set(['const']), rawInput: null, unsound: null };
    // extra.sessionId, ctx.session.id: MCP session identity (the same for every call a harness slot makes).
    if (SESSION_NAMES.has(name) && (base.tags.has('context') || base.tags.has('session'))) return { tags: new Set(['session']), rawInput: null, unsound: null, sessionAt: m };
    // args.language where the schema says z.enum([...]): one of a fixed set.
    if (base.tags.has('input') && !base.tags.has('scope') && base.rawInput && this.isChoice(name, this.model.handlerOf(m)?.registration ?? null)) return tag('choice');
    // args.workspace where the schema says z.string().regex(/^[\w-]+$/): the caller's, but one name that cannot escape.
    if (base.rawInput && (base.tags.has('input') || base.tags.has('scope')) && this.isName(name, this.model.handlerOf(m)?.registration ?? null)) {
      return { tags: new Set(base.tags), rawInput: null, unsound: base.unsound };
    }
    return base;
  }

  /**
   * A property of an object the module builds from parts (`{ ...DEFAULTS, ...args, dir }`, `Object.assign({}, A, B)`):
   * the last part that sets it, or every part that may (an object the module does not show may or may not hold it),
   * and `obj.key = v` set before `pos`. Null when the object is not built that way here.
   */
  private propertyOfLiteral(obj: Node, name: string, pos: Node, ctx: Ctx): Trace | null {
    const o = unwrap(obj);
    let parts: Node[] | null = null;
    if (o.type === AST_NODE_TYPES.ObjectExpression) parts = [o];
    else if (o.type === AST_NODE_TYPES.Identifier) {
      const v = this.model.facts.variableOf(o);
      const def = v?.defs[0];
      const init = def?.type === 'Variable' && (def.node as TSESTree.VariableDeclarator).id.type === AST_NODE_TYPES.Identifier ? (def.node as TSESTree.VariableDeclarator).init : null;
      if (!v || !init || v.references.some((r) => r.isWrite() && !r.init)) return null;
      const i = unwrap(init);
      if (i.type === AST_NODE_TYPES.ObjectExpression) parts = [i];
      else if (i.type === AST_NODE_TYPES.CallExpression && isObjectAssign(i)) parts = i.arguments.filter((a) => a.type !== AST_NODE_TYPES.SpreadElement);
      if (!parts) return null;
      const set = memberWrites(this.model, o, pos).get(name);
      if (set) return this.walk(set, set, ctx);
    }
    if (!parts) return null;
    let acc: Trace[] = [];
    const visit = (part: Node, depth: number) => {
      const u = unwrap(part);
      const lit = u.type === AST_NODE_TYPES.ObjectExpression ? u : u.type === AST_NODE_TYPES.Identifier && depth < 4 ? constObjectLiteral(this.model, u) : null;
      if (!lit) {
        acc.push(this.walk(part, pos, ctx));
        return;
      }
      for (const prop of lit.properties) {
        if (prop.type === AST_NODE_TYPES.SpreadElement) visit(prop.argument, depth + 1);
        else if (!prop.computed && prop.key.type === AST_NODE_TYPES.Identifier ? prop.key.name === name : staticString(prop.key) === name) acc = [this.walk(prop.value, prop.value, ctx)];
      }
    };
    for (const p of parts) visit(p, 0);
    if (acc.length === 0) return tag('const');
    const t = emptyTrace();
    for (const a of acc) merge(t, a);
    return t;
  }

  /** An argument name every schema of this module declares as one of a fixed set of values. */
  private isName(name: string | null, reg: { site: Node; handler: Node } | null): boolean {
    return name !== null && isNameArgument(this.model.facts, reg?.site ?? null, reg?.handler ?? null, name);
  }

  private isChoice(name: string | null, reg: { site: Node; handler: Node } | null): boolean {
    return name !== null && isChoiceArgument(this.model.facts, reg?.site ?? null, reg?.handler ?? null, name);
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
    // fileURLToPath(import.meta.url) (from 'url'/'node:url'): the path the URL names.
    if ((callee.type === AST_NODE_TYPES.Identifier || callee.type === AST_NODE_TYPES.MemberExpression) && calleeNameOf(callee) === 'fileURLToPath' && args[0]) return this.walk(args[0], pos, ctx);
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
      // An imported or unknown function: its result is not followed, except that a guard in another module (whole-server
      // analysis) contains what it returns.
      const t = tag('unknown');
      const a = this.union(args, pos, ctx);
      a.tags.forEach((x) => (PER_CALL.includes(x) ? t.tags.add(x) : undefined));
      if (a.rawInput && (callee.type === AST_NODE_TYPES.Identifier || callee.type === AST_NODE_TYPES.MemberExpression)) {
        const g = this.guards.crossModuleGuard(c);
        if (g && !g.sound) return { tags: t.tags, rawInput: a.rawInput, unsound: a.unsound ?? { node: c, reason: g.reason } };
      }
      return t;
    }
    const out = emptyTrace();
    for (const fn of fns) {
      const g = this.guards.guardFunction(fn);
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

  // ---------------------------------------------------------------- sinks

  /**
   * The path arguments of a filesystem call, with what the call does to each. For a path given as an option
   * (`page.screenshot(opts)` after `opts.path = p`), `arg` is the value and `reportAt` the options the call is given.
   */
  pathArgs(f: FsCall): { arg: Node; effect: FsEffect; reportAt?: Node }[] {
    const out: { arg: Node; effect: FsEffect; reportAt?: Node }[] = [];
    for (const [i, effect] of f.spec.paths) {
      const a = f.call.arguments[i];
      if (!a || a.type === AST_NODE_TYPES.SpreadElement) continue;
      if (f.spec.optionKey) {
        const set = memberWrites(this.model, a, f.call).get(f.spec.optionKey);
        const value = set ?? this.optionValue(a, f.spec.optionKey);
        if (value) out.push({ arg: value, effect, reportAt: set ? a : undefined });
        continue;
      }
      out.push({ arg: a, effect: f.method === 'open' || f.method === 'openSync' ? f.effect : effect });
    }
    return out;
  }

  /** A property written in the literal of an options object. */
  private optionValue(options: Node, key: string): Node | null {
    const lit = objectLiteralOf(this.model.facts, options);
    if (!lit) return null;
    for (const prop of lit.properties) {
      if (prop.type === AST_NODE_TYPES.Property && !prop.computed && prop.key.type === AST_NODE_TYPES.Identifier && prop.key.name === key) return prop.value;
      if (prop.type === AST_NODE_TYPES.Property && staticString(prop.key) === key) return prop.value;
    }
    return null;
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


/** The key a parameter pattern of `fn` binds `local` from (`({ language }) =>` → `language`). */
function destructuredKeyOfParams(fn: FunctionNode, local: string): string | null {
  for (const p of fn.params) {
    const t = p.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p;
    const k = destructuredKeyOf(t, local, true);
    if (k !== null) return k;
  }
  return null;
}

/**
 * The last part of `name.${ext}` (after a dot, nothing after it): a file extension. It does not tell callers apart, and
 * a caller's value there cannot be relied on to make the path per caller; a raw one still escapes (`x./../../etc`).
 */
function isExtensionSlot(t: TSESTree.TemplateLiteral, i: number): boolean {
  if (i !== t.expressions.length - 1) return false;
  const before = t.quasis[i].value.cooked ?? '';
  const after = t.quasis[i + 1]?.value.cooked ?? '';
  return after === '' && before.endsWith('.');
}

function asChoice(t: Trace): Trace {
  const tags = new Set<Tag>([...t.tags].filter((x) => !PER_CALL.includes(x) && x !== 'unknown'));
  tags.add('choice');
  return { tags, rawInput: t.rawInput, unsound: t.unsound };
}

function calleeNameOf(c: TSESTree.Identifier | TSESTree.MemberExpression): string | null {
  return c.type === AST_NODE_TYPES.Identifier ? c.name : memberName(c);
}

function isObjectAssign(c: TSESTree.CallExpression): boolean {
  const callee = unwrap(c.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression || memberName(callee) !== 'assign') return false;
  const o = unwrap(callee.object);
  return o.type === AST_NODE_TYPES.Identifier && o.name === 'Object';
}

/** The object literal a never-reassigned `const` holds. */
function constObjectLiteral(model: ModuleModel, id: TSESTree.Identifier): TSESTree.ObjectExpression | null {
  const v = model.facts.variableOf(id);
  const def = v?.defs[0];
  if (!v || def?.type !== 'Variable' || v.references.some((r) => r.isWrite() && !r.init)) return null;
  const init = (def.node as TSESTree.VariableDeclarator).init;
  const u = init ? unwrap(init) : null;
  return u && u.type === AST_NODE_TYPES.ObjectExpression ? u : null;
}

/** `return false`/`return null`/`throw` results of a guard are not paths. */
function isGuardResultLiteral(r: Node): boolean {
  const u = unwrap(r);
  return u.type === AST_NODE_TYPES.Literal && (u.value === null || typeof u.value === 'boolean');
}

const analyses = new WeakMap<ModuleModel, Map<string, PathAnalysis>>();

/** The path analysis for a model and options, built once per file and options. */
export function getPathAnalysis(model: ModuleModel, options: Partial<PathOptions> = {}): PathAnalysis {
  const full: PathOptions = {
    guards: options.guards ?? [],
    trustImportedGuardNames: options.trustImportedGuardNames ?? true,
    modules: { fs: options.modules?.fs ?? [], process: options.modules?.process ?? [] },
  };
  return cachedPer(analyses, model, JSON.stringify(full), () => new PathAnalysis(model, full));
}

/** A short text for a node, as reports quote it (`path.join(os.tmpdir(), 'out.json')`), cut to one line. */
export function quote(text: string): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > 60 ? `${one.slice(0, 57)}…` : one;
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
