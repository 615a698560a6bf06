import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, enclosingFunction, isFunction, isInside, memberName, memberPath, outerOf, propertyKeyName, unwrap, walk, type FunctionNode, type Node } from './ast.js';
import type { ModuleFacts, Variable } from './module.js';
import { classMember, enclosingClass, inStaticMethodOf, resolveValues, type ClassNode } from './resolve.js';
import { isLazy, referencesSame } from './lazy.js';

/** Where a binding that outlives a call lives. */
export type StateScope =
  /** Module top level (or a class static field): shared by every caller of the process. */
  | 'module'
  /** A factory or class instance that registers handlers: shared by every call on that server instance. */
  | 'instance'
  /** Imported from one of the project's own modules: module state of that module. */
  | 'import';

export type ContainerKind = 'array' | 'map' | 'set' | 'weak' | 'object' | 'instance' | 'store' | 'primitive' | 'unset' | 'unknown';

export interface StateBinding {
  /** Stable identity (one per variable or per class field). */
  key: string;
  /** How reports name it: `history`, `this.currentPage`, `SessionStore.cache`. */
  name: string;
  scope: StateScope;
  container: ContainerKind;
  /** Declaration node (for "declared at line N"). */
  decl: Node;
  /** The function the binding is declared in, for instance state. */
  factory: FunctionNode | null;
  /** Class name for `this` fields of long-lived instances. */
  className?: string;
  /** A module binding other modules import (`export let current`, `export { current }`): read outside this file. */
  exported?: boolean;
  /** A parameter handed a process-wide object by another module: where that object is kept (`src/index.ts:209`). */
  handedFrom?: string;
  /** The server factory that made it (`createServer()`), when it is a factory's binding rather than module-level. */
  handedWithin?: string;
}

export type AccessKind =
  /** `history.push(x)`, `map.set(k, v)`, `Object.assign(obj, …)` */
  | 'mutate'
  /** `counts[k] = v`, `delete cache[k]` */
  | 'entryWrite'
  /** `state.current = x` */
  | 'fieldWrite'
  /** `current = x` */
  | 'assign'
  /** `count++`, `total += n`, `list = [...list, x]`, `counts[k]++` */
  | 'accumulate'
  /** `client ??= …`, `if (!client) client = …` */
  | 'lazyInit'
  /** `writeChain = writeChain.then(…)`: a promise chain that orders work; no caller data is stored */
  | 'serialize'
  | 'read';

export interface StateAccess {
  binding: StateBinding;
  kind: AccessKind;
  /** The node to report at. */
  node: Node;
  /** Member path after the binding (`['current']` for `state.current = x`). */
  path: string[];
  /** The mutating/accessor method, when there is one. */
  method?: string;
  /** The receiver's method whose body (in another module) makes this change: `add` for `history.add(…)`. */
  through?: string;
  /** The function the whole binding is handed to, which changes it: `handleToolCall` for `handleToolCall(…, state)`. */
  handedTo?: string;
  /** Key expressions used on the way (`map.get(k)`, `obj[k]`). */
  keys: Node[];
  /** The assigned value, for writes. */
  value?: Node;
}

/** `history.items`, `counts[…]`: the binding and member path an access touches. */
export function accessTarget(a: StateAccess): string {
  return a.path.length ? `${a.binding.name}.${a.path.join('.').replace(/\.\[\]/g, '[…]')}` : a.binding.name;
}

/** What a change does, in a few words (`history.push(…)`, `writes an entry of counts`); null for other kinds. */
export function changePhrase(a: StateAccess, target = accessTarget(a)): string | null {
  switch (a.kind) {
    case 'mutate':
      return a.method === 'Object.assign' ? `Object.assign(${target}, …)` : `${target}.${a.method}(…)`;
    case 'entryWrite':
      return `writes an entry of ${target}`;
    case 'accumulate':
      return `updates ${target} from its previous value`;
    default:
      return null;
  }
}

/** Emptying a binding (`= null`, `= undefined`): hands no caller's data to the next one. */
export function isReset(value: Node | undefined): boolean {
  if (!value) return false;
  return (value.type === AST_NODE_TYPES.Literal && value.value === null) || (value.type === AST_NODE_TYPES.Identifier && value.name === 'undefined');
}

export const ARRAY_MUTATORS = new Set(['push', 'unshift', 'splice', 'pop', 'shift', 'sort', 'reverse', 'fill', 'copyWithin']);
export const COLLECTION_MUTATORS = new Set(['set', 'add', 'delete', 'clear']);
const ACCESSORS = new Set(['get', 'at', 'find', 'findLast']);
const KEYED_READS = new Set(['get', 'has']);
const CACHE_CLASS = /(Map|Set|Cache|LRU|Lru)$/;
/** Classes named for in-process storage (`InMemoryTaskStore`, `RequestHistory`, `UsageTracker`): their methods keep data. */
const STORE_CLASS = /(Store|Storage|Registry|Repository|Queue|Buffer|History|Tracker|Recorder|Collection|Ledger|Manager|Connections|Sessions)$/;
/** Method names that put data into a store or take it out for good. */
const STORE_MUTATORS = /^(set|add|put|push|store|save|record|track|register|insert|append|upsert|update|delete|remove|clear|enqueue|increment|mark)/;

