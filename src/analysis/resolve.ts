import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { append, destructuredKeyOf, isFunction, memberName, propertyKeyName, unwrap, type FunctionNode, type Node } from './ast.js';
import type { ModuleFacts, Variable } from './module.js';

export type ClassNode = TSESTree.ClassDeclaration | TSESTree.ClassExpression;

/** What an expression may stand for, as far as this module shows. */
export type Value =
  | { kind: 'function'; node: FunctionNode }
  | { kind: 'object'; node: TSESTree.ObjectExpression }
  | { kind: 'array'; node: TSESTree.ArrayExpression }
  | { kind: 'class'; node: ClassNode }
  | { kind: 'instance'; node: ClassNode }
  | { kind: 'import'; source: string; imported: string; path: string[]; node: Node };

const MAX_DEPTH = 12;

/**
 * Resolve an expression to the functions, objects, classes and imports it may hold, following const bindings,
 * single assignments, object properties, array elements bound by loops and `forEach`/`map` callbacks, `bind`,
 * wrappers that return their argument, and class members. Unknown input yields no values (never a guess).
 */
export function resolveValues(facts: ModuleFacts, expr: Node, seen?: Set<Node>, depth = 0): Value[] {
  const n = unwrap(expr);
  const r = resolutionOf(facts);
  const known = r.memo.get(n) ?? provisionalAnswer(r, n);
  if (known) return known;
  if (!seen) {
    // A question from outside: answer it once for the module (the answer does not depend on who asks).
    const outerCut = r.cut;
    const outerProvisional = r.provisional;
    r.cut = false;
    r.provisional = false;
    const out = dedupeValues(resolveNode(facts, n, new Set(), 0));
    const cut = r.cut;
    const provisional = r.provisional;
    r.cut = outerCut || cut;
    r.provisional = outerProvisional || provisional;
    // While the call-site index is being built, parameters resolve to nothing: an answer that met one (or was cut short
    // by a variable that the question which started the build is resolving) is not final, and is kept only while the
    // index is built. Any other answer is the one a later question would get: it is kept for good.
    (r.indexMemo && (cut || provisional) ? r.indexMemo : r.memo).set(n, out);
    return out;
  }
  return resolveNode(facts, n, seen, depth);
}

/** An answer kept only while the call-site index is built; whatever uses it is provisional too. */
function provisionalAnswer(r: Resolution, key: Node | Variable): Value[] | undefined {
  const known = r.indexMemo?.get(key);
  if (known) r.provisional = true;
  return known;
}

/** Per module: what value resolution has answered, and what it is doing now (one lookup per question). */
interface Resolution {
  /** Final answers, by node or variable. */
  memo: Map<Node | Variable, Value[]>;
  /**
   * Answers given while the module's call-site index is built (parameters resolve to nothing meanwhile): reused within
   * that build, which asks about every callee of the module, and dropped when it ends. Null when no build is running.
   */
  indexMemo: Map<Node | Variable, Value[]> | null;
  /** The calls of the module by the function their callee resolves to (built on the first question that needs it). */
  callSites: Map<FunctionNode, TSESTree.CallExpression[]> | null;
  /** The variables being resolved right now. */
  inProgress: Set<Variable>;
  /**
   * Whether an answer given since was cut short (a variable met again while it is being resolved, or the depth
   * limit): such answers are not memoised.
   */
  cut: boolean;
  /**
   * Whether an answer given since depended on the call-site index being built (a parameter that resolved to nothing
   * meanwhile, or an answer kept only for the build): such answers are dropped with the build.
   */
  provisional: boolean;
}
const resolutions = new WeakMap<ModuleFacts, Resolution>();
function resolutionOf(facts: ModuleFacts): Resolution {
  let r = resolutions.get(facts);
  if (!r) {
    r = { memo: new Map(), indexMemo: null, callSites: null, inProgress: new Set(), cut: false, provisional: false };
    resolutions.set(facts, r);
  }
  return r;
}

/**
 * More values than any real question needs: an expression that may hold this many things (a member of every object of
 * a vendored multi-megabyte bundle) is treated as unknown, like any other question without a cheap answer. Without the
 * cap such sets grew to 140,000 values and the lint ran for minutes.
 */
export const MAX_VALUES = 2_000;

function resolveNode(facts: ModuleFacts, n: Node, seen: Set<Node>, depth: number): Value[] {
  const out = resolveNodeUncapped(facts, n, seen, depth);
  return out.length > MAX_VALUES ? [] : out;
}

