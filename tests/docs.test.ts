// Docs are tested as code: every rule has a page, the page's description matches the rule's metadata, every option
// has a heading, and the ❌/✅ examples really do (or do not) produce a report of that rule.
import json from '@eslint/json';
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { execFile } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const root = path.resolve(import.meta.dirname, '..');

interface Example {
  kind: 'bad' | 'good';
  lang: string;
  code: string;
  options: unknown[] | null;
  line: number;
}

export function examplesOf(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const out: Example[] = [];
  let marker: 'bad' | 'good' | null = null;
  let options: unknown[] | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('❌')) marker = 'bad';
    else if (line.startsWith('✅')) marker = 'good';
    else if (line.startsWith('#')) marker = null;
    const opt = /^<!-- options: (.*) -->$/.exec(line.trim());
    if (opt) {
      options = JSON.parse(opt[1]) as unknown[];
      continue;
    }
    const fence = /^```(\w+)/.exec(line);
    if (fence) {
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) body.push(lines[i]);
      // A fence under ❌/✅ takes that verdict; one under an options comment alone (in the Options section) is an
      // example of that option and must produce a report.
      const kind = marker ?? (options ? 'bad' : null);
      if (kind) out.push({ kind, lang: fence[1], code: body.join('\n'), options, line: start + 1 });
      options = null;
      continue;
    }
  }
  return out;
}

function lint(ruleName: string, ex: Example) {
  const linter = new Linter({ configType: 'flat' });
  const ruleId = `mcp-stateless/${ruleName}`;
  const severity = ex.options ? ['error', ...ex.options] : 'error';
  if (ex.lang === 'json') {
    return linter.verify(ex.code, [{ files: ['**/*.json'], language: 'json/json', plugins: { json, 'mcp-stateless': plugin as never }, rules: { [ruleId]: severity as never } }], 'example.json');
  }
  return linter.verify(ex.code, [{ files: ['**/*.ts'], languageOptions: { parser: tsParser as never }, plugins: { 'mcp-stateless': plugin as never }, rules: { [ruleId]: severity as never } }], 'example.ts');
}

describe('rule docs', () => {
  for (const [name, rule] of Object.entries(plugin.rules)) {
    describe(name, () => {
      const file = path.join(root, 'docs', 'rules', `${name}.md`);
      it('has a docs page that starts with its name and description', () => {
        expect(existsSync(file)).toBe(true);
        const md = readFileSync(file, 'utf8');
        const [title, , description] = md.split('\n');
        expect(title).toBe(`# mcp-stateless/${name}`);
        // The header under the title is eslint-doc-generator's (checked for drift below).
        expect(description).toBe(`📝 ${(rule.meta.docs as { description: string }).description}.`);
      });
      it('links to that page from meta.docs.url', () => {
        expect((rule.meta.docs as { url: string }).url.endsWith(`/docs/rules/${name}.md`)).toBe(true);
      });
      it('has a heading for every option', () => {
        const md = readFileSync(file, 'utf8');
        const schema = rule.meta.schema as { properties?: Record<string, unknown> }[];
        const keys = schema.flatMap((s) => Object.keys(s.properties ?? {}));
        for (const key of keys) expect(md).toContain(`### \`${key}\``);
        if (keys.length === 0) expect(md).toContain('This rule has no options');
      });
      it('has examples whose verdicts match the rule', () => {
        const md = readFileSync(file, 'utf8');
        const examples = examplesOf(md);
        expect(examples.some((e) => e.kind === 'bad')).toBe(true);
        expect(examples.some((e) => e.kind === 'good')).toBe(true);
        for (const ex of examples) {
          const messages = lint(name, ex);
          const fatal = messages.filter((m) => m.fatal);
          expect(fatal, `parse error in example at ${name}.md:${ex.line}`).toEqual([]);
          const own = messages.filter((m) => m.ruleId === `mcp-stateless/${name}`);
          if (ex.kind === 'bad') expect(own.length, `❌ example at ${name}.md:${ex.line} should be reported`).toBeGreaterThan(0);
          else expect(own.map((m) => m.message), `✅ example at ${name}.md:${ex.line} should not be reported`).toEqual([]);
        }
      });
    });
  }
});

describe('generated docs', () => {
  it('eslint-doc-generator --check: the rule docs headers and the README rule list match the rules\' metadata', async () => {
    // Reads the built plugin (npm test builds first). Fails with the diff when a rule's meta changed without `npm run docs`.
    const bin = path.join(root, 'node_modules/eslint-doc-generator/dist/bin/eslint-doc-generator.js');
    const { stdout, stderr } = await promisify(execFile)('node', [bin, '--check'], { cwd: root });
    expect(stdout + stderr).toBe('');
  });

  it('the README rule list is the generated one: every rule once, linked to its page, with its configs', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const list = readme.slice(readme.indexOf('<!-- begin auto-generated rules list -->'), readme.indexOf('<!-- end auto-generated rules list -->'));
    const rows = list
      .split('\n')
      .filter((l) => l.startsWith('| ['))
      .map((l) => l.split('|').map((c) => c.trim()));
    expect(rows.map((r) => /^\[([a-z-]+)\]/.exec(r[1])![1]).sort()).toEqual(Object.keys(plugin.rules).sort());
    for (const [, link, , configs, suggestions] of rows) {
      const [, name, file] = /^\[([a-z-]+)\]\(docs\/rules\/([a-z-]+)\.md\)$/.exec(link)!;
      expect(file).toBe(name);
      const rule = plugin.rules[name as keyof typeof plugin.rules];
      const recommended = (rule.meta.docs as { recommended: string }).recommended;
      expect(configs.includes('✅'), name).toBe(recommended === 'recommended');
      expect(suggestions === '💡', name).toBe(!!rule.meta.hasSuggestions);
      expect(configs).toContain('🔒');
    }
  });
});
