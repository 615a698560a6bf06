import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, classOfMethod, isFunction, isInside, memberName, memberPath, propertyKeyName, staticString, unwrap, type FunctionNode, type Node } from './ast.js';
import { Budget } from './budget.js';
import { cachedFor } from './cache.js';
import { Discovery, PER_CONNECTION_FACTORIES, type HandlerKind, type Registration } from './discovery.js';
import { routedLabel } from './dispatch.js';
import type { ModuleFacts, Variable } from './module.js';
import { callSitesOf, classMember, constructionsOf, enclosingClass, inStaticMethodOf, propertyOf, resolveValues, type ClassNode, type Value } from './resolve.js';
import type { McpSettings } from './settings.js';
import { collectStateAccesses, methodFieldEffects, parameterMutated, seesOnlyOwnWrite, type ContainerKind, type FieldEffect, type StateAccess } from './state.js';
import { ValueOrigins } from './values.js';
import { getWiring } from './wiring.js';

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

/** A function of this module that serves calls because another module registers or reaches it. */
export interface CrossRoot {
  range: [number, number];
  kind: HandlerKind;
  name: string | null;
  /** `registered in src/index.ts:42`, `reached from tool 'search' (src/index.ts)`. */
  via: string;
  /** True when the other module registers it as a handler (its parameters are the call's input and context). */
  registered: boolean;
}

/** A function in another module that an import stands for. */
export interface ImportTarget {
  fileName: string;
  fn: FunctionNode;
  /** That module's model (built on first use). */
  model(): ModuleModel;
}

/** What the server model (whole-server analysis) tells one module about the rest of the program. */
export interface ModuleLinks {
  /** Functions of this module that other modules register or reach. */
  readonly roots: readonly CrossRoot[];
  /** Is one instance of this class (by the start of its range) kept for the process by another module? */
  longLivedElsewhere(classStart: number): boolean;
  /** Parameters of a function of this module that another module hands a process-wide object (by function start). */
  longLivedParams(fnStart: number): readonly LongLivedParam[];
  /**
   * The functions an import of this module stands for, through a member path as value resolution spells it
   * (`['new()!', 'processThought']` for a method of a module-level instance of an imported class). Empty without
   * whole-server analysis.
   */
  importTargets(source: string, imported: string, path: readonly string[]): readonly ImportTarget[];
  /** Parameters of a function of this module that another module's handler code hands a tool argument (by function start). */
  inputParams(fnStart: number): readonly InputParam[];
}

/** A parameter that receives, from a call in another module's handler code, a tool argument as the caller got it. */
export interface InputParam {
  index: number;
  /** The property of an object argument that carries it (`f({ workspacePath })` into `function f({ workspacePath })`), or null for the whole argument. */
  key: string | null;
  /** The argument is the caller's scope argument (`workspace`, a run id). */
  scope: boolean;
  /** Where the call is (`src/tools/theme.ts:12`). */
  from: string;
  /** The handler that makes the call (`tool 'validate_theme'`). */
  handler: string;
}

/** A parameter that receives, from a call in another module's handler code, an object that lives for the process. */
export interface LongLivedParam {
  index: number;
  /** The caller's binding (`k8sManager`). */
  name: string;
  /** Where the caller keeps it (`src/index.ts:209`). */
  from: string;
  /** The server factory whose binding it is (`createServer()`), when it is not module-level. */
  within?: string;
  /** The functions a method of that object runs (its class may be in the caller's module or a third one). */
  methods(name: string): readonly ImportTarget[];
}

export const NO_LINKS: ModuleLinks = { roots: [], longLivedElsewhere: () => false, longLivedParams: () => [], importTargets: () => [], inputParams: () => [] };

/**
 * Everything the rules ask about one module: which functions serve calls, what they reach, which bindings outlive a
 * call and how handler code uses them, and where values come from. Built once per file (by whichever rule asks first,
 * through the door in `door.ts`, or by the server model for every module of a program).
 */
