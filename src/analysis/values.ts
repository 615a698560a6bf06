import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { destructuredKeyOf, isFunction, memberName, staticString, unwrap, type FunctionNode, type Node } from './ast.js';
import type { ModuleFacts, Variable } from './module.js';
import type { Registration } from './discovery.js';
import { knownCallOrigin } from './processes.js';
import { FlowSolver } from './fixpoint.js';

/**
 * Where a value comes from, as far as the module shows:
 * - `input`: the caller's arguments (or URI); `scope`: the caller's scope argument (workspace, run id);
 * - `context`: the request context object; `session`: MCP session identity; `auth`: the caller's credentials;
 * - `fresh`: an object made during this call; `const`: a literal; `module`: a long-lived binding; `param`: a helper's parameter.
 * - well-known calls: `tmpdir` (`os.tmpdir()`), `cwd` (`process.cwd()`), `homedir` (`os.homedir()`), `random`
 *   (`randomUUID()`, `mkdtemp()`, `Math.random()`: wherever it is evaluated), `time` (`Date.now()`), `dirname`
 *   (`__dirname`, `import.meta.dirname`/`url`).
 */
export type Origin =
  | 'input' | 'scope' | 'context' | 'session' | 'auth' | 'fresh' | 'const' | 'module' | 'param' | 'env' | 'tmpdir' | 'cwd' | 'homedir' | 'random' | 'time' | 'dirname'
  /** made by a call from its arguments: a field of it (`createTask(…, sessionId).taskId`) is not what went in */
  | 'made';

/** Calls whose result is their argument, reshaped (a string or a path built from it): origins pass through whole. */
const PASS_THROUGH = new Set([
  'String', 'toString', 'join', 'resolve', 'normalize', 'relative', 'dirname', 'basename', 'concat', 'slice', 'substring', 'trim', 'toLowerCase',
  'toUpperCase', 'replace', 'replaceAll', 'padStart', 'padEnd', 'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI', 'format', 'stringify',
]);

const SESSION_MEMBERS = new Set(['sessionId', 'session_id', 'mcp-session-id']);
const AUTH_MEMBERS = new Set(['authInfo', 'auth', 'authorization', 'Authorization', 'token', 'accessToken', 'credentials', 'cookie', 'cookies']);

type Key = Node | Variable;

const EMPTY: ReadonlySet<Origin> = new Set();

export class ValueOrigins {
  private readonly solver: FlowSolver<Key, ReadonlySet<Origin>>;

  constructor(
    private readonly facts: ModuleFacts,
    private readonly registrationOf: (fn: FunctionNode) => Registration | undefined,
    tick: () => void = () => {},
  ) {
    this.solver = new FlowSolver<Key, ReadonlySet<Origin>>(
      {
        bottom: EMPTY,
        deps: (k) => this.deps(k),
        combine: (k, get) => this.combine(k, get),
        equal: (a, b) => a.size === b.size && [...a].every((x) => b.has(x)),
      },
      tick,
    );
  }

  /** Where a value may come from (memoised: each expression and variable is examined once per module). */
  of(expr: Node): ReadonlySet<Origin> {
    return this.solver.get(unwrap(expr));
  }

  has(expr: Node, origin: Origin): boolean {
    return this.of(expr).has(origin);
  }

  /** Where the values a variable holds may come from. */
  variable(v: Variable): ReadonlySet<Origin> {
    return this.solver.get(v);
  }

