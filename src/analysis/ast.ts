import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { cachedFor } from './cache.js';

export type Node = TSESTree.Node;
export type Expression = TSESTree.Expression;
export type FunctionNode =
  | TSESTree.FunctionDeclaration
  | TSESTree.FunctionExpression
  | TSESTree.ArrowFunctionExpression;

/**
 * A lookup table keyed by names taken from the code: without a prototype, so `constructor`, `toString` or
 * `__proto__` in the linted code finds nothing (`name in TABLE`, `TABLE[name]` stay safe).
 */
export function nameTable<T>(entries: Record<string, T>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}

export function isFunction(node: Node | null | undefined): node is FunctionNode {
  if (!node) return false;
  // Three comparisons of interned strings: cheaper than a set lookup, and asked of most nodes the analysis visits.
  const type = node.type;
  return type === AST_NODE_TYPES.ArrowFunctionExpression || type === AST_NODE_TYPES.FunctionExpression || type === AST_NODE_TYPES.FunctionDeclaration;
}

/**
 * Append every item to `out`. `out.push(...items)` passes the items as call arguments, which overflows the stack once a
 * value set runs to the hundreds of thousands (a vendored 3.5 MB bundle's members resolved to 140,000 values).
 */
export function append<T>(out: T[], items: readonly T[]): void {
  for (let i = 0; i < items.length; i++) out.push(items[i]);
}

/** Strip what does not change a value: parentheses are gone already; `as`, `satisfies`, `!`, `<T>x`. */
export function unwrap(node: Node): Node {
  let n = node;
  for (;;) {
    switch (n.type) {
      case AST_NODE_TYPES.TSAsExpression:
      case AST_NODE_TYPES.TSSatisfiesExpression:
      case AST_NODE_TYPES.TSNonNullExpression:
      case AST_NODE_TYPES.TSTypeAssertion:
      case AST_NODE_TYPES.TSInstantiationExpression:
        n = n.expression;
        continue;
      case AST_NODE_TYPES.ChainExpression:
        n = n.expression;
        continue;
      case AST_NODE_TYPES.AwaitExpression:
        n = n.argument;
        continue;
      default:
        return n;
    }
  }
}

/** Walk up through wrappers that do not change which value a node stands for. */
export function outerOf(node: Node): Node {
  let n = node;
  while (n.parent) {
    const p = n.parent;
    if (
      (p.type === AST_NODE_TYPES.TSAsExpression ||
        p.type === AST_NODE_TYPES.TSSatisfiesExpression ||
        p.type === AST_NODE_TYPES.TSNonNullExpression ||
        p.type === AST_NODE_TYPES.TSTypeAssertion ||
        p.type === AST_NODE_TYPES.ChainExpression) &&
      p.expression === n
    ) {
      n = p;
      continue;
    }
    break;
  }
  return n;
}

/** The name of a non-computed member, or of a computed member with a literal key. */
export function memberName(node: TSESTree.MemberExpression): string | null {
  if (!node.computed) {
    return node.property.type === AST_NODE_TYPES.Identifier
      ? node.property.name
      : node.property.type === AST_NODE_TYPES.PrivateIdentifier
        ? `#${node.property.name}`
        : null;
  }
  return staticString(node.property);
}

/** A string known without running the code: literals and templates without expressions. */
export function staticString(node: Node | null | undefined): string | null {
  if (!node) return null;
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Literal && typeof n.value === 'string') return n.value;
  if (n.type === AST_NODE_TYPES.TemplateLiteral && n.expressions.length === 0) {
    return n.quasis.map((q) => q.value.cooked ?? q.value.raw).join('');
  }
  return null;
}

export function propertyKeyName(prop: TSESTree.Property | TSESTree.MethodDefinition | TSESTree.PropertyDefinition): string | null {
  if (!prop.computed) {
    const k = prop.key;
    if (k.type === AST_NODE_TYPES.Identifier) return k.name;
    if (k.type === AST_NODE_TYPES.PrivateIdentifier) return `#${k.name}`;
    if (k.type === AST_NODE_TYPES.Literal) return String(k.value);
    return null;
  }
  return staticString(prop.key);
}

/** The name a callee is called by: `foo` for `foo()`, `bar` for `a.b.bar()`. */
export function calleeName(callee: Node): string | null {
  const c = unwrap(callee);
  if (c.type === AST_NODE_TYPES.Identifier) return c.name;
  if (c.type === AST_NODE_TYPES.MemberExpression) return memberName(c);
  return null;
}

/** `a.b.c` as ['a','b','c'] when every step is static; `this` becomes 'this'. */
export function memberPath(node: Node): string[] | null {
  const out: string[] = [];
  let n: Node = unwrap(node);
  while (n.type === AST_NODE_TYPES.MemberExpression) {
    const name = memberName(n);
    if (name === null) return null;
    out.unshift(name);
    n = unwrap(n.object);
  }
  if (n.type === AST_NODE_TYPES.Identifier) out.unshift(n.name);
  else if (n.type === AST_NODE_TYPES.ThisExpression) out.unshift('this');
  else return null;
  return out;
}

