import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/no-shared-scope-fallback.js';

const ruleTester = new RuleTester();

ruleTester.run('no-shared-scope-fallback', rule, {
  valid: [
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
    // Outside handler code.
    `import os from 'node:os';
export const dir = (workspace?: string) => workspace || os.homedir();`,
  ],
  invalid: [
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
  ],
});
