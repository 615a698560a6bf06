import { ESLint, type Linter } from 'eslint';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import tsParser from '@typescript-eslint/parser';
import plugin from './index.js';

const USAGE = `Usage: mcp-stateless [options] [paths...]
       mcp-stateless probe [options] -- <server command...>   (see: mcp-stateless probe --help)
       mcp-stateless report [options] [paths...]              (see: mcp-stateless report --help)

Lints MCP server source for statelessness hazards with the plugin's recommended config; no config file needed.

Options:
  --strict            use the strict config (for servers that will register as shared)
  --type-checked      whole-server analysis across files (recommended-type-checked / strict-type-checked);
                      needs a tsconfig.json that includes the linted TypeScript files
  --config <file>     use this flat config file instead (the project's own config)
  --format <name>     stylish (default) or json
  -h, --help          show this help

Exit codes: 0 no hazards, 1 hazards found, 2 usage error or crash.`;

export class UsageError extends Error {}

/** The options the lint command takes; the report command takes the same plus its own. */
export const LINT_OPTIONS = {
  strict: { type: 'boolean' },
  'type-checked': { type: 'boolean' },
  config: { type: 'string' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The zero-config flat config: TypeScript and JavaScript sources, with the plugin's config on top. */
export function zeroConfig(strict: boolean, typeChecked = false, root = process.cwd()): ESLint.Options['overrideConfig'] {
  const name = `${strict ? 'strict' : 'recommended'}${typeChecked ? '-type-checked' : ''}`;
  return [
    { ignores: ['**/node_modules/**', '**/dist/**', '**/build/**', '**/coverage/**', '**/*.d.ts'] },
    // The project's own disable comments name rules this zero config does not run: whether they are still needed is
    // not ours to judge.
    { linterOptions: { reportUnusedDisableDirectives: 'off' } },
    { files: ['**/*.{ts,mts,cts,tsx}'], languageOptions: { parser: tsParser as never, parserOptions: typeChecked ? { tsconfigRootDir: root } : {} } },
    { files: ['**/*.{jsx,tsx}'], languageOptions: { parserOptions: { ecmaFeatures: { jsx: true } } } },
    // Whole-server analysis reads the TypeScript program; plain JavaScript files keep the single-file rules.
    ...((typeChecked ? [{ ...(strict ? plugin.configs.strict : plugin.configs.recommended)[0], files: ['**/*.{js,mjs,cjs,jsx}'] }] : []) as never[]),
    ...(plugin.configs[name] as never[]),
  ];
}

/** ESLint ignores files outside its cwd: lint from the working directory, or from the paths' common ancestor. */
function lintRoot(absPaths: string[]): string {
  const here = process.cwd();
  const inside = (p: string) => p === here || p.startsWith(here + path.sep);
  if (absPaths.every(inside)) return here;
  let root = path.dirname(absPaths[0]);
  for (const p of absPaths) {
    while (!(p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep))) root = path.dirname(root);
  }
  return root;
}

/** Why these paths and config file cannot be linted (one line), or null. Shared by the lint and report commands. */
export function inputProblem(paths: string[], config: string | undefined): string | null {
  for (const p of paths) if (!existsSync(p)) return `no such file or directory: ${p}`;
  if (config && !existsSync(config)) return `config file not found: ${config}`;
  return null;
}

/**
 * The ESLint instance the lint and report commands lint `paths` with: the project's config file, or the zero config
 * (or a given flat config), rooted so that every path is linted; `extra` config objects go on top.
 */
export function createESLint(
  paths: string[],
  options: { strict?: boolean; typeChecked?: boolean; config?: string; overrideConfig?: Linter.Config[] },
  extra: Linter.Config[] = [],
): ESLint {
  const cwd = lintRoot(paths.map((p) => path.resolve(p)));
  if (options.config) return new ESLint({ cwd, overrideConfigFile: path.resolve(options.config), overrideConfig: extra });
  const base = options.overrideConfig ?? (zeroConfig(!!options.strict, !!options.typeChecked, cwd) as Linter.Config[]);
  return new ESLint({ cwd, overrideConfigFile: true, overrideConfig: [...base, ...extra] });
}

const FOREIGN = /^Definition for rule '(.+)' was not found\.$/;

function withoutForeignRuleErrors(r: ESLint.LintResult): ESLint.LintResult {
  const messages = r.messages.filter((m) => {
    const match = m.ruleId && FOREIGN.exec(m.message);
    return !(match && !m.ruleId!.startsWith('mcp-stateless/'));
  });
  if (messages.length === r.messages.length) return r;
  const errorCount = messages.filter((m) => m.severity === 2).length;
  const warningCount = messages.filter((m) => m.severity === 1).length;
  return { ...r, messages, errorCount, warningCount, fatalErrorCount: messages.filter((m) => m.fatal).length };
}

export async function main(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  if (argv[0] === 'probe') {
    const probeModule = './probe/cli.js';
    const { probeMain } = (await import(probeModule)) as { probeMain: (a: string[]) => Promise<number> };
    return probeMain(argv.slice(1));
  }
  if (argv[0] === 'report') {
    const { reportMain } = await import('./report.js');
    return reportMain(argv.slice(1), out, err);
  }
  let values: { strict?: boolean; 'type-checked'?: boolean; config?: string; format?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: LINT_OPTIONS,
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
  const problem = inputProblem(paths, values.config);
  if (problem) {
    err.write(`mcp-stateless: ${problem}\n`);
    return 2;
  }
  const eslint = createESLint(paths, { strict: values.strict, typeChecked: values['type-checked'], config: values.config });
  let results: ESLint.LintResult[];
  try {
    results = await eslint.lintFiles(paths.map((p) => path.resolve(p)));
  } catch (e) {
    err.write(`mcp-stateless: ${(e as Error).message.split('\n')[0]}\n`);
    return 2;
  }
  // Zero config knows only this plugin's rules: a project's `eslint-disable` comments for other plugins' rules are not
  // ours to judge, so drop ESLint's "Definition for rule … was not found" for them.
  if (!values.config) results = results.map(withoutForeignRuleErrors);
  const formatter = await eslint.loadFormatter(format);
  const text = await formatter.format(results);
  if (text) out.write(text.endsWith('\n') ? text : `${text}\n`);
  const fatal = results.some((r) => r.messages.some((m) => m.fatal));
  const errors = results.reduce((n, r) => n + r.errorCount, 0);
  if (format === 'stylish' && errors === 0) out.write(`mcp-stateless: no statelessness hazards found in ${results.length} file(s).\n`);
  if (fatal && errors === results.reduce((n, r) => n + r.messages.filter((m) => m.fatal).length, 0)) return 2;
  return errors > 0 ? 1 : 0;
}
