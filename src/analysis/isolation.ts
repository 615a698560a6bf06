// Whether a child process gets a per-call working directory, HOME and TMPDIR, and which functions start one: a summary
// per function (memoised), so a handler's call to a project wrapper in another file (`execFileSyncSafe(cmd, args,
// { env })`, `cli.spawnCommand(args)`) is judged by what the wrapper does with the options it is given.
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { append, isFunction, staticString, unwrap, type FunctionNode, type Node } from './ast.js';
import type { ModuleModel } from './model.js';
import type { Variable } from './module.js';
import type { ModuleNames } from './processes.js';
import { moduleRef, objectLiteralOf, processCallOf, type ProcessCall } from './processes.js';
import { getPathAnalysis, isPerCall, type PathAnalysis } from './paths.js';
import { cachedPer } from './cache.js';

/** One option of a process call, with the module it is written in (values are traced there). */
export interface OptionValue {
  node: Node;
  analysis: PathAnalysis;
  /** The call the value is used at, in its own module. */
  at: Node;
}

/** The options a child process gets, as far as the code shows. */
export interface ProcessOptionsView {
  props: Map<string, OptionValue>;
  /** Some of them come from an object the code does not show (a spread of something unknown). */
  opaque: boolean;
}

/** What a child process misses: `no \`cwd\``, `no \`env\` (…)`, `an \`env\` without \`HOME\``. Empty when isolated. */
export function missingIsolation(view: ProcessOptionsView): string[] {
  const missing: string[] = [];
  if (!view.props.get('cwd') && !view.opaque) missing.push('no `cwd`');
  const env = view.props.get('env');
  if (!env) {
    if (!view.opaque) missing.push("no `env` (it inherits the server's HOME and TMPDIR)");
    return missing;
  }
  const e = env.analysis.envOf(env.node, env.at);
  if (e.inherits && e.keys.size === 0 && !e.literal) {
    missing.push("`env: process.env` (the server's HOME and TMPDIR)");
  } else if (!e.opaque || e.inherits) {
    const absent = ['HOME', 'TMPDIR'].filter((k) => !e.keys.has(k));
    // A value every caller shares (a start-up mkdtemp is reported where it is made, by no-shared-scratch-dir).
    const shared = ['HOME', 'TMPDIR'].filter((k) => {
      if (!e.keys.has(k)) return false;
      const t = env.analysis.trace(e.keys.get(k)!, env.at);
      return !isPerCall(t) && !t.tags.has('unknown') && !t.tags.has('random-startup');
    });
    if (absent.length) missing.push(`an \`env\` without ${absent.map((k) => `\`${k}\``).join(' and ')}`);
    if (shared.length) missing.push(`${shared.map((k) => `\`${k}\``).join(' and ')} set to a value every caller shares`);
  }
  return missing;
}

/** The options view of an options expression of one module (null: nothing passed; undefined: not shown). */
export function optionsView(analysis: PathAnalysis, expr: Node | null, at: Node): ProcessOptionsView | undefined {
  const props = new Map<string, OptionValue>();
  if (!expr) return { props, opaque: false };
  const lit = objectLiteralOf(analysis.model.facts, expr);
  if (!lit) return undefined;
  let opaque = false;
  for (const prop of lit.properties) {
    if (prop.type === AST_NODE_TYPES.SpreadElement) {
      const inner = optionsView(analysis, prop.argument, at);
      if (!inner) opaque = true;
      else {
        inner.props.forEach((v, k) => props.set(k, v));
        opaque ||= inner.opaque;
      }
      continue;
    }
    const key = prop.computed ? staticString(prop.key) : prop.key.type === AST_NODE_TYPES.Identifier ? prop.key.name : staticString(prop.key);
    if (key) props.set(key, { node: prop.value, analysis, at });
  }
  return { props, opaque };
}

/** Where a process is started, for reports: `spawn` at `src/cli.ts:94`. */
export interface ProcessSite {
  name: string;
  fileName: string;
  line: number;
}

/**
 * What calling a function does about child processes: each process it starts (directly or through the functions it
 * calls), with the options it gets. `fromParam`: the options are the caller's argument at that index (with `layer`,
 * the wrapper's own options, on top); otherwise `fixed` says what the process misses whatever the caller passes.
 */
export interface ProcessEffect {
  site: ProcessSite;
  fromParam: number | null;
  layer: ProcessOptionsView;
  fixed: string[] | null;
  /** The function hands the child process back to its caller (`return spawn(…)`): the caller starts and drives it. */
  returnsProcess: boolean;
}

/** How deep wrapper chains are followed (a wrapper that calls a wrapper that spawns). */
const MAX_WRAPPER_DEPTH = 4;
/** Process effects kept per function: a report names the first; more only cost time. */
const MAX_EFFECTS = 4;

/** Per module model (so per program: a summary never outlives the program its callees were resolved in), per options. */
const summaries = new WeakMap<ModuleModel, Map<string, Map<FunctionNode, ProcessEffect[]>>>();

/**
 * The process effects of calling `fn` (a function of `model`'s module), memoised per function and module options.
 * Cross-module callees come from `model.calleesOf`, which finds them only with whole-server analysis: without type
 * information a summary covers the module's own functions only.
 */
export function processEffectsOf(fn: FunctionNode, model: ModuleModel, modules: ModuleNames, stack: FunctionNode[] = []): ProcessEffect[] {
  const per = cachedPer(summaries, model, JSON.stringify(modules), () => new Map<FunctionNode, ProcessEffect[]>());
  const known = per.get(fn);
  if (known) return known;
  if (stack.includes(fn) || stack.length >= MAX_WRAPPER_DEPTH) return [];
  const out = computeEffects(fn, model, modules, [...stack, fn]);
  // A summary cut short by the depth limit is only final at the top of a chain.
  if (stack.length === 0 || out.length > 0) per.set(fn, out);
  return out;
}

function computeEffects(fn: FunctionNode, model: ModuleModel, modules: ModuleNames, stack: FunctionNode[]): ProcessEffect[] {
  const facts = model.facts;
  const analysis = getPathAnalysis(model, { modules });
  const out: ProcessEffect[] = [];
  for (const call of callsWithin(model, fn)) {
    if (out.length >= MAX_EFFECTS) break;
    facts.budget.tick('process summaries');
    if (call.type !== AST_NODE_TYPES.CallExpression) continue;
    const pc = processCallOf(facts, call, modules);
    if (pc) {
      const e = effectOfProcessCall(analysis, pc, fn);
      if (e) out.push(e);
      continue;
    }
    for (const callee of model.calleesOf(call)) {
      if (callee.fn === fn) continue;
      for (const e of processEffectsOf(callee.fn, callee.model, modules, stack)) {
        const t = throughCall(analysis, e, call, fn);
        if (t && out.length < MAX_EFFECTS) out.push(t);
      }
    }
  }
  return out;
}

/** The calls `fn` makes when it runs: its own, and those of callbacks it defines inline (`new Promise((res) => …)`). */
function callsWithin(model: ModuleModel, fn: FunctionNode): (TSESTree.CallExpression | TSESTree.NewExpression)[] {
  const out: (TSESTree.CallExpression | TSESTree.NewExpression)[] = [];
  const queue: FunctionNode[] = [fn];
  for (let i = 0; i < queue.length && i < 50; i++) {
    append(out, (model.facts.callsByOwner.get(queue[i]) ?? []));
    for (const child of model.facts.childFunctions.get(queue[i]) ?? []) if (isCallbackArgument(child)) queue.push(child);
  }
  return out;
}

function isCallbackArgument(fn: FunctionNode): boolean {
  const p = fn.parent;
  return !!p && (p.type === AST_NODE_TYPES.CallExpression || p.type === AST_NODE_TYPES.NewExpression) && p.arguments.includes(fn as never);
}

/** The index of `fn`'s parameter that `expr` is, or -1. */
function paramIndexOf(model: ModuleModel, expr: Node, fn: FunctionNode): number {
  const u = unwrap(expr);
  if (u.type !== AST_NODE_TYPES.Identifier) return -1;
  const v = model.facts.variableOf(u) as Variable | null;
  const def = v?.defs[0];
  if (!def || def.type !== 'Parameter' || def.node !== fn) return -1;
  return fn.params.findIndex((p) => {
    const t = p.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p;
    return t.type === AST_NODE_TYPES.Identifier && t.name === u.name;
  });
}

function effectOfProcessCall(analysis: PathAnalysis, pc: ProcessCall, fn: FunctionNode): ProcessEffect | null {
  const model = analysis.model;
  const site: ProcessSite = { name: pc.name, fileName: model.facts.fileName, line: pc.call.loc.start.line };
  const empty: ProcessOptionsView = { props: new Map(), opaque: false };
  const returnsProcess = !/Sync$/.test(pc.name) && !moduleRef(model.facts, pc.call.callee)?.promisified && returnedFrom(model, pc.call, fn);
  if (!pc.options) return { site, fromParam: null, layer: empty, fixed: missingIsolation(empty), returnsProcess };
  const direct = paramIndexOf(model, pc.options, fn);
  if (direct >= 0) return { site, fromParam: direct, layer: empty, fixed: null, returnsProcess };
  const lit = unwrap(pc.options).type === AST_NODE_TYPES.ObjectExpression ? (unwrap(pc.options) as TSESTree.ObjectExpression) : null;
  // { ...options, stdio: 'pipe' }: the caller's options with the wrapper's on top.
  const spread = lit?.properties.find((p): p is TSESTree.SpreadElement => p.type === AST_NODE_TYPES.SpreadElement && paramIndexOf(model, p.argument, fn) >= 0);
  if (lit && spread) {
    const layer = optionsView(analysis, { ...lit, properties: lit.properties.filter((p) => p !== spread) } as TSESTree.ObjectExpression, pc.call);
    if (!layer) return null;
    return { site, fromParam: paramIndexOf(model, spread.argument, fn), layer, fixed: null, returnsProcess };
  }
  // Options the wrapper builds from its parameters in other ways are not followed.
  if (unwrap(pc.options).type === AST_NODE_TYPES.Identifier && model.facts.variableOf(unwrap(pc.options) as TSESTree.Identifier)?.defs[0]?.type === 'Parameter') return null;
  const view = optionsView(analysis, pc.options, pc.call);
  if (!view) return null;
  return { site, fromParam: null, layer: empty, fixed: missingIsolation(view), returnsProcess };
}

/** Is the value of `call` what `fn` returns (`return spawn(…)`, `const child = spawn(…); …; return child`)? */
function returnedFrom(model: ModuleModel, call: Node, fn: FunctionNode): boolean {
  let n: Node = call;
  while (n.parent && (n.parent.type === AST_NODE_TYPES.AwaitExpression || n.parent.type === AST_NODE_TYPES.TSAsExpression || n.parent.type === AST_NODE_TYPES.TSNonNullExpression)) n = n.parent;
  const p = n.parent;
  if (!p) return false;
  if (p === fn && fn.body === n) return true;
  if (p.type === AST_NODE_TYPES.ReturnStatement) return model.facts.ownerOf(p) === fn;
  if (p.type === AST_NODE_TYPES.VariableDeclarator && p.init === n && p.id.type === AST_NODE_TYPES.Identifier) {
    const v = model.facts.variableOf(p.id);
    return !!v && v.references.some((r) => r.identifier.parent?.type === AST_NODE_TYPES.ReturnStatement && model.facts.ownerOf(r.identifier) === fn);
  }
  return false;
}

/** An effect of a callee seen from a call to it in `fn`: the options argument resolved, or passed on from `fn`'s own parameter. */
function throughCall(analysis: PathAnalysis, e: ProcessEffect, call: TSESTree.CallExpression, fn: FunctionNode | null): ProcessEffect | null {
  const returnsProcess = e.returnsProcess && !!fn && returnedFrom(analysis.model, call, fn);
  if (e.fromParam === null) return { ...e, returnsProcess };
  const arg = call.arguments[e.fromParam];
  if (arg && arg.type === AST_NODE_TYPES.SpreadElement) return null;
  if (arg && fn) {
    const j = paramIndexOf(analysis.model, arg, fn);
    if (j >= 0) return { ...e, fromParam: j, returnsProcess };
  }
  const view = optionsView(analysis, arg ?? null, call);
  if (!view) return null;
  e.layer.props.forEach((v, k) => view.props.set(k, v));
  view.opaque ||= e.layer.opaque;
  return { site: e.site, fromParam: null, layer: { props: new Map(), opaque: false }, fixed: missingIsolation(view), returnsProcess };
}

/**
 * A child process a handler's call starts through a function of another module, reported at the call when the call
 * decides it: the options are this call's argument (`execFileSyncSafe(cmd, args, { env })`), or the function hands the
 * process back (`cli.spawnCommand(args)` returning `spawn(…)`). A wrapper that fixes the options and keeps the process
 * to itself is judged where it starts the process (that code is handler code too). Calls into this module's own
 * functions are judged where the process starts.
 */
export function wrapperProcessAt(
  analysis: PathAnalysis,
  call: TSESTree.CallExpression,
  modules: ModuleNames,
): { effect: ProcessEffect; missing: string[]; callee: FunctionNode; passesOptions: boolean } | null {
  const model = analysis.model;
  if (processCallOf(model.facts, call, modules)) return null;
  for (const callee of model.calleesOf(call)) {
    if (callee.model === model) continue;
    for (const e of processEffectsOf(callee.fn, callee.model, modules)) {
      if (e.fromParam === null && !e.returnsProcess) continue;
      const owner = model.facts.ownerOf(call);
      const t = throughCall(analysis, e, call, isFunction(owner) ? owner : null);
      if (!t || t.fixed === null || t.fixed.length === 0) continue;
      return { effect: t, missing: t.fixed, callee: callee.fn, passesOptions: e.fromParam !== null };
    }
  }
  return null;
}
