// One benchmark configuration in its own process: run.mjs forks this with a config name, then sends `lint`, `stats`
// and `exit` messages over IPC and gets timings back. A process per configuration gives each its own peak RSS
// (process.resourceUsage().maxRSS) and keeps one configuration's JIT and heap from warming up another's.

import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import security from 'eslint-plugin-security';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import plugin from '../dist/src/index.js';
import { getModuleModel } from '../dist/src/analysis/door.js';
import { getDefinitionRecords } from '../dist/src/analysis/definitions.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TS_FILES = ['**/*.ts'];
const base = [{ files: TS_FILES, languageOptions: { parser: tsParser } }];

/** The floor: one rule that listens to nothing. Any enabled rule brings traversal and code-path analysis. */
const benchPlugin = {
  meta: { name: 'bench', version: '0.0.0' },
  rules: {
    empty: { meta: { type: 'problem', schema: [] }, create: () => ({}) },
    // Builds the shared per-file analysis before any real rule asks, so `stats` shows it on its own line and each
    // rule's time is its own work on top of it. Listed first, so its listeners run first.
    'shared-analysis': {
      meta: { type: 'problem', schema: [] },
      create(context) {
        return {
          Program() {
            getDefinitionRecords(context.sourceCode);
          },
          'Program:exit'() {
            getModuleModel(context).stateAccesses();
          },
        };
      },
    },
  },
};

export const CONFIGS = {
  'parse-only': () => base,
  'empty rule': () => [...base, { files: TS_FILES, plugins: { bench: benchPlugin }, rules: { 'bench/empty': 'error' } }],
  recommended: () => [...base, ...plugin.configs.recommended],
  strict: () => [...base, ...plugin.configs.strict],
  'security (peer)': () => [...base, security.configs.recommended],
  // For per-rule attribution only (stats mode): the shared analysis as its own line, then strict.
  'strict + shared-analysis line': () => [...base, { files: TS_FILES, plugins: { bench: benchPlugin }, rules: { 'bench/shared-analysis': 'error' } }, ...plugin.configs.strict],
};

const name = process.argv[2];
if (!CONFIGS[name]) {
  console.error(`worker: unknown config ${name}`);
  process.exit(2);
}
const engines = new Map();
function engine(stats) {
  if (!engines.has(stats)) {
    engines.set(stats, new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: CONFIGS[name](), stats, cache: false }));
  }
  return engines.get(stats);
}

function summarise(results) {
  let findings = 0;
  let fatal = 0;
  for (const r of results) for (const m of r.messages) m.fatal ? fatal++ : findings++;
  return { files: results.length, findings, fatal };
}

async function lint(dir) {
  const eslint = engine(false);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const results = await eslint.lintFiles([dir]);
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wallMs, cpuMs: (c.user + c.system) / 1000, ...summarise(results) };
}

/** ESLint's `stats: true`: parse time, per-rule time and total per file, summed over the files. */
async function stats(dir) {
  const results = await engine(true).lintFiles([dir]);
  const rules = {};
  let parse = 0;
  let total = 0;
  for (const r of results) {
    for (const pass of r.stats?.times?.passes ?? []) {
      parse += pass.parse?.total ?? 0;
      total += pass.total ?? 0;
      for (const [id, t] of Object.entries(pass.rules ?? {})) rules[id] = (rules[id] ?? 0) + t.total;
    }
  }
  return { parse, total, rules, ...summarise(results) };
}

process.on('message', async (msg) => {
  try {
    if (msg.cmd === 'lint') process.send({ ok: true, value: await lint(msg.dir) });
    else if (msg.cmd === 'stats') process.send({ ok: true, value: await stats(msg.dir) });
    else if (msg.cmd === 'exit') {
      process.send({ ok: true, value: { maxRssKiB: process.resourceUsage().maxRSS } }, () => process.exit(0));
    }
  } catch (e) {
    process.send({ ok: false, error: String(e?.stack ?? e) });
  }
});
process.send({ ok: true, value: 'ready' });
