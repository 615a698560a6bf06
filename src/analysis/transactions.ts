// Transactions that span calls: one tool runs `BEGIN` on a database connection that outlives the call and another
// runs `COMMIT` or `ROLLBACK`. Between the two, every caller's statements on that connection run inside the first
// caller's transaction, and one caller's COMMIT or ROLLBACK ends what others wrote.
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { staticString, unwrap, type Node } from './ast.js';
import type { HandlerRef, ModuleModel } from './model.js';
import type { Variable } from './module.js';

const BEGIN = /^\s*(?:BEGIN(?:\s+(?:DEFERRED|IMMEDIATE|EXCLUSIVE))?(?:\s+(?:TRANSACTION|WORK))?|START\s+TRANSACTION)\s*;?\s*$/i;
const END = /^\s*(?:COMMIT|ROLLBACK|END)(?:\s+(?:TRANSACTION|WORK))?\s*;?\s*$/i;
/** A cheap test of a module's calls before anything is resolved. */
const MAY_BEGIN = /^\s*(?:BEGIN|START)\b/i;

export interface SpanningTransaction {
  /** The call that runs BEGIN. */
  begin: TSESTree.CallExpression;
  /** The connection's binding (`db`). */
  connection: string;
  /** The handlers that begin without ending. */
  openedBy: HandlerRef;
  /** The first call, in another handler, that ends it. */
  end: TSESTree.CallExpression;
  endedBy: HandlerRef;
}

/** `db.exec('BEGIN')`, `client.query('COMMIT')`, `db.prepare('BEGIN').run()`: the statement and the receiver. */
function statementOf(call: TSESTree.CallExpression): { sql: string; receiver: Node } | null {
  const callee = unwrap(call.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression) return null;
  const a0 = call.arguments[0];
  const sql = a0 && a0.type !== AST_NODE_TYPES.SpreadElement ? staticString(a0) : null;
  if (sql !== null) return { sql, receiver: callee.object };
  // `db.prepare('BEGIN').run()`: the statement is the receiver's own argument.
  const inner = unwrap(callee.object);
  if (inner.type === AST_NODE_TYPES.CallExpression) {
    const s = statementOf(inner);
    return s ? { sql: s.sql, receiver: s.receiver } : null;
  }
  return null;
}

/** The variable a connection is kept in, when it outlives the call: module level, or a server factory's binding. */
function longLivedConnection(model: ModuleModel, receiver: Node): Variable | null {
  const r = unwrap(receiver);
  if (r.type !== AST_NODE_TYPES.Identifier) return null;
  const v = model.facts.variableOf(r);
  if (!v || v.defs.length === 0 || v.defs[0].type !== 'Variable') return null;
  return model.facts.isModuleLevel(v) || model.isFactoryBinding(v) ? v : null;
}

const sameHandler = (a: HandlerRef, b: HandlerRef) => a.registration === b.registration && (a.routedName ?? a.registration.name) === (b.routedName ?? b.registration.name);

/** Transactions a handler opens on a long-lived connection and another handler ends. */
export function spanningTransactions(model: ModuleModel): SpanningTransaction[] {
  const calls = model.facts.allCalls;
  if (!calls.some((c) => c.type === AST_NODE_TYPES.CallExpression && c.arguments.some((a) => a.type === AST_NODE_TYPES.Literal && typeof a.value === 'string' && MAY_BEGIN.test(a.value)))) return [];
  const begins = new Map<Variable, { call: TSESTree.CallExpression; handlers: readonly HandlerRef[] }[]>();
  const ends = new Map<Variable, { call: TSESTree.CallExpression; handlers: readonly HandlerRef[] }[]>();
  for (const call of calls) {
    if (call.type !== AST_NODE_TYPES.CallExpression) continue;
    const st = statementOf(call);
    if (!st) continue;
    const into = BEGIN.test(st.sql) ? begins : END.test(st.sql) ? ends : null;
    if (!into) continue;
    const handlers = model.handlersOf(call);
    if (handlers.length === 0) continue;
    const v = longLivedConnection(model, st.receiver);
    if (!v) continue;
    const list = into.get(v) ?? [];
    list.push({ call, handlers });
    into.set(v, list);
  }
  const out: SpanningTransaction[] = [];
  for (const [v, opened] of begins) {
    const closed = ends.get(v) ?? [];
    for (const b of opened) {
      // A handler that also ends the transaction it begins keeps it within its call.
      const openedBy = b.handlers.find((h) => !closed.some((e) => e.handlers.some((x) => sameHandler(x, h))));
      if (!openedBy) continue;
      const end = closed.find((e) => e.handlers.some((x) => !sameHandler(x, openedBy)));
      if (!end) continue;
      out.push({ begin: b.call, connection: v.name, openedBy, end: end.call, endedBy: end.handlers.find((x) => !sameHandler(x, openedBy))! });
    }
  }
  return out;
}
