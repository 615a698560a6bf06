// The analysis is linear: shapes that used to take exponential or quadratic time are measured here in analysis steps
// (the budget's count of expanded values, resolved nodes, path-trace steps, reach and cross-call read lookups), never
// in wall-clock time. Growth ratios between sizes stand for the cost curve.
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import plugin from '../../src/index.js';
import { getModuleModel } from '../../src/analysis/door.js';

/** Lint `code` with every rule (strict options) and return the analysis steps spent and the findings. */
function measure(code: string, fileName = 'server.ts'): { steps: number; findings: Linter.LintMessage[] } {
  let steps = -1;
  const probe = {
    rules: {
      steps: {
        meta: { type: 'problem' as const, schema: [] },
        create(context: never) {
          return {
            'Program:exit'() {
              steps = getModuleModel(context).facts.budget.steps;
            },
          };
        },
      },
    },
  };
  const linter = new Linter({ configType: 'flat' });
  const findings = linter.verify(
    code,
    [
      { files: ['**/*.ts', '**/*.js'], languageOptions: { parser: tsParser as never } },
      ...(plugin.configs.strict as never[]),
      // Registered after the plugin's rules: its Program:exit runs once they have all asked their questions.
      { files: ['**/*.ts', '**/*.js'], plugins: { probe: probe as never }, rules: { 'probe/steps': 'error' } },
    ],
    { filename: fileName },
  );
  return { steps, findings: findings.filter((m) => m.ruleId !== 'probe/steps') };
}

/** `n` locals assigned from each other in chains and cycles, tested with `||`, `??`, `?:` and `if (!x)`. */
function tangledLocals(n: number, inHandler: boolean): string {
  const v = (i: number) => `v${((i % n) + n) % n}`;
  const body: string[] = [];
  for (let i = 0; i < n; i++) body.push(`  let ${v(i)} = args.workspace;`);
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < n; i++) body.push(`  ${v(i)} = ${v(i + 1)} || ${v(i + 3)} ? ${v(i + 2)} : ${v(i + 5)} ?? '/tmp';`);
  }
  for (let i = 0; i < n; i++) body.push(`  if (!${v(i)}) ${v(i)} = ${v(i + 1)};`);
  body.push(`  return { content: [{ type: 'text', text: String(${v(0)}) }] };`);
  const fn = inHandler ? [`server.tool('t', 'd', { workspace: z.string() }, async (args) => {`, ...body, '});'] : ['function parse(args) {', ...body, '}'];
  return [`import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';`, `const server = new McpServer({ name: 'x', version: '1' });`, ...fn].join('\n');
}

/** A generated server whose tools all write and read one module binding (and one shared lazily filled client). */
function manyTools(n: number): string {
  const lines = [`import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';`, `const server = new McpServer({ name: 'x', version: '1' });`, `let current = '';`, `let client;`, `const seen = [];`];
  for (let i = 0; i < n; i++) {
    lines.push(
      `server.tool('t${i}', 'd', { q: z.string() }, async (args) => { current = args.q; seen.push(current); if (!client) client = new Client(); await client.ready; return { content: [{ type: 'text', text: current + client.x${i} }] }; });`,
    );
  }
  return lines.join('\n');
}

describe('the analysis is linear', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('locals assigned from each other: steps grow with the size of the function, not with the number of chains', () => {
    const seven = measure(tangledLocals(7, true)).steps;
    const eight = measure(tangledLocals(8, true)).steps;
    const sixteen = measure(tangledLocals(16, true)).steps;
    expect(seven).toBeGreaterThan(0);
    // Exponential search grew ~3× per extra local; linear growth follows the function's size (8/7, 16/8).
    expect(eight / seven).toBeLessThan(1.4);
    expect(sixteen / eight).toBeLessThan(2.6);
    // A path trace stops at 2,000 steps (then the value is unknown): a 50-line function stays far below the budget.
    expect(eight).toBeLessThan(50_000);
  });

  it('outside handler code the scope-fallback questions are not asked at all', () => {
    const outside = measure(tangledLocals(8, false));
    expect(outside.findings).toEqual([]);
    expect(outside.steps).toBeLessThan(200);
  });

  it('still finds the fallback in the tangled handler (the search is exact, not cut short)', () => {
    const { findings } = measure(tangledLocals(8, true));
    expect(findings.some((f) => f.ruleId === 'mcp-stateless/no-shared-scope-fallback')).toBe(true);
  });

  it('many tools sharing one binding: twice the tools cost at most 2.2× the steps (1,000 vs 500 here; 2,000 vs 1,000 in npm run bench)', () => {
    const a = measure(manyTools(500));
    const b = measure(manyTools(1000));
    expect(b.steps / a.steps).toBeLessThan(2.2);
    // Every tool's write is reported once per binding and tool (cross-call, accumulator, first-caller cache).
    const count = (r: { findings: Linter.LintMessage[] }, rule: string) => r.findings.filter((f) => f.ruleId === `mcp-stateless/${rule}`).length;
    expect(count(b, 'no-cross-call-binding')).toBe(1000);
    expect(count(b, 'no-module-accumulator')).toBe(1000);
    expect(count(b, 'no-first-caller-cache')).toBe(1000);
  });

  it("esquery's published builds (parser-generator output) finish within a small share of the budget", () => {
    const require = createRequire(import.meta.url);
    const dist = path.dirname(require.resolve('esquery'));
    for (const file of ['esquery.js', 'esquery.min.js', 'esquery.lite.js', 'esquery.lite.min.js', 'esquery.esm.js', 'esquery.esm.min.js']) {
      const { steps, findings } = measure(readFileSync(path.join(dist, file), 'utf8'), file);
      expect(findings.filter((f) => f.fatal)).toEqual([]);
      expect(steps, file).toBeLessThan(50_000);
    }
  });

  it('past the step budget a file gets no findings and one warning that names it, instead of a hang', () => {
    vi.stubEnv('MCP_STATELESS_STEP_BUDGET', '50');
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const warn = vi.spyOn(process, 'emitWarning');
    try {
      const { findings } = (() => {
        try {
          return measure(manyTools(20), 'generated.ts');
        } catch (e) {
          // the probe rule itself reads the model past the budget: its exception is the expected stop
          return { findings: [] as Linter.LintMessage[], error: e };
        }
      })();
      expect(findings.filter((f) => f.ruleId?.startsWith('mcp-stateless/'))).toEqual([]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/generated\.ts passed its step budget .*no statelessness findings are reported for this file/);
    } finally {
      process.off('warning', onWarning);
    }
  });
  it('a value set of 150,000 entries is appended, not spread into push() (which overflowed the stack), and still resolves', () => {
    // `for (const g of all)`: the loop variable holds every element of a 150,000-element array, one list handed up
    // through the resolution at once (a vendored bundle's members made lists of this size).
    const code = [
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "const server = new McpServer({ name: 'x', version: '1' });",
      'const log: number[] = [];',
      'const f = async () => {',
      '  log.push(1);',
      '  return { content: [] };',
      '};',
      `const all = [${'f,'.repeat(150_000)}];`,
      "for (const g of all) server.tool('t', {}, g);",
    ].join('\n');
    const { findings } = measure(code);
    expect(findings.filter((m) => m.fatal || !m.ruleId)).toEqual([]);
    expect(findings.filter((m) => m.ruleId === 'mcp-stateless/no-module-accumulator').map((m) => m.line)).toEqual([5]);
  });
});
