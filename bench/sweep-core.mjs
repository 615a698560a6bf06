// The sweep's core, shared by `npm run sweep` (bench/sweep.mjs, with the built plugin) and tests/sweep.test.ts (with
// the TypeScript sources under vitest): which files, and how one file is linted and judged.

import { Linter } from 'eslint';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sha1, SOURCE_EXT, DECLARATION } from './corpora.mjs';
import { floorPlugin, sweepConfig } from './configs.mjs';

export { DECLARATION, SOURCE_EXT };

/**
 * Every JS/TS file under `dirs` (node_modules and all; a file given by name is taken as it is), sorted within each
 * folder, each path once. `dts: false` leaves out declaration files. Returns absolute paths.
 */
export function listSweepFiles(dirs, { dts = true } = {}) {
  const seen = new Set();
  const out = [];
  const visit = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== '.git') visit(full);
      } else if (e.isFile() && SOURCE_EXT.test(e.name) && (dts || !DECLARATION.test(e.name)) && !seen.has(full)) {
        seen.add(full);
        out.push(full);
      }
    }
  };
  for (const d of dirs) {
    const full = path.resolve(d);
    if (statSync(full, { throwIfNoEntry: false })?.isFile()) {
      if (!seen.has(full)) out.push(full);
      seen.add(full);
    } else visit(full);
  }
  return out;
}

/** Drops files whose content is byte-identical to an earlier file's (the same package installed twice, .js/.cjs twins). */
export function dedupeByContent(files, read = (f) => readFileSync(f)) {
  const hashes = new Set();
  const unique = [];
  let duplicates = 0;
  for (const f of files) {
    const h = sha1(read(f));
    if (hashes.has(h)) duplicates++;
    else {
      hashes.add(h);
      unique.push(f);
    }
  }
  return { unique, duplicates };
}

/** A path for the linter: relative, and outside node_modules/ (which flat config ignores by default). */
export function virtualName(file, root) {
  const rel = path.relative(root, file).split(path.sep).join('/');
  return `sweep/${rel.replace(/(^|\/)node_modules\//g, '$1nm/').replace(/^(\.\.\/)+/, '')}`;
}

/**
 * Lint one file with every rule at its strictest (`mode: 'floor'`: one empty rule instead, to tell ESLint's own cost
 * from ours). A `.js` file that fails as an ES module is retried as CommonJS. Never throws: a rule exception is the
 * outcome `crash` ({ rule, message, at }), a file the parser rejects is `parseError` (not ours to lint). `ms` and `cpuMs`
 * are the whole lint's wall and CPU time; `parseMs`, `rulesMs` and `slowestRule` come from ESLint's `stats` (wall time).
 */
export function lintOne(linter, plugin, file, text, { root, settings = {}, mode = 'all' } = {}) {
  const filename = virtualName(file, root ?? path.dirname(file));
  const configFor = (sourceType) =>
    mode === 'floor'
      ? [{ ...sweepConfig(plugin, file, { sourceType, settings, rules: false })[0], plugins: { bench: floorPlugin }, rules: { 'bench/empty': 'error' } }]
      : sweepConfig(plugin, file, { sourceType, settings });
  const attempt = (sourceType) => {
    const { messages } = linter.verifyAndFix(text, configFor(sourceType), { filename, stats: true, fix: false });
    return { messages, times: linter.getTimes() };
  };
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const cpu = () => {
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000;
  };
  try {
    let r = attempt(null);
    if (isParseFailure(r.messages) && /\.(js|jsx|mjs)$/.test(file)) {
      const again = attempt('commonjs');
      if (!isParseFailure(again.messages)) r = again;
    }
    const ms = performance.now() - t0;
    const cpuMs = cpu();
    // A parse failure is ESLint's one fatal "Parsing error" message. Other fatal messages (ESLint 10 rejects
    // `/* eslint-env */` comments that way) leave the rules running: the file counts as linted.
    const fatal = r.messages.find((m) => m.fatal && /^Parsing error/.test(m.message));
    let parseMs = 0;
    let rulesMs = 0;
    let slowestRule = null;
    for (const pass of r.times?.passes ?? []) {
      parseMs += pass.parse?.total ?? 0;
      for (const [id, t] of Object.entries(pass.rules ?? {})) {
        rulesMs += t.total;
        if (!slowestRule || t.total > slowestRule.ms) slowestRule = { id, ms: t.total };
      }
    }
    return {
      crash: null,
      parseError: fatal ? fatal.message : null,
      findings: fatal ? 0 : r.messages.filter((m) => m.ruleId).length,
      notes: fatal ? [] : r.messages.filter((m) => m.fatal).map((m) => m.message),
      ms,
      cpuMs,
      parseMs,
      rulesMs,
      slowestRule,
    };
  } catch (e) {
    return { crash: describeCrash(e), parseError: null, findings: 0, notes: [], ms: performance.now() - t0, cpuMs: cpu(), parseMs: 0, rulesMs: 0, slowestRule: null };
  }
}

function isParseFailure(messages) {
  return messages.length === 1 && messages[0].fatal;
}

/** ESLint rethrows a rule's exception with `Rule: "<id>"` appended; keep the rule, the message and the first frame. */
export function describeCrash(e) {
  const message = String(e?.message ?? e);
  const rule = /Rule: "([^"]+)"/.exec(message)?.[1] ?? null;
  const stack = String(e?.stack ?? '');
  const at = stack.split('\n').find((l) => /^\s+at /.test(l))?.trim() ?? null;
  return { rule, message: message.split('\n')[0], at };
}

export function newLinter() {
  return new Linter({ configType: 'flat' });
}