function resolveNodeUncapped(facts: ModuleFacts, n: Node, seen: Set<Node>, depth: number): Value[] {
  if (depth > MAX_DEPTH || seen.has(n)) {
    resolutionOf(facts).cut = true;
    return [];
  }
  seen.add(n);
  facts.budget.tick('value resolution');
  switch (n.type) {
    case AST_NODE_TYPES.FunctionExpression:
    case AST_NODE_TYPES.ArrowFunctionExpression:
    case AST_NODE_TYPES.FunctionDeclaration:
      return [{ kind: 'function', node: n }];
    case AST_NODE_TYPES.ObjectExpression:
      return [{ kind: 'object', node: n }];
    case AST_NODE_TYPES.ArrayExpression:
      return [{ kind: 'array', node: n }];
    case AST_NODE_TYPES.ClassExpression:
    case AST_NODE_TYPES.ClassDeclaration:
      return [{ kind: 'class', node: n }];
    case AST_NODE_TYPES.NewExpression: {
      return resolveValues(facts, n.callee, seen, depth + 1).flatMap((v): Value[] =>
        // `new Imported()` at module level is one instance for the process: `new()!` tells the project model so.
        v.kind === 'class' ? [{ kind: 'instance' as const, node: v.node }] : v.kind === 'import' ? [{ ...v, path: [...v.path, facts.ownerOf(n) === null ? 'new()!' : 'new()'] }] : [],
      );
    }
    case AST_NODE_TYPES.Identifier:
      return resolveIdentifier(facts, n, seen, depth);
    case AST_NODE_TYPES.MemberExpression:
      return resolveMember(facts, n, seen, depth);
    case AST_NODE_TYPES.ConditionalExpression:
      return [...resolveValues(facts, n.consequent, seen, depth + 1), ...resolveValues(facts, n.alternate, seen, depth + 1)];
    case AST_NODE_TYPES.LogicalExpression:
      return [...resolveValues(facts, n.left, seen, depth + 1), ...resolveValues(facts, n.right, seen, depth + 1)];
    case AST_NODE_TYPES.AssignmentExpression:
      // `return (C.instance ??= new C())`, `x || (x = make())`: the value assigned (or, for `??=`/`||=`/`&&=`, the one
      // already there).
      if (n.operator === '=') return resolveValues(facts, n.right, seen, depth + 1);
      if (n.operator === '??=' || n.operator === '||=' || n.operator === '&&=') return [...resolveValues(facts, n.left, seen, depth + 1), ...resolveValues(facts, n.right, seen, depth + 1)];
      return [];
    case AST_NODE_TYPES.SequenceExpression:
      return n.expressions.length ? resolveValues(facts, n.expressions[n.expressions.length - 1], seen, depth + 1) : [];
    case AST_NODE_TYPES.CallExpression:
      return resolveCallResult(facts, n, seen, depth);
    default:
      return [];
  }
}

function resolveCallResult(facts: ModuleFacts, call: TSESTree.CallExpression, seen: Set<Node>, depth: number): Value[] {
  const callee = unwrap(call.callee);
  // fn.bind(thisArg) is fn.
  if (callee.type === AST_NODE_TYPES.MemberExpression && memberName(callee) === 'bind') {
    return resolveValues(facts, callee.object, seen, depth + 1);
  }
  // Object.values(map) / Object.entries(map): the values of a literal map.
  if (callee.type === AST_NODE_TYPES.MemberExpression && callee.object.type === AST_NODE_TYPES.Identifier && callee.object.name === 'Object') {
    const m = memberName(callee);
    if ((m === 'values' || m === 'entries') && call.arguments[0]) {
      const out: Value[] = [];
      for (const v of resolveValues(facts, call.arguments[0], seen, depth + 1)) {
        if (v.kind === 'object') out.push({ kind: 'array', node: syntheticArrayOf(v.node) });
      }
      return out;
    }
  }
  // `static getInstance()` and factories: what the called function returns.
  const out: Value[] = [];
  for (const f of resolveValues(facts, callee, seen, depth + 1)) {
    if (f.kind === 'import') {
      out.push({ ...f, path: [...f.path, '()'] });
      continue;
    }
    if (f.kind !== 'function') continue;
    for (const r of returnedExpressions(f.node)) {
      const returned = resolveValues(facts, r, seen, depth + 1);
      append(out, returned);
      // A same-module wrapper (`wrap(handler)` returning `(...a) => handler(...a)`): one closure serves every wrapped
      // handler, so the call also stands for the handler it was given.
      for (const v of returned) {
        if (v.kind !== 'function') continue;
        for (const i of calledParameters(facts, f.node, v.node)) {
          const arg = call.arguments[i];
          if (arg && arg.type !== AST_NODE_TYPES.SpreadElement) for (const w of resolveValues(facts, arg, seen, depth + 1)) if (w.kind === 'function' || w.kind === 'import') out.push(w);
        }
      }
    }
  }
  // Wrapper calls (`withAuth(fn)`, `wrap(createHandler(fn))`): when the callee's body is not in this module (unknown,
  // or imported), the functions passed in are what the wrapper ends up running.
  if (!out.some((v) => v.kind !== 'import')) {
    for (const a of call.arguments) {
      const arg = unwrap(a);
      if (isFunction(arg) || arg.type === AST_NODE_TYPES.Identifier || arg.type === AST_NODE_TYPES.CallExpression || arg.type === AST_NODE_TYPES.MemberExpression) {
        // An imported function handed to the wrapper (`wrapToolHandler(handleToolCall)`) is followed into its module.
        for (const v of resolveValues(facts, arg, seen, depth + 1)) if (v.kind === 'function' || (v.kind === 'import' && !v.path.includes('()'))) out.push(v);
      }
    }
  }
  return out;
}

