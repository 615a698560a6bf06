// The child bench/profile.mjs profiles: lint a directory (TypeScript files), or with `published` the published servers'
// built JavaScript (the bench's corpus and language options), `passes` times with one configuration; the profile
// covers every pass.
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import plugin from '../dist/src/index.js';
import { benchConfigs } from './configs.mjs';
import { ROOT, publishedServerFiles } from './corpora.mjs';

const [config, dir, passes = '2'] = process.argv.slice(2);
const floor = { plugins: { bench: { rules: { empty: { create: () => ({}) } } } }, rules: { 'bench/empty': 'error' } };
let eslint;
let targets;
if (dir === 'published') {
  const all = benchConfigs(plugin);
  const names = { 'parse-only': 'parse-only', floor: 'empty rule (floor)', recommended: 'recommended', strict: 'every rule (strict)' };
  eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: all[names[config]], ignorePatterns: ['!**/node_modules/'], cache: false });
  targets = publishedServerFiles().files.map((f) => f.file);
} else {
  const base = [{ files: ['**/*.ts'], languageOptions: { parser: tsParser } }];
  const configs = { 'parse-only': base, floor: [...base, floor], recommended: [...base, ...plugin.configs.recommended], strict: [...base, ...plugin.configs.strict] };
  eslint = new ESLint({ cwd: dir, overrideConfigFile: true, overrideConfig: configs[config] });
  targets = ['.'];
}
for (let i = 0; i < Number(passes); i++) {
  const t = performance.now();
  const res = await eslint.lintFiles(targets);
  console.log(`run ${i + 1}: ${res.length} files, ${res.reduce((n, r) => n + r.messages.length, 0)} messages, ${(performance.now() - t).toFixed(0)} ms`);
}
