// Definition records: the concurrency facts an MCP server's definition or registry record declares, read from
// TypeScript/JavaScript object literals (ESTree) and from JSON documents (@eslint/json) into one shape.
//
// Two shapes are recognised:
//   - a registry record:  { name, concurrencyModel, maxConcurrent, shareScope, statelessnessProbePassed, probe }
//   - an SDK definition:  defineMcp({ name, concurrency: { model, maxConcurrent } })
//
// Every field has one of three states: `absent` (definitely not set), `maybe` (an unresolvable spread or computed key
// could set it) or `set`, and a set field's value is `known` (a primitive we could resolve), `nonPrimitive` (an object,
// array or function: known not to be a primitive) or `unknown` (a call result, an import, a parameter...). Rules
// report only on `absent` and on `known`/`nonPrimitive` values; `maybe` and `unknown` are never guessed at.
//
// The analysis is built once per file, by the first rule that asks, and cached by the file's AST root.

import { ASTUtils, AST_NODE_TYPES, type TSESLint, type TSESTree } from '@typescript-eslint/utils';

// ---------------------------------------------------------------------------------------------------------------
// Language-neutral shapes
// ---------------------------------------------------------------------------------------------------------------

/** A place in the source: an ESTree node or an @eslint/json node. Both carry `loc` and `range`. */
export interface SourceNode {
  readonly type: string;
  readonly range?: readonly [number, number];
}

export type Primitive = string | number | bigint | boolean | null | undefined;

export type FieldValue =
  | { readonly kind: 'known'; readonly value: Primitive }
  | { readonly kind: 'nonPrimitive'; readonly what: 'object' | 'array' | 'function' | 'regexp' }
  | { readonly kind: 'unknown' };

export interface SetField {
  readonly state: 'set';
  readonly value: FieldValue;
  /** The property (ESTree `Property`, JSON `Member`) that wrote the value; may lie in a spread base object. */
  readonly property: SourceNode;
  /** The property's value expression as written (before unwrapping `as const` and the like). */
  readonly valueNode: SourceNode;
  /** The spread element of the reported object through which the field arrived; null when written in it. */
  readonly via: SourceNode | null;
}

export type Field = { readonly state: 'absent' } | { readonly state: 'maybe' } | SetField;

export interface ObjectShape {
  readonly node: SourceNode;
  /** True when an unresolvable spread or computed key may have set keys we cannot see. */
  readonly open: boolean;
  get(key: string): Field;
  /** The object a field holds (a nested object literal, or a const bound to one); null when not resolvable. */
  object(key: string): ObjectShape | null;
}

export interface DefinitionRecord {
  /** `record`: registry record with `concurrencyModel`; `definition`: SDK definition with `concurrency.model`. */
  readonly form: 'record' | 'definition';
  readonly language: 'js' | 'json';
  /** The record or definition object. */
  readonly node: SourceNode;
  /** The literal `name` (or, failing that, `id`) of the server, when statically known. */
  readonly name: string | null;
  /** Every literal `name` and `id` of the server, for allow-lists. */
  readonly names: readonly string[];
  /** How the model is spelled in this shape: `concurrencyModel` or `concurrency.model`. */
  readonly modelKey: 'concurrencyModel' | 'concurrency.model';
  /** The object holding model, maxConcurrent and shareScope: the record itself or the definition's `concurrency`. */
  readonly holder: ObjectShape;
  /** Where to report a field missing from `holder` (the holder object, or the `concurrency` property naming it). */
  readonly holderAt: SourceNode;
  /** Whether `holder` is written inside this record (false for `concurrency: sharedConst` or a spread-in value). */
  readonly holderIsLocal: boolean;
  readonly model: Field;
  readonly maxConcurrent: Field;
  readonly shareScope: Field;
  readonly statelessnessProbePassed: Field;
  /** `probe.passed`: the availability gates, which do not gate `shared`. */
  readonly probePassed: Field;
}

