import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { memberName, nameTable, propertyKeyName, staticString, unwrap, type Node } from './ast.js';
import { cachedFor } from './cache.js';
import type { ModuleFacts, Variable } from './module.js';
import { resolveValues } from './resolve.js';

/**
 * Which library a value is, as far as the module shows: `fs`, `child_process`, `path`, `os`, `crypto`, `util`, `uuid`.
 * Recognised in every form servers use: default, namespace and named imports (with or without `node:`), `require`,
 * destructured `require`, `fs.promises`, `require('fs').promises`, `promisify(exec)`. A local that merely has the
 * module's name (`const path = args.path`) is not the module.
 */
export type KnownModule = 'fs' | 'child_process' | 'execa' | 'path' | 'os' | 'crypto' | 'util' | 'uuid';

export interface ModuleRef {
  module: KnownModule;
  /** Member path below the module (`['promises', 'writeFile']` for `fs.promises.writeFile`), `promises` removed. */
  path: string[];
  /** The value went through `util.promisify`. */
  promisified?: boolean;
}

export interface ModuleNames {
  /** Extra module specifiers that behave like `fs` (fs-extra style). */
  fs: string[];
  /** Extra module specifiers whose exports spawn processes like `child_process`. */
  process: string[];
}

export const NO_EXTRA_MODULES: ModuleNames = { fs: [], process: [] };

const FS_SOURCES = new Set(['fs', 'fs/promises', 'fs-extra', 'graceful-fs', 'mz/fs', 'fs-extra/esm', 'original-fs']);
/**
 * Modules whose exports start processes the way `child_process` does: `spawn(file, args, options)` and friends, a
 * default export that is `spawn` (cross-spawn, @npmcli/promise-spawn, nano-spawn, @expo/spawn-async), pseudo-terminals
 * (`pty.spawn(shell, args, { cwd, env })`), and shelljs' `exec(command, options)`.
 */
const PROCESS_SOURCES = new Set([
  'child_process', 'cross-spawn', 'spawn-rx', 'child-process-promise', 'promisify-child-process', '@npmcli/promise-spawn', 'nano-spawn', '@expo/spawn-async', 'shelljs',
  'node-pty', '@lydell/node-pty', 'node-pty-prebuilt-multiarch', '@homebridge/node-pty-prebuilt-multiarch', '@cdktf/node-pty-prebuilt-multiarch',
]);
const PATH_SOURCES = new Set(['path', 'path/posix', 'path/win32', 'upath', 'pathe']);

export function classifySource(source: string, extra: ModuleNames = NO_EXTRA_MODULES): KnownModule | null {
  const s = source.startsWith('node:') ? source.slice(5) : source;
  if (FS_SOURCES.has(s) || extra.fs.includes(source)) return 'fs';
  if (PROCESS_SOURCES.has(s) || extra.process.includes(source)) return 'child_process';
  if (s === 'execa' || s === 'zx') return 'execa';
  if (PATH_SOURCES.has(s)) return 'path';
  if (s === 'os') return 'os';
  if (s === 'crypto') return 'crypto';
  if (s === 'util') return 'util';
  if (s === 'uuid' || s === 'nanoid') return 'uuid';
  return null;
}

function requireSource(node: Node): string | null {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.CallExpression && n.callee.type === AST_NODE_TYPES.Identifier && n.callee.name === 'require' && n.arguments.length === 1) {
    return staticString(n.arguments[0]);
  }
  if (n.type === AST_NODE_TYPES.ImportExpression) return staticString(n.source);
  return null;
}

function normalise(ref: ModuleRef): ModuleRef {
  const path = ref.path.filter((p, i) => !(ref.module === 'fs' && p === 'promises') && !(i === 0 && p === 'default'));
  return { ...ref, path };
}

const moduleRefs = new WeakMap<ModuleFacts, Map<Node, ModuleRef | null>>();

/**
 * The known module (and member) an expression stands for, or null. Answers to questions from outside with the default
 * module names are kept per module (the path analysis, the fallback rule and the isolation checks ask about the same
 * callees several times each); callers never change what they get.
 */
export function moduleRef(facts: ModuleFacts, expr: Node, extra: ModuleNames = NO_EXTRA_MODULES, depth = 0): ModuleRef | null {
  if (depth === 0 && extra.fs.length === 0 && extra.process.length === 0) {
    const memo = cachedFor(moduleRefs, facts, () => new Map<Node, ModuleRef | null>());
    let known = memo.get(expr);
    if (known === undefined) {
      known = moduleRefAt(facts, expr, extra, 0);
      memo.set(expr, known);
    }
    return known;
  }
  return moduleRefAt(facts, expr, extra, depth);
}

