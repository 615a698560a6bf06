// A sweep worker process (forked by bench/sweep.mjs): lints the files it is sent, one at a time, and answers each with
// its outcome. The parent kills it when a file runs past the time limit and starts another.

import { readFileSync } from 'node:fs';
import { EAGER_SETTINGS } from './configs.mjs';
import { lintOne, newLinter } from './sweep-core.mjs';

const plugin = (await import('../dist/src/index.js')).default;
const { root, eager } = JSON.parse(process.argv[2]);
const settings = eager ? EAGER_SETTINGS : {};
const linter = newLinter();

process.on('message', (msg) => {
  let outcome;
  try {
    const text = readFileSync(msg.file, 'utf8');
    outcome = { bytes: Buffer.byteLength(text), ...lintOne(linter, plugin, msg.file, text, { root, settings, mode: msg.mode }) };
  } catch (e) {
    outcome = { error: String(e?.message ?? e).split('\n')[0] };
  }
  process.send({ id: msg.id, outcome });
});
process.send({ ready: true });
