import type { ESLint, Linter } from 'eslint';
import { createRequire } from 'node:module';
import type { McpRuleDocs } from './util/create-rule.js';

export const PREFIX = 'mcp-stateless';
export const SOURCE_FILES = ['**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx}'];
export const JSON_FILES = ['**/*.json'];
export const TS_FILES = ['**/*.{ts,mts,cts,tsx}'];

/** The shipped configs' names. */
export type ConfigName = 'recommended' | 'strict' | 'recommended-type-checked' | 'strict-type-checked' | 'json';

/**
 * Each config is an array of ESLint flat config objects (ESLint's own `Linter.Config[]`): spread it into
 * `defineConfig(...)`, `tseslint.config(...)` or a plain exported array.
 */
export type PluginConfigs = Record<ConfigName, Linter.Config[]>;

type AnyRule = {
  meta: { docs?: McpRuleDocs & { strictOptions?: unknown[] }; languages?: readonly string[] };
};

/**
 * Configs are derived from rule metadata, never listed by hand: `recommended` turns on every rule whose
 * `docs.recommended` is 'recommended'; `strict` adds the 'strict' rules and applies each rule's `docs.strictOptions`;
 * `json` lints JSON files (language `json/json` of @eslint/json) with the rules whose `meta.languages` include it.
 * `recommended-type-checked` / `strict-type-checked` are the same rules with whole-server analysis turned on: they ask
 * typescript-eslint for the program (`projectService`) and set `settings['mcp-stateless'].crossFile`.
 */
export function buildConfigs(plugin: ESLint.Plugin, rules: Record<string, AnyRule>): PluginConfigs {
  const recommendedRules: Linter.RulesRecord = {};
  const strictRules: Linter.RulesRecord = {};
  const jsonRules: Linter.RulesRecord = {};
  for (const [name, rule] of Object.entries(rules)) {
    const docs = rule.meta.docs;
    if (!docs?.recommended) continue;
    if (docs.requiresTypeChecking) continue;
    const id = `${PREFIX}/${name}`;
    if (docs.recommended === 'recommended') recommendedRules[id] = 'error';
    strictRules[id] = docs.strictOptions ? ['error', ...docs.strictOptions] : 'error';
    if (rule.meta.languages?.includes('json/json')) jsonRules[id] = strictRules[id];
  }
  const plugins: Record<string, ESLint.Plugin> = { [PREFIX]: plugin };
  const typeChecked = (name: string, rules: Linter.RulesRecord): Linter.Config[] => [
    {
      name: `${PREFIX}/${name}`,
      files: TS_FILES,
      plugins,
      languageOptions: { parserOptions: { projectService: true } },
      settings: { [PREFIX]: { crossFile: true } },
      rules,
    },
  ];
  const configs = {
    'recommended-type-checked': typeChecked('recommended-type-checked', recommendedRules),
    'strict-type-checked': typeChecked('strict-type-checked', strictRules),
    recommended: [{ name: `${PREFIX}/recommended`, files: SOURCE_FILES, plugins, rules: recommendedRules }],
    strict: [{ name: `${PREFIX}/strict`, files: SOURCE_FILES, plugins, rules: strictRules }],
  } as PluginConfigs;
  // `json` loads @eslint/json (about 5 ms once ESLint is loaded) on first use, not whenever ESLint loads the plugin: most lints never ask
  // for it, and every process of theirs (a pre-commit hook, each CI job, the editor's server) would pay for it.
  let jsonConfig: Linter.Config[] | undefined;
  Object.defineProperty(configs, 'json', {
    enumerable: true,
    get(): Linter.Config[] {
      jsonConfig ??= [
        {
          name: `${PREFIX}/json`,
          files: JSON_FILES,
          language: 'json/json',
          plugins: { json: loadJsonPlugin(), ...plugins },
          rules: jsonRules,
        },
      ];
      return jsonConfig;
    },
  });
  return configs;
}

/** @eslint/json's plugin object (an ES module, loaded synchronously: Node ≥ 20.19 requires ES modules). */
function loadJsonPlugin(): ESLint.Plugin {
  const mod = createRequire(import.meta.url)('@eslint/json') as { default?: ESLint.Plugin };
  return mod.default ?? (mod as ESLint.Plugin);
}
