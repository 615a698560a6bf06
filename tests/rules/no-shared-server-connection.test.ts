import { RuleTester } from '@typescript-eslint/rule-tester';
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import rule from '../../rules/no-shared-server-connection.js';
import plugin from '../../src/index.js';

const ruleTester = new RuleTester();

// SDK 1.x, express. Seven lines: cases start on line 8.
const v1 = `import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { randomUUID } from 'node:crypto';
const app = express();
`;

// SDK 2.x, hono. Four lines: cases start on line 5.
const v2hono = `import { Hono } from 'hono';
import { McpServer, WebStandardStreamableHTTPServerTransport, createMcpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';
const app = new Hono();
`;

// SDK 1.x low-level Server on node's http module. Five lines: cases start on line 6.
const v1http = `import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
`;

ruleTester.run('no-shared-server-connection', rule, {
  valid: [
    // \`opts.connect(transport)\` where the options type declares \`connect\` as the caller's callback: whatever the
    // callback connects is decided where it is written, not here.
    `import express from 'express';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
export interface HttpOptions { port: number; connect: (t: StreamableHTTPServerTransport) => Promise<void> }
export async function startHttp(opts: HttpOptions, more: { connect(t: unknown): Promise<void> }) {
  const app = express();
  app.post('/mcp', async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await opts.connect(transport);
    await more.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.listen(opts.port);
}`,
    // A dev server that never mentions MCP (a bundler's, vite-like): the same per-connection hook shape as the
    // invalid case at the end, but nothing here is an MCP server's wiring.
    `import { Server } from 'node:http';
import express from 'express';
const app = express();
const server = new Server(app);
app.get('/__hmr', async (_req, res) => {
  process.on('uncaughtException', (err) => { res.write(String(err)); });
  console.log = (...args: unknown[]) => { res.write(args.join(' ')); };
});
server.listen(5173);`,
    // Hand-written transports that are not shared: one made per request, and one that keeps each request's reply
    // channel under the message id it answers (not in one field).
    `${v1}class PerRequest {
  onmessage?: (m: unknown) => void;
  private res: express.Response | null = null;
  async start() {}
  async send(m: unknown) { this.res?.json(m); }
  handle(req: express.Request, res: express.Response) { this.res = res; this.onmessage?.(req.body); }
}
class ById {
  onmessage?: (m: unknown) => void;
  private pending = new Map<unknown, express.Response>();
  async start() {}
  async send(m: { id?: unknown }) { this.pending.get(m.id)?.json(m); this.pending.delete(m.id); }
  handle(req: express.Request, res: express.Response) { this.pending.set(req.body.id, res); this.onmessage?.(req.body); }
}
const byId = new ById();
app.post('/a', async (req, res) => {
  const t = new PerRequest();
  const server = new McpServer({ name: 'a', version: '1' });
  await server.connect(t as never);
  t.handle(req, res);
});
app.post('/b', (req, res) => byId.handle(req, res));
`,
    {
      name: 'v1 express, Streamable HTTP: the documented per-session pattern (new server per initialize, map for routing)',
      code: `${v1}const transports: Record<string, StreamableHTTPServerTransport> = {};
const getServer = () => {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool('ping', { description: 'ping' }, async () => ({ content: [] }));
  return server;
};
app.post('/mcp', async (req, res) => {
  const sessionId = req.headers['mcp-session-id'] as string | undefined;
  let transport: StreamableHTTPServerTransport;
  if (sessionId && transports[sessionId]) {
    transport = transports[sessionId];
  } else {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => { transports[id] = transport; },
    });
    transport.onclose = () => { if (transport.sessionId) delete transports[transport.sessionId]; };
    const server = getServer();
    await server.connect(transport);
  }
  await transport.handleRequest(req, res, req.body);
});
app.get('/mcp', async (req, res) => {
  const transport = transports[req.headers['mcp-session-id'] as string];
  await transport.handleRequest(req, res);
});`,
    },
    {
      name: 'v1 express, SSE: one server and one transport per GET /sse, POST routed by sessionId',
      code: `${v1}const transports = new Map<string, SSEServerTransport>();
function createServer() {
  return new McpServer({ name: 'notes', version: '1.0.0' });
}
app.get('/sse', async (_req, res) => {
  const server = createServer();
  const transport = new SSEServerTransport('/messages', res);
  transports.set(transport.sessionId, transport);
  res.on('close', () => transports.delete(transport.sessionId));
  await server.connect(transport);
});
app.post('/messages', async (req, res) => {
  const transport = transports.get(String(req.query.sessionId));
  if (transport) await transport.handlePostMessage(req, res, req.body);
  else res.status(400).send('unknown session');
});`,
    },
    {
      name: 'v1 express, stateless done right: new server and transport per request, closed with the response',
      code: `${v1}app.post('/mcp', async (req, res) => {
  const server = new McpServer({ name: 'stateless', version: '1.0.0' });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => { transport.close(); server.close(); });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});`,
    },
    {
      name: 'v2 hono, stateless per request',
      code: `${v2hono}app.all('/mcp', async (c) => {
  const server = new McpServer({ name: 'edge', version: '1.0.0' });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw);
});`,
    },
    {
      name: 'v2: createMcpHandler builds a server per request from a factory',
      code: `${v2hono}function createServer() {
  const server = new McpServer({ name: 'docs', version: '1.0.0' });
  server.registerTool('search', { inputSchema: z.object({ q: z.string() }) }, async ({ q }) => ({ content: [{ type: 'text', text: q }] }));
  return server;
}
const handler = createMcpHandler(() => createServer());
app.all('/mcp', (c) => handler.fetch(c.req.raw));`,
    },
    {
      name: "Vercel-style createMcpHandler(server => …): the helper hands each request its own server",
      code: `import { createMcpHandler } from 'mcp-handler';
const handler = createMcpHandler((server) => {
  server.tool('roll', 'Roll a die', {}, async () => ({ content: [{ type: 'text', text: '4' }] }));
});
export { handler as GET, handler as POST };`,
    },
    {
      name: 'stdio: one server connected once at start-up, in a file that also serves HTTP per session',
      code: `${v1}const server = new McpServer({ name: 'dual', version: '1.0.0' });
async function main() {
  if (process.env.HTTP) {
    app.post('/mcp', async (req, res) => {
      const perRequest = new McpServer({ name: 'dual', version: '1.0.0' });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await perRequest.connect(transport);
      await transport.handleRequest(req, res, req.body);
    });
    app.listen(3000);
    return;
  }
  await server.connect(new StdioServerTransport());
}
main();`,
    },
    {
      name: 'stdio at module level',
      code: `${v1}const server = new McpServer({ name: 'cli', version: '1.0.0' });
await server.connect(new StdioServerTransport());`,
    },
    {
      name: 'node http, per session: server built inside the request listener',
      code: `${v1http}const sessions = new Map<string, StreamableHTTPServerTransport>();
function buildServer() {
  return new Server({ name: 'browser', version: '1.0.0' }, { capabilities: { tools: {} } });
}
http.createServer(async (req, res) => {
  const id = req.headers['mcp-session-id'];
  const known = typeof id === 'string' ? sessions.get(id) : undefined;
  if (known) return known.handleRequest(req, res);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sid) => { sessions.set(sid, transport); },
  });
  const server = buildServer();
  await server.connect(transport);
  await transport.handleRequest(req, res);
}).listen(3000);`,
    },
    {
      name: 'a server from a factory in another module: the analysis cannot see how often it builds one, so it stays silent',
      code: `${v1}import { createServer } from './server.js';
app.get('/sse', async (_req, res) => {
  const { server } = createServer();
  await server.connect(new SSEServerTransport('/message', res));
});`,
    },
    {
      name: 'a per-request object whose method connects its own server field',
      code: `${v1}class Session {
  server = new McpServer({ name: 'per-session', version: '1.0.0' });
  async open(req: express.Request, res: express.Response) {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await this.server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }
}
app.post('/mcp', async (req, res) => {
  const session = new Session();
  await session.open(req, res);
});`,
    },
    {
      name: 'a function that hands its request to a transport, with a server built per call: per request, and fresh',
      code: `${v1}function buildServer() {
  return new McpServer({ name: 'per-request', version: '1.0.0' });
}
export async function handleMcp(req: express.Request, res: express.Response) {
  const server = buildServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}`,
    },
    {
      name: 'a class method that hands its request to a transport, with nothing showing one instance serves many requests',
      code: `${v1}export class Session {
  private server = new McpServer({ name: 'per-session', version: '1.0.0' });
  async handle(req: express.Request, res: express.Response) {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await this.server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }
}`,
    },
    {
      name: 'an SSE connection handler and a session set-up in exported functions, each with a server of its own',
      code: `${v1}const transports: Record<string, SSEServerTransport> = {};
const sessions = new Map<string, StreamableHTTPServerTransport>();
const buildServer = () => new McpServer({ name: 'per-session', version: '1.0.0' });
export async function openSse(res: express.Response) {
  const server = buildServer();
  const transport = new SSEServerTransport('/messages', res);
  transports[transport.sessionId] = transport;
  await server.connect(transport);
}
export async function startSession(id: string) {
  const server = buildServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
  sessions.set(id, transport);
  await server.connect(transport);
}`,
    },
    {
      name: 'a module namespace named like a server: connect(factory, transport) builds a server per call',
      code: `${v1}import * as mcpServer from './mcp-server.js';
import { backendFactory } from './backend.js';
app.get('/sse', async (_req, res) => {
  const transport = new SSEServerTransport('/sse', res);
  await mcpServer.connect(backendFactory, transport);
});`,
    },
    {
      name: 'database pools and other connect() calls in routes are not MCP wiring',
      code: `${v1}import pg from 'pg';
const pool = new pg.Pool();
app.get('/health', async (_req, res) => {
  const client = await pool.connect();
  try { await client.query('select 1'); } finally { client.release(); }
  res.send('ok');
});`,
    },
    {
      name: 'process-wide hooks installed once at start-up',
      code: `${v1}const server = new McpServer({ name: 'logs', version: '1.0.0' });
console.log = (...args: unknown[]) => console.error(...args);
process.on('SIGINT', () => process.exit(0));
await server.connect(new StdioServerTransport());`,
    },
    {
      name: 'a transport variable declared inside the route is per request',
      code: `${v1}app.post('/mcp', async (req, res) => {
  let transport: StreamableHTTPServerTransport | undefined;
  transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const server = new McpServer({ name: 'x', version: '1' });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});`,
    },
    {
      name: 'a stateful transport for one known session, kept at module level, is not the stateless-reuse shape',
      code: `${v1}const server = new McpServer({ name: 'single', version: '1.0.0' });
const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
await server.connect(transport);
app.all('/mcp', (req, res) => transport.handleRequest(req, res, req.body));`,
    },
  ],
  invalid: [
    {
      // The same route handed an SDK server as a parameter: one server for every session's transport.
      code: `import express from 'express';
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
export async function startHttp(server: McpServer) {
  const app = express();
  app.post('/mcp', async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
}`,
      errors: [{ messageId: 'sharedServer', line: 9, column: 11 }],
    },
    {
      // Turning a second client away (\`if (transport) { …409…; return; }\`) is not a memoised getter: the binding is
      // replaced by each new connection, and the POST route hands any client's message to whoever holds it.
      code: `import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
const server = new McpServer({ name: 'x', version: '1' });
const app = express();
let transport: SSEServerTransport | null = null;
app.post('/mcp', (req, res) => { if (transport) transport.handlePostMessage(req, res); });
app.get('/mcp', (req, res) => {
  if (transport) {
    res.status(409).json({ error: 'busy' });
    return;
  }
  transport = new SSEServerTransport('/mcp', res);
  transport.onclose = () => { transport = null; };
  server.connect(transport);
});`,
      errors: [
        { messageId: 'sharedTransport', line: 13, column: 3 },
        { messageId: 'sharedServer', line: 15, column: 3 },
      ],
    },
    {
      // fastify, with the path in a field: the function that hands its own request's \`raw\` to a transport runs per
      // request, and connects the one server to each new session's transport.
      code: `import Fastify from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { randomUUID } from 'node:crypto';
export class HttpFront {
  constructor(private server: McpServer, private path = '/mcp') {}
  start() {
    const app = Fastify();
    app.post(this.path, async (request, reply) => {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
      await this.server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    });
  }
}`,
      errors: [{ messageId: 'sharedServer', line: 11, column: 13 }],
    },
    {
      // A memoised getter (early return, then the one assignment) hands every SSE connection the same server.
      code: `import express from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
let mcpServer: Server | null = null;
const getMcpServer = () => {
  if (mcpServer) return mcpServer;
  mcpServer = new Server({ name: 'x', version: '1' }, { capabilities: { tools: {} } });
  return mcpServer;
};
const app = express();
app.get('/sse', async (_req, res) => {
  const transport = new SSEServerTransport('/messages', res);
  await getMcpServer().connect(transport);
});`,
      errors: [{ messageId: 'sharedServer', line: 13, column: 9, data: { server: 'getMcpServer()', route: 'route `GET /sse`' } }],
    },
    // A hand-written transport kept for every request: the route hands it each request, it keeps the response in one
    // field, and send() answers on that field (whichever session spoke last).
    {
      code: `${v1}class HttpBridge {
  onmessage?: (m: unknown) => void;
  private lastRes: express.Response | null = null;
  async start() {}
  async close() {}
  async send(m: unknown) { this.lastRes?.json(m); }
  handle(req: express.Request, res: express.Response) { this.lastRes = res; this.onmessage?.(req.body); }
}
const server = new McpServer({ name: 'bridge', version: '1' });
const bridge = new HttpBridge();
await server.connect(bridge as never);
app.post('/mcp', (req, res) => bridge.handle(req, res));
`,
      errors: [{ messageId: 'lastCallerTransport', line: 14, column: 57, data: { transport: 'bridge', route: 'route `POST /mcp`', method: 'handle', field: 'lastRes' } }],
    },
    {
      name: 'v1 express SSE: per-connection transports, routed by id, all connected to one module-level server',
      code: `${v1}const server = new McpServer({ name: 'scraper', version: '1.0.0' });
const transports: Record<string, SSEServerTransport> = {};
app.get('/sse', async (_req, res) => {
  const transport = new SSEServerTransport('/messages', res);
  transports[transport.sessionId] = transport;
  await server.connect(transport);
});
app.post('/messages', async (req, res) => {
  await transports[String(req.query.sessionId)]?.handlePostMessage(req, res);
});`,
      errors: [{ messageId: 'sharedServer', line: 13, column: 9, suggestions: null }],
    },
    {
      name: 'v1 express SSE: one `let transport` overwritten by every GET /sse and read by POST /messages',
      code: `${v1}const server = new McpServer({ name: 'scraper', version: '1.0.0' });
let transport: SSEServerTransport | null = null;
app.get('/sse', async (_req, res) => {
  transport = new SSEServerTransport('/messages', res);
  res.on('close', () => { transport = null; });
  await server.connect(transport);
});
app.post('/messages', (req, res) => {
  if (transport) transport.handlePostMessage(req, res);
});`,
      errors: [
        { messageId: 'sharedTransport', line: 11, column: 3, suggestions: null },
        { messageId: 'sharedServer', line: 13, column: 9, suggestions: null },
      ],
    },
    {
      name: 'v1 express Streamable HTTP: sessions routed by mcp-session-id, but every initialize connects the one server',
      code: `${v1}const server = new McpServer({ name: 'runner', version: '1.0.0' });
const transports = new Map<string, StreamableHTTPServerTransport>();
app.post('/mcp', async (req, res) => {
  const id = req.headers['mcp-session-id'];
  const existing = typeof id === 'string' ? transports.get(id) : undefined;
  if (existing) return existing.handleRequest(req, res, req.body);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sid) => { transports.set(sid, transport); },
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});`,
      errors: [{ messageId: 'sharedServer', line: 18, column: 9, suggestions: null }],
    },
    {
      name: 'v1 express stateless transport per request, but the server is a typed parameter of the set-up function',
      code: `${v1}import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
export function startHttp(server: Server) {
  app.post('/mcp', async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  return app.listen(3000);
}`,
      errors: [{ messageId: 'sharedServer', line: 13, column: 11, suggestions: null }],
    },
    {
      name: 'untyped set-up function parameter: recognised by the SDK transport it is connected to',
      code: `${v1}export function startSse(mcp) {
  app.get('/sse', async (_req, res) => {
    await mcp.connect(new SSEServerTransport('/messages', res));
  });
}`,
      errors: [{ messageId: 'sharedServer', line: 10, column: 11, suggestions: null }],
    },
    {
      name: 'stateless Streamable HTTP transport created once and handed every request',
      code: `${v1}const server = new McpServer({ name: 'once', version: '1.0.0' });
const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
await server.connect(transport);
app.post('/mcp', async (req, res) => {
  await transport.handleRequest(req, res, req.body);
});`,
      errors: [{ messageId: 'reusedStatelessTransport', line: 9, column: 19, suggestions: null }],
    },
    {
      name: 'v2 hono: new stateless transport per request, one module-level McpServer',
      code: `${v2hono}const server = new McpServer({ name: 'edge', version: '1.0.0' });
app.all('/mcp', async (c) => {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw);
});`,
      errors: [{ messageId: 'sharedServer', line: 8, column: 9, suggestions: null }],
    },
    {
      name: 'v2 hono: app.on(method, path, handler) with one server',
      code: `${v2hono}const server = new McpServer({ name: 'edge', version: '1.0.0' });
app.on(['GET', 'POST'], '/mcp', async (c) => {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw);
});`,
      errors: [{ messageId: 'sharedServer', line: 8, column: 9, suggestions: null }],
    },
    {
      name: 'v2: createMcpHandler factory that returns the one module-level server',
      code: `${v2hono}const server = new McpServer({ name: 'docs', version: '1.0.0' });
const handler = createMcpHandler(() => server);
app.all('/mcp', (c) => handler.fetch(c.req.raw));`,
      errors: [{ messageId: 'sharedServer', line: 6, column: 40, suggestions: null }],
    },
    {
      name: 'node http: low-level Server connected in the request listener',
      code: `${v1http}const server = new Server({ name: 'k8s', version: '1.0.0' }, { capabilities: { tools: {} } });
http.createServer(async (req, res) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}).listen(3000);`,
      errors: [{ messageId: 'sharedServer', line: 9, column: 9, suggestions: null }],
    },
    {
      name: "node http: server.on('request') and an SSE stream per GET",
      code: `${v1http}const server = new Server({ name: 'k8s', version: '1.0.0' }, { capabilities: {} });
const httpServer = http.createServer();
const streams = new Map<string, SSEServerTransport>();
httpServer.on('request', async (req, res) => {
  if (req.method === 'GET') {
    const transport = new SSEServerTransport('/sse', res);
    streams.set(transport.sessionId, transport);
    await server.connect(transport);
  } else {
    await streams.get(new URL(req.url!, 'http://x').searchParams.get('sessionId')!)?.handlePostMessage(req, res);
  }
});`,
      errors: [{ messageId: 'sharedServer', line: 13, column: 11, suggestions: null }],
    },
    {
      name: 'factory called once at module level',
      code: `${v1}function createServer() {
  const s = new McpServer({ name: 'made-once', version: '1.0.0' });
  s.registerTool('ping', { description: 'ping' }, async () => ({ content: [] }));
  return s;
}
const server = createServer();
app.get('/sse', async (_req, res) => {
  await server.connect(new SSEServerTransport('/messages', res));
});`,
      errors: [{ messageId: 'sharedServer', line: 15, column: 9, suggestions: null }],
    },
    {
      name: 'factory called once in main(), routes registered there',
      code: `${v1}const buildServer = () => new McpServer({ name: 'main', version: '1.0.0' });
async function main() {
  const server = buildServer();
  app.post('/mcp', async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.listen(3000);
}
main();`,
      errors: [{ messageId: 'sharedServer', line: 13, column: 11, suggestions: null }],
    },
    {
      name: 'a lazily created singleton handed out by getServer()',
      code: `${v1}let instance: McpServer | undefined;
function getServer() {
  if (!instance) instance = new McpServer({ name: 'lazy', version: '1.0.0' });
  return instance;
}
app.post('/mcp', async (req, res) => {
  const server = getServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});`,
      errors: [{ messageId: 'sharedServer', line: 16, column: 9, suggestions: null }],
    },
    {
      name: 'class field set at start-up, connected from a route the instance registered',
      code: `${v1}class HttpFrontend {
  private server = new McpServer({ name: 'class', version: '1.0.0' });
  start() {
    app.post('/mcp', async (req, res) => {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await this.server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    });
  }
}
new HttpFrontend().start();`,
      errors: [{ messageId: 'sharedServer', line: 13, column: 13, suggestions: null }],
    },
    {
      name: 'class field assigned in the constructor, connected from a route the instance registered',
      code: `${v1}class Gateway {
  private server: McpServer;
  constructor(private readonly port: number) {
    this.server = new McpServer({ name: 'gateway', version: '1.0.0' });
  }
  listen() {
    app.get('/sse', async (_req, res) => {
      await this.server.connect(new SSEServerTransport('/messages', res));
    });
    app.listen(this.port);
  }
}`,
      errors: [{ messageId: 'sharedServer', line: 15, column: 13, suggestions: null }],
    },
    {
      name: 'a class that registers its own route and connects its one server field from the method the route calls',
      code: `${v1}class McpFrontend {
  private mcpServer: McpServer;
  constructor() {
    this.mcpServer = new McpServer({ name: 'frontend', version: '1.0.0' });
    app.post('/mcp', (req, res) => this.handle(req, res));
  }
  async handle(req: express.Request, res: express.Response) {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await this.mcpServer.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }
}`,
      errors: [{ messageId: 'sharedServer', line: 16, column: 11, data: { server: 'this.mcpServer', route: 'route `POST /mcp`' } }],
    },
    {
      name: 'a class routed from another module: its method hands each request to a new transport, filed by session id, all on one server field',
      code: `${v1}export class SessionRouter {
  private server = new McpServer({ name: 'router', version: '1.0.0' });
  private transports = new Map<string, StreamableHTTPServerTransport>();
  async handleRequest(req: express.Request, res: express.Response) {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => { this.transports.set(id, transport); },
    });
    await this.server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }
}`,
      errors: [{ messageId: 'sharedServer', line: 16, column: 11, data: { server: 'this.server', route: 'request handler `handleRequest`' } }],
    },
    {
      name: 'an exported function, called by a route in another module, hands its request to a new transport on the one module-level server',
      code: `${v1}const server = new McpServer({ name: 'stateless', version: '1.0.0' });
export async function handleMcp(req: express.Request, res: express.Response) {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}`,
      errors: [{ messageId: 'sharedServer', line: 11, column: 9, data: { server: 'server', route: 'request handler `handleMcp`' } }],
    },
    {
      name: 'a session manager that files each new transport by session id and reconnects its one server to it',
      code: `${v1}export class SessionManager {
  private sessions: Record<string, StreamableHTTPServerTransport> = {};
  constructor(private readonly server: McpServer) {}
  async getOrCreate(sessionId: string) {
    if (this.sessions[sessionId]) return this.sessions[sessionId];
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => sessionId });
    await this.server.connect(transport);
    this.sessions[sessionId] = transport;
    return transport;
  }
}`,
      errors: [{ messageId: 'sharedServer', line: 14, column: 11, data: { server: 'this.server', route: 'session set-up `getOrCreate`' } }],
    },
    {
      name: 'an exported SSE connection handler: a transport on its own response, connected to the one module-level server',
      code: `${v1}const server = new McpServer({ name: 'sse', version: '1.0.0' });
const transports: Record<string, SSEServerTransport> = {};
export async function openSse(res: express.Response) {
  const transport = new SSEServerTransport('/messages', res);
  transports[transport.sessionId] = transport;
  await server.connect(transport);
}`,
      errors: [{ messageId: 'sharedServer', line: 13, column: 9, data: { server: 'server', route: 'connection handler `openSse`' } }],
    },
    {
      name: 'connect inside onsessioninitialized',
      code: `${v1}const server = new McpServer({ name: 'init', version: '1.0.0' });
const transports: Record<string, StreamableHTTPServerTransport> = {};
app.post('/mcp', async (req, res) => {
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: async (sid) => {
      transports[sid] = transport;
      await server.connect(transport);
    },
  });
  await transport.handleRequest(req, res, req.body);
});`,
      errors: [{ messageId: 'sharedServer', line: 15, column: 13, suggestions: null }],
    },
    {
      name: "WebSocket 'connection' listener with a custom server transport",
      code: `import { WebSocketServer } from 'ws';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebSocketServerTransport } from './ws-transport.js';
const server = new McpServer({ name: 'ws', version: '1.0.0' });
const wss = new WebSocketServer({ port: 3000 });
wss.on('connection', (socket) => {
  const transport = new WebSocketServerTransport(socket);
  server.connect(transport);
});`,
      errors: [{ messageId: 'sharedServer', line: 8, column: 3, suggestions: null }],
    },
    {
      name: 'fastify route({ handler }) and a named handler function passed to router.post',
      code: `import Fastify from 'fastify';
import { Router } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
const server = new McpServer({ name: 'fw', version: '1.0.0' });
const fastify = Fastify();
fastify.route({
  method: 'POST',
  url: '/mcp',
  handler: async (request, reply) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  },
});
const router = Router();
async function handleMcp(req: any, res: any) {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}
router.post('/mcp', handleMcp);`,
      errors: [
        { messageId: 'sharedServer', line: 12, column: 11, suggestions: null },
        { messageId: 'sharedServer', line: 19, column: 9, suggestions: null },
      ],
    },
    {
      name: 'a helper reached from the route does the connecting',
      code: `${v1}const server = new McpServer({ name: 'helper', version: '1.0.0' });
async function attach(res: express.Response) {
  const transport = new SSEServerTransport('/messages', res);
  await server.connect(transport);
  return transport;
}
app.get('/sse', async (_req, res) => {
  await attach(res);
});`,
      errors: [{ messageId: 'sharedServer', line: 11, column: 9, suggestions: null }],
    },
    {
      name: 'process-wide hooks installed per connection, even with a per-session server',
      code: `${v1}app.get('/sse', async (_req, res) => {
  const server = new McpServer({ name: 'noisy', version: '1.0.0' });
  const transport = new SSEServerTransport('/messages', res);
  console.log = (...args: unknown[]) => { void server.server.sendLoggingMessage({ level: 'info', data: args.join(' ') }); };
  process.on('uncaughtException', (err) => { void server.server.sendLoggingMessage({ level: 'error', data: String(err) }); });
  await server.connect(transport);
});`,
      errors: [
        { messageId: 'perConnectionHook', line: 11, column: 3, suggestions: null },
        { messageId: 'perConnectionHook', line: 12, column: 3, suggestions: null },
      ],
    },
  ],
});

