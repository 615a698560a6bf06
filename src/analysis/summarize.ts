// One module's part of the server summary (src/summary.ts): its tools, the long-lived state each touches, the files and
// processes each uses. Plain data; the report joins the parts of every linted file and adds the lint's findings.
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import path from 'node:path';
import type { FileTouch, ProcessTouch, StateTouch, SummaryHandlerKind, SummaryLocation } from '../summary.js';
import { functionDisplayName, memberName, walk, type FunctionNode, type Node } from './ast.js';
import type { Registration } from './discovery.js';
import type { HandlerRef, ModuleModel } from './model.js';
import { getPathAnalysis, isFixed, isPerCall, pathKey, quote, type Trace } from './paths.js';
import { accessTarget, changePhrase, type StateAccess, type StateBinding } from './state.js';
import { storeUses } from './stores.js';
import { teardownFacts } from './teardown.js';
import { DEFAULT_TEARDOWN_PATTERN } from '../vocabulary.js';

/** One tool as one module sees it (the report merges the parts of a tool found in several modules). */
export interface ToolPart {
  /** Merge key: kind and name, or the registration's place when the name is not known. */
  key: string;
  name: string | null;
  kind: SummaryHandlerKind;
  via: string;
  at: SummaryLocation;
  registeredAt: SummaryLocation;
  crossFile: boolean;
  scopeArguments: string[];
  state: StateTouch[];
  files: FileTouch[];
  processes: ProcessTouch[];
}

export interface StatePart extends SummaryLocation {
  id: string;
  name: string;
  scope: 'module' | 'instance' | 'import' | 'file' | 'process';
}

export interface ModuleSummary {
  tools: ToolPart[];
  state: StatePart[];
  /** Where each tool's code is, to attribute the lint's findings to tools: 1-based lines, 1-based columns. */
  spans: { start: SummaryLocation; end: { line: number; column: number }; tools: string[] }[];
  teardownTools: string[];
}

const READ_KINDS = new Set(['read']);
const WRITE_KINDS = new Set(['mutate', 'entryWrite', 'fieldWrite', 'assign', 'accumulate', 'lazyInit']);

/**
 * Summarise one module for the server summary. `file` is the module's path relative to the summary's root (forward
 * slashes); `text` its source (to quote paths).
 */
export function summarizeModule(model: ModuleModel, file: string, text: string): ModuleSummary {
  const at = (n: Node): SummaryLocation => ({ file, line: n.loc.start.line, column: n.loc.start.column + 1 });
  const tools = new Map<string, ToolPart>();
  const keyOf = (h: HandlerRef): string => {
    const r = h.registration;
    const name = h.routedName ?? r.name;
    return name !== null ? `${r.kind}\u0000${name}` : `${r.kind}\u0000@${file}:${r.site.loc.start.line}:${r.site.loc.start.column + 1}`;
  };
  const toolOf = (h: HandlerRef, fn: FunctionNode | null): ToolPart => {
    const key = keyOf(h);
    let t = tools.get(key);
    if (!t) {
      const r = h.registration;
      t = {
        key,
        name: h.routedName ?? r.name,
        kind: r.kind,
        via: h.routedName !== null && r.name === null ? `${r.via} (case '${h.routedName}')` : r.via,
        at: at(fn ?? r.handler),
        registeredAt: at(r.site),
        crossFile: r.external === true,
        scopeArguments: scopeArgumentsOf(model, r),
        state: [],
        files: [],
        processes: [],
      };
      tools.set(key, t);
    }
    return t;
  };
  const spans: ModuleSummary['spans'] = [];
  for (const [fn, h] of model.reached) {
    const t = toolOf(h, model.discovery.handlerRegistration(fn) || model.crossRoots.some(([f]) => f === fn) || h.routedName !== null ? fn : null);
    // A helper several tools share is each tool's.
    const keys = [t.key];
    for (const other of model.handlersReaching(fn)) {
      const o = toolOf(other, null);
      if (!keys.includes(o.key)) keys.push(o.key);
    }
    spans.push({ start: at(fn), end: { line: fn.loc.end.line, column: fn.loc.end.column + 1 }, tools: keys });
  }
  // Direct handlers first place the tool at the handler itself, not at the first function reached.
  for (const r of model.registrations) {
    const t = tools.get(keyOf({ registration: r, routedName: null }));
    if (t) t.at = at(r.handler);
  }

  const state = new Map<string, StatePart>();
  // Each touch is credited to every tool whose call runs it (a shared helper's write is every caller's write).
  const eachTool = (node: Node): ToolPart[] => [...new Set(model.handlersOf(node).map((h) => toolOf(h, null)))];
  for (const a of model.stateAccesses()) {
    const access = READ_KINDS.has(a.kind) ? 'read' : WRITE_KINDS.has(a.kind) ? 'write' : null;
    if (!access) continue;
    const tools = eachTool(a.node);
    if (tools.length === 0) continue;
    const entry = stateEntry(model, a.binding, file, at);
    if (!state.has(entry.id)) state.set(entry.id, entry);
    for (const t of tools) t.state.push({ ...at(a.node), state: entry.id, access, what: phrase(a) });
  }

  const analysis = getPathAnalysis(model);
  const textOf = (n: Node) => text.slice(n.range[0], n.range[1]);
  for (const f of analysis.fsCalls) {
    const tools = eachTool(f.call);
    if (tools.length === 0) continue;
    for (const { arg, effect } of analysis.pathArgs(f)) {
      const t = analysis.trace(arg, f.call);
      const origin = originOf(t);
      const touch: FileTouch = { ...at(f.call), effect, api: f.method, target: quote(textOf(arg)), origin };
      if (origin === 'fixed') {
        const id = `file:${pathKey(model, arg, textOf)}`;
        touch.state = id;
        if (!state.has(id)) state.set(id, { id, name: quote(textOf(arg)), scope: 'file', ...at(arg) });
      }
      for (const t of tools) t.files.push({ ...touch });
    }
  }
  // A database or JSON-file store: each use in handler code reads or writes the file it was opened at.
  for (const s of analysis.storeOpens) {
    const uses = storeUses(model, s.open);
    if (!uses) continue;
    const t = analysis.trace(s.path, s.open);
    const origin = originOf(t);
    const id = origin === 'fixed' ? `file:${pathKey(model, s.path, textOf)}` : undefined;
    if (id && !state.has(id)) state.set(id, { id, name: quote(textOf(s.path)), scope: 'file', ...at(s.path) });
    for (const u of uses.uses) {
      const touch: FileTouch = { ...at(u.node), effect: u.effect, api: 'database', target: quote(textOf(s.path)), origin };
      if (id) touch.state = id;
      for (const tool of eachTool(u.node)) tool.files.push({ ...touch });
    }
  }
  for (const p of analysis.processCalls) {
    const tools = eachTool(p.call);
    if (tools.length === 0) continue;
    const opts = analysis.processOptions(p);
    const env = opts.props.get('env');
    const keys = env ? analysis.envOf(env, p.call).keys : new Map<string, Node>();
    for (const t of tools) t.processes.push({ ...at(p.call), api: p.name, cwd: opts.props.has('cwd'), home: keys.has('HOME'), tmpdir: keys.has('TMPDIR') });
  }

  let teardownTools: string[] = [];
  if (model.reached.size > 0) teardownTools = teardownFacts(model, new RegExp(DEFAULT_TEARDOWN_PATTERN, 'i'), { fs: [], process: [] }).teardownTools;
  return { tools: [...tools.values()], state: [...state.values()], spans, teardownTools };
}