export class ModuleModel {
  readonly facts: ModuleFacts;
  readonly discovery: Discovery;
  readonly settings: McpSettings;
  /** Handler code: each function that runs while serving a call, with the handler that reaches it. */
  readonly reached = new Map<FunctionNode, HandlerRef>();
  readonly origins: ValueOrigins;
  /**
   * Handler code here that calls into another module, joined by the server model (`keyed`: a map of functions that
   * the call dispatches by tool name, each function serving the tool of its key).
   */
  readonly externalReach: { source: string; imported: string; path: string[]; ref: HandlerRef; call: Node; keyed?: boolean }[] = [];
  /** Roots given by the server model: functions registered or reached from other modules. */
  readonly crossRoots: readonly [FunctionNode, Registration][];
  readonly links: ModuleLinks;
  private stateAccessList: StateAccess[] | null = null;
  private byBinding: Map<string, StateAccess[]> | null = null;
  private readonly classLife = new Map<ClassNode, 'module' | 'instance' | null>();

  constructor(facts: ModuleFacts, links: ModuleLinks = NO_LINKS, discovery?: Discovery) {
    // Facts outlive one program (the server model caches them per source file): each model gets its own budget.
    if (facts.budget.steps > 0) facts.budget = new Budget(facts.fileName);
    const budget = facts.budget;
    this.facts = facts;
    this.settings = facts.settings;
    this.links = links;
    this.discovery = discovery ?? budget.phase('discovery', () => new Discovery(facts));
    this.crossRoots = matchRoots(facts, links.roots);
    this.origins = new ValueOrigins(facts, (fn) => this.discovery.handlerRegistration(fn) ?? this.crossRegistrationOf(fn), () => budget.tick('value origins'));
    budget.phase('reach', () => this.computeReach());
  }

  private crossRegistrationOf(fn: FunctionNode): Registration | undefined {
    const r = this.crossRoots.find(([f]) => f === fn);
    return r && r[1].inputParam !== null ? r[1] : undefined;
  }

  /** The tool argument another module's handler code hands parameter `index` of `fn` (whole-server analysis). */
  inputParam(fn: FunctionNode, index: number, key: string | null = null): InputParam | undefined {
    if (!this.reached.has(fn)) return undefined;
    return this.links.inputParams(fn.range[0]).find((p) => p.index === index && p.key === key);
  }

