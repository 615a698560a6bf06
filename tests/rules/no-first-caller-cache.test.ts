import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/no-first-caller-cache.js';

const ruleTester = new RuleTester();
const header = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
const server = new McpServer({ name: 't', version: '1' });
declare function connect(opts: unknown): Promise<any>;
`;


/** A long-lived agent whose client is filled lazily in an accessor; `body` is its start-up method. */
function accessorServer(body: string): string {
  return `${header}class Agent {
  token = '';
  _client: any;
  get client() {
    if (!this._client) this._client = connect({ token: this.token });
    return this._client;
  }
  start() {
${body}
  }
}`;
}

ruleTester.run('no-first-caller-cache', rule, {
  valid: [
    // A memo of the server's own configuration (strict options): plain data from process.env, literals, a parsed file
    // the server ships, or what a same-module loader returns from those. Every caller would compute the same value.
    {
      code: `${header}interface Settings { dataDir: string; debug: boolean }
let settings: Settings | null = null;
function getSettings(): Settings {
  if (!settings) settings = { dataDir: process.env.DATA_DIR ?? '/srv/data', debug: process.env.DEBUG === '1' };
  return settings;
}
server.tool('info', {}, async () => ({ content: [{ type: 'text', text: getSettings().dataDir }] }));`,
      options: [{ reportConfigOnly: true }],
    },
    {
      code: `${header}import { readFileSync } from 'node:fs';
