import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { append, calleeName, functionDisplayName, isFunction, memberName, nameTable, propertyKeyName, staticString, unwrap, type FunctionNode, type Node } from './ast.js';
import type { ModuleFacts } from './module.js';
import type { McpSettings } from './settings.js';
import { callSitesOf, classMember, entryKeySource, propertyOf, resolveValues, type ClassNode, type Value } from './resolve.js';

export type HandlerKind = 'tool' | 'resource' | 'prompt' | 'request' | 'notification' | 'task' | 'completion';

/** One function that serves a call, and how it was found. */
export interface Registration {
  kind: HandlerKind;
  /** Tool/resource/prompt name or request method, when known without running the code. */
  name: string | null;
  handler: FunctionNode;
  /** The registration call, or the tool-definition object/class that declares the handler. */
  site: Node;
  /** How it was registered, for reports: `registerTool`, `setRequestHandler(tools/call)`, `tool object`… */
  via: string;
  /** Index of the parameter carrying the caller's input (arguments, URI), or null. */
  inputParam: number | null;
  /** Index of the parameter carrying the request context (`extra`, `ctx`, fastmcp `context`), or null. */
  contextParam: number | null;
  /** Registered or reached from another module (whole-server analysis). */
  external?: boolean;
}

/** A handler that lives in another module: resolved later, by the project model. */
export interface ExternalHandler {
  kind: HandlerKind;
  name: string | null;
  source: string;
  imported: string;
  path: string[];
  site: Node;
  via: string;
}

const TOOL_METHODS = new Set(['tool', 'registerTool']);
const RESOURCE_METHODS = new Set(['resource', 'registerResource']);
const PROMPT_METHODS = new Set(['prompt', 'registerPrompt']);
const FASTMCP_METHODS = nameTable<{ kind: HandlerKind; props: string[] }>({
  addTool: { kind: 'tool', props: ['execute'] },
  addResource: { kind: 'resource', props: ['load'] },
  addResourceTemplate: { kind: 'resource', props: ['load', 'complete'] },
  addPrompt: { kind: 'prompt', props: ['load', 'complete'] },
});
const SCHEMA_PROPS = new Set(['inputSchema', 'schema', 'parameters', 'argsSchema', 'paramsSchema', 'input', 'inputShape', 'zodSchema', 'args']);

/** Builders that call their function argument once per request (SDK v2 `createMcpHandler`, Vercel's `mcp-handler`). */
export const PER_REQUEST_FACTORIES = new Set(['createMcpHandler']);
/** Request methods a hand-written JSON-RPC server answers with handler code. */
const HAND_WRITTEN_METHODS = new Set(['tools/call', 'resources/read', 'prompts/get']);
/** tmcp's resource templates: `server.template({ name, uri, complete }, (uri, params) => …)` (only in that config-first form). */
const TEMPLATE_METHOD = 'template';
const REGISTRATION_METHODS = [...TOOL_METHODS, ...RESOURCE_METHODS, ...PROMPT_METHODS, TEMPLATE_METHOD, ...Object.keys(FASTMCP_METHODS), 'setRequestHandler', 'setNotificationHandler', 'registerToolTask'];
/** Every callee name `run` looks at (the configured registration functions aside). */
/** Names of the calls discovery reads (`on` only for fastmcp's `server.on('connect', …)`). */
const REGISTRATION_NAMES = new Set([...REGISTRATION_METHODS, ...PER_REQUEST_FACTORIES, 'on']);
/** A registration call as discovery reads it: `.tool(`, `?.tool?.(`, `['tool'](`, `.registerTool<Args>(`. */
const MAY_REGISTER = new RegExp(
  `(?:\\.\\s*|\\[\\s*['"\`])(?:${REGISTRATION_METHODS.join('|')})(?:['"\`]\\s*\\])?\\s*(?:\\?\\.\\s*)?[(<]|\\bcreateMcpHandler\\s*\\(|\\bResourceTemplate\\b|\\bextends\\s+[\\w$.]*Tool|\\.on\\(\\s*['"]connect['"]|\\.oninitialized\\s*=[^=]`,
);
/** A schema key, as tool objects and tool classes have one (`inputSchema:`, `parameters =`, a shorthand `{ name, inputSchema }`). */
const MAY_HAVE_SCHEMA = new RegExp(`\\b(?:${[...SCHEMA_PROPS].join('|')})['"]?\\s*(?:[:=(,}]|$)`, 'm');
const KEY_MODIFIERS = /(?:^|[^\w$])(?:async|static|public|private|protected|override|readonly)$/;
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\v' || c === '\f' || c === '\u00a0' || c === '\ufeff' || (c > '\u007f' && /\s/.test(c));
const isLineBreak = (c: string) => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';

