import { AST_NODE_TYPES } from '@typescript-eslint/utils';
import { calleeName, memberPath, staticString, unwrap, type Node } from './ast.js';

/**
 * Which tool a piece of a `tools/call` dispatcher serves: the label of the `case 'search':` (or the string compared in
 * `if (name === 'search')`) around it, when the switch or comparison is on something named like the tool name. The one
 * place this is decided: reach uses it to name routed tools, teardown to find a teardown case.
 */
export function routedLabel(node: Node, stopAt: Node | null = null): string | null {
  let child: Node = node;
  for (let n = node.parent; n && n !== stopAt; child = n, n = n.parent) {
    if (n.type === AST_NODE_TYPES.SwitchCase && n.test && child !== n.test) {
      const s = staticString(n.test);
      if (s !== null && mentionsToolName(n.parent.discriminant)) return s;
    }
    if (n.type === AST_NODE_TYPES.IfStatement && n.consequent === child) {
      const t = unwrap(n.test);
      if (t.type === AST_NODE_TYPES.BinaryExpression && (t.operator === '===' || t.operator === '==')) {
        const s = staticString(t.right) ?? staticString(t.left);
        if (s !== null && (mentionsToolName(t.left) || mentionsToolName(t.right))) return s;
      }
    }
  }
  return null;
}

/** `request.params.name`, `toolName`, `method`, `getToolName(req)`: an expression that names the tool being called. */
export function mentionsToolName(expr: Node): boolean {
  const path = memberPath(expr);
  if (path) return /name|tool|method|command|action/i.test(path[path.length - 1]);
  const c = calleeName(expr);
  return !!c && /name|tool/i.test(c);
}
