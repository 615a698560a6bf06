import { getModuleModel, isAnalysed } from '../src/analysis/door.js';
import { findProcessGlobalWrites } from '../src/analysis/globals.js';
import { createRule } from '../src/util/create-rule.js';
import { handlerPhrase } from '../src/util/describe.js';

export type Options = [];
export type MessageId = 'processGlobal';

export default createRule<Options, MessageId>({
  name: 'no-process-global-mutation',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow handler code that changes process-wide state every concurrent call sees',
      recommended: 'recommended',
    },
    messages: {
      processGlobal:
        '{{handler}} changes {{what}}, which every concurrent call on this process sees. {{instead}}',
    },
    schema: [],
  },
  create(context) {
    if (!isAnalysed(context)) return {};
    return {
      'Program:exit'() {
        const model = getModuleModel(context);
        if (!model.servesCalls) return; // start-up writes are configuration, and there is nothing else here
        for (const w of findProcessGlobalWrites(model.facts)) {
          const h = model.handlerOf(w.node);
          if (!h) continue;
          context.report({ node: w.node, messageId: 'processGlobal', data: { handler: handlerPhrase(h), what: w.what, instead: w.instead } });
        }
      },
    };
  },
});
