import type { TSESTree } from '@typescript-eslint/utils';
import { getModuleModel, isAnalysed } from '../src/analysis/door.js';
import { sharedFallback } from '../src/analysis/fallback.js';
import { createRule } from '../src/util/create-rule.js';
import { handlerPhrase } from '../src/util/describe.js';

export type Options = [];
export type MessageId = 'sharedFallback' | 'sharedTenantFallback' | 'sharedCredentialFallback';

export default createRule<Options, MessageId>({
  name: 'no-shared-scope-fallback',
  meta: {
    type: 'problem',
    docs: {
      description: "Disallow falling back to a shared or privileged directory, a shared tenant or the server's own credential when the caller's is missing",
      recommended: 'recommended',
    },
    messages: {
      sharedFallback:
        "{{handler}} falls back to `{{fallback}}` ({{what}}) when `{{scope}}` is missing, so every call without a scope lands in the same place, shared with the server and each other. Fall back to a dedicated ad-hoc directory under the runs root (`path.join(RUNS_ROOT, '_adhoc')`) or reject the call.",
      sharedTenantFallback:
        '{{handler}} falls back to {{what}} when `{{scope}}` is missing: every caller without one reads and writes the same slot. Reject the call when the tenant is unknown, or derive it from something each caller has.',
      sharedCredentialFallback:
        "{{handler}} falls back to {{what}} (`{{fallback}}`) when `{{scope}}` is missing: a caller that brings no credential of its own acts with the operator's identity, quota and access. Reject the call without the caller's credential, or make using the server's own an explicit setting rather than the silent default.",
    },
    schema: [],
  },
  create(context) {
    if (!isAnalysed(context)) return {};
    return {
      'Program:exit'() {
        const model = getModuleModel(context);
        if (!model.servesCalls) return;
        for (const f of sharedFallback(model)) {
          context.report({
            node: f.fallback,
            messageId: f.kind === 'tenant' ? 'sharedTenantFallback' : f.kind === 'credential' ? 'sharedCredentialFallback' : 'sharedFallback',
            data: { handler: handlerPhrase(f.handler ?? model.handlerOf(f.fallback)), fallback: quote(f.fallbackText ?? context.sourceCode.getText(f.fallback)), what: f.what, scope: quote(context.sourceCode.getText(f.scope as TSESTree.Node)) },
          });
        }
      },
    };
  },
});

function quote(s: string): string {
  return s.length > 50 ? `${s.slice(0, 47)}…` : s;
}