/** Indices of `outer`'s parameters that `inner` (a function `outer` returns) calls. */
function calledParameters(facts: ModuleFacts, outer: FunctionNode, inner: FunctionNode): number[] {
  const out: number[] = [];
  for (const c of facts.callsByOwner.get(inner) ?? []) {
    const callee = unwrap(c.callee);
    if (callee.type !== AST_NODE_TYPES.Identifier) continue;
    const v = facts.variableOf(callee);
    const def = v?.defs[0];
    if (def?.type !== 'Parameter' || def.node !== outer) continue;
    const i = outer.params.findIndex((p) => p.type === AST_NODE_TYPES.Identifier && p.name === callee.name);
    if (i >= 0 && !out.includes(i)) out.push(i);
  }
  return out;
}

const syntheticArrays = new WeakMap<TSESTree.ObjectExpression, TSESTree.ArrayExpression>();
/** The property values of an object literal, viewed as an array (for `Object.values`). */
function syntheticArrayOf(obj: TSESTree.ObjectExpression): TSESTree.ArrayExpression {
  let arr = syntheticArrays.get(obj);
  if (!arr) {
    const elements = obj.properties.flatMap((p) => (p.type === AST_NODE_TYPES.Property ? [p.value as TSESTree.Expression] : []));
    arr = { type: AST_NODE_TYPES.ArrayExpression, elements, range: obj.range, loc: obj.loc, parent: obj.parent } as TSESTree.ArrayExpression;
    syntheticArrays.set(obj, arr);
  }
  return arr;
}

export function returnedExpressions(fn: FunctionNode): Node[] {
  if (fn.body.type !== AST_NODE_TYPES.BlockStatement) return [fn.body];
  const out: Node[] = [];
  const stack: Node[] = [...fn.body.body];
  while (stack.length) {
    const s = stack.pop()!;
    switch (s.type) {
      case AST_NODE_TYPES.ReturnStatement:
        if (s.argument) out.push(s.argument);
        break;
      case AST_NODE_TYPES.IfStatement:
        stack.push(s.consequent);
        if (s.alternate) stack.push(s.alternate);
        break;
      case AST_NODE_TYPES.BlockStatement:
        append(stack, s.body);
        break;
      case AST_NODE_TYPES.TryStatement:
        stack.push(s.block);
        if (s.handler) stack.push(s.handler.body);
        if (s.finalizer) stack.push(s.finalizer);
        break;
      case AST_NODE_TYPES.SwitchStatement:
        for (const c of s.cases) append(stack, c.consequent);
        break;
      default:
        break;
    }
  }
  return out;
}

function resolveIdentifier(facts: ModuleFacts, id: TSESTree.Identifier, seen: Set<Node>, depth: number): Value[] {
  const v = facts.variableOf(id);
  if (!v) return [];
  return resolveVariable(facts, v, seen, depth);
}

/**
 * What a variable may hold. The answer is the same for every reference to it, so it is computed once per module and
 * memoised — unless it was cut short (a cycle back to a variable or node still being resolved, the depth limit), or
 * the call-site index is being built (parameters resolve to nothing meanwhile).
 */