  /** Whether any code of this module runs while serving a call (every handler-scoped rule has nothing to say otherwise). */
  get servesCalls(): boolean {
    return this.reached.size > 0;
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
      if (r) {
        // Inside a `tools/call` dispatcher, the `case 'search':` around the node names the tool it serves.
        if (r.routedName === null && r.registration.kind === 'tool' && r.registration.name === null) {
          const label = routedLabel(node, f);
          if (label !== null) return { registration: r.registration, routedName: label };
        }
        return r;
      }
      f = this.facts.ownerOf(f);
    }
    return null;
  }

  /** Every handler whose call runs `node` (see `handlersReaching`); empty for start-up code. */
  handlersOf(node: Node): readonly HandlerRef[] {
    let f = this.facts.ownerOf(node);
    while (f) {
      if (isBrowserSide(f)) return [];
      if (this.reached.has(f)) return this.handlersReaching(f);
      f = this.facts.ownerOf(f);
    }
    return [];
  }

  isHandlerCode(node: Node): boolean {
    return this.handlerOf(node) !== null;
  }

  /** Every use of long-lived state in handler code (computed on first use). */
  stateAccesses(): readonly StateAccess[] {
    if (!this.stateAccessList) {
      // Nothing serves a call here: no use of state can be handler code.
      if (this.reached.size === 0) return (this.stateAccessList = []);
      this.stateAccessList = this.facts.budget.phase('state', () => this.accessesIn((n) => this.isHandlerCode(n)));
    }
    return this.stateAccessList;
  }

  /**
   * Every use of long-lived state in the code `isCode` names, judged as handler code is (which bindings outlive a
   * call, what a use does): for code that runs per request without serving a call, such as an HTTP route.
   */
  accessesIn(isCode: (node: Node) => boolean): StateAccess[] {
    return collectStateAccesses(this.facts, {
      isHandlerCode: isCode,
      classLongLived: (c) => this.classLifetime(c),
      perConnection: (fn) => this.perConnection(fn),
      callEffects: (call) => this.crossModuleEffects(call),
      argumentMutated: (call, index, container) => this.argumentMutated(call, index, container),
      longLivedParams: (fn) => (this.reached.has(fn) ? this.links.longLivedParams(fn.range[0]) : []),
    });
  }

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

  /** The reach graph: what each function of handler code leads to (children, callees, map-dispatched functions). */
  private readonly edges = new Map<FunctionNode, ReachEdge[]>();
  private everyHandler: Map<FunctionNode, HandlerRef[]> | null = null;

  /**
   * Every handler whose call runs each function (`reached` keeps only the first): a helper shared by several tools
   * serves each of them. Computed on first use (the server summary asks; the editor's rules do not).
   */
  handlersReaching(fn: FunctionNode): readonly HandlerRef[] {
    if (!this.everyHandler) {
      const all = new Map<FunctionNode, HandlerRef[]>();
      const seen = new Set<string>();
      const queue: [FunctionNode, HandlerRef][] = [
        ...this.registrations.map((r): [FunctionNode, HandlerRef] => [r.handler, { registration: r, routedName: null }]),
        ...this.crossRoots.map(([f, r]): [FunctionNode, HandlerRef] => [f, { registration: r, routedName: null }]),
      ];
      const refs = new Map<string, HandlerRef>();
      const keyOf = (h: HandlerRef) => `${h.registration.handler.range[0]}:${h.registration.site.range[0]}:${h.routedName ?? ''}`;
      for (let head = 0; head < queue.length; head++) {
        const [f, ref0] = queue[head];
        const k = keyOf(ref0);
        const ref = refs.get(k) ?? (refs.set(k, ref0), ref0);
        const visit = `${f.range[0]}:${f.range[1]}|${k}`;
        if (seen.has(visit)) continue;
        seen.add(visit);
        this.facts.budget.tick('handlers reaching');
        const list = all.get(f);
        if (list) list.push(ref);
        else all.set(f, [ref]);
        for (const e of this.edges.get(f) ?? []) {
          let next = ref;
          if (ref.routedName === null) {
            if (e.mapKey !== null) next = { registration: ref.registration, routedName: e.mapKey };
            else if (e.label !== null && (ref.registration.handler === f || ref.registration.kind === 'tool')) next = { registration: ref.registration, routedName: e.label };
          }
          queue.push([e.target, next]);
        }
      }
      this.everyHandler = all;
    }
    return this.everyHandler.get(fn) ?? [];
  }

  private readGroups: Map<string, ReadGroup[]> | null = null;

  /**
   * The reads, in handler code, that see what a write stores: same binding, a path that overlaps the written one. Gives
   * the first such read in source order and the first one in another handler than the writer's (where the crossing is
   * plainest). Linear overall: reads are grouped once per binding and path.
   */
  readsOf(write: StateAccess): { first: StateAccess | null; other: StateAccess | null } {
    if (!this.readGroups) {
      this.readGroups = new Map();
      const byPath = new Map<string, ReadGroup>();
      const writes = new Map<string, StateAccess[]>();
      for (const a of this.stateAccesses()) {
        if (a.kind !== 'assign' && a.kind !== 'fieldWrite') continue;
        const list = writes.get(a.binding.key);
        if (list) list.push(a);
        else writes.set(a.binding.key, [a]);
      }
      for (const a of this.stateAccesses()) {
        if (a.kind !== 'read') continue;
        // `last = q.trim(); log(last)`: the read sees only this call's own value, so it carries nothing across calls.
        const own = writes.get(a.binding.key);
        if (own && seesOnlyOwnWrite(a, own, this.facts.visitorKeys)) continue;
        const key = `${a.binding.key}\u0000${a.path.join('\u0000')}`;
        let g = byPath.get(key);
        if (!g) {
          g = { path: a.path, reads: [], firstByRegistration: [] };
          byPath.set(key, g);
          const list = this.readGroups.get(a.binding.key);
          if (list) list.push(g);
          else this.readGroups.set(a.binding.key, [g]);
        }
        g.reads.push(a);
      }
      for (const g of byPath.values()) {
        g.reads.sort((a, b) => a.node.range[0] - b.node.range[0]);
        // The first reads of the first few registrations, in source order: whatever the writer's registration, a read
        // in another one is among the first two.
        // A dispatcher's routed tools count apart (`case 'get_memory':` reads what `case 'save':` wrote).
        const seenRegs = new Set<string>();
        for (const r of g.reads) {
          const registration = handlerKey(this.handlerOf(r.node));
          if (seenRegs.has(registration)) continue;
          seenRegs.add(registration);
          g.firstByRegistration.push({ read: r, registration });
          if (g.firstByRegistration.length === 3) break;
        }
      }
    }
    const writer = handlerKey(this.handlerOf(write.node));
    let first: StateAccess | null = null;
    let other: StateAccess | null = null;
    const budget = this.facts.budget;
    for (const g of this.readGroups.get(write.binding.key) ?? []) {
      budget.tick('cross-call reads');
      if (!pathsOverlap(write.path, g.path)) continue;
      for (const r of g.reads) {
        if (r.node === write.node) continue;
        if (!first || r.node.range[0] < first.node.range[0]) first = r;
        break;
      }
      for (const { read, registration } of g.firstByRegistration) {
        if (read.node === write.node || registration === writer) continue;
        if (!other || read.node.range[0] < other.node.range[0]) other = read;
      }
    }
    return { first, other };
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
      for (const call of constructionsOf(this.facts, cls)) {
        if (inStaticMethodOf(call, cls)) createdOutside = true; // static getInstance(): one per process
        else if (this.isHandlerCode(call)) createdInside = true;
        else createdOutside = true;
      }
      if (createdOutside || (!createdInside && this.links.longLivedElsewhere(cls.range[0]))) life = 'module';
      else if (!createdInside && this.registrations.some((r) => r.site === cls)) life = 'module';
    }
    this.classLife.set(cls, life);
    return life;
  }

  /**
   * A binding of a server factory (`function createServer() { const store = …; server.tool(…) }`): declared in a
   * function that is not handler code and does not run once per connection, so it outlives each call.
   */
  isFactoryBinding(v: Variable): boolean {
    const block = v.scope.variableScope.block as Node;
    return isFunction(block) && !this.isHandlerCode(block) && !this.isHandlerCode(block.body) && !this.perConnection(block);
  }

  private perConnectionMemo = new Map<FunctionNode, boolean>();

  /**
   * Does this function run once per connection, session or request rather than once for the process? Yes when it is
   * handed to a builder that calls it per connection (`serveStdio(buildServer)`, `createMcpHandler(buildServer)`), is
   * itself an HTTP route or session callback, or is only ever called from such code. Its bindings then belong to one
   * caller's server, not to every caller.
   */
  perConnection(fn: FunctionNode): boolean {
    const known = this.perConnectionMemo.get(fn);
    if (known !== undefined) return known;
    this.perConnectionMemo.set(fn, false);
    const wiring = getWiring(this.facts);
    // SDK v2 hands a per-request factory the request's context (`buildServer(ctx: McpRequestContext)`).
    let result = wiring.region.has(fn) || takesRequestContext(fn);
    if (!result) {
      const name = fn.type !== AST_NODE_TYPES.ArrowFunctionExpression && fn.id ? fn.id.name : fn.parent?.type === AST_NODE_TYPES.VariableDeclarator && fn.parent.id.type === AST_NODE_TYPES.Identifier ? fn.parent.id.name : null;
      const v = name ? this.facts.scopeOf(fn.parent ?? fn).set.get(name) ?? this.facts.scopeOf(fn).upper?.set.get(name) : undefined;
      let handed = false;
      let calledOnce = false;
      let calledPerConnection = false;
      for (const ref of v?.references ?? []) {
        const id = ref.identifier;
        const p = id.parent;
        if (p?.type === AST_NODE_TYPES.CallExpression && p.callee === id) {
          const owner = this.facts.ownerOf(p);
          if (wiring.routeOf(p) || (owner && this.isHandlerCode(p)) || (owner && owner !== fn && this.perConnection(owner))) calledPerConnection = true;
          else calledOnce = true;
        } else if (p?.type === AST_NODE_TYPES.CallExpression && p.arguments.includes(id as never) && PER_CONNECTION_FACTORIES.has(calleeName(p.callee) ?? '')) {
          handed = true;
        }
      }
      // `serveStdio(ctx => buildServer(ctx))`: the arrow handed to the builder calls the factory.
      const parentCall = fn.parent?.type === AST_NODE_TYPES.CallExpression ? fn.parent : null;
      if (parentCall && parentCall.arguments.includes(fn as never) && PER_CONNECTION_FACTORIES.has(calleeName(parentCall.callee) ?? '')) handed = true;
      result = handed || (calledPerConnection && !calledOnce);
    }
    this.perConnectionMemo.set(fn, result);
    return result;
  }

  private computeReach(): void {
    const queue: [FunctionNode, HandlerRef][] = [
      ...this.registrations.map((r): [FunctionNode, HandlerRef] => [r.handler, { registration: r, routedName: null }]),
      ...this.crossRoots.map(([fn, r]): [FunctionNode, HandlerRef] => [fn, { registration: r, routedName: null }]),
    ];
    const facts = this.facts;
    const getters = getterReads(facts);
    for (let head = 0; head < queue.length; head++) {
      const [fn, ref] = queue[head];
      facts.budget.tick('reach');
      if (this.reached.has(fn)) continue;
      this.reached.set(fn, ref);
      const edges: ReachEdge[] = [];
      this.edges.set(fn, edges);
      // `this.cache` where the class has `get cache() { … }`: reading it runs the accessor.
      for (const target of getters.get(fn) ?? []) {
        edges.push({ target, label: null, mapKey: null });
        queue.push([target, ref]);
      }
      for (const child of facts.childFunctions.get(fn) ?? []) {
        if (isBrowserSide(child)) continue;
        edges.push({ target: child, label: null, mapKey: null });
        queue.push([child, ref]);
      }
      for (const call of facts.callsByOwner.get(fn) ?? []) {
        // `handlers[request.params.name](args)`: each function of the map serves the tool named by its key.
        if (call.type === AST_NODE_TYPES.CallExpression) {
          const imported: ImportValue[] = [];
          for (const [target, key] of mapDispatchTargets(facts, call.callee, imported)) {
            edges.push({ target, label: null, mapKey: key });
            if (ref.routedName === null && !this.reached.has(target)) queue.push([target, { registration: ref.registration, routedName: key }]);
          }
          for (const v of imported) this.externalReach.push({ source: v.source, imported: v.imported, path: v.path, ref, call, keyed: true });
          const importedEntries: [ImportValue, string][] = [];
          for (const [target, key] of mapGetDispatchTargets(facts, call, importedEntries)) {
            edges.push({ target, label: null, mapKey: key });
            if (ref.routedName === null && !this.reached.has(target)) queue.push([target, { registration: ref.registration, routedName: key }]);
          }
          for (const [v, key] of importedEntries) {
            this.externalReach.push({ source: v.source, imported: v.imported, path: v.path, ref: ref.routedName === null ? { registration: ref.registration, routedName: key } : ref, call });
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
        const label = routedLabel(call, fn);
        for (const t of targets) edges.push({ target: t, label, mapKey: null });
        const routed = ref.routedName ?? (ref.registration.handler === fn || ref.registration.kind === 'tool' ? label : null);
        const next = routed && routed !== ref.routedName ? { registration: ref.registration, routedName: routed } : ref;
        for (const t of targets) if (!this.reached.has(t)) queue.push([t, next]);
      }
    }
  }

  private noteExternal(v: { source: string; imported: string; path: string[] }, ref: HandlerRef, call: Node): void {
    if (!this.facts.isProjectSource(v.source)) return;
    const routed = ref.routedName ?? (ref.registration.kind === 'tool' ? routedLabel(call, this.facts.ownerOf(call)) : null);
    this.externalReach.push({ source: v.source, imported: v.imported, path: v.path, ref: routed && routed !== ref.routedName ? { ...ref, routedName: routed } : ref, call });
  }

  /**
   * The functions a call may run, in this module or (with whole-server analysis) in the module an import comes from.
   * The analysis of effects across files starts here: what a callee does is read from its own module's model.
   */
  calleesOf(call: TSESTree.CallExpression): { fn: FunctionNode; model: ModuleModel }[] {
    const out: { fn: FunctionNode; model: ModuleModel }[] = [];
    // `k8sManager.trackPortForward(…)` on a parameter another module hands a process-wide object: that object's method.
    const callee = unwrap(call.callee);
    if (callee.type === AST_NODE_TYPES.MemberExpression && unwrap(callee.object).type === AST_NODE_TYPES.Identifier) {
      const method = memberName(callee);
      const v = this.facts.variableOf(unwrap(callee.object) as TSESTree.Identifier);
      const def = v?.defs[0];
      if (method !== null && def?.type === 'Parameter') {
        const fn = def.node as FunctionNode;
        const index = fn.params.findIndex((p) => (p.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p) === def.name);
        for (const lp of this.links.longLivedParams(fn.range[0])) {
          if (lp.index === index) for (const t of lp.methods(method)) out.push({ fn: t.fn, model: t.model() });
        }
      }
    }
    for (const v of resolveValues(this.facts, call.callee)) {
      if (v.kind === 'function') out.push({ fn: v.node, model: this });
      else if (v.kind === 'import' && this.facts.isProjectSource(v.source)) {
        for (const t of this.links.importTargets(v.source, v.imported, v.path)) out.push({ fn: t.fn, model: t.model() });
      }
    }
    return out;
  }

  private readonly fieldEffectMemo = new Map<FunctionNode, FieldEffect[]>();

  /** What a method of a class of this module does to the fields of `this` (memoised per method). */
  fieldEffects(fn: FunctionNode): readonly FieldEffect[] {
    return methodFieldEffects(this.facts, fn, this.fieldEffectMemo);
  }

  /**
   * What a method call does to its receiver's fields when the method is in another module (whole-server analysis):
   * null when no callee is a method of another module. Methods of this module's own classes are analysed where they
   * are (a long-lived instance's field writes are reported in the class), so they are not summarised here.
   */
  crossModuleEffects(call: TSESTree.CallExpression): readonly FieldEffect[] | null {
    let out: FieldEffect[] | null = null;
    // `tool.execute(args)`: a dispatch to a tool object, whose own module reports what its handler keeps.
    const callee = unwrap(call.callee);
    const method = callee.type === AST_NODE_TYPES.MemberExpression ? memberName(callee) : null;
    if (method !== null && this.settings.handlerProperties.includes(method)) return null;
    for (const { fn, model } of this.calleesOf(call)) {
      if (model === this || !classOfMethod(fn)) continue;
      for (const e of model.fieldEffects(fn)) {
        out ??= [];
        if (!out.some((x) => x.field === e.field && x.kind === e.kind)) out.push(e);
      }
    }
    return out;
  }

  private readonly paramMutationMemo = new Map<string, boolean>();

  /** Does this function change (push into, set a field of…) what it receives as its `index`th parameter (a `container`)? */
  paramMutated(fn: FunctionNode, index: number, container: ContainerKind): boolean {
    const key = `${fn.range[0]}:${index}:${container}`;
    const known = this.paramMutationMemo.get(key);
    if (known !== undefined) return known;
    this.paramMutationMemo.set(key, false);
    const result = parameterMutated(this.facts, fn, index, container, (call, i, c) => this.argumentMutated(call, i, c));
    this.paramMutationMemo.set(key, result);
    return result;
  }

  /** Does a call change what it is given as its `index`th argument (the callee's body in this module or another)? */
  argumentMutated(call: TSESTree.CallExpression, index: number, container: ContainerKind): boolean {
    // A store object (`new TaskStore()`, a class this module cannot see) handed to a function of another module is
    // reported there, where its methods are called on the long-lived parameter (whole-server analysis hands it over):
    // reporting the hand-over too would say the same thing twice.
    return this.calleesOf(call).some(({ fn, model }) => (container !== 'store' || model === this) && model.paramMutated(fn, index, container));
  }

  /** Call sites of a function in this module (for following values into helpers). */
  callSitesOf(fn: FunctionNode): TSESTree.CallExpression[] {
    return callSitesOf(this.facts, fn);
  }
}

/** One handler, a dispatcher's routed tool apart from the others it routes (null: start-up code). */
function handlerKey(h: HandlerRef | null): string {
  if (!h) return '';
  const r = h.registration;
  return `${r.site.range[0]}:${r.handler.range[0]}:${h.routedName ?? r.name ?? ''}`;
}

function takesRequestContext(fn: FunctionNode): boolean {
  const p = fn.params[0];
  const id = p?.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p;
  const ann = id && 'typeAnnotation' in id ? id.typeAnnotation?.typeAnnotation : undefined;
  return !!ann && ann.type === AST_NODE_TYPES.TSTypeReference && ann.typeName.type === AST_NODE_TYPES.Identifier && /^Mcp\w*RequestContext$/.test(ann.typeName.name);
}

interface ReachEdge {
  target: FunctionNode;
  /** The dispatcher case around the call (`case 'search':`), when there is one. */
  label: string | null;
  /** The key of a name→function map the target was called through. */
  mapKey: string | null;
}

interface ReadGroup {
  path: string[];
  reads: StateAccess[];
  firstByRegistration: { read: StateAccess; registration: string }[];
}

/** Does a read at one member path see a write at another? (`[]` is any entry) */
function pathsOverlap(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i] && a[i] !== '[]' && b[i] !== '[]') return false;
  return true;
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

