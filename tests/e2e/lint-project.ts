// Lint a fixture project with one of the plugin's configs and the typescript-eslint parser (shared by e2e tests).
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import path from 'node:path';
import plugin from '../../src/index.js';

export interface Finding {
  at: string;
  message: string;
}

export async function lintProject(root: string, config: string, patterns: string[] = ['.']): Promise<{ files: number; findings: Finding[] }> {
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tsParser as never, parserOptions: { tsconfigRootDir: root } } },
      ...(plugin.configs[config] as never[]),
    ],
  });
  const results = await eslint.lintFiles(patterns);
  return {
    files: results.length,
    findings: results.flatMap((r) => r.messages.map((m) => ({ at: `${path.relative(root, r.filePath)}:${m.line}:${m.column} ${m.ruleId}`, message: m.message }))),
  };
}
