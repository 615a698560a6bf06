import { AST_NODE_TYPES, type TSESLint, type TSESTree } from '@typescript-eslint/utils';
import { isFunction, runtimeVisitorKeys, type FunctionNode, type Node } from './ast.js';
import { Budget } from './budget.js';
import type { McpSettings } from './settings.js';

/** One step of ESLint's traversal of a file (`SourceCode#traverse()`): entering (phase 1) or leaving (2) a node. */
export interface TraversalStep {
  kind: number;
  target: unknown;
  phase?: number;
}

type ScopeManager = TSESLint.Scope.ScopeManager;
export type Scope = TSESLint.Scope.Scope;
export type Variable = TSESLint.Scope.Variable;

/**
 * The per-module facts every question starts from: one pass (ESLint's traversal steps in a lint, else an iterative
 * walk) that indexes the nodes the analysis needs by the innermost function that owns them. Built from an AST and a
 * scope manager only, so the same facts can be computed for a file that ESLint is not linting right now (another module
 * of the program) and joined.
 */
export class ModuleFacts {
  readonly ast: TSESTree.Program;
  readonly scopeManager: ScopeManager;
  readonly settings: McpSettings;
  /** The file these facts are about (absolute, as ESLint or the program names it). */
  readonly fileName: string;
  /** The parser's visitor keys (to walk subtrees). */
  readonly visitorKeys: Readonly<Record<string, readonly string[] | undefined>>;
  /** The step budget of this module's analysis (a fresh one for each module model built on these facts). */
  budget: Budget;
  /**
   * Bare import sources that whole-server analysis resolved to the project's own source (workspace packages such as
   * `@acme/sessions`, `tsconfig` paths): imported like a package, followed like a relative import. Empty otherwise.
   */
  projectSources: ReadonlySet<string> = new Set();
  /** Calls and `new` expressions, by owning function (null: module top level). */
  readonly callsByOwner = new Map<FunctionNode | null, (TSESTree.CallExpression | TSESTree.NewExpression)[]>();
  readonly allCalls: (TSESTree.CallExpression | TSESTree.NewExpression)[] = [];
  /** Functions nested directly in a function (or at top level, under null). */
  readonly childFunctions = new Map<FunctionNode | null, FunctionNode[]>();
  readonly functions: FunctionNode[] = [];
  /** The owning function of each indexed node (calls, functions, assignments, `this` members). */
  private readonly owner = new Map<Node, FunctionNode | null>();
  readonly classes: (TSESTree.ClassDeclaration | TSESTree.ClassExpression)[] = [];
  readonly objects: TSESTree.ObjectExpression[] = [];
  readonly assignments: TSESTree.AssignmentExpression[] = [];
  readonly updates: (TSESTree.UpdateExpression | TSESTree.UnaryExpression)[] = [];
  readonly thisMembers: TSESTree.MemberExpression[] = [];
  readonly switches: TSESTree.SwitchStatement[] = [];
  /**
   * Inside functions, by owning function: the nodes where code may fall back to another value (`||`, `??`, `?:`,
   * `if`, a declarator with a value, an object with a spread), which the scope-fallback question looks at.
   */
  readonly choicesByOwner = new Map<FunctionNode, Node[]>();
  /** Import bindings: local name → source and imported name ('default', '*', or the name). */
  readonly imports = new Map<string, { source: string; imported: string; node: Node }>();

  /** Identifiers the scope analysis resolved (references and declarations), to their variable. */
  private resolvedIds: Map<TSESTree.Identifier, Variable> | null = null;

  /** False for a module whose text shows it can serve no call and wire no server: nothing was indexed. */
  readonly indexed: boolean;

  constructor(
    ast: TSESTree.Program,
    scopeManager: ScopeManager,
    visitorKeys: Readonly<Record<string, readonly string[] | undefined>>,
    settings: McpSettings,
    fileName: string,
    options: { index?: boolean; steps?: Iterable<TraversalStep>; during?: 'traversal' } = {},
  ) {
    this.ast = ast;
    this.scopeManager = scopeManager;
    this.settings = settings;
    this.fileName = fileName;
    this.visitorKeys = visitorKeys;
    this.budget = new Budget(fileName);
    this.indexed = options.index !== false;
    const steps = options.steps;
    // Built during ESLint's traversal: `traversalListeners()` fills the index as ESLint enters the nodes.
    if (options.during === 'traversal') this.owner.set(ast, null);
    else if (this.indexed) this.budget.phase('index', () => (steps ? this.indexSteps(steps) : this.index(visitorKeys)));
  }

