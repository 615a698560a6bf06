import type { TSESLint } from '@typescript-eslint/utils';
import {
  describeValue,
  fieldLocation,
  holderFieldEditable,
  knownValue,
  reportNode,
  replaceWithString,
  serverLabel,
  visitDefinitionRecords,
  type DefinitionRecord,
  type SetField,
} from '../src/analysis/definitions.js';
import { createRule } from '../src/util/create-rule.js';

export type Options = [];
export type MessageId = 'missingProbe' | 'probeNotPassed' | 'availabilityIsNotStatelessness' | 'useSidecar';

export default createRule<Options, MessageId>({
  name: 'require-statelessness-probe',
  meta: {
    type: 'problem',
    docs: {
      description:
        "Require `statelessnessProbePassed: true` on every registry record declaring concurrencyModel 'shared'",
      recommended: 'strict',
    },
    languages: ['js/js', 'json/json', 'json/jsonc', 'json/json5'],
    hasSuggestions: true,
    messages: {
      missingProbe:
        "{{server}} declares concurrencyModel 'shared' without statelessnessProbePassed: true. 'shared' is only sound for a server that passed the interleaved-session statelessness probe; register it as 'sidecar', run the probe, and set the flag only once it passes.",
      probeNotPassed:
        "{{server}} declares concurrencyModel 'shared' but statelessnessProbePassed is {{value}}, not true. A server that has not passed the interleaved-session statelessness probe has not earned 'shared'; register it as 'sidecar' until it passes.",
      availabilityIsNotStatelessness:
        "{{server}} declares concurrencyModel 'shared' with probe.passed: true but statelessnessProbePassed is {{value}}. probe.passed only records the availability gates; it is not the statelessness test. 'shared' needs the interleaved-session probe to pass and statelessnessProbePassed: true.",
      useSidecar: "Register it as 'sidecar' (the default) until the statelessness probe passes.",
    },
    schema: [],
  },
  create(context) {
    const { sourceCode } = context;

    // Deliberately no suggestion that adds `statelessnessProbePassed: true`: only running the probe can say that.
    const sidecarSuggestion = (record: DefinitionRecord): TSESLint.ReportSuggestionArray<MessageId> => {
      const model = record.model as SetField;
      if (!holderFieldEditable(record, model)) return [];
      return [{ messageId: 'useSidecar', fix: (fixer) => replaceWithString(fixer, sourceCode, record, model, 'sidecar') }];
    };

    return visitDefinitionRecords(context, (record) => {
      if (record.form !== 'record' || knownValue(record.model) !== 'shared') return;
      const flag = record.statelessnessProbePassed;
      if (flag.state === 'maybe') return;
      if (flag.state === 'set' && (flag.value.kind === 'unknown' || knownValue(flag) === true)) return;
      const availableOnly = knownValue(record.probePassed) === true;
      const server = serverLabel(record);
      if (flag.state === 'absent') {
        context.report({
          node: reportNode(record.node),
          messageId: availableOnly ? 'availabilityIsNotStatelessness' : 'missingProbe',
          data: { server, value: 'missing' },
          suggest: sidecarSuggestion(record),
        });
        return;
      }
      context.report({
        node: reportNode(fieldLocation(flag)),
        messageId: availableOnly ? 'availabilityIsNotStatelessness' : 'probeNotPassed',
        data: { server, value: describeValue(flag.value) },
        suggest: sidecarSuggestion(record),
      });
    });
  },
}, { index: false });
