import json from '@eslint/json';
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { Linter as Linter9 } from 'eslint9';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rules } from '../rules/index.js';
import { PREFIX } from '../src/configs.js';
import plugin, { configs } from '../src/index.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/definitions/${name}`, import.meta.url), 'utf8');

const DEFINITION_RULES = [
  'mcp-stateless/no-implicit-global-share',
  'mcp-stateless/require-max-concurrent',
  'mcp-stateless/require-statelessness-probe',
];
const ALLOW_KALI: Linter.RulesRecord = { 'mcp-stateless/no-implicit-global-share': ['error', { allowGlobal: ['kali'] }] };

type Message = Linter.LintMessage;
type Finding = [ruleId: string | null, messageId: string | undefined, line: number, column: number, endLine?: number, endColumn?: number];

function lintJson(text: string, extraRules: Linter.RulesRecord = {}, filename = 'registry.json', LinterClass = Linter): Message[] {
  const config = [...(configs.json as Linter.Config[]), { files: ['**/*.json'], rules: extraRules }];
  return new LinterClass({ configType: 'flat' }).verify(text, config as never, filename) as Message[];
}

function lintTs(text: string, extraRules: Linter.RulesRecord = {}, LinterClass = Linter): Message[] {
  const config: Linter.Config[] = [
    { files: ['**/*.ts'], languageOptions: { parser: tsParser as never } },
    ...(configs.strict as Linter.Config[]),
    { files: ['**/*.ts'], rules: extraRules },
  ];
  return new LinterClass({ configType: 'flat' }).verify(text, config as never, 'registry.ts') as Message[];
}

const findings = (messages: Message[]): Finding[] =>
  messages.map((m) => [m.ruleId, m.messageId, m.line, m.column, m.endLine, m.endColumn]);

/** The text after applying one suggestion, as an editor would. */
function applySuggestion(text: string, message: Message, index = 0): string {
  const fix = message.suggestions![index]!.fix;
  return text.slice(0, fix.range[0]) + fix.text + text.slice(fix.range[1]);
}

describe('configs.json', () => {
  it('lints **/*.json with @eslint/json and the rules that declare json/json', () => {
    expect(configs.json).toHaveLength(1);
    const [config] = configs.json!;
    expect(config!.name).toBe('mcp-stateless/json');
    expect(config!.files).toEqual(['**/*.json']);
    expect(config!.language).toBe('json/json');
    expect(Object.keys(config!.plugins!).sort()).toEqual(['json', 'mcp-stateless']);
    expect(config!.plugins!.json).toBe(json);
    expect(config!.plugins!['mcp-stateless']).toBe(plugin);
    // Derived from metadata: exactly the rules whose meta.languages include json/json.
    const declared = Object.entries(rules)
      .filter(([, rule]) => (rule.meta as { languages?: string[] }).languages?.includes('json/json'))
      .map(([name]) => `${PREFIX}/${name}`);
    expect(Object.keys(config!.rules!).sort()).toEqual(declared.sort());
    expect(declared).toEqual(expect.arrayContaining(DEFINITION_RULES));
  });

  it('keeps the three rules in strict for source files too', () => {
    const strictRules = configs.strict[0]!.rules!;
    for (const id of DEFINITION_RULES) expect(strictRules[id]).toBe('error');
  });
});

