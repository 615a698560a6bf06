// The planner and the argument synthesis, with no server: tool lists in, plans out.
import { beforeAll, describe, expect, it } from 'vitest';
import { CLEANUP_COMMAND, DEFAULT_COMMAND, nameTokens, planProbe, SAMPLE_FILL, type PlanOptions, type ProbePlan, type ToolInfo } from '../../src/probe/planner.js';
import { fillTemplate, synthesizeArguments } from '../../src/probe/schema-args.js';
import type { SchemaValidator } from '../../src/probe/validate.js';
import { loadSummary, probeValidator } from './summaries.js';

let validator: SchemaValidator;
beforeAll(async () => {
  validator = await probeValidator();
});

const plan = (tools: ToolInfo[], options: PlanOptions = {}, extra: Partial<Parameters<typeof planProbe>[0]> = {}): ProbePlan =>
  planProbe({ tools, options, validator, ...extra });
const tool = (name: string, properties: Record<string, object>, required: string[] = [], more: Partial<ToolInfo> = {}): ToolInfo => ({
  name,
  inputSchema: { type: 'object', properties, required },
  ...more,
});
const byName = (p: ProbePlan, name: string) => p.tools.find((t) => t.name === name)!;

// A knowledge-graph server in the shape of server-memory: writers of entities and relations, readers, deleters.
const entity = {
  type: 'object',
  properties: { name: { type: 'string' }, entityType: { type: 'string' }, observations: { type: 'array', items: { type: 'string' } } },
  required: ['name', 'entityType', 'observations'],
};
const graphTools: ToolInfo[] = [
  tool('create_entities', { entities: { type: 'array', items: entity } }, ['entities'], { annotations: { readOnlyHint: false, destructiveHint: false } }),
  tool('add_observations', { observations: { type: 'array', items: { type: 'object', properties: { entityName: { type: 'string' }, contents: { type: 'array', items: { type: 'string' } } }, required: ['entityName', 'contents'] } } }, ['observations']),
  tool('delete_entities', { entityNames: { type: 'array', items: { type: 'string' } } }, ['entityNames'], { annotations: { destructiveHint: true } }),
  tool('read_graph', {}, [], { annotations: { readOnlyHint: true } }),
  tool('search_nodes', { query: { type: 'string' } }, ['query'], { annotations: { readOnlyHint: true } }),
  tool('open_nodes', { names: { type: 'array', items: { type: 'string' } } }, ['names']),
];

