import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, functionDisplayName, isFunction, isInside, memberName, memberPath, nameTable, propertyKeyName, staticString, unwrap, type FunctionNode, type Node } from './ast.js';
import { findProcessGlobalWrites } from './globals.js';
import { declaresOwnMember } from './declared-types.js';
import { returnsKeptEarlier } from './lazy.js';
import type { ModuleFacts, Variable } from './module.js';
import { callSitesOf, resolveValues, returnedExpressions } from './resolve.js';

/**
 * How an MCP server is wired to HTTP, SSE and WebSocket endpoints: which code runs once per request or connection,
 * and which server and transport objects outlive it. The protocol object (`Server`/`McpServer`) holds one transport at
 * a time, so a server that outlives a request and is `connect()`ed from per-request code answers whichever client
 * connected last.
 */

/** A function that runs once per request, connection or session, and how the report names it. */
export interface Route {
  fn: FunctionNode;
  /** `route \`GET /sse\``, `\`http.createServer\` request handler`, `\`onsessioninitialized\` callback`… */
  label: string;
  /**
   * How this module knows it runs per request: it hands it to an HTTP server, a router or a per-request builder
   * ('registered'); it is a transport's session callback ('callback'); it hands its request to a transport ('inferred').
   */
  how: 'registered' | 'callback' | 'inferred';
}

export type WiringFinding =
  /** A long-lived server connected to a transport in per-request code (or handed out by a per-request factory). */
  | { kind: 'sharedServer'; node: Node; server: string; route: Route }
  /** A long-lived binding that one route overwrites with a new transport per connection and another route reads. */
  | { kind: 'sharedTransport'; node: Node; transport: string; route: Route; reader: Route }
  /** A stateless Streamable HTTP transport created once and handed every request. */
  | { kind: 'reusedStatelessTransport'; node: Node; transport: string; route: Route }
  /** A process-wide hook (console method, process listener) installed per connection. */
  | { kind: 'perConnectionHook'; node: Node; what: string; route: Route }
  /** A hand-written transport kept for every request, whose method stores the request's reply channel in a field that its `send` answers on. */
  | { kind: 'lastCallerTransport'; node: Node; transport: string; field: string; method: string; route: Route };

type Life = 'shared' | 'fresh' | 'unknown';

const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'all', 'head', 'options', 'any', 'use']);
const HTTP_VERBS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'ALL']);
const HTTP_MODULES = new Set(['http', 'https', 'http2', 'node:http', 'node:https', 'node:http2', 'net', 'node:net']);
const CONNECTION_EVENTS = nameTable<string>({
  request: '`request` listener',
  connection: '`connection` listener',
  upgrade: '`upgrade` listener',
  stream: '`stream` listener',
});
const SESSION_CALLBACKS = new Set(['onsessioninitialized', 'onsessionclosed']);
/** Builders that call their function argument once per request (SDK v2 `createMcpHandler`, Vercel's `mcp-handler`). */
const PER_REQUEST_BUILDERS = new Set(['createMcpHandler']);
const SERVER_CLASSES = new Set(['McpServer', 'Server', 'FastMCP']);
const STATELESS_CAPABLE = /StreamableHTTPServerTransport$/;

/**
 * Whether a module's text says anything of MCP (an SDK or fastmcp import, `McpServer`, a `/mcp` route, `mcpServer`):
 * wiring that never mentions MCP is some other HTTP server's (a bundler's dev server), whose per-request code is not
 * this analysis' business and can be the largest code in a project (vite's 1.4 MB bundle).
 */
export function mentionsMcp(text: string): boolean {
  return MENTIONS_MCP.test(text);
}
const MENTIONS_MCP = /mcp|modelcontextprotocol/i;

function isMcpSource(source: string): boolean {
  return source.includes('modelcontextprotocol') || source === 'fastmcp';
}

export class Wiring {
  /** Every function that runs per request or connection, with the route that reaches it first. */
  readonly region = new Map<FunctionNode, Route>();
  readonly routes: Route[] = [];
  private lifeMemo = new Map<Node, Life>();

  constructor(private readonly facts: ModuleFacts) {
    this.findRoutes();
    this.computeRegion();
    // Functions that hand an HTTP request to a transport run per request even when the route that calls them is in
    // another module; added after the routes this module shows, so code those reach keeps its route's name.
    if (this.addRequestHandlers()) this.computeRegion();
  }

  /** The route whose code contains `node`, or null for start-up code. */
  routeOf(node: Node): Route | null {
    let f = this.facts.ownerOf(node);
    while (f) {
      const r = this.region.get(f);
      if (r) return r;
      f = this.facts.ownerOf(f);
    }
    return null;
  }

  findings(): WiringFinding[] {
    if (this.routes.length === 0) return [];
    const out: WiringFinding[] = [];
    this.sharedServers(out);
    this.sharedTransportBindings(out);
    this.reusedStatelessTransports(out);
    this.perConnectionHooks(out);
    this.lastCallerTransports(out);
    return out.sort((a, b) => a.node.range[0] - b.node.range[0]);
  }

