// Deterministic generator for the benchmark corpus and the pathological file.
//
//   node bench/generate.mjs [outDir]     writes <outDir>/x1, x2, x4 and <outDir>/pathological (default bench/out)
//
// The corpus is MCP-server-like TypeScript: handlers of every shape the analysis recognises (registerTool, tool,
// setRequestHandler with a switch dispatcher, fastmcp addTool, tool objects in arrays with a registration loop, tool
// classes, factories), helpers, module state (hazards and look-alikes), fs and child-process calls, and ordinary
// non-MCP code. Scale k keeps the file count and multiplies the units inside every file by k, so any cost that grows
// faster than the code inside one file shows up in the 2x/1x and 4x/1x ratios (across files ESLint is linear anyway).
// Same seed, same bytes: the output depends on nothing but the arguments.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump when the generated text changes, so run.mjs regenerates a stale corpus. */
export const GENERATOR_VERSION = 3;

/** mulberry32: a tiny seeded PRNG, so every run writes the same corpus. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['search', 'fetch', 'index', 'scan', 'build', 'render', 'query', 'sync', 'parse', 'export', 'lint', 'deploy', 'report', 'merge', 'diff', 'clone', 'watch', 'upload', 'resize', 'notify'];

const IMPORTS = `import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import path from 'node:path';
`;

/**
 * Module state for one unit: a hazard or a look-alike, chosen by `variant`. Returns the declarations and the body
 * statements (handler code) that use them. Names are suffixed with the unit id so units never collide.
 */
function stateFor(variant, id) {
  switch (variant) {
    case 0: // accumulator hazard: a module array every call appends to
      return { decl: `const history${id}: string[] = [];`, body: `  history${id}.push(query);\n  const recent = history${id}.slice(-5);` , uses: 'recent.join(",")' };
    case 1: // cross-call binding hazard: one call sets it, another call reads it
      return { decl: `let lastQuery${id}: string | null = null;`, body: `  const previous = lastQuery${id};\n  lastQuery${id} = query;`, uses: 'String(previous)' };
    case 2: // look-alike: a constant table read by handlers
      return { decl: `const LIMITS${id} = { max: 25, min: 1 } as const;`, body: `  const limit = Math.min(LIMITS${id}.max, query.length + LIMITS${id}.min);`, uses: 'String(limit)' };
    case 3: // look-alike: a cache keyed by the caller's workspace
      return { decl: `const byWorkspace${id} = new Map<string, string[]>();`, body: `  const list = byWorkspace${id}.get(workspace) ?? [];\n  byWorkspace${id}.set(workspace, [...list, query]);`, uses: 'list.join(",")' };
    case 4: // first-caller cache hazard: a client built from the first caller's token
      return { decl: `let client${id}: { token: string } | null = null;`, body: `  if (!client${id}) client${id} = { token: query };\n  const who = client${id}.token;`, uses: 'who' };
    case 5: // look-alike: per-call state only
      return { decl: `const VERSION${id} = '1.${id}.0';`, body: `  const local: string[] = [];\n  local.push(query, VERSION${id});`, uses: 'local.join(" ")' };
    case 6: // session-keyed hazard
      return { decl: `const sessions${id} = new Map<string, number>();`, body: `  sessions${id}.set(extra.sessionId ?? '', Date.now());`, uses: `String(sessions${id}.size)` };
    default: // fs and child process under the caller's workspace, nothing shared
      return { decl: `const ROOT${id} = '/srv/data';`, body: `  const file = path.join(ROOT${id}, workspace, 'notes.txt');\n  const text = await readFile(file, 'utf8').catch(() => '');\n  await new Promise((resolve) => execFile('git', ['status'], { cwd: path.join(ROOT${id}, workspace) }, resolve));`, uses: 'text.slice(0, 100)' };
  }
}

function helper(id, r) {
  const w = WORDS[Math.floor(r() * WORDS.length)];
  return `/** Normalise a ${w} request before it runs. */
function normalise${id}(query: string, workspace: string): { query: string; workspace: string } {
  const trimmed = query.trim();
  if (trimmed.length === 0) throw new Error('empty ${w} query');
  const parts = trimmed.split(/\\s+/).filter((p) => p.length > 0);
  return { query: parts.join(' '), workspace: workspace.replace(/[^a-z0-9_-]/gi, '') };
}
`;
}

