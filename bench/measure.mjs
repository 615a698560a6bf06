// One process, every configuration side by side: `node --expose-gc bench/measure.mjs <job.json>` (run.mjs writes the
// job and forks this; it is not meant to be run by hand). For each corpus in the job: one ESLint instance per
// configuration; each lints the corpus once to warm up (JIT, config caches); then `rounds` rounds in which every
// configuration lints the whole corpus once, in an order that rotates each round, so drift and background load fall on
// all of them alike. A full GC runs before every timed lint, so one configuration's garbage is not collected on
// another's time, and the process is left to settle before the clock starts (see settle()). Prints one JSON object on stdout: per corpus and configuration, every round's CPU ms (user + system
// of this process) and wall ms, findings and fatal (parse) errors. With `stats`, also ESLint's per-rule times for the
// strict configuration (parse, each rule, and the shared analysis on its own line when the dist exposes it).
//
// `mode: "rss"` instead lints each corpus once with one configuration and reports this process's peak RSS: run.mjs
// forks one such process per configuration to compare memory.

import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import { ROOT } from './corpora.mjs';
import { ALL_FILES, LANGUAGE, benchConfigs } from './configs.mjs';

const job = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const plugin = (await import('../dist/src/index.js')).default;
const security = job.configs.some((c) => c.startsWith('security')) ? (await import('eslint-plugin-security')).default : undefined;
const CONFIGS = benchConfigs(plugin, { security });
for (const c of job.configs) if (!CONFIGS[c]) throw new Error(`unknown configuration ${c}`);

const gc = globalThis.gc ?? (() => {});
const progress = (s) => process.stderr.write(s);

// The corpora include files under node_modules/ (published servers), which ESLint ignores by default; un-ignore it.
function engine(config, stats = false, extra = []) {
  return new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: [...CONFIGS[config], ...extra], ignorePatterns: ['!**/node_modules/'], cache: false, stats });
}

function summarise(results) {
  let findings = 0;
  let fatal = 0;
  // Findings are rule reports; ESLint's own notes (unused disable directives, unknown rules named in the corpus's
  // inline comments) are not counted.
  for (const r of results) {
    for (const m of r.messages) {
      // A corpus file ESLint skipped would make every configuration look free: stop rather than report that.
      if (!m.ruleId && m.message.startsWith('File ignored')) throw new Error(`${r.filePath}: ${m.message}`);
      if (m.fatal && /^Parsing error/.test(m.message)) fatal++;
      else if (m.ruleId && !m.message.startsWith('Definition for rule')) findings++;
    }
  }
  return { files: results.length, findings, fatal };
}

/**
 * Collect garbage, then wait until the process is quiet: V8 sweeps and uncommits memory on background threads after a
 * full GC (measured here: 20–200 ms of CPU in the next 50–200 ms), and process CPU time would charge that to whichever
 * configuration lints next.
 */
async function settle() {
  gc();
  for (let i = 0; i < 40; i++) {
    const c0 = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 25));
    const c = process.cpuUsage(c0);
    if (c.user + c.system < 1500) return;
  }
}

async function timedLint(eslint, files) {
  await settle();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const results = await eslint.lintFiles(files);
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { cpuMs: (c.user + c.system) / 1000, wallMs, ...summarise(results) };
}

/** A rule that builds the shared per-file analysis first, so `stats` shows it on its own line (when dist has it). */
async function sharedAnalysisPlugin() {
  try {
    const { getModuleModel, isAnalysed } = await import('../dist/src/analysis/door.js');
    const { getDefinitionRecords } = await import('../dist/src/analysis/definitions.js');
    if (typeof getModuleModel !== 'function' || typeof getDefinitionRecords !== 'function') return null;
    return {
      meta: { name: 'bench', version: '0.0.0' },
      rules: {
        'shared-analysis': {
          meta: { type: 'problem', schema: [] },
          // What the rules share, and only where they ask for it: the definition records on every file; the module
          // model (and its state accesses, for handler code) on the modules the rules analyse at all.
          create(context) {
            const listeners = {
              Program() {
                getDefinitionRecords(context.sourceCode);
              },
            };
            if (typeof isAnalysed === 'function' && !isAnalysed(context)) return listeners;
            return {
              ...listeners,
              'Program:exit'() {
                const model = getModuleModel(context);
                if (model.servesCalls !== false) model.stateAccesses?.();
              },
            };
          },
        },
      },
    };
  } catch {
    return null;
  }
}

