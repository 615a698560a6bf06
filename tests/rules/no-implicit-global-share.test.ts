import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/no-implicit-global-share.js';

const ruleTester = new RuleTester();

ruleTester.run('no-implicit-global-share', rule, {
  valid: [
    // Tenant scope, explicit or by default.
    `const server = { name: 'kali', concurrencyModel: 'shared', maxConcurrent: 8, shareScope: 'tenant' };`,
    `const server = { name: 'kali', concurrencyModel: 'shared', maxConcurrent: 8 };`,
    `defineMcp({ name: 'kali', concurrency: { model: 'shared', maxConcurrent: 8, shareScope: 'tenant' } });`,
    // Global, opted in by name or by id after review.
    {
      code: `const server = { name: 'kali', concurrencyModel: 'shared', shareScope: 'global' };`,
      options: [{ allowGlobal: ['kali'] }],
    },
    {
      code: `const server = { id: 'mcp-kali', name: 'Kali', concurrencyModel: 'shared', shareScope: 'global' as const };`,
      options: [{ allowGlobal: ['mcp-kali'] }],
    },
    {
      code: `const SCOPE = 'global';
             defineMcp({ name: 'kali', concurrency: { model: 'shared', maxConcurrent: 2, shareScope: SCOPE } });`,
      options: [{ allowGlobal: ['kali'] }],
    },
    // Unrelated 'global' values.
    `const logger = { scope: 'global', level: 'info' };`,
    `const cache = { share: 'global', model: 'shared' };`,
    // A query for globally shared servers is not a record.
    `const count = await servers.countDocuments({ concurrencyModel: 'shared', shareScope: 'global' });`,
    // Unresolvable values are unknown, never guessed at.
    `const server = { name: 'kali', concurrencyModel: 'shared', shareScope: scopeFromEnv() };`,
    `import { SCOPE } from './scope.js';
     const server = { name: 'kali', concurrencyModel: 'shared', shareScope: SCOPE };`,
    `const server = { name: 'kali', concurrencyModel: modelFor(env), shareScope: 'tenant' };`,
    `const server = { name: 'kali', concurrencyModel: 'sidecar', shareScope: 'global', ...promotion };`,
    // Unknown model with tenant scope: it may well be shared.
    `const server = { ...defaults, name: 'kali', shareScope: 'tenant' };`,
    // A base only spread into records: checked through them.
    {
      code: `const globalBase = { concurrencyModel: 'shared', shareScope: 'global' } as const;
             export const kali = { ...globalBase, name: 'kali', maxConcurrent: 2 };`,
      options: [{ allowGlobal: ['kali'] }],
    },
  ],
  invalid: [
    {
      code: `const server = { name: 'kali', concurrencyModel: 'shared', maxConcurrent: 8, shareScope: 'global' };`,
      errors: [
        {
          messageId: 'globalNotAllowed',
          data: { server: "MCP server 'kali'", name: 'kali' },
          line: 1,
          column: 78,
          endColumn: 98,
          suggestions: [
            {
              messageId: 'useTenant',
              output: `const server = { name: 'kali', concurrencyModel: 'shared', maxConcurrent: 8, shareScope: 'tenant' };`,
            },
          ],
        },
      ],
    },
    {
      // allowGlobal lists other servers only.
      code: `const server = { name: "nmap", concurrencyModel: "shared", shareScope: "global" as const };`,
      options: [{ allowGlobal: ['kali'] }],
      errors: [
        {
          messageId: 'globalNotAllowed',
          data: { server: "MCP server 'nmap'", name: 'nmap' },
          line: 1,
          column: 60,
          suggestions: [
            {
              messageId: 'useTenant',
              output: `const server = { name: "nmap", concurrencyModel: "shared", shareScope: "tenant" as const };`,
            },
          ],
        },
      ],
    },
    {
      // No literal name: it cannot be opted in by name.
      code: `function register(name: string) {
  return { name, concurrencyModel: 'shared', shareScope: 'global' };
}`,
      options: [{ allowGlobal: ['kali'] }],
      errors: [
        {
          messageId: 'globalUnnamed',
          data: { server: 'This MCP server', name: '' },
          line: 2,
          column: 46,
          suggestions: [
            {
              messageId: 'useTenant',
              output: `function register(name: string) {
  return { name, concurrencyModel: 'shared', shareScope: 'tenant' };
}`,
            },
          ],
        },
      ],
    },
    {
      // On an SDK definition, and through a const scope string (the use is replaced, not the const).
      code: `const SCOPE = 'global';
defineMcp({ name: 'kali', concurrency: { model: 'shared', maxConcurrent: 2, shareScope: SCOPE } });`,
      errors: [
        {
          messageId: 'globalNotAllowed',
          data: { server: "MCP server 'kali'", name: 'kali' },
          line: 2,
          column: 77,
          suggestions: [
            {
              messageId: 'useTenant',
              output: `const SCOPE = 'global';
defineMcp({ name: 'kali', concurrency: { model: 'shared', maxConcurrent: 2, shareScope: 'tenant' } });`,
            },
          ],
        },
      ],
    },
    {
      // Inherited from a base: reported at the spread, no suggestion (the base has other users).
      code: `const globalBase = { concurrencyModel: 'shared', shareScope: 'global' } as const;
export const kali = { ...globalBase, name: 'kali', maxConcurrent: 2 };
export const nmap = { ...globalBase, name: 'nmap', maxConcurrent: 2 };`,
      options: [{ allowGlobal: ['kali'] }],
      errors: [
        { messageId: 'globalNotAllowed', data: { server: "MCP server 'nmap'", name: 'nmap' }, line: 3, column: 23, endColumn: 36, suggestions: null },
      ],
    },
    {
      // A partial update with no model still widens the scope.
      code: `await registry.update('kali', { name: 'kali', shareScope: 'global' });`,
      errors: [
        {
          messageId: 'globalNotAllowed',
          line: 1,
          column: 47,
          suggestions: [
            { messageId: 'useTenant', output: `await registry.update('kali', { name: 'kali', shareScope: 'tenant' });` },
          ],
        },
      ],
    },
    {
      // Scope on a non-shared model is meaningless, whichever scope; the suggestion removes it with its comma.
      code: `const a = { name: 'a', concurrencyModel: 'sidecar', shareScope: 'tenant' };
const b = { name: 'b', shareScope: 'global', concurrencyModel: 'warm_pool' };`,
      errors: [
        {
          messageId: 'scopeWithoutShared',
          data: { server: "MCP server 'a'", scope: "'tenant'", modelKey: 'concurrencyModel', model: "'sidecar'" },
          line: 1,
          column: 53,
          endColumn: 73,
          suggestions: [
            {
              messageId: 'removeScope',
              output: `const a = { name: 'a', concurrencyModel: 'sidecar' };
const b = { name: 'b', shareScope: 'global', concurrencyModel: 'warm_pool' };`,
            },
          ],
        },
        {
          messageId: 'scopeWithoutShared',
          data: { server: "MCP server 'b'", scope: "'global'", modelKey: 'concurrencyModel', model: "'warm_pool'" },
          line: 2,
          column: 24,
          suggestions: [
            {
              messageId: 'removeScope',
              output: `const a = { name: 'a', concurrencyModel: 'sidecar', shareScope: 'tenant' };
const b = { name: 'b', concurrencyModel: 'warm_pool' };`,
            },
          ],
        },
      ],
    },
    {
      // On its own line: the whole line goes.
      code: `defineMcp({
  name: 'notes',
  concurrency: {
    model: 'sidecar',
    shareScope: 'tenant',
  },
});`,
      errors: [
        {
          messageId: 'scopeWithoutShared',
          data: { server: "MCP server 'notes'", scope: "'tenant'", modelKey: 'concurrency.model', model: "'sidecar'" },
          line: 5,
          column: 5,
          suggestions: [
            {
              messageId: 'removeScope',
              output: `defineMcp({
  name: 'notes',
  concurrency: {
    model: 'sidecar',
  },
});`,
            },
          ],
        },
      ],
    },
    {
      // Last property without a trailing comma; and a comment in the way means no removal suggestion.
      code: `const a = {
  name: 'a',
  concurrencyModel: 'sidecar',
  shareScope: 'tenant'
};
const b = { name: 'b', concurrencyModel: 'sidecar', shareScope: 'tenant' /* why */, maxConcurrent: 1 };`,
      errors: [
        {
          messageId: 'scopeWithoutShared',
          line: 4,
          column: 3,
          suggestions: [
            {
              messageId: 'removeScope',
              output: `const a = {
  name: 'a',
  concurrencyModel: 'sidecar'
};
const b = { name: 'b', concurrencyModel: 'sidecar', shareScope: 'tenant' /* why */, maxConcurrent: 1 };`,
            },
          ],
        },
        { messageId: 'scopeWithoutShared', line: 6, column: 53, suggestions: null },
      ],
    },
  ],
});