/** One handler body, using state variant `v`, for the unit `id`. `extra` is the request-context parameter name. */
function handlerBody(id, v) {
  const s = stateFor(v, id);
  return {
    decl: s.decl,
    body: `  const input = normalise${id}(rawQuery, rawWorkspace);
  const query = input.query;
  const workspace = input.workspace;
${s.body}
  const lines: string[] = [];
  for (let i = 0; i < 3; i++) lines.push(\`\${i}: \${query}\`);
  return { content: [{ type: 'text' as const, text: lines.join('\\n') + ${s.uses} }] };`,
  };
}

const kinds = {
  registerTool(unitsN, r, f) {
    let out = `${IMPORTS}\nconst server = new McpServer({ name: 'register-${f}', version: '1.0.0' });\n\n`;
    for (let u = 0; u < unitsN; u++) {
      const id = `_${f}_${u}`;
      const h = handlerBody(id, Math.floor(r() * 8));
      out += `${h.decl}\n${helper(id, r)}\nserver.registerTool(
  '${WORDS[u % WORDS.length]}${id}',
  { description: 'Run ${WORDS[u % WORDS.length]}', inputSchema: { query: z.string(), workspace: z.string() } },
  async ({ query: rawQuery, workspace: rawWorkspace }, extra) => {
${h.body}
  },
);\n\n`;
    }
    return `${out}await server.connect(new StdioServerTransport());\n`;
  },

  tool(unitsN, r, f) {
    let out = `${IMPORTS}\nexport const server = new McpServer({ name: 'tool-${f}', version: '1.0.0' });\n\n`;
    for (let u = 0; u < unitsN; u++) {
      const id = `_${f}_${u}`;
      const h = handlerBody(id, Math.floor(r() * 8));
      out += `${h.decl}\n${helper(id, r)}\nasync function run${id}({ query: rawQuery, workspace: rawWorkspace }: { query: string; workspace: string }, extra: { sessionId?: string }) {
${h.body}
}
server.tool('${WORDS[u % WORDS.length]}${id}', 'Run it', { query: z.string(), workspace: z.string() }, run${id});\n\n`;
    }
    return out;
  },

  lowLevel(unitsN, r, f) {
    let out = `${IMPORTS}\nconst server = new Server({ name: 'low-${f}', version: '1.0.0' }, { capabilities: { tools: {} } });\n\n`;
    let cases = '';
    let list = '';
    for (let u = 0; u < unitsN; u++) {
      const id = `_${f}_${u}`;
      const h = handlerBody(id, Math.floor(r() * 8));
      const name = `${WORDS[u % WORDS.length]}${id}`;
      out += `${h.decl}\n${helper(id, r)}\nasync function do${id}(rawQuery: string, rawWorkspace: string, extra: { sessionId?: string }) {
${h.body}
}\n\n`;
      cases += `    case '${name}':\n      return do${id}(String(args.query), String(args.workspace), extra);\n`;
      list += `    { name: '${name}', description: 'Run ${name}', inputSchema: { type: 'object' as const, properties: {} } },\n`;
    }
    out += `server.setRequestHandler(ListToolsRequestSchema, async () => ({\n  tools: [\n${list}  ],\n}));\n\n`;
    out += `server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
${cases}    default:
      throw new Error(\`unknown tool \${request.params.name}\`);
  }
});\n`;
    return out;
  },

  fastmcp(unitsN, r, f) {
    let out = `import { FastMCP } from 'fastmcp';\n${IMPORTS}\nconst server = new FastMCP({ name: 'fast-${f}', version: '1.0.0' });\n\n`;
    for (let u = 0; u < unitsN; u++) {
      const id = `_${f}_${u}`;
      const h = handlerBody(id, Math.floor(r() * 8));
      out += `${h.decl}\n${helper(id, r)}\nserver.addTool({
  name: '${WORDS[u % WORDS.length]}${id}',
  description: 'Run it',
  parameters: z.object({ query: z.string(), workspace: z.string() }),
  execute: async ({ query: rawQuery, workspace: rawWorkspace }, extra: { sessionId?: string }) => {
${h.body}
  },
});\n\n`;
    }
    return `${out}server.start({ transportType: 'stdio' });\n`;
  },

  toolObjects(unitsN, r, f) {
    let out = `${IMPORTS}\nconst server = new McpServer({ name: 'objects-${f}', version: '1.0.0' });\n\n`;
    const names = [];
    for (let u = 0; u < unitsN; u++) {
      const id = `_${f}_${u}`;
      const h = handlerBody(id, Math.floor(r() * 8));
      out += `${h.decl}\n${helper(id, r)}\nconst tool${id} = {
  name: '${WORDS[u % WORDS.length]}${id}',
  description: 'Run it',
  inputSchema: { query: z.string(), workspace: z.string() },
  handler: async ({ query: rawQuery, workspace: rawWorkspace }: { query: string; workspace: string }, extra: { sessionId?: string }) => {
${h.body}
  },
};\n\n`;
      names.push(`tool${id}`);
    }
    out += `export const tools = [\n  ${names.join(',\n  ')},\n];\n\nfor (const t of tools) {\n  server.registerTool(t.name, { description: t.description, inputSchema: t.inputSchema }, t.handler);\n}\n`;
    return out;
  },

  toolClasses(unitsN, r, f) {
    let out = `${IMPORTS}\nabstract class BaseTool {\n  abstract name: string;\n  protected log(message: string): void {\n    console.error(message);\n  }\n}\n\n`;
    const names = [];
    for (let u = 0; u < unitsN; u++) {
      const id = `_${f}_${u}`;
      const h = handlerBody(id, Math.floor(r() * 8));
      const cls = `Tool${id}`;
      out += `${h.decl}\n${helper(id, r)}\nclass ${cls} extends BaseTool {
  name = '${WORDS[u % WORDS.length]}${id}';
  inputSchema = { query: z.string(), workspace: z.string() };
  private calls = 0;
  #lastArgs: string | null = null;
  get summary(): string {
    return \`\${this.name} (\${this.calls})\`;
  }
  async execute({ query: rawQuery, workspace: rawWorkspace }: { query: string; workspace: string }, extra: { sessionId?: string }) {
    this.log(this.summary);
${h.body.replace(/^ {2}/gm, '    ')}
  }
}\n\n`;
      names.push(`new ${cls}()`);
    }
    out += `const server = new McpServer({ name: 'classes-${f}', version: '1.0.0' });\nconst instances = [\n  ${names.join(',\n  ')},\n];\ninstances.forEach((tool) => {\n  server.registerTool(tool.name, { inputSchema: tool.inputSchema }, (args, extra) => tool.execute(args, extra));\n});\n`;
    return out;
  },

  factory(unitsN, r, f) {
    let out = `${IMPORTS}\n`;
    let regs = '';
    for (let u = 0; u < unitsN; u++) {
      const id = `_${f}_${u}`;
      const h = handlerBody(id, Math.floor(r() * 8));
      out += `${h.decl}\n${helper(id, r)}\n`;
      regs += `  server.registerTool('${WORDS[u % WORDS.length]}${id}', { inputSchema: { query: z.string(), workspace: z.string() } }, async ({ query: rawQuery, workspace: rawWorkspace }, extra) => {
  ${h.body.replace(/\n/g, '\n  ')}
  });\n`;
      if (u % 4 === 0) regs += `  server.registerTool('count${id}', { inputSchema: {} }, async () => {\n    perServerCalls += 1;\n    return { content: [{ type: 'text' as const, text: String(perServerCalls) }] };\n  });\n`;
    }
    out += `export function createServer(options: { name: string }) {
  const server = new McpServer({ name: options.name, version: '1.0.0' });
  let perServerCalls = 0;
${regs}  return server;
}

export const wrapped = <T extends (...args: never[]) => unknown>(fn: T): T => fn;
`;
    return out;
  },

  /** Ordinary non-MCP code: utilities, classes, generics, module caches used at start-up, an HTTP router. */
  plain(unitsN, r, f) {
    let out = `import { readFileSync } from 'node:fs';\nimport path from 'node:path';\n\nexport interface Entry<T> {\n  key: string;\n  value: T;\n  tags?: readonly string[];\n}\n\nconst registry = new Map<string, Entry<unknown>>();\nlet loaded = false;\n\n`;
    for (let u = 0; u < unitsN; u++) {
      const id = `_${f}_${u}`;
      const w = WORDS[Math.floor(r() * WORDS.length)];
      out += `export class Store${id}<T extends { id: string }> {
  private readonly items = new Map<string, T>();
  static instances = 0;
  constructor(private readonly label = '${w}') {
    Store${id}.instances++;
  }
  add(item: T): this {
    this.items.set(item.id, item);
    return this;
  }
  *values(): Generator<T> {
    for (const v of this.items.values()) yield v;
  }
  find(pred: (t: T) => boolean): T | undefined {
    for (const v of this.values()) if (pred(v)) return v;
    return undefined;
  }
  toJSON(): Record<string, unknown> {
    return { label: this.label, size: this.items.size };
  }
}

export function ${w}Summary${id}(entries: Entry<number>[]): { total: number; max: number } {
  let total = 0;
  let max = -Infinity;
  for (const e of entries) {
    total += e.value;
    if (e.value > max) max = e.value;
  }
  return { total, max: entries.length ? max : 0 };
}

export const ${w}Handlers${id} = {
  get: (req: { url: string }, res: { end(s: string): void }) => res.end(req.url),
  post: async (req: { body: string }) => JSON.parse(req.body ?? '{}') as unknown,
};

function load${id}(file: string): void {
  if (loaded) return;
  const text = readFileSync(path.resolve(file), 'utf8');
  for (const line of text.split('\\n')) registry.set(line, { key: line, value: line.length });
}
load${id}('/etc/hosts');

`;
    }
    out += `export function lookup(key: string): Entry<unknown> | undefined {\n  loaded = true;\n  return registry.get(key);\n}\n`;
    return out;
  },
};

