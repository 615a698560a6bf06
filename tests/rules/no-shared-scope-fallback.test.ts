import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/no-shared-scope-fallback.js';

const ruleTester = new RuleTester();

ruleTester.run('no-shared-scope-fallback', rule, {
  valid: [
    // Schema defaults that are not a shared place: a dedicated sub-directory name, an argument that names no
    // directory, and a format.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { working_dir: z.string().default('_adhoc'), route: z.string().default('/api'), format: z.enum(['a', 'b']).default('a') }, async ({ working_dir, route }) => ({ content: [{ type: 'text', text: working_dir + route }] }));`,
    // An options object whose cwd the call site fills with the server's own directory, not the caller's.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { spawn } from 'node:child_process';
import { z } from 'zod';
const server = new McpServer({ name: 't', version: '1' });
const WORK = '/srv/work';
function createTerminal(o: { command: string; cwd?: string }) {
  return spawn(o.command, [], { cwd: o.cwd ?? process.cwd() });
}
server.tool('term', { command: z.string(), cwd: z.string().optional() }, async ({ command }) => {
  createTerminal({ command, cwd: WORK });
  return { content: [] };
});`,
    // MCP roots: no root is an error, or falls back to a dedicated ad-hoc directory.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs/promises';
import path from 'node:path';
const server = new McpServer({ name: 'shots', version: '1' });
server.tool('shot', async () => {
  const { roots } = await server.server.listRoots();
  if (roots.length === 0) throw new Error('this tool needs a root from the client');
  const dirs = roots.map((r) => fileURLToPath(r.uri));
  if (dirs.length === 0) dirs.push(path.join('/srv/runs', '_adhoc'));
  await fs.writeFile(path.join(dirs[0], 'shot.png'), 'png');
  return { content: [] };
});`,
    // An empty list that is not the client's roots.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs/promises';
import path from 'node:path';
const server = new McpServer({ name: 'shots', version: '1' });
const defaults = ['/srv/a'];
server.tool('shot', async () => {
  const dirs = [...defaults];
  if (dirs.length === 0) dirs.push(process.cwd());
  await fs.writeFile(path.join(dirs[0], 'shot.png'), 'png');
  return { content: [] };
});`,
    // Credentials: the caller's own key or nothing (an unauthenticated request carries nobody's identity), the server's
    // key read at start-up from its own configuration (not a caller's argument), and a credential-named value that is
    // not the caller's (a token the server minted for this call).
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
const cliOptions = { apiKey: process.argv[2] };
const serverKey = cliOptions.apiKey || process.env.SEARCH_API_KEY;
const server = new McpServer({ name: 't', version: '1' });
server.tool('search', { q: z.string(), apiKey: z.string().optional(), token: z.string().optional() }, async ({ q, apiKey, token }) => {
  const key = apiKey ?? '';
  const bearer = token || undefined;
  const minted = crypto.randomUUID();
  const session = { token: minted };
  const auth = session.token || process.env.FALLBACK_TOKEN;
  const r = await fetch('https://api.example.com/search?q=' + q, { headers: { 'x-key': key, authorization: String(bearer ?? auth) } });
  return { content: [{ type: 'text', text: String(serverKey ? r.status : 0) }] };
});
`,
    // The _adhoc fallback under the runs root, an empty default that is rejected, and ~ expansion of another argument.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import os from 'node:os';
import path from 'node:path';
const RUNS_ROOT = '/srv/runs';
function workspaceDir(workspace: string) {
  const name = workspace || '_adhoc';
  if (!workspace) return path.join(RUNS_ROOT, '_adhoc');
  return path.join(RUNS_ROOT, name);
}
function expandHome(p: string) { return p.startsWith('~') ? path.join(os.homedir(), p.slice(1)) : p; }
const server = new McpServer({ name: 't', version: '1' });
server.tool('a', { workspace: z.string().default(''), file: z.string() }, async ({ workspace = '', file }) => {
  if (!workspace) throw new Error('workspace is required');
  const dir = workspaceDir(workspace);
  const other = expandHome(file) || os.homedir();
  return { content: [{ type: 'text', text: dir + other }] };
});
`,
    // Arguments that name neither a directory nor a tenant, a dedicated directory under the runs root, a directory
    // from server configuration (not the call), defaults that are per-call or dedicated, a tenant from configuration.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import os from 'node:os';
import path from 'node:path';
const RUNS_ROOT = path.join(os.tmpdir(), 'runs');
const config = { outputDir: process.env.OUT_DIR };
const DEFAULTS = { outputDir: path.join(RUNS_ROOT, '_adhoc'), format: 'png' };
const server = new McpServer({ name: 't', version: '1' });
server.tool('shot', { format: z.string().optional(), filename: z.string().optional(), outputDir: z.string().optional() }, async (args, extra) => {
  const format = args.format || 'png';
  const name = args.filename || 'page.pdf';
  const out = args.outputDir || path.join(RUNS_ROOT, '_adhoc');
  const fromConfig = config.outputDir || process.cwd();
  const merged = { ...DEFAULTS, ...args };
  const tenant = (extra as { tenantId?: string }).tenantId || process.env.DEFAULT_TENANT;
  let cwd = path.join(RUNS_ROOT, '_adhoc');
  if (args.outputDir) cwd = path.join(RUNS_ROOT, path.basename(args.outputDir));
  return { content: [{ type: 'text', text: [format, name, out, fromConfig, merged.outputDir, tenant, cwd].join() }] };
});
`,
    // A directory the server was configured with, passed to a helper (not the caller's); a ternary on an output
    // argument that only picks message text.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
function saveImages(params: { name: string }, imageDir?: string) {
  const baseDir = imageDir ?? process.cwd();
  return baseDir + params.name;
}
const options = { imageDir: process.env.IMAGE_DIR };
const server = new McpServer({ name: 't', version: '1' });
server.tool('images', { name: z.string(), outputPath: z.string().optional() }, async (params) => {
  const where = saveImages(params, options.imageDir);
  const note = params.outputPath ? \`\\nAlso saved to \${where}\` : '';
  return { content: [{ type: 'text', text: where + note }] };
});
`,
    // A value computed from the run id (a client's reply) is not the run id.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
declare const client: { run(id: string): { get(): Promise<{ statusMessage?: string; dir?: string }> } };
const server = new McpServer({ name: 't', version: '1' });
server.tool('status', { runId: z.string() }, async ({ runId }) => {
  const { statusMessage, dir } = await client.run(runId).get();
  const text = (statusMessage || '') + (dir ?? process.cwd());
  return { content: [{ type: 'text', text }] };
});
`,
    // Outside handler code.
    `import os from 'node:os';
export const dir = (workspace?: string) => workspace || os.homedir();`,
  ],
  invalid: [
    // A directory argument whose schema fills in one fixed place when the caller leaves it out.
    {
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { command: z.string(), working_dir: z.string().optional().default('/srv/work/shared') }, async ({ working_dir }) => ({ content: [{ type: 'text', text: working_dir }] }));
server.registerTool('save', { inputSchema: { outputDir: z.string().default('~/exports') } }, async ({ outputDir }) => ({ content: [{ type: 'text', text: outputDir }] }));`,
      errors: [
        { messageId: 'sharedFallback', line: 4, column: 86, data: { handler: "tool 'run'", what: 'a fixed absolute path every caller shares', fallback: "'/srv/work/shared'", scope: 'working_dir' } },
        { messageId: 'sharedFallback', line: 5, column: 76, data: { handler: "tool 'save'", what: "the server's home directory", fallback: "'~/exports'", scope: 'outputDir' } },
      ],
    },
    // The scope handed to a helper inside an options object (\`createTerminal({ command, cwd })\`), read there as \`o.cwd\`,
    // or destructured in the helper's parameter.
    {
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { spawn } from 'node:child_process';
import { z } from 'zod';
const server = new McpServer({ name: 't', version: '1' });
function createTerminal(o: { command: string; cwd?: string }) {
  return spawn(o.command, [], { cwd: o.cwd ?? process.cwd() });
}
function openShell({ cwd }: { cwd?: string }) {
  return spawn('sh', [], { cwd: cwd || process.cwd() });
}
server.tool('term', { command: z.string(), cwd: z.string().optional() }, async ({ command, cwd }) => {
  createTerminal({ command, cwd });
  openShell({ cwd });
  return { content: [] };
});`,
      errors: [
        { messageId: 'sharedFallback', line: 6, column: 47, data: { handler: "tool 'term'", what: "the server's working directory", fallback: 'process.cwd()', scope: 'o.cwd' } },
        { messageId: 'sharedFallback', line: 9, column: 40, data: { handler: "tool 'term'", what: "the server's working directory", fallback: 'process.cwd()', scope: 'cwd' } },
      ],
    },
    {
      // The client's MCP roots are its workspace: no roots, and the server's own working directory stands in.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs/promises';
import path from 'node:path';
const server = new McpServer({ name: 'shots', version: '1' });
server.tool('shot', async () => {
  const { roots } = await server.server.listRoots();
  const dirs = roots.map((r) => fileURLToPath(r.uri));
  if (dirs.length === 0) dirs.push(process.cwd());
  await fs.writeFile(path.join(dirs[0], 'shot.png'), 'png');
  return { content: [] };
});`,
      errors: [{ messageId: 'sharedFallback', line: 9, column: 36, data: { handler: "tool 'shot'", what: "the server's working directory", fallback: 'process.cwd()', scope: 'dirs' } }],
    },
    {
      // The same with a ternary over the first root.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs/promises';
import path from 'node:path';
const server = new McpServer({ name: 'shots', version: '1' });
server.tool('shot', async () => {
  const result = await server.server.listRoots();
  const ws = result.roots[0]?.uri ? fileURLToPath(result.roots[0].uri) : process.cwd();
  await fs.writeFile(path.join(ws, 'shot.png'), 'png');
  return { content: [] };
});`,
      errors: [{ messageId: 'sharedFallback', line: 8, column: 74, data: { handler: "tool 'shot'", what: "the server's working directory", fallback: 'process.cwd()', scope: 'result.roots[0]?.uri' } }],
    },
    // The operator's credential for a caller that brings none: an environment variable, directly, through a default
    // that only the caller's key overrides, and a key written into the code.
    {
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
const server = new McpServer({ name: 't', version: '1' });
server.tool('search', { q: z.string(), apiKey: z.string().optional(), token: z.string().optional() }, async (args) => {
  const key = args.apiKey ?? process.env.SEARCH_API_KEY;
  let bearer = process.env.GITHUB_TOKEN;
  if (args.token) bearer = args.token;
  const r = await fetch('https://api.example.com/search?q=' + args.q, { headers: { 'x-key': key!, authorization: bearer! } });
  return { content: [{ type: 'text', text: String(r.status) }] };
});
server.tool('chat', { prompt: z.string(), api_key: z.string().optional() }, async ({ prompt, api_key = 'sk-live-operator' }) => ({
  content: [{ type: 'text', text: prompt + api_key.length }],
}));
`,
      errors: [
        { messageId: 'sharedCredentialFallback', line: 5, column: 30, data: { handler: "tool 'search'", what: "the server's own credential from its environment", fallback: 'process.env.SEARCH_API_KEY', scope: 'args.apiKey' } },
        { messageId: 'sharedCredentialFallback', line: 6, column: 16, data: { handler: "tool 'search'", what: "the server's own credential from its environment", fallback: 'process.env.GITHUB_TOKEN', scope: 'args.token' } },
        { messageId: 'sharedCredentialFallback', line: 11, column: 104, data: { handler: "tool 'chat'", what: 'a key written into the server', fallback: "'sk-live-operator'", scope: 'api_key' } },
      ],
    },
    {
      // A handler body handed to a project wrapper that calls it with the call's arguments.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import os from 'node:os';
import path from 'node:path';
const server = new McpServer({ name: 't', version: '1' });
const tool = (name: string, schema: object, cb: (args: any) => Promise<string>) => {
  server.registerTool(name, { inputSchema: schema }, async (args: any) => ({ content: [{ type: 'text', text: await cb(args) }] }));
};
tool('record', {}, async ({ output }) => {
  const file = output || path.join(os.tmpdir(), 'recording.mp4');
  return file;
});`,
      errors: [{ messageId: 'sharedFallback', line: 9, column: 26, suggestions: null }],
    },
    {
      // A helper whose directory parameter the handler fills from the call.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import os from 'node:os';
function saveScreenshot(data: string, dir?: string) {
  const outputDir = dir || os.tmpdir();
  return outputDir + data;
}
const server = new McpServer({ name: 't', version: '1' });
server.tool('shot', { dir: z.string().optional() }, async (args) => ({ content: [{ type: 'text', text: saveScreenshot('x', args.dir) }] }));`,
      errors: [{ messageId: 'sharedFallback', line: 5, column: 28, suggestions: null }],
    },
    {
      // A chain of fallbacks: the configured default may be missing too, then the server's working directory.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
const config: { defaultSaveDir?: string } = {};
const server = new McpServer({ name: 't', version: '1' });
server.tool('image', { saveDir: z.string().optional() }, async (args) => {
  const saveDir = args.saveDir || config.defaultSaveDir || process.cwd();
  return { content: [{ type: 'text', text: saveDir }] };
});`,
      errors: [{ messageId: 'sharedFallback', line: 6, column: 60, suggestions: null }],
    },
    {
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import os from 'node:os';
import path from 'node:path';
const RUNS_ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('a', { workspace: z.string().optional() }, async ({ workspace }) => {
  const home = workspace || os.homedir();
  const cwd = workspace ?? process.cwd();
  const tmp = workspace ? path.join(RUNS_ROOT, workspace) : '/tmp';
  return { content: [{ type: 'text', text: home + cwd + tmp }] };
});`,
      errors: [
        { messageId: 'sharedFallback', line: 8, column: 29, suggestions: null },
        { messageId: 'sharedFallback', line: 9, column: 28, suggestions: null },
        { messageId: 'sharedFallback', line: 10, column: 61, suggestions: null },
      ],
    },
    {
      // A helper that returns the runs root itself, a default of os.tmpdir(), an empty default joined onto the root.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import os from 'node:os';
import path from 'node:path';
const RUNS_ROOT = '/srv/runs';
function workspaceDir(workspace?: string) {
  if (!workspace) return RUNS_ROOT;
  return path.join(RUNS_ROOT, workspace);
}
const server = new McpServer({ name: 't', version: '1' });
server.tool('b', {}, async ({ runId = os.tmpdir() }: { runId?: string }) => ({ content: [{ type: 'text', text: workspaceDir(runId) }] }));
server.tool('c', {}, async ({ workspace = '' }: { workspace?: string }) => ({ content: [{ type: 'text', text: path.join(RUNS_ROOT, workspace) }] }));
`,
      errors: [
        { messageId: 'sharedFallback', line: 6, column: 26, suggestions: null },
        { messageId: 'sharedFallback', line: 10, column: 39, suggestions: null },
        { messageId: 'sharedFallback', line: 11, column: 43, suggestions: null },
      ],
    },
    {
      // Directory-like arguments and context fields under other names than the scope argument.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import os from 'node:os';
import path from 'node:path';
const DOWNLOADS = path.join(os.homedir(), 'Downloads');
const server = new McpServer({ name: 't', version: '1' });
server.tool('save', { outputDir: z.string().optional(), downloadsDir: z.string().optional(), output: z.string().optional() }, async ({ outputDir, downloadsDir, output }, extra) => {
  const a = outputDir ?? process.cwd();
  const b = downloadsDir || DOWNLOADS;
  const c = output || path.join(os.tmpdir(), \`recording-\${Date.now()}.mp4\`);
  const d = path.resolve(outputDir ?? '.', 'page.pdf');
  const tenant = (extra as unknown as { tenantId?: string }).tenantId || 'default-tenant';
  return { content: [{ type: 'text', text: [a, b, c, d, tenant].join() }] };
});`,
      errors: [
        { messageId: 'sharedFallback', line: 8, column: 26, suggestions: null },
        { messageId: 'sharedFallback', line: 9, column: 29, suggestions: null },
        { messageId: 'sharedFallback', line: 10, column: 23, suggestions: null },
        { messageId: 'sharedFallback', line: 11, column: 39, suggestions: null },
        { messageId: 'sharedTenantFallback', line: 12, column: 74, suggestions: null },
      ],
    },
    {
      // A tenant constant is the literal it holds; an argument that is no scope (`format`) falling back to a constant
      // is not reported.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
const DEFAULT_TENANT = 'default';
const DEFAULT_FORMAT = 'png';
const server = new McpServer({ name: 't', version: '1' });
server.tool('list', { tenantId: z.string().optional(), format: z.string().optional() }, async ({ tenantId, format }) => {
  const tenant = tenantId ?? DEFAULT_TENANT;
  return { content: [{ type: 'text', text: tenant + (format ?? DEFAULT_FORMAT) }] };
});`,
      errors: [{ messageId: 'sharedTenantFallback', line: 7, column: 30, suggestions: null }],
    },
    {
      // A shared default that only a given argument overrides; defaults merged under the caller's options.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { homedir } from 'node:os';
import path from 'node:path';
const projectRoot = () => process.cwd();
const DEFAULT_OPTIONS = { outputPath: path.join(projectRoot(), 'generated'), prefix: 'Test' };
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { workFolder: z.string().optional() }, async (args) => {
  let cwd = homedir();
  if (args.workFolder && typeof args.workFolder === 'string') {
    cwd = path.resolve(args.workFolder);
  }
  return { content: [{ type: 'text', text: cwd }] };
});
server.tool('gen', { options: z.object({ outputPath: z.string().optional() }).optional() }, async ({ options = {} }) => {
  const merged = { ...DEFAULT_OPTIONS, ...options };
  const same = Object.assign({}, DEFAULT_OPTIONS, options);
  return { content: [{ type: 'text', text: merged.outputPath + same.outputPath }] };
});`,
      errors: [
        { messageId: 'sharedFallback', line: 9, column: 13, suggestions: null },
        { messageId: 'sharedFallback', line: 16, column: 23, suggestions: null },
        { messageId: 'sharedFallback', line: 17, column: 34, suggestions: null },
      ],
    },
  ],
});