/**
 * A handler property written as a key, a method, a class field or a shorthand (`execute:`, `async handler(`,
 * `run = `, `{ name, inputSchema, handler }`), not a member access (`fn.call(`): a tool object or class needs one.
 * One regex pass finds each name followed by key punctuation (`:`, `(`, `,`, `}`, `=`, `<`, `?`, `!`, a line break or
 * the end of the text, after an optional quote and spaces); only those occurrences look at what precedes (the start of a
 * line, `{ , ; *`, or a modifier keyword). A search per name visited every `fn`, `run` and `call` inside other words.
 */
function mayHaveHandlerKey(text: string, props: readonly string[]): boolean {
  const re = handlerKeyCandidates(props);
  if (!re) return false;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (isKeyPositionBefore(text, m.index)) return true;
    // A name inside the match may start a candidate of its own (`handle` in `handler`): go on from the next character.
    re.lastIndex = m.index + 1;
  }
  return false;
}

const keyCandidates = new WeakMap<readonly string[], RegExp | null>();

function handlerKeyCandidates(props: readonly string[]): RegExp | null {
  let re = keyCandidates.get(props);
  if (re === undefined) {
    const names = props.filter((p) => p.length > 0).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    re = names.length === 0 ? null : new RegExp(`(?:${names.join('|')})['"]?[^\\S\\r\\n\\u2028\\u2029]*(?:[:(,}=<?!\\r\\n\\u2028\\u2029]|$)`, 'g');
    keyCandidates.set(props, re);
  }
  return re;
}

/** Before a handler key: an optional quote, spaces, then the start of a line, `{ , ; *`, or a modifier keyword. */
function isKeyPositionBefore(text: string, at: number): boolean {
  let i = at - 1;
  const quoted = i >= 0 && (text[i] === "'" || text[i] === '"');
  if (quoted) i--;
  const end = i;
  let newline = false;
  while (i >= 0 && isSpace(text[i])) {
    if (isLineBreak(text[i])) newline = true;
    i--;
  }
  if (i < 0 || newline || '{,;*'.includes(text[i])) return true;
  return (quoted || i < end) && KEY_MODIFIERS.test(text.slice(Math.max(0, i - 9), i + 1));
}

/**
 * Whether a module's text may register a handler in any way this discovery finds (a cheap superset test over the
 * text, built from the same vocabulary): a registration call, a tool class, or a tool object or class with both a
 * schema key and a handler key. Modules that fail it are not indexed in the editor, and the whole-server analysis
 * reads them only when handler code reaches into them.
 */
export function mayRegisterHandlers(text: string, settings: McpSettings): boolean {
  return (
    MAY_REGISTER.test(text) ||
    HAND_WRITTEN.test(text) ||
    (MAY_HAVE_SCHEMA.test(text) && mayHaveHandlerKey(text, settings.handlerProperties)) ||
    settings.registrationFunctions.some((f) => text.includes(f))
  );
}

/** A hand-written JSON-RPC server names the request methods it answers. */
const HAND_WRITTEN = /['"`](?:tools\/call|resources\/read|prompts\/get)['"`]/;

/** Builders that call their function argument once per connection or session (a server per stdio process). */
export const PER_CONNECTION_FACTORIES = new Set(['serveStdio', ...PER_REQUEST_FACTORIES]);

/** v1 schema constants and v2 method strings → request method. */
const REQUEST_SCHEMAS = nameTable<string>({
  CallToolRequestSchema: 'tools/call',
  ReadResourceRequestSchema: 'resources/read',
  GetPromptRequestSchema: 'prompts/get',
  SubscribeRequestSchema: 'resources/subscribe',
  UnsubscribeRequestSchema: 'resources/unsubscribe',
  SetLevelRequestSchema: 'logging/setLevel',
  CompleteRequestSchema: 'completion/complete',
  ListToolsRequestSchema: 'tools/list',
  ListResourcesRequestSchema: 'resources/list',
  ListResourceTemplatesRequestSchema: 'resources/templates/list',
  ListPromptsRequestSchema: 'prompts/list',
  InitializeRequestSchema: 'initialize',
  PingRequestSchema: 'ping',
  GetTaskRequestSchema: 'tasks/get',
  GetTaskPayloadRequestSchema: 'tasks/result',
  ListTasksRequestSchema: 'tasks/list',
  CancelTaskRequestSchema: 'tasks/cancel',
  RootsListChangedNotificationSchema: 'notifications/roots/list_changed',
  InitializedNotificationSchema: 'notifications/initialized',
  CancelledNotificationSchema: 'notifications/cancelled',
});
/** Methods that only describe the server: not handlers whose state matters. */
const DESCRIPTIVE_METHODS = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'ping', 'initialize']);
/** Requests a server sends and a client answers: handlers for them live in clients, not servers. */
const CLIENT_METHODS = new Set(['sampling/createMessage', 'elicitation/create', 'roots/list']);
const CLIENT_SCHEMAS = nameTable<string>({
  CreateMessageRequestSchema: 'sampling/createMessage',
  ElicitRequestSchema: 'elicitation/create',
  ListRootsRequestSchema: 'roots/list',
});
/** Notifications a server receives; every other notification (logging, progress, resource updates…) goes to clients. */
const SERVER_NOTIFICATIONS = new Set(['notifications/roots/list_changed', 'notifications/initialized', 'notifications/cancelled']);

