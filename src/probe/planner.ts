// The planner: the server's tools (and, with --source, the lint's summary of the server) in, a plan out. Pure: no
// I/O; the schema validator is passed in.
//
// Every tool is classified — writer (takes caller data the server may keep), reader (returns data and needs no
// caller-unique input, or takes a key it can be given), teardown, or skipped for safety — and gets arguments
// synthesised from its input schema. Writers are paired with every reader and with each other (a writer's own reply
// is read too); pairs the lint found sharing state come first.

import type { ServerSummary, SummaryLocation } from '../summary.js';
import { ProbeError } from './errors.js';
import { KEY_SLOT } from './markers.js';
import {
  containsPlaceholder,
  fillTemplate,
  SCOPE_NAME,
  synthesizeArguments,
  type Carrier,
  type FillValues,
  type SynthResult,
} from './schema-args.js';
import type { SchemaValidator } from './validate.js';

/**
 * The command a command-runner tool gets. Each call writes its marker to a file named after the marker in three places
 * a shared server must keep apart per caller — the working directory, $HOME and $TMPDIR — waits so that concurrent
 * callers overlap ({pause}: 0.2 s in a concurrent pass, none in a sequential one), and lists every probe marker file in
 * all three. A server that shares any of them shows another
 * caller's file (now, or to a later caller: the files stay until the cleanup call). Exit status is always 0.
 */
export const DEFAULT_COMMAND =
  'echo {marker} > {marker}.txt; ' +
  'echo {marker} > "$HOME/.{marker}"; ' +
  'echo {marker} > "${TMPDIR:-/tmp}/{marker}"; ' +
  'sleep {pause}; ' +
  'cat mcpsl-*.txt "$HOME"/.mcpsl-* "${TMPDIR:-/tmp}"/mcpsl-* 2>/dev/null; true';

/** Removes this run's files written by DEFAULT_COMMAND, then lists any that are still there. */
export const CLEANUP_COMMAND =
  'rm -f mcpsl-{run}-*.txt "$HOME"/.mcpsl-{run}-* "${TMPDIR:-/tmp}"/mcpsl-{run}-*; ' +
  'ls -d mcpsl-{run}-*.txt "$HOME"/.mcpsl-{run}-* "${TMPDIR:-/tmp}"/mcpsl-{run}-* 2>/dev/null; true';

export interface ToolInfo {
  name: string;
  description?: string;
  inputSchema?: unknown;
  /** `execution.taskSupport` of tools/list: 'required' tools answer only task-augmented calls. */
  execution?: { taskSupport?: string };
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean; title?: string };
}

export interface PlanOptions {
  /** --tool: probe only this tool. */
  tool?: string;
  /** --args: its arguments template ({marker}, {workspace}, {session}, {round}, {dir}). */
  args?: string | Record<string, unknown>;
  /** --teardown NAME, or false for --no-teardown. */
  teardown?: string | false;
  teardownArgs?: string | Record<string, unknown>;
  allowDestructive?: boolean;
  allowOpenWorld?: boolean;
  /** Clean up what the calls created (default true). */
  cleanup?: boolean;
}

export type ToolRole = 'writer' | 'reader' | 'teardown' | 'skipped' | 'not-selected';
export type SkipReason = 'destructive' | 'open-world' | 'arguments' | 'task-only';

export interface LintHazard extends SummaryLocation {
  rule: string;
  message: string;
}

export interface PlannedTool {
  name: string;
  role: ToolRole;
  /** Why this role, in a few words. */
  why: string;
  annotations: NonNullable<ToolInfo['annotations']>;
  /** The arguments sent (placeholders filled per session and step). */
  args?: Record<string, unknown>;
  /** Required-only arguments, tried when `args` is refused. */
  minimal?: Record<string, unknown>;
  /** Where the markers go. */
  carriers: Carrier[];
  /** Reader whose arguments name data (a key, a path): also called with another session's key ("cross"). */
  cross: boolean;
  skip?: { because: SkipReason; detail: string; flag?: string };
  /** Its name says it deletes/removes: a candidate for cleaning up the probe's own data. */
  deleter: boolean;
  /** The command-like argument, when the probe sends the default command through it. */
  commandArgument?: string;
  scopeArgument?: string;
  /** The lint's findings in this tool's code (with --source). */
  lint: LintHazard[];
  /** Chosen by --tool. */
  selected?: true;
  /** Where the arguments come from: synthesised from the schema, or the user's --args (not validated before sending). */
  argsFrom: 'schema' | 'user';
  /** Not a tool: a protocol request read like one (resources/list). */
  request?: 'resources/list';
}