  private deps(k: Key): Key[] {
    if (isVariable(k)) return this.variableDeps(k);
    const n = k;
    switch (n.type) {
      case AST_NODE_TYPES.TemplateLiteral:
        return n.expressions.map(unwrap);
      case AST_NODE_TYPES.Identifier: {
        const v = this.facts.variableOf(n);
        return v ? [v] : [];
      }
      case AST_NODE_TYPES.MemberExpression:
        return memberName(n) === null ? [unwrap(n.object), unwrap(n.property)] : [unwrap(n.object)];
      case AST_NODE_TYPES.CallExpression: {
        const out: Key[] = [];
        const callee = unwrap(n.callee);
        if (callee.type === AST_NODE_TYPES.MemberExpression) out.push(unwrap(callee.object));
        for (const a of n.arguments) out.push(unwrap(a));
        return out;
      }
      case AST_NODE_TYPES.NewExpression:
        return n.arguments.map(unwrap);
      case AST_NODE_TYPES.ObjectExpression:
        return n.properties.map((p) => unwrap(p.type === AST_NODE_TYPES.Property ? p.value : p.argument));
      case AST_NODE_TYPES.ArrayExpression:
        return n.elements.flatMap((e) => (e ? [unwrap(e.type === AST_NODE_TYPES.SpreadElement ? e.argument : e)] : []));
      case AST_NODE_TYPES.BinaryExpression:
      case AST_NODE_TYPES.LogicalExpression:
        return [unwrap(n.left), unwrap(n.right)];
      case AST_NODE_TYPES.ConditionalExpression:
        return [unwrap(n.consequent), unwrap(n.alternate)];
      case AST_NODE_TYPES.SpreadElement:
        return [unwrap(n.argument)];
      default:
        return [];
    }
  }

  private variableDeps(v: Variable): Key[] {
    const def = v.defs[0];
    if (!def || def.type !== 'Variable') return [];
    const decl = def.node as TSESTree.VariableDeclarator;
    const out: Key[] = [];
    if (decl.init) out.push(unwrap(decl.init));
    else {
      const loop = decl.parent?.parent;
      if (loop && (loop.type === AST_NODE_TYPES.ForOfStatement || loop.type === AST_NODE_TYPES.ForInStatement)) out.push(unwrap(loop.right));
    }
    for (const ref of v.references) {
      if (ref.isWrite() && !ref.init && ref.writeExpr) out.push(unwrap(ref.writeExpr));
    }
    return out;
  }

  private combine(k: Key, get: (d: Key) => ReadonlySet<Origin>): ReadonlySet<Origin> {
    if (isVariable(k)) return this.combineVariable(k, get);
    const out = new Set<Origin>();
    const add = (s: ReadonlySet<Origin>) => s.forEach((o) => out.add(o));
    const n = k;
    switch (n.type) {
      case AST_NODE_TYPES.Literal:
        out.add('const');
        break;
      case AST_NODE_TYPES.TemplateLiteral:
        if (n.expressions.length === 0) out.add('const');
        for (const e of n.expressions) add(get(unwrap(e)));
        break;
      case AST_NODE_TYPES.Identifier: {
        const v = this.facts.variableOf(n);
        if (v) add(get(v));
        else {
          if (n.name === 'undefined') out.add('const');
          if (n.name === '__dirname' || n.name === '__filename') out.add('dirname');
        }
        break;
      }
      case AST_NODE_TYPES.MemberExpression: {
        const base = get(unwrap(n.object));
        add(base);
        const name = memberName(n);
        if (name !== null) {
          // A field of something a call made from the session is that thing's own field, not the session's identity.
          if (base.has('made') && base.has('session') && !SESSION_MEMBERS.has(name)) out.delete('session');
          // `extra.sessionId`, `transport.sessionId`: MCP session identity. `args.sessionId` is a tool argument: a handle
          // the server gave out and the caller passes back, not the connection's identity.
          if (SESSION_MEMBERS.has(name) && !(base.has('input') && !base.has('context'))) out.add('session');
          if (name === 'session' && base.has('context')) out.add('session');
          if (AUTH_MEMBERS.has(name) && (base.has('context') || base.has('auth'))) out.add('auth');
          if (this.facts.settings.scopeArguments.includes(name) && (base.has('input') || base.has('param'))) out.add('scope');
          if (name === 'env' && n.object.type === AST_NODE_TYPES.Identifier && n.object.name === 'process') out.add('env');
          if ((name === 'dirname' || name === 'filename' || name === 'url') && n.object.type === AST_NODE_TYPES.MetaProperty) out.add('dirname');
        } else {
          add(get(unwrap(n.property)));
        }
        break;
      }
      case AST_NODE_TYPES.CallExpression: {
        const known = knownCallOrigin(this.facts, n);
        if (known) out.add(known);
        const callee = unwrap(n.callee);
        const calleeName = callee.type === AST_NODE_TYPES.Identifier ? callee.name : callee.type === AST_NODE_TYPES.MemberExpression ? memberName(callee) : null;
        if (calleeName === null || !PASS_THROUGH.has(calleeName)) out.add('made');
        if (callee.type === AST_NODE_TYPES.MemberExpression) {
          add(get(unwrap(callee.object)));
          const m = memberName(callee);
          const a0 = n.arguments[0];
          if (m === 'get' && a0 && staticString(a0) === 'mcp-session-id') out.add('session');
        }
        for (const a of n.arguments) add(get(unwrap(a)));
        break;
      }
      case AST_NODE_TYPES.NewExpression:
      case AST_NODE_TYPES.ObjectExpression:
      case AST_NODE_TYPES.ArrayExpression:
        out.add('fresh');
        for (const d of this.deps(n)) add(get(d));
        break;
      case AST_NODE_TYPES.BinaryExpression:
      case AST_NODE_TYPES.LogicalExpression:
      case AST_NODE_TYPES.ConditionalExpression:
      case AST_NODE_TYPES.SpreadElement:
        for (const d of this.deps(n)) add(get(d));
        break;
      default:
        break;
    }
    return out;
  }

