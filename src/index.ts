import type { ESLint, Rule } from 'eslint';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rules as ruleModules } from '../rules/index.js';
import { buildConfigs, type ConfigName, type PluginConfigs } from './configs.js';

/** The package's own package.json, found from this file whether it runs from src/ or dist/src/. */
function readOwnPackage(): { name: string; version: string } {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string };
    dir = path.dirname(dir);
  }
  return { name: 'eslint-plugin-mcp-stateless', version: '0.0.0' };
}
const pkg = readOwnPackage();

export type RuleName = keyof typeof ruleModules;
export type { ConfigName, PluginConfigs };

/**
 * The plugin, typed as ESLint's own `Plugin` (rules are `Rule.RuleModule`, configs `Linter.Config[]`), so that
 * `defineConfig(...)` in an `eslint.config.ts` type-checks; typescript-eslint's `tseslint.config(...)` accepts the
 * same objects. The rules are written with typescript-eslint's RuleCreator: the same objects at run time.
 */
export interface McpStatelessPlugin extends ESLint.Plugin {
  meta: { name: string; namespace: string; version: string };
  rules: Record<RuleName, Rule.RuleModule>;
  configs: PluginConfigs;
}

const rules = ruleModules as unknown as Record<RuleName, Rule.RuleModule>;

const plugin: McpStatelessPlugin = {
  meta: { name: pkg.name, namespace: 'mcp-stateless', version: pkg.version },
  rules,
  configs: {} as PluginConfigs,
};
// Not Object.assign: that would read (and so load) the lazy `json` config.
plugin.configs = buildConfigs(plugin, ruleModules);

export { rules };
export const configs: PluginConfigs = plugin.configs;
export const meta = plugin.meta;
export default plugin;
