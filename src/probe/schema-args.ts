// Synthesise a tool's arguments from its JSON Schema (pure: no I/O).
//
// The result is a template: plain JSON whose strings may hold placeholders that the runner fills per session and
// step (see `fillTemplate`):
//
//   {key}        the session's key marker of the step (names, ids, queries, file names)
//   {p1}…{pz}    payload markers (text, content, observations…), one slot per field so the ledger knows which field
//   {dir}        the session's own directory (absolute); files go to {dir}/{key}.txt
//   {workspace}  the session's scope (the scope argument)
//   {run}        the run id (cleanup commands)
//
// Every string that can carry a marker does; every other value is the most harmless valid value the schema allows.

import { payloadSlot } from './markers.js';

export type JsonSchema = Record<string, unknown>;

/** What a string argument is, as far as the probe can tell from its name, format and tool. */
export type ArgRole = 'key' | 'query' | 'payload' | 'file' | 'dir' | 'new-dir' | 'scope' | 'command' | 'literal';

export interface Carrier {
  /** JSON pointer of the argument, e.g. `/entities/0/name`. */
  pointer: string;
  role: ArgRole;
  /** The placeholder text it holds. */
  value: string;
}

export interface SynthOptions {
  toolName: string;
  toolDescription?: string;
  /** reader: directory-ish paths point at the session directory; writer: at a new file/directory in it. */
  kind: 'writer' | 'reader';
  /** Argument names that carry the caller's scope. */
  scopeNames: ReadonlySet<string>;
  /** Fill optional properties too (the `full` variant) or only required ones (`minimal`). */
  includeOptional: boolean;
  /** First payload slot number to use; slots are numbered across the whole plan so the ledger can name the field. */
  firstPayloadSlot: number;
  /** The command a command-like argument gets (with {key} where the marker goes). */
  command: string;
}

export interface SynthResult {
  value: Record<string, unknown>;
  carriers: Carrier[];
  /** Arguments that need something the probe does not synthesise (an unsatisfiable pattern, an unresolvable $ref). */
  problems: string[];
  /** Argument names that reach outside (URLs, hosts). */
  openWorldArgs: string[];
  /** Next free payload slot. */
  nextPayloadSlot: number;
}

const COMMAND_NAME = /^(command|cmd|cmdline|command_?line|shell_?command|shell|script|bash|sh)$/i;
export const SCOPE_NAME = /^(workspace|workspace_?id|workspace_?name|run_?id|scope|sandbox)$/i;
const PATH_NAME = /(^|[_-]|[a-z])(path|paths|file|files|filename|filenames|filepath|filepaths)$/i;
const DIR_NAME = /(^|[_-]|[a-z])(dir|dirs|directory|directories|folder|folders|cwd|root)$/i;
const PATH_ENDPOINT = /^(source|destination|dest|src|target|from_?path|to_?path)$/i;
const KEY_NAME = /^(name|names|id|ids|key|keys|title|slug|label|tag|tags|handle|ref|from|to)$|(Id|Ids|ID|Name|Names|Key|Keys)$|_(id|ids|name|names|key|keys)$/;
const QUERY_NAME = /^(q|query|queries|search|pattern|filter|term|terms|keyword|keywords|match|prefix|text_?query)$/i;
const URL_NAME = /^(url|urls|uri|uris|href|link|endpoint|webhook|host|hostname|ip|address|domain|server)$|(Url|Uri|Host|_url|_uri|_host)$/;
const DURATION_NAME = /(duration|delay|sleep|wait|pause|interval|seconds|millis|ms)$/i;
const DIR_TOOL = /(^|[_-])(list|ls|tree|dir|directory|directories|search|find|glob|walk)([_-]|$)/i;
const NEW_DIR_TOOL = /(mkdir|create_?dir|make_?dir|create_?directory|make_?directory|create_?folder|new_?folder)/i;
const FILE_TOOL = /file|path|dir|folder/i;

interface Ctx {
  opts: SynthOptions;
  root: JsonSchema;
  problems: string[];
  carriers: Carrier[];
  openWorldArgs: string[];
  slot: number;
  pathFields: number;
}

function asSchema(value: unknown): JsonSchema {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as JsonSchema) : {};
}

function resolveRef(schema: JsonSchema, ctx: Ctx, pointer: string): JsonSchema {
  let current = schema;
  for (let depth = 0; depth < 20 && typeof current.$ref === 'string'; depth++) {
    const ref = current.$ref;
    if (!ref.startsWith('#')) {
      ctx.problems.push(`${pointer || '/'}: cannot follow the remote $ref ${ref}`);
      return {};
    }
    let target: unknown = ctx.root;
    for (const raw of ref.slice(1).split('/').filter(Boolean)) {
      const part = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      target = target && typeof target === 'object' ? (target as Record<string, unknown>)[part] : undefined;
    }
    if (!target || typeof target !== 'object') {
      ctx.problems.push(`${pointer || '/'}: $ref ${ref} does not resolve`);
      return {};
    }
    const { $ref: _ignored, ...rest } = current;
    current = { ...(target as JsonSchema), ...rest };
  }
  return current;
}