  // ---- what runs per request ----------------------------------------------------------------------------------

  private addRoute(fn: FunctionNode, label: string, how: Route['how'] = 'registered'): void {
    if (!this.routes.some((r) => r.fn === fn)) this.routes.push({ fn, label, how });
  }

  private functionArgs(args: readonly Node[]): FunctionNode[] {
    const out: FunctionNode[] = [];
    for (const a of args) {
      const n = unwrap(a);
      if (isFunction(n)) out.push(n);
      else if (n.type === AST_NODE_TYPES.Identifier || n.type === AST_NODE_TYPES.MemberExpression || n.type === AST_NODE_TYPES.CallExpression) {
        for (const v of resolveValues(this.facts, n)) if (v.kind === 'function' && !out.includes(v.node)) out.push(v.node);
      }
    }
    return out;
  }

  private findRoutes(): void {
    const facts = this.facts;
    for (const call of facts.allCalls) {
      if (call.type !== AST_NODE_TYPES.CallExpression) continue;
      const callee = unwrap(call.callee);
      const name = calleeName(callee);
      if (!name) continue;
      const args = call.arguments;
      if (callee.type === AST_NODE_TYPES.MemberExpression) {
        if (ROUTE_METHODS.has(name)) {
          const path = routePath(args[0]);
          const chained = unwrap(callee.object).type === AST_NODE_TYPES.CallExpression && calleeName((unwrap(callee.object) as TSESTree.CallExpression).callee) === 'route';
          if (path === null && name !== 'use' && !chained) continue;
          const verb = name === 'del' ? 'DELETE' : name.toUpperCase();
          const label = name === 'use' ? (path ? `middleware \`use ${path}\`` : 'middleware (`use`)') : `route \`${verb}${path ? ` ${path}` : ''}\``;
          for (const fn of this.functionArgs(args)) this.addRoute(fn, label);
          continue;
        }
        if (name === 'on' || name === 'addListener' || name === 'once') {
          const ev = staticString(args[0]);
          if (ev !== null && ev in CONNECTION_EVENTS && args[1]) {
            for (const fn of this.functionArgs([args[1]])) this.addRoute(fn, CONNECTION_EVENTS[ev]);
            continue;
          }
          // hono: app.on('POST', '/mcp', c => …)
          const verbs = httpVerbs(args[0]);
          const path = routePath(args[1]);
          if (verbs && path !== null) {
            for (const fn of this.functionArgs(args.slice(2))) this.addRoute(fn, `route \`${verbs} ${path}\``);
          }
          continue;
        }
        if (name === 'route' && args[0] && unwrap(args[0]).type === AST_NODE_TYPES.ObjectExpression) {
          // fastify.route({ method, url, handler })
          const obj = unwrap(args[0]) as TSESTree.ObjectExpression;
          const handler = objectProp(obj, 'handler');
          if (handler) {
            const method = objectProp(obj, 'method');
            const verb = method ? (httpVerbs(method.value) ?? 'ANY') : 'ANY';
            const url = objectProp(obj, 'url') ?? objectProp(obj, 'path');
            const path = url ? routePath(url.value) : null;
            for (const fn of this.functionArgs([handler.value])) this.addRoute(fn, `route \`${verb}${path ? ` ${path}` : ''}\``);
          }
          continue;
        }
      }
      if (name === 'createServer' && this.isHttpModuleCall(callee)) {
        for (const fn of this.functionArgs(args)) this.addRoute(fn, `\`${callText(callee)}\` request handler`);
        continue;
      }
      if (PER_REQUEST_BUILDERS.has(name) && args[0]) {
        for (const fn of this.functionArgs([args[0]])) this.addRoute(fn, `\`${name}\` server factory (runs per request)`);
        continue;
      }
      if (name === 'serve' && args[0] && this.isFetchServer(callee)) {
        // Bun.serve({ fetch }), Deno.serve(fn), serve({ fetch }) from @hono/node-server
        const a0 = unwrap(args[0]);
        if (a0.type === AST_NODE_TYPES.ObjectExpression) {
          const f = objectProp(a0, 'fetch');
          if (f) for (const fn of this.functionArgs([f.value])) this.addRoute(fn, '`fetch` handler');
        } else {
          for (const fn of this.functionArgs(args)) this.addRoute(fn, '`fetch` handler');
        }
      }
    }
    for (const obj of facts.objects) {
      for (const p of obj.properties) {
        if (p.type !== AST_NODE_TYPES.Property) continue;
        const key = propertyKeyName(p);
        if (key && SESSION_CALLBACKS.has(key)) {
          for (const fn of this.functionArgs([p.value])) this.addRoute(fn, `\`${key}\` callback`, 'callback');
        }
      }
    }
    // export default { fetch(request) { … } } (Workers, Bun), Next.js route handlers export function POST(req).
    for (const stmt of facts.ast.body) {
      if (stmt.type === AST_NODE_TYPES.ExportDefaultDeclaration) {
        const d = unwrap(stmt.declaration);
        if (d.type === AST_NODE_TYPES.ObjectExpression) {
          const f = objectProp(d, 'fetch');
          if (f) for (const fn of this.functionArgs([f.value])) this.addRoute(fn, '`fetch` handler');
        }
      } else if (stmt.type === AST_NODE_TYPES.ExportNamedDeclaration && stmt.declaration) {
        const decl = stmt.declaration;
        if (decl.type === AST_NODE_TYPES.FunctionDeclaration && decl.id && HTTP_VERBS.has(decl.id.name)) {
          this.addRoute(decl, `route handler \`${decl.id.name}\``);
        } else if (decl.type === AST_NODE_TYPES.VariableDeclaration) {
          for (const d of decl.declarations) {
            if (d.id.type === AST_NODE_TYPES.Identifier && HTTP_VERBS.has(d.id.name) && d.init && isFunction(unwrap(d.init))) {
              this.addRoute(unwrap(d.init) as FunctionNode, `route handler \`${d.id.name}\``);
            }
          }
        }
      }
    }
  }

