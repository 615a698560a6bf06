import { getModuleModel, isAnalysed } from '../src/analysis/door.js';
import { createRule } from '../src/util/create-rule.js';
import { describeBinding, firstPerBindingAndHandler, handlerPhrase } from '../src/util/describe.js';

export type Options = [];
export type MessageId = 'sessionKeyed';

export default createRule<Options, MessageId>({
  name: 'no-session-keyed-state',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow handler code that keeps or looks up state by MCP session identity',
      recommended: 'recommended',
    },
    messages: {
      sessionKeyed:
        '{{binding}}; {{handler}} keys it by MCP session identity (`{{key}}`). A harness reuses one session for a whole run and a shared server serves several at once, so this passes a sequential test and leaks under interleaving. Key it by the caller\'s scope argument (workspace, run id), or keep it in the call.',
    },
    schema: [],
  },
  create(context) {
    if (!isAnalysed(context)) return {};
    const sourceCode = context.sourceCode;
    return {
      'Program:exit'() {
        const model = getModuleModel(context);
        if (!model.servesCalls) return;
        const first = firstPerBindingAndHandler(model);
        for (const a of model.stateAccesses()) {
          const key = a.keys.find((k) => model.origins.has(k, 'session'));
          if (!key) continue;
          if (!first(a)) continue;
          context.report({
            node: a.node,
            messageId: 'sessionKeyed',
            data: { binding: describeBinding(a.binding), handler: handlerPhrase(model.handlerOf(a.node)), key: sourceCode.getText(key) },
          });
        }
      },
    };
  },
});