describe('classification', () => {
  it('splits a knowledge-graph server into writers, readers and a skipped deleter, and pairs every writer with every reader', () => {
    const p = plan(graphTools);
    expect(p.tools.map((t) => `${t.name}:${t.role}`)).toEqual([
      'create_entities:writer',
      'add_observations:writer',
      'delete_entities:skipped',
      'read_graph:reader',
      'search_nodes:reader',
      'open_nodes:reader',
    ]);
    expect(p.writers).toEqual(['create_entities', 'add_observations']);
    expect(p.readers).toEqual(['read_graph', 'search_nodes', 'open_nodes']);
    expect(byName(p, 'delete_entities').skip).toEqual({ because: 'destructive', detail: 'annotated destructiveHint', flag: '--allow-destructive' });
    // every writer → every reader and every writer (a writer's own reply is read too)
    expect(p.pairs.map((x) => `${x.writer}>${x.reader}`)).toEqual([
      'create_entities>read_graph', 'create_entities>search_nodes', 'create_entities>open_nodes', 'create_entities>create_entities', 'create_entities>add_observations',
      'add_observations>read_graph', 'add_observations>search_nodes', 'add_observations>open_nodes', 'add_observations>create_entities', 'add_observations>add_observations',
    ]);
    expect(p.pairs.every((x) => x.origin === 'schema')).toBe(true);
    // readers that take a key are also called with the other session's key
    expect(p.tools.filter((t) => t.cross).map((t) => t.name)).toEqual(['search_nodes', 'open_nodes']);
  });

  it('synthesises arguments that carry the session\'s markers: keys in names, payload slots numbered across the plan', () => {
    const p = plan(graphTools);
    expect(byName(p, 'create_entities').args).toEqual({ entities: [{ name: '{key}', entityType: '{p1}', observations: ['{p2}'] }] });
    expect(byName(p, 'add_observations').args).toEqual({ observations: [{ entityName: '{key}', contents: ['{p3}'] }] });
    expect(byName(p, 'search_nodes').args).toEqual({ query: '{key}' });
    expect(byName(p, 'open_nodes').args).toEqual({ names: ['{key}'] });
    expect(byName(p, 'read_graph').args).toEqual({});
    expect(byName(p, 'create_entities').carriers.map((c) => `${c.pointer}=${c.role}`)).toEqual([
      '/entities/0/name=key', '/entities/0/entityType=payload', '/entities/0/observations/0=payload',
    ]);
  });

  it('a deleter that names only the probe\'s own data cleans up by default, and is probed with --allow-destructive', () => {
    const p = plan(graphTools);
    expect(p.cleanup).toEqual([{ tool: 'delete_entities', kind: 'deleter', args: { entityNames: ['{key}'] }, keys: 'all' }]);
    const allowed = plan(graphTools, { allowDestructive: true });
    expect(byName(allowed, 'delete_entities').role).toBe('writer');
    expect(plan(graphTools, { cleanup: false }).cleanup).toEqual([]);
  });

  it('a tool annotated readOnlyHint that takes data is still a writer: the hint does not say it keeps nothing', () => {
    const thinking = tool(
      'sequentialthinking',
      {
        thought: { type: 'string' },
        nextThoughtNeeded: { type: ['boolean', 'string'] },
        thoughtNumber: { type: 'integer', minimum: 1 },
        totalThoughts: { type: 'integer', minimum: 1 },
        branchFromThought: { type: 'integer', minimum: 1 },
        branchId: { type: 'string' },
      },
      ['thought', 'nextThoughtNeeded', 'thoughtNumber', 'totalThoughts'],
      { annotations: { readOnlyHint: true } },
    );
    const p = plan([thinking]);
    const t = byName(p, 'sequentialthinking');
    expect(t.role).toBe('writer');
    expect(t.why).toMatch(/annotated readOnlyHint, but a tool that takes data may still keep it/);
    // optional fields are filled too (the branch id is what comes back), with the required ones alone as the fallback
    expect(t.args).toEqual({ thought: '{p1}', nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1, branchFromThought: 1, branchId: '{key}' });
    expect(t.minimal).toEqual({ thought: '{p1}', nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 });
    expect(p.pairs.map((x) => `${x.writer}>${x.reader}`)).toEqual(['sequentialthinking>sequentialthinking']);
  });

  it('skips tools that reach outside, by annotation, by name, or by a URL argument; --allow-open-world probes them with a data: URI', () => {
    const tools = [
      tool('gzip_file', { name: { type: 'string' }, data: { type: 'string', format: 'uri' } }, ['data'], { annotations: { openWorldHint: true } }),
      tool('send_message', { to: { type: 'string' }, body: { type: 'string' } }, ['to', 'body']),
      tool('import_page', { url: { type: 'string' } }, ['url']),
      tool('echo', { message: { type: 'string' } }, ['message'], { annotations: { openWorldHint: false } }),
    ];
    const p = plan(tools);
    expect(p.tools.map((t) => `${t.name}:${t.role}:${t.skip?.detail ?? ''}`)).toEqual([
      'gzip_file:skipped:annotated openWorldHint',
      'send_message:skipped:its name says it reaches outside (send)',
      'import_page:skipped:it takes url',
      'echo:writer:',
    ]);
    const allowed = plan(tools, { allowOpenWorld: true });
    expect(byName(allowed, 'gzip_file').args).toEqual({ name: '{key}', data: 'data:text/plain,{p1}' });
    // payload slots are numbered across the plan: gzip_file's data is p1, send_message's body p2
    expect(byName(allowed, 'import_page').args).toEqual({ url: 'data:text/plain,{p3}' });
  });

  it('skips a tool that answers only task-augmented calls', () => {
    const p = plan([tool('research', { topic: { type: 'string' } }, ['topic'], { execution: { taskSupport: 'required' } })]);
    expect(byName(p, 'research').skip?.because).toBe('task-only');
  });

  it('names destroy verbs in any case style', () => {
    expect(nameTokens('deleteFileNow')).toEqual(['delete', 'file', 'now']);
    expect(nameTokens('kill-process')).toEqual(['kill', 'process']);
    const p = plan([tool('kill-process', { pid: { type: 'integer' } }, ['pid']), tool('dropTable', { name: { type: 'string' } }, ['name'])]);
    expect(p.tools.map((t) => t.skip?.detail)).toEqual(['its name says it destroys (kill)', 'its name says it destroys (drop)']);
    // a pid is nothing the probe owns: never used for cleanup; a table named by the probe's own key is
    expect(p.cleanup).toEqual([{ tool: 'dropTable', kind: 'deleter', args: { name: '{key}' }, keys: 'each' }]);
  });
});

