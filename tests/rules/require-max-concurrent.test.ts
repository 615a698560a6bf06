import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/require-max-concurrent.js';

const ruleTester = new RuleTester();

ruleTester.run('require-max-concurrent', rule, {
  valid: [
    // A positive integer, on a record and on an SDK definition.
    `const server = { name: 'kali', concurrencyModel: 'shared', maxConcurrent: 8, statelessnessProbePassed: true };`,
    `defineMcp({ name: 'kali', concurrency: { model: 'shared', maxConcurrent: 8 } });`,
    // From a named positive-integer const, directly or through a const object.
    `const MAX_CONCURRENT = 4;
     const server = { name: 'kali', concurrencyModel: 'shared', maxConcurrent: MAX_CONCURRENT };`,
    `const LIMITS = { kali: 6 } as const;
     defineMcp({ name: 'kali', concurrency: { model: 'shared', maxConcurrent: LIMITS.kali } });`,
    // Not shared: sidecar (the default) and warm_pool need no limit.
    `const server = { name: 'notes', concurrencyModel: 'sidecar' };`,
    `const server = { name: 'notes', concurrencyModel: 'warm_pool' };`,
    `defineMcp({ name: 'notes', concurrency: { model: 'sidecar' } });`,
    `const server = { name: 'notes' };`,
    // 'shared' that is not a concurrency model.
    `const ui = { mode: 'shared', layout: 'grid' };`,
    `const cache = { model: 'shared', size: 10 };`,
    `const llm = { name: 'planner', options: { model: 'shared' } };`,
    `await pMap(items, fetchOne, { concurrency: 8 });`,
    `const queue = { name: 'jobs', concurrency: { limit: 4 } };`,
    // Unresolvable values are unknown, never guessed at.
    `import { MAX } from './limits.js';
     const server = { name: 'kali', concurrencyModel: 'shared', maxConcurrent: MAX };`,
    `import os from 'node:os';
     defineMcp({ name: 'kali', concurrency: { model: 'shared', maxConcurrent: os.cpus().length } });`,
    `let max = 0;
     max = 8;
     const server = { name: 'kali', concurrencyModel: 'shared', maxConcurrent: max };`,
    `function register(max: number) {
       return { name: 'kali', concurrencyModel: 'shared', maxConcurrent: max };
     }`,
    `import { MODEL } from './model.js';
     const server = { name: 'kali', concurrencyModel: MODEL };`,
    `const server = { name: 'kali', concurrencyModel: pickModel() };`,
    // A spread we cannot see may carry maxConcurrent (or change the model).
    `const server = { ...loadDefaults(), name: 'kali', concurrencyModel: 'shared' };`,
    `const server = { name: 'kali', concurrencyModel: 'shared', ...overrides };`,
    `defineMcp({ name: 'kali', concurrency: { ...limits, model: 'shared' } });`,
    `const server = { name: 'kali', concurrencyModel: 'shared', [limitKey]: 8 };`,
    // A base object only ever spread into complete records is checked through them, not on its own.
    `const base = { concurrencyModel: 'shared', statelessnessProbePassed: true } as const;
     export const kali = { ...base, name: 'kali', maxConcurrent: 4 };
     export const nmap = { ...base, name: 'nmap', maxConcurrent: 2 };`,
    `const sharedConcurrency = { model: 'shared' } as const;
     defineMcp({ name: 'kali', concurrency: { ...sharedConcurrency, maxConcurrent: 4 } });`,
    // ...also when exported, or when parts of it are read or spread.
    `export const base = { concurrencyModel: 'shared', statelessnessProbePassed: true };
     export const kali = { ...base, name: 'kali', maxConcurrent: 4 };`,
    `const base = { name: 'kali', concurrency: { model: 'shared' } } as const;
     console.log(base.name);
     defineMcp({ ...base, concurrency: { ...base.concurrency, maxConcurrent: 4 } });`,
    // Queries select records; they are not records.
    `const servers = await db.mcpServer.findMany({ where: { concurrencyModel: 'shared' } });`,
    `const shared = _.filter(servers, { concurrencyModel: 'shared' });`,
    // A const model string with a limit.
    `const MODEL = 'shared';
     const server = { name: 'kali', concurrencyModel: MODEL, maxConcurrent: 3 };`,
  ],
  invalid: [
    {
      // Missing on a record: reported at the record, with the 'sidecar' suggestion.
      code: `const server = { name: 'kali', concurrencyModel: 'shared' };`,
      errors: [
        {
          messageId: 'missingMaxConcurrent',
          data: { server: "MCP server 'kali'", modelKey: 'concurrencyModel' },
          line: 1,
          column: 16,
          endLine: 1,
          endColumn: 60,
          suggestions: [
            { messageId: 'useSidecar', output: `const server = { name: 'kali', concurrencyModel: 'sidecar' };` },
          ],
        },
      ],
    },
    {
      // Missing on an SDK definition: reported at the `concurrency` object.
      code: `defineMcp({ name: 'kali', concurrency: { model: 'shared' } });`,
      errors: [
        {
          messageId: 'missingMaxConcurrent',
          data: { server: "MCP server 'kali'", modelKey: 'concurrency.model' },
          line: 1,
          column: 40,
          endColumn: 59,
          suggestions: [
            { messageId: 'useSidecar', output: `defineMcp({ name: 'kali', concurrency: { model: 'sidecar' } });` },
          ],
        },
      ],
    },
    {
      // Nested definition calls; `as const` and `satisfies` around the objects; double quotes kept.
      code: `export default defineServer({
  mcps: [
    defineMcp({ name: "kali", concurrency: { model: "shared" as const } }),
    defineMcp({ name: "notes", concurrency: { model: "sidecar" } }),
  ],
} satisfies ServerConfig);`,
      errors: [
        {
          messageId: 'missingMaxConcurrent',
          line: 3,
          column: 44,
          suggestions: [
            {
              messageId: 'useSidecar',
              output: `export default defineServer({
  mcps: [
    defineMcp({ name: "kali", concurrency: { model: "sidecar" as const } }),
    defineMcp({ name: "notes", concurrency: { model: "sidecar" } }),
  ],
} satisfies ServerConfig);`,
            },
          ],
        },
      ],
    },
    {
      // The model from a const string: the suggestion replaces the use, not the shared const.
      code: `const MODEL = 'shared';
const server = { id: 'kali', concurrencyModel: MODEL } as const satisfies McpServer;`,
      errors: [
        {
          messageId: 'missingMaxConcurrent',
          data: { server: "MCP server 'kali'", modelKey: 'concurrencyModel' },
          line: 2,
          column: 16,
          suggestions: [
            {
              messageId: 'useSidecar',
              output: `const MODEL = 'shared';
const server = { id: 'kali', concurrencyModel: 'sidecar' } as const satisfies McpServer;`,
            },
          ],
        },
      ],
    },
    {
      // The model arrives through a spread of a same-file base: reported at the record, and no suggestion (the
      // model is written in the base, which other records share).
      code: `const sharedBase = { concurrencyModel: 'shared', statelessnessProbePassed: true };
export const kali = { ...sharedBase, name: 'kali' };`,
      errors: [{ messageId: 'missingMaxConcurrent', line: 2, column: 21, suggestions: null }],
    },
    {
      // No literal name: the message says so rather than inventing one.
      code: `registry.add({ concurrencyModel: 'shared', statelessnessProbePassed: true });`,
      errors: [
        {
          messageId: 'missingMaxConcurrent',
          data: { server: 'This MCP server', modelKey: 'concurrencyModel' },
          line: 1,
          column: 14,
          suggestions: [
            {
              messageId: 'useSidecar',
              output: `registry.add({ concurrencyModel: 'sidecar', statelessnessProbePassed: true });`,
            },
          ],
        },
      ],
    },
    {
      // `concurrency` from a shared const: reported where the definition names it, once per definition; no
      // suggestion, since editing the const would change every definition using it.
      code: `const sharedConcurrency = { model: 'shared' } as const;
defineMcp({ name: 'kali', concurrency: sharedConcurrency });
defineMcp({ name: 'nmap', concurrency: sharedConcurrency });`,
      errors: [
        { messageId: 'missingMaxConcurrent', data: { server: "MCP server 'kali'", modelKey: 'concurrency.model' }, line: 2, column: 27, suggestions: null },
        { messageId: 'missingMaxConcurrent', data: { server: "MCP server 'nmap'", modelKey: 'concurrency.model' }, line: 3, column: 27, suggestions: null },
      ],
    },
    {
      // Zero, negative, fractional, Infinity, NaN, null, undefined: each reported at its property.
      code: `const a = { name: 'a', concurrencyModel: 'shared', maxConcurrent: 0 };
const b = { name: 'b', concurrencyModel: 'shared', maxConcurrent: -1 };
const c = { name: 'c', concurrencyModel: 'shared', maxConcurrent: 1.5 };
const d = { name: 'd', concurrencyModel: 'shared', maxConcurrent: Infinity };
const e = { name: 'e', concurrencyModel: 'shared', maxConcurrent: NaN };
const f = { name: 'f', concurrencyModel: 'shared', maxConcurrent: null };
const g = defineMcp({ name: 'g', concurrency: { model: 'shared', maxConcurrent: undefined } });`,
      errors: [
        { messageId: 'invalidMaxConcurrent', data: { server: "MCP server 'a'", modelKey: 'concurrencyModel', value: '0' }, line: 1, column: 52, endColumn: 68, suggestions: null },
        { messageId: 'invalidMaxConcurrent', data: { server: "MCP server 'b'", modelKey: 'concurrencyModel', value: '-1' }, line: 2, column: 52, endColumn: 69, suggestions: null },
        { messageId: 'invalidMaxConcurrent', data: { server: "MCP server 'c'", modelKey: 'concurrencyModel', value: '1.5' }, line: 3, column: 52, suggestions: null },
        { messageId: 'invalidMaxConcurrent', data: { server: "MCP server 'd'", modelKey: 'concurrencyModel', value: 'Infinity' }, line: 4, column: 52, suggestions: null },
        { messageId: 'invalidMaxConcurrent', data: { server: "MCP server 'e'", modelKey: 'concurrencyModel', value: 'NaN' }, line: 5, column: 52, suggestions: null },
        { messageId: 'invalidMaxConcurrent', data: { server: "MCP server 'f'", modelKey: 'concurrencyModel', value: 'null' }, line: 6, column: 52, suggestions: null },
        { messageId: 'invalidMaxConcurrent', data: { server: "MCP server 'g'", modelKey: 'concurrency.model', value: 'undefined' }, line: 7, column: 66, suggestions: null },
      ],
    },
    {
      // A numeric string: suggest the number. A non-numeric string or an object: no safe suggestion.
      code: `const a = { name: 'a', concurrencyModel: 'shared', maxConcurrent: '8' };
const b = { name: 'b', concurrencyModel: 'shared', maxConcurrent: 'eight' };
const c = { name: 'c', concurrencyModel: 'shared', maxConcurrent: { max: 8 } };`,
      errors: [
        {
          messageId: 'invalidMaxConcurrent',
          data: { server: "MCP server 'a'", modelKey: 'concurrencyModel', value: "'8'" },
          line: 1,
          column: 52,
          suggestions: [
            {
              messageId: 'useNumber',
              data: { value: '8' },
              output: `const a = { name: 'a', concurrencyModel: 'shared', maxConcurrent: 8 };
const b = { name: 'b', concurrencyModel: 'shared', maxConcurrent: 'eight' };
const c = { name: 'c', concurrencyModel: 'shared', maxConcurrent: { max: 8 } };`,
            },
          ],
        },
        { messageId: 'invalidMaxConcurrent', data: { server: "MCP server 'b'", modelKey: 'concurrencyModel', value: "'eight'" }, line: 2, column: 52, suggestions: null },
        { messageId: 'invalidMaxConcurrent', data: { server: "MCP server 'c'", modelKey: 'concurrencyModel', value: 'an object' }, line: 3, column: 52, suggestions: null },
      ],
    },
    {
      // A named const that is not a positive integer is followed to its value.
      code: `const MAX_CONCURRENT = 0;
const server = { name: 'kali', concurrencyModel: 'shared', maxConcurrent: MAX_CONCURRENT };`,
      errors: [
        {
          messageId: 'invalidMaxConcurrent',
          data: { server: "MCP server 'kali'", modelKey: 'concurrencyModel', value: '0' },
          line: 2,
          column: 60,
          suggestions: null,
        },
      ],
    },
    {
      // A base that is also used whole, as a record, is one: reported itself; the complete copy is fine.
      code: `const kali = { name: 'kali', concurrencyModel: 'shared' };
registry.add(kali);
registry.add({ ...kali, maxConcurrent: 2 });`,
      errors: [
        {
          messageId: 'missingMaxConcurrent',
          data: { server: "MCP server 'kali'", modelKey: 'concurrencyModel' },
          line: 1,
          column: 14,
          suggestions: [
            {
              messageId: 'useSidecar',
              output: `const kali = { name: 'kali', concurrencyModel: 'sidecar' };
registry.add(kali);
registry.add({ ...kali, maxConcurrent: 2 });`,
            },
          ],
        },
      ],
    },
    {
      // A bad limit inherited from a base is reported at the spread that brings it in.
      code: `const base = { concurrencyModel: 'shared', maxConcurrent: -1 };
export const kali = { name: 'kali', ...base };`,
      errors: [
        {
          messageId: 'invalidMaxConcurrent',
          data: { server: "MCP server 'kali'", modelKey: 'concurrencyModel', value: '-1' },
          line: 2,
          column: 37,
          endColumn: 44,
          suggestions: null,
        },
      ],
    },
    {
      // A spread before the model cannot hide anything written after it.
      code: `const server = { ...loadDefaults(), name: 'kali', concurrencyModel: 'shared', maxConcurrent: 0 };`,
      errors: [{ messageId: 'invalidMaxConcurrent', line: 1, column: 79, suggestions: null }],
    },
  ],
});
