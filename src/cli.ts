import { ESLint } from 'eslint';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import tsParser from '@typescript-eslint/parser';
import plugin from './index.js';

const USAGE = `Usage: mcp-stateless [options] [paths...]
       mcp-stateless probe [options] -- <server command...>   (see: mcp-stateless probe --help)

Lints MCP server source for statelessness hazards with the plugin's recommended config; no config file needed.

Options:
  --strict            use the strict config (for servers that will register as shared)
  --config <file>     use this flat config file instead (the project's own config)
  --format <name>     stylish (default) or json
  -h, --help          show this help

Exit codes: 0 no hazards, 1 hazards found, 2 usage error or crash.`;

export class UsageError extends Error {}

/** The zero-config flat config: TypeScript and JavaScript sources, with the plugin's config on top. */
export function zeroConfig(strict: boolean): ESLint.Options['overrideConfig'] {
  return [
    { ignores: ['**/node_modules/**', '**/dist/**', '**/build/**', '**/coverage/**', '**/*.d.ts'] },
    { files: ['**/*.{ts,mts,cts,tsx}'], languageOptions: { parser: tsParser as never } },
    { files: ['**/*.{jsx,tsx}'], languageOptions: { parserOptions: { ecmaFeatures: { jsx: true } } } },
    ...((strict ? plugin.configs.strict : plugin.configs.recommended) as never[]),
  ];
}

export async function main(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  if (argv[0] === 'probe') {
    const probeModule = './probe/cli.js';
    const { probeMain } = (await import(probeModule)) as { probeMain: (a: string[]) => Promise<number> };
    return probeMain(argv.slice(1));
  }
  let values: { strict?: boolean; config?: string; format?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        strict: { type: 'boolean' },
        config: { type: 'string' },
        format: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    err.write(`mcp-stateless: ${(e as Error).message.split('\n')[0]}\n${USAGE.split('\n')[0]}\n`);
    return 2;
  }
  if (values.help) {
    out.write(`${USAGE}\n`);
    return 0;
  }
  const format = values.format ?? 'stylish';
  if (format !== 'stylish' && format !== 'json') {
    err.write(`mcp-stateless: unknown format '${format}' (use stylish or json)\n`);
    return 2;
  }
  const paths = positionals.length ? positionals : ['.'];
  for (const p of paths) {
    if (!existsSync(p)) {
      err.write(`mcp-stateless: no such file or directory: ${p}\n`);
      return 2;
    }
  }
  if (values.config && !existsSync(values.config)) {
    err.write(`mcp-stateless: config file not found: ${values.config}\n`);
    return 2;
  }
  const eslint = values.config
    ? new ESLint({ overrideConfigFile: path.resolve(values.config) })
    : new ESLint({ overrideConfigFile: true, overrideConfig: zeroConfig(!!values.strict) });
  let results: ESLint.LintResult[];
  try {
    results = await eslint.lintFiles(paths);
  } catch (e) {
    err.write(`mcp-stateless: ${(e as Error).message.split('\n')[0]}\n`);
    return 2;
  }
  const formatter = await eslint.loadFormatter(format);
  const text = await formatter.format(results);
  if (text) out.write(text.endsWith('\n') ? text : `${text}\n`);
  const fatal = results.some((r) => r.messages.some((m) => m.fatal));
  const errors = results.reduce((n, r) => n + r.errorCount, 0);
  if (format === 'stylish' && errors === 0) out.write(`mcp-stateless: no statelessness hazards found in ${results.length} file(s).\n`);
  if (fatal && errors === results.reduce((n, r) => n + r.messages.filter((m) => m.fatal).length, 0)) return 2;
  return errors > 0 ? 1 : 0;
}