  /** `Bun.serve`, `Deno.serve`, or `serve` imported from a hono or bun adapter (not any project helper named serve). */
  private isFetchServer(callee: Node): boolean {
    const root = rootIdentifier(callee);
    if (!root) return false;
    if (unwrap(callee).type === AST_NODE_TYPES.MemberExpression) return (root.name === 'Bun' || root.name === 'Deno') && this.facts.variableOf(root) === null;
    const imp = this.facts.imports.get(root.name);
    return !!imp && /hono|bun/.test(imp.source);
  }

  /** `http.createServer`, `https.createServer`, or `createServer` imported from a node http module. */
  private isHttpModuleCall(callee: Node): boolean {
    const root = rootIdentifier(callee);
    if (!root) return false;
    const imp = this.facts.imports.get(root.name);
    if (imp) return HTTP_MODULES.has(imp.source);
    return this.facts.variableOf(root) === null && (root.name === 'http' || root.name === 'https');
  }

  /**
   * Functions, outside every route this module shows, that run once per request or session whoever calls them:
   * - one that hands its own request and response to a transport (`transport.handleRequest(req, res, …)`,
   *   `transport.handlePostMessage(req, res)`), or builds an SSE transport on its own response
   *   (`new SSEServerTransport('/messages', res)`): once per HTTP request or connection;
   * - one that files a transport it made under a computed key (`sessions[id] = transport`,
   *   `transports.set(id, transport)`): once per session.
   * Named by the function (`request handler \`handleMcp\``).
   */
  private addRequestHandlers(): boolean {
    const facts = this.facts;
    const before = this.routes.length;
    const add = (fn: FunctionNode | null, what: string) => {
      if (!fn || this.routeOfFunction(fn)) return;
      const name = functionDisplayName(fn);
      this.addRoute(fn, name ? `${what} \`${name}\`` : what, 'inferred');
    };
    const ownParam = (fn: FunctionNode, a: Node | undefined) => {
      let n = a && unwrap(a);
      // fastify's `request.raw`, `reply.raw`: the node request inside the framework's own.
      while (n?.type === AST_NODE_TYPES.MemberExpression && !n.computed) n = unwrap(n.object);
      if (n?.type !== AST_NODE_TYPES.Identifier) return false;
      const v = facts.variableOf(n);
      return !!v && v.defs.some((d) => d.type === 'Parameter' && d.node === fn);
    };
    // A transport this function made: `new …Transport(…)` here, or a local binding of one.
    const madeIn = (fn: FunctionNode, value: Node) => {
      const n = unwrap(value);
      if (n.type === AST_NODE_TYPES.NewExpression) return facts.ownerOf(n) === fn && this.looksLikeTransport(n);
      if (n.type !== AST_NODE_TYPES.Identifier) return false;
      const v = facts.variableOf(n);
      return !!v && v.defs.some((d) => d.type === 'Variable' && facts.ownerOf(d.node as Node) === fn) && this.looksLikeTransport(n);
    };
    for (const call of facts.allCalls) {
      const callee = unwrap(call.callee);
      if (call.type === AST_NODE_TYPES.NewExpression) {
        const fn = facts.ownerOf(call);
        // The cheap test first: the response handed to the transport is this function's own parameter.
        if (fn && ownParam(fn, call.arguments[1]) && /^SSE\w*Transport$/.test(this.transportClass(call) ?? '')) add(fn, 'connection handler');
        continue;
      }
      if (callee.type !== AST_NODE_TYPES.MemberExpression || call.arguments.length < 2) continue;
      const method = memberName(callee);
      const fn = facts.ownerOf(call);
      if (fn && (method === 'handleRequest' || method === 'handlePostMessage') && ownParam(fn, call.arguments[0]) && ownParam(fn, call.arguments[1])) add(fn, 'request handler');
    }
    for (const f of this.keyedFilings()) {
      const fn = facts.ownerOf(f.at);
      if (fn && madeIn(fn, f.value)) add(fn, 'session set-up');
    }
    return this.routes.length > before;
  }

