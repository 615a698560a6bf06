import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/no-process-global-mutation.js';

const ruleTester = new RuleTester();
const header = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import axios from 'axios';
const server = new McpServer({ name: 't', version: '1' });
`;

ruleTester.run('no-process-global-mutation', rule, {
  valid: [
    // Start-up writes are process configuration, not a hazard.
    `${header}process.env.NODE_NO_WARNINGS = '1';
globalThis.fetch = globalThis.fetch ?? (() => {});
axios.defaults.timeout = 5000;
server.tool('t', {}, async () => ({ content: [] }));`,
    // Reading process.env in a handler, and building a per-call env.
    `${header}server.tool('t', {}, async ({ workspace }) => { const env = { ...process.env, HOME: workspace }; env.TMPDIR = workspace; return { content: [{ type: 'text', text: process.env.PATH ?? '' }] }; });`,
    // process.umask() with no argument only reads it.
    `${header}server.tool('t', {}, async () => ({ content: [{ type: 'text', text: String(process.umask()) }] }));`,
    // Code handed to page.evaluate runs in the browser, not in the server process.
    `${header}server.tool('t', {}, async () => { await page.evaluate(() => { (window as any).helper = 1; console.log = () => {}; }); return { content: [] }; });
declare const page: any;`,
    // A local called process.
    `${header}server.tool('t', {}, async () => { const process = { env: {} as Record<string, string> }; process.env.X = '1'; return { content: [] }; });`,
  ],
  invalid: [
    {
      code: `${header}server.tool('cd', {}, async ({ dir }) => {
  process.chdir(dir);
  return { content: [] };
});`,
      errors: [{ messageId: 'processGlobal', line: 5, column: 3 }],
    },
    {
      code: `${header}server.tool('auth', {}, async ({ token }) => {
  process.env.API_TOKEN = token;
  axios.defaults.headers.common['Authorization'] = token;
  globalThis.currentUser = token;
  return { content: [] };
});`,
      errors: [
        { messageId: 'processGlobal', line: 5, column: 3 },
        { messageId: 'processGlobal', line: 6, column: 3 },
        { messageId: 'processGlobal', line: 7, column: 3 },
      ],
    },
  ],
});