  private combineVariable(v: Variable, get: (d: Key) => ReadonlySet<Origin>): ReadonlySet<Origin> {
    const out = new Set<Origin>();
    const add = (s: ReadonlySet<Origin>) => s.forEach((o) => out.add(o));
    const def = v.defs[0];
    if (!def) return out;
    if (def.type === 'Parameter') return this.parameter(def.node as FunctionNode, v);
    if (def.type === 'ImportBinding') {
      out.add('module');
      return out;
    }
    if (def.type !== 'Variable') return out;
    const decl = def.node as TSESTree.VariableDeclarator;
    if (decl.parent && decl.parent.parent && this.facts.isModuleLevel(v)) out.add('module');
    if (decl.init) {
      const initOrigins = get(unwrap(decl.init));
      add(initOrigins);
      if (decl.id.type !== AST_NODE_TYPES.Identifier) {
        const key = destructuredKeyOf(decl.id, v.name, true);
        if (key && SESSION_MEMBERS.has(key) && !(initOrigins.has('input') && !initOrigins.has('context'))) out.add('session');
        if (key && this.facts.settings.scopeArguments.includes(key) && (initOrigins.has('input') || initOrigins.has('param'))) out.add('scope');
        if (key && AUTH_MEMBERS.has(key) && initOrigins.has('context')) out.add('auth');
      }
    }
    for (const d of this.variableDeps(v)) if (d !== (decl.init && unwrap(decl.init))) add(get(d));
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
        const k = destructuredKeyOf(target, v.name, true);
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
    // A parameter named for the session (`function track(sessionId)`) carries session identity into helpers; a tool
    // argument of that name (`({ sessionId }) => …`) is the caller's handle, not the connection's identity.
    if (SESSION_MEMBERS.has(name) && !out.has('input')) out.add('session');
    if (key !== null && AUTH_MEMBERS.has(key) && out.has('context')) out.add('auth');
    if (key === 'session' && out.has('context')) out.add('session');
    return out;
  }
}


export { isFunction };

function isVariable(k: Node | Variable): k is Variable {
  return (k as Variable).defs !== undefined && (k as Node).type === undefined;
}
