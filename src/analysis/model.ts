import { AST_NODE_TYPES, type TSESLint, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, isInside, memberPath, propertyKeyName, staticString, unwrap, type FunctionNode, type Node } from './ast.js';
import { Discovery, type Registration } from './discovery.js';
import { isRelativeSource, ModuleFacts } from './module.js';
import { crossRegistration, functionsByStart, ProjectModel } from './project.js';
import { callSitesOf, enclosingClass, resolveValues, type ClassNode } from './resolve.js';
import { readSettings, settingsKey, type McpSettings } from './settings.js';
import { collectStateAccesses, type StateAccess } from './state.js';
import { ValueOrigins } from './values.js';

/** The handler a piece of code serves, as reports name it. */
export interface HandlerRef {
  registration: Registration;
  /** The tool a dispatcher routes to here (`case 'search':`), when known. */
  routedName: string | null;
}

/** How a report names a handler: `'search' tool handler`, `tools/call handler (routes 'search')`. */
export function describeHandler(h: HandlerRef): string {
  const r = h.registration;
  const name = h.routedName ?? r.name;
  if (r.kind === 'tool') return name ? `tool '${name}'` : 'the tools/call handler';
  if (r.kind === 'request' || r.kind === 'notification' || r.kind === 'task' || r.kind === 'completion') {
    return r.name ? `the ${r.name} handler` : `a ${r.kind} handler`;
  }
  return name ? `${r.kind} '${name}'` : `a ${r.kind} handler`;
}

/**
 * Everything the rules ask about one module: which functions serve calls, what they reach, which bindings outlive a
 * call and how handler code uses them, and where values come from. Built once per file by whichever rule asks first.
 */
export class ServerModel {
  readonly facts: ModuleFacts;
  readonly discovery: Discovery;
  readonly settings: McpSettings;
  /** Handler code: each function that runs while serving a call, with the handler that reaches it. */
  readonly reached = new Map<FunctionNode, HandlerRef>();
  readonly origins: ValueOrigins;
  /** Handler code here that calls into another module: joined by the project model. */
  readonly externalReach: { source: string; imported: string; path: string[]; ref: HandlerRef }[] = [];
  /** Roots given by the project model: functions registered or reached from other modules. */
  readonly crossRoots: readonly [FunctionNode, Registration][];
  private stateAccessList: StateAccess[] | null = null;
  private readonly classLife = new Map<ClassNode, 'module' | 'instance' | null>();

  /** Whether another module keeps one instance of a class of this module (from the project model). */
  private readonly longLivedElsewhere: (cls: ClassNode) => boolean;

  constructor(
    ast: TSESTree.Program,
    scopeManager: TSESLint.Scope.ScopeManager,
    visitorKeys: Readonly<Record<string, readonly string[] | undefined>>,
    settings: McpSettings,
    crossRoots: (facts: ModuleFacts) => [FunctionNode, Registration][] = () => [],
    longLivedElsewhere: (cls: ClassNode) => boolean = () => false,
  ) {
    this.settings = settings;
    this.longLivedElsewhere = longLivedElsewhere;
    this.facts = new ModuleFacts(ast, scopeManager, visitorKeys, settings);
    this.discovery = new Discovery(this.facts);
    this.origins = new ValueOrigins(this.facts, (fn) => this.discovery.handlerRegistration(fn) ?? this.crossRegistrationOf(fn));
    this.crossRoots = crossRoots(this.facts);
    this.computeReach();
  }

  /** A model over facts already computed (the project model builds these for every module). */
  static fromFacts(facts: ModuleFacts, discovery: Discovery, settings: McpSettings, crossRoots: [FunctionNode, Registration][], longLivedElsewhere: (cls: ClassNode) => boolean = () => false): ServerModel {
    const m = Object.create(ServerModel.prototype) as ServerModel;
    Object.assign(m, {
      settings,
      facts,
      discovery,
      reached: new Map(),
      externalReach: [],
      crossRoots,
      longLivedElsewhere,
      stateAccessList: null,
      byBinding: null,
      classLife: new Map(),
    });
    Object.assign(m, { origins: new ValueOrigins(facts, (fn) => discovery.handlerRegistration(fn) ?? m.crossRegistrationOf(fn)) });
    m.computeReach();
    return m;
  }