function containerOf(facts: ModuleFacts, init: Node | null | undefined): ContainerKind {
  if (!init) return 'unset';
  const n = unwrap(init);
  switch (n.type) {
    case AST_NODE_TYPES.ArrayExpression:
      return 'array';
    case AST_NODE_TYPES.ObjectExpression:
      return 'object';
    case AST_NODE_TYPES.Literal:
    case AST_NODE_TYPES.TemplateLiteral:
    case AST_NODE_TYPES.UnaryExpression:
    case AST_NODE_TYPES.BinaryExpression:
      return 'primitive';
    case AST_NODE_TYPES.Identifier:
      return n.name === 'undefined' ? 'unset' : 'unknown';
    case AST_NODE_TYPES.NewExpression: {
      const c = calleeName(n.callee);
      if (c === 'Map') return 'map';
      if (c === 'Set') return 'set';
      if (c === 'WeakMap' || c === 'WeakSet' || c === 'WeakRef') return 'weak';
      if (c === 'Array') return 'array';
      if (c && CACHE_CLASS.test(c)) return 'map';
      // A class whose body is here is analysed method by method; the name only speaks for classes we cannot see.
      if (c && STORE_CLASS.test(c) && !resolveValues(facts, n.callee).some((v) => v.kind === 'class')) return 'store';
      return 'instance';
    }
    case AST_NODE_TYPES.CallExpression: {
      const callee = unwrap(n.callee);
      if (callee.type === AST_NODE_TYPES.MemberExpression && memberPath(callee)?.[0] === 'Array') return 'array';
      return 'unknown';
    }
    default:
      if (isFunction(n)) return 'unknown';
      return facts ? 'unknown' : 'unknown';
  }
}

export function isMutatingMethod(container: ContainerKind, method: string): boolean {
  if (ARRAY_MUTATORS.has(method)) {
    // `pop`/`shift`/`sort`… on something that is not known to be an array might be anything; push/unshift/splice are
    // array-only in practice.
    return container === 'array' || container === 'unknown' || container === 'unset' || method === 'push' || method === 'unshift' || method === 'splice';
  }
  if (COLLECTION_MUTATORS.has(method)) return container === 'map' || container === 'set' || container === 'weak' || container === 'store';
  if (container === 'store') return STORE_MUTATORS.test(method);
  return false;
}

/**
 * Find every use, in handler code, of a binding that outlives a call, and say what the use does.
 * `handlerOf` tells whether a node runs as part of serving a call.
 */
/** What the model tells state collection (whole-server facts included). */
export interface StateHooks {
  isHandlerCode(node: Node): boolean;
  classLongLived(cls: ClassNode): 'module' | 'instance' | null;
  /** Does this function run once per connection (its bindings belong to one caller)? */
  perConnection(fn: FunctionNode): boolean;
  callEffects: CallEffects;
  /** Does this call change what it is given as its `index`th argument (a container of this kind)? */
  argumentMutated(call: TSESTree.CallExpression, index: number, container: ContainerKind): boolean;
  /** Parameters of a handler-code function that another module hands a process-wide object. */
  longLivedParams(fn: FunctionNode): readonly { index: number; name: string; from: string; within?: string }[];
}

