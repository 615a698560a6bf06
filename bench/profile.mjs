// Profile a lint: `node bench/profile.mjs <dir> [config] [passes]` runs `node --cpu-prof` on a child that lints <dir>
// (its TypeScript files; `published` for the published servers' built JavaScript, as the bench lints them) with the
// given config (parse-only, floor — one empty rule —, recommended or strict; default strict) `passes` times (default 2),
// and prints where the CPU time goes: self time per function, the plugin's functions by self time (a flat list says
// no single function is the cost) and by inclusive time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// Default: the generated 1× corpus (node bench/generate.mjs bench/out/generated, or node bench/run.mjs --generated).
const [dir = path.join(here, 'out/generated/x1'), config = 'strict', passes = '2'] = process.argv.slice(2);
const profDir = mkdtempSync(path.join(os.tmpdir(), 'mcp-prof-'));
const script = path.join(here, 'profile-child.mjs');
const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, script, config, dir === 'published' ? dir : path.resolve(dir), passes], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
const prof = JSON.parse(readFileSync(path.join(profDir, file), 'utf8'));

// Self time per node, from the sample counts.
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = prof.timeDeltas;
prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const key = (n) => `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
function shortUrl(u) {
  if (!u) return '';
  const m = u.match(/(dist\/(?:src|rules)\/.*)$/) ?? u.match(/node_modules\/(.*)$/);
  return m ? m[1] : u.replace(/^file:\/\//, '');
}
const selfByFn = new Map();
for (const [id, t] of self) {
  const k = key(byId.get(id));
  selfByFn.set(k, (selfByFn.get(k) ?? 0) + t);
}
// Inclusive time per plugin function: a sample counts once for every distinct plugin function on its stack.
const inclusive = new Map();
for (const [id, t] of self) {
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur);
    if (!/dist\/(src|rules)\//.test(n.callFrame.url)) continue;
    const k = key(n);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + t);
  }
}
let pluginTotal = 0;
for (const [id, t] of self) {
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    if (/dist\/(src|rules)\//.test(byId.get(cur).callFrame.url)) {
      pluginTotal += t;
      break;
    }
  }
}
const pct = (t) => `${((100 * t) / total).toFixed(1)}%`;
console.log(`profile of ${config} on ${dir}: ${(total / 1000).toFixed(0)} ms sampled, ${pct(pluginTotal)} under a plugin frame (src/, rules/)`);
console.log('\ntop self time:');
for (const [k, t] of [...selfByFn].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${pct(t).padStart(6)}  ${k}`);
const PLUGIN = /dist\/(src|rules)\//;
const pluginSelf = [...selfByFn].filter(([k]) => PLUGIN.test(k) || / (src|rules)\//.test(k));
console.log(`\nplugin functions, self time (${pct(pluginSelf.reduce((n, [, t]) => n + t, 0))} in all):`);
for (const [k, t] of pluginSelf.sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${pct(t).padStart(6)}  ${k}`);
console.log('\nplugin functions, inclusive time:');
for (const [k, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${pct(t).padStart(6)}  ${k}`);