  /**
   * The same index, built during ESLint's own traversal of the file: listeners for the node kinds `record` keeps (and
   * the functions that own them), which ESLint calls in the order its traversal enters nodes, the order of the steps.
   * Nodes of other kinds (most of a tree) cost the index nothing. The index is complete when ESLint leaves the
   * Program node, before any `Program:exit` listener runs. For facts made with `{ during: 'traversal' }`.
   */
  traversalListeners(): Record<string, (node: Node) => void> {
    const outer: (FunctionNode | null)[] = [];
    let current: FunctionNode | null = null;
    const record = (node: Node) => this.record(node, current);
    const enterFunction = (node: Node) => {
      this.record(node, current);
      outer.push(current);
      current = node as FunctionNode;
    };
    const exitFunction = (node: Node) => {
      if (node === current) current = outer.pop()!;
    };
    return {
      CallExpression: record,
      NewExpression: record,
      FunctionDeclaration: enterFunction,
      FunctionExpression: enterFunction,
      ArrowFunctionExpression: enterFunction,
      'FunctionDeclaration:exit': exitFunction,
      'FunctionExpression:exit': exitFunction,
      'ArrowFunctionExpression:exit': exitFunction,
      ClassDeclaration: record,
      ClassExpression: record,
      ObjectExpression: record,
      AssignmentExpression: record,
      UpdateExpression: record,
      UnaryExpression: record,
      // `this.x`: entered right after its member expression (the member's first child), so in the same place.
      ThisExpression: (node: Node) => {
        const member = node.parent;
        if (member?.type === AST_NODE_TYPES.MemberExpression && member.object === node) this.record(member, current);
      },
      SwitchStatement: record,
      ImportDeclaration: record,
      LogicalExpression: record,
      ConditionalExpression: record,
      IfStatement: record,
      VariableDeclarator: record,
    };
  }

  /**
   * The same index from ESLint's own traversal of the file (`SourceCode#traverse()`, which ESLint computes before any
   * rule runs and keeps): its steps enter and leave every node in the order of the visitor keys, so reading them is the
   * walk without walking. They also enter type annotations, which the walk skips; none of the node kinds the index
   * keeps can stand in a type.
   */
  private indexSteps(steps: Iterable<TraversalStep>): void {
    const ast = this.ast;
    this.owner.set(ast, null);
    // The innermost function entered and not yet left, and the ones around it.
    const outer: (FunctionNode | null)[] = [];
    let current: FunctionNode | null = null;
    for (const step of steps) {
      if (step.kind !== 1) continue;
      const node = step.target as Node;
      if (step.phase !== 1) {
        // Leaving: only the innermost function's own node closes it.
        if (node === current) current = outer.pop()!;
        continue;
      }
      const type = node.type;
      // Identifiers and literals are most of a tree and the index keeps none of them.
      if (type === AST_NODE_TYPES.Identifier || type === AST_NODE_TYPES.Literal || node === ast) continue;
      this.record(node, current);
      if (type === AST_NODE_TYPES.FunctionDeclaration || type === AST_NODE_TYPES.FunctionExpression || type === AST_NODE_TYPES.ArrowFunctionExpression) {
        outer.push(current);
        current = node;
      }
    }
  }

  private index(allKeys: Readonly<Record<string, readonly string[] | undefined>>): void {
    // Types hold no calls, functions or assignments: the walk does not enter them.
    const visitorKeys = runtimeVisitorKeys(allKeys);
    // One iterative walk carrying each node's owning function down the stack. Only the nodes the analysis indexes keep
    // their owner in a map (a map of every node was the analysis' biggest allocation); `ownerOf` walks up for others.
    this.owner.set(this.ast, null);
    const nodes: Node[] = [this.ast];
    const owners: (FunctionNode | null)[] = [null];
    while (nodes.length > 0) {
      const node = nodes.pop()!;
      const own = owners.pop()!;
      const type = node.type;
      // Identifiers and literals are most of a tree and the index keeps none of them; an identifier's only runtime
      // children are a parameter's decorators.
      if (type === AST_NODE_TYPES.Literal || (type === AST_NODE_TYPES.Identifier && !node.decorators?.length)) continue;
      const childOwner = isFunction(node) ? node : own;
      const keys = visitorKeys[type];
      if (keys) {
        for (let i = keys.length - 1; i >= 0; i--) {
          const child = (node as unknown as Record<string, unknown>)[keys[i]];
          if (!child) continue;
          if (Array.isArray(child)) {
            for (let j = child.length - 1; j >= 0; j--) {
              const c = child[j] as Node | null;
              if (c && typeof c.type === 'string') {
                nodes.push(c);
                owners.push(childOwner);
              }
            }
          } else if (typeof (child as Node).type === 'string') {
            nodes.push(child as Node);
            owners.push(childOwner);
          }
        }
      }
      this.record(node, own);
    }
  }