export function collectStateAccesses(facts: ModuleFacts, hooks: StateHooks): StateAccess[] {
  const { isHandlerCode, classLongLived, perConnection, callEffects } = hooks;
  const out: StateAccess[] = [];
  const classifyUse = (f: ModuleFacts, binding: StateBinding, base: Node, o: StateAccess[], aliasSeen: Set<Variable>) => classifyUseWith(f, hooks, binding, base, o, aliasSeen);
  for (const scope of facts.scopeManager.scopes) {
    const block = scope.block;
    let stateScope: StateScope;
    let factory: FunctionNode | null = null;
    if (block.type === AST_NODE_TYPES.Program) stateScope = 'module';
    else if (isFunction(block) && scope.type === 'function' && isHandlerCode(block.body)) {
      // Handler code: its own locals are per call, but a parameter another module hands a process-wide object is not.
      const params = hooks.longLivedParams(block);
      if (params.length === 0) continue;
      for (const lp of params) {
        const param = block.params[lp.index];
        const id = param?.type === AST_NODE_TYPES.AssignmentPattern ? param.left : param;
        if (!id || id.type !== AST_NODE_TYPES.Identifier) continue;
        const v = scope.set.get(id.name) as Variable | undefined;
        if (!v) continue;
        const binding: StateBinding = { key: `p:${block.range[0]}:${lp.index}`, name: id.name, scope: 'module', container: 'instance', decl: id, factory: null, handedFrom: lp.from, handedWithin: lp.within };
        for (const ref of v.references) {
          if (ref.init || !isHandlerCode(ref.identifier)) continue;
          classifyUse(facts, binding, ref.identifier, out, new Set());
        }
      }
      continue;
    } else if (isFunction(block) && scope.type === 'function' && !isHandlerCode(block) && !isHandlerCode(block.body) && !perConnection(block)) {
      stateScope = 'instance';
      factory = block;
    } else if (scope.type === 'block' || scope.type === 'switch' || scope.type === 'catch') {
      // `let`/`const` in a block (`try { const seen = []; server.tool(…) }`) live as long as the code around them: the
      // module, or a factory's call.
      const owner = scope.variableScope.block;
      if (owner.type === AST_NODE_TYPES.Program) stateScope = 'module';
      else if (isFunction(owner) && scope.variableScope.type === 'function' && !isHandlerCode(owner) && !isHandlerCode(owner.body) && !perConnection(owner)) {
        stateScope = 'instance';
        factory = owner;
      } else continue;
    } else continue;
    for (const v of scope.variables) {
      const def = v.defs[0];
      if (!def) continue;
      let binding: StateBinding | null = null;
      let used: TSESTree.Identifier[];
      if (def.type === 'Variable') {
        const decl = def.node as TSESTree.VariableDeclarator;
        if (decl.id.type !== AST_NODE_TYPES.Identifier) continue;
        if (decl.init && isFunction(unwrap(decl.init))) continue;
        // Most bindings of a module are never used by handler code: ask what one holds only when handler code uses it.
        used = handlerReferences(v, isHandlerCode);
        if (used.length === 0) continue;
        const kindOfDecl = (def.parent as TSESTree.VariableDeclaration).kind;
        const container = containerOf(facts, decl.init);
        if (kindOfDecl === 'const' && container === 'primitive') continue;
        if (decl.init && resolveValues(facts, decl.init).some((x) => x.kind === 'function' || x.kind === 'class')) continue;
        binding = { key: `v:${decl.range[0]}`, name: v.name, scope: stateScope, container, decl, factory, exported: stateScope === 'module' && isExported(facts, decl, v.name) };
      } else if (def.type === 'ImportBinding' && stateScope === 'module') {
        const imp = facts.imports.get(v.name);
        if (!imp || !facts.isProjectSource(imp.source)) continue;
        used = handlerReferences(v, isHandlerCode);
        binding = { key: `i:${v.name}`, name: v.name, scope: 'import', container: 'unknown', decl: def.node, factory: null };
      } else if (def.type === 'ClassName') {
        const cls = def.node as ClassNode;
        collectStaticFieldAccesses(facts, v, cls, isHandlerCode, stateScope, out, hooks);
        continue;
      } else continue;
      for (const id of used) classifyUse(facts, binding, id, out, new Set());
    }
  }
  // `this.field` in methods of long-lived instances.
  for (const m of facts.thisMembers) {
    const name = memberName(m);
    if (name === null) continue;
    if (!isHandlerCode(m)) continue;
    const cls = enclosingClass(m);
    if (!cls) continue;
    const life = classLongLived(cls);
    if (!life) continue;
    // Methods are not state.
    const member = classMember(facts, cls, name, false, new Set(), 0);
    if (member.some((x) => x.kind === 'function')) continue;
    const className = cls.id?.name ?? 'this';
    const binding: StateBinding = {
      key: `t:${cls.range[0]}:${name}`,
      name: `this.${name}`,
      scope: life,
      container: fieldContainer(facts, cls, name),
      decl: cls,
      factory: null,
      className,
    };
    classifyUse(facts, binding, m, out, new Set());
  }
  readsFromOutside(facts, hooks, out);
  return out;
}

/**
 * Reads of a long-lived instance's field from outside its class (`ws.root`, `Workspace.getInstance().root`) when a
 * method of the class writes that field for a caller (`setRoot(dir) { this.root = dir; }`): the write and the read are
 * one binding, so the setter and the other tool's read are the crossing. A class that handler code also instantiates
 * per call is left alone (which instance a setter runs on is not known). Only asked when such a write exists.
 */
