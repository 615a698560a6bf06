import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { append, destructuredKeyOf, isFunction, isInside, memberName, memberPath, paramBinds, propertyKeyName, staticString, unwrap, walk, type FunctionNode, type Node } from './ast.js';
import { hasEmptyDefaultArgument, registrationSchemaEntries, schemaDefault } from './choices.js';
import type { HandlerRef, ModuleModel } from './model.js';
import type { Variable } from './module.js';
import { getPathAnalysis, isPerCall, type PathAnalysis } from './paths.js';
import { knownCallOrigin, moduleRef, objectLiteralOf } from './processes.js';
import { resolveValues, returnedExpressions } from './resolve.js';
import { CREDENTIAL_ARGUMENT_PATTERN, DIRECTORY_ARGUMENT_PATTERN, TENANT_ARGUMENT_PATTERN } from '../vocabulary.js';

/** A fallback for a missing scope argument, and what it falls back to. */
export interface ScopeFallback {
  scope: Node;
  fallback: Node;
  what: string;
  /** A directory or scope argument, or a tenant-like field (whose fallback is a shared slot, not a directory). */
  kind: ScopeKind;
  /** How reports quote the fallback when it is not the reported node's text (`DEFAULTS.outputDir`). */
  fallbackText?: string;
  /** The handler whose input schema holds the fallback, when it is not in handler code (a schema default). */
  handler?: HandlerRef;
}

/**
 * What kind of scope a value is: the configured scope argument (`workspace`, run id), an argument or context field that
 * says where the call's files go (`outputDir`, `workFolder`, `downloadsDir`, `cwd`), one that says whose data it is
 * (`tenantId`), or the caller's own credential (`apiKey`, `token`), whose fallback is the server's.
 */
export type ScopeKind = 'scope' | 'directory' | 'tenant' | 'credential';

/** Origins of a value a caller supplies (or a helper receives from handler code). */
const CALLER_ORIGINS = ['input', 'context', 'auth', 'param'] as const;

/**
 * Fallbacks for a missing scope in handler code: `workspace || os.homedir()`, `outputDir ?? process.cwd()`,
 * `workspace ? … : '/tmp'`, `{ workspace = os.tmpdir() }`, `if (!workspace) return RUNS_ROOT`, `ctx.tenantId ||
 * 'default-tenant'`, `let cwd = homedir(); if (args.workFolder) cwd = …` (a shared default a scope argument may
 * override), `{ ...DEFAULTS, ...args }` where `DEFAULTS.outputDir` is shared, and an empty-string default joined straight
 * onto a root. A dedicated sub-directory (`path.join(ROOT, '_adhoc')`, `'_adhoc'`) is fine.
 */