function moduleRefAt(facts: ModuleFacts, expr: Node, extra: ModuleNames, depth: number): ModuleRef | null {
  if (depth > 8) return null;
  const n = unwrap(expr);
  const src = requireSource(n);
  if (src !== null) {
    const m = classifySource(src, extra);
    return m ? { module: m, path: [] } : null;
  }
  if (n.type === AST_NODE_TYPES.MemberExpression) {
    const base = moduleRef(facts, n.object, extra, depth + 1);
    const name = memberName(n);
    if (!base || name === null) return null;
    return normalise({ ...base, path: [...base.path, name] });
  }
  if (n.type === AST_NODE_TYPES.CallExpression) {
    // promisify(exec), util.promisify(fs.writeFile)
    const callee = moduleRef(facts, n.callee, extra, depth + 1);
    if (callee && callee.module === 'util' && callee.path.join('.') === 'promisify' && n.arguments[0]) {
      const inner = moduleRef(facts, n.arguments[0], extra, depth + 1);
      return inner ? { ...inner, promisified: true } : null;
    }
    return null;
  }
  if (n.type !== AST_NODE_TYPES.Identifier) return null;
  const v = facts.variableOf(n);
  if (!v) return null;
  return variableRef(facts, v, extra, depth);
}

const reassigned = new WeakMap<Variable, boolean>();

/** Is the binding written after its declaration? (Asked for every call through it: answered once per variable.) */
function isReassigned(v: Variable): boolean {
  return cachedFor(reassigned, v, () => v.references.some((ref) => ref.isWrite() && !ref.init));
}

export function variableRef(facts: ModuleFacts, v: Variable, extra: ModuleNames = NO_EXTRA_MODULES, depth = 0): ModuleRef | null {
  const def = v.defs[0];
  if (!def || v.defs.length !== 1) return null;
  if (def.type === 'ImportBinding') {
    // `import fs = require('node:fs')` (TypeScript import-equals): the module itself; its parent has no `source`.
    if (def.node.type === AST_NODE_TYPES.TSImportEqualsDeclaration) {
      const ref = def.node.moduleReference;
      const source = ref.type === AST_NODE_TYPES.TSExternalModuleReference ? staticString(ref.expression) : null;
      const m = source === null ? null : classifySource(source, extra);
      return m ? { module: m, path: [] } : null;
    }
    const spec = def.node as TSESTree.ImportClause;
    const decl = spec.parent as TSESTree.ImportDeclaration;
    const m = classifySource(decl.source.value, extra);
    if (!m) return null;
    if (spec.type === AST_NODE_TYPES.ImportSpecifier) {
      const imported = spec.imported.type === AST_NODE_TYPES.Identifier ? spec.imported.name : String(spec.imported.value);
      return normalise({ module: m, path: [imported] });
    }
    return { module: m, path: [] };
  }
  if (def.type !== 'Variable') return null;
  const decl = def.node as TSESTree.VariableDeclarator;
  if (!decl.init) return null;
  // Only bindings that are never reassigned stand for the module.
  if (isReassigned(v)) return null;
  const base = moduleRef(facts, decl.init, extra, depth + 1);
  if (!base) return null;
  if (decl.id.type === AST_NODE_TYPES.Identifier) return base;
  if (decl.id.type === AST_NODE_TYPES.ObjectPattern) {
    for (const p of decl.id.properties) {
      if (p.type !== AST_NODE_TYPES.Property) continue;
      const value = p.value.type === AST_NODE_TYPES.AssignmentPattern ? p.value.left : p.value;
      if (value.type === AST_NODE_TYPES.Identifier && value.name === v.name) {
        const key = propertyKeyName(p);
        return key ? normalise({ ...base, path: [...base.path, key] }) : null;
      }
    }
  }
  return null;
}

/** What a filesystem call does to its path arguments. */
export type FsEffect = 'write' | 'read' | 'create' | 'remove' | 'mkdtemp' | 'meta';

interface FsSpec {
  effect: FsEffect;
  /** Indices of path arguments, with the effect on each (copy/rename read the first and write the second). */
  paths: [number, FsEffect][];
  /** The path is this property of the options object at that index (`page.pdf({ path })`), not the argument itself. */
  optionKey?: string;
}