export const KIND_FILES = { registerTool: 20, tool: 20, lowLevel: 16, fastmcp: 16, toolObjects: 16, toolClasses: 16, factory: 16, plain: 90 };
export const UNITS_AT_1X = 7;

/** Writes the corpus for scale k into dir; returns { files, lines, bytes }. */
export function writeCorpus(dir, k) {
  rmSync(dir, { recursive: true, force: true });
  let files = 0;
  let lines = 0;
  let bytes = 0;
  for (const [kind, count] of Object.entries(KIND_FILES)) {
    const sub = path.join(dir, kind);
    mkdirSync(sub, { recursive: true });
    for (let f = 0; f < count; f++) {
      // The seed depends on kind and file only: the 2x file starts with the 1x file's units, then has more.
      const r = rng(hash(`${kind}:${f}`));
      const text = kinds[kind](UNITS_AT_1X * k, r, f);
      writeFileSync(path.join(sub, `${kind}-${f}.ts`), text);
      files++;
      lines += text.split('\n').length;
      bytes += Buffer.byteLength(text);
    }
  }
  return { files, lines, bytes };
}

function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

// ---------------------------------------------------------------------------------------------------------------
// The pathological file
// ---------------------------------------------------------------------------------------------------------------

export const PATHOLOGICAL = { handlers: 5000, accumulatorEvery: 10, nesting: 200, chain: 2000, ring: 300 };