const ABSENT: Field = { state: 'absent' };
const MAYBE: Field = { state: 'maybe' };
const UNKNOWN: FieldValue = { kind: 'unknown' };

/** Where a problem with a set field is reported: the property, or the spread that brought it into the object. */
export function fieldLocation(field: SetField): SourceNode {
  return field.via ?? field.property;
}

/**
 * Where a problem with a holder field (model, maxConcurrent, shareScope) is reported: at the field when the holder is
 * written in the record, else where the record names its holder, so that a holder shared by several definitions is
 * reported once per definition, in the definition.
 */
export function holderFieldLocation(record: DefinitionRecord, field: SetField): SourceNode {
  return record.holderIsLocal ? fieldLocation(field) : record.holderAt;
}

/**
 * Whether a suggestion may edit a holder field: only when it is written in the record itself. Editing a spread base
 * or a shared `concurrency` constant would change its other users too.
 */
export function holderFieldEditable(record: DefinitionRecord, field: SetField): boolean {
  return record.holderIsLocal && field.via === null;
}

/** The field's value when it is a known primitive; `NOT_KNOWN` otherwise. */
export const NOT_KNOWN: unique symbol = Symbol('not known');
export function knownValue(field: Field): Primitive | typeof NOT_KNOWN {
  return field.state === 'set' && field.value.kind === 'known' ? field.value.value : NOT_KNOWN;
}

/** How a value reads in a message: `0`, `'8'`, `undefined`, `an object`. */
export function describeValue(value: FieldValue): string {
  switch (value.kind) {
    case 'known':
      if (typeof value.value === 'string') return `'${value.value}'`;
      if (typeof value.value === 'bigint') return `${value.value}n`;
      return String(value.value);
    case 'nonPrimitive':
      return value.what === 'array' || value.what === 'object' ? `an ${value.what}` : `a ${value.what}`;
    default:
      return 'an unresolved value';
  }
}

/** How a record is named in messages: `MCP server 'kali'`, or `This MCP server` when it has no literal name. */
export function serverLabel(record: DefinitionRecord): string {
  return record.name === null ? 'This MCP server' : `MCP server '${record.name}'`;
}

/**
 * The node to pass to `context.report`. Rules are typed for ESTree; JSON nodes are reported through the same call
 * (ESLint reads `loc` from whatever node it is given), so this is the one place that crosses the types.
 */
export function reportNode(node: SourceNode): TSESTree.Node {
  return node as unknown as TSESTree.Node;
}

function rangeOf(node: SourceNode): readonly [number, number] {
  if (!node.range) throw new Error(`mcp-stateless: ${node.type} node has no range`);
  return node.range;
}

/** A value node with `as const`, `satisfies`, `!` and type assertions removed (ESTree); JSON nodes as they are. */
export function unwrapValueNode(node: SourceNode): SourceNode {
  let current = node as TSESTree.Node;
  while (
    current.type === AST_NODE_TYPES.TSAsExpression ||
    current.type === AST_NODE_TYPES.TSSatisfiesExpression ||
    current.type === AST_NODE_TYPES.TSNonNullExpression ||
    current.type === AST_NODE_TYPES.TSTypeAssertion
  ) {
    current = current.expression;
  }
  return current;
}

/**
 * A fix that replaces a field's value with a string, quoted like the literal it replaces (JSON always uses double
 * quotes). Only for fields written in the reported object itself: editing a shared base would change its other users.
 */
export function replaceWithString(
  fixer: TSESLint.RuleFixer,
  sourceCode: Readonly<TSESLint.SourceCode>,
  record: DefinitionRecord,
  field: SetField,
  text: string,
): TSESLint.RuleFix {
  const target = unwrapValueNode(field.valueNode);
  const [start, end] = rangeOf(target);
  const first = sourceCode.text[start];
  const quote = record.language === 'json' ? '"' : first === '"' || first === "'" ? first : "'";
  return fixer.replaceTextRange([start, end], `${quote}${text}${quote}`);
}

