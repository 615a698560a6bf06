import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { enclosingFunction, isFunction, memberName, staticString, unwrap, type Node } from './ast.js';
import type { ModuleModel } from './model.js';
import type { Variable } from './module.js';
import { callSitesOf, enclosingClass } from './resolve.js';

/**
 * Persistent stores a server opens at a path: embedded databases and JSON-file stores. Each entry: the module, the
 * export (member path below it; '' for the module or its default export) and where the path is given (an argument
 * index, or a property of the options at that index).
 */
const OPENERS: Record<string, Record<string, { arg: number; key?: string }>> = {
  'better-sqlite3': { '': { arg: 0 } },
  'better-sqlite3-multiple-ciphers': { '': { arg: 0 } },
  // libsql's Node binding has better-sqlite3's API.
  libsql: { '': { arg: 0 } },
  sqlite3: { Database: { arg: 0 }, 'cached.Database': { arg: 0 } },
  sqlite: { open: { arg: 0, key: 'filename' } },
  'node:sqlite': { DatabaseSync: { arg: 0 } },
  'bun:sqlite': { Database: { arg: 0 } },
  duckdb: { Database: { arg: 0 } },
  'lowdb/node': { JSONFile: { arg: 0 }, JSONFileSync: { arg: 0 }, JSONFilePreset: { arg: 0 }, JSONFileSyncPreset: { arg: 0 }, DataFile: { arg: 0 }, TextFile: { arg: 0 } },
  'lowdb/adapters/FileSync': { '': { arg: 0 } },
  'lowdb/adapters/FileAsync': { '': { arg: 0 } },
  level: { Level: { arg: 0 } },
  'classic-level': { ClassicLevel: { arg: 0 } },
  nedb: { '': { arg: 0, key: 'filename' } },
  '@seald-io/nedb': { '': { arg: 0, key: 'filename' } },
  'node-json-db': { Config: { arg: 0 } },
};

/** Constructors that wrap an opened file in the store handlers use (`new Low(adapter)`, `new JsonDB(config)`). */
const WRAPPERS: Record<string, Set<string>> = { lowdb: new Set(['Low', 'LowSync', 'default']), 'node-json-db': new Set(['JsonDB']) };

/** Methods that change a store's data (SQL text, when there is some, decides instead). */
const WRITE_METHODS = new Set(['run', 'exec', 'execute', 'write', 'update', 'put', 'del', 'batch', 'insert', 'insertOne', 'insertMany', 'remove', 'upsert', 'set', 'delete', 'push', 'assign', 'save', 'unset', 'clear', 'unshift', 'splice']);
const SQL_WRITE = /^\s*(insert|update|delete|replace|upsert|merge)\b/i;
const SQL = /^\s*(select|insert|update|delete|replace|upsert|merge|with|pragma|create|drop|alter)\b/i;

interface StoreRef {
  source: string;
  path: string[];
}

/** The store module and export an expression stands for (`Database` from 'better-sqlite3', `sqlite3.verbose().Database`). */
function storeRef(model: ModuleModel, expr: Node, depth = 0): StoreRef | null {
  if (depth > 6) return null;
  const n = unwrap(expr);
  if (n.type === AST_NODE_TYPES.CallExpression) {
    if (n.callee.type === AST_NODE_TYPES.Identifier && n.callee.name === 'require' && n.arguments.length === 1) {
      const s = staticString(n.arguments[0]);
      return s === null ? null : { source: s, path: [] };
    }
    // `require('sqlite3').verbose()`: the module again, with long stack traces.
    const callee = unwrap(n.callee);
    if (callee.type === AST_NODE_TYPES.MemberExpression && memberName(callee) === 'verbose') return storeRef(model, callee.object, depth + 1);
    return null;
  }
  if (n.type === AST_NODE_TYPES.MemberExpression) {
    const base = storeRef(model, n.object, depth + 1);
    const name = memberName(n);
    return base && name !== null ? { source: base.source, path: [...base.path, name] } : null;
  }
  if (n.type !== AST_NODE_TYPES.Identifier) return null;
  const v = model.facts.variableOf(n);
  const def = v?.defs.length === 1 ? v.defs[0] : undefined;
  if (!def) return null;
  if (def.type === 'ImportBinding') {
    const imp = model.facts.imports.get(n.name);
    if (!imp) return null;
    return { source: imp.source, path: imp.imported === 'default' || imp.imported === '*' ? [] : [imp.imported] };
  }
  if (def.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init && def.node.id.type === AST_NODE_TYPES.Identifier) {
    if (v!.references.some((r) => r.isWrite() && !r.init)) return null;
    return storeRef(model, def.node.init, depth + 1);
  }
  return null;
}

