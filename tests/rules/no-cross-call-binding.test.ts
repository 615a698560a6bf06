import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/no-cross-call-binding.js';

const ruleTester = new RuleTester();
const header = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
const server = new McpServer({ name: 't', version: '1' });
`;

/** A TTL cache of a CLI's version whose timestamp `fill` writes, beside the version's lazy fill. */
function versionCache(fill: string): string {
  return `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
declare function cliOutput(args: string[]): Promise<string>;
let toolVersion: string | null = null;
let toolVersionAt: number | null = null;
async function cliVersion(zone: string): Promise<string | null> {
  if (toolVersion && toolVersionAt && Date.now() - toolVersionAt < 300_000) return toolVersion;
  toolVersion = (await cliOutput(['--version'])).trim();
  ${fill}
  return toolVersion;
}
const server = new McpServer({ name: 'cli', version: '1' });
server.tool('supports_logs', { zone: z.string() }, async ({ zone }) => ({ content: [{ type: 'text', text: \`cli \${await cliVersion(zone)}\` }] }));`;
}

/**
 * An express server that builds an MCP server per request; `route` is the body of `POST /mcp` before the transport
 * (line 15 onwards), `tool` the body of a tool's handler (line 10), `top` declarations at line 6.
 */
function perRequestServer(top: string, tool: string, route: string): string {
  return `import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
declare function callApi(path: string, token?: string): Promise<string>;
const app = express();
${top}
function createServer() {
  const server = new McpServer({ name: 'api', version: '1.0.0' });
  server.tool('whoami', {}, async () => {
    ${tool}
  });
  return server;
}
app.post('/mcp', async (req, res) => {
  ${route}
  const server = createServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});`;
}

ruleTester.run('no-cross-call-binding', rule, {
  valid: [
    // One-time set-up behind a once-flag, built from configuration only: every caller gets what it would have built.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
declare class Agent { constructor(o: object); }
let agentReady = false;
let agent: Agent | undefined;
function defaultAgent() {
  if (!agentReady) {
    agentReady = true;
    if (process.env.EXTRA_CA) agent = new Agent({ connect: { ca: process.env.EXTRA_CA } });
  }
  return agent;
}
const server = new McpServer({ name: 's', version: '1' });
server.tool('search', {}, async () => ({ content: [{ type: 'text', text: String(defaultAgent()) }] }));`,
    // Transactions kept within one call: begun and ended by the same tool (also through a shared helper), or on a
    // connection the call opens for itself.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import Database from 'better-sqlite3';
declare const pool: { connect(): Promise<{ query(sql: string): Promise<unknown>; release(): void }> };
const db = new Database('app.db');
const server = new McpServer({ name: 't', version: '1' });
function inTransaction(run: () => void) {
  db.exec('BEGIN');
  try { run(); db.exec('COMMIT'); } catch (e) { db.exec('ROLLBACK'); throw e; }
}
server.tool('transfer', {}, async () => { inTransaction(() => db.prepare('UPDATE a SET n = n - 1').run()); return { content: [] }; });
server.tool('refund', {}, async () => { inTransaction(() => db.prepare('UPDATE a SET n = n + 1').run()); return { content: [] }; });
server.tool('batch', {}, async () => { db.exec('BEGIN'); db.exec('COMMIT'); return { content: [] }; });
server.tool('open', {}, async () => { const c = await pool.connect(); await c.query('BEGIN'); return { content: [] }; });
server.tool('close', {}, async () => { const c = await pool.connect(); await c.query('COMMIT'); c.release(); return { content: [] }; });`,
    // An SDK's own capability check compares the method but never reads the request's params: not a dispatch.
    `let lastChecked = '';
export function assertCapability(request: { method: string; params?: unknown }) {
  switch (request.method) {
    case 'tools/call':
      lastChecked = 'tools';
      break;
  }
  if (request.method === 'resources/read') return lastChecked;
  lastChecked = 'resources';
}`,
    // Config-first calls that register nothing: no name, or no function to call (a cache's \`resource\` method).
    `import { McpServer } from 'tmcp';
const server = new McpServer({ name: 't', version: '1' }, { adapter: undefined as never, capabilities: {} });
let current = '';
declare const cache: { resource(cfg: object, ttl: number): void; tool(cfg: object, cb: () => void): void };
cache.resource({ name: 'r', uri: 'x://' }, 5);
cache.tool({ description: 'no name' }, () => { current = 'x'; });
server.tool({ name: 'read', description: 'r' }, async () => ({ content: [{ type: 'text', text: current }] }));`,
    // Per-request HTTP code that writes what handler code reads, but carries no request's value: a timestamp, emptying
    // the binding, a lazily filled client (no-first-caller-cache's), a local of the route, a routing map.
    perRequestServer('let lastSeen = 0;', "return { content: [{ type: 'text', text: String(lastSeen) }] };", 'lastSeen = Date.now();'),
    perRequestServer(
      'let token: string | undefined;',
      "return { content: [{ type: 'text', text: await callApi('/me', token) }] };",
      "token = undefined;",
    ),
    perRequestServer(
      'let apiKey: string | undefined;',
      "return { content: [{ type: 'text', text: await callApi('/me', apiKey) }] };",
      'if (!apiKey) apiKey = process.env.API_KEY;',
    ),
    perRequestServer(
      "const routes: Record<string, string> = {};",
      "return { content: [{ type: 'text', text: Object.keys(routes).join(',') }] };",
      "const token = req.headers.authorization;\n  routes[String(req.ip)] = 'seen';\n  void token;",
    ),
    // A cache's timestamp written with its fill, read by the freshness test before it: the fill's bookkeeping, which
    // no-first-caller-cache judges with the fill.
    versionCache('toolVersionAt = Date.now();'),
    // A setter on an instance made for this call, and a long-lived instance whose field only start-up code sets: the
    // same shapes as the setter cases below, with nothing that outlives a call written by one.
    `${header}class Workspace {
  root = '/';
  setRoot(r: string) { this.root = r; }
}
const shared = new Workspace();
shared.setRoot(process.env.ROOT ?? '/srv');
server.tool('use', {}, async (args: { dir: string }) => {
  const ws = new Workspace();
  ws.setRoot(args.dir);
  return { content: [{ type: 'text', text: ws.root + shared.root }] };
});
`,
    // The same flag, not exported and read by nobody: nothing crosses.
    `${header}let lastRemote = false;
server.tool('run', {}, async (args, extra) => { lastRemote = !!extra._meta?.remote; return { content: [] }; });`,
    // A lazily filled client reset (or relaunched) outside its guard is the first-caller lifecycle, reported by
    // no-first-caller-cache, not a second hazard here.
    `${header}let browser: { close(): void } | undefined;
declare function launch(): Promise<{ close(): void }>;
export function resetBrowser() { browser = undefined; }
server.tool('open', {}, async () => {
  if (!browser) browser = await launch();
  try { return { content: [] }; } catch { browser = await launch(); return { content: [] }; }
});
server.tool('close', {}, async () => { browser?.close(); resetBrowser(); return { content: [] }; });`,
    // Assigned at start-up, read by handlers.
    `${header}let mode = 'fast';
mode = process.env.MODE ?? mode;
server.tool('m', {}, async () => ({ content: [{ type: 'text', text: mode }] }));`,
    // Written by a handler, never read by handler code.
    `${header}let lastCalledAt = 0;
server.tool('t', {}, async () => { lastCalledAt = Date.now(); return { content: [] }; });`,
    // Locals with the same name as module state.
    `${header}let current: string | null = null;
server.tool('t', {}, async ({ x }) => { let current = x; current = current + '!'; return { content: [{ type: 'text', text: current }] }; });
export function reset() { current = null; }`,
    // A per-call instance.
    `${header}class Session { target = ''; }
server.tool('t', {}, async ({ x }) => { const s = new Session(); s.target = x; return { content: [{ type: 'text', text: s.target }] }; });`,
    // A promise chain that serialises writes carries order, not caller data.
    `${header}let writeChain: Promise<void> = Promise.resolve();
server.tool('save', {}, async ({ x }) => { const w = writeChain.then(() => persist(x)); writeChain = w.catch(() => {}); await w; return { content: [] }; });
declare function persist(x: unknown): Promise<void>;`,
    // A lazy cache of a configuration lookup behind a sentinel (no-first-caller-cache's business, silent by default).
    `${header}let clientId = 'unknown';
async function getId() { if (clientId === 'unknown') { clientId = await readIdFile(); } return clientId; }
server.tool('id', {}, async () => ({ content: [{ type: 'text', text: await getId() }] }));
declare function readIdFile(): Promise<string>;`,
    // Written and then read in the same call with nothing that can suspend it in between (no `await`): the read sees
    // only this call's own value, whoever called before.
    `${header}let last: string | undefined;
declare function sink(x: unknown): void;
server.tool('t', {}, async (args: { q: string }) => {
  last = args.q.toUpperCase();
  sink(last);
  if (args.q) { const text = last + '!'; return { content: [{ type: 'text', text }] }; }
  return { content: [] };
});`,
    // The same with a field path: the read's path starts with the written one.
    `${header}const state = { mode: '' };
server.tool('t', {}, async (args: { m: string }) => {
  state.mode = args.m;
  return { content: [{ type: 'text', text: state.mode.trim() }] };
});`,
    // Look-alikes of the session hooks below: a 'connect' listener on an emitter that is not a fastmcp server, and an
    // `oninitialized` hook that only logs.
    `import { FastMCP } from 'fastmcp';
import { EventEmitter } from 'node:events';
const server = new FastMCP({ name: 't', version: '1' });
const bus = new EventEmitter();
let lastPeer = '';
bus.on('connect', (p: string) => { lastPeer = p; });
server.on('connect', (event) => { console.error('connected', event.session); });
server.addTool({ name: 'peer', execute: async () => lastPeer });`,
    // The same hooks where only one session can ever connect (stdio): they run once per process, like start-up code.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
declare function serveStdio(build: () => McpServer): void;
let clientName = 'unknown';
serveStdio(() => {
  const server = new McpServer({ name: 't', version: '1' });
  server.server.oninitialized = () => { clientName = server.server.getClientVersion()?.name ?? 'unknown'; };
  server.tool('whoami', {}, async () => ({ content: [{ type: 'text', text: clientName }] }));
  return server;
});`,
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { FilteredStdioServerTransport } from './custom-stdio.js';
const server = new McpServer({ name: 't', version: '1' });
let clientName = 'unknown';
server.server.oninitialized = () => { clientName = server.server.getClientVersion()?.name ?? 'unknown'; };
server.tool('whoami', {}, async () => ({ content: [{ type: 'text', text: clientName }] }));
await server.connect(new FilteredStdioServerTransport());`,
    `import { FastMCP } from 'fastmcp';
const server = new FastMCP({ name: 't', version: '1' });
let activeRoots: string[] = [];
server.on('connect', (event) => {
  event.session.on('rootsChanged', (e: { roots: { uri: string }[] }) => { activeRoots = e.roots.map((r) => r.uri); });
});
server.addTool({ name: 'list', execute: async () => activeRoots.join(',') });
server.start({ transportType: 'stdio' });`,
    `${header}let clientName = 'unknown';
server.server.oninitialized = () => { console.error('initialized', server.server.getClientVersion()?.name); };
server.tool('whoami', {}, async () => ({ content: [{ type: 'text', text: clientName }] }));`,
    // The server variable itself, assigned in main().
    `${header}let transport: unknown;
async function main() { transport = {}; }
server.tool('t', {}, async () => ({ content: [] }));`,
  ],
  invalid: [
    // The same once-flag around the first caller's own argument: that caller's value stays for everyone.
    {
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
let ready = false;
let target = '';
const server = new McpServer({ name: 's', version: '1' });
server.tool('connect', {}, async ({ host }: { host: string }) => {
  if (!ready) {
    ready = true;
    target = host;
  }
  return { content: [{ type: 'text', text: target }] };
});`,
      errors: [{ messageId: 'crossCall', line: 8, column: 5 }],
    },
    // One tools/call dispatcher: the reader named is the routed tool that returns the value, not the writer's own
    // read right after its write.
    {
      code: `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
const memory = { topic: '' };
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  switch (request.params.name) {
    case 'set_topic':
      memory.topic = String(request.params.arguments?.topic);
      return { content: [{ type: 'text', text: JSON.stringify(memory) }] };
    case 'get_memory':
      return { content: [{ type: 'text', text: JSON.stringify(memory) }] };
    default:
      throw new Error('unknown tool');
  }
});`,
      errors: [{ messageId: 'crossCall', line: 8, column: 7, data: { binding: '`memory` is module-level, shared by every caller', writer: "tool 'set_topic'", reader: "tool 'get_memory'", target: 'memory.topic', line: '11' } }],
    },
    // A transaction one tool begins on the one long-lived connection and other tools end (also through a prepared
    // statement, and on a connection a server factory makes).
    {
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import Database from 'better-sqlite3';
const db = new Database(process.env.DB_FILE ?? 'app.db');
const server = new McpServer({ name: 't', version: '1' });
server.tool('begin', {}, async () => { db.exec('BEGIN IMMEDIATE'); return { content: [] }; });
server.tool('write', {}, async ({ sql }: { sql: string }) => { db.prepare(sql).run(); return { content: [] }; });
server.tool('commit', {}, async () => { db.prepare('COMMIT').run(); return { content: [] }; });
export function createServer(pg: { query(sql: string): Promise<unknown> }) {
  const conn = pg;
  const s = new McpServer({ name: 'u', version: '1' });
  s.tool('tx_start', {}, async () => { await conn.query('START TRANSACTION'); return { content: [] }; });
  s.tool('tx_abort', {}, async () => { await conn.query('ROLLBACK'); return { content: [] }; });
  return s;
}`,
      errors: [
        { messageId: 'spanningTransaction', line: 5, column: 40, data: { connection: 'db', opener: "tool 'begin'", closer: "tool 'commit'", line: '7' } },
        { messageId: 'spanningTransaction', line: 11, column: 46, data: { connection: 'conn', opener: "tool 'tx_start'", closer: "tool 'tx_abort'", line: '12' } },
      ],
    },
    // A hand-written JSON-RPC server (no SDK): the branch that answers tools/call serves the call, and the map it
    // dispatches through names each tool.
    {
      code: `import { createInterface } from 'node:readline';
let activeTab = 0;
const handlers: Record<string, (args: any) => Promise<unknown>> = {
  switch_tab: async (args) => { activeTab = args.index; return { content: [] }; },
  read_tab: async () => ({ content: [{ type: 'text', text: String(activeTab) }] }),
};
createInterface({ input: process.stdin }).on('line', async (line) => {
  const request = JSON.parse(line);
  if (request.method === 'tools/call') {
    const result = await handlers[request.params.name](request.params.arguments ?? {});
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: request.id, result }) + '\\n');
  }
});`,
      errors: [{ messageId: 'crossCall', line: 4, column: 33 }],
    },
    // tmcp registers config first: \`server.tool({ name, description, schema }, handler)\`; resource templates too.
    {
      code: `import { McpServer } from 'tmcp';
import * as v from 'valibot';
const server = new McpServer({ name: 't', version: '1' }, { adapter: undefined as never, capabilities: {} });
let currentDb: string | null = null;
server.tool({ name: 'use_db', description: 'select', schema: v.object({ path: v.string() }) }, async ({ path }) => {
  currentDb = path;
  return { content: [] };
});
server.template({ name: 'rows', description: 'rows', uri: 'db://{table}' }, async (uri, params) => ({
  contents: [{ uri, text: \`\${currentDb}:\${params.table}\` }],
}));`,
      errors: [{ messageId: 'crossCall', line: 6, column: 3 }],
    },
    {
      name: 'a websocket connection listener keeps the newest socket where every tool call sends',
      code: `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { WebSocketServer, type WebSocket } from 'ws';
export function createBridgeServer() {
  const bridge: { socket?: WebSocket } = {};
  const wss = new WebSocketServer({ port: 9009 });
  wss.on('connection', (socket) => {
    bridge.socket = socket;
  });
  const server = new Server({ name: 'bridge', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    bridge.socket?.send(JSON.stringify(request.params));
    return { content: [] };
  });
  return server;
}`,
      errors: [{ messageId: 'requestWrite', line: 8, column: 5, data: { binding: '`bridge` lives in `createBridgeServer()`, shared by every call on this server instance', route: '`connection` listener', target: 'bridge.socket', reader: 'the tools/call handler', line: '12' } }],
    },
    {
      name: 'a session callback records the newest session as the current one, which a tool reads',
      code: perRequestServer(
        'let activeSession: string | undefined;',
        "return { content: [{ type: 'text', text: String(activeSession) }] };",
        "const t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (id) => { activeSession = id; } });\n  void t;",
      ),
      errors: [{ messageId: 'requestWrite', line: 15, column: 128, data: { binding: '`activeSession` is module-level, shared by every caller', route: '`onsessioninitialized` callback', target: 'activeSession', reader: "tool 'whoami'", line: '10' } }],
    },
    {
      name: 'a route stores each request\'s bearer token in a module binding that a tool reads',
      code: perRequestServer(
        'let currentToken: string | undefined;',
        "return { content: [{ type: 'text', text: await callApi('/me', currentToken) }] };",
        "currentToken = req.headers.authorization?.replace('Bearer ', '');",
      ),
      errors: [{ messageId: 'requestWrite', line: 15, column: 3, data: { binding: '`currentToken` is module-level, shared by every caller', route: 'route `POST /mcp`', target: 'currentToken', reader: "tool 'whoami'", line: '10' } }],
    },
    {
      name: 'a route hands each request\'s token to a setter of one long-lived client that a tool\'s call uses',
      code: perRequestServer(
        `class ApiClient {
  private token = '';
  setToken(t: string) { this.token = t; }
  get(path: string) { return callApi(path, this.token); }
}
const api = new ApiClient();`,
        "return { content: [{ type: 'text', text: await api.get('/me') }] };",
        "api.setToken(String(req.headers.authorization));",
      ),
      errors: [{ messageId: 'requestWrite', line: 8, column: 25, data: { binding: '`this.token` belongs to the one long-lived `ApiClient` instance, shared by every caller', route: 'route `POST /mcp`', target: 'this.token', reader: "tool 'whoami'", line: '9' } }],
    },
    {
      // The same timestamp slot, filled from the call.
      code: versionCache('toolVersionAt = zone.length;'),
      errors: [{ messageId: 'crossCall', line: 9, column: 3 }],
    },
    {
      // Written with a lazy fill, but read by another tool rather than by the fill's freshness test.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
declare function launch(): Promise<{ close(): Promise<void> }>;
let browser: { close(): Promise<void> } | null = null;
let launchedAt = 0;
const server = new McpServer({ name: 'b', version: '1' });
server.tool('open', async () => {
  if (!browser) {
    browser = await launch();
    launchedAt = Date.now();
  }
  return { content: [] };
});
server.tool('status', async () => ({ content: [{ type: 'text', text: \`up since \${launchedAt}\` }] }));`,
      errors: [{ messageId: 'crossCall', line: 9, column: 5 }],
    },
    // A dispatch map assembled from others by spreading: each function serves the tool of its key.
    {
      code: `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
let current = '';
const SELECTION = { select: async (args: { name: string }) => { current = args.name; return { content: [] }; } };
const DISPLAY = { show: async () => ({ content: [{ type: 'text', text: current }] }) };
const handlers: Record<string, (a: unknown) => Promise<unknown>> = { ...SELECTION, ...DISPLAY };
const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const handler = handlers[request.params.name];
  return handler(request.params.arguments);
});`,
      errors: [{ messageId: 'crossCall', line: 4, column: 65, data: { binding: '`current` is module-level, shared by every caller', writer: "tool 'select'", reader: "tool 'show'", target: 'current', line: '5' } }],
    },
    // Session hooks run once for every session: what they write is one session's, read by every other's calls.
    {
      code: `${header}let clientName = 'unknown';
server.server.oninitialized = () => {
  clientName = server.server.getClientVersion()?.name ?? 'unknown';
};
server.tool('whoami', {}, async () => ({ content: [{ type: 'text', text: clientName }] }));`,
      errors: [{ messageId: 'crossCall', line: 5, column: 3, data: { binding: '`clientName` is module-level, shared by every caller', writer: 'the notifications/initialized handler', reader: "tool 'whoami'", target: 'clientName', line: '7' } }],
    },
    {
      code: `import { FastMCP } from 'fastmcp';
const server = new FastMCP({ name: 't', version: '1' });
let activeRoots: string[] = [];
server.on('connect', (event) => {
  event.session.on('rootsChanged', (e: { roots: { uri: string }[] }) => {
    activeRoots = e.roots.map((r) => r.uri);
  });
});
server.addTool({ name: 'list', execute: async () => activeRoots.join(',') });`,
      errors: [{ messageId: 'crossCall', line: 6, column: 5, data: { binding: '`activeRoots` is module-level, shared by every caller', writer: "the session 'connect' event handler", reader: "tool 'list'", target: 'activeRoots', line: '9' } }],
    },
    // The near misses of the same-call case: an `await` between the write and the read (another call can run and
    // overwrite it), a write only on one branch (the read may see the last caller's value), and a read in a loop that
    // awaits.
    {
      code: `${header}let last: string | undefined;
declare function wait(): Promise<void>;
server.tool('a', {}, async (args: { q: string }) => {
  last = args.q;
  await wait();
  return { content: [{ type: 'text', text: last }] };
});`,
      errors: [{ messageId: 'crossCall', line: 6, column: 3, data: { binding: '`last` is module-level, shared by every caller', writer: "tool 'a'", reader: 'its next call', target: 'last', line: '8' } }],
    },
    {
      code: `${header}let last = '';
server.tool('b', {}, async (args: { q?: string }) => {
  if (args.q) last = args.q;
  return { content: [{ type: 'text', text: last }] };
});`,
      errors: [{ messageId: 'crossCall', line: 5, column: 15, data: { binding: '`last` is module-level, shared by every caller', writer: "tool 'b'", reader: 'its next call', target: 'last', line: '6' } }],
    },
    {
      code: `${header}let last = '';
declare function wait(): Promise<void>;
server.tool('c', {}, async (args: { q: string[] }) => {
  last = args.q[0];
  for (const x of args.q) { await wait(); if (x === last) return { content: [] }; }
  return { content: [] };
});`,
      errors: [{ messageId: 'crossCall', line: 6, column: 3, data: { binding: '`last` is module-level, shared by every caller', writer: "tool 'c'", reader: 'its next call', target: 'last', line: '7' } }],
    },
    // A project wrapper around `server.tool` that the module also exports: its handlers are still found through the
    // wrapper's own call sites here (exporting it is no escape: other modules' calls are not this module's).
    {
      code: `${header}let current = '';
function tool(name: string, handler: (args: { target?: string }) => Promise<unknown>) {
  server.tool(name, {}, async (args) => handler(args));
}
export { tool };
export default tool;
tool('select', async (args) => { current = args.target ?? ''; return { content: [] }; });
tool('read', async () => ({ content: [{ type: 'text', text: current }] }));
`,
      errors: [{ messageId: 'crossCall', line: 9, column: 34 }],
    },
    // A setter of a long-lived instance (a module-level one, and a singleton behind a static accessor) called by one
    // tool, the field read straight off the instance by another.
    {
      code: `${header}class Workspace {
  root = '/';
  setRoot(r: string) { this.root = r; }
}
class Project {
  private static instance: Project | undefined;
  current = '';
  static get() { return (Project.instance ??= new Project()); }
  select(name: string) { this.current = name; }
}
const ws = new Workspace();
server.tool('use', {}, async (args: { dir: string; project: string }) => {
  ws.setRoot(args.dir);
  Project.get().select(args.project);
  return { content: [] };
});
server.tool('where', {}, async () => ({ content: [{ type: 'text', text: ws.root + Project.get().current } ] }));
`,
      errors: [
        { messageId: 'crossCall', line: 5, column: 24, data: { binding: '`this.root` belongs to the one long-lived `Workspace` instance, shared by every caller', writer: "tool 'use'", reader: "tool 'where'", target: 'this.root', line: '19' } },
        { messageId: 'crossCall', line: 11, column: 26, data: { binding: '`this.current` belongs to the one long-lived `Project` instance, shared by every caller', writer: "tool 'use'", reader: "tool 'where'", target: 'this.current', line: '19' } },
      ],
    },
    {
      // An exported flag set per call through a setter and read by other modules (telemetry) during the call: a
      // concurrent call overwrites it before they read it.
      code: `${header}let currentCallIsRemote = false;
function setRemote(remote: boolean) {
  currentCallIsRemote = remote;
}
server.tool('run', {}, async (args, extra) => { setRemote(!!extra._meta?.remote); return { content: [] }; });
export { currentCallIsRemote };`,
      errors: [{ messageId: 'crossCallImported', line: 5, column: 3, suggestions: null }],
    },
    {
      // Imported state from the project's own module: read elsewhere in the program.
      code: `${header}import { session } from './ctx.js';
import { config } from 'some-package';
server.tool('use', {}, async ({ target }) => {
  session.current = target;
  config.current = target;
  return { content: [] };
});`,
      errors: [{ messageId: 'crossCallImported', line: 6, column: 3 }],
    },
    {
      code: `${header}let currentTarget: string | null = null;
server.tool('set_target', { host: z.string() }, async ({ host }) => {
  currentTarget = host;
  return { content: [] };
});
server.tool('scan', {}, async () => ({ content: [{ type: 'text', text: String(currentTarget) }] }));`,
      errors: [{ messageId: 'crossCall', line: 5, column: 3, data: { binding: '`currentTarget` is module-level, shared by every caller', writer: "tool 'set_target'", reader: "tool 'scan'", target: 'currentTarget', line: '8' } }],
    },
    {
      // A field of a module-level state object, read by the same handler on its next call.
      code: `${header}const state = { lastResult: '' };
server.registerTool('run', { inputSchema: {} }, async ({ cmd }) => {
  const previous = state.lastResult;
  state.lastResult = cmd;
  return { content: [{ type: 'text', text: previous }] };
});`,
      errors: [{ messageId: 'crossCall', line: 6, column: 3, data: { binding: '`state` is module-level, shared by every caller', writer: "tool 'run'", reader: 'its next call', target: 'state.lastResult', line: '5' } }],
    },
    {
      // A singleton class instance whose method keeps `this.currentPage`.
      code: `${header}class Browser {
  currentPage = '';
  open(url: string) { this.currentPage = url; }
  read() { return this.currentPage; }
}
const browser = new Browser();
server.tool('open', {}, async ({ url }) => { browser.open(url); return { content: [] }; });
server.tool('read', {}, async () => ({ content: [{ type: 'text', text: browser.read() }] }));`,
      errors: [{ messageId: 'crossCall', line: 5, column: 23 }],
    },
  ],
});