const W = (effect: FsEffect = 'write'): FsSpec => ({ effect, paths: [[0, effect]] });
const FROM_TO: FsSpec = { effect: 'write', paths: [[0, 'read'], [1, 'write']] };
const MOVE: FsSpec = { effect: 'write', paths: [[0, 'remove'], [1, 'write']] };

const FS_METHODS = nameTable<FsSpec>({
  writeFile: W(), appendFile: W(), createWriteStream: W(), truncate: W(), outputFile: W(), outputJson: W(), outputJSON: W(),
  writeJson: W(), writeJSON: W(), writeJsonFile: W(), appendJson: W(), ensureFile: W('create'), ensureDir: W('create'),
  mkdir: W('create'), mkdirp: W('create'), mkdirs: W('create'), emptyDir: W('remove'), emptydir: W('remove'),
  copyFile: FROM_TO, cp: FROM_TO, copy: FROM_TO, symlink: FROM_TO, link: FROM_TO, ensureSymlink: FROM_TO, ensureLink: FROM_TO,
  rename: MOVE, move: MOVE,
  rm: W('remove'), rmdir: W('remove'), unlink: W('remove'), remove: W('remove'),
  chmod: W('meta'), chown: W('meta'), utimes: W('meta'), lchown: W('meta'),
  readFile: W('read'), createReadStream: W('read'), readdir: W('read'), readJson: W('read'), readJSON: W('read'), readJsonFile: W('read'),
  stat: W('read'), lstat: W('read'), access: W('read'), exists: W('read'), realpath: W('read'), opendir: W('read'), readlink: W('read'),
  watch: W('read'), pathExists: W('read'),
  mkdtemp: W('mkdtemp'),
});

export interface FsCall {
  call: TSESTree.CallExpression;
  method: string;
  spec: FsSpec;
  /** `open(p, 'w')` is a write; `open(p)` a read. */
  effect: FsEffect;
}

/** The filesystem operation a call performs, or null (`fs.writeFileSync`, `writeFile` from 'fs/promises', `fse.outputFile`). */
export function fsCallOf(facts: ModuleFacts, call: Node, extra: ModuleNames = NO_EXTRA_MODULES): FsCall | null {
  if (call.type !== AST_NODE_TYPES.CallExpression) return null;
  // A method call names its operation (`x.writeFile(…)`): one that is no filesystem method cannot be one, whatever `x`
  // is, so most calls are turned away without resolving their object.
  const callee = unwrap(call.callee);
  if (callee.type === AST_NODE_TYPES.MemberExpression && !mayNameFsMethod(memberName(callee))) return null;
  const ref = moduleRef(facts, call.callee, extra);
  if (!ref || ref.module !== 'fs' || ref.path.length !== 1) return null;
  const method = ref.path[0].replace(/Sync$/, '');
  if (method === 'open') {
    const flags = staticString(call.arguments[1]);
    const effect: FsEffect = flags && /[wa+]/.test(flags) ? 'write' : 'read';
    return { call, method, spec: W(effect), effect };
  }
  const spec = FS_METHODS[method];
  return spec ? { call, method: ref.path[0], spec, effect: spec.effect } : null;
}

function mayNameFsMethod(name: string | null): boolean {
  if (name === null) return false;
  if (name in FS_METHODS || name === 'open') return true;
  if (!name.endsWith('Sync')) return false;
  const method = name.slice(0, -4);
  return method === 'open' || method in FS_METHODS;
}

/** Methods that write a file named by their options' `path` (Playwright and Puppeteer pages and elements). */
const OPTION_PATH_WRITERS = new Set(['pdf', 'screenshot']);
/** Methods that write a file named by their first argument (a Playwright download, a sharp pipeline, a browser profile). */
const PATH_WRITERS = new Set(['saveAs', 'toFile', 'launchPersistentContext']);

/**
 * A library method that writes a file the caller names: `page.pdf({ path })`, `page.screenshot({ path })`,
 * `element.screenshot({ path })`, `download.saveAs(path)`, `image.toFile(path)`. Only method calls on an object (never a
 * module's own export): a local function named `pdf` is not one of these.
 */
