// The zero-config CLI as a CI job uses it: formats (SARIF through Microsoft's formatter, GitLab code quality through
// eslint-formatter-gitlab), --output-file, --max-warnings, --quiet, --version, exit codes, and one-line errors.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/mcp-stateless.js');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };
const execFileP = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The CLI's `main`, in this process (what bin/mcp-stateless.js calls, without starting node and ESLint for each run);
 * `spawn: true` runs the real bin instead.
 */
async function cli(args: string[], options: { env?: NodeJS.ProcessEnv; spawn?: boolean } = {}): Promise<Run> {
  if (options.spawn) {
    try {
      const { stdout, stderr } = await execFileP('node', [bin, ...args], { cwd: root, env: { ...process.env, ...options.env } });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, stdout: err.stdout, stderr: err.stderr };
    }
  }
  const saved = Object.fromEntries(Object.keys(options.env ?? {}).map((k) => [k, process.env[k]]));
  Object.assign(process.env, options.env);
  const collect = () => {
    const chunks: string[] = [];
    const stream = new Writable({ write: (c: Buffer | string, _e, done) => (chunks.push(c.toString()), done()) });
    return { stream, text: () => chunks.join('') };
  };
  const out = collect();
  const err = collect();
  try {
    const code = await main(args, out.stream, err.stream);
    return { code, stdout: out.text(), stderr: err.text() };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

// Configs live under the repo's .tmp/ (ignored by git) so that they import the plugin by its package name.
let tmp: string;
beforeAll(() => {
  mkdirSync(path.join(root, '.tmp'), { recursive: true });
  tmp = mkdtempSync(path.join(root, '.tmp', 'cli-'));
  const head = "import tsParser from '@typescript-eslint/parser';\nimport mcpStateless from 'eslint-plugin-mcp-stateless';\n";
  const ts = "{ files: ['**/*.ts'], languageOptions: { parser: tsParser } }";
  writeFileSync(
    path.join(tmp, 'warn.config.mjs'),
    `${head}export default [${ts}, ...mcpStateless.configs.recommended, { rules: Object.fromEntries(Object.keys(mcpStateless.configs.recommended[0].rules).map((id) => [id, 'warn'])) }];\n`,
  );
  writeFileSync(path.join(tmp, 'bad-option.config.mjs'), `${head}export default [${ts}, ...mcpStateless.configs.recommended, { rules: { 'mcp-stateless/no-fixed-path-io': ['error', { reportAllReads: true, bogus: 1 }] } }];\n`);
  writeFileSync(path.join(tmp, 'bad-type.config.mjs'), `${head}export default [${ts}, ...mcpStateless.configs.recommended, { rules: { 'mcp-stateless/no-fixed-path-io': ['error', { fsModules: 'fs-extra' }] } }];\n`);
  writeFileSync(path.join(tmp, 'bad-settings.config.mjs'), `${head}export default [${ts}, ...mcpStateless.configs.recommended, { settings: { 'mcp-stateless': { scopeArgs: ['workspace'] } } }];\n`);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const LEAKY = 'examples/leaky-server';
const LEAKY_COUNT = 17;

describe('mcp-stateless CLI for CI', () => {
  it('--version prints the plugin and ESLint versions', async () => {
    const run = await cli(['--version'], { spawn: true });
    expect(run).toEqual({ code: 0, stdout: `eslint-plugin-mcp-stateless ${pkg.version} (ESLint ${pkg.devDependencies.eslint})\n`, stderr: '' });
    expect((await cli(['-v'])).stdout).toBe(run.stdout);
  });

  it('--format sarif gives SARIF 2.1.0 from the maintained formatter, with a help link per rule', async () => {
    const run = await cli(['--format', 'sarif', LEAKY], { spawn: true });
    expect(run.code).toBe(1);
    const sarif = JSON.parse(run.stdout) as {
      version: string;
      runs: { tool: { driver: { name: string; rules: { id: string; helpUri: string }[] } }; results: { ruleId: string; level: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[] }[] }[];
    };
    expect(sarif.version).toBe('2.1.0');
    const [sarifRun] = sarif.runs;
    expect(sarifRun.results).toHaveLength(LEAKY_COUNT);
    for (const r of sarifRun.results) {
      expect(r.level).toBe('error');
      expect(r.locations[0].physicalLocation.artifactLocation.uri).toMatch(/examples\/leaky-server\/(server|runner)\.ts$/);
    }
    const ids = new Set(sarifRun.results.map((r) => r.ruleId));
    expect(sarifRun.tool.driver.rules.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const rule of sarifRun.tool.driver.rules) {
      expect(rule.helpUri).toBe(`https://github.com/mcp-stateless/eslint-plugin-mcp-stateless/blob/main/docs/rules/${rule.id.slice('mcp-stateless/'.length)}.md`);
    }
  });

  it('--output-file writes the results there and prints nothing; the exit code still says hazards', async () => {
    const file = path.join(tmp, 'out', 'deeper', 'lint.sarif');
    const run = await cli(['--format', 'sarif', '--output-file', file, LEAKY]);
    expect(run).toEqual({ code: 1, stdout: '', stderr: '' });
    expect((JSON.parse(readFileSync(file, 'utf8')) as { runs: { results: unknown[] }[] }).runs[0].results).toHaveLength(LEAKY_COUNT);
    const text = path.join(tmp, 'lint.txt');
    const stylish = await cli(['-o', text, LEAKY]);
    expect(stylish).toEqual({ code: 1, stdout: '', stderr: '' });
    expect(readFileSync(text, 'utf8')).toContain(`✖ ${LEAKY_COUNT} problems (${LEAKY_COUNT} errors, 0 warnings)`);
  });

  it('--output-file naming a directory is a usage error', async () => {
    const run = await cli(['-o', tmp, LEAKY]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`mcp-stateless: --output-file must name a file, not a directory: ${tmp}\n`);
  });

  it('--max-warnings: exit 1 with one line when warnings exceed it, 0 within it', async () => {
    const over = await cli(['--config', path.join(tmp, 'warn.config.mjs'), '--max-warnings', '3', LEAKY]);
    expect(over.code).toBe(1);
    expect(over.stdout).toContain(`✖ ${LEAKY_COUNT} problems (0 errors, ${LEAKY_COUNT} warnings)`);
    expect(over.stderr).toBe(`mcp-stateless: too many warnings (${LEAKY_COUNT}; maximum: 3)\n`);
    const within = await cli(['--config', path.join(tmp, 'warn.config.mjs'), '--max-warnings', String(LEAKY_COUNT), LEAKY]);
    expect(within.code).toBe(0);
    expect(within.stderr).toBe('');
    // Without --max-warnings, warnings alone do not fail the run (ESLint's convention).
    expect((await cli(['--config', path.join(tmp, 'warn.config.mjs'), LEAKY])).code).toBe(0);
    const bad = await cli(['--max-warnings', 'ten', LEAKY]);
    expect(bad).toEqual({ code: 2, stdout: '', stderr: "mcp-stateless: --max-warnings takes a whole number (or -1 for no limit), got 'ten'\n" });
  });

  it('--quiet reports errors only', async () => {
    const warnOnly = await cli(['--config', path.join(tmp, 'warn.config.mjs'), '--quiet', LEAKY]);
    expect(warnOnly).toEqual({ code: 0, stdout: '', stderr: '' });
    const errors = await cli(['--quiet', '--format', 'json', LEAKY]);
    expect(errors.code).toBe(1);
    expect((JSON.parse(errors.stdout) as { messages: unknown[] }[]).flatMap((r) => r.messages)).toHaveLength(LEAKY_COUNT);
    // --quiet with --max-warnings still counts the warnings it does not print.
    const counted = await cli(['--config', path.join(tmp, 'warn.config.mjs'), '--quiet', '--max-warnings', '0', LEAKY]);
    expect(counted).toEqual({ code: 1, stdout: '', stderr: `mcp-stateless: too many warnings (${LEAKY_COUNT}; maximum: 0)\n` });
  });

  it('--format gitlab writes a GitLab code-quality report through eslint-formatter-gitlab', async () => {
    const report = path.join(tmp, 'gl-code-quality-report.json');
    const run = await cli(['--format', 'gitlab', LEAKY], { env: { CI_PROJECT_DIR: root, ESLINT_CODE_QUALITY_REPORT: report, CI_JOB_NAME: '' } });
    expect(run.code).toBe(1);
    const issues = JSON.parse(readFileSync(report, 'utf8')) as { check_name: string; severity: string; fingerprint: string; location: { path: string; lines: { begin: number } } }[];
    expect(issues).toHaveLength(LEAKY_COUNT);
    for (const issue of issues) {
      expect(issue.check_name).toMatch(/^mcp-stateless\//);
      expect(issue.location.path).toMatch(/^examples\/leaky-server\/(server|runner)\.ts$/);
      expect(issue.fingerprint).toMatch(/^[0-9a-f]{32,64}$/);
    }
    expect(new Set(issues.map((i) => i.fingerprint)).size).toBe(LEAKY_COUNT);
  });

  it('zero config reads a .js file as an ES module, or as CommonJS when only that parses (a top-level return)', async () => {
    const dir = mkdtempSync(path.join(tmp, 'cjs-'));
    writeFileSync(path.join(dir, 'cli.js'), "const fs = require('fs');\nif (process.argv.length < 3) {\n  console.log('usage');\n  return;\n}\nmodule.exports = { fs };\n");
    writeFileSync(
      path.join(dir, 'server.js'),
      "const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');\nconst server = new McpServer({ name: 'x', version: '1' });\nlet current = null;\nif (!server) return;\nserver.tool('set', {}, async (args) => { current = args.target; return { content: [] }; });\nserver.tool('get', {}, async () => ({ content: [{ type: 'text', text: String(current) }] }));\n",
    );
    writeFileSync(path.join(dir, 'esm.js'), "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const server = new McpServer({ name: 'y', version: '1' });\n");
    // Neither reading parses: the module reading's error is the one reported.
    writeFileSync(path.join(dir, 'both.js'), "import x from 'y';\nreturn x;\n");
    const run = await cli(['--format', 'json', path.relative(root, dir)]);
    const results = JSON.parse(run.stdout) as { filePath: string; messages: { line: number; column: number; ruleId: string | null; message: string }[] }[];
    const byFile = Object.fromEntries(results.map((r) => [path.basename(r.filePath), r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId ?? m.message}`)]));
    expect(byFile).toEqual({
      'both.js': ["2:1 Parsing error: 'return' outside of function"],
      'cli.js': [],
      'esm.js': [],
      'server.js': ['5:42 mcp-stateless/no-cross-call-binding'],
    });
    expect(run.code).toBe(1);
  });

  it('with --type-checked, a file no tsconfig.json includes is linted one file at a time, with a note, not a parse error', async () => {
    const dir = mkdtempSync(path.join(tmp, 'outside-'));
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', skipLibCheck: true, noEmit: true }, include: ['src'] }));
    const leaky = "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nconst server = new McpServer({ name: 'x', version: '1' });\nlet current = '';\nserver.tool('set', {}, async (args: { t: string }) => { current = args.t; return { content: [] }; });\nserver.tool('get', {}, async () => ({ content: [{ type: 'text', text: current }] }));\n";
    writeFileSync(path.join(dir, 'src', 'server.ts'), leaky);
    writeFileSync(path.join(dir, 'vitest.config.ts'), "export default { test: { include: ['src/**/*.test.ts'] } };\n");
    writeFileSync(path.join(dir, 'scratch.ts'), leaky);
    const run = await cli(['--type-checked', '--format', 'json', path.relative(root, dir)]);
    const results = JSON.parse(run.stdout) as { filePath: string; messages: { line: number; ruleId: string | null; fatal?: boolean }[] }[];
    const byFile = Object.fromEntries(results.map((r) => [path.relative(dir, r.filePath), r.messages.map((m) => `${m.line} ${m.ruleId ?? 'fatal'}`)]));
    expect(byFile).toEqual({
      'scratch.ts': ['4 mcp-stateless/no-cross-call-binding'],
      'src/server.ts': ['4 mcp-stateless/no-cross-call-binding'],
      'vitest.config.ts': [],
    });
    expect(run.stderr).toMatch(/^mcp-stateless: 2 file\(s\) that no tsconfig\.json includes \(.*(scratch|vitest\.config)\.ts, …\) were linted one file at a time, without whole-server analysis\n$/);
    expect(run.code).toBe(1);
  });

  it('an unknown format is one line, exit 2', async () => {
    const run = await cli(['--format', 'nonesuch', LEAKY]);
    expect(run).toEqual({ code: 2, stdout: '', stderr: "mcp-stateless: unknown format 'nonesuch' (use stylish, json, sarif, or install eslint-formatter-nonesuch)\n" });
  });
});

describe('configuration errors are one complete line', () => {
  it('a rule option error says what is wrong, not only where', async () => {
    const run = await cli(['--config', path.join(tmp, 'bad-option.config.mjs'), LEAKY]);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'mcp-stateless: Key "rules": Key "mcp-stateless/no-fixed-path-io": Unexpected property "bogus". Expected properties: "reportAllReads", "reportAppends", "fsModules", "processModules".\n',
    });
    const type = await cli(['--config', path.join(tmp, 'bad-type.config.mjs'), LEAKY]);
    expect(type.stderr).toBe('mcp-stateless: Key "rules": Key "mcp-stateless/no-fixed-path-io": Value "fs-extra" should be array.\n');
  });

  it('a settings error carries the mcp-stateless prefix once, without ESLint\'s crash banner', async () => {
    // Through the real bin: no crash banner, no stack, one line.
    const run = await cli(['--config', path.join(tmp, 'bad-settings.config.mjs'), LEAKY], { spawn: true });
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: "mcp-stateless: settings['mcp-stateless'] has unknown key 'scopeArgs' (known: registrationFunctions, handlerProperties, scopeArguments, crossFile)\n",
    });
  });

  it('the report command gets the same complete line', async () => {
    const run = await cli(['report', '--config', path.join(tmp, 'bad-option.config.mjs'), LEAKY]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'mcp-stateless report: Key "rules": Key "mcp-stateless/no-fixed-path-io": Unexpected property "bogus". Expected properties: "reportAllReads", "reportAppends", "fsModules", "processModules".\n',
    );
    const settings = await cli(['report', '--config', path.join(tmp, 'bad-settings.config.mjs'), LEAKY]);
    expect(settings.stderr).toBe("mcp-stateless report: settings['mcp-stateless'] has unknown key 'scopeArgs' (known: registrationFunctions, handlerProperties, scopeArguments, crossFile)\n");
  });

  it('no output file is left behind when the configuration is wrong', async () => {
    const file = path.join(tmp, 'never.sarif');
    await cli(['--config', path.join(tmp, 'bad-option.config.mjs'), '-o', file, LEAKY]);
    expect(existsSync(file)).toBe(false);
  });
});
