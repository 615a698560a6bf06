import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/no-shared-scratch-dir.js';

const ruleTester = new RuleTester();

ruleTester.run('no-shared-scratch-dir', rule, {
  valid: [
    // The session id only in a log line and as part of a path that is also keyed by the caller's workspace.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
const ROOT = '/srv/runs';
const server = new McpServer({ name: 't', version: '1' });
server.tool('save', { workspace: z.string(), text: z.string() }, async ({ workspace, text }, extra) => {
  console.error('session', extra.sessionId);
  await writeFile(path.join(ROOT, path.basename(workspace), \`\${extra.sessionId}.txt\`), text);
  return { content: [] };
});`,
    // A start-up temp dir only start-up code uses; a per-call mkdtemp and a workspace-derived dir as cwd.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { mkdtemp, rm } from 'node:fs/promises';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
// A start-up temp dir used only at start-up.
const bootDir = mkdtempSync(path.join(os.tmpdir(), 'boot-'));
writeFileSync(path.join(bootDir, 'ready'), '');
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { workspace: z.string() }, async ({ workspace }) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'run-'));
  try {
    spawn('make', [], { cwd: dir });
    spawn('make', [], { cwd: path.join('/srv/runs', workspace) });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { content: [] };
});
`,
  ],
  invalid: [
    {
      // A workspace keyed by MCP session identity (reported once, where the session enters the path).
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
const ROOT = '/srv/runs';
const sessionDir = (id: string) => path.join(ROOT, id);
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', { command: z.string() }, async ({ command }, extra) => {
  const dir = sessionDir(extra.sessionId ?? 'local');
  await mkdir(dir, { recursive: true });
  spawn('sh', ['-c', command], { cwd: dir, env: { ...process.env, HOME: dir, TMPDIR: dir } });
  return { content: [] };
});`,
      errors: [{ messageId: 'sessionDir', line: 10, column: 26, suggestions: null }],
    },
    {
      // One mkdtemp at start-up for every caller; the system temp dir and the server's cwd as a child's cwd.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
const WORK = mkdtempSync(path.join(os.tmpdir(), 'srv-'));
const server = new McpServer({ name: 't', version: '1' });
server.tool('save', { name: z.string(), text: z.string() }, async ({ name, text }) => {
  writeFileSync(path.join(WORK, path.basename(name)), text);
  execSync('make', { cwd: os.tmpdir() });
  execSync('make', { cwd: process.cwd() });
  return { content: [] };
});`,
      errors: [
        { messageId: 'startupTempDir', line: 7, column: 14, suggestions: null },
        { messageId: 'sharedCwd', line: 11, column: 27, suggestions: null },
        { messageId: 'sharedCwd', line: 12, column: 27, suggestions: null },
      ],
    },
    {
      // A start-up mkdtemp kept on a long-lived instance (reported once, where it is made); a module constant work dir.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { mkdtemp } from 'node:fs/promises';
import { spawn } from 'node:child_process';
const BUILD_DIR = '/var/build';
class Runner {
  private dir = '';
  async init() { this.dir = await mkdtemp('/tmp/runner-'); }
  run(cmd: string) { return spawn(cmd, [], { cwd: this.dir }); }
}
const runner = new Runner();
await runner.init();
const server = new McpServer({ name: 't', version: '1' });
server.tool('run', {}, async () => {
  runner.run('ls');
  spawn('make', [], { cwd: BUILD_DIR });
  return { content: [] };
});
`,
      errors: [
        { messageId: 'startupTempDir', line: 7, column: 35, suggestions: null },
        { messageId: 'sharedCwd', line: 15, column: 28, suggestions: null },
      ],
    },
  ],
});
