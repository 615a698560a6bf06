// The text test that decides whether a module is indexed at all (src/analysis/discovery.ts, mayRegisterHandlers): it
// must accept every way discovery finds a handler (a superset), and should turn away ordinary code that merely has an
// `args:` or `input:` key, since most files of a server are indexed for nothing otherwise.
import { describe, expect, it } from 'vitest';
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Discovery, mayRegisterHandlers } from '../../src/analysis/discovery.js';
import { ModuleFacts } from '../../src/analysis/module.js';
import { readSettings } from '../../src/analysis/settings.js';
import plugin from '../../src/index.js';

const settings = readSettings({});

describe('mayRegisterHandlers', () => {
  it('accepts registration calls, tool classes and tool objects written in every form discovery reads', () => {
    const accepted = [
      "server.tool('echo', { text: z.string() }, async ({ text }) => ({ content: [] }));",
      'server.registerTool<Args>("x", spec, handler)',
      // optional calls and computed member names: discovery reads them as the same registration
      "server?.registerTool?.('note', spec, handler)",
      'server.tool?.("x", fn)',
      "server['tool']('x', {}, fn)",
      'server[ "setRequestHandler" ]?.(CallToolRequestSchema, route)',
      "server.setRequestHandler(CallToolRequestSchema, route)",
      'mcp.addTool({ name: "x", parameters: p, execute: run })',
      'export const t = { name: "search", inputSchema: s, handler: async (args) => ({}) };',
      'export const t = { name: "search", inputSchema: s, async execute(args) { return {}; } };',
      'export const t = {\n  name,\n  inputSchema,\n  handler\n};',
      'export const t = { name, inputSchema, handler };',
      "export const t = { 'name': 'x', 'inputSchema': s, 'execute': fn };",
      'class Search { name = "search"; schema = s; run = async (args) => ({}); }',
      'class Search {\n  name = "search";\n  inputSchema = s;\n  // the handler\n  execute(args) { return {}; }\n}',
      'class Search { static name = "search"; static parameters = p; static async handle(args) {} }',
      'class Search extends BaseTool { }',
      "new ResourceTemplate('notes://{id}', { list: undefined })",
      'export default createMcpHandler((server) => {})',
      // a modifier, then a line break or a quote before the handler key; a key at the very start of the text
      'class Search {\n  schema = s;\n  static\n    run = async (args) => ({});\n}',
      "class Search { parameters = p; readonly 'execute' = fn }",
      'handler: async () => ({}), inputSchema: s',
      // spaces and line breaks outside ASCII around the key, and a key at the very end of the text
      'export const t = { schema: s,\u00a0handler\u2028}',
      "const t = { args: a,\n  'run'\u3000: fn }",
      'const t = { inputSchema: s, execute',
    ];
    for (const text of accepted) expect(mayRegisterHandlers(text, settings), text).toBe(true);
  });

  it('turns away schema-like keys with no handler key, and handler names used as calls or members', () => {
    const rejected = [
      'const parsed = { args: process.argv.slice(2), input: stdin };',
      'export function parse(schema: Schema, input: string) { return schema.parse(input); }',
      'const cfg = { parameters: { retries: 3 } };\nfn.call(this, cfg);\nrunner.run(cfg);',
      'const options = { schema: s, args: a };\nawait task.execute(options);',
      // the name inside a longer word, or a modifier glued to it, is no key
      'const cfg = { schema: s, prerun: true, readonlyrun: 1 };',
      'const cfg = { schema: s };\nconst x = obj.handler ?? fallback;',
      'const cfg = { schema: s, ahandler: 1, $fn: 2, callbacks: [], runner: r };',
    ];
    for (const text of rejected) expect(mayRegisterHandlers(text, settings), text).toBe(false);
  });

  it('configured handler properties and registration functions count', () => {
    const custom = readSettings({ 'mcp-stateless': { handlerProperties: ['perform'], registrationFunctions: ['defineTool'] } });
    expect(mayRegisterHandlers('export const t = { name: "x", input: s, perform: fn };', custom)).toBe(true);
    expect(mayRegisterHandlers('export const t = { name: "x", input: s, execute: fn };', custom)).toBe(false);
    expect(mayRegisterHandlers('defineTool("x", fn)', custom)).toBe(true);
  });
});

