// Crash-free sweep: every rule, at its strictest, over thousands of real files nobody here wrote (the TypeScript, ESLint,
// MCP SDK and typescript-eslint packages this project already installs), plus the generated pathological file.
// The assertion is zero rule exceptions. A file the parser rejects is not ours to lint: it is counted as skipped.
//
// `.d.ts` files are included: they are valid input (a project config may well lint them), and ambient declarations,
// overloads and `declare` forms are exactly the unusual shapes the analysis must not trip on.
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';
// @ts-expect-error plain ESM helper without type declarations
import { expectedFindings, pathologicalSource } from '../bench/generate.mjs';

const root = path.resolve(import.meta.dirname, '..');
const nm = (p: string) => path.join(root, 'node_modules', p);

/** The packages swept, in a fixed order. */
const ROOTS = [nm('typescript/lib'), nm('eslint'), nm('@modelcontextprotocol/sdk'), nm('typescript-eslint'), nm('@typescript-eslint')];
const EXTENSIONS = /\.(js|mjs|cjs|ts|mts|cts)$/;
/**
 * Files above this size are left out (and counted): the single-file bundles typescript.js (9 MB) and _tsc.js (6 MB)
 * take longer to parse than the rest of the sweep together; lib.dom.d.ts and the SDK's types.d.ts stay in.
 */
const MAX_BYTES = 3_000_000;

/** Every rule on, at its strictest: strict's options, and the options that report the most on top. */
const STRICTEST: Record<string, unknown[]> = {
  'no-first-caller-cache': [{ reportConfigOnly: true, statefulNames: '.' }],
  'no-implicit-global-share': [{ allowGlobal: [] }],
  'no-fixed-path-io': [{ reportAllReads: true }],
  'no-unguarded-path-join': [{ trustImportedGuardNames: false, guards: [] }],
};

/** Every rule the plugin exports (a rule added later is swept too, with its `strictOptions`). */
function allRules(): Linter.RulesRecord {
  const out: Linter.RulesRecord = {};
  for (const [name, rule] of Object.entries(plugin.rules)) {
    const strictOptions = (rule.meta.docs as { strictOptions?: unknown[] } | undefined)?.strictOptions ?? [];
    out[`mcp-stateless/${name}`] = ['error', ...(STRICTEST[name] ?? strictOptions)];
  }
  return out;
}

/**
 * Settings that make ordinary library code look like handler code, so reach, state and value-origin analysis run on
 * real functions rather than stopping at "no handlers here": event listeners, callbacks and `use()` middleware all
 * count as registrations.
 */
const EAGER_SETTINGS = {
  'mcp-stateless': {
    registrationFunctions: ['on', 'once', 'addListener', 'addEventListener', 'use', 'register', 'then', 'forEach', 'map', 'setTimeout', 'create', 'define'],
  },
};

function listFiles(): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) visit(full);
      else if (e.isFile() && EXTENSIONS.test(e.name)) out.push(full);
    }
  };
  for (const r of ROOTS) visit(r);
  return out;
}

function configFor(file: string, sourceType: 'module' | 'commonjs' | null, settings: Record<string, unknown>): Linter.Config[] {
  const isTs = /\.[mc]?ts$/.test(file);
  return [
    {
      files: ['**/*.js', '**/*.mjs', '**/*.cjs', '**/*.ts', '**/*.mts', '**/*.cts'],
      plugins: { 'mcp-stateless': plugin as never },
      languageOptions: isTs
        ? { parser: tsParser as never, parserOptions: { sourceType: sourceType ?? 'module' } }
        : { ecmaVersion: 'latest', sourceType: sourceType ?? (file.endsWith('.cjs') ? 'commonjs' : 'module') },
      settings,
      rules: allRules(),
    },
  ];
}

interface Outcome {
  file: string;
  crash: string | null;
  parseError: string | null;
  findings: number;
  ms: number;
}

