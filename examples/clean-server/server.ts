// The same tools written so that only the call and its response carry information between caller and server.
// `mcp-stateless examples/` reports nothing here, although it looks a lot like the leaky one.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

// Read-only lookup table: never written by a handler.
const SEVERITY = { low: 1, medium: 2, high: 3 } as const;
// Locks keyed by the caller's own workspace argument, used only within the call.
const busy = new Map<string, boolean>();
// Start-up state: filled before any call, only read afterwards.
const defaults: string[] = [];
defaults.push('--fast');

const server = new McpServer({ name: 'clean-notes', version: '1.0.0' });

server.registerTool(
  'add_note',
  { description: 'Echo the notes this call carries', inputSchema: { notes: z.array(z.string()), note: z.string() } },
  async ({ notes, note }) => {
    const all = [...notes];
    all.push(note);
    return { content: [{ type: 'text', text: all.join('\n') }] };
  },
);

server.registerTool(
  'scan',
  { description: 'Scan a host', inputSchema: { host: z.string(), workspace: z.string(), level: z.enum(['low', 'medium', 'high']) } },
  async ({ host, workspace, level }) => {
    busy.set(workspace, true);
    try {
      const session = { token: `per-call-${workspace}` };
      const flags = [...defaults, `--level=${SEVERITY[level]}`];
      return { content: [{ type: 'text', text: `scanned ${host} as ${session.token} with ${flags.join(' ')}` }] };
    } finally {
      busy.delete(workspace);
    }
  },
);

await server.connect(new StdioServerTransport());