/** The functions of a name→function map called through a computed key, with the key each is stored under. */
type ImportValue = Extract<Value, { kind: 'import' }>;

/** What a variable is declared with (`const handler = handlers[name]`), unwrapped; null for parameters and the like. */
function declaredInit(facts: ModuleFacts, id: TSESTree.Identifier): Node | null {
  const def = facts.variableOf(id)?.defs[0];
  const init = def?.type === 'Variable' ? (def.node as TSESTree.VariableDeclarator).init : null;
  return init ? unwrap(init) : null;
}

/**
 * The functions of the map a dispatcher indexes by a computed key (`handlers[request.params.name](args)`), each with
 * its key; `imports` receives the maps (or spread parts of one) that come from other modules.
 */
function mapDispatchTargets(facts: ModuleFacts, callee: Node, imports: ImportValue[] = []): [FunctionNode, string][] {
  let c = unwrap(callee);
  if (c.type === AST_NODE_TYPES.Identifier) {
    const init = declaredInit(facts, c);
    if (!init) return [];
    c = init;
  }
  if (c.type !== AST_NODE_TYPES.MemberExpression || !c.computed || staticString(c.property) !== null) return [];
  const out: [FunctionNode, string][] = [];
  const seen = new Set<Node>();
  // `{ ...FILE_TOOLS, ...SEARCH_TOOLS }`: a map assembled from others serves every key of each.
  const visit = (obj: Node, depth: number): void => {
    for (const v of resolveValues(facts, obj)) {
      if (v.kind === 'import' && facts.isProjectSource(v.source)) imports.push(v);
      if (v.kind !== 'object' || seen.has(v.node)) continue;
      seen.add(v.node);
      for (const p of v.node.properties) {
        if (p.type === AST_NODE_TYPES.SpreadElement) {
          if (depth < 4) visit(p.argument, depth + 1);
          continue;
        }
        const key = propertyKeyName(p);
        if (key === null) continue;
        for (const f of resolveValues(facts, p.value)) if (f.kind === 'function') out.push([f.node, key]);
      }
    }
  };
  visit(c.object, 0);
  return out;
}

