// Pathological inputs, generated here (no committed code from anywhere), and esquery's published builds, which ESLint
// itself installs. Each is a shape real code has and that an analysis which is not linear turns into a hang:
//
// - `locals-N-handler` / `locals-N-plain`: a 50-line function whose N locals are assigned from each other in chains
//   and cycles (`a = b || c`, `b = c ?? d`, `c = d ? e : c`, `if (!d) d = e || f`), the shape of parser-generator
//   output. A value-origin search that follows every chain of assignments explores every path through that graph; one
//   more local multiplies the paths. `handler`: the function is a tool's handler (its input is the caller's
//   `workspace`, so the fallback checks trace paths too); `plain`: the same function in a module with no server at all.
// - `tools-N`: a generated server with N tools that all share one lazily filled module binding (`let client; … if
//   (!client) client = new Client(); return client.…`), as servers generated from OpenAPI specs have. Linear analysis
//   costs 2× for 2× the tools; per-tool work over all tools costs 4×.
// - `concat-N`: an N-deep `.concat()` expression building the tool list; `concat-steps-N`: the same list built by N
//   reassignments of one binding (`tools = tools.concat(…)`).
// - `esquery/<build>`: node_modules/esquery/dist/*.js (not the source maps): large real files with dense `||`/`?:` code.

import { fork, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OUT, ROOT } from './corpora.mjs';

const v = (n) => (i) => `v${((i % n) + n) % n}`;

/**
 * The body of the locals function: a declaration chaining every local to the previous one, n·(n−2) assignments (local
 * t from locals a and b further round the cycle, a little further each pass), then `??`/`if (!x)` uses (reads only) until the
 * body has 50 lines. So 7 locals: 35 assignments and 13 uses; 8 locals: 48 assignments.
 */
export function localsBody(n, first) {
  const at = v(n);
  const body = [`  let ${Array.from({ length: n }, (_, i) => `v${i} = ${i === 0 ? first : `v${i - 1}`}`).join(', ')};`];
  const writes = n * (n - 2);
  for (let k = 0; k < writes; k++) {
    const t = k % n;
    const r = Math.floor(k / n);
    let a = t + 1 + r;
    let b = t + 2 + 2 * r;
    if ((a - t) % n === 0) a++;
    if ((b - t) % n === 0 || (b - a) % n === 0) b++;
    const [T, A, B] = [at(t), at(a), at(b)];
    body.push(
      [`  ${T} = ${A} || ${B};`, `  ${T} = ${A} ?? ${B};`, `  ${T} = ${A} ? ${B} : ${T};`, `  if (!${T}) ${T} = ${A} || ${B};`][k % 4],
    );
  }
  for (let i = 0; body.length < 49; i++) body.push(i % 2 ? `  if (!${at(i)}) throw new Error('no ${at(i)}');` : `  const u${i} = ${at(i)} ?? ${at(i + 3)};`);
  body.push(`  const result = String(${at(0)}) + String(${at(n - 1)});`);
  return body.join('\n');
}

export function localsSource(n, where) {
  if (where === 'plain') {
    return `// ${n} locals assigned from each other, in ordinary code (no server in this module).\nexport function resolveRoot(input) {\n${localsBody(n, 'input')}\n  return result;\n}\n`;
  }
  return `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const server = new McpServer({ name: 'locals-${n}', version: '1.0.0' });

server.registerTool('resolve', { inputSchema: { workspace: z.string().optional() } }, async ({ workspace }) => {
${localsBody(n, 'workspace')}
  return { content: [{ type: 'text', text: result }] };
});
`;
}

/** N tools sharing one lazily created client (a first-caller cache every tool reads). */
export function manyToolsSource(tools) {
  const parts = [`import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ApiClient } from './api-client.js';

const server = new McpServer({ name: 'generated-${tools}', version: '1.0.0' });
let client;
`];
  for (let i = 0; i < tools; i++) {
    parts.push(`server.tool('operation_${i}', 'Calls operation ${i} of the API', { id: z.string(), limit: z.number().optional() }, async ({ id, limit }) => {
  if (!client) client = new ApiClient(process.env.API_TOKEN);
  const res = await client.request('GET', '/v1/op${i}/' + encodeURIComponent(id), { limit: limit ?? 10 });
  return { content: [{ type: 'text', text: JSON.stringify(res) }] };
});`);
  }
  return `${parts.join('\n')}\n`;
}

/**
 * One `.concat()` expression `depth` calls deep, building the tool list one definition at a time. 1,000 is about as deep
 * as ESLint itself goes on a default stack: at 2,000 its scope analysis for JavaScript (eslint-scope) overflows before
 * any rule runs, and typescript-estree overflows parsing TypeScript from about 500.
 */
export function concatChainSource(depth) {
  const defs = Array.from({ length: depth }, (_, i) => `.concat({ name: 't${i}', description: 'tool ${i}' })`).join('\n  ');
  return `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'concat', version: '1.0.0' }, { capabilities: { tools: {} } });
const TOOLS = []
  ${defs};
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
`;
}

