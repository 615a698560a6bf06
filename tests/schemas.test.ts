// Schemas are tested as code: each rule accepts its own defaults, and rejects unknown keys and wrong types with
// ESLint's clear configuration error. Shared settings are checked the same way.
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';
import { readSettings } from '../src/analysis/settings.js';

function verify(ruleName: string, options: unknown[], settings?: Record<string, unknown>) {
  const linter = new Linter({ configType: 'flat' });
  return linter.verify(
    'export {};',
    [{ files: ['**/*.ts'], languageOptions: { parser: tsParser as never }, plugins: { 'mcp-stateless': plugin as never }, settings: settings ?? {}, rules: { [`mcp-stateless/${ruleName}`]: ['error', ...options] as never } }],
    'x.ts',
  );
}

describe('rule schemas', () => {
  for (const [name, rule] of Object.entries(plugin.rules)) {
    const meta = rule.meta as { schema: { type?: string; additionalProperties?: boolean; properties?: Record<string, { description?: string; type?: string }> }[]; defaultOptions?: unknown[] };
    it(`${name}: accepts its defaults`, () => {
      expect(() => verify(name, meta.defaultOptions ?? [])).not.toThrow();
    });
    it(`${name}: every object schema forbids unknown keys and describes each property`, () => {
      for (const s of meta.schema) {
        if (s.type !== 'object') continue;
        expect(s.additionalProperties).toBe(false);
        for (const [key, prop] of Object.entries(s.properties ?? {})) expect(prop.description, `${name}.${key}`).toBeTruthy();
      }
    });
    it(`${name}: rejects an unknown key`, () => {
      expect(() => verify(name, [{ notAnOption: true }])).toThrow(new RegExp(`Key "mcp-stateless/${name}".*(additional properties|more than 0 items|notAnOption)`, 's'));
    });
    const props = meta.schema[0]?.properties ?? {};
    for (const [key, prop] of Object.entries(props)) {
      it(`${name}: rejects a wrong type for ${key}`, () => {
        const wrong = prop.type === 'boolean' ? 'yes' : prop.type === 'string' ? 42 : prop.type === 'array' ? 'not-an-array' : prop.type === 'integer' || prop.type === 'number' ? 'x' : 42;
        expect(() => verify(name, [{ [key]: wrong }])).toThrow(new RegExp(`Key "mcp-stateless/${name}".*(should be|must be)`, "s"));
      });
    }
  }
});

describe('shared settings', () => {
  it('defaults when absent', () => {
    expect(readSettings({}).scopeArguments).toContain('workspace');
  });
  it('rejects an unknown key with one clear line', () => {
    expect(() => readSettings({ 'mcp-stateless': { scopeArgs: ['ws'] } })).toThrow("settings['mcp-stateless'] has unknown key 'scopeArgs'");
  });
  it('rejects a wrong type', () => {
    expect(() => readSettings({ 'mcp-stateless': { scopeArguments: 'workspace' } })).toThrow('must be an array of non-empty strings');
  });
  it('surfaces through ESLint when a rule runs', () => {
    const linter = new Linter({ configType: 'flat' });
    expect(() =>
      linter.verify('export {};', [{ plugins: { 'mcp-stateless': plugin as never }, settings: { 'mcp-stateless': { bogus: 1 } }, rules: { 'mcp-stateless/no-module-accumulator': 'error' } }], 'x.js'),
    ).toThrow(/unknown key 'bogus'/);
  });
});

describe('regular-expression options', () => {
  // Compiled once per options object (ESLint hands every file under one config the same object): a bad pattern is
  // still the same one clear line on every file, not a cached success or a raw SyntaxError.
  for (const [rule, option] of [
    ['no-first-caller-cache', 'statefulNames'],
    ['require-teardown-tool', 'teardownPattern'],
  ] as const) {
    it(`${rule}: ${option} that is not a regular expression is one line naming the rule and the option, on every file`, () => {
      const message = `mcp-stateless/${rule}: ${option} is not a valid regular expression: (unclosed`;
      expect(() => verify(rule, [{ [option]: '(unclosed' }])).toThrow(message);
      expect(() => verify(rule, [{ [option]: '(unclosed' }])).toThrow(message);
      expect(() => verify(rule, [{ [option]: '^(reset|cleanup)' }])).not.toThrow();
    });
  }
});