export function sharedFallback(model: ModuleModel): ScopeFallback[] {
  const analysis = getPathAnalysis(model);
  const out: ScopeFallback[] = [];
  const facts = model.facts;
  const check = (scope: Node, kind: ScopeKind, fallback: Node) => {
    if (!model.isHandlerCode(fallback)) return;
    const what = sharedTarget(model, analysis, fallback, kind);
    if (what) out.push({ scope: scopeNode(scope), fallback, what, kind });
  };
  for (const fn of facts.functions) {
    if (!model.reached.has(fn)) continue;
    // ({ workspace = os.homedir() }) => …, (workspace = '') => …
    const patterns: Node[] = [...fn.params];
    while (patterns.length) {
      const p = patterns.pop()!;
      if (p.type === AST_NODE_TYPES.AssignmentPattern) {
        const kind = p.left.type === AST_NODE_TYPES.Identifier ? scopeKindOf(model, p.left) : null;
        if (kind && p.left.type === AST_NODE_TYPES.Identifier) {
          if (kind === 'scope' && staticString(p.right) === '') {
            if (emptyJoinedWithoutCheck(model, p.left, fn)) out.push({ scope: p.left, fallback: p.right, what: 'an empty scope, which joins to the runs root itself', kind });
          } else check(p.left, kind, p.right);
        }
        patterns.push(p.left);
      } else if (p.type === AST_NODE_TYPES.ObjectPattern) {
        for (const q of p.properties) if (q.type === AST_NODE_TYPES.Property) patterns.push(q.value);
      }
    }
  }
  // `if (dirs.length === 0) dirs.push(process.cwd())`: an empty list of the caller's directories, filled with one.
  const emptyListFilled = (n: TSESTree.IfStatement) => {
    const list = emptyListTested(n.test);
    if (!list || scopeKindOf(model, list) !== 'directory') return;
    const stmts = n.consequent.type === AST_NODE_TYPES.BlockStatement ? n.consequent.body : [n.consequent];
    for (const st of stmts) {
      const e = st.type === AST_NODE_TYPES.ExpressionStatement ? unwrap(st.expression) : null;
      if (e?.type !== AST_NODE_TYPES.CallExpression || e.callee.type !== AST_NODE_TYPES.MemberExpression || !sameBinding(model, e.callee.object, list)) continue;
      const m = memberName(e.callee);
      if ((m === 'push' || m === 'unshift') && e.arguments[0] && e.arguments[0].type !== AST_NODE_TYPES.SpreadElement) check(list, 'directory', e.arguments[0]);
    }
  };
  const visit = (n: Node) => {
    if (n.type === AST_NODE_TYPES.LogicalExpression && (n.operator === '||' || n.operator === '??')) {
      // `a || b || c` is one chain of fallbacks for `a`: the first shared one is reported (its inner links are skipped).
      const up = n.parent;
      if (up && up.type === AST_NODE_TYPES.LogicalExpression && up.left === n && (up.operator === '||' || up.operator === '??')) return;
      const operands: Node[] = [];
      let head: Node = n;
      while (head.type === AST_NODE_TYPES.LogicalExpression && (head.operator === '||' || head.operator === '??')) {
        operands.unshift(head.right);
        head = head.left;
      }
      const kind = scopeKindOf(model, head);
      if (!kind) return;
      for (const fallback of operands) {
        const before = out.length;
        if (kind === 'scope' && staticString(fallback) === '') {
          if (model.isHandlerCode(n)) out.push({ scope: scopeNode(head), fallback, what: 'an empty scope, which joins to the runs root itself', kind });
        } else check(head, kind, fallback);
        if (out.length > before) break;
      }
    } else if (n.type === AST_NODE_TYPES.ConditionalExpression) {
      const kind = scopeKindOf(model, n.test);
      if (!kind) return;
      const negated = unwrap(n.test).type === AST_NODE_TYPES.UnaryExpression;
      // `outputDir ? path.join(outputDir, f) : os.tmpdir()` chooses a directory; `outputDir ? 'saved' : ''` only text.
      const chosen = negated ? n.alternate : n.consequent;
      if (!mentions(model, chosen, scopeNode(n.test)) && !(fromRoots(model, scopeNode(n.test), 0) && fromRoots(model, chosen, 0))) return;
      check(n.test, kind, negated ? n.consequent : n.alternate);
    } else if (n.type === AST_NODE_TYPES.IfStatement && unwrap(n.test).type === AST_NODE_TYPES.UnaryExpression) {
      emptyListFilled(n);
      const kind = scopeKindOf(model, n.test);
      if (!kind) return;
      const stmts = n.consequent.type === AST_NODE_TYPES.BlockStatement ? n.consequent.body : [n.consequent];
      for (const s of stmts) {
        if (s.type === AST_NODE_TYPES.ReturnStatement && s.argument) check(n.test, kind, s.argument);
        if (s.type === AST_NODE_TYPES.ExpressionStatement && s.expression.type === AST_NODE_TYPES.AssignmentExpression && scopeKindOf(model, s.expression.left)) check(n.test, kind, s.expression.right);
      }
    } else if (n.type === AST_NODE_TYPES.IfStatement) {
      emptyListFilled(n);
    } else if (n.type === AST_NODE_TYPES.VariableDeclarator && n.init && n.id.type === AST_NODE_TYPES.Identifier && n.parent?.type === AST_NODE_TYPES.VariableDeclaration && n.parent.kind === 'let') {
      sharedDefault(model, analysis, n, out);
    } else if (n.type === AST_NODE_TYPES.ObjectExpression && n.properties.some((p) => p.type === AST_NODE_TYPES.SpreadElement)) {
      defaultsSpread(model, analysis, n.properties.map((p) => (p.type === AST_NODE_TYPES.SpreadElement ? p.argument : null)), out);
    } else if (n.type === AST_NODE_TYPES.CallExpression && isObjectAssign(n)) {
      defaultsSpread(model, analysis, n.arguments.map((a) => (a.type === AST_NODE_TYPES.SpreadElement ? null : a)), out);
    } else if (n.type === AST_NODE_TYPES.CallExpression && isPathJoin(model, n)) {
      // path.resolve(RUNS_ROOT, workspace) where the schema defaults workspace to '' and nothing tests it: the root itself.
      for (const a of n.arguments.slice(1)) {
        const u = unwrap(a);
        if (u.type === AST_NODE_TYPES.Identifier && model.origins.has(u, 'scope') && emptyScopeJoined(model, u, 0)) {
          out.push({ scope: u, fallback: u, what: 'an empty scope, which joins to the runs root itself', kind: 'scope', fallbackText: "''" });
        }
      }
    }
  };
  // Only handler code can fall back for a caller: ask nothing of the rest of the file.
  for (const fn of model.reached.keys()) {
    for (const n of facts.choicesByOwner.get(fn) ?? []) visit(n);
    for (const call of facts.callsByOwner.get(fn) ?? []) visit(call);
  }
  schemaDefaults(model, analysis, out);
  return out.sort((a, b) => a.fallback.range[0] - b.fallback.range[0]);
}