/** The innermost function that contains `node` (not counting `node` itself). */
export function enclosingFunction(node: Node): FunctionNode | null {
  let n = node.parent;
  while (n) {
    if (isFunction(n)) return n;
    n = n.parent;
  }
  return null;
}

/** The class a method or field belongs to, if `fn` is a class member's value. */
export function classOfMethod(fn: Node): TSESTree.ClassDeclaration | TSESTree.ClassExpression | null {
  const p = fn.parent;
  if (p && (p.type === AST_NODE_TYPES.MethodDefinition || p.type === AST_NODE_TYPES.PropertyDefinition)) {
    const body = p.parent;
    const cls = body?.parent;
    if (cls && (cls.type === AST_NODE_TYPES.ClassDeclaration || cls.type === AST_NODE_TYPES.ClassExpression)) return cls;
  }
  return null;
}

export function isInside(node: Node, container: Node): boolean {
  return node.range[0] >= container.range[0] && node.range[1] <= container.range[1];
}

export function functionDisplayName(fn: FunctionNode): string | null {
  if (fn.type === AST_NODE_TYPES.FunctionDeclaration || fn.type === AST_NODE_TYPES.FunctionExpression) {
    if (fn.id) return fn.id.name;
  }
  const p = fn.parent;
  if (!p) return null;
  if (p.type === AST_NODE_TYPES.VariableDeclarator && p.id.type === AST_NODE_TYPES.Identifier) return p.id.name;
  if (p.type === AST_NODE_TYPES.MethodDefinition || p.type === AST_NODE_TYPES.Property || p.type === AST_NODE_TYPES.PropertyDefinition) {
    return propertyKeyName(p);
  }
  if (p.type === AST_NODE_TYPES.AssignmentExpression) {
    const path = memberPath(p.left);
    return path ? path[path.length - 1] : null;
  }
  return null;
}

/** Keys that hold only TypeScript types (annotations, type arguments, `implements`): no code runs there. */
const TYPE_KEYS = new Set(['typeAnnotation', 'returnType', 'typeParameters', 'typeArguments', 'superTypeArguments', 'superTypeParameters', 'implements']);
/** Declarations that are types only. */
const TYPE_ONLY_NODES = new Set(['TSInterfaceDeclaration', 'TSTypeAliasDeclaration', 'TSDeclareFunction']);
const runtimeKeyTables = new WeakMap<object, Readonly<Record<string, readonly string[] | undefined>>>();

/**
 * The parser's visitor keys without the ones that lead only into types: the walks that index code (calls, functions,
 * assignments…) skip annotations, interfaces and type aliases, a large share of a TypeScript file's nodes.
 */
export function runtimeVisitorKeys(visitorKeys: Readonly<Record<string, readonly string[] | undefined>>): Readonly<Record<string, readonly string[] | undefined>> {
  return cachedFor(runtimeKeyTables, visitorKeys, () => {
    const out: Record<string, readonly string[]> = Object.create(null);
    for (const type of Object.keys(visitorKeys)) out[type] = TYPE_ONLY_NODES.has(type) ? [] : (visitorKeys[type] ?? []).filter((k) => !TYPE_KEYS.has(k));
    return out;
  });
}

/**
 * Iterative pre-order walk over every node, with the parser's visitor keys. Never recursive: a pathological file with
 * thousands of nested levels must not overflow the stack.
 */
export function walk(root: Node, visitorKeys: Readonly<Record<string, readonly string[] | undefined>>, visit: (node: Node) => void): void {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    visit(node);
    const keys = visitorKeys[node.type];
    if (!keys) continue;
    for (let i = keys.length - 1; i >= 0; i--) {
      const child = (node as unknown as Record<string, unknown>)[keys[i]];
      if (!child) continue;
      if (Array.isArray(child)) {
        for (let j = child.length - 1; j >= 0; j--) {
          const c = child[j] as Node | null;
          if (c && typeof c.type === 'string') stack.push(c);
        }
      } else if (typeof (child as Node).type === 'string') {
        stack.push(child as Node);
      }
    }
  }
}

/**
 * The property key a destructuring pattern binds `local` from (`{ dir: d }` → `dir` for `d`), or null. With `nested`,
 * the innermost key of a nested pattern (`{ a: { b } }` → `b`).
 */
export function destructuredKeyOf(pattern: Node, local: string, nested = false): string | null {
  if (pattern.type !== AST_NODE_TYPES.ObjectPattern) return null;
  for (const p of pattern.properties) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const value = p.value.type === AST_NODE_TYPES.AssignmentPattern ? p.value.left : p.value;
    if (value.type === AST_NODE_TYPES.Identifier && value.name === local) return propertyKeyName(p);
    if (nested && value.type === AST_NODE_TYPES.ObjectPattern) {
      const inner = destructuredKeyOf(value, local, true);
      if (inner !== null) return inner;
    }
  }
  return null;
}

/** Does a parameter (plain, defaulted or destructured) bind `name`? */
export function paramBinds(p: Node, name: string): boolean {
  const t = p.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p;
  if (t.type === AST_NODE_TYPES.Identifier) return t.name === name;
  if (t.type === AST_NODE_TYPES.ObjectPattern) return destructuredKeyOf(t, name) !== null;
  return false;
}
