import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/no-fixed-path-io.js';

const ruleTester = new RuleTester();
// Four lines: reports in the cases below start at line 5.
const header = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import os from 'node:os';
const server = new McpServer({ name: 't', version: '1' });
`;

/** A server whose tools are handler objects kept in a Map, both touching `target`. */
function queueServer(target: string): string {
  return `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import fs from 'node:fs/promises';
import path from 'node:path';
const PENDING = path.join(process.cwd(), 'pending.txt');
class Enqueue {
  async handle(args: { url: string; workspace: string }) {
    await fs.appendFile(${target}, args.url);
    return { content: [] };
  }
}
class Show {
  async handle(args: { workspace: string }) {
    return { content: [{ type: 'text', text: await fs.readFile(${target}, 'utf8') }] };
  }
}
const server = new Server({ name: 'q', version: '1' }, { capabilities: { tools: {} } });
const handlers = new Map<string, { handle(a: any): Promise<unknown> }>();
handlers.set('enqueue', new Enqueue());
handlers.set('show_queue', new Show());
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const h = handlers.get(request.params.name);
  if (!h) throw new Error('unknown tool');
  return h.handle(request.params.arguments);
});`;
}

ruleTester.run('no-fixed-path-io', rule, {
  valid: [
    // Stores: an in-memory database, one that handlers only read (reference data shipped with the server), one opened per
    // call under the caller's workspace, an insert-only audit log, and a local class that happens to be called Database.
    `${header}import Database from 'better-sqlite3';
const mem = new Database(':memory:');
const ref = new Database('/usr/share/dict/words.db', { readonly: true });
const audit = new Database('audit.db');
server.tool('lookup', { q: z.string() }, async ({ q }) => {
  mem.prepare('INSERT INTO seen VALUES (?)').run(q);
  const rows = mem.prepare('SELECT * FROM seen').all();
  const words = ref.prepare('SELECT * FROM words WHERE w = ?').all(q);
  audit.prepare('INSERT INTO log (q) VALUES (?)').run(q);
  return { content: [{ type: 'text', text: JSON.stringify([rows, words]) }] };
});`,
    `${header}import Database from 'better-sqlite3';
import path from 'node:path';
server.tool('add', { workspace: z.string(), text: z.string() }, async ({ workspace, text }) => {
  const db = new Database(path.join(workspace, 'notes.db'));
  db.prepare('INSERT INTO notes (text) VALUES (?)').run(text);
  return { content: [{ type: 'text', text: JSON.stringify(db.prepare('SELECT * FROM notes').all()) }] };
});`,
    `${header}class Database { constructor(readonly file: string) {} rows: string[] = []; run(x: string) { this.rows.push(x); } all() { return this.rows; } }
const db = new Database('notes.db');
server.tool('add', { text: z.string() }, async ({ text }) => {
  db.run(text);
  return { content: [{ type: 'text', text: db.all().join() }] };
});`,
    // Handler objects in a Map dispatched by tool name, each file under the caller's workspace (the invalid twin below).
    queueServer("path.join(args.workspace, 'pending.txt')"),
    // A constant file name joined under the caller's workspace.
    `${header}import { writeFile } from 'node:fs/promises';
import path from 'node:path';
server.tool('save', { workspace: z.string(), text: z.string() }, async ({ workspace, text }) => {
  await writeFile(path.join('/srv/runs', workspace, 'out.txt'), text);
  return { content: [] };
});`,
    // A read-only asset read from a fixed path at start-up, and again (read only) in a handler.
    `${header}import { readFileSync } from 'node:fs';