/**
 * Is `n` (or `!n`, `n.trim()`) a scope the caller supplies? The configured scope arguments are scopes wherever they
 * come from; other names count when the value comes from the call (its arguments, its context, a helper's parameter).
 */
function scopeKindOf(model: ModuleModel, n: Node, depth = 0): ScopeKind | null {
  const u = unwrap(n);
  if (u.type === AST_NODE_TYPES.UnaryExpression && u.operator === '!') return scopeKindOf(model, u.argument, depth);
  // The client's MCP roots (`(await server.listRoots()).roots`) are where its files live: its directory scope.
  if (depth === 0 && fromRoots(model, u, 0)) return 'directory';
  if (u.type === AST_NODE_TYPES.CallExpression && u.callee.type === AST_NODE_TYPES.MemberExpression && memberName(u.callee) === 'trim') return scopeKindOf(model, u.callee.object, depth);
  if (u.type !== AST_NODE_TYPES.Identifier && u.type !== AST_NODE_TYPES.MemberExpression) return null;
  let name: string | null;
  let v: Variable | null = null;
  let init: Node | null = null;
  if (u.type === AST_NODE_TYPES.MemberExpression) {
    name = memberName(u);
  } else {
    v = model.facts.variableOf(u);
    if (!v) return null;
    name = keyOf(v);
    const def = v.defs[0];
    if (def?.type === 'Variable' && (def.node as TSESTree.VariableDeclarator).id.type === AST_NODE_TYPES.Identifier) init = (def.node as TSESTree.VariableDeclarator).init;
  }
  if (!name) return null;
  const i = init ? unwrap(init) : null;
  const copied = i && depth < 3 && (i.type === AST_NODE_TYPES.Identifier || i.type === AST_NODE_TYPES.MemberExpression) ? i : null;
  // Only a scope-like name (here or along the copies it was made from) can answer: ask value origins nothing else.
  const named = isScopeLikeName(model, name);
  if (!named && !copied) return null;
  // The scope argument itself, or a copy of it (`const ws = args.workspace`): not every value computed from it (a
  // client's reply to a request made with the run id is not the run id).
  if (model.origins.has(u, 'scope')) {
    if (model.settings.scopeArguments.includes(name)) return 'scope';
    if (copied) {
      const k = scopeKindOf(model, copied, depth + 1);
      if (k) return k;
    }
  }
  if (!named) return null;
  const origins = v ? model.origins.variable(v) : model.origins.of((u as TSESTree.MemberExpression).object);
  if (!CALLER_ORIGINS.some((o) => origins.has(o))) return null;
  // What the caller passed, not something computed from it; a helper's parameter only when handler code fills it from
  // the call (a directory the server was configured with is passed the same way).
  if (!isCallerValue(model, u, 0)) return null;
  if (DIRECTORY_ARGUMENT_PATTERN.test(name)) return 'directory';
  if (TENANT_ARGUMENT_PATTERN.test(name)) return 'tenant';
  if (CREDENTIAL_ARGUMENT_PATTERN.test(name)) return 'credential';
  return null;
}

/**
 * Does a value come from the client's MCP roots: `server.listRoots()` (either SDK generation, the low-level server
 * too), its `roots`, an element, a property, or anything computed from them (`roots.map((r) => fileURLToPath(r.uri))`)?
 */
