// Lazy fills of long-lived state: is an assignment guarded by a test that the target is not set yet (`if (!client)`,
// `client ??= …`, `if (client) return client;` before it), and which values are once-flags rather than a caller's data.
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, memberPath, unwrap, type Node } from './ast.js';
import type { ModuleFacts } from './module.js';
import { resolveValues, returnedExpressions } from './resolve.js';

/** `client` and `client`, `this.browser` and `this.browser`: the same binding and member path. */
export function referencesSame(node: Node, target: Node): boolean {
  const a = memberPath(node);
  const b = memberPath(target);
  return !!a && !!b && a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Is this assignment guarded by a test that the target is not set yet (`if (!client)`, `if (client) return client`)? */
export function isLazy(facts: ModuleFacts, assign: TSESTree.AssignmentExpression, target: Node): boolean {
  let child: Node = assign;
  let n: Node | undefined = assign.parent;
  // Guards may sit in an enclosing function too (`if (cached !== null) return cached; promise = (async () => { cached = … })()`).
  while (n) {
    if (n.type === AST_NODE_TYPES.IfStatement && n.consequent === child && testsAbsence(n.test, target, facts)) return true;
    if (n.type === AST_NODE_TYPES.ConditionalExpression && n.consequent === child && testsAbsence(n.test, target, facts)) return true;
    if (n.type === AST_NODE_TYPES.LogicalExpression && n.right === child && (n.operator === '||' || n.operator === '??') && referencesSame(n.left, target)) return true;
    if (n.type === AST_NODE_TYPES.BlockStatement || n.type === AST_NODE_TYPES.Program) {
      // `if (client) return client;` earlier in the same block.
      const idx = n.body.indexOf(child as TSESTree.Statement);
      for (let i = 0; i < idx; i++) {
        const s = n.body[i];
        if (s.type === AST_NODE_TYPES.IfStatement && testsPresence(s.test, target) && mayReturnCached(s.consequent)) return true;
      }
    }
    child = n;
    n = n.parent;
  }
  return false;
}

/**
 * A constant that no call makes and that is not a reset: a boolean, number or string literal, `!0`, a template without
 * expressions. A lazy fill of one (`if (!started) { started = true; … }`) is a once-flag and keeps nothing of a
 * caller's. A reset (`browser = null`) is not one of these: it ends the shared value, often because of a caller's input.
 */
export function isConstantValue(value: Node): boolean {
  const v = unwrap(value);
  if (v.type === AST_NODE_TYPES.Literal) return v.value !== null && !('regex' in v && v.regex);
  if (v.type === AST_NODE_TYPES.TemplateLiteral) return v.expressions.length === 0;
  if (v.type === AST_NODE_TYPES.UnaryExpression) return (v.operator === '!' || v.operator === '-') && unwrap(v.argument).type === AST_NODE_TYPES.Literal;
  return false;
}

/**
 * An empty collection (`[]`, `{}`, `new Map()`, `new Set()`, `Object.create(null)`): made on first use, it holds nothing
 * of the caller that made it. What later calls put in it is a change of state of its own.
 */
export function isEmptyContainer(value: Node): boolean {
  const v = unwrap(value);
  if (v.type === AST_NODE_TYPES.ArrayExpression) return v.elements.length === 0;
  if (v.type === AST_NODE_TYPES.ObjectExpression) return v.properties.length === 0;
  if (v.type === AST_NODE_TYPES.NewExpression) {
    return v.arguments.length === 0 && v.callee.type === AST_NODE_TYPES.Identifier && EMPTY_COLLECTIONS.has(v.callee.name);
  }
  if (v.type === AST_NODE_TYPES.CallExpression && v.arguments.length === 1) {
    const c = v.callee;
    const arg = unwrap(v.arguments[0]);
    return (
      c.type === AST_NODE_TYPES.MemberExpression && !c.computed && c.object.type === AST_NODE_TYPES.Identifier && c.object.name === 'Object' &&
      c.property.type === AST_NODE_TYPES.Identifier && c.property.name === 'create' && arg.type === AST_NODE_TYPES.Literal && arg.value === null
    );
  }
  return false;
}

const EMPTY_COLLECTIONS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array']);

/** Calls that turn plain data into plain data (`Number(process.env.PORT)`, `JSON.parse(text)`). */
const DATA_CALLS = new Set(['String', 'Number', 'Boolean', 'parseInt', 'parseFloat', 'parse', 'stringify', 'trim', 'split', 'toLowerCase', 'toUpperCase', 'join']);
const DATA_RECEIVERS = new Set(['JSON', 'Number', 'path']);

/**
 * Plain data that only the server's own configuration makes: literals, `process.env` and `process.argv` reads, objects
 * and arrays of those, `JSON.parse(readFileSync(…))` (a file the server ships or is configured with) and its fields, and
 * what a same-module function returns when all of it is such data (`loadConfig()`). It has no methods that keep a
 * caller's pages, cookies or logins, and every caller would compute the same value: a lazy fill of it is a memo, not a
 * first-caller cache. Values a caller's arguments reach are told apart before this is asked (origins).
 */
export function isServerData(facts: ModuleFacts, value: Node, depth = 0): boolean {
  if (depth > 12) return false;
  const v = unwrap(value);
  switch (v.type) {
    case AST_NODE_TYPES.Literal:
      return !('regex' in v && v.regex);
    case AST_NODE_TYPES.TemplateLiteral:
      return v.expressions.every((e) => isServerData(facts, e, depth + 1));
    case AST_NODE_TYPES.UnaryExpression:
      return v.operator !== 'delete' && isServerData(facts, v.argument, depth + 1);
    case AST_NODE_TYPES.BinaryExpression:
      return v.left.type !== AST_NODE_TYPES.PrivateIdentifier && isServerData(facts, v.left, depth + 1) && isServerData(facts, v.right, depth + 1);
    case AST_NODE_TYPES.LogicalExpression:
      return isServerData(facts, v.left, depth + 1) && isServerData(facts, v.right, depth + 1);
    case AST_NODE_TYPES.ConditionalExpression:
      return isServerData(facts, v.test, depth + 1) && isServerData(facts, v.consequent, depth + 1) && isServerData(facts, v.alternate, depth + 1);
    case AST_NODE_TYPES.ArrayExpression:
      return v.elements.every((e) => e === null || isServerData(facts, e.type === AST_NODE_TYPES.SpreadElement ? e.argument : e, depth + 1));
    case AST_NODE_TYPES.ObjectExpression:
      return v.properties.every((p) =>
        p.type === AST_NODE_TYPES.SpreadElement ? isServerData(facts, p.argument, depth + 1) : !p.computed && p.kind === 'init' && !p.method && isServerData(facts, p.value, depth + 1),
      );
    case AST_NODE_TYPES.Identifier: {
      if (v.name === 'undefined' || v.name === '__dirname' || v.name === '__filename') return facts.variableOf(v) === null;
      // A local constant of such data (`const port = Number(process.env.PORT); return { port };`).
      const def = facts.variableOf(v)?.defs;
      const decl = def?.length === 1 && def[0].type === 'Variable' && (def[0].parent as TSESTree.VariableDeclaration).kind === 'const' ? (def[0].node as TSESTree.VariableDeclarator) : null;
      return !!decl?.init && decl.id.type === AST_NODE_TYPES.Identifier && isServerData(facts, decl.init, depth + 1);
    }
    case AST_NODE_TYPES.MemberExpression: {
      const path = memberPath(v);
      // process.env.X, process.argv[2], import.meta.url
      if (path && path[0] === 'process' && (path[1] === 'env' || path[1] === 'argv') && facts.variableOf(rootOf(v)) === null) return true;
      if (unwrap(v.object).type === AST_NODE_TYPES.MetaProperty) return true;
      // A field of parsed data: `JSON.parse(text).version`.
      return !v.computed && isServerData(facts, v.object, depth + 1);
    }
    case AST_NODE_TYPES.CallExpression: {
      const callee = unwrap(v.callee);
      const name = calleeName(callee);
      // `JSON.parse(readFileSync(file, 'utf8'))`: whatever file is read, parsing it makes plain data.
      if (name === 'parse' && callee.type === AST_NODE_TYPES.MemberExpression && unwrap(callee.object).type === AST_NODE_TYPES.Identifier && (unwrap(callee.object) as TSESTree.Identifier).name === 'JSON') return true;
      if (name && DATA_CALLS.has(name)) {
        const receiver = callee.type === AST_NODE_TYPES.MemberExpression ? unwrap(callee.object) : null;
        const receiverOk = receiver === null || (receiver.type === AST_NODE_TYPES.Identifier && DATA_RECEIVERS.has(receiver.name) && facts.variableOf(receiver) === null) || isServerData(facts, receiver, depth + 1);
        if (receiverOk && v.arguments.every((a) => a.type !== AST_NODE_TYPES.SpreadElement && isServerData(facts, a, depth + 1))) return true;
      }
      if (v.arguments.some((a) => a.type === AST_NODE_TYPES.SpreadElement || !isServerData(facts, a, depth + 1))) return false;
      const targets = resolveValues(facts, callee);
      if (targets.length === 0 || !targets.every((t) => t.kind === 'function')) return false;
      return targets.every((t) => {
        const returned = t.kind === 'function' ? returnedExpressions(t.node) : [];
        return returned.length > 0 && returned.every((r) => isServerData(facts, r, depth + 1));
      });
    }
    default:
      return false;
  }
}

function rootOf(n: TSESTree.MemberExpression): TSESTree.Identifier {
  let o: Node = unwrap(n.object);
  while (o.type === AST_NODE_TYPES.MemberExpression) o = unwrap(o.object);
  return o as TSESTree.Identifier;
}

function exits(s: Node): boolean {
  if (s.type === AST_NODE_TYPES.ReturnStatement || s.type === AST_NODE_TYPES.ThrowStatement) return true;
  if (s.type === AST_NODE_TYPES.BlockStatement) return s.body.some(exits);
  return false;
}

/** `if (browser) return browser;`, or a health check first: `if (browser && page) { if (await alive()) return …; }`. */
function mayReturnCached(s: Node): boolean {
  if (exits(s)) return true;
  if (s.type !== AST_NODE_TYPES.BlockStatement) return false;
  return s.body.some((b) => b.type === AST_NODE_TYPES.IfStatement && exits(b.consequent));
}

/** With `facts`, a test may also be a local constant that holds one (`const needsNew = !session; if (needsNew) …`). */
function testsAbsence(test: Node, target: Node, facts?: ModuleFacts): boolean {
  const t = unwrap(test);
  if (facts && t.type === AST_NODE_TYPES.Identifier) {
    const def = facts.variableOf(t)?.defs;
    const decl = def?.length === 1 && def[0].type === 'Variable' && (def[0].parent as TSESTree.VariableDeclaration).kind === 'const' ? (def[0].node as TSESTree.VariableDeclarator) : null;
    return !!decl?.init && testsAbsence(decl.init, target);
  }
  if (t.type === AST_NODE_TYPES.UnaryExpression && t.operator === '!') return refersTo(t.argument, target);
  if (t.type === AST_NODE_TYPES.BinaryExpression && (t.operator === '==' || t.operator === '===')) {
    const other = refersTo(t.left, target) ? t.right : refersTo(t.right, target) ? t.left : null;
    if (other) {
      const o = unwrap(other);
      // `x === null`, `x === undefined`, or a sentinel literal the binding starts with (`id === 'unknown'`).
      return o.type === AST_NODE_TYPES.Literal || (o.type === AST_NODE_TYPES.Identifier && o.name === 'undefined');
    }
    const tl = unwrap(t.left);
    if (tl.type === AST_NODE_TYPES.UnaryExpression && tl.operator === 'typeof' && refersTo(tl.argument, target)) return true;
  }
  if (t.type === AST_NODE_TYPES.LogicalExpression) return testsAbsence(t.left, target, facts) || testsAbsence(t.right, target, facts);
  return false;
}

function testsPresence(test: Node, target: Node): boolean {
  const t = unwrap(test);
  if (refersTo(t, target) && (t.type === AST_NODE_TYPES.Identifier || t.type === AST_NODE_TYPES.MemberExpression)) return true;
  if (t.type === AST_NODE_TYPES.BinaryExpression && (t.operator === '!==' || t.operator === '!=')) {
    const other = refersTo(t.left, target) ? t.right : refersTo(t.right, target) ? t.left : null;
    if (other) {
      const o = unwrap(other);
      return (o.type === AST_NODE_TYPES.Literal && o.value === null) || (o.type === AST_NODE_TYPES.Identifier && o.name === 'undefined');
    }
  }
  if (t.type === AST_NODE_TYPES.LogicalExpression && t.operator === '&&') return testsPresence(t.left, target);
  return false;
}

/** `client`, `client.connected`, `this.browser?.isConnected()`: a test about the target. */
function refersTo(expr: Node, target: Node): boolean {
  let n: Node = unwrap(expr);
  for (;;) {
    if (referencesSame(n, target)) return true;
    if (n.type === AST_NODE_TYPES.MemberExpression) n = unwrap(n.object);
    else if (n.type === AST_NODE_TYPES.CallExpression) n = unwrap(n.callee);
    else return false;
  }
}

/** `if (server) return server;` earlier in the block of `server = …`: a memoised getter returns what it keeps. */
export function returnsKeptEarlier(assign: TSESTree.AssignmentExpression, name: string): boolean {
  const stmt = assign.parent;
  const block = stmt?.parent;
  if (stmt?.type !== AST_NODE_TYPES.ExpressionStatement || block?.type !== AST_NODE_TYPES.BlockStatement) return false;
  const named = (e: Node | null | undefined) => !!e && (memberPath(e) ?? []).join('.') === name;
  for (const s of block.body.slice(0, block.body.indexOf(stmt))) {
    if (s.type !== AST_NODE_TYPES.IfStatement || !named(s.test)) continue;
    const c = s.consequent.type === AST_NODE_TYPES.BlockStatement && s.consequent.body.length === 1 ? s.consequent.body[0] : s.consequent;
    if (c.type === AST_NODE_TYPES.ReturnStatement && named(c.argument)) return true;
  }
  return false;
}