export function resolveVariable(facts: ModuleFacts, v: Variable, seen?: Set<Node>, depth = 0): Value[] {
  const r = resolutionOf(facts);
  const known = r.memo.get(v) ?? provisionalAnswer(r, v);
  if (known) return known;
  if (r.inProgress.has(v)) {
    r.cut = true;
    return [];
  }
  r.inProgress.add(v);
  const outerCut = r.cut;
  const outerProvisional = r.provisional;
  r.cut = false;
  r.provisional = false;
  let out: Value[];
  try {
    out = resolveVariableWith(facts, v, seen ?? new Set(), depth);
  } finally {
    r.inProgress.delete(v);
  }
  const cut = r.cut;
  const provisional = r.provisional;
  r.cut = outerCut || cut;
  r.provisional = outerProvisional || provisional;
  // A binding assigned the same thing in a thousand places (`client = new ApiClient()` in every tool) holds one value.
  out = dedupeValues(out);
  if (!cut) (r.indexMemo && provisional ? r.indexMemo : r.memo).set(v, out);
  return out;
}

/** The same values once each (same node, or the same import and member path). */
export function dedupeValues(values: Value[]): Value[] {
  if (values.length < 2) return values;
  const seen = new Set<unknown>();
  const keys = new Map<string, true>();
  const out: Value[] = [];
  for (const v of values) {
    if (v.kind === 'import') {
      const k = `${v.source}\u0000${v.imported}\u0000${v.path.join('\u0000')}`;
      if (keys.has(k)) continue;
      keys.set(k, true);
    } else {
      const k = `${v.kind}`;
      if (seen.has(v.node) && keys.has(`${k}:${v.node.range[0]}`)) continue;
      seen.add(v.node);
      keys.set(`${k}:${v.node.range[0]}`, true);
    }
    out.push(v);
  }
  return out;
}

function resolveVariableWith(facts: ModuleFacts, v: Variable, seen: Set<Node>, depth: number): Value[] {
  const out: Value[] = [];
  for (const def of v.defs) {
    switch (def.type) {
      case 'FunctionName':
        // `declare function f()` and overload signatures have no body to run.
        if (isFunction(def.node)) out.push({ kind: 'function', node: def.node });
        break;
      case 'ClassName':
        out.push({ kind: 'class', node: def.node as ClassNode });
        break;
      case 'ImportBinding': {
        const imp = facts.imports.get(v.name);
        if (imp) out.push({ kind: 'import', source: imp.source, imported: imp.imported, path: [], node: def.node });
        break;
      }
      case 'Variable': {
        const decl = def.node as TSESTree.VariableDeclarator;
        if (decl.id.type === AST_NODE_TYPES.Identifier) {
          if (decl.init) append(out, resolveValues(facts, decl.init, seen, depth + 1));
          else append(out, loopElementValues(facts, decl, seen, depth));
        } else if (decl.init && decl.id.type === AST_NODE_TYPES.ObjectPattern) {
          // const { handler } = toolDef
          const key = destructuredKeyOf(decl.id, v.name);
          if (key) for (const base of resolveValues(facts, decl.init, seen, depth + 1)) append(out, propertyOf(facts, base, key, seen, depth));
        } else if (!decl.init && isEntryValue(decl.id, v.name)) {
          // for (const [name, tool] of Object.entries(TOOLS))
          const loop = decl.parent?.parent;
          if (loop?.type === AST_NODE_TYPES.ForOfStatement && loop.left === decl.parent && isEntriesCall(loop.right)) append(out, elementsOf(facts, loop.right, seen, depth));
        }
        break;
      }
      case 'Parameter':
        append(out, parameterValues(facts, def.node as FunctionNode, v, seen, depth));
        break;
      default:
        break;
    }
  }
  // `let handler; handler = fn;` — single assignments elsewhere.
  if (v.defs.length === 1 && v.defs[0].type === 'Variable' && (v.defs[0].parent as TSESTree.VariableDeclaration | null)?.kind !== 'const') {
    for (const ref of v.references) {
      if (!ref.isWrite() || !ref.writeExpr || ref.init) continue;
      append(out, resolveValues(facts, ref.writeExpr, seen, depth + 1));
    }
  }
  return out;
}


/** `for (const t of tools)`: the elements of `tools`. */
function loopElementValues(facts: ModuleFacts, decl: TSESTree.VariableDeclarator, seen: Set<Node>, depth: number): Value[] {
  const declaration = decl.parent;
  const loop = declaration?.parent;
  if (loop && loop.type === AST_NODE_TYPES.ForOfStatement && loop.left === declaration) {
    return elementsOf(facts, loop.right, seen, depth);
  }
  return [];
}

