import type { TSESLint } from '@typescript-eslint/utils';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rules } from '../rules/index.js';
import { buildConfigs, type PluginConfigs } from './configs.js';

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

interface McpStatelessPlugin {
  meta: { name: string; namespace: string; version: string };
  rules: typeof rules;
  configs: PluginConfigs;
}

const plugin: McpStatelessPlugin = {
  meta: { name: pkg.name, namespace: 'mcp-stateless', version: pkg.version },
  rules,
  configs: {} as PluginConfigs,
};
Object.assign(plugin.configs, buildConfigs(plugin as unknown as TSESLint.FlatConfig.Plugin, rules));

export { rules };
export const configs = plugin.configs;
export const meta = plugin.meta;
export default plugin;