  private filings: { at: Node; container: Node; value: Node }[] | null = null;

  /** Values filed under a computed key: `container[k] = value`, `container.set(k, value)` (computed once). */
  private keyedFilings(): readonly { at: Node; container: Node; value: Node }[] {
    if (this.filings) return this.filings;
    const out: { at: Node; container: Node; value: Node }[] = [];
    for (const a of this.facts.assignments) {
      const left = unwrap(a.left);
      if (a.operator === '=' && left.type === AST_NODE_TYPES.MemberExpression && left.computed && staticString(left.property) === null) out.push({ at: a, container: left.object, value: a.right });
    }
    for (const call of this.facts.allCalls) {
      const callee = unwrap(call.callee);
      if (call.type === AST_NODE_TYPES.CallExpression && callee.type === AST_NODE_TYPES.MemberExpression && memberName(callee) === 'set' && call.arguments.length === 2 && staticString(call.arguments[0]) === null) {
        out.push({ at: call, container: callee.object, value: call.arguments[1] });
      }
    }
    return (this.filings = out);
  }

  /** Every function a route runs: the route, the functions nested in it, and the same-module functions it calls. */
  private computeRegion(): void {
    const facts = this.facts;
    const queue: [FunctionNode, Route][] = this.routes.map((r) => [r.fn, r]);
    while (queue.length) {
      const [fn, route] = queue.shift()!;
      if (this.region.has(fn)) continue;
      this.region.set(fn, route);
      for (const child of facts.childFunctions.get(fn) ?? []) queue.push([child, route]);
      for (const call of facts.callsByOwner.get(fn) ?? []) {
        for (const v of resolveValues(facts, call.callee)) {
          if (v.kind === 'function') queue.push([v.node, route]);
          else if (v.kind === 'class') {
            for (const el of v.node.body.body) {
              if (el.type === AST_NODE_TYPES.MethodDefinition && el.kind === 'constructor' && el.value.type === AST_NODE_TYPES.FunctionExpression) queue.push([el.value, route]);
            }
          }
        }
      }
    }
  }

  private inRegion(node: Node): boolean {
    return this.routeOf(node) !== null;
  }

  /** The function whose scope declares a variable (null: module level). */
  private declaringFunction(v: Variable): FunctionNode | null {
    let block: Node | null = v.scope.variableScope.block as Node;
    while (block && !isFunction(block)) {
      if (block.type === AST_NODE_TYPES.Program) return null;
      block = block.parent ?? null;
    }
    return block;
  }

  /** Declared outside every per-request function: one binding for every request. */
  private outlivesRequests(v: Variable): boolean {
    const fn = this.declaringFunction(v);
    return fn === null || !this.routeOfFunction(fn);
  }

  private routeOfFunction(fn: FunctionNode): Route | null {
    let f: FunctionNode | null = fn;
    while (f) {
      const r = this.region.get(f);
      if (r) return r;
      f = this.facts.ownerOf(f);
    }
    return null;
  }

  /** Writes to a variable (not its declaration) made by per-request code. */
  private regionWrites(v: Variable): TSESTree.Identifier[] {
    return v.references.filter((r) => r.isWrite() && !r.init && this.inRegion(r.identifier as Node)).map((r) => r.identifier as TSESTree.Identifier);
  }

  // ---- does a value outlive the request? --------------------------------------------------------------------------

  /** Whether the value of `expr`, evaluated in per-request code, is made per request or kept across requests. */
  private life(expr: Node, depth = 0): Life {
    if (depth > 8) return 'unknown';
    const n = unwrap(expr);
    const memo = this.lifeMemo.get(n);
    if (memo) return memo;
    this.lifeMemo.set(n, 'unknown');
    const result = this.computeLife(n, depth);
    this.lifeMemo.set(n, result);
    return result;
  }

  private computeLife(n: Node, depth: number): Life {
    switch (n.type) {
      case AST_NODE_TYPES.NewExpression:
      case AST_NODE_TYPES.ObjectExpression:
      case AST_NODE_TYPES.ArrayExpression:
        return this.inRegion(n) ? 'fresh' : 'shared';
      case AST_NODE_TYPES.Identifier:
        return this.identifierLife(n, depth);
      case AST_NODE_TYPES.ConditionalExpression:
        return combine([this.life(n.consequent, depth + 1), this.life(n.alternate, depth + 1)]);
      case AST_NODE_TYPES.LogicalExpression:
        return combine([this.life(n.left, depth + 1), this.life(n.right, depth + 1)]);
      case AST_NODE_TYPES.CallExpression: {
        const fns = resolveValues(this.facts, n.callee).flatMap((v) => (v.kind === 'function' ? [v.node] : []));
        if (fns.length === 0) return 'unknown';
        const lives = fns.flatMap((f) => returnedExpressions(f).map((r) => this.life(r, depth + 1)));
        return lives.length ? combine(lives) : 'unknown';
      }
      case AST_NODE_TYPES.MemberExpression: {
        const obj = unwrap(n.object);
        if (obj.type === AST_NODE_TYPES.ThisExpression) return this.thisMemberLife(n);
        // `servers[sessionId]`: a per-session lookup, not one shared object.
        if (n.computed && staticString(n.property) === null) return 'unknown';
        return this.life(obj, depth + 1);
      }
      default:
        return 'unknown';
    }
  }

