// The README, run as a new user would: every fenced block is a config or a command, marked `<!-- check: id -->`, and
// each id below runs it in a fresh project installed from `npm pack` (ESLint 10 and ESLint 9) and checks the output.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createESLint } from '../../src/session.js';
import { freshProject, packFromSource, repo, scratch, type Packed, type Project } from './fresh-project.js';

interface Block {
  id: string;
  lang: string;
  code: string;
  line: number;
}

const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  scripts: Record<string, string>;
  repository: { url: string };
  devDependencies: Record<string, string>;
};

/** Fenced blocks with the check id on the line before (null when missing). */
function blocksOf(markdown: string): (Block | { id: null; line: number })[] {
  const lines = markdown.split('\n');
  const out: (Block | { id: null; line: number })[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)/.exec(lines[i]);
    if (!fence) continue;
    const mark = /^<!-- check: ([a-z0-9-]+) -->$/.exec(lines[i - 1] ?? '');
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i].startsWith('```'); i++) body.push(lines[i]);
    out.push(mark ? { id: mark[1], lang: fence[1], code: body.join('\n'), line: start + 1 } : { id: null, line: start + 1 });
  }
  return out;
}

const blocks = blocksOf(readme);
function block(id: string): Block {
  const found = blocks.filter((b): b is Block => b.id === id);
  if (found.length !== 1) throw new Error(`README has ${found.length} blocks marked '${id}'`);
  return found[0];
}

/** Commands of a shell block (comments dropped). */
const commands = (b: Block) => b.code.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);

// One packed tarball for the suite, three projects: TypeScript on ESLint 10 (with the CI formatters), TypeScript on
// ESLint 9, plain JavaScript on ESLint 10.
let work: ReturnType<typeof scratch>;
let packed: Packed;
let ts10: Project;
let ts9: Project;
let js10: Project;
let expectedTs: string[];
let expectedJs: string[];

const FIXTURE_TS = path.join(repo, 'examples', 'leaky-server');
const FIXTURE_JS = path.join(repo, 'tests', 'fixtures', 'javascript');
const CLEAN_TS = path.join(repo, 'examples', 'clean-server', 'server.ts');
const COMPILER = { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] };
/** The project's sources (the type-checked configs read it). */
const TSCONFIG = { compilerOptions: COMPILER, include: ['src'] };

function copyDir(from: string, to: string) {
  mkdirSync(to, { recursive: true });
  for (const f of readdirSync(from)) copyFileSync(path.join(from, f), path.join(to, f));
}

/** `file:line:col rule` of every message, paths relative to the linted directory. */
function findings(json: string, dir: string): string[] {
  const results = JSON.parse(json) as { filePath: string; messages: { line: number; column: number; ruleId: string | null; message: string }[] }[];
  return results.flatMap((r) => r.messages.map((m) => `${path.relative(dir, r.filePath)}:${m.line}:${m.column} ${m.ruleId ?? m.message}`)).sort();
}

/** What the repo's own zero config reports for a fixture directory: the installed package must report the same. */
async function repoFindings(dir: string): Promise<string[]> {
  const results = await createESLint([dir], {}).lintFiles([dir]);
  return findings(JSON.stringify(results), dir);
}

/**
 * ESLint's Node API from the project's own node_modules, with a config file of the project: what the `eslint` command
 * does, without starting a process per lint (the plugin loads once per project).
 */
async function lintIn(p: Project, configFile: string): Promise<string[]> {
  const api = (await import(pathToFileURL(path.join(p.dir, 'node_modules/eslint/lib/api.js')).href)) as typeof import('eslint');
  const eslint = new api.ESLint({ cwd: p.dir, overrideConfigFile: configFile });
  const results = await eslint.lintFiles(['src/']);
  return findings(JSON.stringify(results), path.join(p.dir, 'src'));
}

function eslint(p: Project, args: string[], env: NodeJS.ProcessEnv = {}) {
  return p.run('node', ['node_modules/eslint/bin/eslint.js', ...args], env);
}