/** The same list built by `steps` reassignments (`tools = tools.concat(…)`): one binding with thousands of writes. */
export function concatStepsSource(steps) {
  const lines = Array.from({ length: steps }, (_, i) => `tools = tools.concat({ name: 't${i}', description: 'tool ${i}' });`);
  return `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'concat-steps', version: '1.0.0' }, { capabilities: { tools: {} } });
let tools: { name: string; description: string }[] = [];
${lines.join('\n')}
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
`;
}

export const LOCALS = [7, 8];
export const TOOLS = [250, 500, 1000, 2000];
export const CONCAT_DEPTH = 1000;
export const CONCAT_STEPS = [1000, 2000];

/**
 * Writes the generated cases under bench/out/pathological-cases/ and returns every case in run order:
 * { id, file, group, size } (esquery's builds are read in place).
 */
export function writeCases({ quick = false } = {}) {
  const dir = path.join(OUT, 'pathological-cases');
  mkdirSync(dir, { recursive: true });
  const cases = [];
  const write = (name, text, group, size) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    cases.push({ id: name.replace(/\.[a-z]+$/, ''), file, group, size, lines: text.split('\n').length });
  };
  for (const n of LOCALS) {
    write(`locals-${n}-handler.ts`, localsSource(n, 'handler'), 'locals', n);
    write(`locals-${n}-plain.js`, localsSource(n, 'plain'), 'locals', n);
  }
  for (const t of TOOLS) write(`tools-${t}.js`, manyToolsSource(t), 'tools', t);
  write(`concat-${CONCAT_DEPTH}.js`, concatChainSource(CONCAT_DEPTH), 'concat', CONCAT_DEPTH);
  for (const n of CONCAT_STEPS) write(`concat-steps-${n}.ts`, concatStepsSource(n), 'concat-steps', n);
  const esq = path.join(ROOT, 'node_modules', 'esquery', 'dist');
  if (existsSync(esq)) {
    let builds = readdirSync(esq).filter((f) => /\.js$/.test(f)).sort();
    // --quick: one full build and one minified build.
    if (quick) builds = builds.filter((f) => f === 'esquery.js' || f === 'esquery.min.js');
    for (const f of builds) cases.push({ id: `esquery/${f}`, file: path.join(esq, f), group: 'esquery', size: null, lines: null });
  }
  return cases;
}

/** CPU seconds (user + system) a process has used, from /proc (Linux); null elsewhere. */
export function cpuSecondsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return null;
  }
}
const CLK_TCK = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(r.stdout) > 0 ? Number(r.stdout) : 100;
})();

/**
 * Lint one case with one configuration in a child process (bench/pathological-child.mjs). The child warms up and times
 * parsing before it says `start`; from then on it may use `limitMs` of CPU time (read from /proc, so a loaded machine
 * does not kill a case early; wall time where /proc is missing), and at most 10× that in wall time, or it is killed
 * (SIGKILL) and the result says so. Resolves to { parseMs, cpuMs, wallMs, findings, byRule, slowestRule, maxRssKiB }
 * or { killed: true, limitMs, cpuMs, wallMs, parseMs } or { error }.
 */
export function runCase(config, file, limitMs, { setupLimitMs = 180_000 } = {}) {
  return new Promise((resolve) => {
    const child = fork(path.join(ROOT, 'bench', 'pathological-child.mjs'), [config, file], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    const result = { parseMs: null };
    let settled = false;
    let poll = null;
    const finish = (r) => {
      if (settled) return;
      settled = true;
      clearTimeout(setup);
      clearInterval(poll);
      resolve(r);
    };
    const kill = (why) => {
      if (settled) return;
      child.kill('SIGKILL');
      finish({ ...result, ...why });
    };
    const setup = setTimeout(() => kill({ error: `warm-up and parsing took over ${setupLimitMs / 1000} s` }), setupLimitMs);
    child.on('message', (m) => {
      if (m.phase === 'parse') result.parseMs = m.ms;
      else if (m.phase === 'start') {
        clearTimeout(setup);
        const wall0 = performance.now();
        const cpu0 = cpuSecondsOf(child.pid);
        poll = setInterval(() => {
          const wallMs = performance.now() - wall0;
          const cpu = cpuSecondsOf(child.pid);
          const cpuMs = cpu0 != null && cpu != null ? (cpu - cpu0) * 1000 : null;
          if ((cpuMs ?? wallMs) > limitMs || wallMs > 10 * limitMs) kill({ killed: true, limitMs, cpuMs, wallMs, by: (cpuMs ?? wallMs) > limitMs ? 'cpu' : 'wall' });
        }, 100);
      } else if (m.phase === 'done') finish({ ...result, ...m });
    });
    child.on('exit', (code, signal) => {
      if (!settled) finish({ ...result, error: `exited with ${signal ?? code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}` });
    });
  });
}