function readsFromOutside(facts: ModuleFacts, hooks: StateHooks, out: StateAccess[]): void {
  const written = new Map<string, StateBinding>();
  for (const a of out) {
    if (!a.binding.key.startsWith('t:') || a.path.length > 0) continue;
    if (a.kind === 'assign' || a.kind === 'fieldWrite') written.set(a.binding.name.slice('this.'.length), a.binding);
  }
  if (written.size === 0) return;
  const classes = new Set([...written.values()].map((b) => b.decl as ClassNode));
  const perCall = new Set<ClassNode>();
  const reads: StateAccess[] = [];
  walk(facts.ast, facts.visitorKeys, (n) => {
    if (n.type === AST_NODE_TYPES.NewExpression && hooks.isHandlerCode(n)) {
      for (const v of resolveValues(facts, n.callee)) if (v.kind === 'class' && classes.has(v.node) && !inStaticMethodOf(n, v.node)) perCall.add(v.node);
      return;
    }
    if (n.type !== AST_NODE_TYPES.MemberExpression || n.computed || n.object.type === AST_NODE_TYPES.ThisExpression) return;
    const name = memberName(n);
    const binding = name !== null ? written.get(name) : undefined;
    if (!binding || !hooks.isHandlerCode(n) || isInside(n, binding.decl)) return;
    const cls = binding.decl as ClassNode;
    if (!resolveValues(facts, n.object).some((v) => v.kind === 'instance' && v.node === cls)) return;
    const uses: StateAccess[] = [];
    classifyUseWith(facts, hooks, binding, n, uses, new Set());
    for (const u of uses) if (u.kind === 'read') reads.push(u);
  });
  for (const r of reads) if (!perCall.has(r.binding.decl as ClassNode)) out.push(r);
}

function fieldContainer(facts: ModuleFacts, cls: ClassNode, name: string): ContainerKind {
  for (const el of cls.body.body) {
    // `private cache: LruCache<…>;` declared here and assigned in the constructor: the constructor says what it is.
    if (el.type === AST_NODE_TYPES.PropertyDefinition && !el.static && propertyKeyName(el) === name && el.value) {
      return containerOf(facts, el.value);
    }
    if (el.type === AST_NODE_TYPES.MethodDefinition && el.kind === 'constructor' && el.value.body) {
      for (const st of el.value.body.body) {
        if (st.type !== AST_NODE_TYPES.ExpressionStatement || st.expression.type !== AST_NODE_TYPES.AssignmentExpression) continue;
        const path = memberPath(st.expression.left);
        if (path && path.length === 2 && path[0] === 'this' && path[1] === name) return containerOf(facts, st.expression.right);
      }
    }
  }
  return 'unknown';
}

function collectStaticFieldAccesses(facts: ModuleFacts, v: Variable, cls: ClassNode, isHandlerCode: (n: Node) => boolean, scope: StateScope, out: StateAccess[], hooks: StateHooks): void {
  const statics = new Map<string, TSESTree.PropertyDefinition>();
  for (const el of cls.body.body) {
    if (el.type === AST_NODE_TYPES.PropertyDefinition && el.static) {
      const key = propertyKeyName(el);
      if (key !== null) statics.set(key, el);
    }
  }
  if (statics.size === 0) return;
  const uses: Node[] = [];
  for (const ref of v.references) uses.push(ref.identifier);
  // Inside the class body the name resolves to the class scope's own binding of it.
  const inner = facts.scopeManager.scopes.find((sc) => sc.type === 'class' && sc.block === cls)?.set.get(v.name);
  if (inner && inner !== v) for (const ref of inner.references) uses.push(ref.identifier);
  // `this.cache` inside static methods is the class too.
  for (const m of facts.thisMembers) {
    const p = m.parent;
    const fn = facts.ownerOf(m);
    if (p && fn && fn.parent?.type === AST_NODE_TYPES.MethodDefinition && fn.parent.static && enclosingClass(m) === cls) uses.push(m.object);
  }
  for (const id of uses) {
    const member = outerOf(id).parent;
    if (!member || member.type !== AST_NODE_TYPES.MemberExpression || member.object !== outerOf(id)) continue;
    const name = memberName(member);
    if (!name || !statics.has(name)) continue;
    if (!isHandlerCode(member)) continue;
    const field = statics.get(name)!;
    const binding: StateBinding = {
      key: `s:${field.range[0]}`,
      name: `${cls.id?.name ?? 'class'}.${name}`,
      scope: scope === 'instance' ? 'instance' : 'module',
      container: containerOf(facts, field.value),
      decl: field,
      factory: null,
    };
    classifyUseWith(facts, hooks, binding, member, out, new Set());
  }
}

/** What a method call does to the fields of its receiver, as the callee's own module knows it (null: not known). */
export type CallEffects = (call: TSESTree.CallExpression) => readonly FieldEffect[] | null;

/** One effect of a method on a field of `this`. */
export interface FieldEffect {
  field: string;
  /**
   * mutate: a container field changes (push, set, +=); write: the field is assigned a value; fill: assigned once, when
   * still empty (a lazy cache); reset: set back to empty (`= null`, `= []`); read: it is read.
   */
  kind: 'mutate' | 'write' | 'fill' | 'reset' | 'read';
}

/** Containers whose hand-over to a mutating function is reported at the call (instances report in their methods). */
// A store class we cannot see (`new NoteStore()` from another module) counts: its `put`/`set` calls change it wherever it is handed.
const HANDED_CONTAINERS = new Set<ContainerKind>(['object', 'array', 'map', 'set', 'store']);

const NO_CALL_HOOKS: Pick<StateHooks, 'callEffects' | 'argumentMutated'> = { callEffects: () => null, argumentMutated: () => false };