  private crossRegistrationOf(fn: FunctionNode): Registration | undefined {
    const r = this.crossRoots?.find(([f]) => f === fn);
    return r && r[1].inputParam !== null ? r[1] : undefined;
  }

  get registrations(): readonly Registration[] {
    return this.discovery.registrations;
  }

  /** The handler whose call runs `node`, or null for start-up code and code no handler reaches. */
  handlerOf(node: Node): HandlerRef | null {
    let f = this.facts.ownerOf(node);
    while (f) {
      if (isBrowserSide(f)) return null;
      const r = this.reached.get(f);
      if (r) return r;
      f = this.facts.ownerOf(f);
    }
    return null;
  }

  isHandlerCode(node: Node): boolean {
    return this.handlerOf(node) !== null;
  }

  /** Every use of long-lived state in handler code (computed on first use). */
  stateAccesses(): readonly StateAccess[] {
    if (!this.stateAccessList) {
      // Nothing serves a call here: no use of state can be handler code.
      if (this.reached.size === 0) return (this.stateAccessList = []);
      this.stateAccessList = collectStateAccesses(this.facts, (n) => this.isHandlerCode(n), (c) => this.classLifetime(c));
    }
    return this.stateAccessList;
  }

  private byBinding: Map<string, StateAccess[]> | null = null;

  /** The state accesses of one binding (indexed once, so rules stay linear). */
  accessesOf(bindingKey: string): readonly StateAccess[] {
    if (!this.byBinding) {
      this.byBinding = new Map();
      for (const a of this.stateAccesses()) {
        const list = this.byBinding.get(a.binding.key);
        if (list) list.push(a);
        else this.byBinding.set(a.binding.key, [a]);
      }
    }
    return this.byBinding.get(bindingKey) ?? [];
  }

  /**
   * Is one instance of this class kept across calls? Yes when it registers handlers itself, when it is created in
   * start-up code, or when it is a tool class not created per call. Null when it is created per call or unknown.
   */
  classLifetime(cls: ClassNode): 'module' | 'instance' | null {
    if (this.classLife.has(cls)) return this.classLife.get(cls)!;
    this.classLife.set(cls, null);
    let life: 'module' | 'instance' | null = null;
    if (this.registrations.some((r) => r.site.type !== AST_NODE_TYPES.ClassDeclaration && r.site.type !== AST_NODE_TYPES.ClassExpression && isInside(r.site, cls))) {
      life = 'instance';
    } else {
      let createdOutside = false;
      let createdInside = false;
      for (const call of this.facts.allCalls) {
        if (call.type !== AST_NODE_TYPES.NewExpression) continue;
        if (!resolveValues(this.facts, call.callee).some((v) => v.kind === 'class' && v.node === cls)) continue;
        if (inStaticMethodOf(call, cls)) createdOutside = true; // static getInstance(): one per process
        else if (this.isHandlerCode(call)) createdInside = true;
        else createdOutside = true;
      }
      if (createdOutside || (!createdInside && this.longLivedElsewhere(cls))) life = 'module';
      else if (!createdInside && this.registrations.some((r) => r.site === cls)) life = 'module';
    }
    this.classLife.set(cls, life);
    return life;
  }

