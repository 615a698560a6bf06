// Configs are derived from rule metadata; this checks the derivation and the plugin's shape.
import { ESLint } from 'eslint';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const root = path.resolve(import.meta.dirname, '..');

describe('plugin', () => {
  it('has meta with name, namespace and version', () => {
    expect(plugin.meta).toEqual({ name: 'eslint-plugin-mcp-stateless', namespace: 'mcp-stateless', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it('recommended turns on exactly the rules marked recommended (and not type-checked)', () => {
    const expected = Object.entries(plugin.rules)
      .filter(([, r]) => (r.meta.docs as { recommended?: string; requiresTypeChecking?: boolean }).recommended === 'recommended' && !(r.meta.docs as { requiresTypeChecking?: boolean }).requiresTypeChecking)
      .map(([n]) => `mcp-stateless/${n}`)
      .sort();
    const config = plugin.configs.recommended.find((c) => c.rules)!;
    expect(Object.keys(config.rules!).sort()).toEqual(expected);
    expect(config.plugins!['mcp-stateless']).toBe(plugin);
  });

  it('strict is a superset of recommended and applies strictOptions', () => {
    const rec = Object.keys(plugin.configs.recommended.find((c) => c.rules)!.rules!);
    const strict = plugin.configs.strict.find((c) => c.rules)!.rules!;
    for (const id of rec) expect(strict).toHaveProperty(id);
    for (const [name, rule] of Object.entries(plugin.rules)) {
      const so = (rule.meta.docs as { strictOptions?: unknown[] }).strictOptions;
      if (so) expect(strict[`mcp-stateless/${name}`]).toEqual(['error', ...so]);
    }
  });

  it('the type-checked configs are recommended/strict with whole-server analysis and type information turned on', () => {
    for (const [tc, base] of [['recommended-type-checked', 'recommended'], ['strict-type-checked', 'strict']] as const) {
      const c = plugin.configs[tc].find((x) => x.rules)!;
      expect(c.rules).toEqual(plugin.configs[base].find((x) => x.rules)!.rules);
      expect(c.settings).toEqual({ 'mcp-stateless': { crossFile: true } });
      expect(c.languageOptions).toEqual({ parserOptions: { projectService: true } });
    }
  });

  it('every rule has a docs URL derived from its name; rules with options have defaultOptions in meta, the others none', () => {
    for (const [name, rule] of Object.entries(plugin.rules)) {
      expect(rule.meta.docs!.url).toMatch(new RegExp(`/docs/rules/${name}\\.md$`));
      const schema = rule.meta.schema as unknown[];
      const defaults = (rule.meta as { defaultOptions?: unknown[] }).defaultOptions;
      if (schema.length) expect(defaults, name).toHaveLength(schema.length);
      else expect(defaults, name).toBeUndefined();
    }
  });

  it("eslint-plugin-eslint-plugin's recommended config passes on rules/ (eslint.config.js)", async () => {
    const eslint = new ESLint({ cwd: root });
    const results = await eslint.lintFiles(['rules/']);
    expect(results.length).toBe(Object.keys(plugin.rules).length + 1); // each rule and rules/index.ts
    expect(results.flatMap((r) => r.messages.map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.ruleId}: ${m.message}`))).toEqual([]);
    // The config really runs the plugin's rules (a stale config would pass vacuously).
    const config = (await eslint.calculateConfigForFile(path.join(root, 'rules/no-fixed-path-io.ts'))) as { rules: Record<string, unknown> };
    expect(Object.keys(config.rules).filter((id) => id.startsWith('eslint-plugin/')).length).toBeGreaterThan(15);
  });
});