/**
 * One file built to hurt: 5,000 registerTool handlers (every 10th appends to a module array), a handler nested 200
 * functions and blocks deep, a 2,000-step helper chain, a 300-function call cycle, and a cycle of mutually referring
 * `var` aliases. Each hazard is placed so the expected findings are known in advance (see `expectedFindings`).
 */
export function pathologicalSource(p = PATHOLOGICAL) {
  const parts = [`import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const server = new McpServer({ name: 'pathological', version: '1.0.0' });
const log: string[] = [];
const deepLog: string[] = [];
const chainLog: string[] = [];
const ringLog: string[] = [];
let lastSeen = '';
`];
  // 1. Many handlers. Every handler reads the limit; every 10th appends to the shared log.
  for (let i = 0; i < p.handlers; i++) {
    const hazard = i % p.accumulatorEvery === 0 ? `\n  log.push(q);` : '';
    parts.push(`server.registerTool('t${i}', { inputSchema: { q: z.string() } }, async ({ q }) => {${hazard}
  const out = [q, String(${i})];
  return { content: [{ type: 'text' as const, text: out.join(':') }] };
});`);
  }
  // 2. Deep nesting: functions inside blocks inside functions, with one append at the bottom.
  let open = '';
  let close = '';
  for (let d = 0; d < p.nesting; d++) {
    open += d % 2 === 0 ? `const f${d} = (x: string) => {\n` : `if (x.length >= 0) {\n`;
    close = (d % 2 === 0 ? `};\nf${d}(x);\n` : `}\n`) + close;
  }
  parts.push(`server.registerTool('deep', { inputSchema: { q: z.string() } }, async ({ q }) => {
const x = q;
${open}deepLog.push(x);
${close}return { content: [] };
});`);
  // 3. A helper chain: step0 → step1 → … → step1999, the last one appends.
  for (let i = 0; i < p.chain; i++) {
    const next = i + 1 < p.chain ? `return step${i + 1}(s + '.');` : `chainLog.push(s);\n  return s;`;
    parts.push(`function step${i}(s: string): string {\n  ${next}\n}`);
  }
  parts.push(`server.registerTool('chain', { inputSchema: { q: z.string() } }, async ({ q }) => ({ content: [{ type: 'text' as const, text: step0(q) }] }));`);
  // 4. A call cycle: ring0 → ring1 → … → ring299 → ring0; ring150 appends.
  for (let i = 0; i < p.ring; i++) {
    const body = i === Math.floor(p.ring / 2) ? `  ringLog.push(s);\n` : '';
    parts.push(`function ring${i}(s: string, n: number): string {\n${body}  return n <= 0 ? s : ring${(i + 1) % p.ring}(s, n - 1);\n}`);
  }
  parts.push(`server.registerTool('cycle', { inputSchema: { q: z.string() } }, async ({ q }) => ({ content: [{ type: 'text' as const, text: ring0(q, 10) }] }));`);
  // 5. Alias cycle the resolver must not loop on, and a cross-call binding through it.
  parts.push(`var aliasA: any = aliasB;
var aliasB: any = aliasA;
server.registerTool('alias', { inputSchema: { q: z.string() } }, async ({ q }) => {
  const previous = lastSeen;
  lastSeen = q;
  return { content: [{ type: 'text' as const, text: previous + String(aliasA) }] };
});
server.registerTool('mutual', { inputSchema: {} }, aliasB);`);
  return `${parts.join('\n')}\n`;
}

