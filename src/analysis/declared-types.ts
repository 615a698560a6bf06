// What a module's own type declarations say about a value (an interface or type literal on a parameter).
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { unwrap, type Node } from './ast.js';
import type { ModuleFacts } from './module.js';

/**
 * A parameter typed with this module's own interface or type literal that declares `member`: `opts.connect(transport)`
 * where `opts: { connect: (t) => Promise<void> }` calls a callback the caller supplies, not an SDK server's method.
 */
export function declaresOwnMember(facts: ModuleFacts, receiver: Node, member: string): boolean {
  const r = unwrap(receiver);
  const def = r.type === AST_NODE_TYPES.Identifier ? facts.variableOf(r)?.defs[0] : undefined;
  const ann = def?.type === 'Parameter' && 'typeAnnotation' in def.name ? def.name.typeAnnotation?.typeAnnotation : undefined;
  const hasConnect = (members: readonly TSESTree.TypeElement[]) => members.some((m) => (m.type === AST_NODE_TYPES.TSPropertySignature || m.type === AST_NODE_TYPES.TSMethodSignature) && m.key.type === AST_NODE_TYPES.Identifier && m.key.name === member);
  if (ann?.type === AST_NODE_TYPES.TSTypeLiteral) return hasConnect(ann.members);
  if (ann?.type !== AST_NODE_TYPES.TSTypeReference || ann.typeName.type !== AST_NODE_TYPES.Identifier) return false;
  const name = ann.typeName.name;
  for (const st of facts.ast.body) {
    const d = st.type === AST_NODE_TYPES.ExportNamedDeclaration && st.declaration ? st.declaration : st;
    if (d.type === AST_NODE_TYPES.TSInterfaceDeclaration && d.id.name === name) return hasConnect(d.body.body);
    if (d.type === AST_NODE_TYPES.TSTypeAliasDeclaration && d.id.name === name && d.typeAnnotation.type === AST_NODE_TYPES.TSTypeLiteral) return hasConnect(d.typeAnnotation.members);
  }
  return false;
}
