// The child bench/profile.mjs profiles: lint a directory twice with one worker config; the profile covers both runs.
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import plugin from '../dist/src/index.js';

const [config, dir] = process.argv.slice(2);
const base = [{ files: ['**/*.ts'], languageOptions: { parser: tsParser } }];
const floor = { plugins: { bench: { rules: { empty: { create: () => ({}) } } } }, rules: { 'bench/empty': 'error' } };
const configs = { 'parse-only': base, floor: [...base, floor], recommended: [...base, ...plugin.configs.recommended], strict: [...base, ...plugin.configs.strict] };
const eslint = new ESLint({ cwd: dir, overrideConfigFile: true, overrideConfig: configs[config] });
for (let i = 0; i < 2; i++) {
  const t = performance.now();
  const res = await eslint.lintFiles(['.']);
  console.log(`run ${i + 1}: ${res.length} files, ${res.reduce((n, r) => n + r.messages.length, 0)} messages, ${(performance.now() - t).toFixed(0)} ms`);
}
