// The ESLint session the `mcp-stateless` lint and `report` commands share: the zero config, the ESLint instance rooted
// so every path is linted, the options both commands take, and how ESLint's errors become one line. Both commands
// import this module; neither imports the other's set-up.
import { ESLint, type Linter } from 'eslint';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PREFIX } from './configs.js';
import plugin from './index.js';

/** A problem with the command line or its inputs: exit 2 with one line, no stack. */
export class UsageError extends Error {}

/** The options the lint command takes; the report command takes the same plus its own. */
export const LINT_OPTIONS = {
  strict: { type: 'boolean' },
  'type-checked': { type: 'boolean' },
  config: { type: 'string' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * typescript-eslint's parser, loaded on the first TypeScript file: it loads TypeScript, which a project of plain
 * JavaScript files neither needs nor should pay for.
 */
const requireHere = createRequire(import.meta.url);
let tsParser: Linter.Parser | undefined;
const lazyTsParser = {
  meta: { name: 'typescript-eslint/parser', version: (requireHere('@typescript-eslint/parser/package.json') as { version: string }).version },
  parseForESLint(code: string, options?: Linter.ParserOptions) {
    tsParser ??= requireHere('@typescript-eslint/parser') as Linter.Parser;
    return (tsParser as { parseForESLint: (c: string, o?: Linter.ParserOptions) => Linter.ESLintParseResult }).parseForESLint(code, options);
  },
} satisfies Linter.Parser;

/**
 * ESLint's own JavaScript parser (espree, as ESLint resolves it), asked for a `.js` file as an ES module first and, when
 * that does not parse, as CommonJS: Node reads a `.js` file as CommonJS unless its package says `"type": "module"`, and
 * a CommonJS file may `return` at top level, which no module may. A zero config cannot know each package's type, so
 * it takes whichever reading parses (a file that parses as neither reports the module reading's error).
 */
const requireFromEslint = createRequire(requireHere.resolve('eslint'));
let espree: { parse(code: string, options: unknown): unknown; version: string } | undefined;
const moduleOrCommonJsParser = {
  meta: { name: 'mcp-stateless/module-or-commonjs', version: '1' },
  parse(code: string, options?: Linter.ParserOptions) {
    espree ??= requireFromEslint('espree') as NonNullable<typeof espree>;
    try {
      return espree.parse(code, options);
    } catch (e) {
      if (options?.sourceType !== 'module') throw e;
      try {
        return espree.parse(code, { ...options, sourceType: 'commonjs' });
      } catch {
        throw e;
      }
    }
  },
} satisfies Linter.Parser;

/** The zero-config flat config: TypeScript and JavaScript sources, with the plugin's config on top. */
export function zeroConfig(strict: boolean, typeChecked = false, root = process.cwd()): Linter.Config[] {
  const name = `${strict ? 'strict' : 'recommended'}${typeChecked ? '-type-checked' : ''}` as const;
  return [
    { ignores: ['**/node_modules/**', '**/dist/**', '**/build/**', '**/coverage/**', '**/*.d.ts'] },
    // The project's own disable comments name rules this zero config does not run: whether they are still needed is
    // not ours to judge.
    { linterOptions: { reportUnusedDisableDirectives: 'off' } },
    { files: ['**/*.{ts,mts,cts,tsx}'], languageOptions: { parser: lazyTsParser, parserOptions: typeChecked ? { tsconfigRootDir: root } : {} } },
    { files: ['**/*.{js,jsx}'], languageOptions: { parser: moduleOrCommonJsParser } },
    { files: ['**/*.{jsx,tsx}'], languageOptions: { parserOptions: { ecmaFeatures: { jsx: true } } } },
    // Whole-server analysis reads the TypeScript program; plain JavaScript files keep the single-file rules.
    ...(typeChecked ? [{ ...(strict ? plugin.configs.strict : plugin.configs.recommended)[0], files: ['**/*.{js,mjs,cjs,jsx}'] }] : []),
    ...plugin.configs[name],
  ];
}

/** ESLint ignores files outside its cwd: lint from the working directory, or from the paths' common ancestor. */
export function lintRoot(absPaths: string[]): string {
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
 * ESLint's errors as one complete line. A rule-option error is a path line (`Key "rules": Key "…":`) followed by
 * indented detail lines, the deepest saying what is wrong: keep the path and the most specific line of each detail.
 * The plugin's own errors start with `mcp-stateless:`; the commands add their own prefix, so drop it here.
 */
export function oneLine(message: string): string {
  const lines = message.split('\n').filter((l) => l.trim() !== '');
  // ESLint 9/10 append where a rule threw: that is not what is wrong.
  const body = lines.filter((l) => !/^(Occurred while linting |Rule: ")/.test(l.trim()));
  if (body.length === 0) return '';
  const head = body[0].trim();
  const details = body.slice(1);
  let text = head;
  if (details.length) {
    const indent = (l: string) => /^\s*/.exec(l)![0].length;
    const base = Math.min(...details.map(indent));
    const items: string[][] = [];
    for (const l of details) {
      if (indent(l) === base || items.length === 0) items.push([l.trim()]);
      else items[items.length - 1].push(l.trim());
    }
    text = `${head} ${items.map((it) => it[it.length - 1]).join('; ')}`;
  }
  return text.replace(new RegExp(`^${PREFIX}: `), '');
}

/** typescript-eslint's parse error for a file that no tsconfig.json of the project includes. */
const OUTSIDE_PROGRAM = /was not found by the project service/;

/**
 * An ESLint whose lint errors (bad options, bad settings, a crash in a rule) carry one complete line. With the
 * type-checked zero config, files that no tsconfig.json includes (a `vitest.config.ts`, tests outside `src/`) cannot
 * get type information: they are linted again one file at a time (`alone`), and `lintedAlone` lists them, instead of
 * each failing the run with a parse error.
 */
class SessionESLint extends ESLint {
  lintedAlone: string[] = [];
  constructor(
    options: ESLint.Options,
    private readonly alone?: () => ESLint,
  ) {
    super(options);
  }
  override async lintFiles(patterns: string | string[]): Promise<ESLint.LintResult[]> {
    try {
      const results = await super.lintFiles(patterns);
      const outside = this.alone ? results.filter((r) => r.messages.length === 1 && r.messages[0].fatal && OUTSIDE_PROGRAM.test(r.messages[0].message)) : [];
      if (outside.length === 0) return results;
      const again = new Map((await this.alone!().lintFiles(outside.map((r) => r.filePath))).map((r) => [r.filePath, r]));
      this.lintedAlone = outside.map((r) => r.filePath);
      return results.map((r) => again.get(r.filePath) ?? r);
    } catch (e) {
      throw new Error(oneLine(e instanceof Error ? e.message : String(e)), { cause: e });
    }
  }
}

/**
 * The ESLint instance the lint and report commands lint `paths` with: the project's config file, or the zero config
 * (or a given flat config), rooted so that every path is linted; `extra` config objects go on top.
 */
export function createESLint(
  paths: string[],
  options: { strict?: boolean; typeChecked?: boolean; config?: string; overrideConfig?: Linter.Config[]; quiet?: boolean },
  extra: Linter.Config[] = [],
): ESLint & { lintedAlone: string[] } {
  const cwd = lintRoot(paths.map((p) => path.resolve(p)));
  // --quiet, as ESLint does it: rules set to "warn" are not run at all.
  const ruleFilter = options.quiet ? ({ severity }: { severity: number }) => severity === 2 : undefined;
  if (options.config) return new SessionESLint({ cwd, overrideConfigFile: path.resolve(options.config), overrideConfig: extra, ruleFilter });
  const base = options.overrideConfig ?? zeroConfig(!!options.strict, !!options.typeChecked, cwd);
  const alone =
    !options.overrideConfig && options.typeChecked
      ? () => new SessionESLint({ cwd, overrideConfigFile: true, overrideConfig: [...zeroConfig(!!options.strict, false, cwd), ...extra], ruleFilter })
      : undefined;
  return new SessionESLint({ cwd, overrideConfigFile: true, overrideConfig: [...base, ...extra], ruleFilter }, alone);
}

const FOREIGN = /^Definition for rule '(.+)' was not found\.$/;

/**
 * Zero config knows only this plugin's rules: a project's `eslint-disable` comments for other plugins' rules are not
 * ours to judge, so drop ESLint's "Definition for rule … was not found" for them.
 */
export function withoutForeignRuleErrors(r: ESLint.LintResult): ESLint.LintResult {
  const messages = r.messages.filter((m) => {
    const match = m.ruleId && FOREIGN.exec(m.message);
    return !(match && !m.ruleId!.startsWith(`${PREFIX}/`));
  });
  if (messages.length === r.messages.length) return r;
  const errorCount = messages.filter((m) => m.severity === 2).length;
  const warningCount = messages.filter((m) => m.severity === 1).length;
  return { ...r, messages, errorCount, warningCount, fatalErrorCount: messages.filter((m) => m.fatal).length };
}
