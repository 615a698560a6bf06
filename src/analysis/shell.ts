import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { staticString, unwrap, type Node } from './ast.js';
import type { ModuleModel } from './model.js';

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
      if (/^\/dev\/(null|stdout|stderr|tty)$/.test(raw) || raw === '-') continue;
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