function elementsOf(facts: ModuleFacts, arrayExpr: Node, seen: Set<Node>, depth: number): Value[] {
  const out: Value[] = [];
  for (const a of resolveValues(facts, arrayExpr, seen, depth + 1)) {
    if (a.kind === 'array') {
      for (const el of a.node.elements) {
        if (!el) continue;
        if (el.type === AST_NODE_TYPES.SpreadElement) append(out, elementsOf(facts, el.argument, seen, depth + 1));
        else append(out, resolveValues(facts, el, seen, depth + 1));
      }
    } else if (a.kind === 'import') {
      out.push({ ...a, path: [...a.path, '[]'] });
    }
  }
  return out;
}

/** `[key, value]` binding `name` as the value: the second element of an entry pair. */
function isEntryValue(pattern: Node, name: string): boolean {
  if (pattern.type !== AST_NODE_TYPES.ArrayPattern) return false;
  const el = pattern.elements[1];
  return !!el && el.type === AST_NODE_TYPES.Identifier && el.name === name;
}

/** `Object.entries(x)`, whose elements `resolveValues` gives as the values of `x` (the pairs' second halves). */
function isEntriesCall(expr: Node): boolean {
  const e = unwrap(expr);
  if (e.type !== AST_NODE_TYPES.CallExpression) return false;
  const callee = unwrap(e.callee);
  return callee.type === AST_NODE_TYPES.MemberExpression && callee.object.type === AST_NODE_TYPES.Identifier && callee.object.name === 'Object' && memberName(callee) === 'entries';
}

/**
 * The object whose keys a loop variable runs over, when `key` is the first half of an entry pair:
 * `for (const [key, tool] of Object.entries(TOOLS))`, `Object.entries(TOOLS).forEach(([key, tool]) => …)` give `TOOLS`.
 */
export function entryKeySource(facts: ModuleFacts, key: Node): Node | null {
  const id = unwrap(key);
  if (id.type !== AST_NODE_TYPES.Identifier) return null;
  const def = facts.variableOf(id)?.defs[0];
  if (!def) return null;
  const isKey = (p: Node | undefined) => p?.type === AST_NODE_TYPES.ArrayPattern && p.elements[0]?.type === AST_NODE_TYPES.Identifier && p.elements[0].name === id.name;
  let entries: Node | null = null;
  if (def.type === 'Variable') {
    const decl = def.node as TSESTree.VariableDeclarator;
    const loop = decl.parent?.parent;
    if (isKey(decl.id) && loop?.type === AST_NODE_TYPES.ForOfStatement && loop.left === decl.parent) entries = loop.right;
  } else if (def.type === 'Parameter') {
    const fn = def.node as FunctionNode;
    const call = fn.parent;
    const callee = call?.type === AST_NODE_TYPES.CallExpression && call.arguments[0] === fn ? unwrap(call.callee) : null;
    if (isKey(fn.params[0]) && callee?.type === AST_NODE_TYPES.MemberExpression && ['forEach', 'map', 'flatMap'].includes(memberName(callee) ?? '')) entries = callee.object;
  }
  if (!entries || !isEntriesCall(entries)) return null;
  return (unwrap(entries) as TSESTree.CallExpression).arguments[0] ?? null;
}

/** A callback parameter bound to array elements (`tools.forEach(t => …)`) or the same parameter of its call sites. */
function parameterValues(facts: ModuleFacts, fn: FunctionNode, v: Variable, seen: Set<Node>, depth: number): Value[] {
  const index = fn.params.findIndex((p) => paramName(p) === v.name);
  const call = fn.parent;
  // Object.entries(TOOLS).forEach(([name, tool]) => …)
  if (index < 0 && fn.params[0] && isEntryValue(fn.params[0], v.name) && call?.type === AST_NODE_TYPES.CallExpression && call.arguments[0] === fn) {
    const callee = unwrap(call.callee);
    const m = callee.type === AST_NODE_TYPES.MemberExpression ? memberName(callee) : null;
    if (callee.type === AST_NODE_TYPES.MemberExpression && (m === 'forEach' || m === 'map' || m === 'flatMap') && isEntriesCall(callee.object)) return elementsOf(facts, callee.object, seen, depth);
    return [];
  }
  if (index === 0 && call && call.type === AST_NODE_TYPES.CallExpression && call.arguments[0] === fn) {
    const callee = unwrap(call.callee);
    if (callee.type === AST_NODE_TYPES.MemberExpression) {
      const m = memberName(callee);
      if (m === 'forEach' || m === 'map' || m === 'flatMap' || m === 'filter') return elementsOf(facts, callee.object, seen, depth);
    }
  }
  // A parameter of a same-module function: whatever its call sites pass (project wrappers around `server.tool`).
  if (index < 0) return [];
  const out: Value[] = [];
  const cls = constructorClass(fn);
  for (const site of cls ? constructionsOf(facts, cls) : callSitesOf(facts, fn)) {
    const arg = site.arguments[index];
    if (arg && arg.type !== AST_NODE_TYPES.SpreadElement) append(out, resolveValues(facts, arg, seen, depth + 1));
  }
  return out;
}

