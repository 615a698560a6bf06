// Tool arguments that can only hold one of a fixed set of values (`z.enum([...])`, `{ enum: [...] }`): such a value in a
// path (`tmp.${language}`) neither makes the path per caller nor lets the caller name another directory.
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { isFunction, memberName, propertyKeyName, staticString, unwrap, type Node } from './ast.js';
import type { ModuleFacts } from './module.js';

/** Zod methods that keep the set of values a schema accepts (or only add `undefined`/`null`/a default from the set). */
const KEEPS_VALUES = new Set(['optional', 'nullable', 'nullish', 'describe', 'default', 'catch', 'readonly', 'brand', 'meta']);
/** Zod constructors whose values come from a fixed set. */
const FIXED_SET = new Set(['enum', 'nativeEnum', 'literal', 'boolean']);

type Verdict = 'choice' | 'open' | null;

const cache = new WeakMap<ModuleFacts, ReadonlySet<string>>();

/**
 * Argument names this module declares, in every schema it writes, as one of a fixed set: a zod `enum`, `nativeEnum`,
 * `literal`, a `union` of those, or a JSON schema with `enum`. A name declared anywhere here with an open schema
 * (`z.string()`, `{ type: 'string' }`) is not one of them. Computed once per module.
 */
export function choiceArguments(facts: ModuleFacts): ReadonlySet<string> {
  let known = cache.get(facts);
  if (known) return known;
  const verdicts = new Map<string, Verdict>();
  for (const obj of facts.objects) {
    for (const prop of obj.properties) {
      if (prop.type !== AST_NODE_TYPES.Property) continue;
      const key = propertyKeyName(prop);
      if (key === null) continue;
      const v = schemaVerdict(prop.value as Node, 0);
      if (v === null) continue;
      verdicts.set(key, verdicts.get(key) === 'open' ? 'open' : v);
    }
  }
  known = new Set([...verdicts].filter(([, v]) => v === 'choice').map(([k]) => k));
  cache.set(facts, known);
  return known;
}

/** Whether a value is a schema, and whether it admits only a fixed set of values. Null: not a schema. */
function schemaVerdict(value: Node, depth: number): Verdict {
  if (depth > 8) return null;
  const n = unwrap(value);
  if (n.type === AST_NODE_TYPES.ObjectExpression) {
    // JSON schema: { type: 'string', enum: [...] }
    let isSchema = false;
    for (const p of n.properties) {
      if (p.type !== AST_NODE_TYPES.Property) continue;
      const k = propertyKeyName(p);
      if (k === 'enum' || k === 'const') return 'choice';
      if (k === 'type') isSchema = true;
    }
    return isSchema ? 'open' : null;
  }
  if (n.type !== AST_NODE_TYPES.CallExpression) return null;
  const callee = unwrap(n.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression) return null;
  const m = memberName(callee);
  if (!m) return null;
  const inner = unwrap(callee.object);
  // z.enum([...]).optional().describe('…')
  if (KEEPS_VALUES.has(m) && inner.type === AST_NODE_TYPES.CallExpression) return schemaVerdict(inner, depth + 1);
  if (inner.type !== AST_NODE_TYPES.Identifier || !/^z(od)?$/.test(inner.name)) return inner.type === AST_NODE_TYPES.CallExpression ? openIfSchema(inner, depth) : null;
  if (FIXED_SET.has(m)) return 'choice';
  if (m === 'union' && n.arguments[0] && unwrap(n.arguments[0]).type === AST_NODE_TYPES.ArrayExpression) {
    const elements = (unwrap(n.arguments[0]) as TSESTree.ArrayExpression).elements;
    return elements.every((e) => e && e.type !== AST_NODE_TYPES.SpreadElement && schemaVerdict(e, depth + 1) === 'choice') ? 'choice' : 'open';
  }
  return 'open';
}

/** `z.string().min(1)` and other refinements: an open schema when the chain starts at `z`. */
function openIfSchema(call: TSESTree.CallExpression, depth: number): Verdict {
  return schemaVerdict(call, depth + 1) === null ? null : 'open';
}

const emptyDefaults = new WeakMap<ModuleFacts, ReadonlySet<string>>();

/**
 * Argument names some schema of this module gives an empty default (`z.string().default('')`): a caller who leaves
 * them out gets `''`, which joins onto a root as the root itself.
 */
