// End to end: the ESLint Node API with configs.recommended over the bundled example servers, and the CLI on them.
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

async function lintExamples(config: 'recommended' | 'strict') {
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tsParser as never } }, ...(plugin.configs[config] as never[])],
  });
  const results = await eslint.lintFiles(['examples/']);
  return results
    .flatMap((r) => r.messages.map((m) => `${path.relative(root, r.filePath)}:${m.line}:${m.column} ${m.ruleId}`))
    .sort();
}

const LEAKY = [
  'examples/leaky-server/server.ts:15:3 mcp-stateless/no-module-accumulator',
  'examples/leaky-server/server.ts:23:5 mcp-stateless/no-session-keyed-state',
  'examples/leaky-server/server.ts:32:5 mcp-stateless/no-cross-call-binding',
  'examples/leaky-server/server.ts:41:22 mcp-stateless/no-first-caller-cache',
  'examples/leaky-server/server.ts:42:5 mcp-stateless/no-process-global-mutation',
  // The command runner: filesystem and process hazards.
  'examples/leaky-server/runner.ts:14:17 mcp-stateless/no-shared-scratch-dir',
  'examples/leaky-server/runner.ts:22:51 mcp-stateless/no-shared-scope-fallback',
  'examples/leaky-server/runner.ts:23:19 mcp-stateless/require-child-process-isolation',
  'examples/leaky-server/runner.ts:23:55 mcp-stateless/no-unguarded-path-join',
  'examples/leaky-server/runner.ts:27:19 mcp-stateless/no-fixed-path-io',
  'examples/leaky-server/runner.ts:35:63 mcp-stateless/no-fixed-path-io',
  'examples/leaky-server/runner.ts:42:5 mcp-stateless/require-child-process-isolation',
  'examples/leaky-server/runner.ts:42:14 mcp-stateless/no-fixed-path-io',
  'examples/leaky-server/runner.ts:43:5 mcp-stateless/require-child-process-isolation',
  'examples/leaky-server/runner.ts:43:31 mcp-stateless/no-shared-scratch-dir',
  'examples/leaky-server/runner.ts:52:11 mcp-stateless/require-teardown-tool',
  'examples/leaky-server/runner.ts:52:17 mcp-stateless/no-unguarded-path-join',
];

describe('example servers', () => {
  it('recommended reports exactly the leaky server’s hazards and nothing in the clean one', async () => {
    expect(await lintExamples('recommended')).toEqual(LEAKY.slice().sort());
  });

  it('the CLI exits 1 and prints each hazard on the examples, zero config', async () => {
    const err = await run('node', ['bin/mcp-stateless.js', 'examples/'], { cwd: root }).catch((e: { code: number; stdout: string }) => e);
    expect((err as { code: number }).code).toBe(1);
    const out = (err as { stdout: string }).stdout;
    for (const rule of ['no-module-accumulator', 'no-session-keyed-state', 'no-cross-call-binding', 'no-first-caller-cache', 'no-process-global-mutation', 'no-fixed-path-io', 'no-shared-scratch-dir', 'no-unguarded-path-join', 'require-child-process-isolation', 'no-shared-scope-fallback', 'require-teardown-tool']) {
      expect(out).toContain(`mcp-stateless/${rule}`);
    }
    expect(out).not.toContain('clean-server');
  });

  it('the CLI exits 0 on the clean server and says so', async () => {
    const { stdout } = await run('node', ['bin/mcp-stateless.js', 'examples/clean-server'], { cwd: root });
    expect(stdout).toContain('no statelessness hazards found in 2 file(s)');
  });

  it('the CLI gives JSON with --format json', async () => {
    const err = await run('node', ['bin/mcp-stateless.js', '--format', 'json', 'examples/leaky-server'], { cwd: root }).catch((e: { stdout: string }) => e);
    const parsed = JSON.parse((err as { stdout: string }).stdout) as { messages: { ruleId: string }[] }[];
    expect(parsed.flatMap((f) => f.messages)).toHaveLength(LEAKY.length);
  });

  it('the zero-config CLI does not judge a project\'s disable comments for other rules', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-stateless-cli-'));
    try {
      writeFileSync(path.join(dir, 'a.ts'), '// eslint-disable-next-line no-console\nconsole.log(1);\n/* eslint-disable @typescript-eslint/no-explicit-any */\nexport const x: any = 1;\n');
      const { stdout } = await run('node', ['bin/mcp-stateless.js', dir], { cwd: root });
      expect(stdout).toContain('no statelessness hazards found in 1 file(s)');
      expect(stdout).not.toContain('Unused eslint-disable');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the CLI exits 2 with one line for a missing path or a bad option', async () => {
    const missing = await run('node', ['bin/mcp-stateless.js', 'no/such/dir'], { cwd: root }).catch((e: { code: number; stderr: string }) => e);
    expect((missing as { code: number }).code).toBe(2);
    expect((missing as { stderr: string }).stderr.trim()).toBe('mcp-stateless: no such file or directory: no/such/dir');
    const bad = await run('node', ['bin/mcp-stateless.js', '--frobnicate'], { cwd: root }).catch((e: { code: number; stderr: string }) => e);
    expect((bad as { code: number }).code).toBe(2);
    expect((bad as { stderr: string }).stderr.split('\n')[0]).toMatch(/^mcp-stateless: Unknown option '--frobnicate'/);
  });
});