describe('definition rules on JSON registry files', () => {
  it('reports exactly the broken records of a registry', () => {
    const messages = lintJson(fixture('registry.json'), ALLOW_KALI);
    expect(findings(messages)).toEqual([
      // nmap: shared, no maxConcurrent, only the availability probe, global without opt-in.
      ['mcp-stateless/require-max-concurrent', 'missingMaxConcurrent', 11, 5, 16, 6],
      ['mcp-stateless/require-statelessness-probe', 'availabilityIsNotStatelessness', 11, 5, 16, 6],
      ['mcp-stateless/no-implicit-global-share', 'globalNotAllowed', 14, 7, 14, 29],
      // browser: maxConcurrent 0, probe flag false.
      ['mcp-stateless/require-max-concurrent', 'invalidMaxConcurrent', 20, 7, 20, 25],
      ['mcp-stateless/require-statelessness-probe', 'probeNotPassed', 21, 7, 21, 40],
      // notes: a scope on a sidecar.
      ['mcp-stateless/no-implicit-global-share', 'scopeWithoutShared', 26, 7, 26, 29],
    ]);
    expect(messages.map((m) => m.message)).toEqual([
      "MCP server 'nmap' declares concurrencyModel 'shared' but no maxConcurrent. Set maxConcurrent to the number of concurrent calls the box can actually sustain: a shared box that accepts more work than it can run does not fail loudly, it slows down until its timeouts look like findings.",
      "MCP server 'nmap' declares concurrencyModel 'shared' with probe.passed: true but statelessnessProbePassed is missing. probe.passed only records the availability gates; it is not the statelessness test. 'shared' needs the interleaved-session probe to pass and statelessnessProbePassed: true.",
      "MCP server 'nmap' sets shareScope 'global': one instance then serves every tenant, and any leak between sessions becomes a cross-tenant data leak. Widening to 'global' is a deliberate opt-in: after review, add 'nmap' to this rule's allowGlobal option; otherwise use 'tenant'.",
      "MCP server 'browser' declares concurrencyModel 'shared' with maxConcurrent 0, which is not a positive integer. Set it to the whole number of concurrent calls the box can actually sustain.",
      "MCP server 'browser' declares concurrencyModel 'shared' but statelessnessProbePassed is false, not true. A server that has not passed the interleaved-session statelessness probe has not earned 'shared'; register it as 'sidecar' until it passes.",
      "MCP server 'notes' sets shareScope 'tenant' but its concurrencyModel is 'sidecar'; shareScope only means something for 'shared'. Remove it, so that a later widening to 'shared' starts from the default 'tenant' scope.",
    ]);
  });

  it('offers the same suggestions as in code, producing valid JSON', () => {
    const text = fixture('registry.json');
    const [noMax, noProbe, global, , , scope] = lintJson(text, ALLOW_KALI);
    const sidecar = applySuggestion(text, noMax!);
    expect(sidecar).toContain('"name": "nmap",\n      "concurrencyModel": "sidecar",');
    expect(applySuggestion(text, noProbe!)).toBe(sidecar);
    const tenant = applySuggestion(text, global!);
    expect(tenant).toContain('"concurrencyModel": "shared",\n      "shareScope": "tenant",\n      "probe"');
    const removed = applySuggestion(text, scope!);
    expect(removed).toContain('"name": "notes",\n      "concurrencyModel": "sidecar"\n    },');
    for (const output of [sidecar, tenant, removed]) expect(() => JSON.parse(output)).not.toThrow();
    // After the edits that are safe to make blindly, only what needs a human (a limit, a probe run) remains.
    const remaining = lintJson(applySuggestion(tenant, lintJson(tenant, ALLOW_KALI).at(-1)!), ALLOW_KALI);
    expect(remaining.map((m) => m.messageId)).toEqual([
      'missingMaxConcurrent',
      'availabilityIsNotStatelessness',
      'invalidMaxConcurrent',
      'probeNotPassed',
    ]);
  });

  it('reports nothing for a registry that meets the invariants, or for look-alikes', () => {
    expect(lintJson(fixture('clean-registry.json'))).toEqual([]);
    // Only the meaningless scope: `mode` and a top-level `model` are not the concurrency model.
    expect(
      lintJson(`{ "mode": "shared", "model": "shared", "shareScope": "tenant", "concurrencyModel": "sidecar" }`).map((m) => m.messageId),
    ).toEqual(['scopeWithoutShared']);
    expect(lintJson(`{ "name": "x", "options": { "model": "shared", "maxConcurrent": 0 } }`)).toEqual([]);
    expect(lintJson(`["shared", { "concurrency": "shared" }, { "concurrency": { "model": "warm_pool" } }]`)).toEqual([]);
  });

  it('lints SDK definitions kept in JSON', () => {
    const messages = lintJson(fixture('mcp.definition.json'), {}, 'mcp.definition.json');
    expect(findings(messages)).toEqual([
      ['mcp-stateless/require-max-concurrent', 'missingMaxConcurrent', 3, 18, 3, 63],
      ['mcp-stateless/no-implicit-global-share', 'globalNotAllowed', 3, 39, 3, 61],
    ]);
    expect(messages[0]!.message).toMatch(/^MCP server 'kali' declares concurrency.model 'shared' but no maxConcurrent\./);
  });

  it('uses the last of duplicate keys, as JSON.parse does', () => {
    const messages = lintJson(`{"name": "a", "concurrencyModel": "shared", "maxConcurrent": 4, "maxConcurrent": -1, "statelessnessProbePassed": true}`);
    expect(findings(messages)).toEqual([['mcp-stateless/require-max-concurrent', 'invalidMaxConcurrent', 1, 65, 1, 84]]);
  });

  it('works under ESLint 9 as well', () => {
    const messages = lintJson(fixture('registry.json'), ALLOW_KALI, 'registry.json', Linter9 as unknown as typeof Linter);
    expect(findings(messages)).toEqual(findings(lintJson(fixture('registry.json'), ALLOW_KALI)));
  });

  it('works on JSON5 values the rules care about (Infinity, unquoted keys)', () => {
    const config = [
      { files: ['**/*.json5'], language: 'json/json5', plugins: { json, 'mcp-stateless': plugin as never }, rules: { 'mcp-stateless/require-max-concurrent': 'error' } },
    ];
    const messages = new Linter({ configType: 'flat' }).verify(
      `{ name: 'kali', concurrencyModel: 'shared', maxConcurrent: Infinity }`,
      config as never,
      'registry.json5',
    );
    expect(findings(messages)).toEqual([['mcp-stateless/require-max-concurrent', 'invalidMaxConcurrent', 1, 45, 1, 68]]);
    expect(messages[0]!.message).toContain('maxConcurrent Infinity');
  });
});

describe('one record shape for both languages', () => {
  it('finds the same problems in the TypeScript and the JSON form of a registry', () => {
    const summary = (messages: Message[]) => messages.map((m) => `${m.ruleId} ${m.messageId}: ${m.message}`).sort();
    const fromTs = lintTs(fixture('registry.ts'), ALLOW_KALI);
    const fromJson = lintJson(fixture('registry.json'), ALLOW_KALI);
    expect(fromTs.filter((m) => m.fatal)).toEqual([]);
    expect(summary(fromTs)).toEqual(summary(fromJson));
    expect(fromTs).toHaveLength(6);
  });

  it('gives the same TypeScript findings under ESLint 9', () => {
    const under9 = lintTs(fixture('registry.ts'), ALLOW_KALI, Linter9 as unknown as typeof Linter);
    expect(findings(under9)).toEqual(findings(lintTs(fixture('registry.ts'), ALLOW_KALI)));
  });
});
