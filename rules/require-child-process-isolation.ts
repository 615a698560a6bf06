import { AST_NODE_TYPES, type TSESLint, type TSESTree } from '@typescript-eslint/utils';
import path from 'node:path';
import { wrapperProcessAt } from '../src/analysis/isolation.js';
import { isLookupCommand } from '../src/analysis/shell.js';
import { getModuleModel, isAnalysed } from '../src/analysis/door.js';
import { MODULE_OPTION_SCHEMAS, modulesOf } from '../src/analysis/options.js';
import { getPathAnalysis, isPerCall, type PathAnalysis } from '../src/analysis/paths.js';
import type { ProcessCall } from '../src/analysis/processes.js';
import type { Scope } from '../src/analysis/door.js';
import { createRule } from '../src/util/create-rule.js';
import { handlerPhrase } from '../src/util/describe.js';

export type Options = [{ fsModules?: string[]; processModules?: string[] }];
export type MessageId = 'notIsolated' | 'notIsolatedWrapper' | 'addIsolation';

const DIR_NAME = /dir|cwd|workspace|work|root|tmp|temp|home|folder|sandbox/i;

export default createRule<Options, MessageId>({
  name: 'require-child-process-isolation',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require child processes started by handler code to get a per-call cwd, HOME and TMPDIR',
      recommended: 'recommended',
    },
    hasSuggestions: true,
    messages: {
      notIsolated:
        "{{handler}} starts a child process with `{{call}}` {{missing}}: tools write caches and config under $HOME and $TMPDIR and resolve relative paths from the working directory, so concurrent callers read each other's scratch. Pass `cwd` and `env: { ...process.env, HOME: dir, TMPDIR: dir }` with `dir` derived from the caller's workspace.",
      notIsolatedWrapper:
        "{{handler}} starts a child process through `{{callee}}` (`{{name}}` at {{where}}) {{missing}}: tools write caches and config under $HOME and $TMPDIR and resolve relative paths from the working directory, so concurrent callers read each other's scratch. {{fix}}",
      addIsolation: 'Run it in `{{dir}}`: add {{what}}.',
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
        for (const p of analysis.processCalls) {
          const h = model.handlerOf(p.call);
          if (!h || isLookupCommand(p)) continue;
          const { literal, props, opaque } = analysis.processOptions(p);
          if (p.options && !literal) continue; // options the module does not show
          const missing: string[] = [];
          const cwd = props.get('cwd');
          if (!cwd && !opaque) missing.push('no `cwd`');
          const envExpr = props.get('env');
          let envFix: ((fixer: TSESLint.RuleFixer, dir: string) => TSESLint.RuleFix | null) | null = null;
          if (!envExpr) {
            if (!opaque) missing.push('no `env` (it inherits the server\'s HOME and TMPDIR)');
          } else {
            const env = analysis.envOf(envExpr, p.call);
            if (env.inherits && env.keys.size === 0 && !env.literal) {
              missing.push('`env: process.env` (the server\'s HOME and TMPDIR)');
              if (envExpr.type !== AST_NODE_TYPES.Identifier) envFix = (fixer, dir) => fixer.replaceText(envExpr, `{ ...process.env, HOME: ${dir}, TMPDIR: ${dir} }`);
            } else if (!env.opaque || env.inherits) {
              const absent = ['HOME', 'TMPDIR'].filter((k) => !env.keys.has(k));
              // A value every caller shares (a start-up mkdtemp is reported where it is made, by no-shared-scratch-dir).
              const shared = ['HOME', 'TMPDIR'].filter((k) => {
                if (!env.keys.has(k)) return false;
                const t = analysis.trace(env.keys.get(k)!, p.call);
                return !isPerCall(t) && !t.tags.has('unknown') && !t.tags.has('random-startup');
              });
              if (absent.length) {
                missing.push(`an \`env\` without ${absent.map((k) => `\`${k}\``).join(' and ')}`);
                const lit = env.literal;
                if (lit) envFix = (fixer, dir) => insertProps(fixer, lit, absent.map((k) => `${k}: ${dir}`).join(', '));
              }
              if (shared.length) missing.push(`${shared.map((k) => `\`${k}\``).join(' and ')} set to a value every caller shares`);
            }
          }
          if (missing.length === 0) continue;
          const dir = literal ? perCallDir(analysis, context.sourceCode, p, cwd) : null;
          const suggest: TSESLint.SuggestionReportDescriptor<MessageId>[] = [];
          if (dir && literal) {
            const what: string[] = [];
            const additions: string[] = [];
            if (!cwd) {
              additions.push(`cwd: ${dir}`);
              what.push('`cwd`');
            }
            if (!envExpr) {
              additions.push(`env: { ...process.env, HOME: ${dir}, TMPDIR: ${dir} }`);
              what.push('`env` with HOME and TMPDIR');
            } else if (envFix) what.push('HOME and TMPDIR');
            if (what.length) {
              suggest.push({
                messageId: 'addIsolation',
                data: { dir, what: what.join(' and ') },
                fix: (fixer) => {
                  const fixes: TSESLint.RuleFix[] = [];
                  if (additions.length) fixes.push(insertProps(fixer, literal, additions.join(', ')));
                  if (envExpr && envFix) {
                    const f = envFix(fixer, dir);
                    if (f) fixes.push(f);
                  }
                  return fixes;
                },
              });
            }
          }
          context.report({ node: p.call.callee, messageId: 'notIsolated', data: { handler: handlerPhrase(h), call: p.name, missing: `with ${missing.join(', ')}` }, suggest });
        }
        // Handler calls into project wrappers in other modules (whole-server analysis): judged by what the wrapper does
        // with the options this call gives it, reported here with the wrapper's line.
        const modules = modulesOf(options);
        for (const call of model.facts.allCalls) {
          if (call.type !== AST_NODE_TYPES.CallExpression) continue;
          const h = model.handlerOf(call);
          if (!h) continue;
          const w = wrapperProcessAt(analysis, call, modules);
          if (!w) continue;
          const where = `${path.relative(context.cwd, w.effect.site.fileName) || w.effect.site.fileName}:${w.effect.site.line}`;
          const fix = w.passesOptions
            ? "Pass `cwd` and `env: { ...process.env, HOME: dir, TMPDIR: dir }` in the options this call gives it, with `dir` derived from the caller's workspace."
            : "Give the wrapper a per-call `cwd` and `env` (HOME and TMPDIR) and pass a directory derived from the caller's workspace from here.";
          context.report({ node: call.callee, messageId: 'notIsolatedWrapper', data: { handler: handlerPhrase(h), callee: context.sourceCode.getText(call.callee), name: w.effect.site.name, where, missing: `with ${w.missing.join(', ')}`, fix } });
        }
      },
    };
  },
});

function insertProps(fixer: TSESLint.RuleFixer, obj: TSESTree.ObjectExpression, text: string): TSESLint.RuleFix {
  const last = obj.properties[obj.properties.length - 1];
  if (!last) return fixer.replaceText(obj, `{ ${text} }`);
  return fixer.insertTextAfter(last, `, ${text}`);
}

/** A per-call directory visible at the call: the cwd it already gets, or a handler-local variable derived from the call. */
function perCallDir(analysis: PathAnalysis, sourceCode: Readonly<TSESLint.SourceCode>, p: ProcessCall, cwd: TSESTree.Node | undefined): string | null {
  if (cwd && cwd.type === AST_NODE_TYPES.Identifier && isPerCall(analysis.trace(cwd, p.call))) return cwd.name;
  const model = analysis.model;
  // The closest handler-local directory variable derived from the call (a contained one first); never the raw argument.
  let fallback: string | null = null;
  let scope: Scope | null = model.facts.scopeOf(p.call);
  while (scope && scope.type !== 'module' && scope.type !== 'global') {
    for (const v of scope.variables) {
      const def = v.defs[0];
      if (!def || def.type !== 'Variable' || !DIR_NAME.test(v.name) || def.name.range[0] > p.call.range[0]) continue;
      if (!model.isHandlerCode(def.name)) continue;
      const t = analysis.trace(def.name as TSESTree.Identifier, p.call);
      if (!t.tags.has('scope') && !t.tags.has('random-call')) continue;
      if (!t.rawInput) return v.name;
      fallback ??= v.name;
    }
    scope = scope.upper as Scope | null;
  }
  return fallback;
}
