import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/no-session-keyed-state.js';

const ruleTester = new RuleTester();
const header = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
const server = new McpServer({ name: 't', version: '1' });
`;

ruleTester.run('no-session-keyed-state', rule, {
  valid: [
    // The HTTP endpoint's routing map, outside handlers.
    `${header}const transports: Record<string, any> = {};
app.post('/mcp', async (req: any, res: any) => {
  const sessionId = req.headers['mcp-session-id'];
  const transport = transports[sessionId];
  await transport.handleRequest(req, res, req.body);
});
declare const app: any;`,
    // Keyed by the caller's workspace argument.
    `${header}const byWorkspace = new Map<string, string[]>();
server.registerTool('n', { inputSchema: {} }, async ({ workspace, note }) => { byWorkspace.get(workspace)?.push(note); return { content: [] }; });`,
    // The session id only logged, not used as a key.
    `${header}server.registerTool('n', { inputSchema: {} }, async (args, extra) => { console.error('session', extra.sessionId); return { content: [] }; });`,
    // The id of a task made for the session is the task's, not the session's (a naive origin search sees sessionId in
    // the arguments of the call that made it).
    `${header}const running = new Map<string, Promise<void>>();
declare function createTask(name: string, sessionId?: string): Promise<{ taskId: string }>;
server.registerTool('start', { inputSchema: {} }, async (args, extra) => {
  const task = await createTask('job', extra.sessionId);
  running.set(task.taskId, Promise.resolve());
  return { content: [] };
});`,
    // A tool argument named sessionId is a handle the server gave out and the caller passes back, not the connection's
    // MCP session identity (the map is another rule's hazard).
    `${header}const recordings = new Map<string, string[]>();
server.registerTool('end', { inputSchema: {} }, async ({ sessionId }) => { recordings.get(sessionId); return { content: [] }; });`,
    // A per-call map keyed by session id.
    `${header}server.registerTool('n', { inputSchema: {} }, async (args, extra) => { const m = new Map(); m.set(extra.sessionId, 1); return { content: [] }; });`,
  ],
  invalid: [
    {
      code: `${header}const notes = new Map<string, string[]>();
server.registerTool('add', { inputSchema: {} }, async ({ note }, extra) => {
  notes.set(extra.sessionId!, [note]);
  return { content: [] };
});`,
      errors: [{ messageId: 'sessionKeyed', line: 5, column: 3 }],
    },
    {
      // A helper whose parameter is named for the session, behind an imported wrapper around the dispatcher.
      code: `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { withTelemetry } from './telemetry.js';
const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
const intervals = new Map<string, unknown>();
function track(sessionId: string) {
  intervals.set(sessionId, setInterval(() => {}, 1000));
}
server.setRequestHandler(CallToolRequestSchema, withTelemetry(async (request, extra) => {
  track(extra.sessionId!);
  return { content: [] };
}));`,
      errors: [{ messageId: 'sessionKeyed', line: 7, column: 3 }],
    },
    {
      // One report per map and handler, however many lookups.
      code: `${header}const counters = new Map<string, number>();
server.registerTool('inc', { inputSchema: {} }, async (_a, extra) => {
  const n = (counters.get(extra.sessionId!) ?? 0) + 1;
  counters.set(extra.sessionId!, n);
  return { content: [{ type: 'text', text: String(counters.get(extra.sessionId!)) }] };
});`,
      errors: [{ messageId: 'sessionKeyed', line: 5, column: 14 }],
    },
    {
      // Derived through a local, read side.
      code: `${header}const carts: Record<string, string[]> = {};
server.registerTool('list', { inputSchema: {} }, async (_a, extra) => {
  const sid = extra.sessionId ?? 'default';
  return { content: [{ type: 'text', text: (carts[sid] ?? []).join() }] };
});`,
      errors: [{ messageId: 'sessionKeyed', line: 6, column: 45 }],
    },
    {
      // SDK v2: ctx.sessionId; no-input tool receives ctx first.
      code: `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 't', version: '1' });
const seen = new Set<string>();
server.registerTool('hello', { description: 'no input' }, async (ctx) => {
  seen.add(ctx.sessionId!);
  return { content: [] };
});`,
      errors: [{ messageId: 'sessionKeyed', line: 5, column: 3 }],
    },
    {
      // fastmcp: context.session as a WeakMap key.
      code: `import { FastMCP } from 'fastmcp';
const server = new FastMCP({ name: 'f', version: '1.0.0' });
const prefs = new WeakMap<object, string>();
server.addTool({ name: 'pref', parameters: schema, execute: async (args, context) => { prefs.set(context.session, args.v); return 'ok'; } });
declare const schema: any;`,
      errors: [{ messageId: 'sessionKeyed', line: 4, column: 88 }],
    },
  ],
});
