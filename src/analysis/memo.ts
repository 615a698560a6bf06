// Memo tables whose entries are computed from their key alone: `cache.set(zone, await fetch(url(zone)))`. A second
// caller who asks for the same key gets what it would have fetched itself, so the table carries nothing from one caller
// to another. Anything else the stored value depends on (another argument, the request context, a credential, `this`, a
// binding that handler code reassigns or fills) makes the entry one caller's, and the table an accumulator. The same
// reading of a value's sources tells a cache's own bookkeeping (the time of its fill) from state a caller leaves.
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { isFunction, isInside, memberName, unwrap, walk, type FunctionNode, type Node } from './ast.js';
import { cachedFor } from './cache.js';
import type { ModuleModel } from './model.js';
import type { Variable } from './module.js';
import { ARRAY_MUTATORS, COLLECTION_MUTATORS, type StateAccess } from './state.js';

/** A parameter of the memoising function and the properties read from it (`args.path` → `args`, `['path']`). */
interface Source {
  param: Variable;
  path: readonly string[];
}

/** Where a value comes from, as far as a memo is concerned: parameters of the memoising function, or `impure`. */
interface Sources {
  params: Source[];
  impure: boolean;
}

/**
 * Both sides read a parameter as finely as it is written where it is named (`args.path`); the key's sources also take
 * the reads of an alias (`const a = req.params; a.path` is `req.params.path`), the value's do not (`a.content` counts
 * as all of `req.params`), so a value is covered only by a key that names the same property or one that encloses it.
 */
type Side = 'key' | 'value';

const REMOVALS = new Set(['delete', 'clear']);
const MAX_DEPTH = 6;

const memos = new WeakMap<ModuleModel, Map<string, boolean>>();

/**
 * Whether every change handler code makes to a Map binding files an entry that is a function of its key (`set(k, v)`
 * where `v` depends on nothing but the parameters `k` is made of, constants and configuration, after the same
 * function looked `k` up), or removes one.
 */
export function isPureMemo(model: ModuleModel, bindingKey: string): boolean {
  const perModel = cachedFor(memos, model, () => new Map<string, boolean>());
  let known = perModel.get(bindingKey);
  if (known === undefined) {
    known = computePureMemo(model, model.accessesOf(bindingKey));
    perModel.set(bindingKey, known);
  }
  return known;
}

/**
 * Whether a value evaluated where it stands takes nothing from any call: no parameter of its function, no `this`, no
 * binding that code reassigns or fills (`Date.now()`, a constant, a start-up client's reply to a fixed question).
 */
export function independentOfCalls(model: ModuleModel, value: Node): boolean {
  const fn = model.facts.ownerOf(value);
  if (!fn) return false;
  const s = sourcesOf(model, fn, value, 'value', [], 0, new Map());
  return !s.impure && s.params.length === 0;
}

/** The statement list a node's statement sits in (a function body or block), or null. */
function blockOf(node: Node): Node | null {
  let n: Node = node;
  while (n.parent && n.parent.type !== AST_NODE_TYPES.BlockStatement && n.parent.type !== AST_NODE_TYPES.Program) n = n.parent;
  return n.parent ?? null;
}

/**
 * A write that goes with another binding's lazy fill, in the same block, of a binding the fill's code reads before it
 * (`toolVersion = stdout; toolVersionAt = Date.now()` after `if (toolVersion && fresh(toolVersionAt)) return`), with a
 * value that takes nothing from any call: the cache's own bookkeeping, which no-first-caller-cache judges with the fill.
 */
export function isFillBookkeeping(model: ModuleModel, w: StateAccess): boolean {
  if ((w.kind !== 'assign' && w.kind !== 'fieldWrite') || !w.value || !independentOfCalls(model, w.value)) return false;
  const block = blockOf(w.node);
  if (!block) return false;
  const fn = model.facts.ownerOf(w.node);
  const reads = model.accessesOf(w.binding.key).filter((a) => a.kind === 'read' && model.facts.ownerOf(a.node) === fn);
  return model.stateAccesses().some(
    (f) => f.kind === 'lazyInit' && f.binding.key !== w.binding.key && blockOf(f.node) === block && reads.some((r) => r.node.range[0] < f.node.range[0]),
  );
}

/**
 * A write inside a once-only block (`if (!ready) { ready = true; … agent = new Agent(config) }`) of a value that takes
 * nothing from any call: one-time set-up that the first call happens to run. Every caller gets what it would have
 * built itself; no-first-caller-cache judges such fills (a browser or a login is still state).
 */