/** The findings the pathological file must produce with every rule on, by rule. */
export function expectedFindings(p = PATHOLOGICAL) {
  return {
    'mcp-stateless/no-module-accumulator': Math.ceil(p.handlers / p.accumulatorEvery) + 3, // the log pushes, deep, chain, ring
    'mcp-stateless/no-cross-call-binding': 1, // lastSeen
  };
}

export function writePathological(dir, p = PATHOLOGICAL) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const text = pathologicalSource(p);
  const file = path.join(dir, 'pathological.ts');
  writeFileSync(file, text);
  return { file, lines: text.split('\n').length, bytes: Buffer.byteLength(text) };
}

export const SCALES = [1, 2, 4];

/** Writes everything the bench needs under outDir; returns what was written. */
export function generateAll(outDir) {
  mkdirSync(outDir, { recursive: true });
  const corpora = {};
  for (const k of SCALES) corpora[k] = writeCorpus(path.join(outDir, `x${k}`), k);
  const pathological = writePathological(path.join(outDir, 'pathological'));
  writeFileSync(path.join(outDir, 'VERSION'), `${GENERATOR_VERSION}\n`);
  return { corpora, pathological };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), 'out'));
  const { corpora, pathological } = generateAll(outDir);
  for (const [k, c] of Object.entries(corpora)) console.log(`x${k}: ${c.files} files, ${c.lines} lines, ${(c.bytes / 1024).toFixed(0)} KiB`);
  console.log(`pathological: ${pathological.lines} lines`);
}