export function emptyDefaultArguments(facts: ModuleFacts): ReadonlySet<string> {
  let known = emptyDefaults.get(facts);
  if (known) return known;
  const out = new Set<string>();
  for (const obj of facts.objects) {
    for (const prop of obj.properties) {
      if (prop.type !== AST_NODE_TYPES.Property) continue;
      const key = propertyKeyName(prop);
      if (key !== null && hasEmptyDefault(prop.value as Node)) out.add(key);
    }
  }
  known = out;
  emptyDefaults.set(facts, known);
  return known;
}

function hasEmptyDefault(value: Node): boolean {
  const d = schemaDefault(value);
  return d !== null && staticString(d) === '';
}

/** What a zod chain fills in when the caller leaves the argument out (`z.string().optional().default('x')`), or null. */
export function schemaDefault(value: Node, depth = 0): Node | null {
  if (depth > 8) return null;
  const n = unwrap(value);
  if (n.type !== AST_NODE_TYPES.CallExpression) return null;
  const callee = unwrap(n.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression) return null;
  const m = memberName(callee);
  const a0 = n.arguments[0];
  if (m === 'default' && a0 && a0.type !== AST_NODE_TYPES.SpreadElement) return a0;
  return KEEPS_VALUES.has(m ?? '') ? schemaDefault(callee.object, depth + 1) : null;
}

/**
 * The schema a registration gives one argument (`server.tool(name, { key: z.enum(…) }, fn)`, a tool object's
 * `inputSchema: { properties: { key: … } }`, a schema constant it names), or undefined when the registration shows none:
 * then the module-wide answer applies. Null: the registration's schema has no such key.
 */
export function registrationSchema(facts: ModuleFacts, site: Node, handler: Node, key: string): Node | null | undefined {
  const { entries, sawSchema } = registrationSchemaEntries(facts, site, handler);
  const own = entries.get(key);
  if (own) return own.value as Node;
  return sawSchema ? null : undefined;
}

/**
 * Every argument a registration's schema declares, by key (the first declaration met), and whether it shows a schema
 * at all: the schema object of `server.tool(name, { … }, fn)`, `inputSchema`/`parameters`/`properties`, `z.object(…)`.
 */
export function registrationSchemaEntries(facts: ModuleFacts, site: Node, handler: Node): { entries: Map<string, TSESTree.Property>; sawSchema: boolean } {
  const entries = new Map<string, TSESTree.Property>();
  const stack: { node: Node; depth: number }[] = [];
  const start = unwrap(site);
  if (start.type === AST_NODE_TYPES.CallExpression) for (const a of start.arguments) stack.push({ node: a, depth: 0 });
  else stack.push({ node: start, depth: 0 });
  let sawSchema = false;
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    const n = unwrap(node);
    if (depth > 6 || n === handler || isFunction(n)) continue;
    if (n.type === AST_NODE_TYPES.Identifier && depth < 3) {
      const v = facts.variableOf(n);
      const def = v?.defs[0];
      const init = def?.type === 'Variable' ? (def.node as TSESTree.VariableDeclarator).init : null;
      if (init) stack.push({ node: init, depth: depth + 1 });
      continue;
    }
    if (n.type === AST_NODE_TYPES.CallExpression) {
      // z.object({ … }), z.object({ … }).strict(), schema.extend({ … })
      const callee = unwrap(n.callee);
      if (callee.type === AST_NODE_TYPES.MemberExpression) stack.push({ node: callee.object, depth: depth + 1 });
      for (const a of n.arguments) stack.push({ node: a, depth: depth + 1 });
      continue;
    }
    if (n.type !== AST_NODE_TYPES.ObjectExpression) continue;
    for (const prop of n.properties) {
      if (prop.type !== AST_NODE_TYPES.Property) continue;
      if (isFunction(unwrap(prop.value as Node)) || prop.value === handler) continue;
      const k = propertyKeyName(prop);
      if (schemaVerdict(prop.value as Node, 0) !== null) {
        sawSchema = true;
        if (k !== null && !entries.has(k)) entries.set(k, prop);
      }
      if (k !== null && /^(inputSchema|schema|parameters|properties|argsSchema|paramsSchema|input|shape)$/.test(k)) stack.push({ node: prop.value as Node, depth: depth + 1 });
    }
  }
  return { entries, sawSchema };
}