/** The calls in this module whose callee resolves to `fn` (built once per module; parameters are not followed while building). */
export function callSitesOf(facts: ModuleFacts, fn: FunctionNode): TSESTree.CallExpression[] {
  // Most helpers are named functions only ever called by name: their references are their call sites, no index needed.
  const direct = directCallSites(facts, fn);
  if (direct) return direct;
  // A function written inline as an argument of a call into another module (`server.tool(…, async (args) => …)`,
  // `items.map(x => …)`) is called by that module, never by a call of this one: no need to resolve every call here.
  if (inlineArgumentOfForeignCall(facts, fn)) return [];
  const r = resolutionOf(facts);
  let index = r.callSites;
  if (!index) {
    // Parameters are not followed while the index is built (they would ask for it): the answer is provisional.
    if (r.indexMemo) {
      r.provisional = true;
      return [];
    }
    r.indexMemo = new Map();
    index = new Map();
    try {
      for (const call of facts.allCalls) {
        if (call.type !== AST_NODE_TYPES.CallExpression) continue;
        const callee = unwrap(call.callee);
        if (callee.type !== AST_NODE_TYPES.Identifier && callee.type !== AST_NODE_TYPES.MemberExpression) continue;
        for (const v of resolveValues(facts, callee)) {
          if (v.kind !== 'function') continue;
          const list = index.get(v.node);
          if (list) list.push(call);
          else index.set(v.node, [call]);
        }
      }
    } finally {
      r.indexMemo = null;
    }
    r.callSites = index;
  }
  return index.get(fn) ?? [];
}

function inlineArgumentOfForeignCall(facts: ModuleFacts, fn: FunctionNode): boolean {
  const call = fn.parent;
  return !!call && call.type === AST_NODE_TYPES.CallExpression && call.arguments.includes(fn as TSESTree.Expression) && foreignCallee(facts, call);
}

/**
 * A callee that is no function of this module (an import, a member of one, a built-in method): it cannot hand its
 * arguments to code here that calls them.
 */
function foreignCallee(facts: ModuleFacts, call: TSESTree.CallExpression): boolean {
  const callee = unwrap(call.callee);
  if (callee.type !== AST_NODE_TYPES.Identifier && callee.type !== AST_NODE_TYPES.MemberExpression) return false;
  return !resolveValues(facts, callee).some((v) => v.kind === 'function' || v.kind === 'class');
}

/**
 * The call sites of a function bound to a name whose every reference calls it; null when a reference escapes. Exporting
 * it (`export { helper }`, `export default helper`) is no escape here: other modules' calls are not this module's call
 * sites, and the full index would not see them either.
 */
function directCallSites(facts: ModuleFacts, fn: FunctionNode): TSESTree.CallExpression[] | null {
  let id: TSESTree.Identifier | null = null;
  if (fn.type === AST_NODE_TYPES.FunctionDeclaration && fn.id) id = fn.id;
  else if (fn.parent?.type === AST_NODE_TYPES.VariableDeclarator && fn.parent.init === fn && fn.parent.id.type === AST_NODE_TYPES.Identifier) id = fn.parent.id;
  if (!id) return null;
  const v = facts.variableOf(id);
  if (!v || v.defs.length !== 1) return null;
  const out: TSESTree.CallExpression[] = [];
  for (const ref of v.references) {
    if (ref.init) continue;
    if (ref.isWrite()) return null;
    const p = ref.identifier.parent;
    if (p?.type === AST_NODE_TYPES.ExportSpecifier || (p?.type === AST_NODE_TYPES.ExportDefaultDeclaration && p.declaration === ref.identifier)) continue;
    if (p?.type !== AST_NODE_TYPES.CallExpression) return null;
    if (p.callee === ref.identifier) out.push(p);
    // Handed to another module's function (`server.tool('x', schema, handler)`): called there, not here.
    else if (!p.arguments.includes(ref.identifier as TSESTree.Expression) || !foreignCallee(facts, p)) return null;
  }
  return out;
}

