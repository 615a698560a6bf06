import { getModuleModel, isAnalysed } from '../src/analysis/door.js';
import { MODULE_OPTION_SCHEMAS, modulesOf } from '../src/analysis/options.js';
import { getPathAnalysis, isPerCall, quote } from '../src/analysis/paths.js';
import { createRule } from '../src/util/create-rule.js';
import { handlerPhrase } from '../src/util/describe.js';
import { guardPathCall, guardPathVariable } from '../src/util/fixes.js';
import { AST_NODE_TYPES, type TSESLint, type TSESTree } from '@typescript-eslint/utils';

export type Options = [{ guards?: string[]; trustImportedGuardNames?: boolean; fsModules?: string[]; processModules?: string[] }];
export type MessageId = 'unguarded' | 'unsoundGuard' | 'addGuard';

export default createRule<Options, MessageId>({
  name: 'no-unguarded-path-join',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow filesystem and process paths built from a tool argument without a containment guard',
      recommended: 'recommended',
      strictOptions: [{ trustImportedGuardNames: false }],
    },
    hasSuggestions: true,
    messages: {
      addGuard: 'Resolve `{{name}}` and throw unless it is inside `{{root}}`.',
      unguarded:
        "{{handler}} passes `{{path}}`, built from a tool argument, to `{{call}}` with no containment check: `..` or an absolute path reaches other callers' workspaces. Resolve it under the workspace root and reject it unless it equals the root or starts with `root + path.sep` (or use a guard function).",
      unsoundGuard:
        "This check does not contain the path {{handler}} passes to `{{call}}` (`{{path}}`): {{reason}}. Resolve the path, then require `resolved === root || resolved.startsWith(root + path.sep)` (or `path.relative(root, resolved)` not starting with `..`).",
    },
    schema: [
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          guards: {
            type: 'array',
            items: { type: 'string', minLength: 1 },
            description: 'Names of functions trusted as containment guards: their result, or a value passed to them before use, is treated as contained.',
          },
          trustImportedGuardNames: {
            type: 'boolean',
            description: 'Treat a call to an imported function named like a guard (validatePath, ensureInside…) as a guard, since its body is in another file.',
          },
          ...MODULE_OPTION_SCHEMAS,
        },
      },
    ],
    defaultOptions: [{ guards: [], trustImportedGuardNames: true, fsModules: [], processModules: [] }],
  },
  create(context, [options]) {
    if (!isAnalysed(context)) return {};
    return {
      'Program:exit'() {
        const model = getModuleModel(context);
        if (!model.servesCalls) return;
        const analysis = getPathAnalysis(model, { guards: options.guards ?? [], trustImportedGuardNames: options.trustImportedGuardNames ?? true, modules: modulesOf(options) });
        const sinks: { node: TSESTree.Node; at: TSESTree.Node; call: string; reportAt?: TSESTree.Node }[] = [];
        for (const f of analysis.fsCalls) {
          if (!model.isHandlerCode(f.call)) continue;
          // realpath is how a guard resolves symlinks before its check: not a use of the path.
          if (/^realpath/.test(f.method)) continue;
          for (const { arg, reportAt } of analysis.pathArgs(f)) sinks.push({ node: arg, at: f.call, call: f.method, reportAt });
        }
        // A database or JSON-file store opened at a path the caller names opens (or creates) any file the server can.
        for (const s of analysis.storeOpens) {
          if (model.isHandlerCode(s.open)) sinks.push({ node: s.path, at: s.open, call: storeCallName(s.open) });
        }
        for (const p of analysis.processCalls) {
          if (!model.isHandlerCode(p.call)) continue;
          const cwd = analysis.processOptions(p).props.get('cwd');
          if (cwd) sinks.push({ node: cwd, at: p.call, call: `${p.name}({ cwd })` });
        }
        // A guard that looks right and is not is reported once, at the guard, naming the first path it lets through.
        const unsoundReported = new Set<TSESTree.Node>();
        for (const s of sinks) {
          const t = analysis.trace(s.node, s.at);
          if (!t.rawInput) continue;
          const data = { handler: t.handedBy ?? handlerPhrase(model.handlerOf(s.at)), path: quote(context.sourceCode.getText(s.node)), call: s.call };
          if (t.unsound) {
            if (unsoundReported.has(t.unsound.node)) continue;
            unsoundReported.add(t.unsound.node);
            context.report({ node: t.unsound.node, messageId: 'unsoundGuard', data: { handler: data.handler, path: data.path, call: data.call, reason: t.unsound.reason } });
          } else {
            // A guard is only worth suggesting under a root the caller does not choose (`path.resolve(args.dir, name)`
            // has none) and at a path passed straight to the call (not one set inside an options object).
            const suggest = !s.reportAt && fixedRoot(model, analysis, s.node, s.at) ? guardSuggestion(context.sourceCode, s.node) : [];
            context.report({ node: s.reportAt ?? s.node, messageId: 'unguarded', data, ...(suggest.length ? { suggest } : {}) });
          }
        }
      },
    };
  },
});

/** How a report names a store's open: `new Database(…)`, `open(…)`. */
function storeCallName(open: TSESTree.CallExpression | TSESTree.NewExpression): string {
  const c = open.callee;
  const name = c.type === AST_NODE_TYPES.Identifier ? c.name : c.type === AST_NODE_TYPES.MemberExpression && c.property.type === AST_NODE_TYPES.Identifier ? c.property.name : 'open';
  return open.type === AST_NODE_TYPES.NewExpression ? `new ${name}` : name;
}

/** A containment guard where the path is built in reach: `fs.x(path.join(root, arg))` or `const p = path.join(root, arg)`. */
/** Is the first argument of the join (directly, or in the declaration of the variable passed) fixed for the process? */
function fixedRoot(model: ReturnType<typeof getModuleModel>, analysis: ReturnType<typeof getPathAnalysis>, node: TSESTree.Node, at: TSESTree.Node): boolean {
  let n: TSESTree.Node = node;
  if (n.type === AST_NODE_TYPES.Identifier) {
    const def = model.facts.variableOf(n)?.defs[0];
    const init = def?.type === 'Variable' ? (def.node as TSESTree.VariableDeclarator).init : null;
    if (!init) return false;
    n = init;
  }
  if (n.type !== AST_NODE_TYPES.CallExpression || n.arguments.length < 2) return false;
  // A root that caller text reaches (a "current project" another call set) is no root to guard under.
  const root = analysis.trace(n.arguments[0], at);
  return !isPerCall(root) && !root.rawInput;
}

function guardSuggestion(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.Node): TSESLint.SuggestionReportDescriptor<MessageId>[] {
  const guard = node.type === AST_NODE_TYPES.Identifier ? guardPathVariable(sourceCode, node) : guardPathCall(sourceCode, node);
  return guard ? [{ messageId: 'addGuard', data: { name: guard.name, root: guard.root }, fix: guard.fix }] : [];
}