export function isOnceInit(model: ModuleModel, w: StateAccess): boolean {
  if ((w.kind !== 'assign' && w.kind !== 'fieldWrite') || !w.value || !independentOfCalls(model, w.value)) return false;
  for (let child: Node = w.node, n = w.node.parent; n && !isFunction(n); child = n, n = n.parent) {
    if (n.type !== AST_NODE_TYPES.IfStatement || n.consequent !== child) continue;
    const t = unwrap(n.test);
    const flag = t.type === AST_NODE_TYPES.UnaryExpression && t.operator === '!' ? unwrap(t.argument) : null;
    if (flag?.type !== AST_NODE_TYPES.Identifier || n.consequent.type !== AST_NODE_TYPES.BlockStatement) continue;
    // The block sets the flag to a constant before anything else can run twice.
    const sets = n.consequent.body.some((s) => {
      const e = s.type === AST_NODE_TYPES.ExpressionStatement ? unwrap(s.expression) : null;
      return e?.type === AST_NODE_TYPES.AssignmentExpression && e.operator === '=' && unwrap(e.left).type === AST_NODE_TYPES.Identifier && (unwrap(e.left) as TSESTree.Identifier).name === flag.name && unwrap(e.right).type === AST_NODE_TYPES.Literal;
    });
    if (sets) return true;
  }
  return false;
}

function computePureMemo(model: ModuleModel, accesses: readonly StateAccess[]): boolean {
  let sets = 0;
  for (const a of accesses) {
    if (a.kind === 'read') continue;
    if (a.kind !== 'mutate' || a.path.length > 0 || a.binding.container !== 'map' || a.through || a.handedTo) return false;
    if (a.method !== undefined && REMOVALS.has(a.method)) continue;
    if (a.method !== 'set' || a.node.type !== AST_NODE_TYPES.CallExpression || a.node.arguments.length !== 2) return false;
    if (!isPureEntry(model, a.node, accesses)) return false;
    sets++;
  }
  return sets > 0;
}

function isPureEntry(model: ModuleModel, call: TSESTree.CallExpression, accesses: readonly StateAccess[]): boolean {
  const fn = model.facts.ownerOf(call);
  if (!fn) return false;
  const [keyArg, valueArg] = call.arguments;
  const key = sourcesOf(model, fn, keyArg, 'key', [], 0, new Map());
  // A memo is consulted before it is filled: the same function looks the key up first (`get`/`has`), and returns
  // what it finds instead of computing it. A table nobody looks entries up in first is a record of calls.
  const lookedUp = accesses.some((r) => {
    // `cache.get(k)` reads through an accessor (`get()` on the path), `cache.has(k)` is a keyed read.
    const lookup = r.kind === 'read' && ((r.path.length === 0 && (r.method === 'get' || r.method === 'has')) || (r.path.length > 0 && (r.path[0] === 'get()' || r.path[0] === 'has()')));
    const k = r.keys[0];
    if (!lookup || !k || k.range[0] >= call.range[0] || model.facts.ownerOf(k) !== fn) return false;
    return sameSources(key, sourcesOf(model, fn, k, 'key', [], 0, new Map()));
  });
  if (!lookedUp) return false;
  const value = sourcesOf(model, fn, valueArg, 'value', [], 0, new Map());
  if (key.impure || value.impure) return false;
  // Computed from its key: an entry that does not depend on the key at all (`tasks.set(path, new AbortController())`)
  // is a handle to one call's work, which another caller can reach by naming the same key.
  if (value.params.length === 0) return false;
  return value.params.every((v) => key.params.some((k) => k.param === v.param && k.path.length <= v.path.length && k.path.every((p, i) => v.path[i] === p)));
}

function sameSources(a: Sources, b: Sources): boolean {
  if (a.impure || b.impure) return false;
  const keyOf = (x: Source) => `${x.param.defs[0]?.name.range[0]}:${x.path.join('.')}`;
  const as = new Set(a.params.map(keyOf));
  const bs = new Set(b.params.map(keyOf));
  return as.size === bs.size && [...as].every((k) => bs.has(k));
}