function fromRoots(model: ModuleModel, n: Node, depth: number): boolean {
  if (depth > 6) return false;
  const u = unwrap(n);
  switch (u.type) {
    case AST_NODE_TYPES.AwaitExpression:
      return fromRoots(model, u.argument, depth + 1);
    case AST_NODE_TYPES.MemberExpression:
      return fromRoots(model, u.object, depth + 1);
    case AST_NODE_TYPES.CallExpression: {
      const callee = unwrap(u.callee);
      if (callee.type === AST_NODE_TYPES.MemberExpression) {
        if (memberName(callee) === 'listRoots') return true;
        if (fromRoots(model, callee.object, depth + 1)) return true;
      }
      return u.arguments.some((a) => a.type !== AST_NODE_TYPES.SpreadElement && fromRoots(model, a, depth + 1));
    }
    case AST_NODE_TYPES.Identifier: {
      const v = model.facts.variableOf(u);
      const def = v?.defs[0];
      if (def?.type !== 'Variable') return false;
      const init = (def.node as TSESTree.VariableDeclarator).init;
      return !!init && fromRoots(model, init, depth + 1);
    }
    default:
      return false;
  }
}

/** The list an `if` test finds empty: `xs.length === 0`, `!xs.length`, `xs.length < 1`. */
function emptyListTested(test: Node): Node | null {
  const t = unwrap(test);
  const lengthOf = (e: Node): Node | null => {
    const m = unwrap(e);
    return m.type === AST_NODE_TYPES.MemberExpression && !m.computed && memberName(m) === 'length' ? m.object : null;
  };
  if (t.type === AST_NODE_TYPES.UnaryExpression && t.operator === '!') return lengthOf(t.argument);
  if (t.type === AST_NODE_TYPES.BinaryExpression) {
    const zero = staticNumber(t.right);
    if ((t.operator === '===' || t.operator === '==') && zero === 0) return lengthOf(t.left);
    if (t.operator === '<' && zero === 1) return lengthOf(t.left);
  }
  return null;
}

function staticNumber(n: Node): number | null {
  const u = unwrap(n);
  return u.type === AST_NODE_TYPES.Literal && typeof u.value === 'number' ? u.value : null;
}

/** Two expressions naming the same variable. */
function sameBinding(model: ModuleModel, a: Node, b: Node): boolean {
  const x = unwrap(a);
  const y = unwrap(b);
  return x.type === AST_NODE_TYPES.Identifier && y.type === AST_NODE_TYPES.Identifier && model.facts.variableOf(x) !== null && model.facts.variableOf(x) === model.facts.variableOf(y);
}

/** A name some scope kind is spelled with: a configured scope argument, or a directory, tenant or credential name. */
function isScopeLikeName(model: ModuleModel, name: string): boolean {
  return model.settings.scopeArguments.includes(name) || DIRECTORY_ARGUMENT_PATTERN.test(name) || TENANT_ARGUMENT_PATTERN.test(name) || CREDENTIAL_ARGUMENT_PATTERN.test(name);
}

/**
 * Is `n` what the caller passed: a handler's own parameter (its arguments or request context), reached by property
 * access, destructuring or schema parsing (`Schema.parse(args)`), or a helper's parameter that handler code here fills
 * with such a value? A value computed from the call (a client's reply to a request made with the caller's id) is not.
 */
function isCallerValue(model: ModuleModel, n: Node, depth: number, key: string | null = null): boolean {
  if (depth > 6) return false;
  const u = unwrap(n);
  // `o.cwd` of an options object a call site writes out (`createTerminal({ command, cwd })`): that property's value.
  if (u.type === AST_NODE_TYPES.MemberExpression) return isCallerValue(model, u.object, depth + 1, u.computed ? null : memberName(u));
  if (u.type === AST_NODE_TYPES.ObjectExpression) {
    if (key === null) return false;
    const prop = u.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && !p.computed && propertyKeyName(p) === key);
    return !!prop && isCallerValue(model, prop.value, depth + 1);
  }
  if (u.type === AST_NODE_TYPES.CallExpression) {
    const c = unwrap(u.callee);
    const m = c.type === AST_NODE_TYPES.MemberExpression ? memberName(c) : null;
    return !!m && /^(safeParse|parse)(Async)?$/.test(m) && !!u.arguments[0] && isCallerValue(model, u.arguments[0], depth + 1);
  }
  if (u.type !== AST_NODE_TYPES.Identifier) return false;
  const v = model.facts.variableOf(u);
  const def = v?.defs[0];
  if (!v || !def) return false;
  if (def.type === 'Variable') {
    const init = (def.node as TSESTree.VariableDeclarator).init;
    return !!init && isCallerValue(model, init, depth + 1, (def.node as TSESTree.VariableDeclarator).id.type === AST_NODE_TYPES.Identifier ? key : null);
  }
  if (def.type !== 'Parameter') return false;
  const origins = model.origins.variable(v);
  if ((origins.has('input') || origins.has('context') || origins.has('auth')) && !origins.has('param')) return true;
  const fn = def.node as FunctionNode;
  const index = fn.params.findIndex((p) => paramBinds(p, v.name));
  if (index < 0) return false;
  const sites = model.callSitesOf(fn);
  // A handler body handed to a project wrapper (`tool(name, schema, async ({ output }) => …)`) that calls it with the
  // call's arguments: its first parameter is the input.
  if (sites.length === 0 && index === 0 && isCallbackArgument(fn)) return true;
  return sites.some((site) => {
    const a = site.arguments[index];
    if (!a || a.type === AST_NODE_TYPES.SpreadElement || !model.isHandlerCode(site)) return false;
    // The options object itself written at the call: the property this use reads decides.
    // `function f({ cwd })` reads that property of it too.
    if (unwrap(a).type !== AST_NODE_TYPES.ObjectExpression) return isCallerValue(model, a, depth + 1);
    const param = fn.params[index];
    const target = param.type === AST_NODE_TYPES.AssignmentPattern ? param.left : param;
    const k = target.type === AST_NODE_TYPES.ObjectPattern ? destructuredKeyOf(target, v.name, true) : key;
    return k !== null && isCallerValue(model, a, depth + 1, k);
  });
}