/** Merge `allOf` branches into one schema (properties, required, the rest: first wins). */
function mergeAllOf(schema: JsonSchema, ctx: Ctx, pointer: string): JsonSchema {
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf, ...base } = schema;
  let merged: JsonSchema = { ...base };
  for (const branch of allOf as unknown[]) {
    const b = normalise(asSchema(branch), ctx, pointer);
    merged = {
      ...b,
      ...merged,
      properties: { ...asSchema(b.properties), ...asSchema(merged.properties) },
      required: [...new Set([...(Array.isArray(b.required) ? b.required : []), ...(Array.isArray(merged.required) ? merged.required : [])])],
    };
  }
  return merged;
}

function normalise(schema: JsonSchema, ctx: Ctx, pointer: string): JsonSchema {
  return mergeAllOf(resolveRef(schema, ctx, pointer), ctx, pointer);
}

function typeOf(schema: JsonSchema): string {
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const types = t.filter((x): x is string => typeof x === 'string');
    // ["string","null"] → string; ["boolean","string"] → boolean (a flag given as text is still a flag)
    return types.find((x) => x !== 'null') ?? 'null';
  }
  if (schema.properties || schema.additionalProperties) return 'object';
  if (schema.items || schema.prefixItems) return 'array';
  if (schema.default !== undefined && schema.default !== null) {
    const d = schema.default;
    return Array.isArray(d) ? 'array' : typeof d === 'object' ? 'object' : typeof d;
  }
  return 'string';
}

function allowsType(schema: JsonSchema, type: string): boolean {
  const t = schema.type;
  if (t === undefined) return true;
  return Array.isArray(t) ? t.includes(type) : t === type || (type === 'integer' && t === 'number');
}

function matchesPattern(value: string, pattern: unknown): boolean {
  if (typeof pattern !== 'string') return true;
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return true; // a pattern JavaScript cannot compile: leave the verdict to the validator
  }
}

/** A sample fill of a placeholder string, long enough to stand for every session and step. */
function sample(value: string): string {
  return fillString(value, {
    key: 'mcpsl-00000000-november-999-k0',
    payload: (slot) => `mcpsl-00000000-november-999-${slot}`,
    dir: '/tmp/mcp-stateless-probe-xxxxxx/roots/probe-00000000-november',
    workspace: 'probe-00000000-november',
    session: 'november',
    round: 9,
    run: '00000000',
    pause: '0.2',
  });
}

function stringRole(name: string, schema: JsonSchema, ctx: Ctx, pointer: string): { role: ArgRole; value: string } {
  const { opts } = ctx;
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  const fileTool = FILE_TOOL.test(`${opts.toolName} ${opts.toolDescription ?? ''}`);
  if (opts.scopeNames.has(name) || SCOPE_NAME.test(name)) return { role: 'scope', value: '{workspace}' };
  if (COMMAND_NAME.test(name)) return { role: 'command', value: opts.command };
  const payload = (): { role: ArgRole; value: string } => {
    const value = `{${payloadSlot(ctx.slot)}}`;
    ctx.slot++;
    return { role: 'payload', value };
  };
  switch (format) {
    case 'date-time':
      return { role: 'literal', value: '2026-01-01T00:00:00Z' };
    case 'date':
      return { role: 'literal', value: '2026-01-01' };
    case 'time':
      return { role: 'literal', value: '00:00:00Z' };
    case 'duration':
      return { role: 'literal', value: 'PT1S' };
    case 'email':
    case 'idn-email':
      return { role: 'key', value: '{key}@example.invalid' };
    case 'uuid':
      return { role: 'literal', value: '00000000-0000-4000-8000-000000000000' };
    case 'ipv4':
      ctx.openWorldArgs.push(name);
      return { role: 'literal', value: '127.0.0.1' };
    case 'ipv6':
      ctx.openWorldArgs.push(name);
      return { role: 'literal', value: '::1' };
    case 'hostname':
    case 'idn-hostname':
      ctx.openWorldArgs.push(name);
      return { role: 'literal', value: 'localhost' };
    case 'uri':
    case 'iri':
    case 'url':
    case 'uri-reference':
    case 'iri-reference': {
      // a data: URI carries the marker and fetches nothing
      ctx.openWorldArgs.push(name);
      const p = payload();
      return { role: 'payload', value: `data:text/plain,${p.value}` };
    }
    default:
      break;
  }
  if (URL_NAME.test(name)) {
    ctx.openWorldArgs.push(name);
    const p = payload();
    return { role: 'payload', value: `data:text/plain,${p.value}` };
  }
  const isDir = DIR_NAME.test(name);
  const isPath = isDir || PATH_NAME.test(name) || (PATH_ENDPOINT.test(name) && fileTool) || format === 'path';
  if (isPath) {
    ctx.pathFields++;
    const second = ctx.pathFields > 1 ? `-${ctx.pathFields}` : '';
    if (opts.kind === 'writer' && NEW_DIR_TOOL.test(opts.toolName)) return { role: 'new-dir', value: `{dir}/{key}${second}` };
    if (isDir || (opts.kind === 'reader' && DIR_TOOL.test(opts.toolName))) {
      return opts.kind === 'writer' && !isDir ? { role: 'new-dir', value: `{dir}/{key}${second}` } : { role: 'dir', value: '{dir}' };
    }
    return { role: 'file', value: `{dir}/{key}${second}.txt` };
  }
  if (QUERY_NAME.test(name)) return { role: 'query', value: '{key}' };
  if (KEY_NAME.test(name)) return { role: 'key', value: '{key}' };
  void pointer;
  return payload();
}

