import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/no-unguarded-path-join.js';
import { COMMAND_RUNNER_CWD_FROM_CALLER } from '../fixtures/real-shapes.js';

const ruleTester = new RuleTester();

/** The one report of a reject-first case, with the guard the suggestion writes (at `target`, under `ROOT`). */
function guardSuggested(line: number, column: number, output: string) {
  return [{ messageId: 'unguarded' as const, line, column, suggestions: [{ messageId: 'addGuard' as const, data: { name: 'target', root: 'ROOT' }, output }] }];
}

/** The start of the reject-first cases: a server, a runs root, the filesystem and path modules. */
const REJECT_HEAD = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 'x', version: '1' });
`;

/** Schemas that look like a name restriction and are not (each write's line and what it joins). */
const NAME_LOOKALIKES = REJECT_HEAD + `server.tool('save', { workspace: z.string().regex(/^[\\w.-]+$/), tag: z.string().regex(/[\\w-]+/), ok: z.string().regex(/^\\w+$/), file: z.string() }, async ({ workspace, tag, ok, file }) => {
  writeFileSync(path.join(ROOT, workspace), 'x');
  writeFileSync(path.join(ROOT, tag), 'x');
  writeFileSync(path.join(ROOT, ok, file), 'x');
  return { content: [] };
});`;

/** The report on one of them, with the guard the suggestion writes in place of that line. */
function nameLookalike(line: number, joined: string, args: string) {
  const output = NAME_LOOKALIKES.replace(
    `  writeFileSync(path.join(ROOT, ${joined}), 'x');`,
    `  const target = path.resolve(${args});\n  if (!target.startsWith(path.resolve(ROOT) + path.sep)) throw new Error('target is outside ROOT');\n  writeFileSync(target, 'x');`,
  );
  return { messageId: 'unguarded' as const, line, column: 17, suggestions: [{ messageId: 'addGuard' as const, data: { name: 'target', root: 'ROOT' }, output }] };
}

ruleTester.run('no-unguarded-path-join', rule, {
  valid: [
    // A database opened under the caller's own run directory (a basename under a fixed root), or in memory.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import Database from 'better-sqlite3';
import path from 'node:path';
const server = new McpServer({ name: 'x', version: '1' });
server.tool('q', { workspace: z.string(), sql: z.string() }, async ({ workspace, sql }) => {
  const db = new Database(path.join('/srv/runs', path.basename(workspace), 'data.db'));
  const mem = new Database(':memory:');
  return { content: [{ type: 'text', text: JSON.stringify([db.prepare(sql).all(), mem.prepare(sql).all()]) }] };
});`,
    // fastmcp validates `parameters` before `execute` runs.
    `import { FastMCP } from 'fastmcp';
import { z } from 'zod';
import { readFileSync } from 'node:fs';
import path from 'node:path';
const server = new FastMCP({ name: 'f', version: '1.0.0' });
server.addTool({ name: 'read', parameters: z.object({ run: z.string().regex(/^[a-z0-9-]+$/) }), execute: async ({ run }) => readFileSync(path.join('/srv/runs', run, 'log.txt'), 'utf8') });`,
    // The schema restricts the argument to one name (the SDK validates arguments before the handler runs): a zod
    // pattern that spells neither `..` nor a separator, a uuid, registerTool's inputSchema with args.member.
    REJECT_HEAD + `server.tool('save', { workspace: z.string().min(1).regex(/^[A-Za-z0-9_-]+$/).describe('run id'), run: z.string().uuid() }, async ({ workspace, run }) => {
  writeFileSync(path.join(ROOT, workspace, 'out.txt'), 'x');
  return { content: [{ type: 'text', text: readFileSync(path.join(ROOT, run), 'utf8') }] };
});
server.registerTool('load', { inputSchema: { name: z.string().regex(/^\\w+$/) } }, async (args) => ({ content: [{ type: 'text', text: readFileSync(path.join(ROOT, args.name), 'utf8') }] }));`,
    // The checks run in a block under the same test as the block that uses the path (a pre-flight validation), and an
    // optional argument is checked only when it is given.
    REJECT_HEAD + `server.tool('artifact', { action: z.enum(['list', 'download']), dest: z.string().optional() }, async ({ action, dest }) => {
  if (action === 'download') {
    if (dest && (dest.includes('..') || path.isAbsolute(dest))) throw new Error('relative paths only');
  }
  if (action === 'download') {
    writeFileSync(path.resolve(ROOT, dest ?? 'out'), 'x');
  }
  return { content: [] };
});`,
    // Reject-first checks on the raw argument: an `..` segment and an absolute path are both turned away before
    // the path is built (a helper predicate counts as the check it returns).
    REJECT_HEAD + `const badSegment = (p: string) => p.split(/[\\\\/]+/).some((s) => s === '.' || s === '..');
server.tool('read', { p: z.string() }, async ({ p }) => {
  if (badSegment(p) || path.isAbsolute(p)) throw new Error('relative paths only, no traversal');
  return { content: [{ type: 'text', text: readFileSync(path.resolve(ROOT, p), 'utf8') }] };
});`,
    // A plain file name: every separator and the `..` name are rejected.
    REJECT_HEAD + `server.tool('save', { name: z.string() }, async ({ name }) => {
  if (/[\\\\/]/.test(name) || name === '..') throw new Error('plain names only');
  writeFileSync(path.join(ROOT, name), 'x');
  return { content: [] };
});`,
    // A normalising helper that also folds case: the path is still normalised when it is checked.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
