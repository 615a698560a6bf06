// Suggestion builders shared by the rules. Each returns null when the edit would not be local and safe to offer (the
// text it needs is not in reach, or a name would clash); rules then report without a suggestion. Never autofixes:
// moving state into the call changes behaviour, which the user chooses.
import { AST_NODE_TYPES, type TSESLint, type TSESTree } from '@typescript-eslint/utils';

type Node = TSESTree.Node;
type SourceCode = Readonly<TSESLint.SourceCode>;
type Scope = TSESLint.Scope.Scope;

/** The statement directly inside a block (or the program) that contains `node`. */
export function enclosingStatement(node: Node): TSESTree.Statement | null {
  let n: Node = node;
  while (n.parent) {
    const p: Node = n.parent;
    if (p.type === AST_NODE_TYPES.BlockStatement || p.type === AST_NODE_TYPES.Program) return n as TSESTree.Statement;
    if (isFunction(p)) return null; // an expression-bodied arrow: no statement to put a guard before
    n = p;
  }
  return null;
}

function isFunction(n: Node): n is TSESTree.FunctionDeclaration | TSESTree.FunctionExpression | TSESTree.ArrowFunctionExpression {
  return n.type === AST_NODE_TYPES.FunctionDeclaration || n.type === AST_NODE_TYPES.FunctionExpression || n.type === AST_NODE_TYPES.ArrowFunctionExpression;
}

/** The indentation of the line `node` starts on. */
export function indentOf(sourceCode: SourceCode, node: Node): string {
  const line = sourceCode.lines[node.loc.start.line - 1];
  return /^\s*/.exec(line)![0];
}

/** Whether `name` is free at `node`: declared in no scope from there outwards, and not an implicit global in use. */
export function isFreeName(sourceCode: SourceCode, node: Node, name: string): boolean {
  let scope: Scope | null = sourceCode.getScope(node);
  // Names declared in inner scopes of the enclosing function would be shadowed too: check the whole function scope.
  while (scope) {
    if (scope.set.has(name)) return false;
    if (scope.through.some((r) => r.identifier.name === name)) return false;
    scope = scope.upper;
  }
  return true;
}

/** `base`, `base2`, `base3`… the first name free at `node` (null after a few tries). */
export function freshName(sourceCode: SourceCode, node: Node, base: string): string | null {
  for (let i = 1; i <= 5; i++) {
    const name = i === 1 ? base : `${base}${i}`;
    if (isFreeName(sourceCode, node, name)) return name;
  }
  return null;
}

/** The local name of the `path` (or `node:path`) module's default/namespace import or require at `node`, if any. */
export function pathModuleName(sourceCode: SourceCode, node: Node): string | null {
  let scope: Scope | null = sourceCode.getScope(node);
  while (scope) {
    for (const v of scope.variables) {
      for (const def of v.defs) {
        if (def.type === 'ImportBinding') {
          const decl = def.parent as TSESTree.ImportDeclaration;
          const spec = def.node;
          if ((decl.source.value === 'path' || decl.source.value === 'node:path') && spec.type !== AST_NODE_TYPES.ImportSpecifier) return v.name;
        }
        if (def.type === 'Variable') {
          const init = (def.node as TSESTree.VariableDeclarator).init;
          if (
            init?.type === AST_NODE_TYPES.CallExpression &&
            init.callee.type === AST_NODE_TYPES.Identifier &&
            init.callee.name === 'require' &&
            init.arguments[0]?.type === AST_NODE_TYPES.Literal &&
            (init.arguments[0].value === 'path' || init.arguments[0].value === 'node:path') &&
            def.name.type === AST_NODE_TYPES.Identifier &&
            (def.node as TSESTree.VariableDeclarator).id === def.name
          ) {
            return v.name;
          }
        }
      }
    }
    scope = scope.upper;
  }
  return null;
}

