import { getModuleModel, isAnalysed } from '../src/analysis/door.js';
import { isConstantValue, isEmptyContainer, isServerData } from '../src/analysis/lazy.js';
import { createRule } from '../src/util/create-rule.js';
import { optionRegExp } from '../src/util/option-regexp.js';
import { describeBinding, handlerPhrase } from '../src/util/describe.js';

export type Options = [{ reportConfigOnly?: boolean; statefulNames?: string }];
export type MessageId = 'fromCaller' | 'firstCall';

export const DEFAULT_STATEFUL_NAMES = '(browser|page|context|cookie|jar|session|login|tab|shell|terminal|driver|cwd|credential|auth)';

export default createRule<Options, MessageId>({
  name: 'no-first-caller-cache',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow handler code that lazily fills a client, credential, browser or connection that outlives the call',
      recommended: 'recommended',
      strictOptions: [{ reportConfigOnly: true }],
    },
    messages: {
      fromCaller:
        '{{binding}}; {{handler}} fills it on first use from the caller\'s own input ({{source}}), so every later caller runs as whoever called first. Build it per call from the call\'s arguments, or key it by the caller\'s scope argument.',
      firstCall:
        '{{binding}}; {{handler}} fills it on the first call and every later caller shares what that call left in it (pages, cookies, login state). Build it at start-up from server configuration if it holds nothing per caller, or per call if it does.',
    },
    schema: [
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          reportConfigOnly: {
            type: 'boolean',
            description: 'Also report lazy fills built only from server configuration, whatever the binding is called.',
          },
          statefulNames: {
            type: 'string',
            description: 'Regular expression (case-insensitive) for binding names whose config-only lazy fill is still reported: things that hold per-caller state as they are used.',
          },
        },
      },
    ],
    defaultOptions: [{ reportConfigOnly: false, statefulNames: DEFAULT_STATEFUL_NAMES }],
  },
  create(context, [options]) {
    const names = optionRegExp(options, 'no-first-caller-cache', 'statefulNames', options.statefulNames ?? DEFAULT_STATEFUL_NAMES);
    if (!isAnalysed(context)) return {};
    return {
      'Program:exit'() {
        const model = getModuleModel(context);
        if (!model.servesCalls) return;
        for (const a of model.stateAccesses()) {
          if (a.kind !== 'lazyInit') continue;
          // A once-flag, an empty collection, or a memo of the server's own configuration: nothing of a caller's is kept.
          if (a.value && (isConstantValue(a.value) || isEmptyContainer(a.value) || isServerData(model.facts, a.value))) continue;
          const handler = handlerPhrase(model.handlerOf(a.node));
          const binding = describeBinding(a.binding);
          const origins = a.value ? model.origins.of(a.value) : new Set<string>();
          const source = origins.has('auth') ? 'its credentials' : origins.has('session') ? 'its session' : origins.has('input') || origins.has('scope') ? 'its arguments' : origins.has('context') ? 'its request context' : null;
          if (source) {
            context.report({ node: a.node, messageId: 'fromCaller', data: { binding, handler, source } });
            continue;
          }
          const fullName = a.path.length ? `${a.binding.name}.${a.path.join('.')}` : a.binding.name;
          if (!options.reportConfigOnly && !names.test(fullName)) continue;
          context.report({ node: a.node, messageId: 'firstCall', data: { binding, handler } });
        }
      },
    };
  },
});