/** `getInstance()`, `instance()`, `getShared()`: the accessor of a singleton. */
const SINGLETON_ACCESSOR = /^(get)?(Instance|instance|Singleton|singleton|Shared|shared|Default)$/;

/** Follow one use of a binding outward and record what it does. */
function classifyUseWith(
  facts: ModuleFacts,
  hooks: Pick<StateHooks, 'callEffects' | 'argumentMutated'>,
  binding: StateBinding,
  base: Node,
  out: StateAccess[],
  aliasSeen: Set<Variable>,
  prefix: string[] = [],
  prefixKeys: Node[] = [],
  viaAlias = false,
): void {
  const classifyUse = (f: ModuleFacts, b: StateBinding, n: Node, o: StateAccess[], seen: Set<Variable>, pre?: string[], preKeys?: Node[], alias?: boolean) =>
    classifyUseWith(f, hooks, b, n, o, seen, pre, preKeys, alias);
  const callEffects = hooks.callEffects;
  const keys: Node[] = [...prefixKeys];
  const path: string[] = [...prefix];
  let cur: Node = outerOf(base);
  let container = prefix.length ? 'unknown' : binding.container;
  for (;;) {
    const p = cur.parent;
    if (!p) break;
    if (p.type === AST_NODE_TYPES.MemberExpression && p.object === cur) {
      const name = memberName(p);
      const callParent = outerOf(p).parent;
      if (callParent && callParent.type === AST_NODE_TYPES.CallExpression && callParent.callee === outerOf(p) && name !== null) {
        const a0 = callParent.arguments[0];
        if (isMutatingMethod(path.length === 0 ? container : 'unknown', name) || (path.length > 0 && (ARRAY_MUTATORS.has(name) || (COLLECTION_MUTATORS.has(name) && name !== 'delete')))) {
          if (a0 && name !== 'push' && name !== 'unshift') keys.push(a0);
          out.push({ binding, kind: 'mutate', node: callParent, path, method: name, keys, value: a0 });
          return;
        }
        // A method whose body is in another module: what it does to the receiver's fields, as that module shows.
        const effects = callEffects(callParent);
        if (effects && effects.length > 0) {
          // One call, one hazard. A field the method only ever replaces (`this.active = id`) is a "current X": every
          // later call sees it, with no key to tell callers apart, so that is the crossing to name even when the same
          // method also files something in a container (usually under a key). A field it replaces and then updates
          // (a session record whose counters grow) is an accumulator. Emptying a field (`= null`, `= []`) carries
          // nothing from one caller to another.
          const mutated = new Set(effects.filter((e) => e.kind === 'mutate').map((e) => e.field));
          const replacesOnly = effects.some((e) => e.kind === 'write' && !mutated.has(e.field));
          for (const e of effects) {
            // A method's own lazy cache (`if (!this.path) this.path = …`) is its class's business, reported there.
            if (e.kind === 'reset' || e.kind === 'fill') continue;
            if (replacesOnly ? e.kind === 'mutate' || (e.kind === 'write' && mutated.has(e.field)) : e.kind === 'write') continue;
            const kind: AccessKind = e.kind === 'mutate' ? 'mutate' : e.kind === 'write' ? 'fieldWrite' : 'read';
            out.push({ binding, kind, node: callParent, path: [...path, e.field], method: name, through: name, keys: a0 && kind === 'mutate' ? [...keys, a0] : keys, value: a0 });
          }
          return;
        }
        if (ACCESSORS.has(name) || SINGLETON_ACCESSOR.test(name)) {
          if (a0) keys.push(a0);
          path.push(`${name}()`);
          cur = outerOf(callParent);
          container = 'unknown';
          continue;
        }
        if (KEYED_READS.has(name) && a0) keys.push(a0);
        out.push({ binding, kind: 'read', node: callParent, path, method: name, keys });
        return;
      }
      if (p.computed) {
        if (name === null) keys.push(p.property);
        path.push(name === null ? '[]' : name);
      } else path.push(name ?? '?');
      cur = outerOf(p);
      continue;
    }
    if (p.type === AST_NODE_TYPES.AssignmentExpression && p.left === cur) {
      if (cur === outerOf(base) && viaAlias) return; // `alias = other` rebinds the local, not the state
      if (cur === outerOf(base)) {
        out.push({ binding, kind: assignmentKind(facts, p, base), node: p, path, keys, value: p.right });
      } else {
        const last = cur.type === AST_NODE_TYPES.MemberExpression ? cur : null;
        const computed = !!last && last.computed && memberName(last) === null;
        // A write through a keyed entry (`map.get(id).x = …`, `table[id].x ??= …`) belongs to that entry, filled for
        // the caller who owns the key: the container is the shared thing, not a lazily filled client.
        const throughEntry = path.some((step) => step === '[]' || step === 'get()');
        const kind: AccessKind =
          p.operator !== '=' && p.operator !== '??=' && p.operator !== '||=' ? 'accumulate' : throughEntry ? 'entryWrite' : isLazy(facts, p, cur) ? 'lazyInit' : computed ? 'entryWrite' : 'fieldWrite';
        out.push({ binding, kind, node: p, path, keys, value: p.right });
      }
      return;
    }
    if (p.type === AST_NODE_TYPES.UpdateExpression) {
      if (cur === outerOf(base) && viaAlias) return;
      out.push({ binding, kind: 'accumulate', node: p, path, keys });
      // `String(nextId++)`: the old value goes on to the caller, so the counter is read as well as written.
      if (valueIsUsed(p)) out.push({ binding, kind: 'read', node: p, path, keys });
      return;
    }
    if (p.type === AST_NODE_TYPES.UnaryExpression && p.operator === 'delete' && cur !== outerOf(base)) {
      out.push({ binding, kind: 'entryWrite', node: p, path, keys });
      return;
    }
    if (p.type === AST_NODE_TYPES.CallExpression && p.arguments[0] === cur) {
      const callee = memberPath(p.callee);
      if (callee && callee[0] === 'Object' && callee[1] === 'assign') {
        out.push({ binding, kind: 'mutate', node: p, path, method: 'Object.assign', keys, value: p.arguments[1] });
        return;
      }
    }
    // A container handed whole to a function that changes what it receives (`handle(name, args, state)` where handle
    // pushes into state.logs): the call is where this caller's data goes into the shared container.
    if (p.type === AST_NODE_TYPES.CallExpression && p.callee !== cur && path.length === 0 && !viaAlias && HANDED_CONTAINERS.has(binding.container)) {
      const index = p.arguments.indexOf(cur as TSESTree.CallExpressionArgument);
      if (index >= 0 && hooks.argumentMutated(p, index, binding.container)) {
        const name = calleeName(p.callee) ?? 'a function';
        out.push({ binding, kind: 'mutate', node: p, path, method: name, handedTo: name, keys, value: p.arguments[index] });
        return;
      }
    }
    if (p.type === AST_NODE_TYPES.VariableDeclarator && p.init === cur && p.id.type === AST_NODE_TYPES.Identifier) {
      // const h = history; h.push(x) — follow the alias.
      const alias = facts.variableOf(p.id);
      if (alias && !aliasSeen.has(alias)) {
        aliasSeen.add(alias);
        for (const ref of alias.references) {
          if (ref.init) continue;
          classifyUse(facts, binding, ref.identifier, out, aliasSeen, path, keys, true);
        }
      }
      out.push({ binding, kind: 'read', node: cur, path, keys });
      return;
    }
    break;
  }
  out.push({ binding, kind: 'read', node: cur, path, keys });
}