/**
 * The containment guard for a path built from a tool argument, as text: `resolved` must be strictly below `root` (a
 * per-caller directory is never the shared root itself). `root` is resolved too, so a relative root or one with a
 * trailing separator still compares correctly, and the trailing separator keeps `/runs/ab` out of `/runs/a`.
 */
export function containmentGuard(pathName: string, resolved: string, rootText: string): string {
  const message = `${resolved} is outside ${rootText.replace(/\s+/g, ' ')}`.replace(/[\\']/g, '\\$&');
  return `if (!${resolved}.startsWith(${pathName}.resolve(${rootText}) + ${pathName}.sep)) throw new Error('${message}');`;
}

/**
 * Guard a path expression `P.join(root, …)` / `P.resolve(root, …)` used directly as an argument: resolve it into a
 * fresh variable before the statement, reject it unless it stays under `root`, and use the variable instead.
 */
export function guardPathCall(sourceCode: SourceCode, call: Node): { name: string; root: string; fix: TSESLint.ReportFixFunction } | null {
  if (call.type !== AST_NODE_TYPES.CallExpression || call.callee.type !== AST_NODE_TYPES.MemberExpression) return null;
  const { object, property } = call.callee;
  if (object.type !== AST_NODE_TYPES.Identifier || property.type !== AST_NODE_TYPES.Identifier || call.callee.computed) return null;
  if (property.name !== 'join' && property.name !== 'resolve') return null;
  const pathName = pathModuleName(sourceCode, call);
  if (pathName !== object.name) return null;
  if (call.arguments.length < 2 || call.arguments.some((a) => a.type === AST_NODE_TYPES.SpreadElement)) return null;
  const statement = enclosingStatement(call);
  if (!statement || statement.parent?.type !== AST_NODE_TYPES.BlockStatement) return null;
  const name = freshName(sourceCode, call, 'target');
  if (!name) return null;
  const root = sourceCode.getText(call.arguments[0]);
  const rest = call.arguments.slice(1).map((a) => sourceCode.getText(a)).join(', ');
  const indent = indentOf(sourceCode, statement);
  const text = `const ${name} = ${pathName}.resolve(${sourceCode.getText(call.arguments[0])}, ${rest});\n${indent}${containmentGuard(pathName, name, root)}\n${indent}`;
  return {
    name,
    root,
    fix: (fixer) => [fixer.insertTextBefore(statement, text), fixer.replaceText(call, name)],
  };
}

/**
 * Guard a variable declared as `const v = P.join(root, …)` (or resolve): resolve it in place and reject it after the
 * declaration unless it stays under `root`. Only for a `const` in a block, so the check sits before every use.
 */
export function guardPathVariable(sourceCode: SourceCode, id: TSESTree.Identifier): { name: string; root: string; fix: TSESLint.ReportFixFunction } | null {
  const variable = findVariable(sourceCode.getScope(id), id.name);
  const def = variable?.defs[0];
  if (!variable || variable.defs.length !== 1 || def?.type !== 'Variable') return null;
  const declarator = def.node as TSESTree.VariableDeclarator;
  const declaration = declarator.parent as TSESTree.VariableDeclaration;
  if (declaration.kind !== 'const' || declaration.declarations.length !== 1 || declaration.parent?.type !== AST_NODE_TYPES.BlockStatement) return null;
  const init = declarator.init;
  if (!init || init.type !== AST_NODE_TYPES.CallExpression || init.callee.type !== AST_NODE_TYPES.MemberExpression) return null;
  const { object, property } = init.callee;
  if (object.type !== AST_NODE_TYPES.Identifier || property.type !== AST_NODE_TYPES.Identifier || init.callee.computed) return null;
  if ((property.name !== 'join' && property.name !== 'resolve') || pathModuleName(sourceCode, init) !== object.name) return null;
  if (init.arguments.length < 2 || init.arguments.some((a) => a.type === AST_NODE_TYPES.SpreadElement)) return null;
  // Every use comes after the declaration statement (no use inside it, no closure declared before it).
  if (variable.references.some((r) => !r.init && r.identifier.range[0] < declaration.range[1])) return null;
  const root = sourceCode.getText(init.arguments[0]);
  const indent = indentOf(sourceCode, declaration);
  return {
    name: id.name,
    root,
    fix: (fixer) => [
      fixer.replaceText(property, 'resolve'),
      fixer.insertTextAfter(declaration, `\n${indent}${containmentGuard(object.name, id.name, root)}`),
    ],
  };
}

function findVariable(scope: Scope | null, name: string): TSESLint.Scope.Variable | null {
  while (scope) {
    const v = scope.set.get(name);
    if (v) return v;
    scope = scope.upper;
  }
  return null;
}

const FRESH_CONTAINER = /^(\[\]|\{\}|new (Map|Set|WeakMap|WeakSet)(<[^()]*>)?\(\))$/;

/**
 * Make a module-level container per call: when `const x = []` (or `{}`, `new Map()`, `new Set()`) at module level is
 * used only inside `fn` (one handler), move the declaration to the top of `fn`'s body. Then each call starts with its
 * own empty container, which is what a stateless server does. Null when anything else uses it.
 */
export function moveIntoFunction(sourceCode: SourceCode, declId: Node, fn: Node): TSESLint.ReportFixFunction | null {
  if (declId.type !== AST_NODE_TYPES.Identifier || !isFunction(fn) || fn.body.type !== AST_NODE_TYPES.BlockStatement) return null;
  const declarator = declId.parent;
  if (declarator?.type !== AST_NODE_TYPES.VariableDeclarator || declarator.id !== declId || !declarator.init) return null;
  const declaration = declarator.parent as TSESTree.VariableDeclaration;
  if (declaration.declarations.length !== 1 || declaration.parent?.type !== AST_NODE_TYPES.Program) return null;
  if (!FRESH_CONTAINER.test(sourceCode.getText(declarator.init).replace(/\s+/g, ''))) return null;
  const [variable] = sourceCode.getDeclaredVariables(declarator);
  if (!variable || variable.references.filter((r) => !r.init).length === 0) return null;
  const body = fn.body;
  for (const r of variable.references) {
    if (r.init) continue;
    // Every use is in `fn` itself, not in a function nested in it (a callback that outlives the call could keep it).
    const id = r.identifier;
    if (id.range[0] < body.range[0] || id.range[1] > body.range[1]) return null;
    for (let n: Node | undefined = id.parent; n && n !== fn; n = n.parent) if (isFunction(n)) return null;
  }
  // The name must not be shadowed or taken inside the function.
  if (!isFreeInside(sourceCode, body, declId.name)) return null;
  const first = body.body[0];
  const indent = first ? indentOf(sourceCode, first) : `${indentOf(sourceCode, fn)}  `;
  const text = sourceCode.getText(declaration);
  const lineStart = sourceCode.getIndexFromLoc({ line: declaration.loc.start.line, column: 0 });
  const next = sourceCode.text.indexOf('\n', declaration.range[1]);
  const removeTo = next < 0 ? declaration.range[1] : next + 1;
  const wholeLines = sourceCode.text.slice(lineStart, declaration.range[0]).trim() === '' && sourceCode.text.slice(declaration.range[1], removeTo).trim() === '';
  return (fixer) => [
    wholeLines ? fixer.removeRange([lineStart, removeTo]) : fixer.remove(declaration),
    first ? fixer.insertTextBefore(first, `${text}\n${indent}`) : fixer.insertTextAfterRange([body.range[0], body.range[0] + 1], `\n${indent}${text}`),
  ];
}

function isFreeInside(sourceCode: SourceCode, body: TSESTree.BlockStatement, name: string): boolean {
  const scope = sourceCode.getScope(body);
  const check = (s: Scope): boolean => !s.set.has(name) && s.childScopes.every(check);
  return check(scope);
}
