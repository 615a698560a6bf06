import { RuleTester } from '@typescript-eslint/rule-tester';
import rule from '../../rules/require-statelessness-probe.js';

const ruleTester = new RuleTester();

const notPassed = (server: string, value: string) => ({ server, value });

ruleTester.run('require-statelessness-probe', rule, {
  valid: [
    `const server = { name: 'kali', concurrencyModel: 'shared', maxConcurrent: 8, statelessnessProbePassed: true };`,
    `const PASSED = true;
     const server = { name: 'kali', concurrencyModel: 'shared', statelessnessProbePassed: PASSED } as const;`,
    // Not shared: nothing to earn.
    `const server = { name: 'notes', concurrencyModel: 'sidecar', statelessnessProbePassed: false };`,
    `const server = { name: 'notes', concurrencyModel: 'warm_pool' };`,
    `const server = { name: 'notes', probe: { passed: true } };`,
    // 'shared' that is not a registry record's concurrency model.
    `const ui = { mode: 'shared' };`,
    `const cache = { model: 'shared' };`,
    // An SDK definition is code, not a registry record: the probe result is recorded at registration.
    `defineMcp({ name: 'kali', concurrency: { model: 'shared', maxConcurrent: 4 } });`,
    // Unresolvable values are unknown, never guessed at.
    `const server = { name: 'kali', concurrencyModel: 'shared', statelessnessProbePassed: result.passed };`,
    `import { probePassed } from './probe-results.js';
     const server = { name: 'kali', concurrencyModel: 'shared', statelessnessProbePassed: probePassed };`,
    `const server = { name: 'kali', concurrencyModel: modelFromArgs(), statelessnessProbePassed: false };`,
    `const server = { ...probeResults, name: 'kali', concurrencyModel: 'shared' };`,
    `const server = { name: 'kali', concurrencyModel: 'shared', statelessnessProbePassed: false, ...probeResults };`,
    // A query is not a record.
    `const unprobed = await prisma.mcpServer.findFirst({ where: { concurrencyModel: 'shared', statelessnessProbePassed: false } });`,
    // A base only spread into records that carry the flag.
    `const base = { concurrencyModel: 'shared', maxConcurrent: 2 };
     export const kali = { ...base, name: 'kali', statelessnessProbePassed: true };`,
  ],
  invalid: [
    {
      // Missing: reported at the record. The suggestion registers it as 'sidecar'; nothing ever adds the flag.
      code: `const server = { name: 'kali', concurrencyModel: 'shared', maxConcurrent: 8 };`,
      errors: [
        {
          messageId: 'missingProbe',
          data: notPassed("MCP server 'kali'", 'missing'),
          line: 1,
          column: 16,
          endColumn: 78,
          suggestions: [
            {
              messageId: 'useSidecar',
              output: `const server = { name: 'kali', concurrencyModel: 'sidecar', maxConcurrent: 8 };`,
            },
          ],
        },
      ],
    },
    {
      // Present but false: reported at the property.
      code: `const server = { id: 'kali', concurrencyModel: 'shared', statelessnessProbePassed: false };`,
      errors: [
        {
          messageId: 'probeNotPassed',
          data: notPassed("MCP server 'kali'", 'false'),
          line: 1,
          column: 58,
          endColumn: 89,
          suggestions: [
            {
              messageId: 'useSidecar',
              output: `const server = { id: 'kali', concurrencyModel: 'sidecar', statelessnessProbePassed: false };`,
            },
          ],
        },
      ],
    },
    {
      // Truthy is not true: the string 'true', 1, a const resolving to false.
      code: `const NOT_YET = false;
const a = { name: 'a', concurrencyModel: 'shared', statelessnessProbePassed: 'true' };
const b = { name: 'b', concurrencyModel: "shared", statelessnessProbePassed: 1 };
const c = { name: 'c', concurrencyModel: 'shared', statelessnessProbePassed: NOT_YET };`,
      errors: [
        {
          messageId: 'probeNotPassed',
          data: notPassed("MCP server 'a'", "'true'"),
          line: 2,
          column: 52,
          suggestions: [
            {
              messageId: 'useSidecar',
              output: `const NOT_YET = false;
const a = { name: 'a', concurrencyModel: 'sidecar', statelessnessProbePassed: 'true' };
const b = { name: 'b', concurrencyModel: "shared", statelessnessProbePassed: 1 };
const c = { name: 'c', concurrencyModel: 'shared', statelessnessProbePassed: NOT_YET };`,
            },
          ],
        },
        {
          messageId: 'probeNotPassed',
          data: notPassed("MCP server 'b'", '1'),
          line: 3,
          column: 52,
          suggestions: [
            {
              messageId: 'useSidecar',
              output: `const NOT_YET = false;
const a = { name: 'a', concurrencyModel: 'shared', statelessnessProbePassed: 'true' };
const b = { name: 'b', concurrencyModel: "sidecar", statelessnessProbePassed: 1 };
const c = { name: 'c', concurrencyModel: 'shared', statelessnessProbePassed: NOT_YET };`,
            },
          ],
        },
        {
          messageId: 'probeNotPassed',
          data: notPassed("MCP server 'c'", 'false'),
          line: 4,
          column: 52,
          suggestions: [
            {
              messageId: 'useSidecar',
              output: `const NOT_YET = false;
const a = { name: 'a', concurrencyModel: 'shared', statelessnessProbePassed: 'true' };
const b = { name: 'b', concurrencyModel: "shared", statelessnessProbePassed: 1 };
const c = { name: 'c', concurrencyModel: 'sidecar', statelessnessProbePassed: NOT_YET };`,
            },
          ],
        },
      ],
    },
    {
      // probe.passed (availability) is not the statelessness flag: the message says so.
      code: `const server = {
  name: 'kali',
  concurrencyModel: 'shared',
  maxConcurrent: 4,
  probe: { passed: true, checkedAt: '2025-01-01' },
};`,
      errors: [
        {
          messageId: 'availabilityIsNotStatelessness',
          data: notPassed("MCP server 'kali'", 'missing'),
          line: 1,
          column: 16,
          endLine: 6,
          endColumn: 2,
          suggestions: [
            {
              messageId: 'useSidecar',
              output: `const server = {
  name: 'kali',
  concurrencyModel: 'sidecar',
  maxConcurrent: 4,
  probe: { passed: true, checkedAt: '2025-01-01' },
};`,
            },
          ],
        },
      ],
    },
    {
      // ...also when the flag is present and false, reported at the flag.
      code: `const PROBE = { passed: true } as const;
const server = { name: 'kali', concurrencyModel: 'shared', probe: PROBE, statelessnessProbePassed: false };`,
      errors: [
        {
          messageId: 'availabilityIsNotStatelessness',
          data: notPassed("MCP server 'kali'", 'false'),
          line: 2,
          column: 74,
          suggestions: [
            {
              messageId: 'useSidecar',
              output: `const PROBE = { passed: true } as const;
const server = { name: 'kali', concurrencyModel: 'sidecar', probe: PROBE, statelessnessProbePassed: false };`,
            },
          ],
        },
      ],
    },
    {
      // A false flag from a base is reported at the spread; the model is written in the record, so it may change.
      code: `const unprobed = { statelessnessProbePassed: false, maxConcurrent: 2 };
export const kali = { name: 'kali', concurrencyModel: 'shared', ...unprobed };`,
      errors: [
        {
          messageId: 'probeNotPassed',
          data: notPassed("MCP server 'kali'", 'false'),
          line: 2,
          column: 65,
          endColumn: 76,
          suggestions: [
            {
              messageId: 'useSidecar',
              output: `const unprobed = { statelessnessProbePassed: false, maxConcurrent: 2 };
export const kali = { name: 'kali', concurrencyModel: 'sidecar', ...unprobed };`,
            },
          ],
        },
      ],
    },
    {
      // The model from a base: no suggestion (the base is shared by other records).
      code: `const sharedBase = { concurrencyModel: 'shared', maxConcurrent: 2 } as const;
export const servers = [
  { ...sharedBase, name: 'kali', statelessnessProbePassed: true },
  { ...sharedBase, name: 'nmap' },
];`,
      errors: [
        { messageId: 'missingProbe', data: notPassed("MCP server 'nmap'", 'missing'), line: 4, column: 3, suggestions: null },
      ],
    },
  ],
});