function opener(ref: StoreRef | null): { arg: number; key?: string } | null {
  if (!ref) return null;
  const table = OPENERS[ref.source] ?? OPENERS[`node:${ref.source}`];
  if (!table) return null;
  const path = ref.path[0] === 'default' ? ref.path.slice(1) : ref.path;
  return Object.hasOwn(table, path.join('.')) ? table[path.join('.')] : null;
}

function isWrapper(model: ModuleModel, callee: Node): boolean {
  const ref = storeRef(model, callee);
  if (!ref) return false;
  const names = WRAPPERS[ref.source];
  return !!names && names.has(ref.path.length ? ref.path[ref.path.length - 1] : 'default');
}

export interface StoreUses {
  /** How reports name the store: `db`, `this.db`. */
  name: string;
  /** The first use in handler code that changes the store's data, and the first that reads it. */
  write: Node | null;
  read: Node | null;
  /** Every use in handler code, in source order of discovery. */
  uses: { node: Node; effect: 'write' | 'read' }[];
}

/** A store opened in this module: where, at which path (null for an in-memory one or a path we cannot find). */
export function storeOpenOf(model: ModuleModel, call: TSESTree.CallExpression | TSESTree.NewExpression): { path: Node } | null {
  const how = opener(storeRef(model, call.callee));
  if (!how) return null;
  const arg = call.arguments[how.arg];
  if (!arg || arg.type === AST_NODE_TYPES.SpreadElement) return null;
  let path: Node = arg;
  if (how.key || unwrap(arg).type === AST_NODE_TYPES.ObjectExpression) {
    const obj = unwrap(arg);
    if (obj.type !== AST_NODE_TYPES.ObjectExpression) return null;
    const prop = obj.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && !p.computed && p.key.type === AST_NODE_TYPES.Identifier && p.key.name === (how.key ?? 'filename'));
    if (!prop) return null;
    path = prop.value;
  }
  const s = staticString(path);
  // `:memory:` and '' are in-process databases: module state, not a file.
  if (s !== null && (s === '' || s.startsWith(':memory:') || s === 'file::memory:')) return null;
  return { path };
}

/**
 * Where the store an open expression makes is kept and used: the handler-code uses that write and read it, through the
 * binding it is kept in (a variable, a `this` field), a wrapper (`new Low(adapter)`), `await`, or a function that
 * returns it (`getDb().prepare(…)`).
 */
export function storeUses(model: ModuleModel, open: Node): StoreUses | null {
  let name: string | null = null;
  let write: Node | null = null;
  let read: Node | null = null;
  const uses: { node: Node; effect: 'write' | 'read' }[] = [];
  const seen = new Set<Node>();
  const visit = (expr: Node, depth: number): void => {
    if (depth > 4 || seen.has(expr)) return;
    seen.add(expr);
    let n: Node = expr;
    while (n.parent && isTransparent(n.parent, n)) n = n.parent;
    const p = n.parent;
    if (!p) return;
    if (p.type === AST_NODE_TYPES.VariableDeclarator && p.init === n && p.id.type === AST_NODE_TYPES.Identifier) {
      const v = model.facts.variableOf(p.id);
      if (v) variableUses(v, p.id.name, depth);
    } else if (p.type === AST_NODE_TYPES.AssignmentExpression && p.right === n) {
      const left = unwrap(p.left);
      if (left.type === AST_NODE_TYPES.Identifier) {
        const v = model.facts.variableOf(left);
        if (v) variableUses(v, left.name, depth);
      } else if (left.type === AST_NODE_TYPES.MemberExpression && left.object.type === AST_NODE_TYPES.ThisExpression) {
        const field = memberName(left);
        const cls = enclosingClass(left);
        if (field === null || !cls) return;
        name ??= `this.${field}`;
        for (const m of model.facts.thisMembers) if (m !== left && memberName(m) === field && enclosingClass(m) === cls) use(m, depth);
      }
    } else if ((p.type === AST_NODE_TYPES.NewExpression || p.type === AST_NODE_TYPES.CallExpression) && p.arguments.includes(n as never) && isWrapper(model, p.callee)) {
      // The wrapper is what handlers use: it names the store.
      name = null;
      visit(p, depth + 1);
    } else if (p.type === AST_NODE_TYPES.ReturnStatement || (isFunction(p) && p.body === n)) {
      returned(p, depth);
    } else if (p.type === AST_NODE_TYPES.PropertyDefinition && p.value === n && !p.computed && p.key.type === AST_NODE_TYPES.Identifier) {
      // `class Notes { db = new Database(FILE) }`
      const cls = enclosingClass(p);
      name ??= `this.${p.key.name}`;
      for (const m of model.facts.thisMembers) if (memberName(m) === p.key.name && enclosingClass(m) === cls) use(m, depth);
    }
  };
  const variableUses = (v: Variable, id: string, depth: number) => {
    name ??= id;
    for (const r of v.references) if (!r.init && r.isRead()) use(r.identifier as Node, depth);
  };
  const returned = (at: Node, depth: number) => {
    const fn = isFunction(at) ? at : enclosingFunction(at);
    if (fn) for (const call of callSitesOf(model.facts, fn)) use(call, depth + 1);
  };
  // One use of the store: what the chain around it does, or where the store goes next.
  const use = (ref: Node, depth: number) => {
    let n: Node = ref;
    while (n.parent && isTransparent(n.parent, n)) n = n.parent;
    const p = n.parent;
    if (!p) return;
    if ((p.type === AST_NODE_TYPES.ReturnStatement || (isFunction(p) && p.body === n)) && depth < 4) {
      returned(p, depth);
      return;
    }
    if (p.type === AST_NODE_TYPES.VariableDeclarator || (p.type === AST_NODE_TYPES.NewExpression && isWrapper(model, p.callee))) {
      visit(n, depth + 1);
      return;
    }
    if (p.type !== AST_NODE_TYPES.MemberExpression || p.object !== n || !model.isHandlerCode(ref)) return;
    const effect = chainEffect(p);
    uses.push({ node: ref, effect });
    if (effect === 'write') write ??= ref;
    else if (effect === 'read') read ??= ref;
  };
  visit(open, 0);
  return name === null ? null : { name, write, read, uses };
}