/**
 * Does this read only ever see what its own call has just stored? True when, earlier in the same function's statement
 * list (a list that holds the read), a statement of its own stores the binding (`last = q.trim();`, or the path the
 * read starts with: `state.mode = m;` before `state.mode`), and nothing from there to the end of the read's statement
 * can suspend the call (`await`, `yield`, `for await`). No other call runs in between, so the read cannot see another
 * caller's value. Conditional and looped writes, and writes in another function, do not count.
 */
export function seesOnlyOwnWrite(read: StateAccess, writes: readonly StateAccess[], visitorKeys: Readonly<Record<string, readonly string[] | undefined>>): boolean {
  const fn = enclosingFunction(read.node);
  if (!fn) return false;
  for (const w of writes) {
    if (w.kind !== 'assign' && w.kind !== 'fieldWrite') continue;
    const assign = w.node;
    if (assign.type !== AST_NODE_TYPES.AssignmentExpression || assign.operator !== '=') continue;
    if (w.path.length > read.path.length || w.path.some((step, i) => step === '[]' || step !== read.path[i])) continue;
    const stmt = assign.parent;
    if (stmt?.type !== AST_NODE_TYPES.ExpressionStatement) continue;
    const list = stmt.parent;
    const body = list?.type === AST_NODE_TYPES.BlockStatement || list?.type === AST_NODE_TYPES.Program ? list.body : list?.type === AST_NODE_TYPES.SwitchCase ? list.consequent : null;
    if (!body || stmt.range[1] > read.node.range[0] || !isInside(read.node, list!) || enclosingFunction(stmt) !== fn) continue;
    const from = body.indexOf(stmt as TSESTree.Statement);
    let to = from + 1;
    while (to < body.length && body[to].range[1] < read.node.range[0]) to++;
    if (to >= body.length || !isInside(read.node, body[to])) continue;
    if (!body.slice(from + 1, to + 1).some((s) => canSuspend(s, visitorKeys))) return true;
  }
  return false;
}