/** `handlers.get(name)`, `this.tools.get(name)` with a key that is not a literal: the Map it reads, as a path. */
function computedGet(n: Node): string | null {
  const c = unwrap(n);
  if (c.type !== AST_NODE_TYPES.CallExpression || c.arguments.length !== 1 || staticString(c.arguments[0]) !== null) return null;
  const callee = unwrap(c.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression || memberName(callee) !== 'get') return null;
  return memberPath(callee.object)?.join('.') ?? null;
}

/** For each function, the accessors of its own class that it runs by reading `this.x` (`get x() { … }`). */
function getterReads(facts: ModuleFacts): Map<FunctionNode | null, FunctionNode[]> {
  const out = new Map<FunctionNode | null, FunctionNode[]>();
  for (const m of facts.thisMembers) {
    const name = memberName(m);
    const cls = name !== null ? enclosingClass(m) : null;
    if (!cls) continue;
    const getter = cls.body.body.find((el): el is TSESTree.MethodDefinition => el.type === AST_NODE_TYPES.MethodDefinition && el.kind === 'get' && !el.static && propertyKeyName(el) === name);
    if (!getter || getter.value.type !== AST_NODE_TYPES.FunctionExpression) continue;
    const owner = facts.ownerOf(m);
    if (owner === getter.value) continue;
    const list = out.get(owner);
    if (!list) out.set(owner, [getter.value]);
    else if (!list.includes(getter.value)) list.push(getter.value);
  }
  return out;
}