describe('arguments from JSON Schema', () => {
  const synth = (schema: object, kind: 'writer' | 'reader' = 'writer', name = 't', includeOptional = true) =>
    synthesizeArguments(schema, { toolName: name, kind, scopeNames: new Set(['runId']), includeOptional, firstPayloadSlot: 1, command: DEFAULT_COMMAND });

  it('enums, consts, numbers within bounds, booleans, nulls, nested objects and arrays with minItems', () => {
    const r = synth({
      type: 'object',
      properties: {
        level: { type: 'string', enum: ['debug', 'info'] },
        kind: { const: 'fixed' },
        count: { type: 'integer', minimum: 3, maximum: 9 },
        ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
        page: { type: 'integer', multipleOf: 10, minimum: 1 },
        limit: { type: 'integer', default: 25 },
        delaySeconds: { type: 'number', default: 10 },
        dryRun: { type: 'boolean' },
        verbose: { type: 'boolean', default: true },
        nothing: { type: 'null' },
        tags: { type: 'array', items: { type: 'string' }, minItems: 2, uniqueItems: true },
        meta: { type: 'object', properties: { owner: { type: 'string' }, size: { type: 'integer', maximum: 0 } }, required: ['owner', 'size'] },
      },
    });
    expect(r.problems).toEqual([]);
    expect(r.value).toEqual({
      level: 'debug',
      kind: 'fixed',
      count: 3,
      ratio: 0.5,
      page: 10,
      limit: 25,
      delaySeconds: 0, // a duration takes its smallest value, not the default: a demo tool should not run for 10 s
      dryRun: false,
      verbose: true,
      nothing: null,
      tags: ['{key}', '{key}-1'],
      meta: { owner: '{p1}', size: 0 },
    });
  });

  it('formats: a data: URI for a URI, an address that goes nowhere for an email, fixed dates', () => {
    const r = synth({
      type: 'object',
      properties: {
        homepage: { type: 'string', format: 'uri' },
        email: { type: 'string', format: 'email' },
        at: { type: 'string', format: 'date-time' },
        day: { type: 'string', format: 'date' },
        id: { type: 'string', format: 'uuid' },
      },
    });
    expect(r.value).toEqual({
      homepage: 'data:text/plain,{p1}',
      email: '{key}@example.invalid',
      at: '2026-01-01T00:00:00Z',
      day: '2026-01-01',
      id: '00000000-0000-4000-8000-000000000000',
    });
    expect(r.openWorldArgs).toEqual(['homepage']);
  });

  it('paths point inside the session\'s own directory: a file for file tools, the directory for listing tools, a new directory for mkdir', () => {
    expect(synth({ type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } }, 'writer', 'write_file').value).toEqual({ path: '{dir}/{key}.txt', content: '{p1}' });
    expect(synth({ type: 'object', properties: { path: { type: 'string' } } }, 'reader', 'list_directory').value).toEqual({ path: '{dir}' });
    expect(synth({ type: 'object', properties: { path: { type: 'string' } } }, 'reader', 'read_text_file').value).toEqual({ path: '{dir}/{key}.txt' });
    expect(synth({ type: 'object', properties: { path: { type: 'string' } } }, 'writer', 'create_directory').value).toEqual({ path: '{dir}/{key}' });
    expect(synth({ type: 'object', properties: { source: { type: 'string' }, destination: { type: 'string' } } }, 'writer', 'move_file').value).toEqual({
      source: '{dir}/{key}.txt',
      destination: '{dir}/{key}-2.txt',
    });
    // `target` in a tool that has nothing to do with files is not a path
    expect(synth({ type: 'object', properties: { target: { type: 'string' } } }, 'writer', 'translate').value).toEqual({ target: '{p1}' });
  });

  it('the scope argument gets the session\'s scope (settings name it too), a command argument the default command', () => {
    expect(synth({ type: 'object', properties: { runId: { type: 'string' }, workspace: { type: 'string' }, cmd: { type: 'string' } } }).value).toEqual({
      runId: '{workspace}',
      workspace: '{workspace}',
      cmd: DEFAULT_COMMAND,
    });
  });

  it('patterns and lengths: a marker when it fits, else the schema\'s own example, else a problem', () => {
    expect(synth({ type: 'object', properties: { name: { type: 'string', pattern: '^[a-z0-9-]+$' } } }).value).toEqual({ name: '{key}' });
    expect(synth({ type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}$', examples: ['EUR'] } } }).value).toEqual({ code: 'EUR' });
    expect(synth({ type: 'object', properties: { summary: { type: 'string', minLength: 40 } } }).value.summary).toMatch(/^\{p1\}-x{10}$/);
    expect(synth({ type: 'object', properties: { short: { type: 'string', maxLength: 4 } } }).value).toEqual({ short: 'x' }); // too short for a marker: a plain value
    const bad = synth({ type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } }, required: ['code'] });
    expect(bad.problems).toEqual(['/code: no value carries a marker and fits the pattern ^[A-Z]{3}$']);
  });

  it('$ref, allOf and anyOf', () => {
    const r = synth({
      type: 'object',
      $defs: { Item: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] } },
      properties: {
        item: { $ref: '#/$defs/Item' },
        either: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 5 }] },
        both: { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'boolean' } }, required: ['b'] }] },
        remote: { $ref: 'https://example.com/schema.json' },
      },
    });
    expect(r.value).toMatchObject({ item: { label: '{key}' }, either: 5, both: { a: '{p1}', b: false } });
    expect(r.problems).toEqual(['/remote: cannot follow the remote $ref https://example.com/schema.json']);
  });

  it('required-only (minimal) leaves optional properties out', () => {
    expect(synth({ type: 'object', properties: { path: { type: 'string' }, head: { type: 'number' }, tail: { type: 'number' } }, required: ['path'] }, 'reader', 'read_file', false).value).toEqual({
      path: '{dir}/{key}.txt',
    });
  });
});

