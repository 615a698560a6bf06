// The configurations the bench and the sweep lint with, built around a plugin object passed in (dist/ for the scripts,
// src/ for vitest), so the test and the scripts share one definition.
//
// Parsers: JavaScript files get ESLint's default parser (espree, latest syntax, JSX on; `.cjs` as CommonJS), TypeScript
// files @typescript-eslint/parser — what a project's flat config would normally say.

import tsParser from '@typescript-eslint/parser';

export const JS_FILES = ['**/*.js', '**/*.mjs', '**/*.jsx'];
export const CJS_FILES = ['**/*.cjs'];
export const TS_FILES = ['**/*.ts', '**/*.mts', '**/*.cts', '**/*.tsx'];
export const ALL_FILES = [...JS_FILES, ...CJS_FILES, ...TS_FILES];

/** Language options for every extension, as a flat-config prefix (no rules). */
export const LANGUAGE = [
  { linterOptions: { reportUnusedDisableDirectives: 'off', reportUnusedInlineConfigs: 'off' } },
  { files: JS_FILES, languageOptions: { ecmaVersion: 'latest', sourceType: 'module', parserOptions: { ecmaFeatures: { jsx: true } } } },
  { files: CJS_FILES, languageOptions: { ecmaVersion: 'latest', sourceType: 'commonjs' } },
  { files: TS_FILES, languageOptions: { parser: tsParser } },
];

/** Language options for one file, with `sourceType` forced (the sweep's CommonJS retry). */
export function languageFor(file, sourceType = null) {
  if (/\.(ts|mts|cts|tsx)$/.test(file)) return { parser: tsParser, parserOptions: { sourceType: sourceType ?? 'module' } };
  return { ecmaVersion: 'latest', sourceType: sourceType ?? (file.endsWith('.cjs') ? 'commonjs' : 'module'), parserOptions: { ecmaFeatures: { jsx: !file.endsWith('.cjs') } } };
}

/** The floor: one rule that listens to nothing. Any enabled rule brings ESLint's traversal and code-path analysis. */
export const floorPlugin = {
  meta: { name: 'bench', version: '0.0.0' },
  rules: { empty: { meta: { type: 'problem', schema: [] }, create: () => ({}) } },
};

/** Options on top of `strict` that make rules report the most: the sweep's "every rule at its strictest". */
export const STRICTEST = {
  'no-first-caller-cache': [{ reportConfigOnly: true, statefulNames: '.' }],
  'no-implicit-global-share': [{ allowGlobal: [] }],
  'no-fixed-path-io': [{ reportAllReads: true }],
  'no-unguarded-path-join': [{ trustImportedGuardNames: false, guards: [] }],
};

/** Every rule the plugin exports, at its strictest (a rule added later is included, with its `strictOptions`). */
export function allRulesStrictest(plugin) {
  const out = {};
  for (const [name, rule] of Object.entries(plugin.rules)) {
    const strictOptions = rule.meta?.docs?.strictOptions ?? [];
    out[`mcp-stateless/${name}`] = ['error', ...(STRICTEST[name] ?? strictOptions)];
  }
  return out;
}

/**
 * Settings that make ordinary library code look like handler code (event listeners, callbacks and `use()` middleware
 * count as registrations), so reach, state and value-origin analysis run over real functions instead of stopping at
 * "no handlers here".
 */
export const EAGER_SETTINGS = {
  'mcp-stateless': {
    registrationFunctions: ['on', 'once', 'addListener', 'addEventListener', 'use', 'register', 'then', 'forEach', 'map', 'setTimeout', 'create', 'define'],
  },
};

/**
 * The bench's configurations, each a flat-config array (language options first). `security` is loaded lazily by the
 * caller and passed in, so the sweep does not need it.
 */
export function benchConfigs(plugin, { security } = {}) {
  const configs = {
    'parse-only': [...LANGUAGE],
    'empty rule (floor)': [...LANGUAGE, { files: ALL_FILES, plugins: { bench: floorPlugin }, rules: { 'bench/empty': 'error' } }],
    recommended: [...LANGUAGE, ...plugin.configs.recommended],
    'every rule (strict)': [...LANGUAGE, ...plugin.configs.strict],
  };
  if (security) configs['security (peer)'] = [...LANGUAGE, { files: ALL_FILES, ...security.configs.recommended }];
  return configs;
}

/** The sweep's configuration for one file: every rule at its strictest, one parser, given settings. */
export function sweepConfig(plugin, file, { sourceType = null, settings = {}, rules = true } = {}) {
  return [
    {
      files: ALL_FILES,
      plugins: rules ? { 'mcp-stateless': plugin } : {},
      languageOptions: languageFor(file, sourceType),
      settings,
      rules: rules ? allRulesStrictest(plugin) : {},
    },
  ];
}