export function fileWriterCallOf(facts: ModuleFacts, call: Node, extra: ModuleNames = NO_EXTRA_MODULES): FsCall | null {
  if (call.type !== AST_NODE_TYPES.CallExpression) return null;
  const callee = unwrap(call.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression || !call.arguments[0] || call.arguments[0].type === AST_NODE_TYPES.SpreadElement) return null;
  const m = memberName(callee);
  // Playwright's `context.tracing.stop({ path })` writes the trace there.
  const traceStop = m === 'stop' && unwrap(callee.object).type === AST_NODE_TYPES.MemberExpression && memberName(unwrap(callee.object) as TSESTree.MemberExpression) === 'tracing';
  if (!m || (!OPTION_PATH_WRITERS.has(m) && !PATH_WRITERS.has(m) && !traceStop) || moduleRef(facts, callee.object, extra)) return null;
  if (OPTION_PATH_WRITERS.has(m) || traceStop) return { call, method: m, spec: { effect: 'write', paths: [[0, 'write']], optionKey: 'path' }, effect: 'write' };
  if (PATH_WRITERS.has(m) && call.arguments.length <= 2) return { call, method: m, spec: W(), effect: 'write' };
  return null;
}

export type ProcessKind = 'spawn' | 'exec' | 'execFile' | 'fork' | 'execa';

export interface ProcessCall {
  call: TSESTree.CallExpression;
  /** How reports name the call: `spawn`, `execSync`, `execa`. */
  name: string;
  kind: ProcessKind;
  /** Index of the options argument if present, or where it would go. */
  optionsIndex: number;
  options: TSESTree.Node | null;
  /** The command string runs through a shell (`exec`, `shell: true`, `sh -c`). */
  shell: boolean;
  /** The command string a shell runs, when there is one. */
  command: TSESTree.Node | null;
}

const PROCESS_METHODS = nameTable<ProcessKind>({
  spawn: 'spawn', spawnSync: 'spawn', exec: 'exec', execSync: 'exec', execFile: 'execFile', execFileSync: 'execFile', fork: 'fork',
  // spawn-rx
  spawnPromise: 'spawn', spawnDetached: 'spawn', spawnDetachedPromise: 'spawn',
});
const EXECA_METHODS = new Set(['execa', 'execaSync', 'execaCommand', 'execaCommandSync', 'execaNode', '$', 'default']);

function isObjectish(facts: ModuleFacts, arg: Node): boolean {
  const a = unwrap(arg);
  if (a.type === AST_NODE_TYPES.ObjectExpression) return true;
  if (a.type === AST_NODE_TYPES.Identifier || a.type === AST_NODE_TYPES.MemberExpression) {
    const vs = resolveValues(facts, a);
    if (vs.some((v) => v.kind === 'object')) return true;
    if (vs.some((v) => v.kind === 'array' || v.kind === 'function')) return false;
    // An identifier whose declared initialiser is not an array/function/string: treat as options.
    return staticString(a) === null && !isArrayish(facts, a);
  }
  return false;
}

function isArrayish(facts: ModuleFacts, arg: Node): boolean {
  const a = unwrap(arg);
  if (a.type === AST_NODE_TYPES.ArrayExpression) return true;
  if (a.type === AST_NODE_TYPES.Identifier) {
    const v = facts.variableOf(a);
    const def = v?.defs[0];
    if (def?.type === 'Variable') {
      const init = (def.node as TSESTree.VariableDeclarator).init;
      if (init) {
        const i = unwrap(init);
        if (i.type === AST_NODE_TYPES.ArrayExpression) return true;
        if (i.type === AST_NODE_TYPES.CallExpression && i.callee.type === AST_NODE_TYPES.MemberExpression && ['split', 'map', 'filter', 'concat', 'slice'].includes(memberName(i.callee) ?? '')) return true;
      }
      const ann = (def.node as TSESTree.VariableDeclarator).id.typeAnnotation?.typeAnnotation;
      if (ann && (ann.type === AST_NODE_TYPES.TSArrayType || (ann.type === AST_NODE_TYPES.TSTypeReference && ann.typeName.type === AST_NODE_TYPES.Identifier && ann.typeName.name === 'Array'))) return true;
    }
    if (def?.type === 'Parameter') {
      const id = def.name as TSESTree.Identifier;
      const ann = id.typeAnnotation?.typeAnnotation;
      if (ann && ann.type === AST_NODE_TYPES.TSArrayType) return true;
      if (ann && (ann.type === AST_NODE_TYPES.TSStringKeyword)) return false;
    }
  }
  if (a.type === AST_NODE_TYPES.CallExpression && a.callee.type === AST_NODE_TYPES.MemberExpression && ['split', 'map', 'filter', 'concat', 'slice'].includes(memberName(a.callee) ?? '')) return true;
  return false;
}