describe('validation against the schema', () => {
  it('falls back to the required arguments when the full set does not validate, and skips a tool nothing can fill', () => {
    const p = plan([
      // the optional `mode` admits nothing the probe synthesises for a string (an impossible enum-less const clash)
      tool('annotate', { text: { type: 'string' }, mode: { type: 'string', pattern: '^[A-Z]{3}$' } }, ['text']),
      tool('lookup', { code: { type: 'string', pattern: '^[A-Z]{3}$' } }, ['code']),
    ]);
    expect(byName(p, 'annotate').role).toBe('writer');
    expect(byName(p, 'annotate').args).toEqual({ text: '{p1}' });
    expect(byName(p, 'lookup').role).toBe('skipped');
    expect(byName(p, 'lookup').skip).toEqual({
      because: 'arguments',
      detail: 'cannot synthesise valid arguments: /code: no value carries a marker and fits the pattern ^[A-Z]{3}$',
      flag: '--tool lookup --args JSON',
    });
  });

  it('every synthesised argument set validates against its tool\'s schema (ajv) once filled', () => {
    const p = plan(graphTools, { allowDestructive: true });
    for (const t of p.tools) {
      const schema = graphTools.find((g) => g.name === t.name)!.inputSchema;
      expect(validator.check(schema, fillTemplate(t.args, SAMPLE_FILL))).toBeNull();
    }
    expect(validator.check({ type: 'object', properties: { n: { type: 'integer', maximum: 3 } } }, { n: 4 })).toBe('/n must be <= 3');
  });
});

