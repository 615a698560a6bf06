// A command runner that works for one caller at a time and leaks between callers when shared.
// Every hazard here is deliberate: `mcp-stateless examples/` reports each one.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { exec, execSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rmdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

const RUNS_ROOT = '/srv/runs';
// One scratch directory for every caller, made at start-up.
const SCRATCH = mkdtempSync(path.join(os.tmpdir(), 'runner-'));

const server = new McpServer({ name: 'leaky-runner', version: '1.0.0' });

server.registerTool(
  'run_command',
  { description: 'Run a shell command', inputSchema: { command: z.string(), workspace: z.string().optional() } },
  async ({ command, workspace }) => {
    const cwd = path.join(RUNS_ROOT, workspace || os.homedir());
    const child = spawn('/bin/sh', ['-c', command], { cwd });
    const chunks: string[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d.toString()));
    await new Promise((resolve) => child.on('close', resolve));
    writeFileSync('/tmp/last-output.txt', chunks.join(''));
    return { content: [{ type: 'text', text: chunks.join('') }] };
  },
);

server.registerTool(
  'last_output',
  { description: 'Show what the last command printed', inputSchema: {} },
  async () => ({ content: [{ type: 'text', text: readFileSync('/tmp/last-output.txt', 'utf8') }] }),
);

server.registerTool(
  'build',
  { description: 'Build the project in the scratch dir', inputSchema: { target: z.string() } },
  async ({ target }) => {
    execSync(`make ${target} > build.log`, { cwd: SCRATCH });
    exec('git status', { cwd: process.cwd() });
    return { content: [{ type: 'text', text: 'built' }] };
  },
);

server.registerTool(
  'clean_up',
  { description: 'Remove a run', inputSchema: { workspace: z.string() } },
  async ({ workspace }) => {
    await rmdir(path.join(RUNS_ROOT, workspace));
    return { content: [{ type: 'text', text: 'removed' }] };
  },
);

await server.connect(new StdioServerTransport());