function isCallbackArgument(fn: FunctionNode): boolean {
  const p = fn.parent;
  return !!p && p.type === AST_NODE_TYPES.CallExpression && p.arguments.includes(fn as TSESTree.Expression);
}

/** Does `branch` use the value `scope` names (the same variable, or the same member path)? */
function mentions(model: ModuleModel, branch: Node, scope: Node): boolean {
  const target = unwrap(scope);
  const targetVar = target.type === AST_NODE_TYPES.Identifier ? model.facts.variableOf(target) : null;
  const targetPath = target.type === AST_NODE_TYPES.MemberExpression ? memberPathKey(target) : null;
  let found = false;
  walk(branch, model.facts.visitorKeys, (n) => {
    if (found) return;
    if (targetVar && n.type === AST_NODE_TYPES.Identifier && model.facts.variableOf(n) === targetVar) found = true;
    else if (targetPath && n.type === AST_NODE_TYPES.MemberExpression && memberPathKey(n) === targetPath) found = true;
  });
  return found;
}

function memberPathKey(m: TSESTree.MemberExpression): string | null {
  const path = memberPath(m);
  return path ? path.join('.') : null;
}

/** The name a variable goes by in the caller's arguments: its destructured key (`{ output_dir: dir }`), or its own. */
function keyOf(v: Variable): string {
  const def = v.defs[0];
  if (def?.type === 'Parameter') {
    for (const p of (def.node as FunctionNode).params) {
      const t = p.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p;
      const k = destructuredKeyOf(t, v.name, true);
      if (k !== null) return k;
    }
  }
  if (def?.type === 'Variable') {
    const k = destructuredKeyOf((def.node as TSESTree.VariableDeclarator).id, v.name, true);
    if (k !== null) return k;
  }
  return v.name;
}

function scopeNode(n: Node): Node {
  let u = unwrap(n);
  while (u.type === AST_NODE_TYPES.UnaryExpression) u = unwrap(u.argument);
  if (u.type === AST_NODE_TYPES.CallExpression && u.callee.type === AST_NODE_TYPES.MemberExpression) u = unwrap(u.callee.object);
  return u;
}

/**
 * `let cwd = os.homedir(); if (args.workFolder) { … cwd = resolved; }`: a shared default that only a given scope
 * argument overrides. Reported at the default.
 */
function sharedDefault(model: ModuleModel, analysis: PathAnalysis, decl: TSESTree.VariableDeclarator, out: ScopeFallback[]): void {
  const v = model.facts.variableOf(decl.id as TSESTree.Identifier);
  if (!v || !decl.init) return;
  let scope: Node | null = null;
  let kind: ScopeKind | null = null;
  for (const ref of v.references) {
    if (!ref.isWrite() || ref.init) continue;
    const found = scopeTestAbove(model, ref.identifier, decl);
    if (found) {
      scope = found.node;
      kind = found.kind;
      break;
    }
  }
  if (!scope || !kind || kind === 'tenant') return;
  const what = sharedTarget(model, analysis, decl.init, kind);
  if (what) out.push({ scope: scopeNode(scope), fallback: decl.init, what, kind });
}