describe('--tool and --args', () => {
  const runner = tool('run_command', { command: { type: 'string' }, workspace: { type: 'string' } }, ['command']);
  const teardown = tool('teardown_workspace', { workspace: { type: 'string' } }, ['workspace']);

  it('a command runner gets the default command and its cleanup; teardown is found by name and is never a writer', () => {
    const p = plan([runner, teardown]);
    expect(byName(p, 'run_command')).toMatchObject({ role: 'writer', args: { command: DEFAULT_COMMAND, workspace: '{workspace}' }, commandArgument: 'command', scopeArgument: 'workspace' });
    expect(byName(p, 'teardown_workspace').role).toBe('teardown');
    expect(p.teardown).toEqual({ tool: 'teardown_workspace', args: { workspace: '{workspace}' } });
    expect(p.cleanup).toEqual([{ tool: 'run_command', kind: 'command', args: { command: CLEANUP_COMMAND, workspace: '{workspace}' }, keys: 'each' }]);
    const none = plan([runner, teardown], { teardown: false });
    expect(none.teardown).toBeNull();
    expect(byName(none, 'teardown_workspace').role).toBe('teardown'); // not called at all, not a writer either
  });

  it('--tool probes one tool; --args is the user\'s template', () => {
    const notes = tool('add_note', { text: { type: 'string' } }, ['text']);
    const p = plan([runner, notes], { tool: 'add_note', args: '{"text":"{marker}"}' });
    expect(p.mode).toBe('tool');
    expect(p.tools.map((t) => `${t.name}:${t.role}`)).toEqual(['run_command:not-selected', 'add_note:writer']);
    expect(byName(p, 'add_note')).toMatchObject({ args: { text: '{marker}' }, argsFrom: 'user' });
    expect(p.warnings).toEqual(['"add_note" takes no workspace argument; every caller shares whatever scope the server picks']);
  });

  it('refuses what the user must fix', () => {
    expect(() => plan([runner], { tool: 'exec' })).toThrow('the server does not list a tool named "exec"; it lists: run_command');
    expect(() => plan([runner], { tool: 'run_command', args: '{"command":"echo hi"}' })).toThrow(/no \{marker\} placeholder/);
    expect(() => plan([runner], { tool: 'run_command', args: '{"command":' })).toThrow(/--args is not valid JSON/);
    expect(() => plan([], {})).toThrow('the server lists no tools');
  });

  it('warns when --args do not match the schema, and still sends them', () => {
    const p = plan([runner], { tool: 'run_command', args: { command: 42, note: '{marker}' } });
    expect(p.warnings[0]).toBe('--args do not match the input schema of "run_command": /command must be string');
  });
});

