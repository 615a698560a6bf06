import { AST_NODE_TYPES, type TSESLint } from '@typescript-eslint/utils';
import { getModuleModel, getServerModel, isAnalysed } from '../src/analysis/door.js';
import { MODULE_OPTION_SCHEMAS, modulesOf } from '../src/analysis/options.js';
import { DEFAULT_TEARDOWN_PATTERN, teardownFacts } from '../src/analysis/teardown.js';
import { objectLiteralOf, optionProperty } from '../src/analysis/processes.js';
import { createRule } from '../src/util/create-rule.js';
import { optionRegExp } from '../src/util/option-regexp.js';
import { handlerPhrase } from '../src/util/describe.js';

export type Options = [{ teardownPattern?: string; fsModules?: string[]; processModules?: string[] }];
export type MessageId = 'missingTeardown' | 'notIdempotent' | 'addForce';

export default createRule<Options, MessageId>({
  name: 'require-teardown-tool',
  meta: {
    type: 'suggestion',
    docs: {
      description: "Require a server whose tools keep files under the caller's scope to register an idempotent teardown tool",
      recommended: 'recommended',
    },
    hasSuggestions: true,
    messages: {
      missingTeardown:
        "{{tools}} files under the caller's scope argument, but no teardown tool removes a finished run's data, so it lingers for the next caller of the same scope. Register a tool (for example `teardown`) that takes the scope and removes its directory with `rm(dir, { recursive: true, force: true })`.",
      notIdempotent:
        '{{handler}} removes the scope\'s data with `{{call}}`, which fails when it is already gone: a second teardown of the same run errors. Pass `{ recursive: true, force: true }` or tolerate ENOENT.',
      addForce: 'Add `force: true` (and `recursive: true`) so removing an absent directory succeeds.',
    },
    schema: [
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          teardownPattern: {
            type: 'string',
            description: 'Regular expression (case-insensitive) for the names of tools that tear a scope down.',
          },
          ...MODULE_OPTION_SCHEMAS,
        },
      },
    ],
    defaultOptions: [{ teardownPattern: DEFAULT_TEARDOWN_PATTERN, fsModules: [], processModules: [] }],
  },
  create(context, [options]) {
    const pattern = optionRegExp(options, 'require-teardown-tool', 'teardownPattern', options.teardownPattern ?? DEFAULT_TEARDOWN_PATTERN);
    if (!isAnalysed(context)) return {};
    return {
      'Program:exit'() {
        const model = getModuleModel(context);
        if (!model.servesCalls) return;
        const facts = teardownFacts(model, pattern, modulesOf(options));
        // A question about the server, not the file: with whole-server analysis a teardown tool in any module counts.
        const server = getServerModel(context, { allowMissing: true });
        const elsewhere = () => !!server && server.toolNames().some((n) => pattern.test(n));
        if (facts.scopedTools.size > 0 && facts.teardownTools.length === 0 && facts.anchor && !elsewhere()) {
          const tools = [...facts.scopedTools.keys()].map((t) => `'${t}'`);
          context.report({ node: facts.anchor, messageId: 'missingTeardown', data: { tools: tools.length > 1 ? `Tools ${tools.join(', ')} keep` : `Tool ${tools[0]} keeps` } });
        }
        for (const f of facts.notIdempotent) {
          const method = f.method.replace(/Sync$/, '');
          const suggest: TSESLint.SuggestionReportDescriptor<MessageId>[] = [];
          if (method === 'rm') {
            const optArg = f.call.arguments[1];
            const lit = optArg ? objectLiteralOf(model.facts, optArg) : null;
            if (!optArg && f.call.arguments[0]) {
              suggest.push({ messageId: 'addForce', fix: (fixer) => fixer.insertTextAfter(f.call.arguments[0], ', { recursive: true, force: true }') });
            } else if (lit && lit === optArg) {
              const force = optionProperty(lit, 'force');
              const rec = optionProperty(lit, 'recursive');
              const add = [rec ? null : 'recursive: true', force ? null : 'force: true'].filter(Boolean).join(', ');
              suggest.push({
                messageId: 'addForce',
                fix: (fixer) => {
                  if (force) return fixer.replaceText(force.value, 'true');
                  const last = lit.properties[lit.properties.length - 1];
                  return last ? fixer.insertTextAfter(last, `, ${add}`) : fixer.replaceText(lit, `{ ${add} }`);
                },
              });
            }
          }
          context.report({ node: f.call.callee.type === AST_NODE_TYPES.MemberExpression ? f.call.callee.property : f.call.callee, messageId: 'notIdempotent', data: { handler: handlerPhrase(model.handlerOf(f.call)), call: f.method }, suggest });
        }
      },
    };
  },
});