/** A property of an options object literal, by name. */
export function optionProperty(obj: TSESTree.ObjectExpression, name: string): TSESTree.Property | null {
  for (const p of obj.properties) if (p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === name) return p;
  return null;
}

/** The child-process call a node makes (`spawn`, `execSync`, promisified `exec`, `execa`), or null. */
export function processCallOf(facts: ModuleFacts, call: Node, extra: ModuleNames = NO_EXTRA_MODULES): ProcessCall | null {
  if (call.type !== AST_NODE_TYPES.CallExpression) return null;
  // As for filesystem calls: a method call whose name no process API has is none (`x.default(…)` may be a module's
  // default export, cross-spawn's or execa's; `$.sync`/`$.s` are execa's synchronous `$`).
  const callee = unwrap(call.callee);
  if (callee.type === AST_NODE_TYPES.MemberExpression) {
    const m = memberName(callee);
    if (m === null || !(m in PROCESS_METHODS || EXECA_METHODS.has(m) || m === 'sync' || m === 's')) return null;
  }
  const bun = bunSpawnOf(facts, call);
  if (bun) return bun;
  const ref = moduleRef(facts, call.callee, extra);
  if (!ref) return null;
  let kind: ProcessKind | null = null;
  let name = '';
  if (ref.module === 'child_process') {
    const m = ref.path.length === 1 ? ref.path[0] : ref.path.length === 0 ? 'spawn' : null; // cross-spawn default export
    if (m && m in PROCESS_METHODS) {
      kind = PROCESS_METHODS[m];
      name = m;
    }
  } else if (ref.module === 'execa') {
    const m = ref.path.length === 0 ? 'execa' : ref.path[0];
    if (EXECA_METHODS.has(m)) {
      kind = 'execa';
      name = m === 'default' ? 'execa' : m;
    }
  }
  if (!kind) return null;
  const args = call.arguments;
  let optionsIndex: number;
  if (kind === 'exec') optionsIndex = 1;
  else if (kind === 'execa' && /Command/.test(name)) optionsIndex = 1;
  // execa({ cwd, env })`cmd`: options first, then the command as a template.
  else if (kind === 'execa' && args[0] && args[0].type !== AST_NODE_TYPES.SpreadElement && unwrap(args[0]).type === AST_NODE_TYPES.ObjectExpression) optionsIndex = 0;
  else optionsIndex = args[1] && !isArrayish(facts, args[1]) && isObjectish(facts, args[1]) ? 1 : 2;
  let options: TSESTree.Node | null = null;
  const cand = args[optionsIndex];
  if (cand && cand.type !== AST_NODE_TYPES.SpreadElement && !isFunctionNode(cand) && isObjectish(facts, cand)) options = cand;
  let shell = kind === 'exec' || (kind === 'execa' && /Command/.test(name));
  let command: TSESTree.Node | null = shell ? (args[0] ?? null) : null;
  const optObj = options ? objectLiteralOf(facts, options) : null;
  if (optObj) {
    const sh = optionProperty(optObj, 'shell');
    if (sh && !(unwrap(sh.value).type === AST_NODE_TYPES.Literal && (unwrap(sh.value) as TSESTree.Literal).value === false)) {
      shell = true;
      command = args[0] ?? null;
    }
  }
  // spawn('sh', ['-c', cmd]) / execFile('bash', ['-lc', cmd])
  const exe = staticString(args[0]);
  const list = args[1] ? unwrap(args[1]) : null;
  if (exe && /(^|\/)(ba|z|da)?sh$/.test(exe) && list && list.type === AST_NODE_TYPES.ArrayExpression) {
    const idx = list.elements.findIndex((e) => e && e.type !== AST_NODE_TYPES.SpreadElement && /^-\w*c$/.test(staticString(e) ?? ''));
    const cmd = idx >= 0 ? list.elements[idx + 1] : null;
    if (cmd && cmd.type !== AST_NODE_TYPES.SpreadElement) {
      shell = true;
      command = cmd;
    }
  }
  return { call, name, kind, optionsIndex, options, shell, command };
}