/** Run a README command line in a project, as a shell would (`npx` finds the project's own bin, offline). */
function sh(p: Project, line: string, env: NodeJS.ProcessEnv = {}) {
  return p.run('sh', ['-c', line], { npm_config_offline: 'true', npm_config_update_notifier: 'false', ...env });
}

beforeAll(async () => {
  work = scratch('mcp-stateless-readme-');
  packed = packFromSource(work.dir);
  const formatters = {
    '@microsoft/eslint-formatter-sarif': 'node_modules/@microsoft/eslint-formatter-sarif',
    'eslint-formatter-gitlab': 'node_modules/eslint-formatter-gitlab',
  };
  [ts10, ts9, js10] = await Promise.all([
    freshProject(work.dir, 'ts-eslint10', packed, { eslint: 10, typescript: true, extra: formatters }),
    freshProject(work.dir, 'ts-eslint9', packed, { eslint: 9, typescript: true }),
    freshProject(work.dir, 'js-eslint10', packed, { eslint: 10 }),
  ]);
  for (const p of [ts10, ts9]) {
    copyDir(FIXTURE_TS, path.join(p.dir, 'src'));
    p.write('tsconfig.json', JSON.stringify(TSCONFIG, null, 2));
  }
  copyDir(FIXTURE_JS, path.join(js10.dir, 'src'));
  [expectedTs, expectedJs] = await Promise.all([repoFindings(FIXTURE_TS), repoFindings(FIXTURE_JS)]);
}, 240_000);

afterAll(() => work?.dispose(), 120_000);

describe('README blocks', () => {
  it('every fenced block is marked with the check that runs it, and every check has its block', () => {
    const unmarked = blocks.filter((b) => b.id === null).map((b) => `README.md:${b.line}`);
    expect(unmarked).toEqual([]);
    const ids = blocks.map((b) => b.id).sort();
    expect(ids).toEqual([...CHECKS].sort());
  });

  it('the fixtures hold the hazards the README promises', () => {
    expect(expectedTs).toHaveLength(17);
    expect(expectedJs.length).toBeGreaterThan(0);
  });
});

const CHECKS = new Set<string>();
function check(id: string, name: string, fn: () => void | Promise<void>, timeout = 90_000) {
  CHECKS.add(id);
  it(`${id}: ${name}`, fn, timeout);
}

