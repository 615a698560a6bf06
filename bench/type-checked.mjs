// Whole-server analysis cost: recommended-type-checked on a generated multi-file server project at 1×, 2× and 4×,
// against typed parsing alone (typescript-eslint with the project service and no rules). Reports ratios, the number of
// project-model builds (one per program, not one per file) and how cost grows with the number of files.
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// What a user's config loads (the package's entry, bundled), and the server-model class that bundle uses.
import plugin from '../dist/bundle/index.js';
import { ServerModel as ProjectModel } from '../dist/bundle/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const outRoot = path.join(here, 'out', 'type-checked');
const SIZES = [1, 2, 4];
const TOOLS_PER_X = 60;
const REPS = Number(process.env.BENCH_REPS ?? 3);

function toolModule(i) {
  // Every fourth tool has a hazard in module state; the rest are look-alikes.
  const hazard = i % 4 === 0;
  return `import { record } from '../lib/log${i % 10}.js';
import { LIMITS } from '../state.js';
${hazard ? `const seen${i}: string[] = [];` : `const TABLE${i} = { a: 1, b: 2 } as const;`}

export async function tool${i}(args: { q: string; workspace: string }) {
  const local = new Map<string, number>();
  local.set(args.q, ${i});
  ${hazard ? `seen${i}.push(args.q);` : `void TABLE${i}.a;`}
  record(args.workspace, args.q);
  if (args.q.length > LIMITS.max) throw new Error('too long');
  return { content: [{ type: 'text' as const, text: String(local.get(args.q)) }] };
}

export function helper${i}(xs: number[]): number {
  let total = 0;
  for (const x of xs) total += x * ${i};
  return total;
}
`;
}

function logModule(k) {
  return `const byWorkspace${k} = new Map<string, string[]>();
export function record(workspace: string, entry: string) {
  const list = byWorkspace${k}.get(workspace) ?? [];
  list.push(entry);
  byWorkspace${k}.set(workspace, list);
  byWorkspace${k}.delete(workspace);
}
`;
}

function generate(x) {
  const dir = path.join(outRoot, `${x}x`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'src', 'tools'), { recursive: true });
  mkdirSync(path.join(dir, 'src', 'lib'), { recursive: true });
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true, skipLibCheck: true, types: [] }, include: ['src/**/*.ts'] }));
  writeFileSync(path.join(dir, 'src', 'state.ts'), 'export const LIMITS = { max: 1000 } as const;\n');
  for (let k = 0; k < 10; k++) writeFileSync(path.join(dir, 'src', 'lib', `log${k}.ts`), logModule(k));
  const n = TOOLS_PER_X * x;
  const imports = [];
  const regs = [];
  for (let i = 0; i < n; i++) {
    writeFileSync(path.join(dir, 'src', 'tools', `tool${i}.ts`), toolModule(i));
    imports.push(`import { tool${i} } from './tools/tool${i}.js';`);
    regs.push(`server.registerTool('tool_${i}', { inputSchema: {} }, tool${i});`);
  }
  writeFileSync(
    path.join(dir, 'src', 'index.ts'),
    `${imports.join('\n')}\ndeclare const server: { registerTool(name: string, config: object, cb: (args: any) => unknown): void };\n${regs.join('\n')}\n`,
  );
  return { dir, files: n + 12 };
}

// The floor: one rule that does nothing. Any enabled rule makes ESLint traverse the tree and run code-path analysis,
// which typed parsing alone does not.
const FLOOR = { plugins: { bench: { rules: { empty: { create: () => ({}) } } } }, rules: { 'bench/empty': 'error' } };

async function run(dir, mode) {
  // `…-stats` runs turn on ESLint's own timing (parse and per-rule times per file); it adds a little to every rule's
  // time, so their wall times are not used for the ratios.
  const stats = mode.endsWith('-stats');
  mode = mode.replace(/-stats$/, '');
  const eslint = new ESLint({
    cwd: dir,
    stats,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tsParser, parserOptions: { projectService: true, tsconfigRootDir: dir } } },
      ...(mode === 'rules' ? plugin.configs['recommended-type-checked'] : mode === 'floor' ? [FLOOR] : []),
    ],
  });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const results = await eslint.lintFiles(['src']);
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  let parseMs = 0;
  let rulesMs = 0;
  for (const r of results) {
    for (const pass of r.stats?.times?.passes ?? []) {
      parseMs += pass.parse.total;
      for (const t of Object.values(pass.rules ?? {})) rulesMs += t.total;
    }
  }
  return { ms, cpuMs: (c.user + c.system) / 1000, parseMs, rulesMs, findings: results.reduce((n, r) => n + r.messages.length, 0), fatal: results.reduce((n, r) => n + r.messages.filter((m) => m.fatal).length, 0) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Each measurement runs in a fresh process: typescript-eslint's project service keeps programs alive between runs in
// one process, which would make every run after the first look cheaper than an editor or CI ever sees.
if (process.argv[2] === '--child') {
  let builds = 0;
  const originalBuild = ProjectModel.prototype.build;
  ProjectModel.prototype.build = function (...args) {
    builds++;
    return originalBuild.apply(this, args);
  };
  const res = await run(process.argv[3], process.argv[4]);
  process.stdout.write(JSON.stringify({ ...res, builds }));
  process.exit(0);
}

function child(dir, mode) {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dir, mode], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return JSON.parse(out);
}