  private computeReach(): void {
    const queue: [FunctionNode, HandlerRef][] = [
      ...this.registrations.map((r): [FunctionNode, HandlerRef] => [r.handler, { registration: r, routedName: null }]),
      ...this.crossRoots.map(([fn, r]): [FunctionNode, HandlerRef] => [fn, { registration: r, routedName: null }]),
    ];
    const facts = this.facts;
    while (queue.length) {
      const [fn, ref] = queue.shift()!;
      if (this.reached.has(fn)) continue;
      this.reached.set(fn, ref);
      for (const child of facts.childFunctions.get(fn) ?? []) if (!isBrowserSide(child)) queue.push([child, ref]);
      for (const call of facts.callsByOwner.get(fn) ?? []) {
        // `handlers[request.params.name](args)`: each function of the map serves the tool named by its key.
        if (call.type === AST_NODE_TYPES.CallExpression && ref.routedName === null) {
          for (const [target, key] of mapDispatchTargets(facts, call.callee)) {
            if (!this.reached.has(target)) queue.push([target, { registration: ref.registration, routedName: key }]);
          }
        }
        const targets: FunctionNode[] = [];
        for (const v of resolveValues(facts, call.callee)) {
          if (v.kind === 'import') this.noteExternal(v, ref, call);
          if (v.kind === 'function') targets.push(v.node);
          else if (v.kind === 'class') {
            for (const el of v.node.body.body) {
              if (el.type === AST_NODE_TYPES.MethodDefinition && el.kind === 'constructor' && el.value.type === AST_NODE_TYPES.FunctionExpression) targets.push(el.value);
            }
          }
        }
        for (const a of call.arguments) {
          const arg = unwrap(a);
          if (arg.type === AST_NODE_TYPES.Identifier || arg.type === AST_NODE_TYPES.MemberExpression) {
            for (const v of resolveValues(facts, arg)) {
              if (v.kind === 'function') targets.push(v.node);
              else if (v.kind === 'import') this.noteExternal(v, ref, call);
            }
          }
        }
        if (targets.length === 0) continue;
        const routed = ref.routedName ?? (ref.registration.handler === fn || ref.registration.kind === 'tool' ? dispatchLabel(call, fn) : null);
        const next = routed && routed !== ref.routedName ? { registration: ref.registration, routedName: routed } : ref;
        for (const t of targets) if (!this.reached.has(t)) queue.push([t, next]);
      }
    }
  }

  private noteExternal(v: { source: string; imported: string; path: string[] }, ref: HandlerRef, call: Node): void {
    if (!isRelativeSource(v.source)) return;
    const routed = ref.routedName ?? (ref.registration.kind === 'tool' ? dispatchLabel(call, this.facts.ownerOf(call) ?? (call as never)) : null);
    this.externalReach.push({ source: v.source, imported: v.imported, path: v.path, ref: routed && routed !== ref.routedName ? { ...ref, routedName: routed } : ref });
  }

  /** Call sites of a function in this module (for following values into helpers). */
  callSitesOf(fn: FunctionNode): TSESTree.CallExpression[] {
    return callSitesOf(this.facts, fn);
  }
}

const BROWSER_SIDE = new Set(['evaluate', 'evaluateHandle', '$eval', '$$eval', 'addInitScript', 'evaluateOnNewDocument', 'waitForFunction', 'addScriptTag']);

/** A function handed to `page.evaluate(…)` and friends runs in the browser, not in the server process. */
function isBrowserSide(fn: FunctionNode): boolean {
  const p = fn.parent;
  if (!p || p.type !== AST_NODE_TYPES.CallExpression || !p.arguments.includes(fn as never)) return false;
  const name = calleeName(p.callee);
  return !!name && BROWSER_SIDE.has(name) && unwrap(p.callee).type === AST_NODE_TYPES.MemberExpression;
}

/** `static getInstance() { … new Recorder() … }`: the singleton pattern keeps one instance per process. */
function inStaticMethodOf(node: Node, cls: ClassNode): boolean {
  if (enclosingClass(node) !== cls) return false;
  for (let n = node.parent; n && n !== cls; n = n.parent) {
    if (n.type === AST_NODE_TYPES.MethodDefinition || n.type === AST_NODE_TYPES.PropertyDefinition) return n.static;
  }
  return false;
}

/** The functions of a name→function map called through a computed key, with the key each is stored under. */
function mapDispatchTargets(facts: ModuleFacts, callee: Node): [FunctionNode, string][] {
  let c = unwrap(callee);
  if (c.type === AST_NODE_TYPES.Identifier) {
    const def = facts.variableOf(c)?.defs[0];
    const init = def?.type === 'Variable' ? (def.node as TSESTree.VariableDeclarator).init : null;
    if (!init) return [];
    c = unwrap(init);
  }
  if (c.type !== AST_NODE_TYPES.MemberExpression || !c.computed || staticString(c.property) !== null) return [];
  const out: [FunctionNode, string][] = [];
  for (const v of resolveValues(facts, c.object)) {
    if (v.kind !== 'object') continue;
    for (const p of v.node.properties) {
      if (p.type !== AST_NODE_TYPES.Property) continue;
      const key = propertyKeyName(p);
      if (key === null) continue;
      for (const f of resolveValues(facts, p.value)) if (f.kind === 'function') out.push([f.node, key]);
    }
  }
  return out;
}