const ROOT = '/srv/data';
const server = new McpServer({ name: 'x', version: '1' });
function normalizePath(p: string): string {
  return path.normalize(p).toLowerCase();
}
server.tool('read', { file: z.string() }, async ({ file }) => {
  const full = normalizePath(path.join(ROOT, file));
  if (!full.startsWith(ROOT + path.sep)) throw new Error('outside');
  return { content: [{ type: 'text', text: await readFile(full, 'utf8') }] };
});`,
    // The guards the suggestions write are guards the rule accepts (applying a suggestion clears the report).
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
import { spawn } from 'node:child_process';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('read', { file: z.string() }, async ({ file }) => {
  const target = path.resolve(ROOT, file);
  if (!target.startsWith(path.resolve(ROOT) + path.sep)) throw new Error('target is outside ROOT');
  const text = await fs.readFile(target, 'utf8');
  return { content: [{ type: 'text', text }] };
});`,
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
import { spawn } from 'node:child_process';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { ws: z.string() }, async ({ ws }) => {
  const dir = path.resolve(ROOT, ws);
  if (!dir.startsWith(path.resolve(ROOT) + path.sep)) throw new Error('dir is outside ROOT');
  spawn('make', [], { cwd: dir, env: { ...process.env, HOME: dir, TMPDIR: dir } });
  return { content: [] };
});`,
    // resolve, then equality with the root or startsWith(root + path.sep).
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('read', { file: z.string() }, async ({ file }) => {
  const full = path.resolve(ROOT, file);
  if (full !== ROOT && !full.startsWith(ROOT + path.sep)) throw new Error('outside');
  return { content: [{ type: 'text', text: await fs.readFile(full, 'utf8') }] };
});`,
    // realpath before the check; path.relative rejected when it starts with '..' or is absolute.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('read', { file: z.string() }, async ({ file }) => {
  const full = await fs.realpath(path.join(ROOT, file));
  const rel = path.relative(ROOT, full);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new Error('outside');
  return { content: [{ type: 'text', text: await fs.readFile(full, 'utf8') }] };
});`,
    // A same-file guard function that throws on escape (with ~ expansion via os.homedir()), and basename().
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
import os from 'node:os';
const ROOT = '/srv/runs';
function expandHome(p: string) { return p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : p; }
function inside(root: string, p: string): string {
  const resolved = path.resolve(root, expandHome(p));
  if (resolved !== root && !resolved.startsWith(\`\${root}\${path.sep}\`)) throw new Error('escape');
  return resolved;
}
const server = new McpServer({ name: 't', version: '1' });
server.tool('write', { workspace: z.string(), file: z.string() }, async ({ workspace, file }) => {
  const dir = inside(ROOT, workspace);
  await fs.writeFile(inside(dir, file), 'x');
  await fs.writeFile(path.join(dir, path.basename(file)), 'y');
  return { content: [] };
});`,
    // strict: a same-file assertion built on a same-file predicate (path.relative not starting with '..').
    {
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
const ROOT = '/srv/files';
function under(root: string, p: string) {
  const rel = path.relative(root, p);
  return !rel.startsWith('..') && !path.isAbsolute(rel);
}
function assertSafe(p: string) {
  if (!under(ROOT, path.resolve(ROOT, p))) throw new Error('outside');
}
const server = new McpServer({ name: 't', version: '1' });
server.tool('read', { file: z.string() }, async ({ file }) => {
  assertSafe(file);
  return { content: [{ type: 'text', text: await fs.readFile(file, 'utf8') }] };
});`,
      options: [{ trustImportedGuardNames: false }],
    },
    // A value the schema limits to a fixed set cannot name another directory.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
const ROOT = '/srv/assets';
const server = new McpServer({ name: 't', version: '1' });
server.tool('template', { kind: z.enum(['invoice', 'letter']).describe('which template') }, async ({ kind }) => ({
  content: [{ type: 'text', text: await fs.readFile(path.join(ROOT, \`\${kind}.md\`), 'utf8') }],
}));`,
    // A guard imported from another file, named like one; a local object called path.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
import { validatePath } from './lib.js';
const server = new McpServer({ name: 't', version: '1' });
server.tool('read', { file: z.string() }, async ({ file }) => {
  const valid = await validatePath(file);
  return { content: [{ type: 'text', text: await fs.readFile(valid, 'utf8') }] };
});
server.tool('read2', { file: z.string() }, async ({ file }) => {
  const path = { join: (...a: string[]) => a.join('/') };
  const local = path.join('/srv', file);
  return { content: [{ type: 'text', text: local }] };
});
`,
    // A guard function named in options (its body is elsewhere).
    { code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { writeFile } from 'node:fs/promises';
import { _workspaceDir } from './ws.js';
const server = new McpServer({ name: 't', version: '1' });
server.tool('w', {}, async ({ workspace }: { workspace: string }) => {
  _workspaceDir(workspace);
  await writeFile(workspace + '/out.txt', '');
  return { content: [] };
});`, options: [{ guards: ['_workspaceDir'] }] },
    // Start-up code and fixed paths are other rules' business.
    `import { readFileSync } from 'node:fs';
const config = readFileSync(process.argv[2] ?? 'config.json', 'utf8');
export { config };`,
  ],
  invalid: [
    {
      // JavaScript classes assign their helpers in the constructor with no field declaration: \`this.storage\` is
      // still the Storage the constructor made, and its method writes where the caller says.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import fs from 'node:fs';
class Storage {
  setFolder(p: string) { fs.mkdirSync(p, { recursive: true }); return p; }
}
class Service {
  constructor() { this.storage = new Storage(); }
  setFolder(args: { folderPath: string }) { return this.storage.setFolder(args.folderPath); }
}
const svc = new Service();
const server = new McpServer({ name: 'x', version: '1' });
server.tool('set_folder', {}, async (args: { folderPath: string }) => ({ content: [{ type: 'text', text: svc.setFolder(args) }] }));`,
      errors: [{ messageId: 'unguarded', line: 4, column: 39 }],
    },
    {
      // A "current project" one tool sets from its argument and a helper joins for another tool: caller text reaches
      // the write through the module binding, whichever tool's call wrote it (the helper is above the write).
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
let activeProject = 'default';
function projectDir() {
  return path.join('/srv/tasks', activeProject || 'default');
}
const server = new McpServer({ name: 'x', version: '1' });
server.tool('select_project', { project: z.string() }, async ({ project }) => { activeProject = project; return { content: [] }; });
server.tool('add_task', { title: z.string() }, async ({ title }) => {
  await writeFile(path.join(projectDir(), 'tasks.json'), title);
  return { content: [] };
});`,
      errors: [{ messageId: 'unguarded', line: 12, column: 19, data: { handler: "tool 'add_task'", path: "path.join(projectDir(), 'tasks.json')", call: 'writeFile' } }],
    },
    {
      // A database file the caller names: better-sqlite3 and libsql open (or create) any path the server can write.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import Database from 'better-sqlite3';
import LibDatabase from 'libsql';
const server = new McpServer({ name: 'x', version: '1' });
server.tool('q', { file: z.string(), sql: z.string() }, async ({ file, sql }) => {
  const db = new Database(file);
  const lib = new LibDatabase(\`\${file}.bak\`);
  return { content: [{ type: 'text', text: JSON.stringify([db.prepare(sql).all(), lib.prepare(sql).all()]) }] };
});`,
      errors: [
        { messageId: 'unguarded', line: 7, column: 27, data: { handler: "tool 'q'", path: 'file', call: 'new Database' } },
        { messageId: 'unguarded', line: 8, column: 31, data: { handler: "tool 'q'", path: '`${file}.bak`', call: 'new LibDatabase' } },
      ],
    },
    {
      // A tool object with a zod pattern, looked up by the project's own dispatcher: nothing checks the arguments
      // against it before the handler runs.
      code: `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { readFileSync } from 'node:fs';
import path from 'node:path';
const tools = [{ name: 'read', inputSchema: { run: z.string().regex(/^[a-z0-9-]+$/) }, handler: async (args: { run: string }) => readFileSync(path.join('/srv/runs', args.run), 'utf8') }];
const server = new Server({ name: 'x', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const t = tools.find((x) => x.name === req.params.name)!;
  return { content: [{ type: 'text', text: await t.handler(req.params.arguments as { run: string }) }] };
});`,
      errors: [{ messageId: 'unguarded', line: 6, column: 143 }],
    },
    {
      // Look-alikes of a name schema: a pattern that lets `.` through (so `..`), an unanchored one, and an argument
      // beside the restricted one.
      code: NAME_LOOKALIKES,
      errors: [
        nameLookalike(8, 'workspace', 'ROOT, workspace'),
        nameLookalike(9, 'tag', 'ROOT, tag'),
        nameLookalike(10, 'ok, file', 'ROOT, ok, file'),
      ],
    },
    {
      // The checks run under one test and the use under another: `action` may be neither.
      code: REJECT_HEAD + `server.tool('artifact', { action: z.enum(['list', 'download']), dest: z.string() }, async ({ action, dest }) => {
  if (action === 'download') {
    if (dest.includes('..') || path.isAbsolute(dest)) throw new Error('relative paths only');
  }
  if (action !== 'list') {
    writeFileSync(path.resolve(ROOT, dest), 'x');
  }
  return { content: [] };
});`,
      errors: guardSuggested(12, 19, REJECT_HEAD + `server.tool('artifact', { action: z.enum(['list', 'download']), dest: z.string() }, async ({ action, dest }) => {
  if (action === 'download') {
    if (dest.includes('..') || path.isAbsolute(dest)) throw new Error('relative paths only');
  }
  if (action !== 'list') {
    const target = path.resolve(ROOT, dest);
    if (!target.startsWith(path.resolve(ROOT) + path.sep)) throw new Error('target is outside ROOT');
    writeFileSync(target, 'x');
  }
  return { content: [] };
});`),
    },
    {
      // Rejecting `..` alone lets an absolute path through path.resolve.
      code: REJECT_HEAD + `server.tool('read', { p: z.string() }, async ({ p }) => {
  if (p.includes('..')) throw new Error('no traversal');
  return { content: [{ type: 'text', text: readFileSync(path.resolve(ROOT, p), 'utf8') }] };
});`,
      errors: guardSuggested(9, 57, REJECT_HEAD + `server.tool('read', { p: z.string() }, async ({ p }) => {
  if (p.includes('..')) throw new Error('no traversal');
  const target = path.resolve(ROOT, p);
  if (!target.startsWith(path.resolve(ROOT) + path.sep)) throw new Error('target is outside ROOT');
  return { content: [{ type: 'text', text: readFileSync(target, 'utf8') }] };
});`),
    },
    {
      // The `..` check only holds when another condition does too.
      code: REJECT_HEAD + `const strict = process.env.STRICT === '1';
server.tool('read', { p: z.string() }, async ({ p }) => {
  if (p.includes('..') && strict) throw new Error('no traversal');
  if (path.isAbsolute(p)) throw new Error('relative paths only');
  return { content: [{ type: 'text', text: readFileSync(path.resolve(ROOT, p), 'utf8') }] };
});`,
      errors: guardSuggested(11, 57, REJECT_HEAD + `const strict = process.env.STRICT === '1';
server.tool('read', { p: z.string() }, async ({ p }) => {
  if (p.includes('..') && strict) throw new Error('no traversal');
  if (path.isAbsolute(p)) throw new Error('relative paths only');
  const target = path.resolve(ROOT, p);
  if (!target.startsWith(path.resolve(ROOT) + path.sep)) throw new Error('target is outside ROOT');
  return { content: [{ type: 'text', text: readFileSync(target, 'utf8') }] };
});`),
    },
    {
      // Rejecting separators keeps `..` itself, one level up.
      code: REJECT_HEAD + `server.tool('save', { name: z.string() }, async ({ name }) => {
  if (/[\\\\/]/.test(name)) throw new Error('plain names only');
  writeFileSync(path.join(ROOT, name), 'x');
  return { content: [] };
});`,
      errors: guardSuggested(9, 17, REJECT_HEAD + `server.tool('save', { name: z.string() }, async ({ name }) => {
  if (/[\\\\/]/.test(name)) throw new Error('plain names only');
  const target = path.resolve(ROOT, name);
  if (!target.startsWith(path.resolve(ROOT) + path.sep)) throw new Error('target is outside ROOT');
  writeFileSync(target, 'x');
  return { content: [] };
});`),
    },
    {
      // Checked after the write: too late.
      code: REJECT_HEAD + `server.tool('save', { name: z.string() }, async ({ name }) => {
  writeFileSync(path.join(ROOT, name), 'x');
  if (name.includes('..') || path.isAbsolute(name)) throw new Error('too late');
  return { content: [] };
});`,
      errors: guardSuggested(8, 17, REJECT_HEAD + `server.tool('save', { name: z.string() }, async ({ name }) => {
  const target = path.resolve(ROOT, name);
  if (!target.startsWith(path.resolve(ROOT) + path.sep)) throw new Error('target is outside ROOT');
  writeFileSync(target, 'x');
  if (name.includes('..') || path.isAbsolute(name)) throw new Error('too late');
  return { content: [] };
});`),
    },
    {
      // A path held in a const: the guard goes right after its declaration, and join becomes resolve.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
import { spawn } from 'node:child_process';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { ws: z.string() }, async ({ ws }) => {
  const dir = path.join(ROOT, ws);
  spawn('make', [], { cwd: dir, env: { ...process.env, HOME: dir, TMPDIR: dir } });
  return { content: [] };
});`,
      errors: [
        {
          messageId: 'unguarded',
          line: 10,
          column: 28,
          suggestions: [
            {
              messageId: 'addGuard',
              data: { name: 'dir', root: 'ROOT' },
              output: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
import { spawn } from 'node:child_process';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { ws: z.string() }, async ({ ws }) => {
  const dir = path.resolve(ROOT, ws);
  if (!dir.startsWith(path.resolve(ROOT) + path.sep)) throw new Error('dir is outside ROOT');
  spawn('make', [], { cwd: dir, env: { ...process.env, HOME: dir, TMPDIR: dir } });
  return { content: [] };
});`,
            },
          ],
        },
      ],
    },
    {
      // `let`: a later assignment could skip the check, so no suggestion.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
import { spawn } from 'node:child_process';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { ws: z.string() }, async ({ ws }) => {
  let dir = path.join(ROOT, ws);
  spawn('make', [], { cwd: dir, env: { ...process.env, HOME: dir, TMPDIR: dir } });
  return { content: [] };
});`,
      errors: [{ messageId: 'unguarded', line: 10, column: 28, suggestions: null }],
    },
    {
      // A page saved where the caller says; options merged over defaults that reach mkdir; an extension the caller
      // spells still escapes (`x./../../etc/passwd`).
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
declare const page: { pdf(o: { path?: string; format?: string }): Promise<Buffer> };
const DEFAULTS = { outputDir: '/srv/out', prefix: 'Test' };
const server = new McpServer({ name: 't', version: '1' });
server.tool('pdf', { outputPath: z.string(), name: z.string() }, async (args) => {
  const options = { path: path.resolve(args.outputPath, args.name), format: 'A4' };
  await page.pdf(options);
  return { content: [] };
});
server.tool('gen', { options: z.object({ outputDir: z.string() }).partial() }, async ({ options = {} }) => {
  const merged = { ...DEFAULTS, ...options };
  await fs.mkdir(merged.outputDir, { recursive: true });
  return { content: [] };
});
server.tool('ext', { ext: z.string() }, async ({ ext }) => {
  await fs.writeFile(path.join('/srv/out', \`report.\${ext}\`), '');
  return { content: [] };
});`,
      errors: [
        { messageId: 'unguarded', line: 9, column: 27, suggestions: null },
        { messageId: 'unguarded', line: 15, column: 18, suggestions: null },
        {
          messageId: 'unguarded',
          line: 19,
          column: 22,
          // A fixed root: the guard can be offered (an extension the caller spells still escapes until it is checked).
          suggestions: [{ messageId: 'addGuard', data: { name: 'target', root: "'/srv/out'" }, output: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
declare const page: { pdf(o: { path?: string; format?: string }): Promise<Buffer> };
const DEFAULTS = { outputDir: '/srv/out', prefix: 'Test' };
const server = new McpServer({ name: 't', version: '1' });
server.tool('pdf', { outputPath: z.string(), name: z.string() }, async (args) => {
  const options = { path: path.resolve(args.outputPath, args.name), format: 'A4' };
  await page.pdf(options);
  return { content: [] };
});
server.tool('gen', { options: z.object({ outputDir: z.string() }).partial() }, async ({ options = {} }) => {
  const merged = { ...DEFAULTS, ...options };
  await fs.mkdir(merged.outputDir, { recursive: true });
  return { content: [] };
});
server.tool('ext', { ext: z.string() }, async ({ ext }) => {
  const target = path.resolve('/srv/out', \`report.\${ext}\`);
  if (!target.startsWith(path.resolve('/srv/out') + path.sep)) throw new Error('target is outside \\'/srv/out\\'');
  await fs.writeFile(target, '');
  return { content: [] };
});` }],
        },
      ],
    },
    {
      // path.join of a tool argument, straight to readFile.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('read', { file: z.string() }, async ({ file }) => {
  const text = await fs.readFile(path.join(ROOT, file), 'utf8');
  return { content: [{ type: 'text', text }] };
});`,
      errors: [
        {
          messageId: 'unguarded',
          line: 8,
          column: 34,
          // A guard the rule itself accepts: resolved, then checked against the root plus a separator.
          suggestions: [
            {
              messageId: 'addGuard',
              data: { name: 'target', root: 'ROOT' },
              output: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('read', { file: z.string() }, async ({ file }) => {
  const target = path.resolve(ROOT, file);
  if (!target.startsWith(path.resolve(ROOT) + path.sep)) throw new Error('target is outside ROOT');
  const text = await fs.readFile(target, 'utf8');
  return { content: [{ type: 'text', text }] };
});`,
            },
          ],
        },
      ],
    },
    {
      // startsWith(root) without a trailing separator: /srv/runs also accepts /srv/runsX.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('read', { file: z.string() }, async ({ file }) => {
  const full = path.resolve(ROOT, file);
  if (!full.startsWith(ROOT)) throw new Error('outside');
  return { content: [{ type: 'text', text: await fs.readFile(full, 'utf8') }] };
});`,
      errors: [{ messageId: 'unsoundGuard', line: 9, column: 8, suggestions: null }],
    },
    {
      // The check runs before decodeURIComponent.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('read', { file: z.string() }, async ({ file }) => {
  const full = path.resolve(ROOT, file);
  if (!full.startsWith(ROOT + path.sep)) throw new Error('outside');
  const decoded = decodeURIComponent(full);
  return { content: [{ type: 'text', text: await fs.readFile(decoded, 'utf8') }] };
});`,
      errors: [{ messageId: 'unsoundGuard', line: 10, column: 38, suggestions: null }],
    },
    {
      // A guard that is fail-open when its allow-list is empty.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';
import path from 'node:path';
const allowed: string[] = [];
function isAllowed(p: string): boolean {
  if (allowed.length === 0) return true;
  const r = path.resolve(p);
  return allowed.some((d) => r.startsWith(d + path.sep));
}
const server = new McpServer({ name: 't', version: '1' });
server.tool('read', { file: z.string() }, async ({ file }) => {
  if (!isAllowed(file)) throw new Error('denied');
  return { content: [{ type: 'text', text: await fs.readFile(file, 'utf8') }] };
});`,
      errors: [{ messageId: 'unsoundGuard', line: 7, column: 3, suggestions: null }],
    },
    {
      // Followed through a local variable, a same-file helper and a process's cwd.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import path from 'node:path';
const server = new McpServer({ name: 't', version: '1' });
function outPath(dir: string, name: string) { return \`\${dir}/\${name}\`; }
server.tool('run', { workspace: z.string(), name: z.string() }, async ({ workspace, name }) => {
  const dir = '/srv/runs/' + workspace;
  await writeFile(outPath(dir, name), 'x');
  spawn('make', [], { cwd: dir });
  return { content: [] };
});
`,
      errors: [
        { messageId: 'unguarded', line: 10, column: 19, suggestions: null },
        { messageId: 'unguarded', line: 11, column: 28, suggestions: null },
      ],
    },
    {
      // Learned from an older reference filesystem server: a same-file validatePath whose check is
      // `allowed.some(dir => p.startsWith(dir))`, behind schema parsing; reported once, at the check.
      code: `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import fs from 'fs/promises';
import path from 'path';
const allowedDirectories: string[] = process.argv.slice(2).map((d) => path.resolve(d));
async function validatePath(requested: string): Promise<string> {
  const absolute = path.resolve(requested);
  const ok = allowedDirectories.some((dir) => absolute.startsWith(dir));
  if (!ok) throw new Error('Access denied');
  return absolute;
}
const ReadArgs = z.object({ path: z.string() });
const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  switch (name) {
    case 'read_file': {
      const parsed = ReadArgs.parse(args);
      const valid = await validatePath(parsed.path);
      return { content: [{ type: 'text', text: await fs.readFile(valid, 'utf8') }] };
    }
    case 'write_file': {
      const parsed = ReadArgs.parse(args);
      await fs.writeFile(await validatePath(parsed.path), '');
      return { content: [] };
    }
  }
  return { content: [] };
});
`,
      errors: [{ messageId: 'unsoundGuard', line: 9, column: 47, suggestions: null }],
    },
    {
      // Learned from a command-runner server: the caller's cwd copied onto the spawn options.
      code: COMMAND_RUNNER_CWD_FROM_CALLER,
      errors: [{ messageId: 'unguarded', line: 8, column: 19, suggestions: null }],
    },
    {
      // strict: an imported function named like a guard is not trusted unless named in `guards`.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { readFile } from 'node:fs/promises';
import { checkPath } from './lib.js';
const server = new McpServer({ name: 't', version: '1' });
server.tool('r', {}, async ({ file }: { file: string }) => {
  checkPath(file);
  return { content: [{ type: 'text', text: await readFile(file, 'utf8') }] };
});`,
      options: [{ trustImportedGuardNames: false }],
      errors: [{ messageId: 'unguarded', line: 7, column: 59, suggestions: null }],
    },
  ],
});
