// The published entry points, bundled from tsc's output (dist/src) into dist/bundle; `npm run build` runs this after
// tsc. ESLint, the CLI and the probe load a handful of files instead of ~50 ES modules: Node's ES module loader costs
// about a millisecond per module (the plugin took ~60 ms to load, bundled ~26 ms, per process and per `--concurrency`
// worker). Entries share chunks, so the CLI, the report and the plugin a user's config imports are one copy of the
// analysis and its caches. Every package stays external (the user's ESLint, typescript-eslint and TypeScript are the
// ones loaded), and modules only the probe imports stay in the probe's chunks: the lint path never loads the MCP SDK or
// ajv (tests/install checks it).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

// `node bundle.mjs` (the build script's second step; rolldown's API builds without printing a table of chunks).
await build({
  input: {
    index: 'dist/src/index.js',
    cli: 'dist/src/cli.js',
    probe: 'dist/src/probe/run.js',
    'probe-cli': 'dist/src/probe/cli.js',
    // For bench/type-checked.mjs, which counts server-model builds on the class the bundle uses.
    server: 'dist/src/analysis/server.js',
  },
  cwd: path.dirname(fileURLToPath(import.meta.url)),
  platform: 'node',
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0'),
  output: { dir: 'dist/bundle', format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name].js', cleanDir: true },
});