  private identifierLife(id: TSESTree.Identifier, depth: number): Life {
    const v = this.facts.variableOf(id);
    if (!v || v.defs.length === 0) return 'unknown';
    const def = v.defs[0];
    if (def.type === 'ImportBinding') return 'shared';
    if (def.type === 'FunctionName' || def.type === 'ClassName') return 'unknown';
    if (this.outlivesRequests(v)) {
      const writes = this.regionWrites(v);
      // Reassigned per connection: a different hazard (sharedTransportBindings), unless it is a lazy singleton.
      if (writes.length && !writes.every((w) => isLazyWrite(w, v.name))) return 'unknown';
      return 'shared';
    }
    if (def.type === 'Parameter') {
      const fn = def.node as FunctionNode;
      if (this.routes.some((r) => r.fn === fn)) return 'unknown';
      const index = fn.params.findIndex((p) => p.type === AST_NODE_TYPES.Identifier && p.name === v.name);
      if (index < 0) return 'unknown';
      const sites = callSitesOf(this.facts, fn);
      if (sites.length === 0) return 'unknown';
      return combine(sites.map((s) => (s.arguments[index] ? this.life(s.arguments[index], depth + 1) : 'unknown')));
    }
    if (def.type !== 'Variable') return 'unknown';
    const values: Node[] = [];
    const decl = def.node as TSESTree.VariableDeclarator;
    if (decl.init) values.push(decl.init);
    for (const r of v.references) if (r.isWrite() && !r.init && r.writeExpr) values.push(r.writeExpr as Node);
    if (values.length === 0) return 'unknown';
    return combine(values.map((e) => this.life(e, depth + 1)));
  }

  /** `this.server` in per-request code: the field of the object that registered the route, unless reset per request. */
  private thisMemberLife(m: TSESTree.MemberExpression): Life {
    const name = memberName(m);
    if (!name) return 'unknown';
    let f: Node | undefined = m.parent;
    while (f && !(isFunction(f) && f.type !== AST_NODE_TYPES.ArrowFunctionExpression)) f = f.parent;
    if (!f) return 'unknown';
    const cls = classOf(f);
    if (!cls) return 'unknown';
    // A method that itself runs per request: its `this` is made per request unless the instance shows it serves many.
    if (this.region.has(f as FunctionNode) && !this.servesManyRequests(cls)) return 'unknown';
    for (const a of this.facts.assignments) {
      const left = unwrap(a.left);
      if (left.type === AST_NODE_TYPES.MemberExpression && unwrap(left.object).type === AST_NODE_TYPES.ThisExpression && memberName(left) === name && isInside(a, cls) && this.inRegion(a)) {
        if (!isLazyWrite(a, `this.${name}`)) return 'unknown';
      }
    }
    return 'shared';
  }

  /**
   * Whether one instance of a class is evidently kept for many requests: it registers a route itself (a route
   * function inside the class body holds `this`), or it files transports by session id (`this.transports[id] = t`,
   * `this.transports.set(id, t)`).
   */
  private servesManyRequests(cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression): boolean {
    if (this.routes.some((r) => r.how === 'registered' && isInside(r.fn, cls))) return true;
    return this.keyedFilings().some(({ container, value }) => {
      const c = unwrap(container);
      return c.type === AST_NODE_TYPES.MemberExpression && unwrap(c.object).type === AST_NODE_TYPES.ThisExpression && isInside(c, cls) && this.looksLikeTransport(value);
    });
  }

  // ---- what is a server, what is a transport ---------------------------------------------------------------------

  private isServer(expr: Node): boolean {
    const n = unwrap(expr);
    for (const v of resolveValues(this.facts, n)) {
      if (v.kind !== 'import' || !isMcpSource(v.source) || !SERVER_CLASSES.has(v.imported)) continue;
      const i = v.path.findIndex(isNewStep);
      if (i >= 0 && (i === v.path.length - 1 || (i === v.path.length - 2 && v.path[i + 1] === 'server'))) return true;
    }
    // A parameter or binding declared with an SDK server type: `server: Server`.
    const id = n.type === AST_NODE_TYPES.MemberExpression && memberName(n) === 'server' ? unwrap(n.object) : n;
    if (id.type === AST_NODE_TYPES.Identifier) {
      const v = this.facts.variableOf(id);
      const name = v?.defs[0]?.name as TSESTree.Identifier | undefined;
      const type = name?.typeAnnotation?.typeAnnotation;
      if (type && type.type === AST_NODE_TYPES.TSTypeReference && type.typeName.type === AST_NODE_TYPES.Identifier) {
        const imp = this.facts.imports.get(type.typeName.name);
        if (imp && isMcpSource(imp.source) && SERVER_CLASSES.has(imp.imported)) return true;
      }
    }
    return false;
  }

