import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { isFunction, memberName, staticString, unwrap, type Node } from './ast.js';
import { routedLabel } from './dispatch.js';
import type { ModuleModel } from './model.js';
import { getPathAnalysis } from './paths.js';
import { objectLiteralOf, optionProperty, type FsCall, type ModuleNames } from './processes.js';

export { DEFAULT_TEARDOWN_PATTERN } from '../vocabulary.js';

export interface TeardownFacts {
  /** Tools that touch the filesystem at paths derived from the caller's scope argument, with the first such call. */
  scopedTools: Map<string, Node>;
  /** Names of tools that match the teardown pattern. */
  teardownTools: string[];
  /** Removal calls in teardown tools that fail when the data is already gone. */
  notIdempotent: FsCall[];
  /** Where a missing-teardown report goes. */
  anchor: Node | null;
}

function toolNameOf(model: ModuleModel, node: Node): string | null {
  const h = model.handlerOf(node);
  if (!h || h.registration.kind !== 'tool') return null;
  return h.routedName ?? h.registration.name ?? routedLabel(node);
}

/** The names of the tools a module serves: registered names, routed dispatcher cases, `case` labels in handler code. */
export function toolNames(model: ModuleModel): string[] {
  const names = new Set<string>();
  for (const r of model.registrations) if (r.kind === 'tool' && r.name) names.add(r.name);
  for (const [, r] of model.crossRoots) if (r.kind === 'tool' && r.name && r.inputParam !== null) names.add(r.name);
  for (const h of model.reached.values()) if (h.registration.kind === 'tool' && h.routedName) names.add(h.routedName);
  for (const sw of model.facts.switches) {
    if (!model.isHandlerCode(sw)) continue;
    for (const c of sw.cases) {
      const s = c.test ? staticString(c.test) : null;
      if (s) names.add(s);
    }
  }
  return [...names];
}

/** Which tools take the scope and touch files, which tools tear a scope down, and whether that teardown is idempotent. */
export function teardownFacts(model: ModuleModel, pattern: RegExp, modules: ModuleNames): TeardownFacts {
  const analysis = getPathAnalysis(model, { modules });
  const scopedTools = new Map<string, Node>();
  const teardownTools = toolNames(model).filter((n) => pattern.test(n));
  const sinks: { node: Node; at: Node }[] = [];
  for (const f of analysis.fsCalls) for (const { arg } of analysis.pathArgs(f)) sinks.push({ node: arg, at: f.call });
  for (const p of analysis.processCalls) {
    const cwd = analysis.processOptions(p).props.get('cwd');
    if (cwd) sinks.push({ node: cwd, at: p.call });
  }
  for (const s of sinks) {
    const name = toolNameOf(model, s.at);
    if (!name || pattern.test(name) || scopedTools.has(name)) continue;
    if (analysis.trace(s.node, s.at).tags.has('scope')) scopedTools.set(name, s.at);
  }
  const notIdempotent: FsCall[] = [];
  for (const f of analysis.fsCalls) {
    if (f.effect !== 'remove' || !model.isHandlerCode(f.call)) continue;
    const name = toolNameOf(model, f.call);
    if (!name || !pattern.test(name)) continue;
    if (!idempotentRemoval(model, f)) notIdempotent.push(f);
  }
  const anchor = model.discovery.serverConstructions[0] ?? model.registrations[0]?.site ?? null;
  return { scopedTools, teardownTools, notIdempotent, anchor };
}

/** `rm(dir, { recursive: true, force: true })`, fs-extra `remove`, or a removal whose ENOENT is tolerated. */
function idempotentRemoval(model: ModuleModel, f: FsCall): boolean {
  const method = f.method.replace(/Sync$/, '');
  if (method === 'remove' || method === 'emptyDir' || method === 'emptydir') return true;
  if (method === 'rm') {
    const opts = f.call.arguments[1] ? objectLiteralOf(model.facts, f.call.arguments[1]) : null;
    const force = opts ? optionProperty(opts, 'force') : null;
    if (force && unwrap(force.value).type === AST_NODE_TYPES.Literal && (unwrap(force.value) as TSESTree.Literal).value === true) return true;
  }
  for (let n: Node | undefined = f.call, child: Node = f.call; n; child = n, n = n.parent) {
    if (n.type === AST_NODE_TYPES.TryStatement && n.block === child && n.handler && toleratesMissing(n.handler.body)) return true;
    if (n.type === AST_NODE_TYPES.IfStatement && n.consequent === child && /exists|pathExists|access/.test(textOfCalls(n.test))) return true;
    if (n.type === AST_NODE_TYPES.MemberExpression && n.object === child && memberName(n) === 'catch') {
      const cb = n.parent?.type === AST_NODE_TYPES.CallExpression ? n.parent.arguments[0] : null;
      if (cb && (isFunction(cb) ? toleratesMissing(cb.body) : true)) return true;
    }
    if (isFunction(n)) break;
  }
  return false;
}

function toleratesMissing(body: Node): boolean {
  let mentionsEnoent = false;
  let rethrows = false;
  const stack: Node[] = [body];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === AST_NODE_TYPES.Literal && n.value === 'ENOENT') mentionsEnoent = true;
    if (n.type === AST_NODE_TYPES.ThrowStatement) rethrows = true;
    for (const key of Object.keys(n)) {
      if (key === 'parent') continue;
      const c = (n as unknown as Record<string, unknown>)[key];
      if (Array.isArray(c)) for (const x of c) if (x && typeof (x as Node).type === 'string') stack.push(x as Node);
      if (c && typeof (c as Node).type === 'string' && key !== 'parent') stack.push(c as Node);
    }
  }
  return mentionsEnoent || !rethrows;
}

function textOfCalls(n: Node): string {
  const u = unwrap(n);
  if (u.type === AST_NODE_TYPES.CallExpression) {
    const c = unwrap(u.callee);
    return c.type === AST_NODE_TYPES.Identifier ? c.name : c.type === AST_NODE_TYPES.MemberExpression ? (memberName(c) ?? '') : '';
  }
  if (u.type === AST_NODE_TYPES.LogicalExpression) return `${textOfCalls(u.left)} ${textOfCalls(u.right)}`;
  return '';
}