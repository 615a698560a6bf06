// Configs are derived from rule metadata; this checks the derivation and the plugin's shape.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

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

  it('every rule has a docs URL derived from its name and defaultOptions in meta', () => {
    for (const [name, rule] of Object.entries(plugin.rules)) {
      expect(rule.meta.docs!.url).toMatch(new RegExp(`/docs/rules/${name}\\.md$`));
      expect(Array.isArray((rule.meta as { defaultOptions?: unknown[] }).defaultOptions)).toBe(true);
    }
  });

  it('the README rule table lists every rule once, linked to its docs, with the config that turns it on', () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, '..', 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('<!-- begin rules list'), readme.indexOf('<!-- end rules list -->'));
    const rows = [...table.matchAll(/^\| \[([a-z-]+)\]\(docs\/rules\/([a-z-]+)\.md\) \|.*\| (\w+) \|$/gm)];
    expect(rows.map((r) => r[1]).sort()).toEqual(Object.keys(plugin.rules).sort());
    for (const [, name, file, config] of rows) {
      expect(file).toBe(name);
      expect(config).toBe((plugin.rules[name as keyof typeof plugin.rules].meta.docs as { recommended: string }).recommended);
    }
  });
});