function methodKind(method: string): HandlerKind {
  if (method === 'tools/call') return 'tool';
  if (method === 'resources/read') return 'resource';
  if (method === 'prompts/get') return 'prompt';
  if (method === 'completion/complete') return 'completion';
  if (method.startsWith('tasks/')) return 'task';
  if (method.startsWith('notifications/')) return 'notification';
  return 'request';
}

function nameOf(facts: ModuleFacts, arg: Node | undefined): string | null {
  if (!arg) return null;
  const s = staticString(arg);
  if (s !== null) return s;
  const n = unwrap(arg);
  if (n.type === AST_NODE_TYPES.Identifier) {
    const v = facts.variableOf(n);
    const def = v?.defs[0];
    if (def?.type === 'Variable') {
      const init = (def.node as TSESTree.VariableDeclarator).init;
      const s2 = staticString(init);
      if (s2 !== null) return s2;
    }
  }
  if (n.type === AST_NODE_TYPES.MemberExpression) {
    for (const v of resolveValues(facts, n.object)) {
      if (v.kind === 'object') {
        const prop = memberName(n);
        for (const p of v.node.properties) {
          if (p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === prop) return staticString(p.value);
        }
      }
    }
  }
  return null;
}

/** The key of `tables`' entry that holds `fn`, directly or in a nested object (`{ remember: { handler: fn } }`). */
function keyOfTableEntry(fn: FunctionNode, tables: readonly TSESTree.ObjectExpression[]): string | null {
  let n: Node = fn;
  for (let depth = 0; depth < 4; depth++) {
    const p: Node | undefined = n.parent;
    if (p?.type !== AST_NODE_TYPES.Property || p.value !== n) return null;
    const obj: Node = p.parent;
    if (obj.type !== AST_NODE_TYPES.ObjectExpression) return null;
    if (tables.includes(obj)) return propertyKeyName(p);
    n = obj;
  }
  return null;
}

function objectProp(obj: TSESTree.ObjectExpression, name: string): TSESTree.Property | null {
  for (const p of obj.properties) if (p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === name) return p;
  return null;
}

function resolveObjects(facts: ModuleFacts, expr: Node): TSESTree.ObjectExpression[] {
  return resolveValues(facts, expr).flatMap((v) => (v.kind === 'object' ? [v.node] : []));
}

export class Discovery {
  readonly registrations: Registration[] = [];
  readonly external: ExternalHandler[] = [];
  /** `new McpServer(…)`, `new Server(…)`, `new FastMCP(…)` and factories' servers. */
  readonly serverConstructions: TSESTree.NewExpression[] = [];
  private readonly seenHandlers = new Map<FunctionNode, Registration>();

  constructor(private readonly facts: ModuleFacts) {
    this.run();
  }

  handlerRegistration(fn: FunctionNode): Registration | undefined {
    return this.seenHandlers.get(fn);
  }