function isTransparent(parent: Node, child: Node): boolean {
  switch (parent.type) {
    case AST_NODE_TYPES.AwaitExpression:
    case AST_NODE_TYPES.TSAsExpression:
    case AST_NODE_TYPES.TSNonNullExpression:
    case AST_NODE_TYPES.TSSatisfiesExpression:
    case AST_NODE_TYPES.ChainExpression:
      return true;
    case AST_NODE_TYPES.LogicalExpression:
      return parent.right === child;
    default:
      return false;
  }
}

/** What a member chain on a store does: `db.prepare('INSERT …').run(x)` writes, `db.data.todos.push(x)` writes, `db.all(…)` reads. */
function chainEffect(member: TSESTree.MemberExpression): 'write' | 'read' {
  let sql: string | null = null;
  let writes = false;
  let n: Node = member;
  for (let i = 0; i < 8; i++) {
    const p: Node | undefined = n.parent;
    if (!p) break;
    if (n.type === AST_NODE_TYPES.MemberExpression && p.type === AST_NODE_TYPES.CallExpression && p.callee === n) {
      const m = memberName(n);
      const text = staticString(p.arguments[0]) ?? templateHead(p.arguments[0]);
      if (text !== null && SQL.test(text)) sql ??= text;
      if (m !== null && WRITE_METHODS.has(m)) writes = true;
      n = p;
      continue;
    }
    if (p.type === AST_NODE_TYPES.MemberExpression && p.object === n) {
      n = p;
      continue;
    }
    if (p.type === AST_NODE_TYPES.AssignmentExpression && p.left === n) writes = true;
    else if (p.type === AST_NODE_TYPES.AwaitExpression || p.type === AST_NODE_TYPES.ChainExpression) {
      n = p;
      continue;
    }
    break;
  }
  if (sql !== null) return SQL_WRITE.test(sql) ? 'write' : 'read';
  return writes ? 'write' : 'read';
}

function templateHead(node: Node | undefined): string | null {
  if (!node || node.type === AST_NODE_TYPES.SpreadElement) return null;
  const n = unwrap(node);
  return n.type === AST_NODE_TYPES.TemplateLiteral ? (n.quasis[0].value.cooked ?? null) : null;
}

/** Whether a module imports or requires a store module at all (most do not: their calls are not looked at). */
export function mayOpenStores(model: ModuleModel): boolean {
  const known = (s: string) => Object.hasOwn(OPENERS, s) || Object.hasOwn(OPENERS, `node:${s}`) || Object.hasOwn(WRAPPERS, s);
  for (const imp of model.facts.imports.values()) if (known(imp.source)) return true;
  for (const call of model.facts.allCalls) {
    if (call.type === AST_NODE_TYPES.CallExpression && call.callee.type === AST_NODE_TYPES.Identifier && call.callee.name === 'require') {
      const s = staticString(call.arguments[0]);
      if (s !== null && known(s)) return true;
    }
  }
  return false;
}