/** One of a fixed set, as this registration (or, when it shows no schema, the module) declares the argument. */
export function isChoiceArgument(facts: ModuleFacts, site: Node | null, handler: Node | null, key: string): boolean {
  const own = site && handler ? registrationSchema(facts, site, handler, key) : undefined;
  if (own === undefined) return choiceArguments(facts).has(key);
  return own !== null && schemaVerdict(own, 0) === 'choice';
}

/** Defaulted to `''` when left out, as this registration (or, when it shows no schema, the module) declares it. */
export function hasEmptyDefaultArgument(facts: ModuleFacts, site: Node | null, handler: Node | null, key: string): boolean {
  const own = site && handler ? registrationSchema(facts, site, handler, key) : undefined;
  if (own === undefined) return emptyDefaultArguments(facts).has(key);
  return own !== null && hasEmptyDefault(own);
}

/** Strings that would take a path out of the directory it is joined under: a name pattern must accept none of them. */
export const PATH_ESCAPES: readonly string[] = ['..', '.', '', 'a/b', '../x', 'a\\b', '/etc'];
/** Zod string formats whose values are single path-safe names. */
const NAME_FORMATS = new Set(['uuid', 'cuid', 'cuid2', 'ulid', 'nanoid', 'guid']);

function rejectsEscapes(pattern: string, flags = ''): boolean {
  try {
    const re = new RegExp(pattern, flags.replace(/[gy]/g, ''));
    return PATH_ESCAPES.every((s) => !re.test(s));
  } catch {
    return false;
  }
}

/**
 * Does a zod schema admit only names that cannot leave the directory they are joined under: a chain with
 * `.regex(/^[\w-]+$/)` (a pattern that accepts none of `..`, `.`, ``, `a/b`, `a\b`, `/etc`), a `uuid`/`cuid`/`ulid`
 * format, a number. (A JSON schema's `pattern` is checked by nobody unless the server does it.)
 */
function isNameSchema(value: Node, depth: number): boolean {
  if (depth > 8) return false;
  const n = unwrap(value);
  if (n.type !== AST_NODE_TYPES.CallExpression) return false;
  const callee = unwrap(n.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression) return false;
  const m = memberName(callee);
  if (!m) return false;
  const inner = unwrap(callee.object);
  if (inner.type === AST_NODE_TYPES.Identifier && /^z(od)?$/.test(inner.name)) return m === 'number' || m === 'bigint' || NAME_FORMATS.has(m);
  if (m === 'regex') {
    const a = n.arguments[0] ? unwrap(n.arguments[0]) : null;
    if (a && a.type === AST_NODE_TYPES.Literal && 'regex' in a && a.regex && rejectsEscapes(a.regex.pattern, a.regex.flags)) return true;
  }
  if (NAME_FORMATS.has(m) || m === 'int') return true;
  // What changes or widens the value (`.transform(…)`, `.or(…)`, `.pipe(…)`) is no longer what the pattern checked.
  if (/^(transform|or|pipe|and|overwrite|catch)$/.test(m)) return false;
  // Refinements and wrappers keep what the chain below them admits (`.min(1).regex(…).describe(…)`).
  return inner.type === AST_NODE_TYPES.CallExpression && isNameSchema(inner, depth + 1);
}

/** Registrations whose framework checks the arguments against the zod schema before the handler runs. */
const VALIDATING_REGISTRATIONS = new Set(['tool', 'registerTool', 'addTool', 'prompt', 'registerPrompt']);

/**
 * A single path-safe name, as the registration's own zod schema declares the argument: the SDK's `server.tool` /
 * `registerTool` and fastmcp's `addTool` validate the call's arguments against it before the handler runs, so
 * `path.join(ROOT, workspace)` with `workspace: z.string().regex(/^[\w-]+$/)` stays under ROOT. A tool object that a
 * dispatcher of the project's own looks up is validated only if that dispatcher does it: not counted.
 */
export function isNameArgument(facts: ModuleFacts, site: Node | null, handler: Node | null, key: string): boolean {
  const call = site ? unwrap(site) : null;
  if (!call || !handler || call.type !== AST_NODE_TYPES.CallExpression) return false;
  const callee = unwrap(call.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression || !VALIDATING_REGISTRATIONS.has(memberName(callee) ?? '')) return false;
  const own = registrationSchema(facts, site!, handler, key);
  return !!own && isNameSchema(own, 0);
}
