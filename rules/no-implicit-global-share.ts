import type { TSESLint } from '@typescript-eslint/utils';
import {
  describeValue,
  holderFieldEditable,
  holderFieldLocation,
  knownValue,
  NOT_KNOWN,
  propertyRemovalRange,
  reportNode,
  replaceWithString,
  serverLabel,
  visitDefinitionRecords,
  type DefinitionRecord,
  type SetField,
} from '../src/analysis/definitions.js';
import { createRule } from '../src/util/create-rule.js';

export type Options = [{ allowGlobal?: string[] }];
export type MessageId = 'globalNotAllowed' | 'globalUnnamed' | 'scopeWithoutShared' | 'useTenant' | 'removeScope';

export default createRule<Options, MessageId>({
  name: 'no-implicit-global-share',
  meta: {
    type: 'problem',
    docs: {
      description: "Disallow `shareScope: 'global'` unless the server is listed in `allowGlobal`, and shareScope on non-shared servers",
      recommended: 'strict',
    },
    languages: ['js/js', 'json/json', 'json/jsonc', 'json/json5'],
    hasSuggestions: true,
    messages: {
      globalNotAllowed:
        "{{server}} sets shareScope 'global': one instance then serves every tenant, and any leak between sessions becomes a cross-tenant data leak. Widening to 'global' is a deliberate opt-in: after review, add '{{name}}' to this rule's allowGlobal option; otherwise use 'tenant'.",
      globalUnnamed:
        "{{server}} sets shareScope 'global' but has no literal name or id, so it cannot be opted in through allowGlobal. 'global' turns any leak between sessions into a cross-tenant data leak; give the record a literal name and list it in allowGlobal after review, or use 'tenant'.",
      scopeWithoutShared:
        "{{server}} sets shareScope {{scope}} but its {{modelKey}} is {{model}}; shareScope only means something for 'shared'. Remove it, so that a later widening to 'shared' starts from the default 'tenant' scope.",
      useTenant: "Share per tenant instead: shareScope 'tenant'.",
      removeScope: 'Remove shareScope.',
    },
    schema: [
      {
        type: 'object',
        properties: {
          allowGlobal: {
            type: 'array',
            items: { type: 'string', minLength: 1 },
            uniqueItems: true,
            description:
              "Names (the record's literal `name` or `id`) of servers reviewed and allowed to use shareScope 'global'.",
          },
        },
        additionalProperties: false,
      },
    ],
    defaultOptions: [{ allowGlobal: [] }],
  },
  create(context, [{ allowGlobal = [] }]) {
    const { sourceCode } = context;
    const allowed = new Set(allowGlobal);

    // Suggestions edit only a property written in the record: editing a shared base would change its other users.
    const tenantSuggestion = (record: DefinitionRecord, scope: SetField): TSESLint.ReportSuggestionArray<MessageId> =>
      holderFieldEditable(record, scope)
        ? [{ messageId: 'useTenant', fix: (fixer) => replaceWithString(fixer, sourceCode, record, scope, 'tenant') }]
        : [];
    const removeSuggestion = (record: DefinitionRecord, scope: SetField): TSESLint.ReportSuggestionArray<MessageId> => {
      const range = holderFieldEditable(record, scope) ? propertyRemovalRange(sourceCode.text, scope.property) : null;
      return range ? [{ messageId: 'removeScope', fix: (fixer) => fixer.removeRange(range) }] : [];
    };

    return visitDefinitionRecords(context, (record) => {
      const scope = record.shareScope;
      if (scope.state !== 'set' || scope.value.kind !== 'known' || scope.value.value === undefined) return;
      const server = serverLabel(record);
      const model = knownValue(record.model);
      if (record.model.state === 'set' && model !== NOT_KNOWN && model !== 'shared') {
        context.report({
          node: reportNode(holderFieldLocation(record, scope)),
          messageId: 'scopeWithoutShared',
          data: { server, scope: describeValue(scope.value), modelKey: record.modelKey, model: describeValue(record.model.value) },
          suggest: removeSuggestion(record, scope),
        });
        return;
      }
      if (scope.value.value !== 'global') return;
      if (record.names.some((name) => allowed.has(name))) return;
      context.report({
        node: reportNode(holderFieldLocation(record, scope)),
        messageId: record.name === null ? 'globalUnnamed' : 'globalNotAllowed',
        data: { server, name: record.name ?? '' },
        suggest: tenantSuggestion(record, scope),
      });
    });
  },
}, { index: false });