  private add(r: Omit<Registration, 'handler'>, values: Value[]): void {
    for (const v of values) {
      if (v.kind === 'function') {
        if (this.seenHandlers.has(v.node)) continue;
        const reg = { ...r, handler: v.node };
        this.seenHandlers.set(v.node, reg);
        this.registrations.push(reg);
      } else if (v.kind === 'import') {
        this.external.push({ kind: r.kind, name: r.name, source: v.source, imported: v.imported, path: v.path, site: r.site, via: r.via });
      } else if (v.kind === 'object' || v.kind === 'instance') {
        // A tool object or tool instance handed to the registration: its handler property serves the call.
        for (const prop of this.facts.settings.handlerProperties) {
          const found = propertyOf(this.facts, v, prop, new Set(), 0);
          if (found.some((f) => f.kind === 'function')) {
            this.add(r, found);
            break;
          }
        }
      }
    }
  }

  private run(): void {
    const facts = this.facts;
    const extra = facts.settings.registrationFunctions;
    for (const call of facts.allCalls) {
      if (call.type === AST_NODE_TYPES.NewExpression) {
        this.onNew(call);
        continue;
      }
      const name = calleeName(call.callee);
      // Most calls are none of these: one set lookup turns them away.
      if (!name || (!REGISTRATION_NAMES.has(name) && !extra.includes(name))) continue;
      const isMethod = unwrap(call.callee).type === AST_NODE_TYPES.MemberExpression;
      const args = call.arguments;
      if (isMethod && (TOOL_METHODS.has(name) || RESOURCE_METHODS.has(name) || PROMPT_METHODS.has(name) || name === TEMPLATE_METHOD)) {
        this.onHighLevel(call, name);
      } else if (isMethod && (name === 'setRequestHandler' || name === 'setNotificationHandler') && args.length >= 2) {
        this.onRequestHandler(call, name);
      } else if (isMethod && name in FASTMCP_METHODS && args.length >= 1) {
        const spec = FASTMCP_METHODS[name];
        for (const obj of resolveObjects(facts, args[0])) {
          const regName = nameOf(facts, objectProp(obj, 'name')?.value ?? objectProp(obj, 'uriTemplate')?.value ?? objectProp(obj, 'uri')?.value);
          for (const prop of spec.props) {
            const p = objectProp(obj, prop);
            if (!p) continue;
            const target = p.value;
            this.add({ kind: spec.kind, name: regName, site: call, via: name, inputParam: 0, contextParam: 1 }, resolveValues(facts, target));
          }
        }
      } else if (isMethod && name === 'registerToolTask' && args.length >= 2) {
        const regName = nameOf(facts, args[0]);
        for (const obj of resolveObjects(facts, args[args.length - 1])) {
          for (const p of obj.properties) {
            if (p.type !== AST_NODE_TYPES.Property) continue;
            this.add({ kind: 'task', name: regName, site: call, via: 'registerToolTask', inputParam: 0, contextParam: 1 }, resolveValues(facts, p.value));
          }
        }
      } else if (PER_REQUEST_FACTORIES.has(name) && args.length >= 1) {
        // createMcpHandler(buildServer): the factory runs for every request, so its body serves calls too.
        this.add({ kind: 'request', name: `per-request server factory (${name})`, site: call, via: name, inputParam: null, contextParam: 0 }, resolveValues(facts, args[0]).filter((v) => v.kind === 'function' || v.kind === 'import'));
      } else if (isMethod && name === 'on' && args.length >= 2 && staticString(args[0]) === 'connect') {
        this.onSessionEvent(call);
      } else if (extra.includes(name)) {
        this.onGeneric(call, name);
      }
    }
    this.findToolObjects();
    this.findToolClasses();
    this.findInitializedHooks();
    this.findHandWrittenDispatch();
  }

