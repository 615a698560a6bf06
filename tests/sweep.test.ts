// Crash-free sweep, CI-sized: every rule, at its strictest, over thousands of real files nobody here wrote (the
// TypeScript, ESLint, MCP SDK and typescript-eslint packages this project already installs), plus the generated
// pathological file. The assertion is zero rule exceptions. A file the parser rejects is not ours to lint: it is counted
// as skipped. `npm run sweep` is the full-size version (all of node_modules and the fetched servers, per-file time
// limit, worker processes); both judge a file with the same code (bench/sweep-core.mjs).
//
// `.d.ts` files are included: they are valid input (a project config may well lint them), and ambient declarations,
// overloads and `declare` forms are exactly the unusual shapes the analysis must not trip on.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';
// @ts-expect-error plain ESM helper without type declarations
import { expectedFindings, pathologicalSource } from '../bench/generate.mjs';
// @ts-expect-error plain ESM helper without type declarations
import { listSweepFiles, lintOne, newLinter } from '../bench/sweep-core.mjs';
// @ts-expect-error plain ESM helper without type declarations
import { EAGER_SETTINGS, sweepConfig } from '../bench/configs.mjs';

const root = path.resolve(import.meta.dirname, '..');
const nm = (p: string) => path.join(root, 'node_modules', p);

/** The packages swept, in a fixed order. */
const ROOTS = [nm('typescript/lib'), nm('eslint'), nm('@modelcontextprotocol/sdk'), nm('typescript-eslint'), nm('@typescript-eslint')];
/** `npm run sweep` lints every extension; this CI-sized sweep keeps the set it has always had. */
const EXTENSIONS = /\.(js|mjs|cjs|ts|mts|cts)$/;
/**
 * Files above this size are left out (and counted): the single-file bundles typescript.js (9 MB) and _tsc.js (6 MB)
 * take longer to parse than the rest of the sweep together; lib.dom.d.ts and the SDK's types.d.ts stay in.
 */
const MAX_BYTES = 3_000_000;

interface Outcome {
  file: string;
  crash: { rule: string | null; message: string; at: string | null } | null;
  parseError: string | null;
  findings: number;
  ms: number;
}

function lint(linter: unknown, file: string, settings: Record<string, unknown>): Outcome {
  const o = lintOne(linter, plugin, file, readFileSync(file, 'utf8'), { root, settings });
  return { file: path.relative(root, file), ...o };
}

describe('crash-free sweep over real packages', () => {
  const files = (listSweepFiles(ROOTS) as string[]).filter((f) => EXTENSIONS.test(f));
  const large = files.filter((f) => statSync(f).size > MAX_BYTES);
  const swept = files.filter((f) => !large.includes(f));

  it(`lints ${swept.length} files with every rule at its strictest and throws nowhere`, { timeout: 240_000 }, () => {
    const linter = newLinter();
    const outcomes = swept.map((f) => lint(linter, f, EAGER_SETTINGS));
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
    expect(crashes.map((c) => `${c.file}: ${c.crash!.rule}: ${c.crash!.message}\n  ${c.crash!.at}`)).toEqual([]);
  });

  it('lints the same packages with default settings on a deterministic sample (every 5th file)', { timeout: 120_000 }, () => {
    const linter = newLinter();
    const outcomes = swept.filter((_, i) => i % 5 === 0).map((f) => lint(linter, f, {}));
    expect(outcomes.filter((o) => o.crash).map((c) => `${c.file}: ${c.crash!.rule}: ${c.crash!.message}\n  ${c.crash!.at}`)).toEqual([]);
  });
});

describe('the sweep judges a file the way it says', () => {
  const linter = newLinter();
  const crashing = {
    ...plugin,
    rules: {
      ...plugin.rules,
      // A rule that throws on one shape, as a rule with a bug would: the outcome names it and does not throw.
      'no-module-accumulator': { meta: { type: 'problem', schema: [] }, create: () => ({ WithStatement() { throw new TypeError('boom'); } }) },
    },
  };

  it('reports a rule exception as the outcome, with the rule id, instead of throwing', () => {
    const o = lintOne(linter, crashing, path.join(root, 'x.js'), 'with (obj) { run(); }\n', { root });
    expect(o.crash).toMatchObject({ rule: 'mcp-stateless/no-module-accumulator', message: 'boom' });
    expect(o.parseError).toBeNull();
  });

  it('retries a .js file that only parses as CommonJS, and counts a file no parser takes as a parse error', () => {
    const cjs = lintOne(linter, plugin, path.join(root, 'script.js'), 'with (obj) { run(); }\nreturn 1;\n', { root });
    expect(cjs).toMatchObject({ crash: null, parseError: null });
    const broken = lintOne(linter, plugin, path.join(root, 'broken.ts'), 'const = ;\n', { root });
    expect(broken.crash).toBeNull();
    expect(broken.parseError).toMatch(/^Parsing error/);
  });
});

describe('the pathological file', () => {
  it('lints with every rule: no crash, no stack overflow, exactly the planted findings', { timeout: 120_000 }, () => {
    const linter = newLinter();
    const text = pathologicalSource() as string;
    const messages = linter.verify(text, sweepConfig(plugin, 'pathological.ts'), { filename: 'pathological.ts' }) as { ruleId: string | null; message: string }[];
    const byRule: Record<string, number> = {};
    for (const m of messages) byRule[m.ruleId ?? `fatal: ${m.message}`] = (byRule[m.ruleId ?? `fatal: ${m.message}`] ?? 0) + 1;
    expect(byRule).toEqual(expectedFindings());
  });
});
