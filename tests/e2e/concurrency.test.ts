// Multithreaded linting: the ESLint CLI with `--concurrency=2` lints examples/ in worker threads, each of which loads
// the plugin and builds its own per-file models. The findings must be exactly those of a single-threaded run. The same
// config is run once under ESLint 9 (installed as `eslint9`) to show the plugin still works there.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const require = createRequire(import.meta.url);

// A flat config outside the repository, importing the built plugin and the parser by absolute URL.
const tmp = mkdtempSync(path.join(os.tmpdir(), 'mcp-stateless-concurrency-'));
const configFile = path.join(tmp, 'eslint.config.mjs');
writeFileSync(
  configFile,
  `import tsParser from ${JSON.stringify(pathToFileURL(require.resolve('@typescript-eslint/parser')).href)};
import plugin from ${JSON.stringify(pathToFileURL(path.join(root, 'dist/bundle/index.js')).href)};
export default [
  { files: ['**/*.ts'], languageOptions: { parser: tsParser } },
  ...plugin.configs.recommended,
];
`,
);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface JsonResult {
  filePath: string;
  messages: { ruleId: string | null; line: number; column: number; fatal?: boolean; message: string }[];
}

/** Run an ESLint CLI on examples/ and return its findings as sorted `file:line:col rule` lines. */
async function lintWith(bin: string, extra: string[]): Promise<string[]> {
  const args = [bin, '--config', configFile, '--format', 'json', '--no-warn-ignored', ...extra, 'examples/'];
  const { stdout } = await run(process.execPath, args, { cwd: root, maxBuffer: 16 * 1024 * 1024 }).catch((e: { code: number; stdout: string; stderr: string }) => {
    // Exit 1 means findings; anything else is a failure to report as such.
    if (e.code !== 1) throw new Error(`eslint exited ${e.code}: ${e.stderr}`);
    return e;
  });
  const results = JSON.parse(stdout) as JsonResult[];
  for (const r of results) for (const m of r.messages) if (m.fatal || !m.ruleId) throw new Error(`${r.filePath}: ${m.message}`);
  return results.flatMap((r) => r.messages.map((m) => `${path.relative(root, r.filePath)}:${m.line}:${m.column} ${m.ruleId}`)).sort();
}

const eslint10 = path.join(root, 'node_modules/eslint/bin/eslint.js');
const eslint9 = path.join(root, 'node_modules/eslint9/bin/eslint.js');

describe('multithreaded linting', () => {
  it('--concurrency=2 reports exactly what a single-threaded run reports', { timeout: 120_000 }, async () => {
    const [single, threaded] = await Promise.all([lintWith(eslint10, ['--concurrency=off']), lintWith(eslint10, ['--concurrency=2'])]);
    expect(single).toContain('examples/leaky-server/server.ts:15:3 mcp-stateless/no-module-accumulator');
    expect(single.some((f) => f.startsWith('examples/clean-server/'))).toBe(false);
    expect(threaded).toEqual(single);
  });

  it('ESLint 9 runs the same config with the same findings', { timeout: 120_000 }, async () => {
    const [ten, nine] = await Promise.all([lintWith(eslint10, []), lintWith(eslint9, [])]);
    expect(nine).toEqual(ten);
  });
});