/** Can running this statement suspend the function it is in (an `await`, a `yield`, a `for await`; not in nested functions)? */
function canSuspend(root: Node, visitorKeys: Readonly<Record<string, readonly string[] | undefined>>): boolean {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === AST_NODE_TYPES.AwaitExpression || node.type === AST_NODE_TYPES.YieldExpression) return true;
    if (node.type === AST_NODE_TYPES.ForOfStatement && node.await) return true;
    if (node !== root && isFunction(node)) continue;
    for (const key of visitorKeys[node.type] ?? []) {
      const child = (node as unknown as Record<string, unknown>)[key];
      if (Array.isArray(child)) {
        for (const c of child) if (c && typeof (c as Node).type === 'string') stack.push(c as Node);
      } else if (child && typeof (child as Node).type === 'string') stack.push(child as Node);
    }
  }
  return false;
}

/** Is the value of an expression used (not a statement of its own, a `for` update or a discarded sequence part)? */
function valueIsUsed(n: Node): boolean {
  let cur: Node = n;
  let p = cur.parent;
  while (p && (p.type === AST_NODE_TYPES.SequenceExpression || p.type === AST_NODE_TYPES.ChainExpression || p.type === AST_NODE_TYPES.TSAsExpression || p.type === AST_NODE_TYPES.TSNonNullExpression)) {
    if (p.type === AST_NODE_TYPES.SequenceExpression && p.expressions[p.expressions.length - 1] !== cur) return false;
    cur = p;
    p = p.parent;
  }
  if (!p) return false;
  if (p.type === AST_NODE_TYPES.ExpressionStatement) return false;
  if (p.type === AST_NODE_TYPES.ForStatement && p.update === cur) return false;
  if (p.type === AST_NODE_TYPES.UnaryExpression && p.operator === 'void') return false;
  return true;
}

/** `chain = chain.then(…)` / `chain = write.catch(() => {})`: a promise chain that serialises work, not data. */
function isPromiseChain(value: Node): boolean {
  const v = unwrap(value);
  if (v.type !== AST_NODE_TYPES.CallExpression) return false;
  const name = calleeName(v.callee);
  return (name === 'then' || name === 'catch' || name === 'finally') && unwrap(v.callee).type === AST_NODE_TYPES.MemberExpression;
}

function assignmentKind(facts: ModuleFacts, p: TSESTree.AssignmentExpression, base: Node): AccessKind {
  if (p.operator === '=' && isPromiseChain(p.right)) return 'serialize';
  if (p.operator === '??=' || p.operator === '||=') return 'lazyInit';
  if (p.operator !== '=') return 'accumulate';
  const right = unwrap(p.right);
  if (right.type === AST_NODE_TYPES.LogicalExpression && (right.operator === '??' || right.operator === '||') && referencesSame(right.left, base)) return 'lazyInit';
  if (isLazy(facts, p, base)) return 'lazyInit';
  if (mentions(right, base)) return 'accumulate';
  void facts;
  return 'assign';
}

/** `x = [...x, v]`, `x = x.concat(v)`, `x = x + 1`: the new value is built from the old one. */
function mentions(expr: Node, target: Node): boolean {
  const stack: Node[] = [expr];
  while (stack.length) {
    const n = unwrap(stack.pop()!);
    if (referencesSame(n, target)) return true;
    switch (n.type) {
      case AST_NODE_TYPES.ArrayExpression:
        for (const e of n.elements) if (e) stack.push(e.type === AST_NODE_TYPES.SpreadElement ? e.argument : e);
        break;
      case AST_NODE_TYPES.ObjectExpression:
        for (const p of n.properties) if (p.type === AST_NODE_TYPES.SpreadElement) stack.push(p.argument);
        break;
      case AST_NODE_TYPES.BinaryExpression:
        stack.push(n.left, n.right);
        break;
      case AST_NODE_TYPES.CallExpression: {
        const c = unwrap(n.callee);
        if (c.type === AST_NODE_TYPES.MemberExpression) stack.push(c.object);
        break;
      }
      default:
        break;
    }
  }
  return false;
}

/**
 * What a method does to the fields of `this` (its own code and the methods of the same class it calls on `this`),
 * computed once per method. The call-site half of whole-server analysis: a long-lived object whose class lives in another
 * module is mutated by a call whose callee pushes or assigns to its fields.
 */