  /** Keep a node the analysis asks about, with its owning function (null at module top level). */
  private record(node: Node, own: FunctionNode | null): void {
    switch (node.type) {
      case AST_NODE_TYPES.CallExpression:
      case AST_NODE_TYPES.NewExpression:
        this.owner.set(node, own);
        push(this.callsByOwner, own, node);
        this.allCalls.push(node);
        break;
      case AST_NODE_TYPES.FunctionDeclaration:
      case AST_NODE_TYPES.FunctionExpression:
      case AST_NODE_TYPES.ArrowFunctionExpression:
        this.owner.set(node, own);
        push(this.childFunctions, own, node);
        this.functions.push(node);
        break;
      case AST_NODE_TYPES.ClassDeclaration:
      case AST_NODE_TYPES.ClassExpression:
        this.classes.push(node);
        break;
      case AST_NODE_TYPES.ObjectExpression:
        this.objects.push(node);
        if (own) {
          for (const p of node.properties) {
            if (p.type === AST_NODE_TYPES.SpreadElement) {
              push(this.choicesByOwner, own, node);
              break;
            }
          }
        }
        break;
      case AST_NODE_TYPES.LogicalExpression:
        if (own && node.operator !== '&&') push(this.choicesByOwner, own, node);
        break;
      case AST_NODE_TYPES.ConditionalExpression:
      case AST_NODE_TYPES.IfStatement:
        if (own) push(this.choicesByOwner, own, node);
        break;
      case AST_NODE_TYPES.VariableDeclarator:
        if (own && node.init) push(this.choicesByOwner, own, node);
        break;
      case AST_NODE_TYPES.AssignmentExpression:
        this.owner.set(node, own);
        this.assignments.push(node);
        break;
      case AST_NODE_TYPES.UpdateExpression:
        this.updates.push(node);
        break;
      case AST_NODE_TYPES.UnaryExpression:
        if (node.operator === 'delete') this.updates.push(node);
        break;
      case AST_NODE_TYPES.MemberExpression:
        if (node.object.type === AST_NODE_TYPES.ThisExpression) {
          this.owner.set(node, own);
          this.thisMembers.push(node);
        }
        break;
      case AST_NODE_TYPES.SwitchStatement:
        this.switches.push(node);
        break;
      case AST_NODE_TYPES.ImportDeclaration:
        for (const spec of node.specifiers) {
          const imported =
            spec.type === AST_NODE_TYPES.ImportDefaultSpecifier
              ? 'default'
              : spec.type === AST_NODE_TYPES.ImportNamespaceSpecifier
                ? '*'
                : spec.imported.type === AST_NODE_TYPES.Identifier
                  ? spec.imported.name
                  : String(spec.imported.value);
          this.imports.set(spec.local.name, { source: node.source.value, imported, node: spec });
        }
        break;
      default:
        break;
    }
  }

  /** The innermost function owning a node (null at module top level); indexed nodes are looked up, others walk up. */
  ownerOf(node: Node): FunctionNode | null {
    const known = this.owner.get(node);
    if (known !== undefined) return known;
    let n = node.parent;
    while (n) {
      if (isFunction(n)) return n;
      n = n.parent;
    }
    return null;
  }

  /** The scope a node is in, as ESLint's `getScope` computes it. */
  scopeOf(node: Node): Scope {
    const inner = node.type !== AST_NODE_TYPES.Program;
    for (let n: Node | undefined = node; n; n = n.parent) {
      const scope = this.scopeManager.acquire(n, inner);
      if (scope) {
        if (scope.type === 'function-expression-name') return scope.childScopes[0] as Scope;
        return scope as Scope;
      }
    }
    return this.scopeManager.scopes[0] as Scope;
  }

  /** The variable an identifier refers to, if it is declared in this module. */
  variableOf(id: TSESTree.Identifier): Variable | null {
    // A reference or a declaration: the scope analysis already says which variable (built on the first question).
    const resolved = (this.resolvedIds ??= resolvedIdentifiers(this.scopeManager)).get(id);
    if (resolved) return resolved;
    let scope: Scope | null = this.scopeOf(id);
    const name = id.name;
    while (scope) {
      const v = scope.set.get(name);
      if (v) return v as Variable;
      scope = scope.upper as Scope | null;
    }
    return null;
  }

  /** An import of this project's own code: relative (or an alias of it), or resolved to the project by the program. */
  isProjectSource(source: string): boolean {
    return isRelativeSource(source) || this.projectSources.has(source);
  }

  /** Whether a variable is declared at module level (top level of an ES module or script, or a CommonJS wrapper). */
  isModuleLevel(v: Variable): boolean {
    const block = v.scope.block;
    return block.type === AST_NODE_TYPES.Program;
  }
}

/**
 * Every identifier that the scope analysis resolved to a variable: references (`ref.resolved`) and declarations. Globals
 * and anything unresolved are left out (`variableOf` looks them up by name, as before).
 */
function resolvedIdentifiers(scopeManager: ScopeManager): Map<TSESTree.Identifier, Variable> {
  const out = new Map<TSESTree.Identifier, Variable>();
  for (const scope of scopeManager.scopes) {
    for (const v of scope.variables) for (const id of v.identifiers) out.set(id, v as Variable);
    for (const ref of scope.references) if (ref.resolved) out.set(ref.identifier as TSESTree.Identifier, ref.resolved as Variable);
  }
  return out;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function isRelativeSource(source: string): boolean {
  return source.startsWith('./') || source.startsWith('../') || source.startsWith('#') || source.startsWith('@/') || source.startsWith('~/') || source.startsWith('src/');
}