/** The scope argument tested by an `if` that encloses `at` (below `limit`'s block). */
function scopeTestAbove(model: ModuleModel, at: Node, limit: Node): { node: Node; kind: ScopeKind } | null {
  const block = limit.parent?.parent;
  for (let n: Node | undefined = at.parent; n && n !== block && !isFunction(n); n = n.parent) {
    if (n.type !== AST_NODE_TYPES.IfStatement || !isInside(at, n.consequent)) continue;
    const stack: Node[] = [n.test];
    while (stack.length) {
      const t = unwrap(stack.pop()!);
      const kind = t.type === AST_NODE_TYPES.Identifier || t.type === AST_NODE_TYPES.MemberExpression ? scopeKindOf(model, t) : null;
      if (kind) return { node: t, kind };
      if (t.type === AST_NODE_TYPES.LogicalExpression || t.type === AST_NODE_TYPES.BinaryExpression) stack.push(t.left, t.right);
      else if (t.type === AST_NODE_TYPES.UnaryExpression) stack.push(t.argument);
      else if (t.type === AST_NODE_TYPES.CallExpression) append(stack, t.arguments.filter((a) => a.type !== AST_NODE_TYPES.SpreadElement));
    }
  }
  return null;
}

function isObjectAssign(c: TSESTree.CallExpression): boolean {
  const callee = unwrap(c.callee);
  return callee.type === AST_NODE_TYPES.MemberExpression && memberName(callee) === 'assign' && unwrap(callee.object).type === AST_NODE_TYPES.Identifier && (unwrap(callee.object) as TSESTree.Identifier).name === 'Object';
}

/**
 * `{ ...DEFAULTS, ...args }` / `Object.assign({}, DEFAULTS, args)`: each directory-like key of `DEFAULTS` is the
 * fallback for a missing key of the caller's object. Reported at the defaults, naming the key.
 */
function defaultsSpread(model: ModuleModel, analysis: PathAnalysis, parts: (Node | null)[], out: ScopeFallback[]): void {
  const callerAt = parts.findIndex((p, i) => i > 0 && p !== null && CALLER_ORIGINS.some((o) => model.origins.has(p, o)));
  if (callerAt < 0) return;
  for (const part of parts.slice(0, callerAt)) {
    if (!part) continue;
    const lit = objectLiteralOf(model.facts, part);
    if (!lit || lit === part) continue;
    for (const prop of lit.properties) {
      if (prop.type !== AST_NODE_TYPES.Property) continue;
      const key = propertyKeyName(prop);
      if (!key) continue;
      const kind: ScopeKind | null = model.settings.scopeArguments.includes(key) ? 'scope' : DIRECTORY_ARGUMENT_PATTERN.test(key) ? 'directory' : TENANT_ARGUMENT_PATTERN.test(key) ? 'tenant' : null;
      if (!kind) continue;
      const what = sharedTarget(model, analysis, prop.value, kind);
      if (!what) continue;
      const name = part.type === AST_NODE_TYPES.Identifier ? part.name : 'the defaults';
      out.push({ scope: prop.key, fallback: part, what, kind, fallbackText: `${name}.${key}` });
    }
  }
}