  /**
   * A server that speaks JSON-RPC itself, without an SDK: `if (request.method === 'tools/call') { … }` or
   * `switch (msg.method) { case 'tools/call': … }` in a function that reads the same request's `params` inside that
   * branch (`handlers[request.params.name](request.params.arguments)`). The function serves the call. A comparison
   * that does not go on to read the request's params (an SDK's own capability checks) is not a dispatch.
   */
  private findHandWrittenDispatch(): void {
    const facts = this.facts;
    const consider = (at: Node, probe: Node, method: string | null, branch: Node | readonly Node[]) => {
      if (method === null || !HAND_WRITTEN_METHODS.has(method)) return;
      const fn = facts.ownerOf(at);
      const root = unwrap(probe).type === AST_NODE_TYPES.MemberExpression ? unwrap((unwrap(probe) as TSESTree.MemberExpression).object) : null;
      if (!fn || root?.type !== AST_NODE_TYPES.Identifier) return;
      const v = facts.variableOf(root);
      const parts = Array.isArray(branch) ? branch : [branch];
      if (!v || parts.length === 0) return;
      const [start, end] = [parts[0].range[0], parts[parts.length - 1].range[1]];
      const readsParams = v.references.some((r) => {
        const id = r.identifier as Node;
        const p = id.parent;
        return id.range[0] >= start && id.range[1] <= end && p?.type === AST_NODE_TYPES.MemberExpression && p.object === id && memberName(p) === 'params';
      });
      if (!readsParams) return;
      const def = v.defs[0];
      const index = def?.type === 'Parameter' ? fn.params.findIndex((q) => q === def.name) : -1;
      const kind = methodKind(method);
      this.add({ kind, name: kind === 'tool' ? null : method, site: at, via: `hand-written \`${method}\` dispatch`, inputParam: index >= 0 ? index : 0, contextParam: null }, [{ kind: 'function', node: fn }]);
    };
    const isMethodRead = (n: Node) => {
      const u = unwrap(n);
      return u.type === AST_NODE_TYPES.MemberExpression && memberName(u) === 'method';
    };
    for (const choices of facts.choicesByOwner.values()) {
      for (const c of choices) {
        if (c.type !== AST_NODE_TYPES.IfStatement) continue;
        const t = unwrap(c.test);
        if (t.type !== AST_NODE_TYPES.BinaryExpression || (t.operator !== '===' && t.operator !== '==')) continue;
        const [probe, other] = isMethodRead(t.left) ? [t.left, t.right] : [t.right, t.left];
        if (!isMethodRead(probe)) continue;
        consider(c, probe, staticString(other), c.consequent);
      }
    }
    for (const sw of facts.switches) {
      if (!isMethodRead(sw.discriminant)) continue;
      for (const sc of sw.cases) if (sc.test) consider(sc, sw.discriminant, staticString(sc.test), sc.consequent);
    }
  }

  /**
   * fastmcp's `server.on('connect', (event) => …)`: it runs once for every session that connects, so what it writes to
   * long-lived state is one session's, read by every other's calls (the same as a `notifications/initialized` handler).
   */
  private onSessionEvent(call: TSESTree.CallExpression): void {
    const callee = unwrap(call.callee);
    if (callee.type !== AST_NODE_TYPES.MemberExpression) return;
    const isFastMcp = resolveValues(this.facts, callee.object).some((v) => v.kind === 'import' && v.imported === 'FastMCP' && v.path[0]?.startsWith('new()'));
    if (!isFastMcp || this.servesOneSessionOnly()) return;
    this.add({ kind: 'notification', name: "session 'connect' event", site: call, via: "on('connect')", inputParam: null, contextParam: null }, resolveValues(this.facts, call.arguments[1]).filter((v) => v.kind === 'function'));
  }

  private oneSession: boolean | undefined;

  /**
   * Whether this module can only ever serve one session: it connects over stdio (the SDK's `StdioServerTransport`,
   * fastmcp's `transportType: 'stdio'`) and names no HTTP transport. A session hook there runs once per process, like
   * start-up code, and what it writes is the one connection's, not one caller's.
   */
  private servesOneSessionOnly(): boolean {
    if (this.oneSession !== undefined) return this.oneSession;
    let stdio = false;
    let http = false;
    for (const { imported } of this.facts.imports.values()) {
      if (/Stdio\w*Transport$/.test(imported) || imported === 'serveStdio') stdio = true; // a project's own subclass too
      if (/HTTPServerTransport$|^SSEServerTransport$|^createMcpHandler$/.test(imported)) http = true;
    }
    for (const obj of this.facts.objects) {
      const t = objectProp(obj, 'transportType');
      const kind = t ? staticString(t.value) : null;
      if (kind === 'stdio') stdio = true;
      else if (kind !== null || (t && staticString(t.value) === null)) http = true;
    }
    return (this.oneSession = stdio && !http);
  }

  /** Inside the function handed to `serveStdio(…)`, which builds the one server of a stdio process. */
  private insideStdioFactory(node: Node): boolean {
    for (let f = this.facts.ownerOf(node); f; f = this.facts.ownerOf(f)) {
      const p = f.parent;
      if (p?.type === AST_NODE_TYPES.CallExpression && p.arguments.includes(f as never) && calleeName(p.callee) === 'serveStdio') return true;
    }
    return false;
  }