function resolveMember(facts: ModuleFacts, m: TSESTree.MemberExpression, seen: Set<Node>, depth: number): Value[] {
  const name = memberName(m);
  const out: Value[] = [];
  const obj = unwrap(m.object);
  if (obj.type === AST_NODE_TYPES.ThisExpression) {
    const cls = enclosingClass(m);
    // In a static method `this` is the class: `this.helper()` is a static member.
    if (cls && name) append(out, classMember(facts, cls, name, inStaticMember(m, cls), seen, depth));
    return out;
  }
  for (const base of resolveValues(facts, obj, seen, depth + 1)) {
    if (name === null) {
      // handlers[name]: any value of the map.
      if (base.kind === 'object') {
        for (const p of base.node.properties) {
          if (p.type === AST_NODE_TYPES.Property) append(out, resolveValues(facts, p.value, seen, depth + 1));
        }
      } else if (base.kind === 'array') {
        append(out, elementsOf(facts, base.node, seen, depth));
      } else if (base.kind === 'import') {
        // toolHandlers[name] on a map another module builds: any of its values (resolved there).
        out.push({ ...base, path: [...base.path, '[]'] });
      }
      continue;
    }
    append(out, propertyOf(facts, base, name, seen, depth));
  }
  return out;
}

export function propertyOf(facts: ModuleFacts, base: Value, name: string, seen: Set<Node>, depth: number): Value[] {
  switch (base.kind) {
    case 'object':
      for (const p of base.node.properties) {
        if (p.type === AST_NODE_TYPES.SpreadElement) {
          for (const b of resolveValues(facts, p.argument, seen, depth + 1)) {
            const found = propertyOf(facts, b, name, seen, depth + 1);
            if (found.length) return found;
          }
          continue;
        }
        if (propertyKeyName(p) === name) return resolveValues(facts, p.value, seen, depth + 1);
      }
      return [];
    case 'class':
      return classMember(facts, base.node, name, true, seen, depth);
    case 'instance':
      return classMember(facts, base.node, name, false, seen, depth);
    case 'import':
      return [{ ...base, path: [...base.path, name] }];
    default:
      return [];
  }
}

/** The name a parameter binds when it is a plain one (`store`, `store = x`, `private store: Store`). */
function paramName(p: TSESTree.Parameter): string | null {
  const q = p.type === AST_NODE_TYPES.TSParameterProperty ? p.parameter : p;
  const id = q.type === AST_NODE_TYPES.AssignmentPattern ? q.left : q;
  return id.type === AST_NODE_TYPES.Identifier ? id.name : null;
}

/** The class whose constructor `fn` is, or null. */
function constructorClass(fn: FunctionNode): ClassNode | null {
  const m = fn.parent;
  if (m?.type !== AST_NODE_TYPES.MethodDefinition || m.kind !== 'constructor') return null;
  const c = m.parent?.parent;
  return c && (c.type === AST_NODE_TYPES.ClassDeclaration || c.type === AST_NODE_TYPES.ClassExpression) ? c : null;
}

const constructionIndex = new WeakMap<ModuleFacts, Map<ClassNode, TSESTree.NewExpression[]> | 'building'>();

/**
 * The `new C(…)` expressions of this module that create `cls` (aliases included), indexed once per module. A question
 * asked while the index is being built (a callee that resolves through a constructor parameter) gets nothing: a miss,
 * never a guess.
 */
export function constructionsOf(facts: ModuleFacts, cls: ClassNode): readonly TSESTree.NewExpression[] {
  const known = constructionIndex.get(facts);
  if (known === 'building') return [];
  if (known) return known.get(cls) ?? [];
  constructionIndex.set(facts, 'building');
  const index = new Map<ClassNode, TSESTree.NewExpression[]>();
  try {
    for (const call of facts.allCalls) {
      if (call.type !== AST_NODE_TYPES.NewExpression) continue;
      for (const v of resolveValues(facts, call.callee)) {
        if (v.kind !== 'class') continue;
        const list = index.get(v.node);
        if (list) list.push(call);
        else index.set(v.node, [call]);
      }
    }
  } catch (e) {
    constructionIndex.delete(facts);
    throw e;
  }
  constructionIndex.set(facts, index);
  return index.get(cls) ?? [];
}

