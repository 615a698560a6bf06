// A notes-and-scanner MCP server that works for one user at a time and leaks between callers when shared.
// Every hazard here is deliberate: `mcp-stateless examples/` reports each one.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const notes: string[] = [];
let currentTarget: string | null = null;
const notesBySession = new Map<string, string[]>();
let apiSession: { token: string } | null = null;

const server = new McpServer({ name: 'leaky-notes', version: '1.0.0' });

function remember(note: string): void {
  notes.push(note);
}

server.registerTool(
  'add_note',
  { description: 'Remember a note', inputSchema: { note: z.string() } },
  async ({ note }, extra) => {
    remember(note);
    notesBySession.get(extra.sessionId ?? '')?.push(note);
    return { content: [{ type: 'text', text: notes.join('\n') }] };
  },
);

server.registerTool(
  'set_target',
  { description: 'Choose the host later scans run against', inputSchema: { host: z.string() } },
  async ({ host }) => {
    currentTarget = host;
    return { content: [{ type: 'text', text: `target is ${host}` }] };
  },
);

server.registerTool(
  'scan',
  { description: 'Scan the current target', inputSchema: { token: z.string() } },
  async ({ token }) => {
    if (!apiSession) apiSession = { token };
    process.env.SCAN_TARGET = currentTarget ?? '';
    return { content: [{ type: 'text', text: `scanned ${currentTarget} as ${apiSession.token}` }] };
  },
);

await server.connect(new StdioServerTransport());
