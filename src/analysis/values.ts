import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { isFunction, memberName, propertyKeyName, staticString, unwrap, type FunctionNode, type Node } from './ast.js';
import type { ModuleFacts, Variable } from './module.js';
import type { Registration } from './discovery.js';
import { knownCallOrigin } from './processes.js';

/**
 * Where a value comes from, as far as the module shows:
 * - `input`: the caller's arguments (or URI); `scope`: the caller's scope argument (workspace, run id);
 * - `context`: the request context object; `session`: MCP session identity; `auth`: the caller's credentials;
 * - `fresh`: an object made during this call; `const`: a literal; `module`: a long-lived binding; `param`: a helper's parameter.
 * - well-known calls: `tmpdir` (`os.tmpdir()`), `cwd` (`process.cwd()`), `homedir` (`os.homedir()`), `random`
 *   (`randomUUID()`, `mkdtemp()`, `Math.random()`: wherever it is evaluated), `time` (`Date.now()`), `dirname`
 *   (`__dirname`, `import.meta.dirname`/`url`).
 */
export type Origin = 'input' | 'scope' | 'context' | 'session' | 'auth' | 'fresh' | 'const' | 'module' | 'param' | 'env' | 'tmpdir' | 'cwd' | 'homedir' | 'random' | 'time' | 'dirname';

const SESSION_MEMBERS = new Set(['sessionId', 'session_id', 'mcp-session-id']);
const AUTH_MEMBERS = new Set(['authInfo', 'auth', 'authorization', 'Authorization', 'token', 'accessToken', 'credentials', 'cookie', 'cookies']);
const MAX_DEPTH = 10;

export class ValueOrigins {
  private readonly memo = new Map<Node, Set<Origin>>();

  constructor(
    private readonly facts: ModuleFacts,
    private readonly registrationOf: (fn: FunctionNode) => Registration | undefined,
  ) {}

  of(expr: Node): Set<Origin> {
    return this.compute(expr, 0, new Set());
  }

  has(expr: Node, origin: Origin): boolean {
    return this.of(expr).has(origin);
  }

  private compute(expr: Node, depth: number, seen: Set<Node>): Set<Origin> {
    const cached = this.memo.get(expr);
    if (cached) return cached;
    const out = new Set<Origin>();
    if (depth > MAX_DEPTH || seen.has(expr)) return out;
    seen.add(expr);
    const add = (s: Set<Origin>) => s.forEach((o) => out.add(o));
    const n = unwrap(expr);
    switch (n.type) {
      case AST_NODE_TYPES.Literal:
        out.add('const');
        break;
      case AST_NODE_TYPES.TemplateLiteral:
        if (n.expressions.length === 0) out.add('const');
        for (const e of n.expressions) add(this.compute(e, depth + 1, seen));
        break;
      case AST_NODE_TYPES.Identifier:
        add(this.identifier(n, depth, seen));
        break;
      case AST_NODE_TYPES.MemberExpression: {
        const base = this.compute(n.object, depth + 1, seen);
        add(base);
        const name = memberName(n);
        if (name !== null) {
          if (SESSION_MEMBERS.has(name)) out.add('session');
          if (name === 'session' && base.has('context')) out.add('session');
          if (AUTH_MEMBERS.has(name) && (base.has('context') || base.has('auth'))) out.add('auth');
          if (this.facts.settings.scopeArguments.includes(name) && (base.has('input') || base.has('param'))) out.add('scope');
          if (name === 'env' && n.object.type === AST_NODE_TYPES.Identifier && n.object.name === 'process') out.add('env');
          if ((name === 'dirname' || name === 'filename' || name === 'url') && n.object.type === AST_NODE_TYPES.MetaProperty) out.add('dirname');
        } else {
          add(this.compute(n.property, depth + 1, seen));
        }
        break;
      }
      case AST_NODE_TYPES.CallExpression: {
        const known = knownCallOrigin(this.facts, n);
        if (known) out.add(known);
        const callee = unwrap(n.callee);
        if (callee.type === AST_NODE_TYPES.MemberExpression) {
          add(this.compute(callee.object, depth + 1, seen));
          const m = memberName(callee);
          const a0 = n.arguments[0];
          if (m === 'get' && a0 && staticString(a0) === 'mcp-session-id') out.add('session');
        }
        for (const a of n.arguments) add(this.compute(a, depth + 1, seen));
        break;
      }
      case AST_NODE_TYPES.NewExpression:
      case AST_NODE_TYPES.ObjectExpression:
      case AST_NODE_TYPES.ArrayExpression:
        out.add('fresh');
        if (n.type === AST_NODE_TYPES.ObjectExpression) {
          for (const p of n.properties) add(this.compute(p.type === AST_NODE_TYPES.Property ? p.value : p.argument, depth + 1, seen));
        } else if (n.type === AST_NODE_TYPES.ArrayExpression) {
          for (const e of n.elements) if (e) add(this.compute(e.type === AST_NODE_TYPES.SpreadElement ? e.argument : e, depth + 1, seen));
        } else {
          for (const a of n.arguments) add(this.compute(a, depth + 1, seen));
        }
        break;
      case AST_NODE_TYPES.BinaryExpression:
      case AST_NODE_TYPES.LogicalExpression:
        add(this.compute(n.left, depth + 1, seen));
        add(this.compute(n.right, depth + 1, seen));
        break;
      case AST_NODE_TYPES.ConditionalExpression:
        add(this.compute(n.consequent, depth + 1, seen));
        add(this.compute(n.alternate, depth + 1, seen));
        break;
      case AST_NODE_TYPES.SpreadElement:
        add(this.compute(n.argument, depth + 1, seen));
        break;
      default:
        break;
    }
    seen.delete(expr);
    if (depth === 0) this.memo.set(expr, out);
    return out;
  }

