import { functionDisplayName } from '../analysis/ast.js';
import { describeHandler, type HandlerRef, type ModuleModel } from '../analysis/model.js';
import { accessTarget, changePhrase, type StateAccess, type StateBinding } from '../analysis/state.js';
import type { TSESTree } from '@typescript-eslint/utils';

/** Where a binding lives and who shares it, in the words reports use. */
export function describeBinding(b: StateBinding): string {
  switch (b.scope) {
    case 'module':
      if (b.handedFrom && b.handedWithin) return `\`${b.name}\` is the object ${b.handedWithin} makes (${b.handedFrom}) and hands to every call, shared by every call on that server instance`;
      if (b.handedFrom) return `\`${b.name}\` is the process-wide object ${b.handedFrom} hands to every call, shared by every caller`;
      return b.className
        ? `\`${b.name}\` belongs to the one long-lived \`${b.className}\` instance, shared by every caller`
        : b.exported
          ? `\`${b.name}\` is module-level and exported to other modules, shared by every caller`
          : `\`${b.name}\` is module-level, shared by every caller`;
    case 'import':
      return `\`${b.name}\` is imported module state, shared by every caller`;
    case 'instance': {
      if (b.className) return `\`${b.name}\` belongs to the \`${b.className}\` server instance, shared by every call on this server instance`;
      const f = b.factory ? functionDisplayName(b.factory) : null;
      return `\`${b.name}\` lives in ${f ? `\`${f}()\`` : 'the enclosing function'}, shared by every call on this server instance`;
    }
  }
}

export function handlerPhrase(h: HandlerRef | null): string {
  return h ? describeHandler(h) : 'handler code';
}

/** `history.push(…)`, `counts[…] = …`: a short name for what an access does. */
export function accessPhrase(a: StateAccess): string {
  const target = accessTarget(a);
  if (a.handedTo) return `hands ${a.binding.name} to ${a.handedTo}(…), which changes it`;
  if (a.through) {
    const receiver = a.path.length > 1 ? `${a.binding.name}.${a.path.slice(0, -1).join('.')}` : a.binding.name;
    return `${receiver}.${a.through}(…), which changes ${target}`;
  }
  return changePhrase(a, target) ?? target;
}

export function lineOf(node: TSESTree.Node): number {
  return node.loc.start.line;
}

/**
 * One report per binding and handler: the same state touched on several lines of one handler is one hazard. Returns a
 * predicate that is true the first time it sees an access's (binding, handler) pair.
 */
export function firstPerBindingAndHandler(model: ModuleModel): (a: StateAccess) => boolean {
  const seen = new Set<string>();
  return (a) => {
    const h = model.handlerOf(a.node);
    const key = `${a.binding.key}|${h ? describeHandler(h) : ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}