const mapEntryCache = new WeakMap<ModuleFacts, Map<string, [string | null, Node][]>>();

/**
 * Every literal-keyed entry a module puts in a Map, by the Map's path (`handlers`, `this.tools`): its `set(key, value)`
 * calls and the pairs of `const m = new Map([[key, value], …])`. One pass over the module's calls, kept per module.
 */
function mapEntries(facts: ModuleFacts): Map<string, [string | null, Node][]> {
  return cachedFor(mapEntryCache, facts, () => {
    const out = new Map<string, [string | null, Node][]>();
    const put = (map: string, key: string | null, value: Node) => {
      const list = out.get(map);
      if (list) list.push([key, value]);
      else out.set(map, [[key, value]]);
    };
    for (const c of facts.allCalls) {
      if (c.type === AST_NODE_TYPES.NewExpression) {
        const decl = c.parent;
        if (calleeName(c.callee) !== 'Map' || decl?.type !== AST_NODE_TYPES.VariableDeclarator || decl.id.type !== AST_NODE_TYPES.Identifier) continue;
        const list = c.arguments[0] ? unwrap(c.arguments[0]) : null;
        if (list?.type !== AST_NODE_TYPES.ArrayExpression) continue;
        for (const e of list.elements) {
          const pair = e ? unwrap(e) : null;
          if (pair?.type === AST_NODE_TYPES.ArrayExpression && pair.elements.length === 2 && pair.elements[0] && pair.elements[1]) put(decl.id.name, staticString(pair.elements[0]), pair.elements[1]);
        }
        continue;
      }
      const set = unwrap(c.callee);
      if (set.type !== AST_NODE_TYPES.MemberExpression || memberName(set) !== 'set' || c.arguments.length !== 2) continue;
      const map = memberPath(set.object)?.join('.');
      if (map !== undefined && c.arguments[1].type !== AST_NODE_TYPES.SpreadElement) put(map, staticString(c.arguments[0]), c.arguments[1]);
    }
    return out;
  });
}