  /** The SDK transport class a value is constructed from (`SSEServerTransport`…), if known. */
  private transportClass(expr: Node): string | null {
    for (const v of resolveValues(this.facts, expr)) {
      if (v.kind === 'import' && isMcpSource(v.source) && /Transport$/.test(v.imported) && !/Client/.test(v.imported) && v.path.length === 1 && isNewStep(v.path[0])) return v.imported;
    }
    return null;
  }

  private looksLikeTransport(expr: Node): boolean {
    if (this.transportClass(expr)) return true;
    const n = unwrap(expr);
    if (n.type === AST_NODE_TYPES.NewExpression) {
      const c = calleeName(n.callee);
      return !!c && /ServerTransport$/.test(c);
    }
    return false;
  }

  // ---- the findings ------------------------------------------------------------------------------------------------

  private sharedServers(out: WiringFinding[]): void {
    for (const call of this.facts.allCalls) {
      if (call.type !== AST_NODE_TYPES.CallExpression) continue;
      const callee = unwrap(call.callee);
      if (callee.type !== AST_NODE_TYPES.MemberExpression || memberName(callee) !== 'connect' || call.arguments.length === 0) continue;
      const route = this.routeOf(call);
      if (!route) continue;
      const receiver = callee.object;
      const arg = call.arguments[0];
      const serverLike =
        this.isServer(receiver) ||
        (call.arguments.length === 1 && (this.looksLikeTransport(arg) || (nameMatches(arg, /transport/i) && nameMatches(receiver, /server|mcp/i))));
      if (!serverLike || declaresOwnMember(this.facts, receiver, 'connect')) continue;
      if (this.life(receiver) !== 'shared') continue;
      out.push({ kind: 'sharedServer', node: call, server: describe(receiver), route });
    }
    // A per-request factory that hands out the same server every time: createMcpHandler(() => server).
    for (const route of this.routes) {
      if (!route.label.includes('server factory')) continue;
      for (const r of returnedExpressions(route.fn)) {
        if (this.isServer(r) && this.life(r) === 'shared') out.push({ kind: 'sharedServer', node: r, server: describe(r), route });
      }
    }
  }

  private sharedTransportBindings(out: WiringFinding[]): void {
    const seen = new Set<Variable>();
    for (const scope of this.facts.scopeManager.scopes) for (const v of scope.variables) seen.add(v as Variable);
    for (const v of seen) {
      if (!this.outlivesRequests(v)) continue;
      let reported = false;
      for (const ref of v.references) {
        if (reported) break;
        if (!ref.isWrite() || ref.init || !ref.writeExpr) continue;
        const writer = this.routeOf(ref.identifier as Node);
        if (!writer || isLazyWrite(ref.identifier as Node, v.name)) continue;
        if (!this.looksLikeTransport(ref.writeExpr as Node)) continue;
        for (const r of v.references) {
          if (!r.isRead()) continue;
          const reader = this.routeOf(r.identifier as Node);
          if (!reader || reader.fn === writer.fn) continue;
          const write = (ref.identifier as Node).parent ?? (ref.identifier as Node);
          out.push({ kind: 'sharedTransport', node: write, transport: v.name, route: writer, reader });
          reported = true;
          break;
        }
      }
    }
  }

  private reusedStatelessTransports(out: WiringFinding[]): void {
    const reported = new Set<Node>();
    for (const call of this.facts.allCalls) {
      if (call.type !== AST_NODE_TYPES.CallExpression) continue;
      const callee = unwrap(call.callee);
      if (callee.type !== AST_NODE_TYPES.MemberExpression || memberName(callee) !== 'handleRequest') continue;
      const route = this.routeOf(call);
      if (!route) continue;
      const receiver = unwrap(callee.object);
      if (this.life(receiver) !== 'shared') continue;
      for (const made of this.constructionsOf(receiver)) {
        if (reported.has(made) || this.inRegion(made)) continue;
        const cls = calleeName(made.callee);
        if (!cls || !STATELESS_CAPABLE.test(cls) || !isStatelessOptions(made.arguments[0])) continue;
        reported.add(made);
        out.push({ kind: 'reusedStatelessTransport', node: made, transport: describe(receiver), route });
      }
    }
  }

  /** The `new …` expressions a binding is initialised or assigned with (one level of identifiers). */
  private constructionsOf(expr: Node): TSESTree.NewExpression[] {
    const n = unwrap(expr);
    if (n.type === AST_NODE_TYPES.NewExpression) return [n];
    const out: TSESTree.NewExpression[] = [];
    let v: Variable | null = null;
    if (n.type === AST_NODE_TYPES.Identifier) v = this.facts.variableOf(n);
    if (!v) return out;
    for (const def of v.defs) {
      if (def.type === 'Variable') {
        const init = (def.node as TSESTree.VariableDeclarator).init;
        if (init && unwrap(init).type === AST_NODE_TYPES.NewExpression) out.push(unwrap(init) as TSESTree.NewExpression);
      }
    }
    for (const r of v.references) {
      if (r.isWrite() && !r.init && r.writeExpr && unwrap(r.writeExpr as Node).type === AST_NODE_TYPES.NewExpression) out.push(unwrap(r.writeExpr as Node) as TSESTree.NewExpression);
    }
    return out;
  }