  /** `server.server.oninitialized = async () => …`: the SDK's hook for `notifications/initialized`, once per session. */
  private findInitializedHooks(): void {
    for (const a of this.facts.assignments) {
      if (a.operator !== '=' || a.left.type !== AST_NODE_TYPES.MemberExpression || memberName(a.left) !== 'oninitialized') continue;
      if (this.servesOneSessionOnly() || this.insideStdioFactory(a)) continue;
      this.add({ kind: 'notification', name: 'notifications/initialized', site: a, via: 'oninitialized', inputParam: null, contextParam: null }, resolveValues(this.facts, a.right).filter((v) => v.kind === 'function'));
    }
  }

  private onNew(call: TSESTree.NewExpression): void {
    const ctor = calleeName(call.callee);
    if (ctor === 'McpServer' || ctor === 'Server' || ctor === 'FastMCP') {
      if (ctor !== 'Server' || this.facts.imports.get('Server')?.source.includes('modelcontextprotocol')) this.serverConstructions.push(call);
    }
    if (ctor === 'ResourceTemplate' && call.arguments[1]) {
      for (const obj of resolveObjects(this.facts, call.arguments[1])) {
        for (const key of ['list', 'complete']) {
          const p = objectProp(obj, key);
          if (!p) continue;
          const values = resolveValues(this.facts, p.value);
          const fns = values.filter((v) => v.kind === 'function');
          const nested = values.flatMap((v) => (v.kind === 'object' ? v.node.properties.flatMap((q) => (q.type === AST_NODE_TYPES.Property ? resolveValues(this.facts, q.value) : [])) : []));
          this.add({ kind: key === 'list' ? 'resource' : 'completion', name: staticString(call.arguments[0]), site: call, via: `ResourceTemplate ${key}`, inputParam: key === 'list' ? null : 0, contextParam: key === 'list' ? 0 : 1 }, [...fns, ...nested]);
        }
      }
    }
  }

  private onHighLevel(call: TSESTree.CallExpression, method: string): void {
    const facts = this.facts;
    const args = call.arguments;
    if (args.length < 2) return;
    const first = unwrap(args[0]);
    if (first.type === AST_NODE_TYPES.ObjectExpression) {
      this.onConfigFirst(call, method, first);
      return;
    }
    if (isFunction(first) || method === TEMPLATE_METHOD) return; // not a name-first registration
    // The handler is the last argument that is (or resolves to) something callable.
    let handlerIndex = -1;
    let values: Value[] = [];
    for (let i = args.length - 1; i >= 1; i--) {
      const vs = resolveValues(facts, args[i]);
      if (vs.some((v) => v.kind === 'function' || v.kind === 'import') || isFunction(unwrap(args[i]))) {
        handlerIndex = i;
        values = vs;
        break;
      }
    }
    if (handlerIndex < 1) return;
    const kind: HandlerKind = TOOL_METHODS.has(method) ? 'tool' : RESOURCE_METHODS.has(method) ? 'resource' : 'prompt';
    const between = args.slice(1, handlerIndex).map((a) => unwrap(a));
    let inputParam: number | null = 0;
    let contextParam: number | null = 1;
    if (kind === 'tool' || kind === 'prompt') {
      if (method === 'registerTool' || method === 'registerPrompt') {
        const cfg = between[0] ? resolveObjects(facts, between[0])[0] : undefined;
        const schemaKey = kind === 'tool' ? 'inputSchema' : 'argsSchema';
        if (cfg && !objectProp(cfg, schemaKey)) {
          inputParam = null;
          contextParam = 0;
        }
      } else if (between.every((a) => a.type === AST_NODE_TYPES.Literal || a.type === AST_NODE_TYPES.TemplateLiteral)) {
        // tool(name, cb) / tool(name, description, cb): no input schema, the context comes first.
        inputParam = null;
        contextParam = 0;
      }
    } else {
      // resource(name, uri, cb(uri, extra)) / resource(name, template, cb(uri, variables, extra))
      inputParam = 0;
      contextParam = null;
    }
    // A project wrapper (`function defineTool(name, description, cb) { server.tool(name, description, schema, cb) }`):
    // each call of the wrapper registers its own callback under its own name.
    const wrapped = this.wrapperSites(call, args[0], args[handlerIndex]);
    if (wrapped) {
      for (const w of wrapped) this.add({ kind, name: w.name, site: w.site, via: `${method} (through ${w.wrapper}())`, inputParam, contextParam }, w.values);
      return;
    }
    const name = nameOf(facts, args[0]);
    const keyedBy = name === null && kind === 'tool' ? entryKeySource(facts, args[0]) : null;
    if (keyedBy) {
      // for (const [name, tool] of Object.entries(TOOLS)) server.tool(name, …, tool.handler): each handler under its key.
      const tables = resolveObjects(facts, keyedBy);
      for (const v of values) this.add({ kind, name: v.kind === 'function' ? keyOfTableEntry(v.node, tables) : null, site: call, via: method, inputParam, contextParam }, [v]);
    } else this.add({ kind, name, site: call, via: method, inputParam, contextParam }, values);
    if (kind === 'resource') {
      for (const fn of values) if (fn.kind === 'function') this.fixResourceContext(fn.node);
    }
  }

