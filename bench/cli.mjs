// Command-line handling shared by the bench scripts: options checked by node:util's parseArgs (strict, so an unknown
// option is a usage error), and `--help` printing the script's own header comment.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * The script's options and positionals. `onError(message)` handles a usage error (each script prints its own one-line
 * prefix and exits 2); `--help` prints the first `helpLines` lines of the script at `scriptUrl` without their `//`.
 */
export function benchOptions(scriptUrl, options, { helpLines, onError, allowPositionals = false }) {
  let parsed;
  try {
    parsed = parseArgs({ options: { ...options, help: { type: 'boolean', default: false } }, strict: true, allowPositionals });
  } catch (e) {
    onError(e.message);
  }
  if (parsed.values.help) {
    console.log(readFileSync(new URL(scriptUrl), 'utf8').split('\n').slice(0, helpLines).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
    process.exit(0);
  }
  return parsed;
}
