import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/require-teardown-tool.js';

const ruleTester = new RuleTester();

ruleTester.run('require-teardown-tool', rule, {
  valid: [
    // An idempotent cleanup tool: rm with force, and rmdir with ENOENT tolerated.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
const server = new McpServer({ name: 't', version: '1' });
server.tool('save', { workspace: z.string() }, async ({ workspace }) => {
  await writeFile(path.join('/srv/runs', path.basename(workspace), 'out.txt'), '');
  return { content: [] };
});
server.tool('cleanup', { workspace: z.string() }, async ({ workspace }) => {
  const dir = path.join('/srv/runs', path.basename(workspace));
  await rm(dir, { recursive: true, force: true });
  try {
    await rmdir(dir);
  } catch (e) {
    if ((e as { code?: string }).code !== 'ENOENT') throw e;
  }
  return { content: [] };
});`,
    // Tools that do not keep files under a scope argument need no teardown.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { writeFile } from 'node:fs/promises';
const server = new McpServer({ name: 't', version: '1' });
server.tool('save', {}, async () => {
  await writeFile('/tmp/x', '');
  return { content: [] };
});
`,
  ],
  invalid: [
    {
      // Files under the scope, no teardown tool: reported once, at the server construction.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
const server = new McpServer({ name: 't', version: '1' });
server.tool('save', { workspace: z.string(), text: z.string() }, async ({ workspace, text }) => {
  const dir = path.join('/srv/runs', path.basename(workspace));
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'out.txt'), text);
  return { content: [] };
});`,
      errors: [{ messageId: 'missingTeardown', line: 5, column: 16, suggestions: null }],
    },
    {
      // A teardown routed by a switch whose removals fail when the data is already gone.
      code: `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import fs from 'node:fs';
import path from 'node:path';
const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments as { workspace: string };
  const dir = path.join('/srv/runs', path.basename(args.workspace));
  switch (request.params.name) {
    case 'write':
      fs.writeFileSync(path.join(dir, 'x'), '');
      return { content: [] };
    case 'delete_workspace':
      fs.rmSync(dir, { recursive: true });
      await fs.promises.rm(dir);
      fs.unlinkSync(path.join(dir, 'x'));
      return { content: [] };
  }
  return { content: [] };
});
`,
      errors: [
        { messageId: 'notIdempotent', line: 14, column: 10, suggestions: [{ messageId: 'addForce', output: `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import fs from 'node:fs';
import path from 'node:path';
const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments as { workspace: string };
  const dir = path.join('/srv/runs', path.basename(args.workspace));
  switch (request.params.name) {
    case 'write':
      fs.writeFileSync(path.join(dir, 'x'), '');
      return { content: [] };
    case 'delete_workspace':
      fs.rmSync(dir, { recursive: true, force: true });
      await fs.promises.rm(dir);
      fs.unlinkSync(path.join(dir, 'x'));
      return { content: [] };
  }
  return { content: [] };
});
` }] },
        { messageId: 'notIdempotent', line: 15, column: 25, suggestions: [{ messageId: 'addForce', output: `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import fs from 'node:fs';
import path from 'node:path';
const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments as { workspace: string };
  const dir = path.join('/srv/runs', path.basename(args.workspace));
  switch (request.params.name) {
    case 'write':
      fs.writeFileSync(path.join(dir, 'x'), '');
      return { content: [] };
    case 'delete_workspace':
      fs.rmSync(dir, { recursive: true });
      await fs.promises.rm(dir, { recursive: true, force: true });
      fs.unlinkSync(path.join(dir, 'x'));
      return { content: [] };
  }
  return { content: [] };
});
` }] },
        { messageId: 'notIdempotent', line: 16, column: 10, suggestions: null },
      ],
    },
    {
      // A custom teardown name pattern: 'clean_up' no longer counts.
      code: `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
const server = new McpServer({ name: 't', version: '1' });
server.tool('save', {}, async ({ workspace }: { workspace: string }) => { await writeFile(path.join('/runs', path.basename(workspace), 'x'), ''); return { content: [] }; });
server.tool('clean_up', {}, async ({ workspace }: { workspace: string }) => { await rm(path.join('/runs', path.basename(workspace)), { recursive: true, force: true }); return { content: [] }; });`,
      options: [{ teardownPattern: '^finish_run$' }],
      errors: [{ messageId: 'missingTeardown', line: 4, column: 16, suggestions: null }],
    },
  ],
});