export interface PlannedPair {
  writer: string;
  reader: string;
  origin: 'lint' | 'schema';
  /** With the lint: the state both touch and where. */
  state?: { name: string; write?: SummaryLocation & { what: string }; read?: SummaryLocation & { what: string } };
}

export interface LintNote {
  /** The tool (or request handler) the lint reports on. */
  tool: string | null;
  kind: string;
  rule: string;
  file: string;
  line: number;
  /** Does the plan call this tool with something that can carry a marker? */
  exercised: boolean;
  /** When not exercised: why, and what to pass. */
  why?: string;
}

export interface CleanupStep {
  tool: string;
  kind: 'command' | 'deleter';
  args: Record<string, unknown>;
  /** deleter: 'all' fills array arguments with every key of the session; 'each' calls once per key. */
  keys: 'all' | 'each';
}

export interface ProbePlan {
  mode: 'auto' | 'tool';
  source: 'schemas' | 'schemas+lint';
  tools: PlannedTool[];
  /** Lint-flagged first, then the server's order. */
  writers: string[];
  readers: string[];
  /** The order a session calls them in a pass: writers, then readers (then the readers given another session's key),
   * then `last`. */
  order: string[];
  /** Writers that delete or move (allowed by --allow-destructive): called after every reader, so that the readers see
   * what the others wrote before it is deleted or moved away. */
  last: string[];
  pairs: PlannedPair[];
  teardown: { tool: string; args: Record<string, unknown> } | null;
  /** Why there is no teardown call, when there is none. */
  teardownNote: string;
  cleanup: CleanupStep[];
  lint: LintNote[];
  warnings: string[];
}

export interface PlanInput {
  tools: ToolInfo[];
  /** The server declares resources: resources/list is read like a reader tool (resource names and URIs carry data). */
  resources?: boolean;
  summary?: ServerSummary;
  options: PlanOptions;
  validator: SchemaValidator;
}

const TEARDOWN_NAME = /teardown|clean_?up|delete_?workspace/i;
const DESTROY = new Set([
  'delete', 'del', 'remove', 'rm', 'rmdir', 'unlink', 'drop', 'destroy', 'purge', 'wipe', 'erase', 'truncate', 'reset',
  'clear', 'kill', 'terminate', 'shutdown', 'uninstall', 'revoke', 'prune', 'flush', 'evict', 'discard', 'overwrite',
]);
const OPEN_WORLD = new Set([
  'push', 'send', 'publish', 'email', 'mail', 'sms', 'tweet', 'webhook', 'http', 'https', 'fetch', 'download', 'upload',
  'curl', 'wget', 'navigate', 'browse', 'crawl', 'scrape', 'notify', 'deploy', 'pay', 'charge', 'post', 'dm',
]);
const READ_VERBS = new Set([
  'list', 'ls', 'read', 'get', 'search', 'find', 'query', 'show', 'view', 'open', 'describe', 'lookup', 'look', 'status',
  'stat', 'info', 'count', 'check', 'inspect', 'retrieve', 'load', 'cat', 'print', 'dump', 'recall', 'which', 'peek',
  'tail', 'head', 'has', 'exists', 'browse', 'export', 'summarize', 'summarise',
]);
const READ_NOUNS = new Set(['tree', 'info', 'status', 'stats', 'list', 'listing', 'history', 'summary', 'contents']);
const WRITE_VERBS = new Set([
  'create', 'add', 'write', 'set', 'put', 'save', 'store', 'update', 'insert', 'append', 'edit', 'upsert', 'record',
  'remember', 'log', 'register', 'move', 'rename', 'copy', 'import', 'submit', 'commit', 'run', 'exec', 'execute', 'make',
  'new', 'modify', 'patch', 'replace', 'push', 'send', 'post',
]);

