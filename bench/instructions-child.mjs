// One counted process of bench/instructions.mjs: `node instructions-child.mjs <job.json> <corpus index> <config> <passes>`.
// Lints the corpus once, then <passes> more times, one file after another in a fixed order (`lintText` on texts read
// up front), so two runs do the same work in the same order.
import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './corpora.mjs';
import { benchConfigs } from './configs.mjs';

const [jobFile, corpusIndex, config, passes] = process.argv.slice(2);
const { corpora } = JSON.parse(readFileSync(jobFile, 'utf8'));
const files = corpora[Number(corpusIndex)].files;
const texts = files.map((f) => readFileSync(f, 'utf8'));
// BENCH_PLUGIN names another build's entry (a copy of dist/ inside the project, so it finds the same dependencies):
// two builds compared by the same count.
const pluginUrl = process.env.BENCH_PLUGIN ? pathToFileURL(path.resolve(ROOT, process.env.BENCH_PLUGIN)).href : new URL('../dist/src/index.js', import.meta.url).href;
const plugin = (await import(pluginUrl)).default;
const security = config.startsWith('security') ? (await import('eslint-plugin-security')).default : undefined;
const configs = benchConfigs(plugin, { security });
if (!configs[config]) {
  console.error(`unknown configuration "${config}" (known: ${Object.keys(configs).join(', ')})`);
  process.exit(2);
}
const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: configs[config], ignorePatterns: ['!**/node_modules/'], cache: false });
for (let pass = 0; pass <= Number(passes); pass++) {
  for (let i = 0; i < files.length; i++) await eslint.lintText(texts[i], { filePath: files[i] });
}