import { join } from 'node:path';
let version: string | null = null;
function loadConfig() {
  const port = Number(process.env.PORT ?? '8080');
  return { port, hosts: (process.env.HOSTS ?? '').split(','), tags: ['a', \`b-\${port}\`] };
}
let config: ReturnType<typeof loadConfig> | undefined;
server.tool('about', {}, async () => {
  if (version === null) version = JSON.parse(readFileSync(join(__dirname, 'package.json'), 'utf8')).version;
  config ??= loadConfig();
  return { content: [{ type: 'text', text: \`\${version} \${config.port}\` }] };
});`,
      options: [{ reportConfigOnly: true }],
    },
    // An empty collection made on first use holds nothing of the first caller's: what is later put in it is another
    // rule's (no-module-accumulator). A cache map made lazily under a stateful name, and (strict options) a lowdb-style
    // document store's list.
    `${header}let sessionCache: Map<string, string> | undefined;
server.tool('open', {}, async ({ id }) => {
  sessionCache ??= new Map();
  return { content: [{ type: 'text', text: String(sessionCache.has(id)) }] };
});`,
    {
      code: `${header}declare function openDb(file: string): { data: { todos?: string[] }; write(): Promise<void> };
const db = openDb('db.json');
server.tool('add', {}, async ({ text }) => {
  if (!db.data.todos) db.data.todos = [];
  return { content: [{ type: 'text', text: String(db.data.todos.length) }] };
});`,
      options: [{ reportConfigOnly: true }],
    },
    // Configuration read once from a path the operator sets: "current" qualifies it, it holds nothing of a caller's.
    `${header}import { readFileSync } from 'node:fs';
let currentConfig: { allow: string[] } | null = null;
function loadConfig() { return JSON.parse(readFileSync(process.env.CFG_PATH ?? '/etc/shell.json', 'utf8')); }
server.tool('run', {}, async ({ cmd }) => {
  currentConfig = currentConfig ?? loadConfig();
  return { content: [{ type: 'text', text: String(currentConfig!.allow.includes(cmd)) }] };
});`,
    // Not a cache: the block only logs, and every call replaces the browser (a "current" value, another rule's).
    `${header}let browser: any;
declare function log(m: string): void;
server.tool('goto', {}, async ({ url }) => {
  if (browser) {
    log('replacing');
  }
  browser = await connect({ headless: true });
  await browser.goto(url);
  return { content: [] };
});`,
    // A lazy accessor read only at start-up: the fill happens before any call.
    {
      code: accessorServer(`    const ready = this.client;
    console.error('connecting', ready);
    server.tool('query', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));`),
      options: [{ reportConfigOnly: true }],
    },
    // A once-flag under its own absence test keeps nothing a call made (a reset of a cache, `session = undefined`,
    // is still reported with its fill: it often ends the shared value because of one caller's input).
    {
      code: `${header}let pingerStarted = false;
server.tool('run', {}, async () => {
  if (!pingerStarted) {
    pingerStarted = true;
    setInterval(() => {}, 1000);
  }
  return { content: [] };
});`,
      options: [{ reportConfigOnly: true }],
    },
    // Built once at start-up from server configuration.
    `${header}const client = await connect({ token: process.env.TOKEN });
server.tool('q', {}, async () => ({ content: [{ type: 'text', text: await client.get() }] }));`,
    // Built per call.
    `${header}server.tool('q', {}, async ({ token }) => { const client = await connect({ token }); return { content: [] }; });`,
    // A lazy client from server configuration with a neutral name (recommended default).
    `${header}let octokit: any;
function getClient() { if (!octokit) octokit = connect({ auth: process.env.GITHUB_TOKEN }); return octokit; }
server.tool('q', {}, async () => { await getClient(); return { content: [] }; });`,
    // Lazy init at start-up, outside handlers.
    `${header}let browser: any;
async function init() { browser ??= await connect({}); }
await init();
server.tool('q', {}, async () => ({ content: [] }));`,
  ],
  invalid: [
    // Configuration data with a client inside it is not plain data: the client keeps what the first caller did with it.
    {
      code: `${header}declare class ApiClient { constructor(key?: string); }
let config: { region: string; api: ApiClient } | undefined;
server.tool('call', {}, async () => {
  config ??= { region: process.env.REGION ?? 'eu', api: new ApiClient(process.env.API_KEY) };
  return { content: [{ type: 'text', text: config.region }] };
});`,
      options: [{ reportConfigOnly: true }],
      errors: [{ messageId: 'firstCall', line: 7, column: 3 }],
    },
    // The same accessor read by handler code (`this.client` runs `get client()`): the first call fills it.
    {
      code: accessorServer(`    server.tool('query', {}, async () => ({ content: [{ type: 'text', text: await this.client.search('q') }] }));`),
      options: [{ reportConfigOnly: true }],
      errors: [{ messageId: 'firstCall', line: 8, column: 24 }],
    },
    {
      code: `${header}let backend: Promise<any> | undefined;
server.tool('run', {}, async () => {
  if (!backend) {
    const p = connect({});
    p.catch(() => { if (backend === p) backend = undefined; });
    backend = p;
  }
  return { content: [{ type: 'text', text: String(await backend) }] };
});`,
      options: [{ reportConfigOnly: true }],
      errors: [
        { messageId: 'firstCall', line: 8, column: 40 },
        { messageId: 'firstCall', line: 9, column: 5 },
      ],
    },
    // The absence test kept in a local constant first: the same lazy fill.
    {
      code: `${header}let session: any;
server.tool('nav', {}, async () => {
  const needsNew = !session;
  if (needsNew) session = await connect({});
  return { content: [{ type: 'text', text: String(session) }] };
});`,
      errors: [{ messageId: 'firstCall', line: 7, column: 17 }],
    },
    {
      code: `${header}let apiClient: any = null;
server.tool('q', {}, async ({ token }) => {
  if (!apiClient) apiClient = await connect({ token });
  return { content: [] };
});`,
      errors: [{ messageId: 'fromCaller', line: 6, column: 19 }],
    },
    {
      // Credentials from the request context (v1 extra.authInfo).
      code: `${header}let session: any;
server.registerTool('q', { inputSchema: {} }, async (_args, extra) => {
  session ??= await connect(extra.authInfo);
  return { content: [] };
});`,
      errors: [{ messageId: 'fromCaller', line: 6, column: 3 }],
    },
    {
      // A lazily launched browser shared by every caller, behind an early return.
      code: `${header}let browser: any;
async function ensureBrowser() {
  if (browser) return browser;
  browser = await connect({ headless: true });
  return browser;
}
server.tool('goto', {}, async ({ url }) => { const b = await ensureBrowser(); await b.goto(url); return { content: [] }; });`,
      errors: [{ messageId: 'firstCall', line: 7, column: 3 }],
    },
    {
      // The same browser behind a health check: reused while it answers, relaunched (for this caller) when it does not.
      code: `${header}let browser: any;
declare function alive(b: any): Promise<boolean>;
async function ensureBrowser() {
  if (browser) {
    if (await alive(browser)) return browser;
  }
  browser = await connect({ headless: true });
  return browser;
}
server.tool('goto', {}, async ({ url }) => { const b = await ensureBrowser(); await b.goto(url); return { content: [] }; });`,
      errors: [{ messageId: 'firstCall', line: 10, column: 3 }],
    },
    {
      // The noun decides, not the qualifier: a current page filled from configuration still holds a caller's tab.
      code: `${header}let currentPage: any;
server.tool('goto', {}, async ({ url }) => {
  currentPage ??= await connect({ headless: true });
  await currentPage.goto(url);
  return { content: [] };
});`,
      errors: [{ messageId: 'firstCall', line: 6, column: 3 }],
    },
    {
      // strict: any lazy fill in handler code.
      code: `${header}let octokit: any;
server.tool('q', {}, async () => { octokit = octokit || connect({ auth: process.env.GITHUB_TOKEN }); return { content: [] }; });`,
      options: [{ reportConfigOnly: true }],
      errors: [{ messageId: 'firstCall', line: 5, column: 36 }],
    },
  ],
});
