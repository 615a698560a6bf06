import { getModuleModel, isAnalysed } from '../src/analysis/door.js';
import { isPureMemo } from '../src/analysis/memo.js';
import type { StateAccess } from '../src/analysis/state.js';
import { AST_NODE_TYPES, type TSESLint } from '@typescript-eslint/utils';
import { createRule } from '../src/util/create-rule.js';
import { accessPhrase, describeBinding, firstPerBindingAndHandler, handlerPhrase } from '../src/util/describe.js';
import { moveIntoFunction } from '../src/util/fixes.js';

export type Options = [];
export type MessageId = 'accumulator' | 'perCall';

/** Does any access of this binding in handler code read it? (a counter nobody reads carries nothing between calls) */
function isReadByHandlers(accesses: readonly StateAccess[]): boolean {
  return accesses.some((a) => a.kind === 'read');
}

const DRAINS = new Set(['shift', 'pop']);

/**
 * Handler code only files entries under keys made fresh for the call (`pending.set(randomUUID(), resolve)`) and
 * removes them, and never reads the container: each call's own slot, found again only through what the call hands
 * out (a reply listener's id). A task store that a tool reads back by id is not one of these.
 */
function onlyPerCallEntries(model: ReturnType<typeof getModuleModel>, accesses: readonly StateAccess[]): boolean {
  return accesses.every(
    (a) => a.kind === 'mutate' && a.path.length === 0 && !a.through && !a.handedTo && (a.method === 'delete' || (a.method === 'set' && a.keys.length > 0 && a.keys.every((k) => model.origins.has(k, 'random')))),
  );
}

/** Handler code only takes items out (`buffer.shift()`): what is in it was put there at start-up, by no caller. */
function onlyDrainedByHandlers(accesses: readonly StateAccess[]): boolean {
  return accesses.every((a) => a.kind === 'read' || (a.kind === 'mutate' && a.path.length === 0 && a.method !== undefined && DRAINS.has(a.method) && !a.through && !a.handedTo));
}

export default createRule<Options, MessageId>({
  name: 'no-module-accumulator',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow handler code that appends to or mutates a container that outlives the call',
      recommended: 'recommended',
    },
    hasSuggestions: true,
    messages: {
      perCall: 'Make `{{name}}` per call: declare it at the start of the handler, so each call starts empty.',
      accumulator:
        '{{binding}}; {{handler}} mutates it here ({{what}}), so concurrent callers observe each other\'s data. Keep it per call, or key it by the caller\'s scope argument (workspace, run id).',
    },
    schema: [],
  },
  create(context) {
    if (!isAnalysed(context)) return {};
    return {
      'Program:exit'() {
        const model = getModuleModel(context);
        if (!model.servesCalls) return;
        // The container's own mutation (`map.set(id, …)`) names the hazard better than a write into one of its entries.
        const all = [...model.stateAccesses()].sort((a, b) => a.path.length - b.path.length || a.node.range[0] - b.node.range[0]);
        const first = firstPerBindingAndHandler(model);
        for (const a of all) {
          if (a.kind !== 'mutate' && a.kind !== 'entryWrite' && a.kind !== 'accumulate') continue;
          // A key the caller supplied (its workspace or run id) keeps entries apart; session keys are another rule's.
          if (a.keys.some((k) => model.origins.has(k, 'scope') || model.origins.has(k, 'session'))) continue;
          // WeakMap/WeakSet entries keyed by an object made for this call die with the call.
          if (a.binding.container === 'weak' && a.path.length === 0 && a.keys.length > 0 && a.keys.every((k) => !model.origins.has(k, 'module'))) continue;
          // A plain counter that no handler reads carries nothing from one caller to another.
          if (a.kind === 'accumulate' && a.path.length === 0 && (a.binding.container === 'primitive' || a.binding.container === 'unset') && !isReadByHandlers(model.accessesOf(a.binding.key))) continue;
          if (a.kind === 'mutate' && a.method !== undefined && DRAINS.has(a.method) && onlyDrainedByHandlers(model.accessesOf(a.binding.key))) continue;
          if (a.kind === 'mutate' && (a.method === 'set' || a.method === 'delete') && a.binding.container === 'map' && onlyPerCallEntries(model, model.accessesOf(a.binding.key))) continue;
          // A memo whose entries are a function of their key (`cache.set(zone, await fetch(urlOf(zone)))`): a second
          // caller with the same key gets what it would have fetched itself.
          if (a.binding.container === 'map' && isPureMemo(model, a.binding.key)) continue;
          if (!first(a)) continue;
          const handler = model.handlerOf(a.node);
          const decl = a.binding.decl;
          // Only a module container that this one handler alone uses can move into it.
          const move =
            handler && a.binding.scope === 'module' && decl.type === AST_NODE_TYPES.VariableDeclarator
              ? moveIntoFunction(context.sourceCode, decl.id, handler.registration.handler)
              : null;
          const suggest: TSESLint.SuggestionReportDescriptor<MessageId>[] = move ? [{ messageId: 'perCall', data: { name: a.binding.name }, fix: move }] : [];
          context.report({
            node: a.node,
            messageId: 'accumulator',
            data: { binding: describeBinding(a.binding), handler: handlerPhrase(handler), what: accessPhrase(a) },
            suggest,
          });
        }
      },
    };
  },
});
