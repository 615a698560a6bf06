import type { TSESLint } from '@typescript-eslint/utils';
import {
  describeValue,
  holderFieldEditable,
  holderFieldLocation,
  knownValue,
  reportNode,
  replaceWithString,
  replaceWithText,
  serverLabel,
  visitDefinitionRecords,
  type DefinitionRecord,
  type SetField,
} from '../src/analysis/definitions.js';
import { createRule } from '../src/util/create-rule.js';

export type Options = [];
export type MessageId = 'missingMaxConcurrent' | 'invalidMaxConcurrent' | 'useSidecar' | 'useNumber';

export default createRule<Options, MessageId>({
  name: 'require-max-concurrent',
  meta: {
    type: 'problem',
    docs: {
      description: "Require a positive integer `maxConcurrent` on every MCP server declared 'shared'",
      recommended: 'strict',
    },
    languages: ['js/js', 'json/json', 'json/jsonc', 'json/json5'],
    hasSuggestions: true,
    messages: {
      missingMaxConcurrent:
        "{{server}} declares {{modelKey}} 'shared' but no maxConcurrent. Set maxConcurrent to the number of concurrent calls the box can actually sustain: a shared box that accepts more work than it can run does not fail loudly, it slows down until its timeouts look like findings.",
      invalidMaxConcurrent:
        "{{server}} declares {{modelKey}} 'shared' with maxConcurrent {{value}}, which is not a positive integer. Set it to the whole number of concurrent calls the box can actually sustain.",
      useSidecar: "Register it as 'sidecar' (the default) until a sustainable maxConcurrent is chosen.",
      useNumber: 'Use the number {{value}} instead of a string.',
    },
    schema: [],
  },
  create(context) {
    const { sourceCode } = context;

    /** The 'sidecar' suggestion, offered only when the model is written in this object as a replaceable value. */
    const sidecarSuggestion = (record: DefinitionRecord): TSESLint.ReportSuggestionArray<MessageId> => {
      const model = record.model as SetField;
      if (!holderFieldEditable(record, model)) return [];
      return [{ messageId: 'useSidecar', fix: (fixer) => replaceWithString(fixer, sourceCode, record, model, 'sidecar') }];
    };

    return visitDefinitionRecords(context, (record) => {
      if (knownValue(record.model) !== 'shared') return;
      const data = { server: serverLabel(record), modelKey: record.modelKey };
      const field = record.maxConcurrent;
      if (field.state === 'maybe') return;
      if (field.state === 'absent') {
        context.report({
          node: reportNode(record.holderAt),
          messageId: 'missingMaxConcurrent',
          data,
          suggest: sidecarSuggestion(record),
        });
        return;
      }
      if (field.value.kind === 'unknown') return;
      const value = knownValue(field);
      if (typeof value === 'number' && Number.isInteger(value) && value > 0) return;
      const numeric = typeof value === 'string' && /^[1-9][0-9]*$/.test(value) && holderFieldEditable(record, field);
      context.report({
        node: reportNode(holderFieldLocation(record, field)),
        messageId: 'invalidMaxConcurrent',
        data: { server: data.server, modelKey: data.modelKey, value: describeValue(field.value) },
        suggest: numeric
          ? [{ messageId: 'useNumber', data: { value }, fix: (fixer) => replaceWithText(fixer, field, value) }]
          : [],
      });
    });
  },
}, { index: false });
