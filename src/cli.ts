// `mcp-stateless [options] [paths…]`: the zero-config lint, with the options a CI job expects of ESLint.
import { ESLint } from 'eslint';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import plugin from './index.js';
import { createESLint, inputProblem, LINT_OPTIONS, lintRoot, oneLine, UsageError, withoutForeignRuleErrors } from './session.js';

const USAGE = `Usage: mcp-stateless [options] [paths...]
       mcp-stateless probe [options] -- <server command...>   (see: mcp-stateless probe --help)
       mcp-stateless report [options] [paths...]              (see: mcp-stateless report --help)

Lints MCP server source for statelessness hazards with the plugin's recommended config; no config file needed.

Options:
  --strict               use the strict config (for servers that will register as shared)
  --type-checked         whole-server analysis across files (recommended-type-checked / strict-type-checked);
                         reads the nearest tsconfig.json; files it does not include are linted one file at a time
  --config <file>        use this flat config file instead (the project's own config)
  -f, --format <name>    stylish (default), json, sarif (needs @microsoft/eslint-formatter-sarif), or any ESLint
                         formatter: a built-in name or an installed eslint-formatter-<name> package (gitlab…)
  -o, --output-file <f>  write the formatted results to this file instead of the terminal
  --max-warnings <n>     exit 1 when there are more than n warnings
  --quiet                report errors only (rules set to "warn" are not run)
  -v, --version          print the plugin's and ESLint's versions
  -h, --help             show this help

Exit codes: 0 no hazards (and warnings within --max-warnings), 1 hazards found or too many warnings,
2 usage or configuration error, files that could not be parsed, or a crash.`;

/** The lint command's own options, on top of those it shares with the report command. */
const OPTIONS = {
  ...LINT_OPTIONS,
  format: { type: 'string', short: 'f' },
  'output-file': { type: 'string', short: 'o' },
  'max-warnings': { type: 'string' },
  quiet: { type: 'boolean' },
  version: { type: 'boolean', short: 'v' },
} as const;

// The zero config moved to session.ts (shared with the report); kept importable from here.
export { zeroConfig } from './session.js';

export const SARIF_FORMATTER = '@microsoft/eslint-formatter-sarif';

type FormatFn = (results: ESLint.LintResult[]) => Promise<string>;

/**
 * The formatter for `--format`. `sarif` is Microsoft's maintained SARIF 2.1.0 formatter (an optional peer: CI installs
 * it, the editor and pre-commit never need it), resolved from this package so the user's copy is found wherever the
 * linted paths are; every other name goes through ESLint's own formatter loading (built-ins and eslint-formatter-*).
 */
async function loadFormat(eslint: ESLint, name: string, cwd: string): Promise<FormatFn> {
  if (name === 'sarif' || name === SARIF_FORMATTER) {
    let sarif: (results: ESLint.LintResult[], data: unknown) => string;
    try {
      sarif = createRequire(import.meta.url)(SARIF_FORMATTER) as typeof sarif;
    } catch {
      throw new UsageError(`--format sarif needs ${SARIF_FORMATTER}: npm install --save-dev ${SARIF_FORMATTER}`);
    }
    return async (results) => sarif(results, { cwd, rulesMeta: eslint.getRulesMetaForResults(results) });
  }
  let formatter: ESLint.LoadedFormatter;
  try {
    formatter = await eslint.loadFormatter(name);
  } catch {
    throw new UsageError(`unknown format '${name}' (use stylish, json, sarif, or install eslint-formatter-${name.replace(/^eslint-formatter-/, '')})`);
  }
  return async (results) => formatter.format(results);
}

function versionLine(): string {
  return `eslint-plugin-mcp-stateless ${plugin.meta.version} (ESLint ${ESLint.version})`;
}