describe('rules on a module the text test turns away', () => {
  // Without whole-server analysis nothing but its text brings a module into the analysis: a module whose text cannot
  // register a handler has no handler code, so the rules that ask about handler code return no listeners at all (no
  // model is built for it); the wiring rule also looks at modules that only build, connect or route a server. The
  // registry rules read other files' shapes.
  const READS_DEFINITIONS = new Set(['require-max-concurrent', 'require-statelessness-probe', 'no-implicit-global-share']);
  const ASKS_ABOUT_WIRING = new Set(['no-shared-server-connection']);
  const listenersOf = (name: string, text: string, settings: Record<string, unknown> = {}) => {
    const rule = plugin.rules[name as keyof typeof plugin.rules] as unknown as { meta: { defaultOptions?: unknown[] }; create(context: unknown): Record<string, unknown> };
    const context = { id: name, sourceCode: { text, ast: { type: 'Program' } }, settings, options: rule.meta.defaultOptions ?? [], filename: 'x.ts', physicalFilename: 'x.ts', cwd: '/', report() {} };
    return Object.keys(rule.create(context));
  };
  const plain = "import { readFile } from 'node:fs/promises';\nexport async function load(p: string) { return JSON.parse(await readFile(p, 'utf8')); }\n";
  const server = "server.tool('load', {}, async (args) => ({ content: [] }));\n";
  const wiring = "import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';\nconst transport = new StreamableHTTPServerTransport({});\n";
  // Another server's wiring (a dev server's routes, a mail transport): the wiring rule leaves modules that never
  // mention MCP alone, so the text test does not bring them in.
  const otherWiring = "import { createServer } from 'node:http';\nconst transport = new SmtpTransport({});\nconst server = new Server(app);\n";

  for (const name of Object.keys(plugin.rules)) {
    if (READS_DEFINITIONS.has(name)) continue;
    const wires = ASKS_ABOUT_WIRING.has(name);
    it(`${name}: no listeners on plain code; listeners once the text may register a handler${wires ? ' or wire a server' : ', not when it only wires one'}`, () => {
      expect(listenersOf(name, plain)).toEqual([]);
      expect(listenersOf(name, server)).toEqual(['Program:exit']);
      expect(listenersOf(name, wiring)).toEqual(wires ? ['Program:exit'] : []);
      expect(listenersOf(name, otherWiring)).toEqual([]);
    });
  }

  it('a configured registration function brings a module in', () => {
    expect(listenersOf('no-cross-call-binding', 'defineTool({ run() {} });\n')).toEqual([]);
    expect(listenersOf('no-cross-call-binding', 'defineTool({ run() {} });\n', { 'mcp-stateless': { registrationFunctions: ['defineTool'] } })).toEqual(['Program:exit']);
  });

  it('with whole-server analysis other modules decide: every module keeps its listeners', () => {
    expect(listenersOf('no-cross-call-binding', plain, { 'mcp-stateless': { crossFile: true } })).toEqual(['Program:exit']);
  });
});

// The superset property on real shapes: every fixture module in which discovery (run on a full index, whatever the text
// says) finds a handler, or a handler imported from another module, passes the text test. A fixture that registers in
// a form the text test misses (`server?.registerTool?.(…)` once did) fails here by name.
describe('the text test on every fixture', () => {
  it('accepts every fixture module in which discovery finds a registration', () => {
    const root = path.resolve(__dirname, '../fixtures');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ts|tsx|js|mjs|cjs)$/.test(f) && !f.endsWith('.d.ts'))
      .map((f) => path.join(root, f));
    let registering = 0;
    const missed: string[] = [];
    const rule = {
      create(context: { sourceCode: { ast: never; scopeManager: never; visitorKeys: never; text: string }; filename: string }) {
        return {
          'Program:exit'() {
            const sc = context.sourceCode;
            const discovery = new Discovery(new ModuleFacts(sc.ast, sc.scopeManager, sc.visitorKeys, settings, context.filename));
            if (discovery.registrations.length === 0 && discovery.external.length === 0) return;
            registering++;
            if (!mayRegisterHandlers(sc.text, settings)) missed.push(path.relative(root, context.filename));
          },
        };
      },
    };
    const linter = new Linter({ configType: 'flat', cwd: root });
    for (const file of files) {
      linter.verify(readFileSync(file, 'utf8'), [{ files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs', '**/*.cjs'], languageOptions: { parser: tsParser, sourceType: 'module' }, plugins: { t: { rules: { superset: rule as never } } }, rules: { 't/superset': 'error' } }], file);
    }
    expect(registering).toBeGreaterThan(40);
    expect(missed).toEqual([]);
  });
});

// The definition rules (registry records: `concurrencyModel`, `shareScope`, `maxConcurrent`, the probe's verdict) read
// object literals, never the module index: a file that writes none of their keys gets no listener from them, and a file
// that does gets only their `Program` visitor — the index of a serving file is built by a handler rule, not by them.
describe('the definition rules', () => {
  const DEFINITION_RULES = ['require-max-concurrent', 'no-implicit-global-share', 'require-statelessness-probe'] as const;
  function listenersOf(name: string, code: string): string[] {
    const real = plugin.rules[name as keyof typeof plugin.rules] as unknown as { meta: object; create: (c: unknown) => Record<string, unknown> };
    let keys: string[] = [];
    const spy = { meta: real.meta, create: (context: unknown) => {
      const listeners = real.create(context);
      keys = Object.keys(listeners).sort();
      return listeners;
    } };
    new Linter({ configType: 'flat' }).verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tsParser }, plugins: { t: { rules: { spy: spy as never } } }, rules: { 't/spy': 'error' } }], 'server.ts');
    return keys;
  }
  const serving = "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nconst server = new McpServer({ name: 'x', version: '1' });\nlet last: string | undefined;\nserver.tool('echo', {}, async () => { last = 'x'; return { content: [] }; });\n";
  const record = "export const entry = { name: 'x', concurrencyModel: 'shared', maxConcurrent: 4 };\n";

  it('return no listeners for a serving file that writes none of their keys', () => {
    for (const name of DEFINITION_RULES) expect(listenersOf(name, serving), name).toEqual([]);
  });

  it('listen to Program only, and build no index, where a record is written', () => {
    for (const name of DEFINITION_RULES) expect(listenersOf(name, serving + record), name).toEqual(['Document', 'Program']);
    // A handler rule created first for the same file takes the index listeners with its own.
    expect(listenersOf('no-cross-call-binding', serving + record)).toContain('CallExpression');
  });
});