const rows = [];
const MODES = ['parse', 'floor', 'rules'];
for (const x of SIZES) {
  const { dir, files } = generate(x);
  const ms = { parse: [], floor: [], rules: [] };
  const ratios = [];
  const floorRatios = [];
  const cpuRatios = [];
  let findings = 0;
  let buildsPerRun = 0;
  const split = { floorParse: [], rulesParse: [], rulesOwn: [] };
  for (let r = 0; r < REPS; r++) {
    // Each triple (typed parse only, the floor, recommended-type-checked) runs back to back, in rotating order, and is
    // compared within itself: this machine's speed drifts by ±15% over seconds, which medians of separate runs would
    // mistake for cost.
    const order = MODES.slice(r % 3).concat(MODES.slice(0, r % 3));
    const got = {};
    for (const mode of order) got[mode] = child(dir, mode);
    for (const mode of MODES) ms[mode].push(got[mode].ms);
    buildsPerRun = got.rules.builds;
    ratios.push(got.rules.ms / got.parse.ms);
    floorRatios.push(got.rules.ms / got.floor.ms);
    cpuRatios.push(got.rules.cpuMs / got.parse.cpuMs);
    findings = got.rules.findings;
    // Inside ESLint: what parsing cost with the floor and with the rules on (the server model converts each file once
    // and hands it to typescript-eslint's parser, so the parse shrinks while the rules' time holds the conversion).
    const floorStats = child(dir, 'floor-stats');
    const rulesStats = child(dir, 'rules-stats');
    split.floorParse.push(floorStats.parseMs);
    split.rulesParse.push(rulesStats.parseMs);
    split.rulesOwn.push(rulesStats.rulesMs);
  }
  rows.push({
    x,
    files,
    parse: median(ms.parse),
    floor: median(ms.floor),
    rules: median(ms.rules),
    ratio: median(ratios),
    floorRatio: median(floorRatios),
    cpuRatio: median(cpuRatios),
    low: Math.min(...ratios),
    high: Math.max(...ratios),
    floorLow: Math.min(...floorRatios),
    floorHigh: Math.max(...floorRatios),
    findings,
    buildsPerRun,
    floorParse: median(split.floorParse),
    rulesParse: median(split.rulesParse),
    rulesOwn: median(split.rulesOwn),
  });
}

console.log('\n### recommended-type-checked on a multi-file server project (median of %d runs)\n', REPS);
console.log(
  'Ratios are medians of per-run ratios (each run: typed parsing alone, the floor — typed parsing with one empty rule — and recommended-type-checked, back to back in fresh processes, in rotating order), lowest–highest in brackets; wall time, and process CPU time beside it.\n',
);
console.log('| size | files | typed parse only (ms) | floor (ms) | recommended-type-checked (ms) | × typed parse | × floor | × typed parse (CPU) | findings | project-model builds per run | ms per file (rules − parse) |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(
    `| ${r.x}× | ${r.files} | ${r.parse.toFixed(0)} | ${r.floor.toFixed(0)} | ${r.rules.toFixed(0)} | ${r.ratio.toFixed(2)}× (${r.low.toFixed(2)}–${r.high.toFixed(2)}) | ${r.floorRatio.toFixed(2)}× (${r.floorLow.toFixed(2)}–${r.floorHigh.toFixed(2)}) | ${r.cpuRatio.toFixed(2)}× | ${r.findings} | ${r.buildsPerRun} | ${((r.rules - r.parse) / r.files).toFixed(2)} |`,
  );
}
console.log('\nInside ESLint (ESLint `stats`, one floor run and one recommended-type-checked run per repetition, medians): parsing, with the floor and with the rules, and the rules\' own time (which holds the server model, its conversion of every file included).\n');
console.log('| size | parse, floor (ms) | parse, recommended-type-checked (ms) | rules (ms) | (parse + rules) ÷ floor parse |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(`| ${r.x}× | ${r.floorParse.toFixed(0)} | ${r.rulesParse.toFixed(0)} | ${r.rulesOwn.toFixed(0)} | ${((r.rulesParse + r.rulesOwn) / r.floorParse).toFixed(2)}× |`);
}
const base = rows[0];
for (const r of rows.slice(1)) {
  const expected = r.files / base.files;
  console.log(`\n${r.x}×/1×: analysis cost (rules − parse) grew ${(((r.rules - r.parse) / (base.rules - base.parse))).toFixed(2)}× for ${expected.toFixed(2)}× the files`);
}
