import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { staticString, unwrap, type Node } from './ast.js';
import type { ModuleModel } from './model.js';
import type { ProcessCall } from './processes.js';

/** Redirection and output-file targets in a shell command (`> /tmp/out.txt`, `-o out.json`, `tee log`). */
export interface ShellTarget {
  /** The target as written, with `${…}` for interpolated parts. */
  text: string;
  /** Expressions interpolated into the target. */
  parts: Node[];
}

export function shellTargets(model: ModuleModel, command: Node): ShellTarget[] {
  const pieces: (string | Node)[] = [];
  flattenCommand(model, command, pieces, 0);
  let str = '';
  const exprs: Node[] = [];
  for (const p of pieces) {
    if (typeof p === 'string') str += p;
    else {
      str += `\u0000${exprs.length}\u0001`;
      exprs.push(p);
    }
  }
  const out: ShellTarget[] = [];
  const patterns = [/(?:^|[^<>&\d])(?:\d|&)?>>?\s*(?!&)([^\s;|&<>()]+)/g, /(?:^|\s)(?:-o|--output(?:-file)?|--out-file|--log-file)(?:=|\s+)([^\s;|&<>()]+)/g, /\btee\s+(?:-a\s+)?([^\s;|&<>()]+)/g];
  patterns.forEach((re, which) => {
    for (const m of str.matchAll(re)) {
      const raw = m[1].replace(/^["']|["']$/g, '');
      // The null device and the standard streams, on POSIX and Windows (`2>nul`, `> NUL`): nothing is kept.
      if (/^\/dev\/(null|stdout|stderr|tty)$/.test(raw) || /^nul$/i.test(raw) || raw === '-') continue;
      // `-o` is an output file for curl/gcc/yt-dlp, but a format for ps and others (`-o pid,ppid`, `-o pgid=`): only a
      // target that looks like a file (a directory, an extension, an interpolated part) counts.
      if (which === 1 && !looksLikeFile(raw)) continue;
      const parts: Node[] = [];
      const text = raw.replace(/\u0000(\d+)\u0001/g, (_, i: string) => {
        parts.push(exprs[Number(i)]);
        return '${…}';
      });
      out.push({ text, parts });
    }
  });
  return out;
}

function looksLikeFile(raw: string): boolean {
  if (/[,=]/.test(raw)) return false;
  return /[\/~]|\.\w+$|\u0000/.test(raw);
}

function flattenCommand(model: ModuleModel, e: Node, out: (string | Node)[], depth: number): void {
  const n = unwrap(e);
  const s = staticString(n);
  if (s !== null) {
    out.push(s);
    return;
  }
  if (n.type === AST_NODE_TYPES.TemplateLiteral) {
    n.quasis.forEach((q, i) => {
      out.push(q.value.cooked ?? q.value.raw);
      if (n.expressions[i]) flattenCommand(model, n.expressions[i], out, depth + 1);
    });
    return;
  }
  if (n.type === AST_NODE_TYPES.BinaryExpression && n.operator === '+') {
    flattenCommand(model, n.left, out, depth + 1);
    flattenCommand(model, n.right, out, depth + 1);
    return;
  }
  if (n.type === AST_NODE_TYPES.Identifier && depth < 3) {
    const v = model.facts.variableOf(n);
    const def = v?.defs[0];
    if (v && def?.type === 'Variable' && !v.references.some((r) => r.isWrite() && !r.init)) {
      const init = (def.node as TSESTree.VariableDeclarator).init;
      const u = init ? unwrap(init) : null;
      if (u && (u.type === AST_NODE_TYPES.TemplateLiteral || u.type === AST_NODE_TYPES.BinaryExpression || staticString(u) !== null)) {
        flattenCommand(model, u, out, depth + 1);
        return;
      }
    }
  }
  out.push(n);
}

/** Commands that only look something up: they write nothing under the working directory, HOME or TMPDIR that another call reads (`mktemp` makes a fresh name). */
const LOOKUP_COMMANDS = new Set(['which', 'where', 'whoami', 'uname', 'hostname', 'id', 'mktemp', 'nproc', 'arch', 'sw_vers']);
/** Commands that only read the process table: whatever their arguments, they write no file a later call reads. */
const PROCESS_TABLE_COMMANDS = new Set(['pgrep', 'pidof', 'ps', 'tasklist']);
/** Commands that fetch and run a package: even `npx tool --version` installs into the shared cache. */
const PACKAGE_RUNNERS = /^(npx|pnpx|bunx|npm|pnpm|yarn|pipx|uvx)$/;
const NULL_REDIRECT = /\s*\d?>\s*(?:\/dev\/null|nul)\b(?:\s*2>&1)?/gi;

/** The command line a process call runs, word by word, when every word is written in the code; else null. */
function staticCommandLine(p: ProcessCall): string[] | null {
  const args = p.call.arguments;
  if (p.shell) {
    const text = p.command ? staticString(p.command) : null;
    if (text === null) return null;
    const line = text.replace(NULL_REDIRECT, ' ').trim();
    if (/[;&|<>$`()]/.test(line) || line === '') return null;
    return line.split(/\s+/).map((w) => w.replace(/^["']|["']$/g, ''));
  }
  if (p.name.startsWith('Bun.') || p.kind === 'fork') return null;
  const exe = args[0] && args[0].type !== AST_NODE_TYPES.SpreadElement ? staticString(args[0]) : null;
  if (exe === null) return null;
  if (p.optionsIndex === 1 || !args[1]) return [exe];
  const list = unwrap(args[1] as Node);
  if (list.type !== AST_NODE_TYPES.ArrayExpression) return null;
  const words: string[] = [exe];
  for (const e of list.elements) {
    const w = e && e.type !== AST_NODE_TYPES.SpreadElement ? staticString(e) : null;
    if (w === null) return null;
    words.push(w);
  }
  return words;
}

/** A command as its name: `/usr/bin/pgrep` and `PGREP.exe` are `pgrep`. */
function commandWord(word: string): string {
  return (word.split(/[\\/]/).pop() ?? '').replace(/\.exe$/i, '').toLowerCase();
}

/**
 * `pgrep -P ${pid}`, `execFile('ps', ['-o', 'pid=', '-p', String(pid)])`: a process-table lookup whose arguments are
 * computed. The command word is written in the code, and a shell line has no redirection, pipe or second command.
 */
function readsProcessTable(p: ProcessCall): boolean {
  let first: string | null = null;
  if (p.shell) {
    const cmd = p.command ? unwrap(p.command) : null;
    if (cmd?.type !== AST_NODE_TYPES.TemplateLiteral) return false;
    const text = cmd.quasis.map((q) => q.value.cooked ?? q.value.raw).join(' 0 ').replace(NULL_REDIRECT, ' ');
    if (/[;&|<>$`()]/.test(text)) return false;
    first = text.trim().split(/\s+/)[0] ?? null;
  } else if (!p.name.startsWith('Bun.') && p.kind !== 'fork') {
    const a0 = p.call.arguments[0];
    first = a0 && a0.type !== AST_NODE_TYPES.SpreadElement ? staticString(a0) : null;
  }
  if (!first) return false;
  return PROCESS_TABLE_COMMANDS.has(commandWord(first));
}

/**
 * A child process that only asks the machine something (`which yt-dlp`, `git --version`, `reg query …`, `mktemp -d`),
 * every word written in the code: what it reads is the machine's, not a caller's, and it leaves nothing a later call
 * reads, so it needs no per-call cwd, HOME or TMPDIR.
 */
export function isLookupCommand(p: ProcessCall): boolean {
  const words = staticCommandLine(p);
  if (!words) return readsProcessTable(p);
  const cmd = commandWord(words[0]);
  if (PACKAGE_RUNNERS.test(cmd)) return false;
  if (LOOKUP_COMMANDS.has(cmd)) return true;
  if (cmd === 'command' && words[1] === '-v') return true;
  if (cmd === 'reg' && words[1]?.toLowerCase() === 'query') return true;
  return words.length === 2 && /^(--version|-v|-V|version)$/.test(words[1]);
}