/** What a fallback value is, when it is shared or privileged; null for a dedicated directory or something unknown. */
function sharedTarget(model: ModuleModel, analysis: PathAnalysis, fallback: Node, kind: ScopeKind): string | null {
  const s = staticString(fallback);
  const fu = unwrap(fallback);
  if (kind !== 'tenant' && fu.type === AST_NODE_TYPES.Identifier && fu.name === 'undefined' && isCwdOption(fallback)) return "the server's working directory, where a child without `cwd` runs";
  if (kind === 'tenant') return sharedTenant(model, fallback);
  if (kind === 'credential') return operatorCredential(model, fallback);
  if (s !== null) {
    if (s === '') return kind === 'scope' ? 'an empty scope, which joins to the runs root itself' : joinedOntoRoot(model, fallback) ?? "the server's working directory";
    if (s === '.' || s === './') return joinedOntoRoot(model, fallback) ?? "the server's working directory";
    if (s.startsWith('~')) return "the server's home directory";
    if (s.startsWith('/') || /^[A-Za-z]:[\\/]/.test(s)) return 'a fixed absolute path every caller shares';
    return null;
  }
  const t = analysis.trace(fallback);
  if (t.tags.has('unknown') || isPerCall(t)) return null;
  const u = unwrap(fallback);
  const joinsSubdir = u.type === AST_NODE_TYPES.CallExpression && u.arguments.length > 1;
  if (joinsSubdir) {
    // path.join(ROOT, '_adhoc') is a dedicated directory; path.join(os.homedir(), '.cache') still is the home, and a
    // fixed name under the server's working directory or the system temp dir is one directory for every caller.
    if (t.tags.has('homedir')) return "a directory under the server's home directory";
    const base = u.arguments[0] && isPathJoin(model, u) ? sharedBase(model, u.arguments[0], 0) : null;
    if (base === 'cwd') return "a fixed directory under the server's working directory";
    if (base === 'tmpdir') return 'a fixed path under the shared system temp dir';
    return null;
  }
  if (u.type === AST_NODE_TYPES.Identifier || u.type === AST_NODE_TYPES.MemberExpression) {
    // A long-lived directory used as the root other paths are joined onto.
    const v = u.type === AST_NODE_TYPES.Identifier ? model.facts.variableOf(u) : null;
    const init = v?.defs[0]?.type === 'Variable' ? (v.defs[0].node as TSESTree.VariableDeclarator).init : null;
    const is = init ? staticString(init) : null;
    if (is !== null) return sharedTarget(model, analysis, init!, kind);
    if (v && v.references.some((r) => isJoinRoot(model, r.identifier))) return 'the runs root itself, shared by every run';
  }
  if (t.tags.has('homedir')) return "the server's home directory";
  if (t.tags.has('cwd')) return "the server's working directory";
  if (t.tags.has('tmpdir')) return 'the shared system temp dir';
  return null;
}

/**
 * A tenant every caller without one shares: a literal (`'default-tenant'`) or a constant holding one (`DEFAULT_TENANT`).
 * Null for anything else: a default tenant the operator configures (`process.env.DEFAULT_TENANT`) is the deployment's
 * choice, like the server's other configuration.
 */
function sharedTenant(model: ModuleModel, fallback: Node): string | null {
  const s = staticString(fallback);
  if (s !== null) return `the literal ${JSON.stringify(s)}`;
  const u = unwrap(fallback);
  if (u.type === AST_NODE_TYPES.Identifier) {
    const v = model.facts.variableOf(u);
    const def = v?.defs.length === 1 ? v.defs[0] : null;
    const decl = def?.type === 'Variable' ? (def.node as TSESTree.VariableDeclarator) : null;
    const is = decl && (def!.parent as TSESTree.VariableDeclaration).kind === 'const' ? staticString(decl.init) : null;
    if (is !== null) return `\`${u.name}\` (the literal ${JSON.stringify(is)})`;
  }
  return null;
}

/**
 * A credential the server holds for itself: an environment variable (`process.env.API_KEY`, directly or through a
 * module-level config built from it) or a key written into the code. Null for no credential at all (`''`, `undefined`):
 * the call then goes out unauthenticated, which carries nobody's identity.
 */
function operatorCredential(model: ModuleModel, fallback: Node): string | null {
  const s = staticString(fallback);
  if (s !== null) return s === '' ? null : 'a key written into the server';
  const u = unwrap(fallback);
  if (u.type === AST_NODE_TYPES.Identifier && u.name === 'undefined') return null;
  return model.origins.has(fallback, 'env') ? "the server's own credential from its environment" : null;
}

/** The value of a `cwd` option (`{ cwd: dir || undefined }`), through the fallback around it. */
function isCwdOption(fallback: Node): boolean {
  let n: Node = fallback;
  while (n.parent && (n.parent.type === AST_NODE_TYPES.LogicalExpression || n.parent.type === AST_NODE_TYPES.ConditionalExpression)) n = n.parent;
  const p = n.parent;
  return !!p && p.type === AST_NODE_TYPES.Property && p.value === n && propertyKeyName(p) === 'cwd';
}

/** `path.join(ROOT, workspace ?? '')`: an empty or `.` fallback joined onto a root is that root itself. */
function joinedOntoRoot(model: ModuleModel, fallback: Node): string | null {
  let n: Node = fallback;
  while (n.parent && (n.parent.type === AST_NODE_TYPES.LogicalExpression || n.parent.type === AST_NODE_TYPES.ConditionalExpression) && n.parent !== null) n = n.parent;
  const p = n.parent;
  if (!p || p.type !== AST_NODE_TYPES.CallExpression || !isPathJoin(model, p) || p.arguments[0] === n || !p.arguments.includes(n as TSESTree.Expression)) return null;
  return 'the root it is joined onto itself, shared by every call without one';
}