  /**
   * tmcp's config-first form: `server.tool({ name, description, schema }, (input) => …)`, `server.resource({ name, uri },
   * (uri) => …)`, `server.template({ name, uri }, (uri, params) => …)`, `server.prompt({ name, schema }, …)`. The
   * config names the registration; the handler is the last argument; a tool or prompt without a schema is called
   * without input, and the request context is not a parameter (tmcp keeps it on `server.ctx`).
   */
  private onConfigFirst(call: TSESTree.CallExpression, method: string, cfg: TSESTree.ObjectExpression): void {
    const facts = this.facts;
    const nameProp = objectProp(cfg, 'name');
    if (!nameProp) return;
    const isTemplate = method === TEMPLATE_METHOD;
    if (isTemplate && !objectProp(cfg, 'uri')) return;
    const last = call.arguments[call.arguments.length - 1];
    const values = resolveValues(facts, last);
    if (!isFunction(unwrap(last)) && !values.some((v) => v.kind === 'function' || v.kind === 'import')) return;
    const kind: HandlerKind = TOOL_METHODS.has(method) ? 'tool' : RESOURCE_METHODS.has(method) || isTemplate ? 'resource' : 'prompt';
    const hasSchema = !!(objectProp(cfg, 'schema') ?? objectProp(cfg, 'inputSchema') ?? objectProp(cfg, 'argsSchema'));
    const inputParam = kind === 'resource' || hasSchema ? 0 : null;
    this.add({ kind, name: nameOf(facts, nameProp.value), site: call, via: `${method} (config first)`, inputParam, contextParam: null }, values);
  }

  /** When the name and the handler are both parameters of the enclosing function, its call sites supply them. */
  private wrapperSites(call: TSESTree.CallExpression, nameArg: Node, handlerArg: Node): { name: string | null; values: Value[]; site: Node; wrapper: string }[] | null {
    const facts = this.facts;
    const paramIndex = (n: Node): { fn: FunctionNode; index: number } | null => {
      const u = unwrap(n);
      if (u.type !== AST_NODE_TYPES.Identifier) return null;
      const v = facts.variableOf(u);
      const def = v?.defs[0];
      if (!def || def.type !== 'Parameter') return null;
      const fn = def.node as FunctionNode;
      const index = fn.params.findIndex((p) => p.type === AST_NODE_TYPES.Identifier && p.name === u.name);
      return index >= 0 ? { fn, index } : null;
    };
    const h = paramIndex(handlerArg);
    const n = paramIndex(nameArg);
    if (!h || !n || h.fn !== n.fn || facts.ownerOf(call) !== h.fn) return null;
    const sites = callSitesOf(facts, h.fn);
    if (sites.length === 0) return null;
    const wrapper = functionDisplayName(h.fn) ?? 'wrapper';
    return sites.map((site) => ({
      name: nameOf(facts, site.arguments[n.index]),
      values: site.arguments[h.index] ? resolveValues(facts, site.arguments[h.index]) : [],
      site,
      wrapper,
    }));
  }

  private fixResourceContext(fn: FunctionNode): void {
    const r = this.seenHandlers.get(fn);
    if (r && fn.params.length >= 2) r.contextParam = fn.params.length - 1;
  }