async function perRule(files, rounds) {
  const shared = await sharedAnalysisPlugin();
  const extra = shared ? [{ files: ALL_FILES, plugins: { 'bench-shared': shared }, rules: { 'bench-shared/shared-analysis': 'error' } }] : [];
  // The shared-analysis line has to come before the plugin's rules so its listeners run first: put it right after the
  // language options.
  const base = CONFIGS['every rule (strict)'];
  const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: [...base.slice(0, LANGUAGE.length), ...extra, ...base.slice(LANGUAGE.length)], ignorePatterns: ['!**/node_modules/'], cache: false, stats: true });
  await eslint.lintFiles(files);
  const runs = [];
  for (let r = 0; r < rounds; r++) {
    await settle();
    const results = await eslint.lintFiles(files);
    const rules = {};
    let parse = 0;
    let total = 0;
    for (const res of results) {
      for (const pass of res.stats?.times?.passes ?? []) {
        parse += pass.parse?.total ?? 0;
        total += pass.total ?? 0;
        for (const [id, t] of Object.entries(pass.rules ?? {})) rules[id] = (rules[id] ?? 0) + t.total;
      }
    }
    runs.push({ parse, total, rules });
    progress('s');
  }
  return { sharedLine: Boolean(shared), runs };
}

/**
 * Paired per file: every configuration lints each file back to back (`lintText`, the file's text read once), in an order
 * drawn at random for each file and round (a seeded generator, so runs repeat), after one untimed lint of that file with
 * parse-only that pays what the first lint of a text costs any configuration. A rotating order gave each configuration
 * the same predecessor every time (with four, parse-only always came after every rule and paid for its garbage: it
 * measured 1.03–1.05× the floor); a random order gives each one every predecessor alike. The machine's drift over seconds (±10–25% between whole-corpus lints here)
 * falls on every configuration alike within a few milliseconds; per round, each configuration's CPU and wall time are
 * summed over the files. Returns { runs: { [config]: [{ cpuMs, wallMs }] } }.
 */
async function paired(configs, files, rounds) {
  const texts = files.map((f) => readFileSync(f, 'utf8'));
  const engines = configs.map((c) => engine(c));
  const warmer = engine('parse-only');
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  for (const e of engines) for (let i = 0; i < files.length; i++) await e.lintText(texts[i], { filePath: files[i] });
  const random = seededRandom(0x5eed);
  const runs = Object.fromEntries(configs.map((c) => [c, []]));
  for (let r = 0; r < rounds; r++) {
    await settle();
    const cpuMs = configs.map(() => 0);
    const wallMs = configs.map(() => 0);
    for (let i = 0; i < files.length; i++) {
      await warmer.lintText(texts[i], { filePath: files[i] });
      const order = shuffled(engines.length, random);
      for (let j = 0; j < engines.length; j++) {
        const k = order[j];
        const c0 = cpu();
        const w0 = performance.now();
        await engines[k].lintText(texts[i], { filePath: files[i] });
        wallMs[k] += performance.now() - w0;
        cpuMs[k] += cpu() - c0;
      }
    }
    configs.forEach((c, k) => runs[c].push({ cpuMs: cpuMs[k], wallMs: wallMs[k] }));
    progress('p');
  }
  return { runs };
}

/** A small seeded generator (mulberry32): the paired orders are random but the same in every run. */
function seededRandom(seed) {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 0 … n-1 in a random order (Fisher–Yates). */
function shuffled(n, random) {
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

const out = { corpora: {} };
if (job.mode === 'rss') {
  const eslint = engine(job.configs[0]);
  for (const corpus of job.corpora) out.corpora[corpus.name] = await timedLint(eslint, corpus.files);
  out.maxRssKiB = process.resourceUsage().maxRSS;
} else {
  for (const corpus of job.corpora) {
    progress(`  ${corpus.name}: `);
    const engines = job.configs.map((c) => [c, engine(c)]);
    const runs = Object.fromEntries(job.configs.map((c) => [c, []]));
    const warm = {};
    for (const [c, e] of engines) {
      warm[c] = await timedLint(e, corpus.files);
      progress('w');
    }
    for (let r = 0; r < job.rounds; r++) {
      for (let i = 0; i < engines.length; i++) {
        const [c, e] = engines[(i + r) % engines.length];
        runs[c].push(await timedLint(e, corpus.files));
        progress('.');
      }
    }
    const pairedRuns = job.pairedRounds ? await paired(job.configs, corpus.files, job.pairedRounds) : null;
    out.corpora[corpus.name] = { warm, runs, paired: pairedRuns, stats: job.stats ? await perRule(corpus.files, job.statsRounds ?? 3) : null };
    progress('\n');
  }
  out.maxRssKiB = process.resourceUsage().maxRSS;
}
process.stdout.write(JSON.stringify(out));