function isPathJoin(model: ModuleModel, c: TSESTree.CallExpression): boolean {
  const ref = moduleRef(model.facts, c.callee);
  return !!ref && ref.module === 'path' && ['join', 'resolve'].includes(ref.path[ref.path.length - 1]);
}

/** The shared directory an expression names outright: `os.tmpdir()`, `process.cwd()`, a const or helper returning one. */
function sharedBase(model: ModuleModel, e: Node, depth: number): 'cwd' | 'tmpdir' | 'homedir' | null {
  if (depth > 4) return null;
  const n = unwrap(e);
  const k = knownCallOrigin(model.facts, n);
  if (k === 'cwd' || k === 'tmpdir' || k === 'homedir') return k;
  if (n.type === AST_NODE_TYPES.Identifier) {
    const v = model.facts.variableOf(n);
    const def = v?.defs[0];
    if (def?.type !== 'Variable' || v!.references.some((r) => r.isWrite() && !r.init)) return null;
    const init = (def.node as TSESTree.VariableDeclarator).init;
    return init ? sharedBase(model, init, depth + 1) : null;
  }
  if (n.type === AST_NODE_TYPES.CallExpression) {
    for (const f of resolveValues(model.facts, n.callee)) {
      if (f.kind !== 'function') continue;
      const rs = returnedExpressions(f.node);
      if (rs.length === 1) return sharedBase(model, rs[0], depth + 1);
    }
  }
  return null;
}

/**
 * A directory argument whose input schema fills in one fixed place when the caller leaves it out
 * (`working_dir: z.string().default('/srv/work/shared')`): the same fallback as `working_dir ?? '/srv/work/shared'`,
 * written in the schema of a registration (an empty default is `emptyScopeJoined`'s).
 */
function schemaDefaults(model: ModuleModel, analysis: PathAnalysis, out: ScopeFallback[]): void {
  for (const r of model.registrations) {
    if (r.site.type !== AST_NODE_TYPES.CallExpression) continue;
    const handler: HandlerRef = { registration: r, routedName: null };
    for (const [key, prop] of registrationSchemaEntries(model.facts, r.site, r.handler).entries) {
      const kind: ScopeKind | null = model.settings.scopeArguments.includes(key) ? 'scope' : DIRECTORY_ARGUMENT_PATTERN.test(key) ? 'directory' : null;
      const d = kind ? schemaDefault(prop.value as Node) : null;
      if (!kind || !d || staticString(d) === '') continue;
      const what = sharedTarget(model, analysis, d, kind);
      if (what) out.push({ scope: prop.key, fallback: d, what, kind, handler });
    }
  }
}

function isJoinRoot(model: ModuleModel, id: Node): boolean {
  const p = id.parent;
  if (!p || p.type !== AST_NODE_TYPES.CallExpression || p.arguments[0] !== id || p.arguments.length < 2) return false;
  return isPathJoin(model, p);
}

/**
 * A scope that is `''` when the caller leaves it out (its schema says `.default('')`) and that nothing on the way tests
 * for emptiness: the handler's own parameter, or a helper's parameter every such handler passes it to.
 */
function emptyScopeJoined(model: ModuleModel, id: TSESTree.Identifier, depth: number): boolean {
  const v = model.facts.variableOf(id);
  const def = v?.defs[0];
  if (!v || def?.type !== 'Parameter' || v.references.some((r) => isTest(r.identifier))) return false;
  const fn = def.node as FunctionNode;
  const index = fn.params.findIndex((p) => paramBinds(p, v.name));
  const param = fn.params[index];
  // A `= ''` default is reported where it is written.
  if (!param || param.type === AST_NODE_TYPES.AssignmentPattern) return false;
  const origins = model.origins.variable(v);
  if (origins.has('input') && !origins.has('param')) {
    const reg = model.reached.get(fn)?.registration ?? null;
    return hasEmptyDefaultArgument(model.facts, reg?.site ?? null, reg?.handler ?? null, keyOf(v));
  }
  if (depth >= 2) return false;
  return model.callSitesOf(fn).some((site) => {
    const a = site.arguments[index];
    const u = a ? unwrap(a) : null;
    return !!u && u.type === AST_NODE_TYPES.Identifier && model.isHandlerCode(site) && emptyScopeJoined(model, u, depth + 1);
  });
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
    if (p.type === AST_NODE_TYPES.CallExpression && p.arguments.includes(r as TSESTree.Expression) && isPathJoin(model, p)) joined = true;
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
