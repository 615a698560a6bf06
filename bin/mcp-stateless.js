#!/usr/bin/env node
// `probe` needs neither ESLint nor the parser: load it directly so `mcp-stateless probe` starts fast.
const argv = process.argv.slice(2);
const run =
  argv[0] === 'probe'
    ? import('../dist/bundle/probe-cli.js').then(({ probeMain }) => probeMain(argv.slice(1)))
    : import('../dist/bundle/cli.js').then(({ main }) => main(argv));

run.then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`mcp-stateless: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