export async function main(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  if (argv[0] === 'probe') {
    const { probeMain } = await import('./probe/cli.js');
    return probeMain(argv.slice(1));
  }
  if (argv[0] === 'report') {
    const { reportMain } = await import('./report.js');
    return reportMain(argv.slice(1), out, err);
  }
  let values: {
    strict?: boolean;
    'type-checked'?: boolean;
    config?: string;
    format?: string;
    'output-file'?: string;
    'max-warnings'?: string;
    quiet?: boolean;
    version?: boolean;
    help?: boolean;
  };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS }));
  } catch (e) {
    err.write(`mcp-stateless: ${oneLine((e as Error).message)}\n${USAGE.split('\n')[0]}\n`);
    return 2;
  }
  if (values.help) {
    out.write(`${USAGE}\n`);
    return 0;
  }
  if (values.version) {
    out.write(`${versionLine()}\n`);
    return 0;
  }
  try {
    return await lint(positionals, values, out, err);
  } catch (e) {
    err.write(`mcp-stateless: ${oneLine(e instanceof Error ? e.message : String(e))}\n`);
    return 2;
  }
}

async function lint(
  positionals: string[],
  values: { strict?: boolean; 'type-checked'?: boolean; config?: string; format?: string; 'output-file'?: string; 'max-warnings'?: string; quiet?: boolean },
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  let maxWarnings = -1;
  if (values['max-warnings'] !== undefined) {
    if (!/^-?\d+$/.test(values['max-warnings']) || Number(values['max-warnings']) < -1) {
      throw new UsageError(`--max-warnings takes a whole number (or -1 for no limit), got '${values['max-warnings']}'`);
    }
    maxWarnings = Number(values['max-warnings']);
  }
  const outputFile = values['output-file'];
  if (outputFile !== undefined && (outputFile === '' || statSync(outputFile, { throwIfNoEntry: false })?.isDirectory())) {
    throw new UsageError(`--output-file must name a file, not a directory: ${outputFile}`);
  }
  const format = values.format ?? 'stylish';
  const paths = positionals.length ? positionals : ['.'];
  const problem = inputProblem(paths, values.config);
  if (problem) throw new UsageError(problem);
  // As ESLint does: with --quiet alone, warn rules are not run; with --max-warnings too, they run and are counted.
  const quiet = !!values.quiet;
  const eslint = createESLint(paths, { strict: values.strict, typeChecked: values['type-checked'], config: values.config, quiet: quiet && maxWarnings < 0 });
  const formatter = await loadFormat(eslint, format, lintRoot(paths.map((p) => path.resolve(p))));
  let results = await eslint.lintFiles(paths.map((p) => path.resolve(p)));
  if (!values.config) results = results.map(withoutForeignRuleErrors);
  if (eslint.lintedAlone.length > 0) {
    const n = eslint.lintedAlone.length;
    const first = path.relative(process.cwd(), eslint.lintedAlone[0]) || eslint.lintedAlone[0];
    err.write(`mcp-stateless: ${n} file(s) that no tsconfig.json includes (${first}${n > 1 ? ', …' : ''}) were linted one file at a time, without whole-server analysis\n`);
  }
  const shown = quiet ? ESLint.getErrorResults(results) : results;
  const text = await formatter(shown);
  if (outputFile !== undefined) {
    try {
      mkdirSync(path.dirname(path.resolve(outputFile)), { recursive: true });
      writeFileSync(outputFile, text);
    } catch (e) {
      throw new UsageError(`cannot write the output file: ${oneLine((e as Error).message)}`);
    }
  } else if (text) {
    out.write(text.endsWith('\n') ? text : `${text}\n`);
  }
  const errors = results.reduce((n, r) => n + r.errorCount, 0);
  const warnings = results.reduce((n, r) => n + r.warningCount, 0);
  const fatal = results.reduce((n, r) => n + r.messages.filter((m) => m.fatal).length, 0);
  if (format === 'stylish' && outputFile === undefined && !quiet && errors === 0 && warnings === 0) {
    out.write(`mcp-stateless: no statelessness hazards found in ${results.length} file(s).\n`);
  }
  // Files that could not be parsed were not checked: that is not a clean run, and not a hazard either.
  if (fatal > 0 && errors === fatal) return 2;
  if (errors > 0) return 1;
  if (maxWarnings >= 0 && warnings > maxWarnings) {
    // Not a usage error: exit 1, as ESLint does, with one line saying why.
    err.write(`mcp-stateless: too many warnings (${warnings}; maximum: ${maxWarnings})\n`);
    return 1;
  }
  return 0;
}
