import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { memberName, unwrap } from '../src/analysis/ast.js';
import { getModuleModel, isAnalysed } from '../src/analysis/door.js';
import { MODULE_OPTION_SCHEMAS, modulesOf } from '../src/analysis/options.js';
import { fixedReason, getPathAnalysis, isFixed, isSessionKeyed, quote } from '../src/analysis/paths.js';
import { createRule } from '../src/util/create-rule.js';
import { handlerPhrase } from '../src/util/describe.js';

export type Options = [{ fsModules?: string[]; processModules?: string[] }];
export type MessageId = 'startupTempDir' | 'sharedCwd' | 'sessionDir';

export default createRule<Options, MessageId>({
  name: 'no-shared-scratch-dir',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow one scratch directory shared by every caller: a start-up mkdtemp, a fixed working directory, or one keyed by MCP session identity',
      recommended: 'recommended',
    },
    messages: {
      startupTempDir:
        "`{{name}}` is one scratch directory made at start-up and used by {{handler}}: every caller reads and writes the same directory. Make the directory inside the call (`await mkdtemp(…)` in the handler) or derive it from the caller's workspace.",
      sharedCwd:
        "{{handler}} runs `{{call}}` with `cwd: {{path}}`, one working directory for every caller ({{reason}}). Use a directory derived from the caller's workspace, or one made by `mkdtemp` inside the call.",
      sessionDir:
        "{{handler}} derives its working files from MCP session identity (`{{session}}`): a harness keeps one session for a whole run and a shared server serves several sessions at once, so every call of a run, and every run that reuses the session, shares this directory. Take the scope as an argument (workspace, run id) and derive the directory from it.",
    },
    schema: [{ type: 'object', additionalProperties: false, properties: { ...MODULE_OPTION_SCHEMAS } }],
    defaultOptions: [{ fsModules: [], processModules: [] }],
  },
  create(context, [options]) {
    if (!isAnalysed(context)) return {};
    return {
      'Program:exit'() {
        const model = getModuleModel(context);
        if (!model.servesCalls) return;
        const analysis = getPathAnalysis(model, { modules: modulesOf(options) });
        const facts = model.facts;
        for (const f of analysis.fsCalls) {
          if (f.effect !== 'mkdtemp' || model.isHandlerCode(f.call)) continue;
          let n: TSESTree.Node = f.call;
          while (n.parent && (n.parent.type === AST_NODE_TYPES.AwaitExpression || n.parent.type === AST_NODE_TYPES.TSAsExpression || n.parent.type === AST_NODE_TYPES.TSNonNullExpression)) n = n.parent;
          const p = n.parent;
          let name: string | null = null;
          let use: TSESTree.Node | null = null;
          if (p?.type === AST_NODE_TYPES.VariableDeclarator && p.init === n && p.id.type === AST_NODE_TYPES.Identifier) {
            const v = facts.variableOf(p.id);
            name = p.id.name;
            use = v?.references.find((r) => !r.init && model.isHandlerCode(r.identifier))?.identifier ?? null;
          } else if (p?.type === AST_NODE_TYPES.AssignmentExpression && p.right === n) {
            const left = unwrap(p.left);
            if (left.type === AST_NODE_TYPES.Identifier) {
              const v = facts.variableOf(left);
              name = left.name;
              use = v?.references.find((r) => r.isRead() && model.isHandlerCode(r.identifier))?.identifier ?? null;
            } else if (left.type === AST_NODE_TYPES.MemberExpression && unwrap(left.object).type === AST_NODE_TYPES.ThisExpression) {
              const field = memberName(left);
              name = `this.${field}`;
              use = facts.thisMembers.find((m) => memberName(m) === field && m !== left && model.isHandlerCode(m)) ?? null;
            }
          }
          if (!name || !use) continue;
          context.report({ node: f.call, messageId: 'startupTempDir', data: { name, handler: handlerPhrase(model.handlerOf(use)) } });
        }
        for (const p of analysis.processCalls) {
          const h = model.handlerOf(p.call);
          if (!h) continue;
          const cwd = analysis.processOptions(p).props.get('cwd');
          if (!cwd) continue;
          const trace = analysis.trace(cwd, p.call);
          // A start-up mkdtemp is reported where it is made.
          if (!isFixed(trace) || trace.tags.has('random-startup')) continue;
          context.report({ node: cwd, messageId: 'sharedCwd', data: { handler: handlerPhrase(h), call: p.name, path: quote(context.sourceCode.getText(cwd)), reason: fixedReason(trace) } });
        }
        // Directories and files keyed by MCP session identity: reported once, where the session enters the path.
        const sessionSeen = new Set<TSESTree.Node>();
        const sessionSinks: { node: TSESTree.Node; at: TSESTree.Node }[] = [];
        for (const p of analysis.processCalls) {
          const cwd = model.isHandlerCode(p.call) ? analysis.processOptions(p).props.get('cwd') : undefined;
          if (cwd) sessionSinks.push({ node: cwd, at: p.call });
        }
        for (const f of analysis.fsCalls) {
          if (!model.isHandlerCode(f.call)) continue;
          for (const { arg, effect } of analysis.pathArgs(f)) if (effect !== 'meta') sessionSinks.push({ node: arg, at: f.call });
        }
        for (const s of sessionSinks.sort((a, b) => a.at.range[0] - b.at.range[0])) {
          const t = analysis.trace(s.node, s.at);
          if (!isSessionKeyed(t) || sessionSeen.has(t.sessionAt!)) continue;
          sessionSeen.add(t.sessionAt!);
          context.report({ node: t.sessionAt!, messageId: 'sessionDir', data: { handler: handlerPhrase(model.handlerOf(s.at)), session: quote(context.sourceCode.getText(t.sessionAt!)) } });
        }
      },
    };
  },
});