  private onRequestHandler(call: TSESTree.CallExpression, method: string): void {
    const facts = this.facts;
    const args = call.arguments;
    const a0 = unwrap(args[0]);
    let requestMethod: string | null = staticString(a0);
    if (requestMethod === null) {
      const n = calleeName(a0);
      if (n && n in REQUEST_SCHEMAS) requestMethod = REQUEST_SCHEMAS[n];
      else if (n && n in CLIENT_SCHEMAS) requestMethod = CLIENT_SCHEMAS[n];
      else if (n && /RequestSchema$|NotificationSchema$/.test(n)) requestMethod = n;
    }
    if (requestMethod === null) return;
    if (DESCRIPTIVE_METHODS.has(requestMethod) || CLIENT_METHODS.has(requestMethod)) return;
    if (method === 'setNotificationHandler' && !SERVER_NOTIFICATIONS.has(requestMethod)) return;
    // A client's handlers (`new Client(…)`) answer the server; they are not server state.
    const receiver = unwrap(call.callee);
    if (receiver.type === AST_NODE_TYPES.MemberExpression && resolveValues(facts, receiver.object).some((v) => (v.kind === 'instance' && v.node.id?.name === 'Client') || (v.kind === 'import' && v.imported === 'Client'))) return;
    const kind = method === 'setNotificationHandler' ? 'notification' : methodKind(requestMethod);
    this.add(
      { kind, name: kind === 'tool' ? null : requestMethod, site: call, via: `${method}(${requestMethod})`, inputParam: 0, contextParam: kind === 'notification' ? null : 1 },
      resolveValues(facts, args[args.length - 1]),
    );
  }

  private onGeneric(call: TSESTree.CallExpression, name: string): void {
    const facts = this.facts;
    const args = call.arguments;
    const values: Value[] = [];
    for (let i = args.length - 1; i >= 0; i--) {
      const vs = resolveValues(facts, args[i]);
      if (vs.some((v) => v.kind === 'function')) {
        append(values, vs);
        break;
      }
      append(values, vs.filter((v) => v.kind === 'object' || v.kind === 'instance'));
    }
    const named = args.find((a) => staticString(a) !== null);
    this.add({ kind: 'tool', name: named ? staticString(named) : null, site: call, via: name, inputParam: 0, contextParam: 1 }, values);
  }

  /** `{ name, inputSchema, handler }` objects anywhere in the module (exported, in arrays, passed to loops). */
  private findToolObjects(): void {
    const facts = this.facts;
    const handlerProps = facts.settings.handlerProperties;
    for (const obj of facts.objects) {
      let nameProp: TSESTree.Property | null = null;
      let hasSchema = false;
      let handlerProp: TSESTree.Property | TSESTree.MethodDefinition | null = null;
      let nested: TSESTree.ObjectExpression | null = null;
      for (const p of obj.properties) {
        if (p.type !== AST_NODE_TYPES.Property) continue;
        const key = propertyKeyName(p);
        if (key === null) continue;
        if (key === 'name') nameProp = p;
        else if (SCHEMA_PROPS.has(key)) hasSchema = true;
        else if (!handlerProp && handlerProps.includes(key)) handlerProp = p;
        else if ((key === 'tool' || key === 'definition') && unwrap(p.value).type === AST_NODE_TYPES.ObjectExpression) nested = unwrap(p.value) as TSESTree.ObjectExpression;
      }
      if (!handlerProp) continue;
      if (nested && !nameProp) {
        nameProp = objectProp(nested, 'name');
        hasSchema = [...SCHEMA_PROPS].some((k) => objectProp(nested!, k));
      }
      if (!nameProp || !hasSchema) continue;
      this.add({ kind: 'tool', name: staticString(nameProp.value), site: obj, via: 'tool object', inputParam: 0, contextParam: 1 }, resolveValues(facts, handlerProp.value));
    }
  }

  /** Classes whose instances serve calls: an `execute`/`handle` method next to a `name` and a schema. */
  private findToolClasses(): void {
    const facts = this.facts;
    for (const cls of facts.classes) {
      let name: string | null = null;
      let hasName = false;
      let hasSchema = false;
      for (const el of cls.body.body) {
        if (el.type !== AST_NODE_TYPES.PropertyDefinition && el.type !== AST_NODE_TYPES.MethodDefinition) continue;
        const key = propertyKeyName(el);
        if (key === 'name') {
          hasName = true;
          if (el.type === AST_NODE_TYPES.PropertyDefinition) name = staticString(el.value);
        } else if (key && SCHEMA_PROPS.has(key)) hasSchema = true;
      }
      const superName = cls.superClass ? calleeName(cls.superClass) : null;
      const toolish = (hasName && hasSchema) || (!!superName && /Tool/.test(superName));
      if (!toolish) continue;
      for (const prop of facts.settings.handlerProperties) {
        const values = classMember(facts, cls as ClassNode, prop, false, new Set(), 0);
        if (values.some((v) => v.kind === 'function')) {
          this.add({ kind: 'tool', name, site: cls, via: 'tool class', inputParam: 0, contextParam: 1 }, values);
          break;
        }
      }
    }
  }
}