/** `Bun.spawn([cmd, ...args], { cwd, env })`, `Bun.spawnSync({ cmd, cwd, env })`. */
function bunSpawnOf(facts: ModuleFacts, call: TSESTree.CallExpression): ProcessCall | null {
  const callee = unwrap(call.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression) return null;
  const o = unwrap(callee.object);
  const m = memberName(callee);
  if (o.type !== AST_NODE_TYPES.Identifier || o.name !== 'Bun' || !isGlobalRef(facts, o) || (m !== 'spawn' && m !== 'spawnSync')) return null;
  const first = call.arguments[0];
  const optionsIndex = first && first.type !== AST_NODE_TYPES.SpreadElement && unwrap(first).type === AST_NODE_TYPES.ObjectExpression ? 0 : 1;
  const cand = call.arguments[optionsIndex];
  const options = cand && cand.type !== AST_NODE_TYPES.SpreadElement ? cand : null;
  return { call, name: `Bun.${m}`, kind: 'spawn', optionsIndex, options, shell: false, command: null };
}

function isFunctionNode(n: Node): boolean {
  const u = unwrap(n);
  return u.type === AST_NODE_TYPES.ArrowFunctionExpression || u.type === AST_NODE_TYPES.FunctionExpression;
}

/** The object literal an options expression stands for (directly or through a `const`), or null. */
export function objectLiteralOf(facts: ModuleFacts, expr: Node): TSESTree.ObjectExpression | null {
  const n = unwrap(expr);
  if (n.type === AST_NODE_TYPES.ObjectExpression) return n;
  for (const v of resolveValues(facts, n)) if (v.kind === 'object') return v.node;
  return null;
}

/** `process.env` (the real global, not a local named `process`). */
export function isProcessEnv(facts: ModuleFacts, expr: Node): boolean {
  const n = unwrap(expr);
  if (n.type !== AST_NODE_TYPES.MemberExpression || memberName(n) !== 'env') return false;
  const o = unwrap(n.object);
  return o.type === AST_NODE_TYPES.Identifier && o.name === 'process' && isGlobalRef(facts, o);
}

/** Where-a-value-comes-from facts about well-known calls, for `ValueOrigins` and the path analysis. */
export type KnownCallOrigin = 'tmpdir' | 'cwd' | 'homedir' | 'random' | 'time';

const RANDOM_CRYPTO = new Set(['randomUUID', 'randomBytes', 'randomInt', 'pseudoRandomBytes', 'getRandomValues']);

/** `os.tmpdir()`, `process.cwd()`, `os.homedir()`, `randomUUID()`/`mkdtemp()`/`Math.random()`, `Date.now()`. */
export function knownCallOrigin(facts: ModuleFacts, call: Node): KnownCallOrigin | null {
  if (call.type !== AST_NODE_TYPES.CallExpression && call.type !== AST_NODE_TYPES.NewExpression) return null;
  const callee = unwrap(call.callee);
  if (call.type === AST_NODE_TYPES.NewExpression) {
    return callee.type === AST_NODE_TYPES.Identifier && callee.name === 'Date' && isGlobalRef(facts, callee) ? 'time' : null;
  }
  if (callee.type === AST_NODE_TYPES.MemberExpression && callee.object.type === AST_NODE_TYPES.Identifier && isGlobalRef(facts, callee.object)) {
    const o = callee.object.name;
    const m = memberName(callee);
    if (o === 'process' && m === 'cwd') return 'cwd';
    if (o === 'Math' && m === 'random') return 'random';
    if (o === 'Date' && m === 'now') return 'time';
    if (o === 'performance' && m === 'now') return 'time';
    if (o === 'crypto' && m && RANDOM_CRYPTO.has(m)) return 'random';
  }
  const ref = moduleRef(facts, callee);
  if (!ref) return null;
  const last = ref.path[ref.path.length - 1];
  if (ref.module === 'os' && last === 'tmpdir') return 'tmpdir';
  if (ref.module === 'os' && last === 'homedir') return 'homedir';
  if (ref.module === 'crypto' && RANDOM_CRYPTO.has(last)) return 'random';
  if (ref.module === 'uuid') return 'random';
  if (ref.module === 'fs' && (last === 'mkdtemp' || last === 'mkdtempSync' || last === 'mkdtempDisposable')) return 'random';
  return null;
}

/** An identifier that names a global (`process`, `Date`, `Math`): no declaration in the module (lib globals have no defs). */
export function isGlobalRef(facts: ModuleFacts, id: TSESTree.Identifier): boolean {
  const v = facts.variableOf(id);
  return !v || v.defs.length === 0;
}