/** A fix that replaces a field's value with raw source text (a number, say). */
export function replaceWithText(fixer: TSESLint.RuleFixer, field: SetField, text: string): TSESLint.RuleFix {
  const [start, end] = rangeOf(unwrapValueNode(field.valueNode));
  return fixer.replaceTextRange([start, end], text);
}

/**
 * The range that removes a property together with its comma (and its line, when it stands alone on one), or null
 * when anything but whitespace (a comment, say) sits between the property and its comma.
 */
export function propertyRemovalRange(text: string, property: SourceNode): [number, number] | null {
  const [start, end] = rangeOf(property);
  let after = end;
  while (after < text.length && /[ \t\r\n]/.test(text[after]!)) after++;
  if (text[after] === ',') {
    let stop = after + 1;
    while (stop < text.length && /[ \t]/.test(text[stop]!)) stop++;
    let lineStart = start;
    while (lineStart > 0 && /[ \t]/.test(text[lineStart - 1]!)) lineStart--;
    const aloneOnLine = (lineStart === 0 || text[lineStart - 1] === '\n') && (text[stop] === '\n' || text[stop] === '\r');
    if (aloneOnLine) {
      if (text[stop] === '\r') stop++;
      if (text[stop] === '\n') stop++;
      return [lineStart, stop];
    }
    return [start, stop];
  }
  if (text[after] !== '}') return null;
  // The last property: take the comma before it, if any.
  let before = start;
  while (before > 0 && /[ \t\r\n]/.test(text[before - 1]!)) before--;
  if (text[before - 1] === ',') return [before - 1, end];
  if (text[before - 1] === '{') return [start, end];
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// The model, cached per file
// ---------------------------------------------------------------------------------------------------------------

const cache = new WeakMap<object, readonly DefinitionRecord[]>();

/** A definition record needs one of these keys written somewhere in the file. */
const DEFINITION_KEYS = /concurrency|shareScope|statelessnessProbePassed|maxConcurrent/;

/**
 * Whether the file is known to hold no record: a JavaScript or TypeScript file that writes none of the keys (the answer
 * is kept as its records, so the text is scanned once per file), or one whose records were found to be none.
 */
function hasNoRecords(sourceCode: Readonly<TSESLint.SourceCode>): boolean {
  const root = sourceCode.ast as unknown as { type: string };
  const known = cache.get(root);
  if (known) return known.length === 0;
  if (root.type === 'Document' || DEFINITION_KEYS.test(sourceCode.text)) return false;
  cache.set(root, []);
  return true;
}

/** Every definition record in the file, ESTree or JSON. Built once per file and shared by the rules. */
export function getDefinitionRecords(sourceCode: Readonly<TSESLint.SourceCode>): readonly DefinitionRecord[] {
  const root = sourceCode.ast as unknown as { type: string };
  if (hasNoRecords(sourceCode)) return [];
  let records = cache.get(root);
  if (!records) {
    records = root.type === 'Document' ? jsonRecords(root as JsonDocument) : new EstreeAnalysis(sourceCode).records();
    cache.set(root, records);
  }
  return records;
}

/**
 * The visitor of a definition rule: runs `check` on each record of the file, whichever language it is in
 * (`Program` for JavaScript/TypeScript, `Document` for @eslint/json). A file known to hold none gets no listener.
 */
export function visitDefinitionRecords(
  context: Readonly<TSESLint.RuleContext<string, readonly unknown[]>>,
  check: (record: DefinitionRecord) => void,
): TSESLint.RuleListener {
  if (hasNoRecords(context.sourceCode)) return {};
  const run = (): void => {
    for (const record of getDefinitionRecords(context.sourceCode)) check(record);
  };
  return { Program: run, Document: run };
}

/** Builds a record from an object's shape, or null when the object is not a definition record. */
function classify(
  language: DefinitionRecord['language'],
  shape: ObjectShape,
  /** Whether the `concurrency` field's object is written inline in the definition. */
  isInline: (field: SetField, holder: ObjectShape) => boolean,
): DefinitionRecord | null {
  const names = ['name', 'id']
    .map((key) => knownValue(shape.get(key)))
    .filter((value): value is string => typeof value === 'string');
  const probe = shape.object('probe');
  const common = {
    language,
    node: shape.node,
    name: names[0] ?? null,
    names,
    statelessnessProbePassed: shape.get('statelessnessProbePassed'),
    probePassed: probe ? probe.get('passed') : shape.get('probe').state === 'absent' ? ABSENT : MAYBE,
  };
  const model = shape.get('concurrencyModel');
  const concurrency = shape.get('concurrency');
  const holder = concurrency.state === 'set' ? shape.object('concurrency') : null;
  // A registry record has `concurrencyModel`. An object with `shareScope` but neither model key is treated as one
  // too (a record relying on the default model, or a partial update): what it asks for, a scope, is known.
  const scopeOnly = !holder && shape.get('shareScope').state === 'set' && shape.get('model').state === 'absent';
  if (model.state === 'set' || scopeOnly) {
    return {
      ...common,
      form: 'record',
      modelKey: 'concurrencyModel',
      holder: shape,
      holderAt: shape.node,
      holderIsLocal: true,
      model,
      maxConcurrent: shape.get('maxConcurrent'),
      shareScope: shape.get('shareScope'),
    };
  }
  if (holder && concurrency.state === 'set') {
    const inline = isInline(concurrency, holder);
    return {
      ...common,
      form: 'definition',
      modelKey: 'concurrency.model',
      holder,
      holderAt: inline ? holder.node : fieldLocation(concurrency),
      holderIsLocal: inline,
      model: holder.get('model'),
      maxConcurrent: holder.get('maxConcurrent'),
      shareScope: holder.get('shareScope'),
    };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// ESTree (JavaScript / TypeScript)
// ---------------------------------------------------------------------------------------------------------------

type Expression = TSESTree.Expression | TSESTree.PrivateIdentifier | TSESTree.AssignmentPattern;

const MAX_DEPTH = 16;

class FieldMap {
  readonly fields = new Map<string, Field>();
  open = false;

  /** Something we cannot see may overwrite any key: known values become unknown, absent keys become maybe. */
  invalidate(): void {
    for (const [key, field] of this.fields) {
      if (field.state === 'set') this.fields.set(key, { ...field, value: UNKNOWN });
    }
    this.open = true;
  }
}

class EstreeShape implements ObjectShape {
  constructor(
    readonly node: SourceNode,
    private readonly map: FieldMap,
    private readonly analysis: EstreeAnalysis,
  ) {}

  get open(): boolean {
    return this.map.open;
  }

  get(key: string): Field {
    return this.map.fields.get(key) ?? (this.map.open ? MAYBE : ABSENT);
  }

  object(key: string): ObjectShape | null {
    const field = this.get(key);
    if (field.state !== 'set') return null;
    const resolved = this.analysis.resolveObject(field.valueNode as TSESTree.Expression, 0);
    return resolved instanceof EstreeShape ? resolved : null;
  }

  entries(): IterableIterator<[string, Field]> {
    return this.map.fields.entries();
  }
}

class EstreeAnalysis {
  private readonly shapes = new Map<TSESTree.ObjectExpression, EstreeShape | 'pending'>();

  constructor(private readonly sourceCode: Readonly<TSESLint.SourceCode>) {}

  records(): DefinitionRecord[] {
    const records: DefinitionRecord[] = [];
    const keys = this.sourceCode.visitorKeys as Record<string, readonly string[] | undefined>;
    const visit = (node: TSESTree.Node): void => {
      if (node.type === AST_NODE_TYPES.ObjectExpression && this.isCandidate(node)) {
        const shape = this.shapeOf(node);
        const record =
          shape &&
          classify('js', shape, (field, holder) => field.via === null && unwrapValueNode(field.valueNode) === holder.node);
        if (record) records.push(record);
      }
      for (const key of keys[node.type] ?? []) {
        const child = (node as unknown as Record<string, unknown>)[key];
        if (Array.isArray(child)) {
          for (const item of child) if (isNode(item)) visit(item);
        } else if (isNode(child)) {
          visit(child);
        }
      }
    };
    visit(this.sourceCode.ast);
    return records;
  }

  /**
   * Objects that are parts of another record are analysed through it, not on their own: inline spread arguments,
   * `concurrency` values, and base objects only ever spread into (or used as `concurrency` of) other objects.
   * Query objects (`findMany({ where: { concurrencyModel: 'shared' } })`) select records; they are not records.
   */
  private isCandidate(node: TSESTree.ObjectExpression): boolean {
    const outer = outermostWrapper(node);
    const parent = outer.parent;
    if (!parent) return true;
    if (parent.type === AST_NODE_TYPES.SpreadElement) return false;
    if (isConcurrencyValue(outer) || isQuery(outer)) return false;
    if (
      parent.type === AST_NODE_TYPES.VariableDeclarator &&
      parent.init === outer &&
      parent.id.type === AST_NODE_TYPES.Identifier
    ) {
      return !this.isFragment(parent);
    }
    return true;
  }

  /**
   * A base object: at least one use spreads it (or passes it as `concurrency`), and no use takes it whole as a record.
   * Member reads (`base.concurrency`, `base.name`) and exports are neutral: exported bases used elsewhere as complete
   * records are then not reported here, which errs towards silence, never towards a guessed report.
   */
  private isFragment(declarator: TSESTree.VariableDeclarator): boolean {
    const [variable] = this.sourceCode.getDeclaredVariables(declarator);
    if (!variable) return false;
    let spread = false;
    for (const ref of variable.references) {
      if (!ref.isRead() || ref.isTypeReference) continue;
      let use = outermostWrapper(ref.identifier as TSESTree.Node);
      if (use.parent?.type === AST_NODE_TYPES.ExportSpecifier) continue;
      let member = false;
      while (use.parent?.type === AST_NODE_TYPES.MemberExpression && use.parent.object === use) {
        use = outermostWrapper(use.parent);
        member = true;
      }
      if (use.parent?.type === AST_NODE_TYPES.SpreadElement || isConcurrencyValue(use)) spread = true;
      else if (!member) return false;
    }
    return spread;
  }

  shapeOf(node: TSESTree.ObjectExpression): EstreeShape | null {
    const cached = this.shapes.get(node);
    if (cached === 'pending') return null; // a cycle through spreads: unknowable
    if (cached) return cached;
    this.shapes.set(node, 'pending');
    const map = new FieldMap();
    for (const property of node.properties) {
      if (property.type === AST_NODE_TYPES.SpreadElement) {
        const spread = this.resolveObject(property.argument, 0);
        if (spread === 'nullish') continue;
        if (spread === null) {
          map.invalidate();
          continue;
        }
        if (spread.open) map.invalidate();
        for (const [key, field] of (spread as EstreeShape).entries()) {
          map.fields.set(key, field.state === 'set' ? { ...field, via: property } : field);
        }
        continue;
      }
      const key = this.propertyKey(property);
      if (key === null) {
        map.invalidate();
        continue;
      }
      const value: FieldValue =
        property.kind !== 'init'
          ? UNKNOWN
          : property.method
            ? { kind: 'nonPrimitive', what: 'function' }
            : this.resolveValue(property.value as Expression, 0);
      map.fields.set(key, { state: 'set', value, property, valueNode: property.value, via: null });
    }
    const shape = new EstreeShape(node, map, this);
    this.shapes.set(node, shape);
    return shape;
  }

  private propertyKey(property: TSESTree.Property): string | null {
    const key = property.key;
    if (!property.computed) {
      if (key.type === AST_NODE_TYPES.Identifier) return key.name;
      if (key.type === AST_NODE_TYPES.Literal) return String(key.value);
      return null;
    }
    const value = this.resolveValue(key as Expression, 0);
    return value.kind === 'known' && (typeof value.value === 'string' || typeof value.value === 'number')
      ? String(value.value)
      : null;
  }

  /** The initializer of a `const` binding with a plain identifier, or null (let/var, imports, parameters...). */
  private constInit(id: TSESTree.Identifier): TSESTree.Expression | null {
    const variable = ASTUtils.findVariable(this.sourceCode.getScope(id), id);
    if (!variable || variable.defs.length !== 1) return null;
    const def = variable.defs[0]!;
    if (def.type !== 'Variable') return null;
    if (def.parent.kind !== 'const' || def.node.id.type !== AST_NODE_TYPES.Identifier) return null;
    return def.node.init ?? null;
  }

  /** Whether an identifier is the global of that name (not shadowed by a local binding). */
  private isGlobal(id: TSESTree.Identifier): boolean {
    const variable = ASTUtils.findVariable(this.sourceCode.getScope(id), id);
    return !variable || variable.defs.length === 0;
  }

  resolveValue(node: Expression, depth: number): FieldValue {
    if (depth > MAX_DEPTH) return UNKNOWN;
    const expr = unwrapValueNode(node) as Expression;
    switch (expr.type) {
      case AST_NODE_TYPES.Literal:
        if ('regex' in expr && expr.regex) return { kind: 'nonPrimitive', what: 'regexp' };
        if ('bigint' in expr && expr.bigint) return { kind: 'known', value: BigInt(expr.bigint) };
        return { kind: 'known', value: expr.value as Primitive };
      case AST_NODE_TYPES.TemplateLiteral:
        return expr.expressions.length === 0 && expr.quasis[0]?.value.cooked != null
          ? { kind: 'known', value: expr.quasis[0].value.cooked }
          : UNKNOWN;
      case AST_NODE_TYPES.UnaryExpression: {
        if (expr.operator === 'void') return { kind: 'known', value: undefined };
        if (expr.operator !== '-' && expr.operator !== '+') return UNKNOWN;
        const inner = this.resolveValue(expr.argument, depth + 1);
        if (inner.kind !== 'known' || typeof inner.value !== 'number') return UNKNOWN;
        return { kind: 'known', value: expr.operator === '-' ? -inner.value : inner.value };
      }
      case AST_NODE_TYPES.Identifier: {
        if (expr.name === 'undefined' || expr.name === 'Infinity' || expr.name === 'NaN') {
          if (this.isGlobal(expr)) {
            return { kind: 'known', value: { undefined, Infinity, NaN }[expr.name] };
          }
        }
        const init = this.constInit(expr);
        return init ? this.resolveValue(init, depth + 1) : UNKNOWN;
      }
      case AST_NODE_TYPES.MemberExpression: {
        const key = this.memberKey(expr, depth);
        if (key === null) return UNKNOWN;
        const object = this.resolveObject(expr.object, depth + 1);
        if (!(object instanceof EstreeShape)) return UNKNOWN;
        const field = object.get(key);
        if (field.state === 'absent') return { kind: 'known', value: undefined };
        if (field.state === 'maybe') return UNKNOWN;
        return field.value;
      }
      case AST_NODE_TYPES.ObjectExpression:
        return { kind: 'nonPrimitive', what: 'object' };
      case AST_NODE_TYPES.ArrayExpression:
        return { kind: 'nonPrimitive', what: 'array' };
      case AST_NODE_TYPES.ArrowFunctionExpression:
      case AST_NODE_TYPES.FunctionExpression:
      case AST_NODE_TYPES.ClassExpression:
        return { kind: 'nonPrimitive', what: 'function' };
      default:
        return UNKNOWN;
    }
  }

  private memberKey(expr: TSESTree.MemberExpression, depth: number): string | null {
    if (!expr.computed) {
      return expr.property.type === AST_NODE_TYPES.Identifier ? expr.property.name : null;
    }
    const key = this.resolveValue(expr.property, depth + 1);
    return key.kind === 'known' && (typeof key.value === 'string' || typeof key.value === 'number')
      ? String(key.value)
      : null;
  }

  /** The object literal an expression evaluates to, `nullish` for null/undefined, or null when not resolvable. */
  resolveObject(node: Expression, depth: number): EstreeShape | 'nullish' | null {
    if (depth > MAX_DEPTH) return null;
    const expr = unwrapValueNode(node) as Expression;
    switch (expr.type) {
      case AST_NODE_TYPES.ObjectExpression:
        return this.shapeOf(expr);
      case AST_NODE_TYPES.Literal:
        return expr.value === null && !('regex' in expr && expr.regex) ? 'nullish' : null;
      case AST_NODE_TYPES.Identifier: {
        if (expr.name === 'undefined' && this.isGlobal(expr)) return 'nullish';
        const init = this.constInit(expr);
        return init ? this.resolveObject(init, depth + 1) : null;
      }
      case AST_NODE_TYPES.MemberExpression: {
        const key = this.memberKey(expr, depth);
        if (key === null) return null;
        const object = this.resolveObject(expr.object, depth + 1);
        if (!(object instanceof EstreeShape)) return null;
        const field = object.get(key);
        return field.state === 'set' ? this.resolveObject(field.valueNode as Expression, depth + 1) : null;
      }
      default:
        return null;
    }
  }
}

function isNode(value: unknown): value is TSESTree.Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** The outermost `as`/`satisfies`/`!`/type-assertion wrapper around a node (the node itself when unwrapped). */
function outermostWrapper(node: TSESTree.Node): TSESTree.Node {
  let current = node;
  while (
    current.parent &&
    (current.parent.type === AST_NODE_TYPES.TSAsExpression ||
      current.parent.type === AST_NODE_TYPES.TSSatisfiesExpression ||
      current.parent.type === AST_NODE_TYPES.TSNonNullExpression ||
      current.parent.type === AST_NODE_TYPES.TSTypeAssertion)
  ) {
    current = current.parent;
  }
  return current;
}

const QUERY_KEYS = new Set(['where', 'filter', 'query', 'match', '$match', 'selector']);
const QUERY_METHODS = new Set([
  'find', 'findOne', 'findFirst', 'findMany', 'findUnique', 'filter', 'where', 'count', 'countDocuments', 'exists',
  'some', 'every', 'reject', 'matches',
]);

/** Whether an object selects records rather than being one: a `where`-like value, or an argument of a lookup. */
function isQuery(node: TSESTree.Node): boolean {
  const parent = node.parent;
  if (parent?.type === AST_NODE_TYPES.Property && parent.value === node && !parent.computed) {
    const key = parent.key.type === AST_NODE_TYPES.Identifier ? parent.key.name : String((parent.key as TSESTree.Literal).value);
    return QUERY_KEYS.has(key);
  }
  if (parent?.type === AST_NODE_TYPES.CallExpression && parent.arguments.includes(node as TSESTree.CallExpressionArgument)) {
    const callee = parent.callee;
    const name =
      callee.type === AST_NODE_TYPES.Identifier
        ? callee.name
        : callee.type === AST_NODE_TYPES.MemberExpression && callee.property.type === AST_NODE_TYPES.Identifier
          ? callee.property.name
          : null;
    return name !== null && QUERY_METHODS.has(name);
  }
  return false;
}

/** Whether a node is the value of a `concurrency` property of an object literal (analysed through its definition). */
function isConcurrencyValue(node: TSESTree.Node): boolean {
  const parent = node.parent;
  return (
    parent?.type === AST_NODE_TYPES.Property &&
    parent.value === node &&
    !parent.computed &&
    ((parent.key.type === AST_NODE_TYPES.Identifier && parent.key.name === 'concurrency') ||
      (parent.key.type === AST_NODE_TYPES.Literal && parent.key.value === 'concurrency'))
  );
}

// ---------------------------------------------------------------------------------------------------------------
// JSON (@eslint/json; the structural subset of its Momoa nodes that this module reads)
// ---------------------------------------------------------------------------------------------------------------

interface JsonNode extends SourceNode {
  readonly range: readonly [number, number];
}
interface JsonDocument extends JsonNode {
  readonly type: 'Document';
  readonly body: JsonValue;
}
interface JsonObject extends JsonNode {
  readonly type: 'Object';
  readonly members: readonly JsonMember[];
}
interface JsonMember extends JsonNode {
  readonly type: 'Member';
  readonly name: JsonNode & ({ type: 'String'; value: string } | { type: 'Identifier'; name: string });
  readonly value: JsonValue;
}
interface JsonArray extends JsonNode {
  readonly type: 'Array';
  readonly elements: readonly (JsonNode & { readonly type: 'Element'; readonly value: JsonValue })[];
}
type JsonValue =
  | JsonObject
  | JsonArray
  | (JsonNode & { readonly type: 'String'; readonly value: string })
  | (JsonNode & { readonly type: 'Number'; readonly value: number })
  | (JsonNode & { readonly type: 'Boolean'; readonly value: boolean })
  | (JsonNode & { readonly type: 'Null' })
  | (JsonNode & { readonly type: 'NaN' | 'Infinity'; readonly sign: '+' | '-' | '' });

function jsonValue(node: JsonValue): FieldValue {
  switch (node.type) {
    case 'Object':
      return { kind: 'nonPrimitive', what: 'object' };
    case 'Array':
      return { kind: 'nonPrimitive', what: 'array' };
    case 'Null':
      return { kind: 'known', value: null };
    case 'NaN':
      return { kind: 'known', value: NaN };
    case 'Infinity':
      return { kind: 'known', value: node.sign === '-' ? -Infinity : Infinity };
    default:
      return { kind: 'known', value: node.value };
  }
}

class JsonShape implements ObjectShape {
  readonly open = false;
  private readonly fields = new Map<string, SetField & { readonly member: JsonMember }>();

  constructor(readonly node: JsonObject) {
    // Later duplicates win, as with JSON.parse.
    for (const member of node.members) {
      const key = member.name.type === 'String' ? member.name.value : member.name.name;
      this.fields.set(key, { state: 'set', value: jsonValue(member.value), property: member, valueNode: member.value, via: null, member });
    }
  }

  get(key: string): Field {
    return this.fields.get(key) ?? ABSENT;
  }

  object(key: string): ObjectShape | null {
    const field = this.fields.get(key);
    return field?.member.value.type === 'Object' ? new JsonShape(field.member.value) : null;
  }
}

function jsonRecords(document: JsonDocument): DefinitionRecord[] {
  const records: DefinitionRecord[] = [];
  const visit = (node: JsonValue, inConcurrency: boolean): void => {
    if (node.type === 'Object') {
      if (!inConcurrency) {
        const record = classify('json', new JsonShape(node), () => true);
        if (record) records.push(record);
      }
      for (const member of node.members) {
        const key = member.name.type === 'String' ? member.name.value : member.name.name;
        visit(member.value, key === 'concurrency');
      }
    } else if (node.type === 'Array') {
      for (const element of node.elements) visit(element.value, false);
    }
  };
  visit(document.body, false);
  return records;
}