function synthString(name: string, schema: JsonSchema, ctx: Ctx, pointer: string): unknown {
  if (Array.isArray(schema.enum)) return pickEnum(schema.enum);
  if ('const' in schema) return schema.const;
  let { role, value } = stringRole(name, schema, ctx, pointer);
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const fits = (v: string) => {
    const s = sample(v);
    return s.length >= minLength && s.length <= maxLength && matchesPattern(s, schema.pattern);
  };
  if (!fits(value) && role !== 'literal') {
    const padded = `${value}-${'x'.repeat(Math.max(0, minLength - sample(value).length))}`;
    if (fits(padded)) value = padded;
    else {
      const fallbacks = [schema.default, ...(Array.isArray(schema.examples) ? schema.examples : [])].filter((v): v is string => typeof v === 'string');
      const literal = fallbacks.find((v) => v.length >= minLength && v.length <= maxLength && matchesPattern(v, schema.pattern));
      if (literal !== undefined) {
        role = 'literal';
        value = literal;
      } else if (schema.pattern === undefined && Number.isFinite(maxLength)) {
        role = 'literal';
        value = 'x'.repeat(Math.max(1, Math.min(maxLength, Math.max(minLength, 1))));
      } else {
        ctx.problems.push(`${pointer}: no value carries a marker and fits ${schema.pattern !== undefined ? `the pattern ${String(schema.pattern)}` : `length ${minLength}–${maxLength}`}`);
        role = 'literal';
      }
    }
  }
  if (role !== 'literal') ctx.carriers.push({ pointer, role, value });
  return value;
}

function pickEnum(values: unknown[]): unknown {
  return values.find((v) => v !== null) ?? values[0];
}

function synthNumber(name: string, schema: JsonSchema, integer: boolean): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  const exMin = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : schema.exclusiveMinimum === true ? min : undefined;
  const exMax = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : schema.exclusiveMaximum === true ? max : undefined;
  const step = integer ? 1 : 0.5;
  let lo = exMin !== undefined ? exMin + step : min;
  if (schema.exclusiveMinimum === true && min !== undefined) lo = min + step;
  let hi = exMax !== undefined ? exMax - step : max;
  if (schema.exclusiveMaximum === true && max !== undefined) hi = max - step;
  const valid = (n: number) => (lo === undefined || n >= lo) && (hi === undefined || n <= hi) && (!integer || Number.isInteger(n));
  let value: number;
  if (DURATION_NAME.test(name)) value = lo !== undefined ? lo : 0; // a long-running demo tool should not run long
  else if (typeof schema.default === 'number' && valid(schema.default)) value = schema.default;
  else if (lo !== undefined) value = lo;
  else if (hi === undefined || hi >= 1) value = 1;
  else value = hi;
  if (integer) value = Math.ceil(value);
  const multipleOf = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  if (multipleOf !== undefined) value = Math.ceil(value / multipleOf) * multipleOf;
  return value;
}