// What the real servers in the corpus taught, restated as fixtures: each `// ✗ messageId` marks a line that must be
// reported with that message; every other line must stay silent.
const fixturesDir = path.resolve(import.meta.dirname, '../fixtures/wiring');

function lintFile(file: string) {
  const linter = new Linter({ configType: 'flat' });
  return linter.verify(
    readFileSync(file, 'utf8'),
    [{ files: ['**/*.{ts,mjs,js}'], languageOptions: { parser: tsParser as never }, plugins: { 'mcp-stateless': plugin as never }, rules: { 'mcp-stateless/no-shared-server-connection': 'error' } }],
    file,
  );
}

describe('no-shared-server-connection on the wiring fixtures', () => {
  for (const name of readdirSync(fixturesDir).sort()) {
    it(name, () => {
      const file = path.join(fixturesDir, name);
      const expected = readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => {
          const m = /\/\/ ✗ (\w+)/.exec(line);
          return m ? [`${i + 1} ${m[1]}`] : [];
        });
      const messages = lintFile(file);
      expect(messages.filter((m) => m.fatal)).toEqual([]);
      expect(messages.map((m) => `${m.line} ${m.messageId}`)).toEqual(expected);
    });
  }
});

// The probe's dynamic fixture for the same advisory: the static rule must report the wiring the probe exercises.
const probeDir = path.resolve(import.meta.dirname, '../fixtures/probe-servers');
describe.skipIf(!existsSync(path.join(probeDir, 'shared-server.mjs')))('no-shared-server-connection on the probe fixtures', () => {
  it('reports the one module-level server of shared-server.mjs', () => {
    const file = path.join(probeDir, 'shared-server.mjs');
    const lines = readFileSync(file, 'utf8').split('\n');
    const connectLine = lines.findIndex((l) => /^\s*await server\.connect\(transport\)/.test(l)) + 1;
    expect(connectLine).toBeGreaterThan(0);
    const messages = lintFile(file);
    expect(messages.map((m) => [m.messageId, m.line])).toEqual([['sharedServer', connectLine]]);
  });
  it('stays silent on the per-session wiring the other probe fixtures share', () => {
    expect(lintFile(path.join(probeDir, 'lib', 'serve.mjs'))).toEqual([]);
  });
});