/** `create_entities` → [create, entities]; `getFileInfo` → [get, file, info]. */
export function nameTokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((t) => t.toLowerCase())
    .filter(Boolean);
}

function isDeleter(tokens: string[]): boolean {
  return tokens.some((t) => DESTROY.has(t));
}

function isReaderName(tokens: string[]): boolean {
  if (tokens.some((t) => WRITE_VERBS.has(t))) return false;
  return READ_VERBS.has(tokens[0] ?? '') || READ_NOUNS.has(tokens.at(-1) ?? '');
}

function toolList(tools: ToolInfo[]): string {
  return tools.length === 0 ? '(none)' : tools.map((t) => t.name).join(', ');
}

/** Parse an arguments template given as JSON text or an object. */
export function parseTemplate(template: string | Record<string, unknown>, what: string): Record<string, unknown> {
  let value: unknown = template;
  if (typeof template === 'string') {
    try {
      value = JSON.parse(template);
    } catch (error) {
      throw new ProbeError(`${what} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ProbeError(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

function schemaProps(tool: ToolInfo): Record<string, { type?: unknown }> {
  const props = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  return props && typeof props === 'object' ? (props as Record<string, { type?: unknown }>) : {};
}

function requiredProps(tool: ToolInfo): string[] {
  const req = (tool.inputSchema as { required?: unknown } | undefined)?.required;
  return Array.isArray(req) ? req.filter((r): r is string => typeof r === 'string') : [];
}

/** The argument of `tool` that carries the caller's scope, if any. */
export function scopeArgument(tool: ToolInfo, scopeNames: ReadonlySet<string> = new Set()): string | undefined {
  return Object.keys(schemaProps(tool)).find((name) => scopeNames.has(name) || SCOPE_NAME.test(name));
}

const COMMAND_ARG = /^(command|cmd|cmdline|command_?line|shell_?command|shell|script|bash|sh)$/i;
/** The string argument of `tool` that looks like a shell command, if any. */
export function commandArgument(tool: ToolInfo): string | undefined {
  return Object.entries(schemaProps(tool)).find(([name, s]) => COMMAND_ARG.test(name) && (s.type === undefined || s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'))))?.[0];
}

/** Sample values for validating a template: the longest session name, a three-digit step. */
export const SAMPLE_FILL: FillValues = {
  key: 'mcpsl-00000000-november-999-k0',
  payload: (slot) => `mcpsl-00000000-november-999-${slot}`,
  dir: '/tmp/mcp-stateless-probe-xxxxxx/roots/probe-00000000-november',
  workspace: 'probe-00000000-november',
  session: 'november',
  round: 999,
  run: '00000000',
  pause: '0.2',
};

function selectTeardown(tools: ToolInfo[], name: string | false | undefined, scopeNames: ReadonlySet<string>): ToolInfo | null {
  if (name === false) return null;
  if (name !== undefined) {
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new ProbeError(`the server does not list a teardown tool named "${name}"; it lists: ${toolList(tools)}`);
    return tool;
  }
  const matches = tools.filter((t) => TEARDOWN_NAME.test(t.name));
  return matches.find((t) => scopeArgument(t, scopeNames) !== undefined) ?? matches[0] ?? null;
}

function teardownArguments(tool: ToolInfo, user: PlanOptions['teardownArgs'], scopeNames: ReadonlySet<string>): Record<string, unknown> | string {
  if (user !== undefined) return parseTemplate(user, '--teardown-args');
  const template: Record<string, unknown> = {};
  const ws = scopeArgument(tool, scopeNames);
  if (ws) template[ws] = '{workspace}';
  const missing = requiredProps(tool).filter((r) => !(r in template));
  if (missing.length > 0) return `teardown tool "${tool.name}" requires ${missing.join(', ')}; pass --teardown-args`;
  return template;
}

/** The lint's view of one tool: its findings, and the state entries it writes/reads. */
function lintFindings(summary: ServerSummary | undefined, tool: string): LintHazard[] {
  if (!summary) return [];
  return summary.findings
    .filter((f) => f.tool === tool)
    .map((f) => ({ file: f.file, line: f.line, column: f.column, rule: f.ruleId, message: f.message }));
}

function touchOf(summary: ServerSummary, tool: string, stateId: string, access: 'read' | 'write'): (SummaryLocation & { what: string }) | undefined {
  for (const entry of summary.tools) {
    if (entry.name !== tool) continue;
    const st = entry.state.find((s) => s.state === stateId && s.access === access);
    if (st) return { file: st.file, line: st.line, column: st.column, what: st.what };
    const ft = entry.files.find((f) => f.state === stateId && (access === 'read' ? f.effect === 'read' || f.effect === 'meta' : f.effect !== 'read' && f.effect !== 'meta'));
    if (ft) return { file: ft.file, line: ft.line, column: ft.column, what: `${ft.api}(${ft.target})` };
  }
  return undefined;
}

/** Make the plan. Throws ProbeError for what the user must fix (an unknown --tool, a bad --args). */
export function planProbe(input: PlanInput): ProbePlan {
  const { tools, summary, options, validator } = input;
  const taskOnly = (t: ToolInfo) => t.execution?.taskSupport === 'required';
  if (tools.length === 0) throw new ProbeError('the server lists no tools');
  const scopeNames = new Set(summary?.scopeArguments ?? []);
  const warnings: string[] = [];
  const mode: ProbePlan['mode'] = options.tool !== undefined ? 'tool' : 'auto';
  if (options.tool !== undefined && !tools.some((t) => t.name === options.tool)) {
    throw new ProbeError(`the server does not list a tool named "${options.tool}"; it lists: ${toolList(tools)}`);
  }
  const teardownTool = selectTeardown(tools, options.teardown, scopeNames);
  const lintTools = new Set(summary ? summary.tools.filter((t) => t.kind === 'tool' && t.name !== null && (t.rules.length > 0 || t.state.length > 0)).map((t) => t.name as string) : []);

  // Order: tools the lint found touching shared state first, then the server's order.
  const ordered = [...tools].sort((a, b) => Number(lintTools.has(b.name)) - Number(lintTools.has(a.name)));
  let slot = 1;
  const planned: PlannedTool[] = [];
  for (const tool of ordered) {
    const tokens = nameTokens(tool.name);
    const annotations = { ...(tool.annotations ?? {}) };
    const base = {
      name: tool.name,
      annotations,
      carriers: [] as Carrier[],
      cross: false,
      deleter: isDeleter(tokens),
      lint: lintFindings(summary, tool.name),
      argsFrom: 'schema' as const,
    };
    if (options.tool !== tool.name && ((teardownTool && tool.name === teardownTool.name) || TEARDOWN_NAME.test(tool.name))) {
      const why =
        teardownTool && tool.name === teardownTool.name
          ? 'teardown tool: called for each session after the rounds, twice'
          : options.teardown === false
            ? 'teardown tool: not called (--no-teardown)'
            : `teardown-like tool: not called (the teardown is ${teardownTool?.name ?? 'none'})`;
      planned.push({ ...base, role: 'teardown', why, deleter: false });
      continue;
    }
    if (mode === 'tool' && tool.name !== options.tool) {
      planned.push({ ...base, role: 'not-selected', why: `not probed (--tool ${options.tool})` });
      continue;
    }
    const command = commandArgument(tool);
    const scope = scopeArgument(tool, scopeNames);
    const selected = mode === 'tool' ? ({ selected: true } as const) : {};

    // --args: the user's template, as given
    if (mode === 'tool' && options.args !== undefined) {
      const template = parseTemplate(options.args, '--args');
      if (!containsPlaceholder(template, /\{(marker|key|p[1-9a-z])\}/)) {
        throw new ProbeError('the --args template has no {marker} placeholder; without it no call can carry its marker');
      }
      const problem = validator.check(tool.inputSchema, fillTemplate(template, SAMPLE_FILL));
      if (problem) warnings.push(`--args do not match the input schema of "${tool.name}": ${problem}`);
      if (!containsPlaceholder(template, '{workspace}')) {
        warnings.push(
          scope
            ? `the arguments do not pass {workspace} although "${tool.name}" takes "${scope}"; every call shares one scope`
            : `"${tool.name}" takes no workspace argument; every caller shares whatever scope the server picks`,
        );
      }
      planned.push({ ...base, ...selected, role: 'writer', why: 'chosen with --tool; arguments from --args', args: template, carriers: [], cross: false, commandArgument: command, scopeArgument: scope, argsFrom: 'user' });
      continue;
    }

    if (taskOnly(tool)) {
      const detail = 'answers only task-augmented calls (execution.taskSupport: required), which the probe does not make';
      planned.push({ ...base, ...selected, role: 'skipped', why: `skipped: ${detail}`, skip: { because: 'task-only', detail } });
      continue;
    }

    // safety
    const destructive = annotations.destructiveHint === true || base.deleter;
    const readerName = isReaderName(tokens);
    const kind = readerName ? 'reader' : 'writer';
    const synthOpts = { toolName: tool.name, toolDescription: tool.description, kind, scopeNames, command: DEFAULT_COMMAND } as const;
    const full = synthesizeArguments(tool.inputSchema, { ...synthOpts, includeOptional: true, firstPayloadSlot: slot });
    const minimal = synthesizeArguments(tool.inputSchema, { ...synthOpts, includeOptional: false, firstPayloadSlot: slot });
    const openWorldNamed = tokens.some((t) => OPEN_WORLD.has(t));
    const openWorld = annotations.openWorldHint === true || openWorldNamed || minimal.openWorldArgs.length > 0;
    if (destructive && !options.allowDestructive && mode === 'auto') {
      const detail = annotations.destructiveHint === true ? 'annotated destructiveHint' : `its name says it destroys (${tokens.filter((t) => DESTROY.has(t)).join(', ')})`;
      planned.push({ ...base, role: 'skipped', why: `skipped: ${detail}`, skip: { because: 'destructive', detail, flag: '--allow-destructive' }, args: full.value });
      continue;
    }
    if (openWorld && !options.allowOpenWorld && mode === 'auto') {
      const detail =
        annotations.openWorldHint === true
          ? 'annotated openWorldHint'
          : openWorldNamed
            ? `its name says it reaches outside (${tokens.filter((t) => OPEN_WORLD.has(t)).join(', ')})`
            : `it takes ${minimal.openWorldArgs.join(', ')}`;
      planned.push({ ...base, role: 'skipped', why: `skipped: ${detail}`, skip: { because: 'open-world', detail, flag: '--allow-open-world' }, args: full.value });
      continue;
    }

    // arguments, validated against the schema: the full set, else the required ones only
    const check = (r: SynthResult) => r.problems[0] ?? validator.check(tool.inputSchema, fillTemplate(r.value, SAMPLE_FILL));
    const fullProblem = check(full);
    const minimalProblem = JSON.stringify(minimal.value) === JSON.stringify(full.value) ? fullProblem : check(minimal);
    let primary: SynthResult | undefined;
    let fallback: SynthResult | undefined;
    if (!fullProblem) {
      primary = full;
      if (!minimalProblem && JSON.stringify(minimal.value) !== JSON.stringify(full.value)) fallback = minimal;
    } else if (!minimalProblem) primary = minimal;
    if (!primary) {
      const detail = `cannot synthesise valid arguments: ${fullProblem ?? minimalProblem}`;
      planned.push({ ...base, ...selected, role: 'skipped', why: `skipped: ${detail}`, skip: { because: 'arguments', detail, flag: `--tool ${tool.name} --args JSON` }, args: full.value });
      continue;
    }
    slot = Math.max(full.nextPayloadSlot, minimal.nextPayloadSlot);
    const carriers = primary.carriers;
    const hasKeyLike = carriers.some((c) => c.role === 'key' || c.role === 'query' || c.role === 'file' || c.role === 'dir');
    let role: ToolRole;
    let why: string;
    if (mode === 'tool') {
      role = 'writer';
      why = 'chosen with --tool; arguments from its schema';
    } else if (command) {
      role = 'writer';
      why = `command runner: "${command}" gets a command that writes and lists marker files in its cwd, $HOME and $TMPDIR`;
    } else if (readerName) {
      role = 'reader';
      why = carriers.length === 0 ? 'reader: takes no caller data' : `reader: its name says it reads; ${hasKeyLike ? 'also given the other session\'s key' : 'own arguments only'}`;
    } else if (carriers.length > 0) {
      role = 'writer';
      why = `writer: takes caller data (${carriers.map((c) => c.pointer.slice(1) || '(root)').slice(0, 4).join(', ')})${annotations.readOnlyHint === true ? '; annotated readOnlyHint, but a tool that takes data may still keep it' : ''}`;
    } else {
      role = 'reader';
      why = 'reader: takes no caller data';
    }
    if (!carriers.some((c) => c.role !== 'scope') && role === 'writer' && !command) {
      warnings.push(`"${tool.name}" has nothing that can carry a marker`);
    }
    planned.push({
      ...base,
      ...selected,
      role,
      why,
      args: primary.value,
      ...(fallback ? { minimal: fallback.value } : {}),
      carriers,
      cross: role === 'reader' && hasKeyLike,
      commandArgument: command,
      scopeArgument: scope,
    });
  }

  if (input.resources && mode === 'auto') {
    planned.push({
      name: 'resources/list',
      role: 'reader',
      why: 'the server\'s resources: their names and URIs are read like a reader tool\'s reply',
      annotations: {},
      args: {},
      carriers: [],
      cross: false,
      deleter: false,
      lint: [],
      argsFrom: 'schema',
      request: 'resources/list',
    });
  }
  const writers = planned.filter((t) => t.role === 'writer').map((t) => t.name);
  const readers = planned.filter((t) => t.role === 'reader').map((t) => t.name);
  // deleters and movers last: a file moved away or an entry deleted before the readers ran would show them nothing
  const destroys = (name: string) => {
    const t = planned.find((x) => x.name === name) as PlannedTool;
    return t.deleter || nameTokens(name).some((x) => x === 'move' || x === 'rename' || x === 'mv');
  };
  const order = [...writers.filter((w) => !destroys(w)), ...readers];
  const last = writers.filter(destroys);

  // pairs: every writer with every reader and every writer (itself included); the lint's first
  const pairs: PlannedPair[] = [];
  const seen = new Set<string>();
  if (summary) {
    for (const entry of summary.state) {
      for (const w of entry.writers) {
        for (const r of [...entry.readers, ...entry.writers]) {
          if (w === null || r === null || !writers.includes(w) || !(readers.includes(r) || writers.includes(r))) continue;
          const id = `${w}→${r}`;
          if (seen.has(id)) continue;
          seen.add(id);
          const write = touchOf(summary, w, entry.id, 'write');
          const read = touchOf(summary, r, entry.id, 'read');
          pairs.push({ writer: w, reader: r, origin: 'lint', state: { name: entry.name, ...(write ? { write } : {}), ...(read ? { read } : {}) } });
        }
      }
    }
  }
  for (const w of writers) {
    for (const r of [...readers, ...writers]) {
      const id = `${w}→${r}`;
      if (seen.has(id)) continue;
      seen.add(id);
      pairs.push({ writer: w, reader: r, origin: 'schema' });
    }
  }

  // teardown
  let teardown: ProbePlan['teardown'] = null;
  let teardownNote: string;
  if (options.teardown === false) teardownNote = 'skipped (--no-teardown)';
  else if (!teardownTool) teardownNote = 'the server lists no teardown tool (teardown, cleanup, delete_workspace)';
  else {
    const args = teardownArguments(teardownTool, options.teardownArgs, scopeNames);
    if (typeof args === 'string') {
      teardownNote = args;
      warnings.push(args);
    } else {
      teardown = { tool: teardownTool.name, args };
      teardownNote = `${teardownTool.name} for every session, twice`;
    }
  }

  // cleanup: the command runner's cleanup command; deleters whose every argument can name the probe's own data
  const cleanup: CleanupStep[] = [];
  if (options.cleanup !== false) {
    for (const t of planned) {
      if ((t.role === 'writer' || t.role === 'reader') && t.commandArgument && t.args && t.args[t.commandArgument] === DEFAULT_COMMAND) {
        cleanup.push({ tool: t.name, kind: 'command', args: { ...t.args, [t.commandArgument]: CLEANUP_COMMAND }, keys: 'each' });
      }
    }
    if (mode === 'auto') {
      for (const tool of ordered) {
        const t = planned.find((p) => p.name === tool.name) as PlannedTool;
        if (!t.deleter || t.role === 'teardown' || (t.skip && t.skip.because !== 'destructive') || t.annotations.openWorldHint === true) continue;
        const r = synthesizeArguments(tool.inputSchema, { toolName: tool.name, toolDescription: tool.description, kind: 'reader', scopeNames, includeOptional: false, firstPayloadSlot: 1, command: DEFAULT_COMMAND });
        // only the probe's own names: every string argument is a key, a path in the session's directory, or the scope
        const owned = r.carriers.length > 0 && r.carriers.every((c) => c.role === 'key' || c.role === 'file' || c.role === 'scope' || c.role === 'payload') && r.carriers.some((c) => c.role === 'key' || c.role === 'file');
        if (!owned || r.problems.length > 0 || validator.check(tool.inputSchema, fillTemplate(r.value, SAMPLE_FILL)) !== null) continue;
        const byArray = r.carriers.some((c) => (c.role === 'key' || c.role === 'file') && /\/\d+(\/|$)/.test(c.pointer));
        cleanup.push({ tool: tool.name, kind: 'deleter', args: r.value, keys: byArray ? 'all' : 'each' });
      }
    }
  }

  // the lint's hazards, and whether the plan can reach them
  const lint: LintNote[] = [];
  if (summary) {
    for (const f of summary.findings) {
      const entry = f.tool === null ? undefined : planned.find((t) => t.name === f.tool);
      const handler = summary.tools.find((t) => t.name === f.tool && t.kind !== 'tool');
      let exercised = false;
      let why: string | undefined;
      if (entry) {
        if (entry.role === 'writer' || entry.role === 'reader') {
          const summaryEntry = summary.tools.find((t) => t.kind === 'tool' && t.name === entry.name);
          const writesState =
            summaryEntry !== undefined &&
            (summaryEntry.state.some((s) => s.access === 'write') || summaryEntry.files.some((x) => x.effect !== 'read' && x.effect !== 'meta'));
          const carries = entry.carriers.some((c) => c.role !== 'scope') || entry.commandArgument !== undefined || (entry.selected === true && entry.args !== undefined);
          exercised = writesState ? carries : true;
          if (!exercised) why = `${entry.name} writes state but takes nothing that can carry a marker`;
        } else if (entry.role === 'teardown') {
          exercised = true;
        } else if (entry.skip) why = `${entry.why}${entry.skip.flag ? ` (pass ${entry.skip.flag})` : ''}`;
        else why = entry.why;
      } else if (handler) {
        why = `${handler.kind} handler ${handler.name ?? '(unnamed)'}: the probe calls tools only`;
      } else if (f.tool !== null) {
        why = `the server does not list a tool named "${f.tool}"`;
      } else {
        why = 'not in a tool the lint could name';
      }
      lint.push({ tool: f.tool, kind: entry ? 'tool' : (handler?.kind ?? 'code'), rule: f.ruleId, file: f.file, line: f.line, exercised, ...(why ? { why } : {}) });
    }
  }

  if (writers.length === 0 && mode === 'auto') {
    warnings.push('no tool takes caller data the server could keep: only readers are called');
  }
  return {
    mode,
    source: summary ? 'schemas+lint' : 'schemas',
    tools: planned,
    writers,
    readers,
    order,
    last,
    pairs,
    teardown,
    teardownNote,
    cleanup,
    lint,
    warnings,
  };
}

export { KEY_SLOT };