function originOf(t: Trace): FileTouch['origin'] {
  if (t.tags.has('scope')) return 'scoped';
  if (t.tags.has('random-call')) return 'random';
  if (t.rawInput || t.tags.has('input')) return 'input';
  if (isFixed(t)) return 'fixed';
  return isPerCall(t) ? 'input' : 'unknown';
}

/** The summary's id and place for a binding: stable across the modules that share it. */
function stateEntry(model: ModuleModel, b: StateBinding, file: string, at: (n: Node) => SummaryLocation): StatePart {
  const stem = file.replace(/\.[cm]?[jt]sx?$/, '').replace(/\/index$/, '');
  if (b.scope === 'import') {
    const imp = model.facts.imports.get(b.name);
    const source = imp ? path.posix.normalize(path.posix.join(path.posix.dirname(file), imp.source)).replace(/\.[cm]?[jt]sx?$/, '').replace(/\/index$/, '') : stem;
    return { id: `module:${source}#${imp && imp.imported !== 'default' && imp.imported !== '*' ? imp.imported : b.name}`, name: b.name, scope: 'import', ...at(b.decl) };
  }
  if (b.className) return { id: `${b.scope}:${stem}#${b.className}.${b.name.replace(/^this\./, '')}`, name: b.name, scope: b.scope === 'module' ? 'module' : 'instance', ...at(b.decl) };
  if (b.scope === 'instance') {
    const factory = b.factory ? (functionDisplayName(b.factory) ?? `line${b.factory.loc.start.line}`) : 'instance';
    return { id: `instance:${stem}#${factory}.${b.name}`, name: b.name, scope: 'instance', ...at(b.decl) };
  }
  return { id: `module:${stem}#${b.name}`, name: b.name, scope: 'module', ...at(b.decl) };
}

function phrase(a: StateAccess): string {
  const target = accessTarget(a);
  const change = changePhrase(a, target);
  if (change) return change;
  switch (a.kind) {
    case 'lazyInit':
      return `fills ${target} on first use`;
    case 'assign':
    case 'fieldWrite':
      return `assigns ${target}`;
    default:
      return `reads ${target}`;
  }
}

/** The scope arguments a handler reads: destructured parameters and `args.workspace`-style members. */
function scopeArgumentsOf(model: ModuleModel, r: Registration): string[] {
  const names = model.settings.scopeArguments;
  const out = new Set<string>();
  const fn = r.handler;
  const input = r.inputParam !== null ? fn.params[r.inputParam] : undefined;
  const visit = (n: Node) => {
    if (n.type === AST_NODE_TYPES.Property && n.parent?.type === AST_NODE_TYPES.ObjectPattern && n.key.type === AST_NODE_TYPES.Identifier && names.includes(n.key.name)) out.add(n.key.name);
    if (n.type === AST_NODE_TYPES.MemberExpression) {
      const m = memberName(n);
      if (m !== null && names.includes(m) && model.origins.has(n.object, 'input')) out.add(m);
    }
  };
  if (input) walk(input as TSESTree.Node, model.facts.visitorKeys, visit);
  walk(fn.body, model.facts.visitorKeys, visit);
  return [...out].sort();
}
