import type { TSESLint } from '@typescript-eslint/utils';
import { createRequire } from 'node:module';
import { rules } from '../rules/index.js';
import { buildConfigs, type PluginConfigs } from './configs.js';

const require = createRequire(import.meta.url);
const pkg = require('../../package.json') as { name: string; version: string };

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