/** What the class's own code assigns to `this.name` (or `Cls.name`). */
function assignedInClass(facts: ModuleFacts, cls: ClassNode, name: string, seen: Set<Node>, depth: number): Value[] {
  const out: Value[] = [];
  for (const a of facts.assignments) {
    if (a.range[0] < cls.range[0] || a.range[1] > cls.range[1]) continue;
    const left = unwrap(a.left);
    if (left.type !== AST_NODE_TYPES.MemberExpression || memberName(left) !== name) continue;
    const obj = unwrap(left.object);
    const self = obj.type === AST_NODE_TYPES.ThisExpression || (obj.type === AST_NODE_TYPES.Identifier && cls.id?.name === obj.name);
    if (self) append(out, resolveValues(facts, a.right, seen, depth + 1));
  }
  return out;
}

export function classMember(facts: ModuleFacts, cls: ClassNode, name: string, isStatic: boolean, seen: Set<Node>, depth: number): Value[] {
  if (!isStatic) {
    // `constructor(private store: Store)`: the field holds what each `new Cls(…)` passes there.
    for (const el of cls.body.body) {
      if (el.type !== AST_NODE_TYPES.MethodDefinition || el.kind !== 'constructor' || el.value.type !== AST_NODE_TYPES.FunctionExpression) continue;
      const index = el.value.params.findIndex((p) => p.type === AST_NODE_TYPES.TSParameterProperty && paramName(p) === name);
      if (index < 0) continue;
      const out: Value[] = [];
      for (const site of constructionsOf(facts, cls)) {
        const arg = site.arguments[index];
        if (arg && arg.type !== AST_NODE_TYPES.SpreadElement) append(out, resolveValues(facts, arg, seen, depth + 1));
      }
      return out;
    }
  }
  for (const el of cls.body.body) {
    if (el.type !== AST_NODE_TYPES.MethodDefinition && el.type !== AST_NODE_TYPES.PropertyDefinition) continue;
    if (el.static !== isStatic || propertyKeyName(el) !== name) continue;
    const initial = el.value ? resolveValues(facts, el.value, seen, depth + 1) : [];
    if (initial.length) return initial;
    // A field declared without a value (or `= null`): what the class's own methods assign to it (`this.x = …`,
    // `C.instance = …`).
    return assignedInClass(facts, cls, name, seen, depth);
  }
  // Not declared at all (JavaScript): `constructor() { this.storage = new Storage(); }`.
  const assigned = assignedInClass(facts, cls, name, seen, depth);
  if (assigned.length) return assigned;
  if (!isStatic && cls.superClass) {
    for (const sup of resolveValues(facts, cls.superClass, seen, depth + 1)) {
      if (sup.kind === 'class') return classMember(facts, sup.node, name, false, seen, depth + 1);
    }
  }
  return [];
}

/** Is `node` inside a static member of `cls` (where `this` is the class itself)? */
function inStaticMember(node: Node, cls: ClassNode): boolean {
  for (let n = node.parent; n && n !== cls; n = n.parent) {
    if ((n.type === AST_NODE_TYPES.MethodDefinition || n.type === AST_NODE_TYPES.PropertyDefinition) && n.parent?.parent === cls) return n.static;
  }
  return false;
}

/** Is `node` in a static member of `cls` (`static getInstance() { … new C() … }`: one instance per process)? */
export function inStaticMethodOf(node: Node, cls: ClassNode): boolean {
  if (enclosingClass(node) !== cls) return false;
  for (let n = node.parent; n && n !== cls; n = n.parent) {
    if (n.type === AST_NODE_TYPES.MethodDefinition || n.type === AST_NODE_TYPES.PropertyDefinition) return n.static;
  }
  return false;
}

export function enclosingClass(node: Node): ClassNode | null {
  let n = node.parent;
  while (n) {
    if (n.type === AST_NODE_TYPES.ClassBody) {
      const c = n.parent;
      if (c && (c.type === AST_NODE_TYPES.ClassDeclaration || c.type === AST_NODE_TYPES.ClassExpression)) return c;
    }
    // `this` inside a non-arrow function that is not a class member refers to something else.
    if ((n.type === AST_NODE_TYPES.FunctionDeclaration || n.type === AST_NODE_TYPES.FunctionExpression) && n.parent?.type !== AST_NODE_TYPES.MethodDefinition) {
      return null;
    }
    n = n.parent;
  }
  return null;
}

export function functionsOf(values: Value[]): FunctionNode[] {
  const out: FunctionNode[] = [];
  for (const v of values) if (v.kind === 'function' && !out.includes(v.node)) out.push(v.node);
  return out;
}
