import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/no-module-accumulator.js';

const ruleTester = new RuleTester();

const header = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
const server = new McpServer({ name: 't', version: '1' });
`;


/** A store injected into a handler object's constructor; `make` is start-up code, `handle` the handler's line. */
function storeServer(make: string, handle: string): string {
  return `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
class Store {
  private indexed: string[] = [];
  add(p: string) { this.indexed.push(p); }
  count() { return this.indexed.length; }
}
class Handlers {
  constructor(private store: Store) {}
  index(p: string) { this.store.add(p); return this.store.count(); }
}
${make}const server = new Server({ name: 'idx', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const { path } = req.params.arguments as { path: string };
  ${handle}
  return { content: [{ type: 'text', text: String(n) }] };
});`;
}

/**
 * A memo of an upstream lookup, filed by `store` (the lookup's last lines): `zone` is the key, `region` another
 * argument, `ctx` the caller's credential, `lastZone` a binding handler code reassigns.
 */
function memoServer(store: string): string {
  return `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
const cache = new Map<string, { at: number; data: string }>();
const inFlight = new Map<string, Promise<string>>();
const BASE = process.env.TZ_URL ?? 'https://tz.example.org';
let lastZone = '';
async function lookup(zone: string, region: string, ctx: { token: string }): Promise<string> {
  const hit = cache.get(zone);
  if (hit) return hit.data;
  const pending = inFlight.get(zone);
  if (pending) return pending;
  const p = fetch(\`\${BASE}/\${encodeURIComponent(zone)}\`).then((r) => r.text());
  ${store}
  return p;
}
const server = new McpServer({ name: 'tz', version: '1' });
server.tool('zone_info', { zone: z.string(), region: z.string() }, async ({ zone, region }, extra) => {
  lastZone = zone;
  return { content: [{ type: 'text', text: await lookup(zone, region, { token: String(extra.authInfo?.token) }) }] };
});`;
}

ruleTester.run('no-module-accumulator', rule, {
  valid: [
    // A reply-correlation map: each call files its own resolver under a fresh id and the reply listener (not handler
    // code) takes it out. No handler reads the map.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { randomUUID } from 'node:crypto';
const pending = new Map<string, (v: unknown) => void>();
export function onReply(id: string, value: unknown) { pending.get(id)?.(value); pending.delete(id); }
const server = new McpServer({ name: 't', version: '1' });
server.tool('ask', {}, async () => {
  const answer = await new Promise((resolve) => { const id = randomUUID(); pending.set(id, resolve); process.stdout.write(id); });
  return { content: [{ type: 'text', text: String(answer) }] };
});`,
    // The same, removed by the call itself when it ends.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
const flows = new Map<string, () => void>();
const server = new McpServer({ name: 't', version: '1' });
server.tool('consent', {}, async () => {
  const id = crypto.randomUUID();
  flows.set(id, () => undefined);
  try {
    return { content: [{ type: 'text', text: id }] };
  } finally {
    flows.delete(id);
  }
});`,
    // Handed to a helper that only reads it: nothing of the caller's goes into the Map.
    `${header}const units = new Map<string, number>([['km', 1000]]);
function factor(m: Map<string, number>, u: string) { return m.get(u) ?? 1; }
server.tool('convert', {}, async ({ v, u }: { v: number; u: string }) => ({ content: [{ type: 'text', text: String(v * factor(units, u)) }] }));`,
    // A Map made per call and handed to a helper that fills it: the call's own data.
    `${header}function addNote(m: Map<string, string>, id: string, text: string) { m.set(id, text); }
server.tool('one', {}, async ({ id, text }: { id: string; text: string }) => {
  const notes = new Map<string, string>();
  addNote(notes, id, text);
  return { content: [{ type: 'text', text: [...notes.values()].join() }] };
});`,
    // A store made per call (a class we cannot see), handed to a helper that fills it.
    `${header}import { TaskStore } from './tasks.js';
function addTask(t: TaskStore, id: string) { t.put(id, id); }
server.tool('one', {}, async ({ id }: { id: string }) => { const t = new TaskStore(); addTask(t, id); return { content: [{ type: 'text', text: t.dump() }] }; });`,
    // Keyed by the property the entry is computed from, through an alias.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
const server = new McpServer({ name: 't', version: '1' });
const seen = new Map<string, string>();
function canonical(args: { path: string; content: string }) {
  const key = args.path;
  if (seen.has(key)) return seen.get(key);
  seen.set(key, key.replace(/\\\\/g, '/'));
  return seen.get(args.path);
}
server.tool('norm', { path: z.string(), content: z.string() }, async (args) => ({ content: [{ type: 'text', text: String(canonical(args)) }] }));`,
    // A normalised key (`zone.trim()`) still names everything the entry is computed from.
    memoServer('if (cache.has(zone.trim())) return p;\n  cache.set(zone.trim(), { at: Date.now(), data: zone.toUpperCase() });'),
    // A memo whose entries are computed from their key alone (an upstream lookup and its in-flight de-duplication): a
    // second caller with the same key gets what it would have fetched itself.
    memoServer('inFlight.set(zone, p);\n  try {\n    cache.set(zone, { at: Date.now(), data: await p });\n  } finally {\n    inFlight.delete(zone);\n  }'),
    // A store handed to the constructor of a handler object made for this call: it dies with the call.
    storeServer('', 'const n = new Handlers(new Store()).index(path);'),
    // A start-up log buffer that the session hook only drains: what it holds was put there by no caller.
    `${header}const startup: string[] = [];
function note(m: string) { startup.push(m); }
note('booting');
server.server.oninitialized = () => {
  while (startup.length > 0) console.error(startup.shift());
};
server.tool('t', {}, async () => ({ content: [] }));`,
    // Read-only lookup table.
    `${header}const LEVELS = ['low', 'high'];
server.tool('levels', {}, async () => ({ content: [{ type: 'text', text: LEVELS.join() }] }));`,
    // Filled at start-up only, read by handlers.
    `${header}const defaults: string[] = [];
defaults.push('--fast');
server.tool('flags', {}, async () => ({ content: [{ type: 'text', text: defaults.join() }] }));`,
    // A container created inside the call.
    `${header}server.tool('collect', {}, async (args) => { const chunks: string[] = []; chunks.push('a'); const m = new Map(); m.set('k', 1); return { content: [] }; });`,
    // A Map keyed by the caller's own workspace argument.
    `${header}const busy = new Map<string, boolean>();
server.registerTool('run', { inputSchema: {} }, async ({ workspace }) => { busy.set(workspace, true); busy.delete(workspace); return { content: [] }; });`,
    // A WeakMap keyed by an object made for this call.
    `${header}const meta = new WeakMap<object, number>();
server.tool('w', {}, async (args) => { const req = { at: 1 }; meta.set(req, 1); return { content: [] }; });`,
    // A module function that mutates a container but no handler reaches it.
    `${header}const log: string[] = [];
function onStartup() { log.push('up'); }
onStartup();`,
    // A counter nobody reads in handler code.
    `${header}let calls = 0;
server.tool('ping', {}, async () => { calls++; return { content: [] }; });`,
    // Logging through a logger is not state.
    `${header}const logger = { info(msg: string) { console.error(msg); } };
server.tool('log', {}, async () => { logger.info('x'); return { content: [] }; });`,
    // db.delete on a client object is not an in-memory container.
    `${header}const db = createDb();
server.tool('rm', {}, async ({ id }) => { await db.delete(id); return { content: [] }; });
declare function createDb(): any;`,
    // A client's notification handler (logging messages from the server) is not server state.
    `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
const received: unknown[] = [];
const client = new Client({ name: 'c', version: '1' });
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { received.push(n.params); });`,
    // Server → client notifications never reach a server's handler, whatever object registers them.
    `${header}const progress: unknown[] = [];
server.server.setNotificationHandler('notifications/progress', (n) => { progress.push(n); });`,
    // SDK v2: a server factory handed to serveStdio / createMcpHandler runs per connection or request: its Set is that
    // caller's, not every caller's (a naive checker sees a closure Set mutated by handlers).
    `import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
function buildServer() {
  const subscribed = new Set<string>();
  const server = new McpServer({ name: 't', version: '1' });
  server.setRequestHandler('resources/subscribe', async (req) => { subscribed.add(req.params.uri); return {}; });
  return server;
}
void serveStdio(buildServer);
export const handler = createMcpHandler(buildServer);`,
    // A factory that takes the SDK's per-request context is one server per request, even when it is only exported.
    `import { McpServer, type McpRequestContext } from '@modelcontextprotocol/server';
export function buildServer(ctx: McpRequestContext) {
  const seen = new Set<string>();
  const server = new McpServer({ name: 't', version: '1' });
  server.registerTool('mark', { inputSchema: {} }, async ({ id }) => { seen.add(id); return { content: [] }; });
  return server;
}`,
    // A class with a storage-like name whose body is here is analysed method by method (reported in the class when
    // long-lived), not by its name at the call site.
    `${header}class NoteRegistry { add(x: string) { return x.length; } }
const notes = new NoteRegistry();
server.tool('n', {}, async ({ x }) => { notes.add(x); return { content: [] }; });`,
    // A manager class from another module that handlers only read from (no method that files or removes data).
    `${header}import { SessionManager } from './sessions.js';
const sessions = new SessionManager();
server.tool('peek', {}, async ({ id }) => ({ content: [{ type: 'text', text: String(sessions.getSession(id)) }] }));`,
    // A counter whose value never leaves the statement (a plain tally nobody reads).
    `${header}let hits = 0;
server.tool('hit', {}, async () => { hits++; hits += 1; return { content: [] }; });`,
    // Not an MCP handler at all.
    `const items: number[] = [];
export function add(n: number) { items.push(n); }`,
  ],
  invalid: [
    {
      // Fresh ids, but a tool reads the store back by the id a caller passes: any caller holding an id sees that task.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { randomUUID } from 'node:crypto';
const tasks = new Map<string, string>();
const server = new McpServer({ name: 't', version: '1' });
server.tool('start', {}, async ({ prompt }: { prompt: string }) => { const id = randomUUID(); tasks.set(id, prompt); return { content: [{ type: 'text', text: id }] }; });
server.tool('get', {}, async ({ id }: { id: string }) => ({ content: [{ type: 'text', text: String(tasks.get(id)) }] }));`,
      errors: [{ messageId: 'accumulator', line: 5, column: 95, suggestions: null }],
    },
    {
      // A manager or connection registry from another module (its body is not here): filing data through its
      // \`add…\`/\`remove…\` methods changes one object every caller reaches.
      code: `${header}import { ConnectionManager } from './connections.js';
const connections = new ConnectionManager();
server.tool('connect', {}, async ({ name, url }) => { connections.addConnection(name, url); return { content: [] }; });
server.tool('query', {}, async ({ name }) => ({ content: [{ type: 'text', text: String(connections.getConnection(name)) }] }));`,
      errors: [{ messageId: 'accumulator', line: 5, column: 55, suggestions: null }],
    },
    {
      // Keyed by one property, filled from another: the entry is the caller's content (looked up first or not).
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
const server = new McpServer({ name: 't', version: '1' });
const seen = new Map<string, string>();
function canonical(args: { path: string; content: string }) {
  seen.set(args.path, args.content);
  return seen.get(args.path);
}
server.tool('norm', { path: z.string(), content: z.string() }, async (args) => ({ content: [{ type: 'text', text: String(canonical(args)) }] }));`,
      errors: [{ messageId: 'accumulator', line: 6, column: 3, suggestions: null }],
    },
    {
      // An entry that also depends on another argument is that caller's.
      code: memoServer('cache.set(zone, { at: Date.now(), data: region });'),
      errors: [{ messageId: 'accumulator', line: 13, column: 3, suggestions: null }],
    },
    {
      // An entry that holds the caller's credential is that caller's.
      code: memoServer('cache.set(zone, { at: Date.now(), data: ctx.token });'),
      errors: [{ messageId: 'accumulator', line: 13, column: 3, suggestions: null }],
    },
    {
      // A binding that handler code reassigns is whoever called last.
      code: memoServer('cache.set(zone, { at: Date.now(), data: lastZone });'),
      errors: [{ messageId: 'accumulator', line: 13, column: 3, suggestions: null }],
    },
    // The same store handed to a handler object made once at start-up (`constructor(private store: Store)`): every
    // caller's path lands in one list.
    {
      code: storeServer('const handlers = new Handlers(new Store());\n', 'const n = handlers.index(path);'),
      errors: [{ messageId: 'accumulator', line: 5, column: 20 }],
    },
    // The drain's look-alike: a queue that one tool fills and another drains carries a caller's job to another caller.
    {
      code: `${header}const jobs: string[] = [];
server.tool('enqueue', {}, async (args: { job: string }) => { jobs.push(args.job); return { content: [] }; });
server.tool('next', {}, async () => ({ content: [{ type: 'text', text: jobs.shift() ?? '' }] }));`,
      errors: [
        { messageId: 'accumulator', line: 4, column: 63 },
        { messageId: 'accumulator', line: 5, column: 72 },
      ],
    },
    // Tools registered in a loop over a command table, in both spellings: each handler is found, under its key.
    {
      code: `${header}const history: string[] = [];
const TOOLS = {
  remember: { handler: async (args: { q: string }) => { history.push(args.q); return { content: [] }; } },
  recall: { handler: async () => ({ content: [{ type: 'text' as const, text: history.join() }] }) },
};
Object.entries(TOOLS).forEach(([name, tool]) => server.tool(name, {}, tool.handler));`,
      errors: [{ messageId: 'accumulator', line: 5, column: 57, data: { binding: '`history` is module-level, shared by every caller', handler: "tool 'remember'", what: 'history.push(…)' }, suggestions: null }],
    },
    {
      code: `${header}const history: string[] = [];
const TOOLS = {
  remember: async (args: { q: string }) => { history.push(args.q); return { content: [] }; },
  recall: async () => ({ content: [{ type: 'text' as const, text: history.join() }] }),
};
for (const [name, handler] of Object.entries(TOOLS)) server.registerTool(name, { inputSchema: {} }, handler);`,
      errors: [{ messageId: 'accumulator', line: 5, column: 46, data: { binding: '`history` is module-level, shared by every caller', handler: "tool 'remember'", what: 'history.push(…)' }, suggestions: null }],
    },
    // A factory whose body is wrapped in `try`: the block's bindings still live as long as the server it builds.
    {
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export function createServer() {
  try {
    const server = new McpServer({ name: 't', version: '1' });
    const seen: string[] = [];
    server.tool('add', {}, async (args: { q: string }) => { seen.push(args.q); return { content: [{ type: 'text', text: seen.join() }] }; });
    return server;
  } catch (e) { throw e; }
}`,
      errors: [{ messageId: 'accumulator', line: 6, column: 61, data: { binding: '`seen` lives in `createServer()`, shared by every call on this server instance', handler: "tool 'add'", what: 'seen.push(…)' }, suggestions: null }],
    },
    {
      // String(nextId++) hands the counter to the caller: every caller sees how many came before it.
      code: `${header}let nextId = 1;
server.tool('add', {}, async () => ({ content: [{ type: 'text', text: String(nextId++) }] }));`,
      errors: [{ messageId: 'accumulator', line: 4, column: 78, suggestions: null }],
    },
    {
      // A module-level instance of a storage class from a package: its store methods keep every caller's data.
      code: `import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
${header}const taskStore = new InMemoryTaskStore();
server.tool('collect', {}, async ({ answer }) => { await taskStore.storeTaskResult('t1', 'completed', { answer }); return { content: [] }; });`,
      errors: [{ messageId: 'accumulator', line: 5, column: 58, suggestions: null }],
    },
    {
      // createMcpHandler runs its factory per request: a module counter it bumps counts every caller's requests.
      code: `import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
let requests = 0;
function buildServer() {
  requests++;
  const server = new McpServer({ name: 't', version: '1' });
  server.registerTool('count', { inputSchema: {} }, async () => ({ content: [{ type: 'text', text: String(requests) }] }));
  return server;
}
export const handler = createMcpHandler(buildServer);`,
      errors: [{ messageId: 'accumulator', line: 4, column: 3, suggestions: null }],
    },
    {
      // Writes into an entry found by key belong to the map's hazard: one report, at the map's own mutation, not a
      // first-caller cache on each guarded field write.
      code: `${header}const jobs = new Map<string, { note?: string }>();
server.tool('note', {}, async ({ id, note }) => {
  const job = jobs.get(id)!;
  if (!job.note) job.note = note;
  jobs.set(id, job);
  return { content: [] };
});`,
      errors: [{ messageId: 'accumulator', line: 7, column: 3, suggestions: null }],
    },
    {
      // One report per container and handler, at the first mutation.
      code: `${header}const events: string[] = [];
server.tool('ev', {}, async ({ a, b }) => {
  events.push(a);
  events.push(b);
  return { content: [] };
});`,
      errors: [
        {
          messageId: 'accumulator',
          line: 5,
          column: 3,
          // Used by this handler alone: it can start empty in each call.
          suggestions: [
            {
              messageId: 'perCall',
              data: { name: 'events' },
              output: `${header}server.tool('ev', {}, async ({ a, b }) => {
  const events: string[] = [];
  events.push(a);
  events.push(b);
  return { content: [] };
});`,
            },
          ],
        },
      ],
    },
    {
      code: `${header}const history: string[] = [];
server.tool('think', { t: z.string() }, async ({ t }) => {
  history.push(t);
  return { content: [] };
});`,
      errors: [
        {
          messageId: 'accumulator',
          line: 5,
          column: 3,
          suggestions: [
            {
              messageId: 'perCall',
              data: { name: 'history' },
              output: `${header}server.tool('think', { t: z.string() }, async ({ t }) => {
  const history: string[] = [];
  history.push(t);
  return { content: [] };
});`,
            },
          ],
        },
      ],
    },
    {
      // Through a helper the handler calls, and through an alias.
      code: `${header}const log: string[] = [];
function record(x: string) {
  const l = log;
  l.push(x);
}
server.registerTool('rec', { inputSchema: {} }, async ({ x }) => { record(x); return { content: [] }; });`,
      // Used through a helper: moving it into the handler would not reach the helper, so no suggestion.
      errors: [{ messageId: 'accumulator', line: 6, column: 3, data: { binding: '`log` is module-level, shared by every caller', handler: "tool 'rec'", what: 'log.push(…)' }, suggestions: null }],
    },
    {
      // Two handlers share the map: no per-call suggestion (each would get its own, which changes what they share).
      code: `${header}const tags = new Map<string, string>();
server.tool('tag', {}, async ({ k, v }) => { tags.set(k, v); return { content: [] }; });
server.tool('untag', {}, async ({ k }) => { tags.delete(k); return { content: [] }; });`,
      errors: [
        { messageId: 'accumulator', line: 4, column: 46, suggestions: null },
        { messageId: 'accumulator', line: 5, column: 45, suggestions: null },
      ],
    },
    {
      // Counter map written with a key the caller does not own, and spread-reassign.
      code: `${header}const counts: Record<string, number> = {};
let seen: string[] = [];
server.tool('hit', {}, async ({ url }) => {
  counts[url] = (counts[url] ?? 0) + 1;
  seen = [...seen, url];
  return { content: [{ type: 'text', text: String(seen.length) }] };
});`,
      errors: [
        {
          messageId: 'accumulator',
          line: 6,
          column: 3,
          suggestions: [
            {
              messageId: 'perCall',
              data: { name: 'counts' },
              output: `${header}let seen: string[] = [];
server.tool('hit', {}, async ({ url }) => {
  const counts: Record<string, number> = {};
  counts[url] = (counts[url] ?? 0) + 1;
  seen = [...seen, url];
  return { content: [{ type: 'text', text: String(seen.length) }] };
});`,
            },
          ],
        },
        {
          messageId: 'accumulator',
          line: 7,
          column: 3,
          suggestions: [
            {
              messageId: 'perCall',
              data: { name: 'seen' },
              output: `${header}const counts: Record<string, number> = {};
server.tool('hit', {}, async ({ url }) => {
  let seen: string[] = [];
  counts[url] = (counts[url] ?? 0) + 1;
  seen = [...seen, url];
  return { content: [{ type: 'text', text: String(seen.length) }] };
});`,
            },
          ],
        },
      ],
    },
    {
      // Low-level server with a dispatcher: the report names the routed tool.
      code: `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
const store = new Map<string, string>();
function save(args: any) { store.set(args.key, args.value); return { content: [] }; }
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  switch (request.params.name) {
    case 'save':
      return save(request.params.arguments);
    default:
      throw new Error('unknown');
  }
});`,
      errors: [{ messageId: 'accumulator', line: 5, column: 28 }],
    },
    {
      // A module-level Map handed to a helper that files the caller's entry in it (`m.set`): the call is the crossing.
      code: `${header}const notes = new Map<string, string>();
function addNote(m: Map<string, string>, id: string, text: string) { m.set(id, text); }
server.tool('add', {}, async ({ id, text }: { id: string; text: string }) => {
  addNote(notes, id, text);
  return { content: [] };
});`,
      errors: [{ messageId: 'accumulator', line: 6, column: 3 }],
    },
    {
      // A store made once per server (a class we cannot see) handed to handlers looked up in a table.
      code: `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { TaskStore } from './tasks.js';
async function addTask(args: { id: string; title: string }, tasks: TaskStore) { tasks.put(args.id, args.title); return { content: [] }; }
async function listTasks(_args: unknown, tasks: TaskStore) { return { content: [{ type: 'text', text: tasks.dump() }] }; }
const table: Record<string, (a: any, t: TaskStore) => Promise<unknown>> = { add_task: addTask, list_tasks: listTasks };
export function createServer() {
  const tasks = new TaskStore();
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => table[params.name](params.arguments, tasks));
  return server;
}`,
      errors: [{ messageId: 'accumulator', line: 10, column: 73 }],
    },
    {
      // fastmcp execute, factory scope.
      code: `import { FastMCP } from 'fastmcp';
export function build() {
  const server = new FastMCP({ name: 'f', version: '1.0.0' });
  const seen = new Set<string>();
  server.addTool({ name: 'see', parameters: schema, execute: async (args) => { seen.add(args.id); return 'ok'; } });
  return server;
}
declare const schema: any;`,
      errors: [{ messageId: 'accumulator', line: 5, column: 80 }],
    },
  ],
});
