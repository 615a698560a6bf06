import type { TSESTree } from '@typescript-eslint/utils';
import { getModuleModel } from '../src/analysis/door.js';
import { sharedFallback } from '../src/analysis/fallback.js';
import { createRule } from '../src/util/create-rule.js';
import { handlerPhrase } from '../src/util/describe.js';

export type Options = [];
export type MessageId = 'sharedFallback' | 'sharedTenantFallback';

export default createRule<Options, MessageId>({
  name: 'no-shared-scope-fallback',
  meta: {
    type: 'problem',
    docs: {
      description: "Disallow falling back to a shared or privileged directory (or a shared tenant) when the caller's scope is missing",
      recommended: 'recommended',
    },
    messages: {
      sharedFallback:
        "{{handler}} falls back to `{{fallback}}` ({{what}}) when `{{scope}}` is missing, so every call without a scope lands in the same place, shared with the server and each other. Fall back to a dedicated ad-hoc directory under the runs root (`path.join(RUNS_ROOT, '_adhoc')`) or reject the call.",
      sharedTenantFallback:
        '{{handler}} falls back to {{what}} when `{{scope}}` is missing: every caller without one reads and writes the same slot. Reject the call when the tenant is unknown, or derive it from something each caller has.',
    },
    schema: [],
  },
  create(context) {
    return {
      'Program:exit'() {
        const model = getModuleModel(context);
        for (const f of sharedFallback(model)) {
          context.report({
            node: f.fallback,
            messageId: f.kind === 'tenant' ? 'sharedTenantFallback' : 'sharedFallback',
            data: { handler: handlerPhrase(model.handlerOf(f.fallback)), fallback: quote(f.fallbackText ?? context.sourceCode.getText(f.fallback)), what: f.what, scope: quote(context.sourceCode.getText(f.scope as TSESTree.Node)) },
          });
        }
      },
    };
  },
});

function quote(s: string): string {
  return s.length > 50 ? `${s.slice(0, 47)}…` : s;
}