function lintOne(linter: Linter, file: string, text: string, settings: Record<string, unknown>): Outcome {
  const t0 = performance.now();
  const rel = path.relative(root, file);
  // A virtual path outside node_modules/, which flat config ignores by default.
  const filename = `sweep/${rel.replace(/^node_modules\//, '')}`;
  const attempt = (sourceType: 'module' | 'commonjs' | null) => linter.verify(text, configFor(file, sourceType, settings), { filename });
  try {
    let messages = attempt(null);
    // A .js file that is CommonJS (top-level return, `with`, octal escapes) parses as a script.
    if (messages.length === 1 && messages[0].fatal && !file.endsWith('.cjs')) {
      const again = attempt('commonjs');
      if (!(again.length === 1 && again[0].fatal)) messages = again;
    }
    const fatal = messages.find((m) => m.fatal);
    return { file: rel, crash: null, parseError: fatal ? fatal.message : null, findings: messages.length, ms: performance.now() - t0 };
  } catch (e) {
    // A rule that throws: ESLint rethrows it with the rule id and the file. This is what the sweep exists to catch.
    return { file: rel, crash: (e as Error).stack ?? String(e), parseError: null, findings: 0, ms: performance.now() - t0 };
  }
}

describe('crash-free sweep over real packages', () => {
  const files = listFiles();
  const large = files.filter((f) => statSync(f).size > MAX_BYTES);
  const swept = files.filter((f) => !large.includes(f));

  it(`lints ${swept.length} files with every rule at its strictest and throws nowhere`, { timeout: 240_000 }, () => {
    const linter = new Linter({ configType: 'flat' });
    const outcomes = swept.map((f) => lintOne(linter, f, readFileSync(f, 'utf8'), EAGER_SETTINGS));
    const crashes = outcomes.filter((o) => o.crash);
    const skipped = outcomes.filter((o) => o.parseError);
    const slowest = [...outcomes].sort((a, b) => b.ms - a.ms).slice(0, 3);
    const findings = outcomes.reduce((n, o) => n + (o.parseError ? 0 : o.findings), 0);
    console.log(
      `sweep: ${outcomes.length} files linted, ${skipped.length} skipped as parse errors of the input, ${large.length} left out as larger than ${MAX_BYTES} bytes ` +
        `(${large.map((f) => path.relative(root, f)).join(', ')}), ${crashes.length} rule exceptions, ${findings} findings; slowest: ` +
        slowest.map((o) => `${o.file} ${o.ms.toFixed(0)} ms`).join(', '),
    );
    for (const s of skipped) console.log(`  skipped (parse error): ${s.file}: ${s.parseError}`);
    expect(outcomes.length).toBeGreaterThan(2000);
    expect(skipped.length).toBeLessThan(outcomes.length / 50);
    expect(findings).toBeGreaterThan(0); // the rules ran (a config that matched nothing would report nothing)
    expect(crashes.map((c) => `${c.file}\n${c.crash}`)).toEqual([]);
  });

  it('lints the same packages with default settings on a deterministic sample (every 5th file)', { timeout: 120_000 }, () => {
    const linter = new Linter({ configType: 'flat' });
    const sample = swept.filter((_, i) => i % 5 === 0);
    const outcomes = sample.map((f) => lintOne(linter, f, readFileSync(f, 'utf8'), {}));
    expect(outcomes.filter((o) => o.crash).map((c) => `${c.file}\n${c.crash}`)).toEqual([]);
  });
});

describe('the pathological file', () => {
  it('lints with every rule: no crash, no stack overflow, exactly the planted findings', { timeout: 120_000 }, () => {
    const linter = new Linter({ configType: 'flat' });
    const text = pathologicalSource() as string;
    const messages = linter.verify(text, configFor('pathological.ts', null, {}), { filename: 'pathological.ts' });
    const byRule: Record<string, number> = {};
    for (const m of messages) byRule[m.ruleId ?? `fatal: ${m.message}`] = (byRule[m.ruleId ?? `fatal: ${m.message}`] ?? 0) + 1;
    expect(byRule).toEqual(expectedFindings());
  });
});