/** The sources of an expression evaluated in `fn`: the free identifiers of its subtree, followed to where they are set. */
function sourcesOf(model: ModuleModel, fn: FunctionNode, expr: Node, side: Side, suffix: readonly string[], depth: number, seen: Map<Variable, Set<string>>): Sources {
  const out: Sources = { params: [], impure: false };
  if (depth > MAX_DEPTH) {
    out.impure = true;
    return out;
  }
  const facts = model.facts;
  walk(expr, facts.visitorKeys, (n) => {
    if (out.impure) return;
    if (n.type === AST_NODE_TYPES.ThisExpression || n.type === AST_NODE_TYPES.Super) {
      out.impure = true;
      return;
    }
    if (n.type !== AST_NODE_TYPES.Identifier || !isValueReference(n)) return;
    const v = facts.variableOf(n);
    // A global (`fetch`, `Date`, `JSON`, `encodeURIComponent`): nobody's call.
    if (!v) return;
    const def = v.defs[0];
    if (!def) return;
    // Bound inside the expression itself (a callback's parameter, `(r) => r.text()`).
    if (isInside(def.name, expr)) return;
    const read = side === 'key' ? [...propertiesRead(n), ...suffix] : propertiesRead(n);
    if (def.type === 'Parameter') {
      if (def.node === fn) out.params.push({ param: v, path: read });
      // A parameter of an enclosing function: whatever that function was called with.
      else out.impure = true;
      return;
    }
    // Each alias is followed once per side and path (`seen`); its reads go on the key's sources.
    const seenKey = `${side}:${read.join('.')}`;
    if (seenAt(seen, v, seenKey)) return;
    if (def.type === 'ImportBinding' || def.type === 'ClassName' || def.type === 'FunctionName') {
      if (def.type === 'FunctionName') mergeInto(out, functionSources(model, fn, def.node as FunctionNode, depth + 1, seen));
      return;
    }
    if (def.type !== 'Variable') {
      out.impure = true;
      return;
    }
    const writes = v.references.filter((r) => r.isWrite());
    const local = isInside(def.node, fn);
    // Outside the memoising function: only a binding no code reassigns, holding nothing handler code changes (a client
    // built at start-up from configuration is the server's; a Map or a state object others fill is not).
    if (!local && (writes.some((r) => !r.init) || mutatedAnywhere(v))) {
      out.impure = true;
      return;
    }
    // `for (const x of xs)`, destructuring without an init the scope analysis names: not followed.
    if (writes.length === 0) {
      if (local) out.impure = true;
      return;
    }
    for (const r of writes) {
      const assigned = r.writeExpr as Node | null | undefined;
      if (!assigned) continue;
      const value = unwrap(assigned);
      mergeInto(out, isFunction(value) ? functionSources(model, fn, value, depth + 1, seen) : sourcesOf(model, fn, value, side, read, depth + 1, seen));
      if (out.impure) return;
    }
  });
  return out;
}

/** What a function the value calls or hands on reads from outside itself (its own parameters are bound by the call). */
function functionSources(model: ModuleModel, fn: FunctionNode, callee: FunctionNode, depth: number, seen: Map<Variable, Set<string>>): Sources {
  if (callee === fn || isInside(fn, callee)) return { params: [], impure: false };
  const inner = sourcesOf(model, callee, callee.body, 'value', [], depth, seen);
  // The callee's own parameters are whatever it is called with here, which the walk of the call's arguments sees.
  return { params: inner.params.filter((p) => p.param.defs[0]?.node !== callee), impure: inner.impure };
}

function mergeInto(out: Sources, more: Sources): void {
  if (more.impure) out.impure = true;
  for (const p of more.params) out.params.push(p);
}

/** Whether `v` was already followed with this side and path; records it if not. */
function seenAt(seen: Map<Variable, Set<string>>, v: Variable, key: string): boolean {
  let keys = seen.get(v);
  if (!keys) seen.set(v, (keys = new Set()));
  if (keys.has(key)) return true;
  keys.add(key);
  return false;
}

/** The properties a reference reads by name, up to a method call: `args.path.trim()` → `['path']`. */
function propertiesRead(id: Node): string[] {
  const out: string[] = [];
  let n = id;
  while (n.parent?.type === AST_NODE_TYPES.MemberExpression && n.parent.object === n && !n.parent.computed) {
    if (n.parent.parent?.type === AST_NODE_TYPES.CallExpression && n.parent.parent.callee === n.parent) break;
    const name = memberName(n.parent);
    if (name === null) break;
    out.push(name);
    n = n.parent;
  }
  return out;
}

/** Does any code change what the binding holds (`x.set(…)`, `x.push(…)`, `x.field = …`, `delete x[k]`)? */
function mutatedAnywhere(v: Variable): boolean {
  return v.references.some((ref) => {
    const id = ref.identifier as Node;
    const member = id.parent;
    if (member?.type !== AST_NODE_TYPES.MemberExpression || member.object !== id) return false;
    const up = member.parent;
    if (up?.type === AST_NODE_TYPES.AssignmentExpression && up.left === member) return true;
    if (up?.type === AST_NODE_TYPES.UpdateExpression || (up?.type === AST_NODE_TYPES.UnaryExpression && up.operator === 'delete')) return true;
    return up?.type === AST_NODE_TYPES.CallExpression && up.callee === member && (ARRAY_MUTATORS.has(memberName(member) ?? '') || COLLECTION_MUTATORS.has(memberName(member) ?? ''));
  });
}

/** An identifier that reads a value (not a property name, a key, or a declaration's name). */
function isValueReference(id: TSESTree.Identifier): boolean {
  const p = id.parent;
  if (!p) return true;
  if (p.type === AST_NODE_TYPES.MemberExpression && p.property === id && !p.computed) return false;
  if ((p.type === AST_NODE_TYPES.Property || p.type === AST_NODE_TYPES.MethodDefinition || p.type === AST_NODE_TYPES.PropertyDefinition) && p.key === id && !p.computed) {
    // `{ data }`: the shorthand reads `data`.
    return p.type === AST_NODE_TYPES.Property && p.shorthand && p.value === id;
  }
  return true;
}