  private identifier(id: TSESTree.Identifier, depth: number, seen: Set<Node>): Set<Origin> {
    const out = new Set<Origin>();
    const v = this.facts.variableOf(id);
    if (!v) {
      if (id.name === 'undefined') out.add('const');
      if (id.name === '__dirname' || id.name === '__filename') out.add('dirname');
      return out;
    }
    return this.variable(v, depth, seen);
  }

  variable(v: Variable, depth = 0, seen: Set<Node> = new Set()): Set<Origin> {
    const out = new Set<Origin>();
    const add = (s: Set<Origin>) => s.forEach((o) => out.add(o));
    const def = v.defs[0];
    if (!def) return out;
    if (def.type === 'Parameter') {
      const fn = def.node as FunctionNode;
      add(this.parameter(fn, v));
      return out;
    }
    if (def.type === 'Variable') {
      const decl = def.node as TSESTree.VariableDeclarator;
      if (decl.parent && decl.parent.parent && this.facts.isModuleLevel(v)) out.add('module');
      if (decl.init) {
        const initOrigins = this.compute(decl.init, depth + 1, seen);
        add(initOrigins);
        if (decl.id.type !== AST_NODE_TYPES.Identifier) {
          const key = destructuredKeyOf(decl.id, v.name);
          if (key && SESSION_MEMBERS.has(key)) out.add('session');
          if (key && this.facts.settings.scopeArguments.includes(key) && (initOrigins.has('input') || initOrigins.has('param'))) out.add('scope');
          if (key && AUTH_MEMBERS.has(key) && initOrigins.has('context')) out.add('auth');
        }
      } else {
        const loop = decl.parent?.parent;
        if (loop && (loop.type === AST_NODE_TYPES.ForOfStatement || loop.type === AST_NODE_TYPES.ForInStatement)) add(this.compute(loop.right, depth + 1, seen));
      }
      for (const ref of v.references) {
        if (ref.isWrite() && !ref.init && ref.writeExpr) add(this.compute(ref.writeExpr, depth + 1, seen));
      }
      return out;
    }
    if (def.type === 'ImportBinding') out.add('module');
    return out;
  }

  private parameter(fn: FunctionNode, v: Variable): Set<Origin> {
    const out = new Set<Origin>();
    const reg = this.registrationOf(fn);
    const scopeArgs = this.facts.settings.scopeArguments;
    let index = -1;
    let key: string | null = null;
    fn.params.forEach((p, i) => {
      const target = p.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p;
      if (target.type === AST_NODE_TYPES.Identifier && target.name === v.name) index = i;
      else if (target.type === AST_NODE_TYPES.ObjectPattern) {
        const k = destructuredKeyOf(target, v.name);
        if (k !== null) {
          index = i;
          key = k;
        }
      }
    });
    if (reg) {
      if (index === reg.inputParam) out.add('input');
      else if (index === reg.contextParam) out.add('context');
      else out.add('input');
    } else {
      out.add('param');
    }
    const name = key ?? v.name;
    if (scopeArgs.includes(name) && (out.has('input') || out.has('param'))) out.add('scope');
    // A parameter named for the session (`function track(sessionId)`) carries session identity into helpers.
    if (SESSION_MEMBERS.has(name)) out.add('session');
    if (key !== null && AUTH_MEMBERS.has(key) && out.has('context')) out.add('auth');
    if (key === 'session' && out.has('context')) out.add('session');
    return out;
  }
}

export function destructuredKeyOf(pattern: Node, local: string): string | null {
  if (pattern.type !== AST_NODE_TYPES.ObjectPattern) return null;
  for (const p of pattern.properties) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const value = p.value.type === AST_NODE_TYPES.AssignmentPattern ? p.value.left : p.value;
    if (value.type === AST_NODE_TYPES.Identifier && value.name === local) return propertyKeyName(p);
    if (value.type === AST_NODE_TYPES.ObjectPattern && destructuredKeyOf(value, local) !== null) return destructuredKeyOf(value, local);
  }
  return null;
}

export { isFunction };
