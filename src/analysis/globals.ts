import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, memberName, memberPath, nameTable, unwrap, type Node } from './ast.js';
import { cachedFor } from './cache.js';
import type { ModuleFacts } from './module.js';

export interface GlobalWrite {
  node: Node;
  /** What is changed, for the message: `process.env.HOME`, `the process working directory`. */
  what: string;
  /** What to do instead. */
  instead: string;
}

const ENV_INSTEAD = 'Build an env object for this call (`{ ...process.env, HOME: dir, TMPDIR: dir }`) and pass it to the child process instead.';

/** The globals and libraries whose members `classify` knows as process-wide state. */
const STATE_ROOTS = new Set(['process', 'globalThis', 'global', 'window', 'self', 'axios', 'http', 'https', 'console']);
/** The first names of the `CALLS` keys, and `Object` (`Object.assign(globalThis, …)`). */
const CALL_ROOTS = new Set(['process', 'google', 'mongoose', 'Object']);

/**
 * The base path of a member chain rooted at one of the state roots, keeping computed steps as `[…]`: process.env[key] →
 * ['process','env','[…]']. Null for any other chain (most assignments of a module), which is not spelled out.
 */
function loosePath(facts: ModuleFacts, node: Node): string[] | null {
  const root = rootIdentifier(node);
  if (!root || !STATE_ROOTS.has(root.name) || !isGlobalName(facts, root)) return null;
  const out: string[] = [];
  for (let n = unwrap(node); n.type === AST_NODE_TYPES.MemberExpression; n = unwrap(n.object)) out.unshift(memberName(n) ?? '[…]');
  out.unshift(root.name);
  return out;
}

/** `process`, `globalThis`, `axios`: the real global or the imported library, not a local of the same name. */
function isGlobalName(facts: ModuleFacts, id: TSESTree.Identifier): boolean {
  const v = facts.variableOf(id);
  if (!v || v.defs.length === 0) return true;
  const def = v.defs[0];
  if (def.type !== 'ImportBinding') return false;
  const source = facts.imports.get(id.name)?.source ?? '';
  return !source.startsWith('.');
}

function classify(path: string[]): Omit<GlobalWrite, 'node'> | null {
  const [a, b, c] = path;
  if (a === 'process' && b === 'env' && path.length >= 2) {
    return { what: path.length > 2 ? `process.env.${c}` : 'process.env', instead: ENV_INSTEAD };
  }
  if ((a === 'globalThis' || a === 'global' || a === 'window' || a === 'self') && path.length >= 2) {
    return { what: `the global \`${path.slice(1).join('.')}\``, instead: 'Pass the value through the call instead of the global object.' };
  }
  if (a === 'axios' && b === 'defaults') return { what: '`axios.defaults` (the library-wide request defaults)', instead: 'Create a client per call (`axios.create({…})`) or pass the settings to the request.' };
  if ((a === 'http' || a === 'https') && b === 'globalAgent') return { what: `\`${a}.globalAgent\``, instead: 'Pass an agent to the request instead of changing the global one.' };
  if (a === 'console' && path.length === 2) return { what: `\`console.${b}\``, instead: 'Log through a logger passed to the call instead of replacing console methods.' };
  return null;
}

const CALLS = nameTable<{ what: string; instead: string }>({
  'process.chdir': { what: 'the process working directory (`process.chdir`)', instead: 'Give the child process or fs call its own `cwd`/absolute path derived from the caller\'s workspace.' },
  'process.umask': { what: 'the process umask (`process.umask`)', instead: 'Pass a `mode` to the fs call instead.' },
  'process.setUncaughtExceptionCaptureCallback': { what: 'the process uncaught-exception callback', instead: 'Install it once at start-up.' },
  'process.on': { what: 'the process listeners (`process.on`)', instead: 'Install process listeners once at start-up.' },
  'process.once': { what: 'the process listeners (`process.once`)', instead: 'Install process listeners once at start-up.' },
  'process.addListener': { what: 'the process listeners', instead: 'Install process listeners once at start-up.' },
  'google.options': { what: 'the googleapis global options (`google.options`)', instead: 'Pass `auth` to the API client made for this call.' },
  'mongoose.set': { what: 'mongoose global settings', instead: 'Configure it once at start-up.' },
});

const writesOf = new WeakMap<ModuleFacts, readonly GlobalWrite[]>();

/** Writes to process-wide state anywhere in the module (found once per module); callers keep those in handler code. */
export function findProcessGlobalWrites(facts: ModuleFacts): readonly GlobalWrite[] {
  return cachedFor(writesOf, facts, () => collectProcessGlobalWrites(facts));
}

function collectProcessGlobalWrites(facts: ModuleFacts): GlobalWrite[] {
  const out: GlobalWrite[] = [];
  for (const a of facts.assignments) {
    const path = loosePath(facts, a.left);
    if (!path || path.length < 2) continue;
    const c = classify(path);
    if (c) out.push({ node: a, ...c });
  }
  for (const u of facts.updates) {
    const target = u.type === AST_NODE_TYPES.UpdateExpression ? u.argument : u.argument;
    const path = loosePath(facts, target);
    if (!path || path.length < 2) continue;
    const c = classify(path);
    if (c) out.push({ node: u, ...c });
  }
  for (const call of facts.allCalls) {
    if (call.type !== AST_NODE_TYPES.CallExpression) continue;
    const base = unwrap(call.callee);
    const root = base.type === AST_NODE_TYPES.MemberExpression ? rootIdentifier(base) : null;
    // Only calls on a few globals can change process-wide state: the path of any other call is not spelled out.
    const p = root && CALL_ROOTS.has(root.name) ? memberPath(base) : null;
    const key = p && root && isGlobalName(facts, root) ? p.join('.') : null;
    if (key && key in CALLS) {
      if (key === 'process.umask' && call.arguments.length === 0) continue;
      out.push({ node: call, ...CALLS[key] });
      continue;
    }
    const name = calleeName(call.callee);
    if (name === 'setGlobalDispatcher') {
      out.push({ node: call, what: 'the global fetch dispatcher (`setGlobalDispatcher`)', instead: 'Pass a dispatcher to this call\'s fetch instead.' });
      continue;
    }
    if (key === 'Object.assign' || key === 'Object.defineProperty') {
      const target = call.arguments[0];
      const tp = target ? loosePath(facts, target) : null;
      if (tp && tp.length >= 1) {
        const c = classify(tp.length === 1 ? [...tp, '…'] : tp);
        if (c && (tp[0] !== 'globalThis' || tp.length >= 1)) out.push({ node: call, ...c });
      }
    }
  }
  return out;
}

export type { TSESTree };

function rootIdentifier(node: Node): TSESTree.Identifier | null {
  let n = unwrap(node);
  while (n.type === AST_NODE_TYPES.MemberExpression) n = unwrap(n.object);
  return n.type === AST_NODE_TYPES.Identifier ? n : null;
}
