// A shared command runner written the way the statelessness spec describes: the caller passes its scope
// (`workspace`), every path is derived from it and guarded against escaping the runs root, each child gets its
// own cwd, HOME and TMPDIR, a missing scope lands in `_adhoc` (never $HOME), and `teardown` removes a run's data
// idempotently. `mcp-stateless examples/` reports nothing here.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

// Start-up configuration: one root under which every run gets its own directory.
const RUNS_ROOT = path.resolve(process.env.RUNS_ROOT ?? path.join(os.tmpdir(), 'mcp-runs'));
// A read-only asset, read once at start-up from a fixed path.
const BANNER = await readFile(new URL('./banner.txt', import.meta.url), 'utf8').catch(() => '');

const WORKSPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The directory for `workspace`: derived from the argument, contained in the runs root, `_adhoc` when missing. */
function workspaceDir(workspace: string): string {
  const name = WORKSPACE_NAME.test(workspace) ? workspace : '_adhoc';
  const dir = path.resolve(RUNS_ROOT, name);
  const rel = path.relative(RUNS_ROOT, dir);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`workspace escapes the runs root: ${workspace}`);
  return dir;
}

function run(command: string, cwd: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env: { ...process.env, HOME: cwd, TMPDIR: cwd }, timeout: timeoutMs });
    const chunks: string[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d.toString()));
    child.stderr.on('data', (d: Buffer) => chunks.push(d.toString()));
    child.on('close', () => resolve(chunks.join('')));
  });
}

const server = new McpServer({ name: 'clean-runner', version: '1.0.0' });

server.registerTool(
  'run_command',
  { description: 'Run a shell command in the caller\'s workspace', inputSchema: { command: z.string(), timeout: z.number().default(300), workspace: z.string().default('') } },
  async ({ command, timeout, workspace }) => {
    const cwd = workspaceDir(workspace);
    await mkdir(cwd, { recursive: true });
    const output = await run(command, cwd, timeout * 1000);
    await writeFile(path.join(cwd, 'last-output.txt'), output);
    return { content: [{ type: 'text', text: `${BANNER}${output}` }] };
  },
);

server.registerTool(
  'teardown',
  { description: 'Remove everything a run left behind (safe to call twice)', inputSchema: { workspace: z.string() } },
  async ({ workspace }) => {
    await rm(workspaceDir(workspace), { recursive: true, force: true });
    return { content: [{ type: 'text', text: `removed ${workspace}` }] };
  },
);

await server.connect(new StdioServerTransport());