  /**
   * A transport written by hand (`implements Transport`, or a class with `send` and `start`) whose one instance serves
   * every request: a route hands each request to one of its methods, the method keeps the request's reply channel in a
   * field (`this.lastRes = res`), and `send` answers on that field, so a reply goes to whichever session spoke last.
   */
  private lastCallerTransports(out: WiringFinding[]): void {
    const transports = this.facts.classes.filter(isHandWrittenTransport);
    if (transports.length === 0) return;
    for (const call of this.facts.allCalls) {
      if (call.type !== AST_NODE_TYPES.CallExpression) continue;
      const callee = unwrap(call.callee);
      if (callee.type !== AST_NODE_TYPES.MemberExpression) continue;
      const method = memberName(callee);
      const route = method !== null ? this.routeOf(call) : null;
      if (!route || method === null || this.life(callee.object) !== 'shared') continue;
      for (const v of resolveValues(this.facts, callee.object)) {
        if (v.kind !== 'instance' || !transports.includes(v.node)) continue;
        const write = fieldKeptForSend(this.facts, v.node, method);
        if (write && !out.some((f) => f.node === write.node)) {
          out.push({ kind: 'lastCallerTransport', node: write.node, transport: describe(callee.object), field: write.field, method, route });
        }
      }
    }
  }