describe('the package, packed from a source tree without dist/ (as npm does for a git URL)', () => {
  check('install-git', '`prepare` builds dist/ and the tarball has what the imports and the bin need', () => {
    const spec = commands(block('install-git'))[0].split(' ').pop()!;
    expect(spec).toBe(`github:${new URL(pkg.repository.url.replace(/^git\+/, '')).pathname.slice(1).replace(/\.git$/, '')}`);
    for (const file of ['dist/bundle/index.js', 'dist/bundle/cli.js', 'dist/bundle/probe.js', 'dist/bundle/probe-cli.js', 'dist/src/index.d.ts', 'dist/src/probe/run.d.ts', 'dist/rules/index.d.ts', 'bin/mcp-stateless.js', 'LICENSE', 'CHANGELOG.md', 'README.md', 'package.json']) {
      expect(packed.contents).toContain(file);
    }
    expect(packed.contents.filter((f) => /^docs\/rules\/.+\.md$/.test(f))).toHaveLength(15);
    expect(packed.contents.filter((f) => /^(src|rules|tests)\/|\.test\.|^dist\/tests/.test(f))).toEqual([]);
    // The code ships once, bundled; dist/src and dist/rules contribute only the type declarations.
    expect(packed.contents.filter((f) => /^dist\/(src|rules)\/.*\.js$/.test(f))).toEqual([]);
  });

  it('metadata: repository, homepage, bugs, MIT licence text', () => {
    const m = packed.manifest as unknown as Record<string, unknown>;
    expect(m.repository).toEqual({ type: 'git', url: 'git+https://github.com/mcp-stateless/eslint-plugin-mcp-stateless.git' });
    expect(m.homepage).toBe('https://github.com/mcp-stateless/eslint-plugin-mcp-stateless#readme');
    expect(m.bugs).toEqual({ url: 'https://github.com/mcp-stateless/eslint-plugin-mcp-stateless/issues' });
    expect(m.license).toBe('MIT');
    expect(readFileSync(path.join(repo, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    expect(readFileSync(path.join(repo, 'CHANGELOG.md'), 'utf8')).toContain(`## [${pkg.version}]`);
  });

  it('dependencies are ranges (npm shares the user\'s copy); typescript and the SARIF formatter are optional peers', () => {
    const m = packed.manifest;
    // The probe's MCP SDK is the probe's entry (it becomes an optional peer there); the lint path never loads it.
    for (const [name, range] of Object.entries(m.dependencies ?? {})) if (name !== '@modelcontextprotocol/sdk') expect(range, name).toMatch(/^\^/);
    expect(m.peerDependenciesMeta?.typescript?.optional).toBe(true);
    expect(m.peerDependenciesMeta?.['@microsoft/eslint-formatter-sarif']?.optional).toBe(true);
    // A typescript-eslint project gets one copy of the typescript-eslint packages, not the plugin's own beside it.
    for (const name of ['utils', 'parser', 'scope-manager', 'typescript-estree']) {
      expect(ts10.installed.filter((p) => p.endsWith(`node_modules/@typescript-eslint/${name}`)), name).toEqual([`node_modules/@typescript-eslint/${name}`]);
    }
  });
});

describe('install', () => {
  const names = (b: Block) => commands(b)[0].split(' ').filter((w) => !w.startsWith('-')).slice(2).sort();
  check('install-ts', 'the TypeScript project installs exactly the packages the command names', () => {
    expect(commands(block('install-ts'))).toHaveLength(1);
    expect(names(block('install-ts'))).toEqual(['eslint', pkg.name, 'typescript', 'typescript-eslint'].sort());
    expect(existsSync(path.join(ts10.dir, 'node_modules', pkg.name, 'dist/bundle/index.js'))).toBe(true);
  });
  check('install-js', 'the plain-JavaScript project installs ESLint and the plugin only', () => {
    expect(names(block('install-js'))).toEqual(['eslint', pkg.name].sort());
    expect(Object.keys((JSON.parse(readFileSync(path.join(js10.dir, 'package.json'), 'utf8')) as { dependencies: object }).dependencies).sort()).toEqual(['eslint', pkg.name].sort());
  });
});

describe('configs', () => {
  for (const [label, project] of [['ESLint 10', () => ts10], ['ESLint 9', () => ts9]] as const) {
    check('config-ts', `eslint.config.js for TypeScript reports the example's hazards (${label})`, () => {
      const p = project();
      p.write('eslint.config.js', block('config-ts').code);
      const run = eslint(p, ['--format', 'json', 'src/']);
      expect(run.code).toBe(1);
      expect(findings(run.stdout, path.join(p.dir, 'src'))).toEqual(expectedTs);
    });

    check('config-define', `eslint.config.ts with defineConfig, and with tseslint.config, type-check and run (${label})`, async () => {
      const p = project();
      const variants = [block('config-define'), block('config-tseslint')];
      // One tsc run over both (each file is an eslint.config.ts), as a user's typecheck would include it. All config
      // files sit in the project root: typescript-eslint takes the root directory from where its config is loaded.
      const names = ['define', 'tseslint'];
      variants.forEach((b, i) => p.write(`${names[i]}.eslint.config.ts`, b.code));
      p.write('tsconfig.config.json', JSON.stringify({ compilerOptions: COMPILER, include: ['*.eslint.config.ts'] }, null, 2));
      const tsc = p.run('node', ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.config.json']);
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.code).toBe(0);
      for (const [i, b] of variants.entries()) {
        expect(b.lang).toBe('ts');
        // The same code with the types stripped (what jiti or Node's type stripping hands ESLint).
        const js = ts.transpileModule(b.code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
        p.write(`${names[i]}.eslint.config.js`, js);
        expect(await lintIn(p, `${names[i]}.eslint.config.js`)).toEqual(expectedTs);
      }
    }, 90_000);
    CHECKS.add('config-tseslint');

    check('settings', `the shared settings block is accepted (${label})`, async () => {
      const p = project();
      const config = block('config-ts').code.replace(/\n\];\n?$/, `\n  ${block('settings').code.replace(/\n/g, '\n  ')},\n];\n`);
      expect(config).toContain("'mcp-stateless': {");
      p.write('settings.eslint.config.js', config);
      expect(await lintIn(p, 'settings.eslint.config.js')).toEqual(expectedTs);
    });

    check('config-type-checked', `recommended-type-checked reports the same hazards with the project's tsconfig (${label})`, async () => {
      const p = project();
      p.write('type-checked.eslint.config.js', block('config-type-checked').code);
      expect(await lintIn(p, 'type-checked.eslint.config.js')).toEqual(expectedTs);
    });
  }

  let jsLoaded: string[];
  check('config-js', 'eslint.config.js for plain JavaScript reports the hazards without loading the probe\'s packages', () => {
    js10.write('eslint.config.js', block('config-js').code);
    const { run, loaded } = tracked(js10, ['node_modules/eslint/bin/eslint.js', '--format', 'json', 'src/']);
    jsLoaded = loaded;
    expect(run.code).toBe(1);
    expect(findings(run.stdout, path.join(js10.dir, 'src'))).toEqual(expectedJs);
    expect(loaded.some((m) => m.includes(`/node_modules/${pkg.name}/dist/bundle/`))).toBe(true);
    // ESLint's own ajv 6 (under node_modules/eslint/) is ESLint's business.
    expect(loaded.filter((m) => /\/node_modules\/(@modelcontextprotocol\/sdk|ajv|express)\//.test(m) && !m.includes('/node_modules/eslint/'))).toEqual([]);
  });

  // typescript-estree (which loads TypeScript) is loaded by the analysis only for whole-server analysis.
  it('plain JavaScript: the lint path does not load TypeScript', () => {
    expect(jsLoaded.length).toBeGreaterThan(0);
    expect(jsLoaded.filter((m) => /\/node_modules\/typescript\//.test(m))).toEqual([]);
  });
});

/** Run node with `args` and list every module file it resolved (ESM) or required (CommonJS). */
function tracked(p: Project, args: string[]): { run: ReturnType<Project['run']>; loaded: string[] } {
  const log = path.join(p.dir, 'loaded.log');
  writeFileSync(log, '');
  p.write(
    'track-loads.mjs',
    [
      "import { appendFileSync } from 'node:fs';",
      "import { createRequire, register } from 'node:module';",
      'const log = process.env.LOAD_LOG;',
      "register('data:text/javascript,' + encodeURIComponent(`import { appendFileSync } from 'node:fs'; export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + '\\\\n'); return r; }`));",
      "process.on('exit', () => appendFileSync(log, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n'));",
      '',
    ].join('\n'),
  );
  const run = p.run('node', ['--import', './track-loads.mjs', ...args], { LOAD_LOG: log });
  return { run, loaded: readFileSync(log, 'utf8').split('\n').filter(Boolean).map((u) => u.replace(/^file:\/\//, '')) };
}

describe('CLI', () => {
  check('cli', 'each command runs in the TypeScript project with the exit code the README states', () => {
    const lines = commands(block('cli'));
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) {
      const run = sh(ts10, line);
      if (line.includes('--version')) {
        expect(run).toEqual({ code: 0, stdout: `eslint-plugin-mcp-stateless ${pkg.version} (ESLint ${pkg.devDependencies.eslint})\n`, stderr: '' });
        continue;
      }
      expect(run.stderr, line).toBe('');
      expect(run.code, line).toBe(1);
      const out = /--output-file (\S+)/.exec(line)?.[1];
      const text = out ? readFileSync(path.join(ts10.dir, out), 'utf8') : run.stdout;
      if (line.includes('--format json')) expect(findings(text, path.join(ts10.dir, 'src'))).toEqual(expectedTs);
      else expect(text).toContain('✖ 17 problems (17 errors, 0 warnings)');
    }
  });

  it('the installed bin on ESLint 9 names ESLint 9', () => {
    const run = sh(ts9, 'npx mcp-stateless --version');
    expect(run.stdout).toBe(`eslint-plugin-mcp-stateless ${pkg.version} (ESLint ${ts9.installed.includes('node_modules/eslint') ? (JSON.parse(readFileSync(path.join(ts9.dir, 'node_modules/eslint/package.json'), 'utf8')) as { version: string }).version : '?'})\n`);
    expect(run.stdout).toMatch(/\(ESLint 9\./);
  });

  it('the plain-JavaScript project lints with the zero-config CLI; --format sarif without the formatter says what to install', () => {
    const run = sh(js10, 'npx mcp-stateless --format json src/');
    expect(run.code).toBe(1);
    expect(findings(run.stdout, path.join(js10.dir, 'src'))).toEqual(expectedJs);
    const sarif = sh(js10, 'npx mcp-stateless --format sarif src/');
    expect(sarif).toEqual({
      code: 2,
      stdout: '',
      stderr: 'mcp-stateless: --format sarif needs @microsoft/eslint-formatter-sarif: npm install --save-dev @microsoft/eslint-formatter-sarif\n',
    });
  });

  check('report', 'the registration report is written', () => {
    const [line] = commands(block('report'));
    const run = sh(ts10, line);
    expect(run.code).toBe(1);
    const report = JSON.parse(readFileSync(path.join(ts10.dir, 'report', 'mcp-stateless-report.json'), 'utf8')) as { hazards: { total: number } };
    expect(report.hazards.total).toBe(17);
    expect(existsSync(path.join(ts10.dir, 'report', 'mcp-stateless-report.md'))).toBe(true);
  });
});

describe('CI and hooks', () => {
  check('github', 'the GitHub workflow writes the SARIF file its upload step names', () => {
    const wf = parseYaml(block('github').code) as {
      jobs: Record<string, { permissions: Record<string, string>; steps: { run?: string; uses?: string; with?: Record<string, string>; if?: string }[] }>;
    };
    const [job] = Object.values(wf.jobs);
    expect(job.permissions['security-events']).toBe('write');
    const runs = job.steps.filter((s) => s.run).map((s) => s.run!);
    expect(runs).toContain('npm install --no-save @microsoft/eslint-formatter-sarif');
    const upload = job.steps.find((s) => s.uses?.startsWith('github/codeql-action/upload-sarif@'))!;
    expect(upload.if).toBe('success() || failure()');
    const lint = runs.find((r) => r.includes('mcp-stateless'))!;
    const run = sh(ts10, lint);
    expect(run.code).toBe(1);
    const sarif = JSON.parse(readFileSync(path.join(ts10.dir, upload.with!.sarif_file), 'utf8')) as { version: string; runs: { results: unknown[] }[] };
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0].results).toHaveLength(17);
  });

  check('gitlab', 'the GitLab job writes the code-quality report its artifacts name', () => {
    const code = block('gitlab').code;
    const ci = parseYaml(code) as Record<string, { script: string[]; artifacts: { reports: { codequality: string } } }>;
    const [[jobName, job]] = Object.entries(ci);
    ts10.write('.gitlab-ci.yml', code);
    const lint = job.script.find((l) => l.includes('mcp-stateless'))!;
    expect(job.script).toContain('npm install --no-save eslint-formatter-gitlab');
    const env = { CI_PROJECT_DIR: ts10.dir, CI_JOB_NAME: jobName, ESLINT_CODE_QUALITY_REPORT: '' };
    const run = sh(ts10, lint, env);
    expect(run.code).toBe(1);
    const issues = JSON.parse(readFileSync(path.join(ts10.dir, job.artifacts.reports.codequality), 'utf8')) as { check_name: string; location: { path: string } }[];
    expect(issues).toHaveLength(17);
    expect(new Set(issues.map((i) => i.location.path))).toEqual(new Set(['src/server.ts', 'src/runner.ts']));
  });

  check('pre-commit', 'the pre-commit config names this repository, a release tag and hooks it defines; each hook runs', () => {
    const config = parseYaml(block('pre-commit').code) as { repos: { repo: string; rev: string; hooks: { id: string }[] }[] };
    const hooks = parseYaml(readFileSync(path.join(repo, '.pre-commit-hooks.yaml'), 'utf8')) as { id: string; entry: string; language: string; types_or: string[] }[];
    const [entry] = config.repos;
    expect(`git+${entry.repo}.git`).toBe(pkg.repository.url);
    expect(entry.rev).toBe(`v${pkg.version}`);
    for (const h of entry.hooks) expect(hooks.map((x) => x.id)).toContain(h.id);
    copyFileSync(CLEAN_TS, path.join(ts10.dir, 'clean.ts'));
    for (const hook of hooks) {
      expect(hook.language).toBe('node');
      expect(hook.types_or).toEqual(expect.arrayContaining(['ts', 'javascript']));
      // pre-commit appends the staged files to the entry: the leaky one is reported, the clean one is not.
      const run = sh(ts10, `npx ${hook.entry} src/server.ts clean.ts`);
      expect(run.code, hook.id).toBe(1);
      expect(run.stdout).toContain('src/server.ts');
      expect(run.stdout).not.toContain('clean.ts');
    }
  });

  check('lint-staged', 'the lint-staged command passes a clean staged file (the hooks above show it failing on hazards)', () => {
    const config = JSON.parse(block('lint-staged').code) as { 'lint-staged': Record<string, string> };
    const [[glob, command]] = Object.entries(config['lint-staged']);
    for (const ext of ['js', 'ts', 'mts', 'tsx']) expect(glob).toMatch(new RegExp(`[{,]${ext}[,}]`));
    copyFileSync(CLEAN_TS, path.join(ts10.dir, 'clean.ts'));
    expect(sh(ts10, `npx ${command} clean.ts`)).toEqual({ code: 0, stdout: 'mcp-stateless: no statelessness hazards found in 1 file(s).\n', stderr: '' });
  });

  check('editor-settings', 'the editor settings are JSON for the ESLint extension, without the setting that hides everything on ESLint 10', () => {
    const settings = JSON.parse(block('editor-settings').code) as Record<string, unknown>;
    expect(settings['eslint.validate']).toEqual(expect.arrayContaining(['javascript', 'typescript']));
    expect(Object.keys(settings).filter((k) => k.startsWith('eslint.experimental'))).toEqual([]);
  });

  check('try-it', 'the two set-up commands are the package scripts CI runs', () => {
    expect(commands(block('try-it'))).toEqual(['npm ci && npm run example', 'npm ci && npm test']);
    expect(pkg.scripts.example).toBe('npm run build --silent && node bin/mcp-stateless.js examples/');
    expect(pkg.scripts.test).toBe('npm run build --silent && vitest run');
    expect(readFileSync(path.join(repo, '.ci', 'run'), 'utf8')).toMatch(/npm ci[^\n]*\nnpm test\n/);
    let out = '';
    try {
      execFileSync('node', ['bin/mcp-stateless.js', 'examples/'], { cwd: repo, encoding: 'utf8' });
    } catch (e) {
      out = (e as { status: number; stdout: string }).stdout;
      expect((e as { status: number }).status).toBe(1);
    }
    expect(out).toContain('✖ 17 problems (17 errors, 0 warnings)');
  });
});
