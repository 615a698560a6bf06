import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/require-child-process-isolation.js';
import { COMMAND_RUNNER_CWD_FROM_CALLER } from '../fixtures/real-shapes.js';

const ruleTester = new RuleTester();

ruleTester.run('require-child-process-isolation', rule, {
  valid: [
    // Lookups with every word in the code: they read the machine, not a caller's data, and leave nothing behind.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { execSync, execFileSync, spawnSync } from 'node:child_process';
const server = new McpServer({ name: 't', version: '1' });
server.tool('doctor', {}, async () => {
  const found = execSync('which yt-dlp 2>/dev/null').toString();
  const git = spawnSync('git', ['--version']).stdout.toString();
  const reg = execSync('reg query "HKCU\\\\Software\\\\Google\\\\Chrome" /v path 2>nul');
  const tmp = execFileSync('mktemp', ['-d']).toString().trim();
  return { content: [{ type: 'text', text: found + git + String(reg) + tmp }] };
});`,
    // Start-up spawn; a per-call mkdtemp dir as cwd, HOME and TMPDIR set on an env copy; chunks.push of the output.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
spawn('git', ['--version']); // start-up
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { cmd: z.string() }, async ({ cmd }) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'run-'));
  const env = { ...process.env };
  env.HOME = dir;
  env['TMPDIR'] = dir;
  const child = spawn(cmd, [], { cwd: dir, env });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  return { content: [] };
});`,
    // Options the module does not show (imported), and a local function that only looks like a process call.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { spawn } from 'node:child_process';
import { opts } from './opts.js';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', {}, async () => {
  const spawnLike = (a: string) => a;
  spawnLike('x');
  spawn('ls', [], opts);
  return { content: [] };
});
`,
    // execa with its options first (execa({ cwd, env })`cmd`), isolated per call.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { execa } from 'execa';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { command: z.string() }, async ({ command }) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'run-'));
  const result = await execa({ cwd: dir, env: { ...process.env, HOME: dir, TMPDIR: dir }, shell: true })\`\${command}\`;
  return { content: [{ type: 'text', text: String(result.stdout) }] };
});`,
    // A pseudo-terminal given the caller's own directory as cwd, HOME and TMPDIR; a local object named Bun.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import * as pty from 'node-pty';
import path from 'node:path';
const server = new McpServer({ name: 't', version: '1' });
server.tool('term', { workspace: z.string() }, async ({ workspace }) => {
  const dir = path.join('/srv/runs', path.basename(workspace));
  const term = pty.spawn('bash', [], { name: 'xterm', cwd: dir, env: { ...process.env, HOME: dir, TMPDIR: dir } });
  const Bun = { spawn: (cmd: string[]) => cmd };
  Bun.spawn(['ls']);
  term.kill();
  return { content: [] };
});`,
    // Process-table lookups with computed arguments: they read the process table and write nothing a later call reads.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { execSync, execFileSync } from 'node:child_process';
const server = new McpServer({ name: 't', version: '1' });
server.tool('interrupt', {}, async ({ pid }: { pid: number }) => {
  const kids = execSync(\`pgrep -P \${pid}\`, { encoding: 'utf-8' }).trim();
  execFileSync('ps', ['-o', 'pid=', '-p', String(pid)]);
  return { content: [{ type: 'text', text: kids }] };
});`,
  ],
  invalid: [
    {
      // A process-table lookup whose shell line writes a file, or runs a second command, is not only a lookup.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { execSync } from 'node:child_process';
const server = new McpServer({ name: 't', version: '1' });
server.tool('snapshot', {}, async ({ pid }: { pid: number }) => {
  execSync(\`ps -p \${pid} > /tmp/ps.txt\`);
  execSync(\`pgrep -P \${pid}; npm ls\`);
  return { content: [] };
});`,
      errors: [
        { messageId: 'notIsolated', line: 5, column: 3 },
        { messageId: 'notIsolated', line: 6, column: 3 },
      ],
    },
    {
      // Look-alikes of lookups: a package runner installs into the shared cache even for --version; a lookup chained to
      // an install; a lookup of a word the caller chooses.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { execSync, execFileSync, spawnSync } from 'node:child_process';
const server = new McpServer({ name: 't', version: '1' });
server.tool('doctor', {}, async ({ tool }: { tool: string }) => {
  execSync('npx playwright --version');
  execSync('which chromium || npx playwright install chromium');
  execFileSync('which', [tool]);
  return { content: [] };
});`,
      errors: [
        { messageId: 'notIsolated', line: 5, column: 3 },
        { messageId: 'notIsolated', line: 6, column: 3 },
        { messageId: 'notIsolated', line: 7, column: 3 },
      ],
    },
    {
      // A pseudo-terminal that inherits the server's directory and environment; Bun's spawn; a spawn-like package.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import * as pty from 'node-pty';
import spawn from 'nano-spawn';
import { spawnPromise } from 'spawn-rx';
const server = new McpServer({ name: 't', version: '1' });
server.tool('term', { command: z.string() }, async ({ command }) => {
  pty.spawn('bash', ['-lc', command], { name: 'xterm', env: process.env as Record<string, string> });
  Bun.spawn(['sh', '-c', command]);
  await spawn('make', ['all']);
  await spawnPromise('yt-dlp', ['--write-sub', command], { cwd: '/srv/runs/x' });
  return { content: [] };
});`,
      errors: [
        { messageId: 'notIsolated', line: 8, column: 3, suggestions: [] },
        { messageId: 'notIsolated', line: 9, column: 3, suggestions: null },
        { messageId: 'notIsolated', line: 10, column: 9, suggestions: null },
        { messageId: 'notIsolated', line: 11, column: 9, suggestions: [] },
      ],
    },
    {
      // No options at all, env: process.env, and an env copy with HOME but no TMPDIR. A per-call dir is in scope.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { spawn, execFile } from 'node:child_process';
import path from 'node:path';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { workspace: z.string(), cmd: z.string() }, async ({ workspace, cmd }) => {
  const dir = path.join('/srv/runs', workspace);
  spawn(cmd, [], { shell: true });
  execFile('git', ['status'], { cwd: dir, env: process.env });
  spawn('make', [], { cwd: dir, env: { ...process.env, HOME: dir } });
  return { content: [] };
});`,
      errors: [
        {
          messageId: 'notIsolated',
          line: 8,
          column: 3,
          suggestions: [{ messageId: 'addIsolation', data: { dir: 'dir', what: '`cwd` and `env` with HOME and TMPDIR' }, output: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { spawn, execFile } from 'node:child_process';
import path from 'node:path';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { workspace: z.string(), cmd: z.string() }, async ({ workspace, cmd }) => {
  const dir = path.join('/srv/runs', workspace);
  spawn(cmd, [], { shell: true, cwd: dir, env: { ...process.env, HOME: dir, TMPDIR: dir } });
  execFile('git', ['status'], { cwd: dir, env: process.env });
  spawn('make', [], { cwd: dir, env: { ...process.env, HOME: dir } });
  return { content: [] };
});` }],
        },
        { messageId: 'notIsolated', line: 9, column: 3, suggestions: [{ messageId: 'addIsolation', data: { dir: 'dir', what: 'HOME and TMPDIR' }, output: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { spawn, execFile } from 'node:child_process';
import path from 'node:path';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { workspace: z.string(), cmd: z.string() }, async ({ workspace, cmd }) => {
  const dir = path.join('/srv/runs', workspace);
  spawn(cmd, [], { shell: true });
  execFile('git', ['status'], { cwd: dir, env: { ...process.env, HOME: dir, TMPDIR: dir } });
  spawn('make', [], { cwd: dir, env: { ...process.env, HOME: dir } });
  return { content: [] };
});` }] },
        { messageId: 'notIsolated', line: 10, column: 3, suggestions: [{ messageId: 'addIsolation', data: { dir: 'dir', what: 'HOME and TMPDIR' }, output: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { spawn, execFile } from 'node:child_process';
import path from 'node:path';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { workspace: z.string(), cmd: z.string() }, async ({ workspace, cmd }) => {
  const dir = path.join('/srv/runs', workspace);
  spawn(cmd, [], { shell: true });
  execFile('git', ['status'], { cwd: dir, env: process.env });
  spawn('make', [], { cwd: dir, env: { ...process.env, HOME: dir, TMPDIR: dir } });
  return { content: [] };
});` }] },
      ],
    },
    {
      // Promisified exec without options; HOME/TMPDIR set to values every caller shares. No per-call dir: no suggestion.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import * as cp from 'node:child_process';
import { promisify } from 'node:util';
import os from 'node:os';
const execAsync = promisify(cp.exec);
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { cmd: z.string() }, async ({ cmd }) => {
  await execAsync(cmd);
  cp.execSync(cmd, { cwd: '/tmp', env: { ...process.env, HOME: os.homedir(), TMPDIR: os.tmpdir() } });
  return { content: [] };
});`,
      errors: [
        { messageId: 'notIsolated', line: 9, column: 9, suggestions: null },
        { messageId: 'notIsolated', line: 10, column: 3, suggestions: null },
      ],
    },
    {
      // Learned from a command-runner server: options built as a typed object, cwd added only when the caller passes
      // one (\`options.cwd = …\` counts as a cwd), no env at all. No per-call dir in scope: no suggestion.
      code: COMMAND_RUNNER_CWD_FROM_CALLER,
      errors: [{ messageId: 'notIsolated', line: 10, column: 17, suggestions: null }],
    },
    {
      // execa (imported) and a bare spawn.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { spawn } from 'node:child_process';
import { execa } from 'execa';
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { cmd: z.string() }, async ({ cmd }) => {
  await execa(cmd, []);
  const child = spawn(cmd);
  return { content: [] };
});
`,
      errors: [
        { messageId: 'notIsolated', line: 7, column: 9, suggestions: null },
        { messageId: 'notIsolated', line: 8, column: 17, suggestions: null },
      ],
    },
  ],
});
