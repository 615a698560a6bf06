import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { memberName, staticString, unwrap, type FunctionNode, type Node } from './ast.js';
import type { ModuleModel } from './model.js';
import type { Variable } from './module.js';
import { getPathAnalysis, isPerCall, type PathAnalysis } from './paths.js';
import { moduleRef } from './processes.js';

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
  for (const fn of model.reached.keys()) for (const node of facts.nodesOwnedBy(fn)) visit(node);
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