/**
 * A dispatcher over a Map of handlers: `handlers.get(request.params.name)(args)`, or of handler objects,
 * `const h = this.handlers.get(name); h.handle(args)`. The entries are the Map's literal-keyed `set(…)` calls in this
 * module (and the pairs of `new Map([[…]])`); each entry's function, or its object's method, serves the tool of its key.
 */
function mapGetDispatchTargets(facts: ModuleFacts, call: TSESTree.CallExpression, imports: [ImportValue, string][] = []): [FunctionNode, string][] {
  let callee = unwrap(call.callee);
  let method: string | null = null;
  if (callee.type === AST_NODE_TYPES.MemberExpression && computedGet(callee) === null) {
    method = memberName(callee);
    if (method === null) return [];
    callee = unwrap(callee.object);
  }
  if (callee.type === AST_NODE_TYPES.Identifier) {
    const init = declaredInit(facts, callee);
    if (!init) return [];
    callee = init;
  }
  const map = computedGet(callee);
  if (map === null) return [];
  const out: [FunctionNode, string][] = [];
  const add = (key: string | null, value: Node): void => {
    if (key === null) return;
    for (const v of resolveValues(facts, value)) {
      // A handler class of another module (`new AddDocs(server)`): the server model finds its method.
      if (v.kind === 'import' && facts.isProjectSource(v.source)) imports.push([method === null ? v : { ...v, path: [...v.path, method] }, key]);
      if (method === null) {
        if (v.kind === 'function') out.push([v.node, key]);
        continue;
      }
      const found = v.kind === 'instance' ? classMember(facts, v.node, method, false, new Set(), 0) : v.kind === 'object' ? propertyOf(facts, v, method, new Set(), 0) : [];
      for (const f of found) if (f.kind === 'function') out.push([f.node, key]);
    }
  };
  for (const [key, value] of mapEntries(facts).get(map) ?? []) add(key, value);
  return out;
}

/** The functions of a module by the start of their range (to match the server model's roots to this module's AST). */
export function functionsByStart(facts: ModuleFacts): Map<number, FunctionNode> {
  const m = new Map<number, FunctionNode>();
  for (const f of facts.functions) if (isFunction(f) && !m.has(f.range[0])) m.set(f.range[0], f);
  return m;
}

function matchRoots(facts: ModuleFacts, roots: readonly CrossRoot[]): [FunctionNode, Registration][] {
  if (roots.length === 0) return [];
  const byStart = functionsByStart(facts);
  const out: [FunctionNode, Registration][] = [];
  for (const r of roots) {
    const fn = byStart.get(r.range[0]);
    if (fn && fn.range[1] === r.range[1]) out.push([fn, crossRegistration(fn, r)]);
  }
  return out;
}

/** The registration a cross-file root stands for, in this module's own AST. */
export function crossRegistration(fn: FunctionNode, r: CrossRoot): Registration {
  return {
    kind: r.kind,
    name: r.name,
    handler: fn,
    site: fn,
    via: r.via,
    inputParam: r.registered ? 0 : null,
    contextParam: r.registered ? 1 : null,
    external: true,
  };
}