const TEMPLATE = readFileSync(new URL('./template.html', import.meta.url), 'utf8');
server.tool('render', {}, async () => ({ content: [{ type: 'text', text: TEMPLATE + readFileSync('/etc/motd', 'utf8') }] }));`,
    // A per-call temp dir (mkdtemp inside the call) and random names.
    `${header}import { mkdtemp, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
server.tool('scratch', {}, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'job-'));
  await writeFile(path.join(dir, 'out.json'), '{}');
  await writeFile(path.join(os.tmpdir(), \`\${randomUUID()}.json\`), '{}');
  return { content: [] };
});`,
    // Start-up writes to a fixed path are configuration, not a per-call hazard.
    `${header}import fs from 'node:fs';
fs.writeFileSync('/tmp/server.pid', String(process.pid));
server.tool('t', {}, async () => ({ content: [] }));`,
    // A local named fs / path that is not the module.
    `${header}server.tool('t', {}, async () => {
  const fs = { writeFile: (p: string, d: string) => [p, d] };
  const path = { join: (...a: string[]) => a.join('/') };
  fs.writeFile(path.join('/tmp', 'x'), 'y');
  return { content: [] };
});`,
    // Writes inside page.evaluate run in the browser.
    `${header}declare const page: { evaluate(fn: () => void): Promise<void> };
server.tool('t', {}, async () => {
  await page.evaluate(() => { localStorage.setItem('k', 'v'); });
  return { content: [] };
});`,
    // Output thrown away on the null device, POSIX or Windows (`2>nul`, `> NUL`): nothing is kept to read back.
    `${header}import { execSync } from 'node:child_process';
server.tool('t', {}, async () => {
  const a = execSync('reg query HKCU\\\\Software\\\\Chrome 2>nul');
  const b = execSync('where chrome > NUL 2>&1');
  const c = execSync('which chromium 2>/dev/null');
  return { content: [{ type: 'text', text: String(a) + String(b) + String(c) }] };
});`,
    // A shell redirection relative to a per-call cwd.
    `${header}import { execSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
server.tool('t', {}, async () => {
  const dir = mkdtempSync(os.tmpdir() + '/x-');
  execSync('echo hi > out.txt', { cwd: dir, env: { ...process.env, HOME: dir, TMPDIR: dir } });
  return { content: [] };
});`,
    // An append-only server log that no tool reads back, and creating a fixed directory (learned from a real command
    // runner that logs every call under $HOME): nothing crosses between callers.
    `${header}import fs from 'node:fs';
const LOG_DIR = process.env.HOME + '/.local/share/runner/';
server.tool('run', { cmd: z.string() }, async ({ cmd }) => {
  fs.mkdirSync(LOG_DIR, { recursive: true });
  fs.appendFileSync(LOG_DIR + 'commands.log', cmd + '\\n');
  return { content: [] };
});`,
    // Learned from a desktop-automation server: a long-lived logger that checks its file exists (access) and appends
    // to it; an existence check is not a read-back.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import os from 'node:os';
const server = new McpServer({ name: 't', version: '1' });
import { promises as fs } from 'node:fs';
import path from 'node:path';
class EditLog {
  private file = path.join(os.homedir(), '.tool', 'edits.tsv');
  async record(line: string) {
    try { await fs.access(this.file); } catch { await fs.mkdir(path.dirname(this.file), { recursive: true }); }
    await fs.appendFile(this.file, line + '\\n');
  }
}
const editLog = new EditLog();
server.tool('edit', { file: z.string() }, async ({ file }) => {
  await editLog.record(file);
  return { content: [] };
});`,
    // A screenshot and a PDF saved under a per-call directory; a screenshot with no path (returned as bytes); a file
    // name from the caller's choice among formats, under the caller's workspace.
    `${header}import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
declare const page: { pdf(o: { path?: string }): Promise<Buffer>; screenshot(o?: { path?: string; type?: string }): Promise<Buffer> };
server.tool('capture', { workspace: z.string(), format: z.enum(['png', 'jpeg']) }, async ({ workspace, format }) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cap-'));
  await page.pdf({ path: path.join(dir, 'page.pdf') });
  const bytes = await page.screenshot({ type: format });
  const opts: { path?: string } = {};
  opts.path = path.join('/srv/runs', workspace, \`shot.\${format}\`);
  await page.screenshot(opts);
  return { content: [{ type: 'text', text: bytes.toString('base64') }] };
});`,
    // A browser profile and a trace under the caller's workspace; a trace stopped without a path; another stop(…).
    `${header}import path from 'node:path';
declare const chromium: { launchPersistentContext(dir: string, o?: object): Promise<{ tracing: { stop(o?: { path?: string }): Promise<void> } }> };
declare const timer: { stop(o: { path: string }): void };
server.tool('trace', { workspace: z.string() }, async ({ workspace }) => {
  const ctx = await chromium.launchPersistentContext(path.join('/srv/runs', path.basename(workspace), 'profile'));
  await ctx.tracing.stop({ path: path.join('/srv/runs', path.basename(workspace), 'trace.zip') });
  await ctx.tracing.stop();
  timer.stop({ path: '/tmp/timer' });
  return { content: [] };
});`,
    // strict (reportAllReads): system files and the operator's config file are not a caller's data.
    {
      code: `${header}import { readFileSync } from 'node:fs';
const CONFIG = process.env.TOOL_CONFIG ?? '/etc/tool/config.json';
server.tool('info', {}, async () => ({ content: [{ type: 'text', text: readFileSync('/proc/1/cgroup', 'utf8') + readFileSync(CONFIG, 'utf8') }] }));`,
      options: [{ reportAllReads: true }],
    },
    // strict (reportAllReads): a bundled doc next to the server's source is the server's asset, not a caller's data.
    {
      code: `${header}import { readFileSync } from 'node:fs';
import path from 'node:path';
const DOCS = path.join(__dirname, 'docs');
server.tool('doc', { name: z.enum(['intro', 'usage']) }, async ({ name }) => ({ content: [{ type: 'text', text: readFileSync(path.join(DOCS, \`\${name}.md\`), 'utf8') }] }));`,
      options: [{ reportAllReads: true }],
    },
    // A path from an imported helper is not followed (never a guess that reports).
    `${header}import { writeFile } from 'node:fs/promises';
import { outputPathFor } from './paths.js';
server.tool('t', {}, async () => { await writeFile(outputPathFor('x'), ''); return { content: [] }; });`,
  ],
  invalid: [
    {
      // A "current project" another call set is not this call's own: the file under it is shared by every caller who
      // did not choose differently (no-unguarded-path-join also reports the caller text in it).
      code: `${header}import { writeFile } from 'node:fs/promises';
import path from 'node:path';
let activeProject = 'default';
function projectDir() {
  return path.join('/srv/tasks', activeProject);
}
server.tool('select_project', { project: z.string() }, async ({ project }) => { activeProject = project; return { content: [] }; });
server.tool('add_task', { title: z.string() }, async ({ title }) => {
  await writeFile(path.join(projectDir(), 'tasks.json'), title);
  return { content: [] };
});`,
      errors: [{ messageId: 'fixedWrite', line: 13, column: 19, suggestions: null }],
    },
    {
      // A path under the home directory or, without HOME, the working directory: the reason names both places.
      code: `${header}import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
const FILE = path.join(process.env.HOME || process.cwd(), '.todos', 'todos.json');
server.tool('add', {}, async ({ text }: { text: string }) => {
  const list = JSON.parse(await readFile(FILE, 'utf8'));
  await writeFile(FILE, JSON.stringify([...list, text]));
  return { content: [] };
});`,
      errors: [
        { messageId: 'fixedReadBack', line: 9, column: 42, data: { handler: "tool 'add'", path: 'FILE', reason: "it is under the server's home directory or under the server's working directory" } },
        { messageId: 'fixedWrite', line: 10, column: 19, suggestions: null, data: { handler: "tool 'add'", verb: 'writes', path: 'FILE', reason: "it is under the server's home directory or under the server's working directory" } },
      ],
    },
    {
      // One database next to the server's source: one tool inserts, another selects.
      code: `${header}import Database from 'better-sqlite3';
import path from 'node:path';
const db = new Database(path.join(__dirname, 'todos.db'));
db.exec('CREATE TABLE IF NOT EXISTS todos (text TEXT)');
server.tool('add', { text: z.string() }, async ({ text }) => {
  db.prepare('INSERT INTO todos (text) VALUES (?)').run(text);
  return { content: [] };
});
server.tool('list', {}, async () => ({ content: [{ type: 'text', text: JSON.stringify(db.prepare('SELECT * FROM todos').all()) }] }));`,
      errors: [{ messageId: 'fixedStore', line: 7, column: 25 }],
    },
    {
      // CommonJS sqlite3 with long stack traces, its file named by the environment, opened once by a start-up function.
      code: `${header}const sqlite3 = require('sqlite3').verbose();
let db: any;
function connect() { db = new sqlite3.Database(process.env.NOTES_DB || './notes.db'); }
connect();
server.tool('add', { text: z.string() }, async ({ text }) => {
  await new Promise((done) => db.run('INSERT INTO notes (text) VALUES (?)', [text], done));
  return { content: [] };
});
server.tool('search', { q: z.string() }, async ({ q }) => {
  const rows = await new Promise((done) => db.all('SELECT * FROM notes WHERE text LIKE ?', [q], (_e: unknown, r: unknown) => done(r)));
  return { content: [{ type: 'text', text: JSON.stringify(rows) }] };
});`,
      errors: [{ messageId: 'fixedStore', line: 7, column: 48 }],
    },
    {
      // A lowdb document behind a JSON-file adapter: named by the wrapper handlers use.
      code: `${header}import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
const adapter = new JSONFile<{ todos: string[] }>('db.json');
const db = new Low(adapter, { todos: [] });
server.tool('add', { text: z.string() }, async ({ text }) => {
  await db.read();
  db.data.todos.push(text);
  await db.write();
  return { content: [] };
});`,
      errors: [{ messageId: 'fixedStore', line: 7, column: 51, data: { store: 'db', path: "'db.json'", reason: 'nothing in it depends on the call', handler: "tool 'add'", writeLine: 11, readLine: 10 } }],
    },
    {
      // A repository class holding the database in a field, and a lazily opened one behind a getter function.
      code: `${header}import Database from 'better-sqlite3';
class Notes {
  private db = new Database(os.homedir() + '/.notes.db');
  add(t: string) { this.db.prepare('INSERT INTO notes VALUES (?)').run(t); }
  all() { return this.db.prepare('SELECT * FROM notes').all(); }
}
const notes = new Notes();
let cache: any;
function getDb() { if (!cache) cache = new Database('/var/lib/app/cache.db'); return cache; }
server.tool('add', { text: z.string() }, async ({ text }) => { notes.add(text); getDb().prepare('DELETE FROM hits').run(); return { content: [] }; });
server.tool('all', {}, async () => ({ content: [{ type: 'text', text: JSON.stringify([notes.all(), getDb().prepare('SELECT 1').get()]) }] }));`,
      errors: [
        { messageId: 'fixedStore', line: 7, column: 29 },
        { messageId: 'fixedStore', line: 13, column: 53 },
      ],
    },
    // Handler objects kept in a Map and dispatched by `handlers.get(request.params.name).handle(args)`: each method
    // serves the tool of its key, and both use one queue file.
    {
      code: queueServer('PENDING'),
      errors: [
        { messageId: 'fixedWrite', line: 8, column: 25 },
        { messageId: 'fixedReadBack', line: 14, column: 64 },
      ],
    },
    {
      // Learned from a code runner: one temp file per language (the language is one of a fixed set, the extension
      // does not tell callers apart); a browser page saved to a fixed file name; a download saved to a fixed path.
      code: `${header}import { writeFile } from 'node:fs/promises';
import path from 'node:path';
declare const page: { pdf(o: { path?: string }): Promise<Buffer>; screenshot(o: { path?: string }): Promise<Buffer> };
declare const download: { saveAs(p: string): Promise<void> };
const EXT: Record<string, string> = { python: 'py', node: 'js' };
server.tool('run', { code: z.string(), language: z.enum(['python', 'node']) }, async ({ code, language }) => {
  const file = path.join(os.tmpdir(), \`snippet.\${EXT[language] ?? language}\`);
  await writeFile(file, code);
  await page.pdf({ path: path.join(os.tmpdir(), 'page.pdf') });
  const shot: { path?: string } = {};
  shot.path = path.join(os.tmpdir(), \`shot-\${Date.now()}.png\`);
  await page.screenshot(shot);
  await download.saveAs('/tmp/download.bin');
  return { content: [] };
});`,
      errors: [
        { messageId: 'fixedWrite', line: 12, column: 19, suggestions: null },
        { messageId: 'fixedWrite', line: 13, column: 26, suggestions: null },
        { messageId: 'fixedWrite', line: 16, column: 25, suggestions: null },
        { messageId: 'fixedWrite', line: 17, column: 25, suggestions: null },
      ],
    },
    {
      // A persistent browser profile and a Playwright trace at fixed places under the shared temp dir.
      code: `${header}declare const chromium: { launchPersistentContext(dir: string, o?: object): Promise<{ tracing: { stop(o?: { path?: string }): Promise<void> } }> };
server.tool('browse', {}, async () => {
  const ctx = await chromium.launchPersistentContext(\`\${os.tmpdir()}/chrome-profile\`, { headless: true });
  await ctx.tracing.stop({ path: \`\${os.tmpdir()}/trace-\${Date.now()}.zip\` });
  return { content: [] };
});`,
      errors: [
        { messageId: 'fixedWrite', line: 7, column: 54, suggestions: null },
        { messageId: 'fixedWrite', line: 8, column: 34, suggestions: null },
      ],
    },
    {
      code: `${header}import { writeFileSync, readFileSync } from 'node:fs';
server.tool('save', { text: z.string() }, async ({ text }) => {
  writeFileSync('/tmp/out.txt', text);
  return { content: [] };
});
server.tool('load', {}, async () => ({ content: [{ type: 'text', text: readFileSync('/tmp/out.txt', 'utf8') }] }));`,
      errors: [
        { messageId: 'fixedWrite', line: 7, column: 17, suggestions: null },
        { messageId: 'fixedReadBack', line: 10, column: 85, suggestions: null },
      ],
    },
    {
      // Relative to the server's cwd; fs.promises; fs-extra; a stream; path.join(os.tmpdir(), …).
      code: `${header}import * as fs from 'fs';
import fse from 'fs-extra';
import path from 'path';
const OUT = path.join(os.tmpdir(), 'report.json');
server.tool('report', {}, async () => {
  await fs.promises.writeFile('out.txt', 'x');
  await fse.outputJson(OUT, {});
  fs.createWriteStream(path.join(os.tmpdir(), 'log.txt'));
  return { content: [] };
});`,
      errors: [
        { messageId: 'fixedWrite', line: 10, column: 31, suggestions: null },
        { messageId: 'fixedWrite', line: 11, column: 24, suggestions: null },
        { messageId: 'fixedWrite', line: 12, column: 24, suggestions: null },
      ],
    },
    {
      // Date.now() is not unique across concurrent callers; require() forms; a same-file helper.
      code: `${header}const { writeFile } = require('node:fs/promises');
async function save(name: string, data: string) { await writeFile(name, data); }
server.tool('helm', { values: z.string() }, async ({ values }) => {
  await save(\`/tmp/values-\${Date.now()}.yaml\`, values);
  return { content: [] };
});`,
      errors: [{ messageId: 'fixedWrite', line: 6, column: 67, suggestions: null }],
    },
    {
      // Shell redirections and -o targets in commands.
      code: `${header}import { exec, spawn } from 'node:child_process';
server.tool('run', { cmd: z.string() }, async ({ cmd }) => {
  exec(\`\${cmd} > /tmp/out.txt\`);
  spawn('curl', ['-s', 'https://example.com', '-o', 'page.html'], { shell: true });
  spawn('sh', ['-c', 'ls >> listing.txt']);
  return { content: [] };
});`,
      errors: [
        { messageId: 'fixedShellTarget', line: 7, column: 8, suggestions: null },
        { messageId: 'fixedShellTarget', line: 9, column: 22, suggestions: null },
      ],
    },
    {
      // A long-lived instance's field, read and written by the methods the tools call (the memory-server shape).
      code: `${header}import { promises as fsp } from 'node:fs';
class Store {
  constructor(private file: string) {}
  async load() { return fsp.readFile(this.file, 'utf8'); }
  async save(d: string) { await fsp.writeFile(this.file, d); }
}
const store = new Store(process.env.STORE_PATH ?? 'store.jsonl');
server.tool('add', { item: z.string() }, async ({ item }) => {
  await store.save((await store.load()) + item);
  return { content: [] };
});`,
      errors: [
        { messageId: 'fixedReadBack', line: 8, column: 38, suggestions: null },
        { messageId: 'fixedWrite', line: 9, column: 47, suggestions: null },
      ],
    },
    {
      // An append-only file that a tool reads back is an accumulator shared by every caller.
      code: `${header}import { appendFile, readFile } from 'node:fs/promises';
const HISTORY = os.homedir() + '/.runner/history.jsonl';
server.tool('run', { cmd: z.string() }, async ({ cmd }) => { await appendFile(HISTORY, cmd); return { content: [] }; });
server.tool('history', {}, async () => ({ content: [{ type: 'text', text: await readFile(HISTORY, 'utf8') }] }));`,
      errors: [
        { messageId: 'fixedWrite', line: 7, column: 79, suggestions: null },
        { messageId: 'fixedReadBack', line: 8, column: 90, suggestions: null },
      ],
    },
    {
      // Learned from a Kubernetes server: a values file under /tmp stamped with Date.now(), assigned to a \`let\` and
      // removed after use; the write is reported once (the removal is the same hazard).
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import os from 'node:os';
const server = new McpServer({ name: 't', version: '1' });
import { writeFileSync, unlinkSync } from 'node:fs';
server.tool('install', { values: z.string() }, async ({ values }) => {
  let valuesFile: string | undefined;
  if (values) {
    valuesFile = \`/tmp/values-\${Date.now()}.yaml\`;
    writeFileSync(valuesFile, values);
  }
  if (valuesFile) unlinkSync(valuesFile);
  return { content: [] };
});
`,
      errors: [{ messageId: 'fixedWrite', line: 10, column: 19, suggestions: null }],
    },
    {
      // reportAppends (strict): an append-only log nobody reads back.
      code: `${header}import fs from 'node:fs';
server.tool('run', { cmd: z.string() }, async ({ cmd }) => { fs.appendFileSync('/var/log/runner.log', cmd); return { content: [] }; });`,
      options: [{ reportAppends: true }],
      errors: [{ messageId: 'fixedWrite', line: 6, column: 80, suggestions: null }],
    },
    {
      // reportAllReads (strict): a handler read of a fixed path in the shared temp dir nobody in this file writes.
      code: `${header}import { readFile } from 'node:fs/promises';
server.tool('status', {}, async () => ({ content: [{ type: 'text', text: await readFile(os.tmpdir() + '/job.status', 'utf8') }] }));`,
      options: [{ reportAllReads: true }],
      errors: [{ messageId: 'fixedRead', line: 6, column: 89, suggestions: null }],
    },
  ],
});