function synth(name: string, raw: JsonSchema, ctx: Ctx, pointer: string): unknown {
  let schema = normalise(raw, ctx, pointer);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const usable = (branches as unknown[]).map(asSchema).find((b) => normalise(b, ctx, pointer).type !== 'null') ?? asSchema(branches[0]);
      const { [key]: _dropped, ...rest } = schema;
      schema = { ...rest, ...normalise(usable, ctx, pointer) };
    }
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return pickEnum(schema.enum);
  const type = typeOf(schema);
  switch (type) {
    case 'string':
      return synthString(name, schema, ctx, pointer);
    case 'integer':
    case 'number':
      return synthNumber(name, schema, type === 'integer');
    case 'boolean':
      return typeof schema.default === 'boolean' ? schema.default : false;
    case 'null':
      return null;
    case 'array': {
      const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
      if (maxItems === 0) return [];
      const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
      if (tuple) return (tuple as unknown[]).map((item, i) => synth(name, asSchema(item), ctx, `${pointer}/${i}`));
      const count = Math.min(maxItems, Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1));
      const items: unknown[] = [];
      for (let i = 0; i < count; i++) {
        const before = ctx.carriers.length;
        let item = synth(name, asSchema(schema.items), ctx, `${pointer}/${i}`);
        // unique items: the second string item of a key role gets its own payload slot
        if (i > 0 && typeof item === 'string' && items.includes(item)) {
          item = `${item}-${i}`;
          const c = ctx.carriers[before];
          if (c) c.value = item as string;
        }
        items.push(item);
      }
      return items;
    }
    case 'object': {
      const props = asSchema(schema.properties);
      const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
      const out: Record<string, unknown> = {};
      for (const [prop, sub] of Object.entries(props)) {
        if (!required.has(prop) && !ctx.opts.includeOptional) continue;
        out[prop] = synth(prop, asSchema(sub), ctx, `${pointer}/${escapePointer(prop)}`);
      }
      for (const prop of required) {
        if (prop in out) continue;
        const extra = schema.additionalProperties;
        out[prop] = synth(prop, extra && typeof extra === 'object' ? asSchema(extra) : {}, ctx, `${pointer}/${escapePointer(prop)}`);
      }
      if (Object.keys(props).length === 0 && typeof schema.minProperties === 'number' && schema.minProperties > 0) {
        const extra = schema.additionalProperties;
        out['{key}'] = synth('name', extra && typeof extra === 'object' ? asSchema(extra) : {}, ctx, `${pointer}/{key}`);
      }
      return out;
    }
    default:
      return synthString(name, schema, ctx, pointer);
  }
}

function escapePointer(part: string): string {
  return part.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Arguments for a tool from its input schema. */
export function synthesizeArguments(inputSchema: unknown, opts: SynthOptions): SynthResult {
  const root = asSchema(inputSchema);
  const ctx: Ctx = { opts, root, problems: [], carriers: [], openWorldArgs: [], slot: opts.firstPayloadSlot, pathFields: 0 };
  const value = synth('', { type: 'object', ...root }, ctx, '');
  const args = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return { value: args, carriers: ctx.carriers, problems: ctx.problems, openWorldArgs: [...new Set(ctx.openWorldArgs)], nextPayloadSlot: ctx.slot };
}

/** Does the schema accept a string somewhere (is there anything that can carry a marker)? */
export function acceptsStrings(schema: unknown): boolean {
  return allowsType(asSchema(schema), 'string');
}

export interface FillValues {
  key: string;
  payload: (slot: string) => string;
  dir: string;
  workspace: string;
  session: string;
  round: number;
  run: string;
  /** How long a command waits so that concurrent calls overlap: `0.2` in a concurrent pass, `0` otherwise. */
  pause?: string;
}

const PLACEHOLDER = /\{(marker|key|workspace|session|round|dir|run|pause|p[1-9a-z])\}/g;

function fillString(text: string, v: FillValues): string {
  return text.replace(PLACEHOLDER, (_whole, name: string) => {
    switch (name) {
      case 'marker':
      case 'key':
        return v.key;
      case 'workspace':
        return v.workspace;
      case 'session':
        return v.session;
      case 'round':
        return String(v.round);
      case 'dir':
        return v.dir;
      case 'run':
        return v.run;
      case 'pause':
        return v.pause ?? '0';
      default:
        return v.payload(name);
    }
  });
}

/** Replace the placeholders in every string (and object key) of `template`. */
export function fillTemplate(template: unknown, values: FillValues): unknown {
  if (typeof template === 'string') return fillString(template, values);
  if (Array.isArray(template)) return template.map((v) => fillTemplate(v, values));
  if (template && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [fillString(k, values), fillTemplate(v, values)]));
  }
  return template;
}

/** Does `template` contain `placeholder` (e.g. `{marker}`) anywhere? */
export function containsPlaceholder(value: unknown, placeholder: string | RegExp): boolean {
  if (typeof value === 'string') return typeof placeholder === 'string' ? value.includes(placeholder) : placeholder.test(value);
  if (Array.isArray(value)) return value.some((v) => containsPlaceholder(v, placeholder));
  if (value && typeof value === 'object') return Object.entries(value).some(([k, v]) => containsPlaceholder(k, placeholder) || containsPlaceholder(v, placeholder));
  return false;
}
