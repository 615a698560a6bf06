import type { TSESTree } from '@typescript-eslint/utils';
import { getModuleModel, isAnalysed } from '../src/analysis/door.js';
import { isFillBookkeeping, isOnceInit } from '../src/analysis/memo.js';
import { describeHandler } from '../src/analysis/model.js';
import { requestWrites } from '../src/analysis/request-state.js';
import { isReset } from '../src/analysis/state.js';
import { spanningTransactions } from '../src/analysis/transactions.js';
import { createRule } from '../src/util/create-rule.js';
import { describeBinding, firstPerBindingAndHandler, handlerPhrase, lineOf } from '../src/util/describe.js';

export type Options = [];
export type MessageId = 'crossCall' | 'crossCallImported' | 'requestWrite' | 'spanningTransaction';

function fromCaller(model: ReturnType<typeof getModuleModel>, value: TSESTree.Node | undefined): boolean {
  if (!value) return false;
  const o = model.origins.of(value);
  return o.has('input') || o.has('scope') || o.has('session') || o.has('auth') || o.has('context');
}

export default createRule<Options, MessageId>({
  name: 'no-cross-call-binding',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow handler code that stores a value in a binding that outlives the call when handler code reads it back',
      recommended: 'recommended',
    },
    messages: {
      crossCallImported:
        '{{binding}}; {{writer}} assigns `{{target}}` here, so whatever reads it later, in this call or another caller\'s, sees this caller\'s value. Pass it in the call\'s arguments and return it in the response, or key it by the caller\'s scope argument.',
      crossCall:
        '{{binding}}; {{writer}} assigns `{{target}}` here and {{reader}} reads it (line {{line}}), so one caller\'s value reaches another caller\'s call. Pass it in the call\'s arguments and return it in the response, or key it by the caller\'s scope argument.',
      spanningTransaction:
        '`{{connection}}` is one database connection for every caller; {{opener}} begins a transaction on it here and {{closer}} ends it (line {{line}}), so every caller\'s statements in between run inside one caller\'s transaction, and one caller\'s COMMIT or ROLLBACK ends what the others wrote. Begin and end a transaction within one call, or give each caller its own connection.',
      requestWrite:
        '{{binding}}; the {{route}} runs once per request or connection and assigns `{{target}}` here, and {{reader}} reads it (line {{line}}), so a concurrent call reads whichever request or connection came last. Hand the value to the call instead (SDK handlers receive the request\'s auth as `extra.authInfo`), or build what holds it per request.',
    },
    schema: [],
  },
  create(context) {
    if (!isAnalysed(context)) return {};
    return {
      'Program:exit'() {
        const model = getModuleModel(context);
        if (!model.servesCalls) return;
        const all = model.stateAccesses();
        const first = firstPerBindingAndHandler(model);
        for (const w of all) {
          if (w.kind !== 'assign' && w.kind !== 'fieldWrite') continue;
          if (w.binding.container === 'map' || w.binding.container === 'set' || w.binding.container === 'weak') continue;
          // A lazily filled client (`browser`) set or reset again outside its guard (`browser = undefined`, a relaunch)
          // is the same first-caller lifecycle, which no-first-caller-cache reports; a value from the caller is not.
          if (w.path.length === 0 && model.accessesOf(w.binding.key).some((a) => a.kind === 'lazyInit') && (isReset(w.value) || !fromCaller(model, w.value))) continue;
          // Emptying a binding (`= null`, `= undefined`) hands no caller's data to the next one: the write that fills it does.
          if (isReset(w.value)) continue;
          // A cache's own bookkeeping beside its lazy fill (`versionAt = Date.now()`): no-first-caller-cache judges the fill.
          if (isFillBookkeeping(model, w)) continue;
          // One-time set-up from configuration that the first call happens to run (`if (!ready) { ready = true; … }`).
          if (isOnceInit(model, w)) continue;
          const { first: firstRead, other: otherRead } = model.readsOf(w);
          const writer = model.handlerOf(w.node);
          if (!firstRead) {
            // State imported from the project's own modules, or exported to them, is read elsewhere in the program:
            // the write is the crossing.
            if (w.binding.scope !== 'import' && !w.binding.exported) continue;
            if (!first(w)) continue;
            context.report({
              node: w.node,
              messageId: 'crossCallImported',
              data: { binding: describeBinding(w.binding), writer: handlerPhrase(writer), target: w.path.length ? `${w.binding.name}.${w.path.join('.')}` : w.binding.name },
            });
            continue;
          }
          if (!first(w)) continue;
          // Prefer a read in another handler: that is where the crossing is plainest.
          const other = otherRead ?? firstRead;
          const reader = model.handlerOf(other.node);
          context.report({
            node: w.node,
            messageId: 'crossCall',
            data: {
              binding: describeBinding(w.binding),
              writer: handlerPhrase(writer),
              reader: reader && writer && reader.registration === writer.registration && reader.routedName === writer.routedName ? 'its next call' : reader ? describeHandler(reader) : 'handler code',
              target: w.path.length ? `${w.binding.name}.${w.path.join('.')}` : w.binding.name,
              line: String(lineOf(other.node)),
            },
          });
        }
        // A transaction one tool begins on a shared connection and another ends: the open transaction is the state.
        for (const t of spanningTransactions(model)) {
          context.report({
            node: t.begin,
            messageId: 'spanningTransaction',
            data: { connection: t.connection, opener: describeHandler(t.openedBy), closer: describeHandler(t.endedBy), line: String(lineOf(t.end)) },
          });
        }
        // Per-request HTTP code (a route, middleware, a session callback) that stores the request's value where
        // handler code reads it: one report per binding and route.
        const seen = new Set<string>();
        for (const { write, route, read } of requestWrites(model)) {
          const key = `${write.binding.key}\u0000${route.fn.range[0]}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const reader = model.handlerOf(read.node);
          context.report({
            node: write.node,
            messageId: 'requestWrite',
            data: {
              binding: describeBinding(write.binding),
              route: route.label,
              reader: reader ? describeHandler(reader) : 'handler code',
              target: write.path.length ? `${write.binding.name}.${write.path.join('.')}` : write.binding.name,
              line: String(lineOf(read.node)),
            },
          });
        }
      },
    };
  },
});