/** `case 'search':` or `if (name === 'search')` around a call, inside a dispatcher. */
function dispatchLabel(call: Node, fn: FunctionNode): string | null {
  let child: Node = call;
  let n = call.parent;
  while (n && n !== fn) {
    if (n.type === AST_NODE_TYPES.SwitchCase && n.test && child !== n.test) {
      const s = staticString(n.test);
      if (s !== null && mentionsName(n.parent.discriminant)) return s;
    }
    if (n.type === AST_NODE_TYPES.IfStatement && n.consequent === child) {
      const t = unwrap(n.test);
      if (t.type === AST_NODE_TYPES.BinaryExpression && (t.operator === '===' || t.operator === '==')) {
        const s = staticString(t.right) ?? staticString(t.left);
        if (s !== null && (mentionsName(t.left) || mentionsName(t.right))) return s;
      }
    }
    child = n;
    n = n.parent;
  }
  return null;
}

function mentionsName(expr: Node): boolean {
  const path = memberPath(expr);
  if (path) return /name|tool|method|command|action/i.test(path[path.length - 1]);
  const c = calleeName(expr);
  return !!c && /name|tool/i.test(c);
}

const cache = new WeakMap<TSESTree.Program, Map<string, ServerModel>>();
const projects = new WeakMap<object, Map<string, ProjectModel>>();

type AnyContext = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

export const TYPE_INFO_MISSING =
  "mcp-stateless: whole-server analysis (settings['mcp-stateless'].crossFile, set by the recommended-type-checked config) needs type information: use the typescript-eslint parser with languageOptions.parserOptions.projectService: true";

/** The project model of the program this file belongs to: built once per TypeScript program and settings. */
export function getProjectModel(program: object, settings: McpSettings): ProjectModel {
  const key = settingsKey(settings);
  let perProgram = projects.get(program);
  if (!perProgram) {
    perProgram = new Map();
    projects.set(program, perProgram);
  }
  let project = perProgram.get(key);
  if (!project) {
    project = new ProjectModel(program as never, settings);
    perProgram.set(key, project);
  }
  return project;
}

/**
 * The model of the file being linted. The first rule that asks builds it; every other rule on the same file gets the
 * same object. Keyed by the AST root (and the settings), so it is per file, collected with the AST, and safe when
 * ESLint lints in worker threads or in any order. With `crossFile`, the program's project model (built once per
 * program) adds the functions other files register or reach.
 */
export function getServerModel(context: AnyContext): ServerModel {
  const sourceCode = context.sourceCode;
  const ast = sourceCode.ast;
  const settings = readSettings(context.settings as Record<string, unknown>);
  const key = settingsKey(settings);
  let perAst = cache.get(ast);
  if (!perAst) {
    perAst = new Map();
    cache.set(ast, perAst);
  }
  let model = perAst.get(key);
  if (!model) {
    let roots: (facts: ModuleFacts) => [FunctionNode, Registration][] = () => [];
    let longLived: (cls: ClassNode) => boolean = () => false;
    if (settings.crossFile) {
      const program = sourceCode.parserServices?.program;
      if (!program) throw new Error(TYPE_INFO_MISSING);
      const project = getProjectModel(program, settings);
      const crossRoots = project.rootsFor(context.filename);
      const fileName = context.filename;
      longLived = (cls) => project.classIsLongLived(fileName, cls.range[0]);
      roots = (facts) => {
        const byStart = functionsByStart(facts);
        const out: [FunctionNode, Registration][] = [];
        for (const r of crossRoots) {
          const fn = byStart.get(r.range[0]);
          if (fn && fn.range[1] === r.range[1]) out.push([fn, crossRegistration(fn, r)]);
        }
        return out;
      };
    }
    model = new ServerModel(ast, sourceCode.scopeManager!, sourceCode.visitorKeys as Record<string, readonly string[]>, settings, roots, longLived);
    perAst.set(key, model);
  }
  return model;
}

export { memberPath, staticString };