describe('planning from the lint\'s summary', () => {
  // server-memory's tools as it lists them (the parts the planner reads), and the lint's summary of its dist
  const memoryTools: ToolInfo[] = [
    tool('create_entities', { entities: { type: 'array', items: entity } }, ['entities']),
    tool('create_relations', { relations: { type: 'array', items: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' }, relationType: { type: 'string' } }, required: ['from', 'to', 'relationType'] } } }, ['relations']),
    tool('add_observations', { observations: { type: 'array', items: { type: 'object', properties: { entityName: { type: 'string' }, contents: { type: 'array', items: { type: 'string' } } }, required: ['entityName', 'contents'] } } }, ['observations']),
    tool('delete_entities', { entityNames: { type: 'array', items: { type: 'string' } } }, ['entityNames'], { annotations: { destructiveHint: true } }),
    tool('delete_observations', { deletions: { type: 'array', items: { type: 'object', properties: { entityName: { type: 'string' }, observations: { type: 'array', items: { type: 'string' } } }, required: ['entityName', 'observations'] } } }, ['deletions'], { annotations: { destructiveHint: true } }),
    tool('delete_relations', { relations: { type: 'array', items: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' }, relationType: { type: 'string' } }, required: ['from', 'to', 'relationType'] } } }, ['relations'], { annotations: { destructiveHint: true } }),
    tool('read_graph', {}),
    tool('search_nodes', { query: { type: 'string' } }, ['query']),
    tool('open_nodes', { names: { type: 'array', items: { type: 'string' } } }, ['names']),
  ];

  it('puts the pairs the lint found sharing the memory file first, with the lines', () => {
    const summary = loadSummary('server-memory.json');
    const p = plan(memoryTools, {}, { summary });
    expect(p.source).toBe('schemas+lint');
    const lint = p.pairs.filter((x) => x.origin === 'lint');
    expect(lint.map((x) => `${x.writer}>${x.reader}`)).toEqual([
      'create_entities>create_entities', 'create_entities>create_relations', 'create_entities>add_observations', 'create_entities>read_graph', 'create_entities>search_nodes', 'create_entities>open_nodes',
      'create_relations>create_entities', 'create_relations>create_relations', 'create_relations>add_observations', 'create_relations>read_graph', 'create_relations>search_nodes', 'create_relations>open_nodes',
      'add_observations>create_entities', 'add_observations>create_relations', 'add_observations>add_observations', 'add_observations>read_graph', 'add_observations>search_nodes', 'add_observations>open_nodes',
    ]);
    expect(p.pairs.slice(0, lint.length).every((x) => x.origin === 'lint')).toBe(true);
    expect(lint[3]?.state).toEqual({
      name: 'this.memoryFilePath',
      write: { file: 'index.js', line: 109, column: 43, what: 'renames into this.memoryFilePath' },
      read: { file: 'index.js', line: 54, column: 44, what: 'reads this.memoryFilePath' },
    });
    expect(byName(p, 'create_entities').lint.map((h) => `${h.rule}@${h.line}`)).toEqual(['mcp-stateless/no-fixed-path-io@54', 'mcp-stateless/no-fixed-path-io@109']);
  });

  it('says which of the lint\'s hazards the probe cannot exercise, and why', () => {
    const summary = loadSummary('server-memory.json');
    const p = plan(memoryTools, {}, { summary });
    expect(p.lint.map((n) => `${n.rule.replace('mcp-stateless/', '')} ${n.tool}@${n.line}: ${n.exercised ? 'exercised' : n.why}`)).toEqual([
      'no-fixed-path-io create_entities@54: exercised',
      'no-fixed-path-io create_entities@109: exercised',
      'no-module-accumulator resources/subscribe@486: request handler resources/subscribe: the probe calls tools only',
      'no-module-accumulator resources/unsubscribe@490: request handler resources/unsubscribe: the probe calls tools only',
    ]);
    // a hazard in a tool skipped for safety is not exercised either, and says what to pass
    const onlyCreate = plan([{ ...memoryTools[0]!, annotations: { openWorldHint: true } }], {}, { summary });
    expect(onlyCreate.lint[0]).toMatchObject({ tool: 'create_entities', exercised: false, why: 'skipped: annotated openWorldHint (pass --allow-open-world)' });
  });
});