export function methodFieldEffects(facts: ModuleFacts, fn: FunctionNode, memo: Map<FunctionNode, FieldEffect[]>): FieldEffect[] {
  const known = memo.get(fn);
  if (known) return known;
  const out: FieldEffect[] = [];
  memo.set(fn, out); // recursion through this.m() gets what is known so far
  const cls = fn.parent?.type === AST_NODE_TYPES.MethodDefinition || fn.parent?.type === AST_NODE_TYPES.PropertyDefinition ? enclosingClass(fn) : null;
  if (!cls || (fn.parent as TSESTree.MethodDefinition).static) return out;
  const add = (e: FieldEffect) => {
    if (!out.some((x) => x.field === e.field && x.kind === e.kind)) out.push(e);
  };
  const ownedHere = (n: Node): boolean => {
    for (let f = facts.ownerOf(n); f; f = facts.ownerOf(f)) {
      if (f === fn) return true;
      if (f.type !== AST_NODE_TYPES.ArrowFunctionExpression) return false; // `this` is rebound
    }
    return false;
  };
  for (const m of facts.thisMembers) {
    if (!ownedHere(m)) continue;
    const name = memberName(m);
    if (name === null) continue;
    const parent = outerOf(m).parent;
    // `this.other(…)`: a method of the same class; its effects are this method's too.
    if (parent?.type === AST_NODE_TYPES.CallExpression && parent.callee === outerOf(m)) {
      for (const v of classMember(facts, cls, name, false, new Set(), 0)) if (v.kind === 'function') for (const e of methodFieldEffects(facts, v.node, memo)) add(e);
      continue;
    }
    if (classMember(facts, cls, name, false, new Set(), 0).some((v) => v.kind === 'function')) continue;
    const binding: StateBinding = { key: `t:${name}`, name, scope: 'module', container: fieldContainer(facts, cls, name), decl: cls, factory: null };
    const uses: StateAccess[] = [];
    classifyUseWith(facts, NO_CALL_HOOKS, binding, m, uses, new Set());
    for (const u of uses) {
      let kind: FieldEffect['kind'] | null;
      if (u.kind === 'read') kind = 'read';
      else if (u.kind === 'serialize') kind = null;
      else if (u.kind === 'lazyInit') kind = u.path.length === 0 ? 'fill' : 'mutate';
      else if (u.kind === 'assign' || u.kind === 'fieldWrite') kind = u.path.length > 0 ? 'mutate' : isEmptyValue(u.value) ? 'reset' : 'write';
      else kind = 'mutate';
      if (kind) add({ field: name, kind });
    }
  }
  return out;
}

/** `null`, `undefined`, `[]`, `{}`, `new Map()`: a value that holds nothing (a reset, not a caller's data). */
function isEmptyValue(v: Node | undefined): boolean {
  if (!v) return false;
  const n = unwrap(v);
  if (n.type === AST_NODE_TYPES.Literal) return n.value === null || n.value === '' || n.value === 0 || n.value === false;
  if (n.type === AST_NODE_TYPES.Identifier) return n.name === 'undefined';
  if (n.type === AST_NODE_TYPES.ArrayExpression) return n.elements.length === 0;
  if (n.type === AST_NODE_TYPES.ObjectExpression) return n.properties.length === 0;
  if (n.type === AST_NODE_TYPES.NewExpression) return n.arguments.length === 0 && /^(Map|Set|WeakMap|WeakSet|Array)$/.test(calleeName(n.callee) ?? '');
  return false;
}

/** The references to a variable, other than its initialisation, made from handler code. */
function handlerReferences(v: Variable, isHandlerCode: (node: Node) => boolean): TSESTree.Identifier[] {
  const out: TSESTree.Identifier[] = [];
  for (const ref of v.references) {
    if (ref.init) continue;
    const id = ref.identifier as TSESTree.Identifier;
    if (isHandlerCode(id)) out.push(id);
  }
  return out;
}

/** Is a module-level declaration exported (in its declaration or by an `export { name }` list)? */
function isExported(facts: ModuleFacts, decl: TSESTree.VariableDeclarator, name: string): boolean {
  if (decl.parent?.parent?.type === AST_NODE_TYPES.ExportNamedDeclaration) return true;
  for (const st of facts.ast.body) {
    if (st.type !== AST_NODE_TYPES.ExportNamedDeclaration || st.source || st.declaration) continue;
    for (const spec of st.specifiers) if (spec.local.type === AST_NODE_TYPES.Identifier && spec.local.name === name) return true;
  }
  return false;
}

/**
 * Does a function change what it receives as its `index`th parameter: push into it, set its fields, hand it to another
 * function that does (`argumentMutated`)? Assigning the parameter itself only rebinds a local. `container` is what the
 * caller hands over: `m.set(k, v)` changes a Map it is given, not an object.
 */
export function parameterMutated(facts: ModuleFacts, fn: FunctionNode, index: number, container: ContainerKind, argumentMutated: StateHooks['argumentMutated']): boolean {
  const param = fn.params[index];
  const id = param?.type === AST_NODE_TYPES.AssignmentPattern ? param.left : param;
  if (!id || id.type !== AST_NODE_TYPES.Identifier) return false;
  const v = facts.variableOf(id);
  if (!v) return false;
  const binding: StateBinding = { key: 'param', name: id.name, scope: 'module', container, decl: id, factory: null };
  const uses: StateAccess[] = [];
  for (const ref of v.references) {
    if (ref.init) continue;
    classifyUseWith(facts, { callEffects: () => null, argumentMutated }, binding, ref.identifier, uses, new Set());
  }
  return uses.some((u) => u.kind === 'mutate' || u.kind === 'entryWrite' || u.kind === 'accumulate' || ((u.kind === 'fieldWrite' || u.kind === 'lazyInit') && u.path.length > 0));
}