  private perConnectionHooks(out: WiringFinding[]): void {
    for (const w of findProcessGlobalWrites(this.facts)) {
      if (!/`console\.|process listeners/.test(w.what)) continue;
      const route = this.routeOf(w.node);
      if (!route) continue;
      out.push({ kind: 'perConnectionHook', node: w.node, what: w.what, route });
    }
  }
}

/** `new()` in a resolved import path (`new()!` when the construction is at module level). */
function isNewStep(step: string): boolean {
  return step === 'new()' || step === 'new()!';
}

function combine(lives: Life[]): Life {
  if (lives.includes('shared')) return 'shared';
  if (lives.length && lives.every((l) => l === 'fresh')) return 'fresh';
  return 'unknown';
}

/** `if (!x) x = …`, `x ??= …`, `x ||= …`: a first-caller fill, which keeps one value for every later request. */
function isLazyWrite(node: Node, name: string): boolean {
  const assign = node.type === AST_NODE_TYPES.AssignmentExpression ? node : node.parent?.type === AST_NODE_TYPES.AssignmentExpression ? node.parent : null;
  if (assign && (assign.operator === '??=' || assign.operator === '||=')) return true;
  // `if (server) return server; server = new Server(…)`: a memoised getter returns what it keeps (a route that turns
  // a second client away, `if (transport) { res.status(409); return; }`, is not one).
  if (assign && returnsKeptEarlier(assign, name)) return true;
  for (let n: Node | undefined = node.parent; n && !isFunction(n); n = n.parent) {
    if (n.type === AST_NODE_TYPES.IfStatement && testsAbsence(n.test, name)) return true;
  }
  return false;
}

function testsAbsence(test: Node, name: string): boolean {
  const t = unwrap(test);
  const mentions = (e: Node) => (memberPath(e) ?? []).join('.') === name;
  if (t.type === AST_NODE_TYPES.UnaryExpression && t.operator === '!') return mentions(t.argument);
  if (t.type === AST_NODE_TYPES.BinaryExpression && (t.operator === '===' || t.operator === '==')) {
    const other = mentions(t.left) ? t.right : mentions(t.right) ? t.left : null;
    if (!other) return false;
    const o = unwrap(other);
    return (o.type === AST_NODE_TYPES.Literal && o.value === null) || (o.type === AST_NODE_TYPES.Identifier && o.name === 'undefined');
  }
  if (t.type === AST_NODE_TYPES.LogicalExpression) return testsAbsence(t.left, name) || testsAbsence(t.right, name);
  return false;
}

/** `{ sessionIdGenerator: undefined }`, or options without a session id generator: one transport per request. */
function isStatelessOptions(arg: Node | undefined): boolean {
  if (!arg) return true;
  const n = unwrap(arg);
  if (n.type !== AST_NODE_TYPES.ObjectExpression) return false;
  const p = objectProp(n, 'sessionIdGenerator');
  if (!p) return !n.properties.some((q) => q.type === AST_NODE_TYPES.SpreadElement);
  const v = unwrap(p.value);
  return v.type === AST_NODE_TYPES.Identifier && v.name === 'undefined';
}

function objectProp(obj: TSESTree.ObjectExpression, name: string): TSESTree.Property | null {
  for (const p of obj.properties) if (p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === name) return p;
  return null;
}

function routePath(arg: Node | undefined): string | null {
  if (!arg) return null;
  const s = staticString(arg);
  if (s !== null) return s.startsWith('/') || s === '*' ? s : null;
  const n = unwrap(arg);
  if (n.type === AST_NODE_TYPES.TemplateLiteral) {
    const text = n.quasis.map((q) => q.value.cooked ?? q.value.raw).join('…');
    return text.startsWith('/') || text.startsWith('…') ? text : null;
  }
  if (n.type === AST_NODE_TYPES.Literal && 'regex' in n && n.regex) return `/${n.regex.pattern}/`;
  if (n.type === AST_NODE_TYPES.ArrayExpression) {
    const parts = n.elements.map((e) => (e ? staticString(e) : null));
    if (parts.length && parts.every((p) => p !== null && p.startsWith('/'))) return parts.join(', ');
  }
  return null;
}

function httpVerbs(arg: Node | undefined): string | null {
  if (!arg) return null;
  const s = staticString(arg);
  if (s !== null) return HTTP_VERBS.has(s.toUpperCase()) ? s.toUpperCase() : null;
  const n = unwrap(arg);
  if (n.type === AST_NODE_TYPES.ArrayExpression) {
    const parts = n.elements.map((e) => (e ? staticString(e) : null));
    if (parts.length && parts.every((p) => p !== null && HTTP_VERBS.has(p.toUpperCase()))) return parts.map((p) => p!.toUpperCase()).join('|');
  }
  return null;
}

function rootIdentifier(node: Node): TSESTree.Identifier | null {
  let n = unwrap(node);
  while (n.type === AST_NODE_TYPES.MemberExpression) n = unwrap(n.object);
  return n.type === AST_NODE_TYPES.Identifier ? n : null;
}

function callText(callee: Node): string {
  return (memberPath(callee) ?? ['createServer']).join('.');
}

function nameMatches(expr: Node, re: RegExp): boolean {
  const path = memberPath(expr);
  return !!path && re.test(path[path.length - 1]);
}

/** How a report names a server or transport: `server`, `this.server`, `mcpServer.server`. */
function describe(expr: Node): string {
  const n = unwrap(expr);
  const path = memberPath(n);
  if (path) return path.join('.');
  if (n.type === AST_NODE_TYPES.CallExpression) {
    const c = memberPath(n.callee);
    if (c) return `${c.join('.')}()`;
  }
  return 'the server';
}

function classOf(fn: Node): TSESTree.ClassDeclaration | TSESTree.ClassExpression | null {
  for (let n: Node | undefined = fn.parent; n; n = n.parent) {
    if (n.type === AST_NODE_TYPES.ClassDeclaration || n.type === AST_NODE_TYPES.ClassExpression) return n;
  }
  return null;
}

const cache = new WeakMap<ModuleFacts, Wiring>();

/** The wiring of one module, computed once per module facts (so once per linted file). */
export function getWiring(facts: ModuleFacts): Wiring {
  let w = cache.get(facts);
  if (!w) {
    w = new Wiring(facts);
    cache.set(facts, w);
  }
  return w;
}

/** `class X implements Transport`, or a class with the transport's own methods (`send` and `start`). */
function isHandWrittenTransport(cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression): boolean {
  if (cls.implements?.some((i) => /Transport$/.test(calleeName(i.expression) ?? ''))) return true;
  const methods = new Set(cls.body.body.flatMap((el) => (el.type === AST_NODE_TYPES.MethodDefinition ? [propertyKeyName(el)] : [])));
  return methods.has('send') && methods.has('start');
}

/**
 * A field that `method` of the class sets from one of its parameters (`this.lastRes = res`) and that `send` reads:
 * the reply channel of whichever call came last.
 */
function fieldKeptForSend(facts: ModuleFacts, cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression, method: string): { node: Node; field: string } | null {
  const member = cls.body.body.find((el): el is TSESTree.MethodDefinition => el.type === AST_NODE_TYPES.MethodDefinition && !el.static && propertyKeyName(el) === method);
  const send = cls.body.body.find((el): el is TSESTree.MethodDefinition => el.type === AST_NODE_TYPES.MethodDefinition && !el.static && propertyKeyName(el) === 'send');
  if (!member || !send || method === 'send') return null;
  const params = new Set(member.value.params.flatMap((p) => (p.type === AST_NODE_TYPES.Identifier ? [p.name] : [])));
  const readBySend = new Set<string>();
  for (const m of facts.thisMembers) {
    const name = memberName(m);
    if (name !== null && isInside(m, send.value) && !(m.parent?.type === AST_NODE_TYPES.AssignmentExpression && m.parent.left === m)) readBySend.add(name);
  }
  for (const a of facts.assignments) {
    if (!isInside(a, member.value) || a.operator !== '=') continue;
    const left = unwrap(a.left);
    const right = unwrap(a.right);
    if (left.type !== AST_NODE_TYPES.MemberExpression || unwrap(left.object).type !== AST_NODE_TYPES.ThisExpression) continue;
    const field = memberName(left);
    if (field !== null && readBySend.has(field) && right.type === AST_NODE_TYPES.Identifier && params.has(right.name)) return { node: a, field };
  }
  return null;
}
