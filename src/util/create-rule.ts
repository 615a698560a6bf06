import { ESLintUtils, type TSESLint } from '@typescript-eslint/utils';
import { AnalysisBudgetExceeded, warnBudget } from '../analysis/budget.js';

export const REPO_URL = 'https://github.com/mcp-stateless/eslint-plugin-mcp-stateless';

/** The docs page of a rule; every rule gets one derived from its name. */
export function docsUrl(name: string): string {
  return `${REPO_URL}/blob/main/docs/rules/${name}.md`;
}

export interface McpRuleDocs {
  description: string;
  /** Which shipped config turns the rule on. */
  recommended?: 'recommended' | 'strict';
  requiresTypeChecking?: boolean;
  /** Options the `strict` config passes (defaults apply in `recommended`). */
  strictOptions?: unknown[];
}

const creator = ESLintUtils.RuleCreator<McpRuleDocs>(docsUrl);

type RuleSpec<Options extends readonly unknown[], MessageIds extends string> = Parameters<typeof creator<Options, MessageIds>>[0];

/**
 * `RuleCreator` with the docs URL derived from the rule's name, and the analysis' safety net: when a file's analysis
 * passes its step budget, the rule reports nothing for that file (reports made by the interrupted listener are
 * dropped) and one warning names the file, instead of a crash or a hang.
 */
export function createRule<Options extends readonly unknown[], MessageIds extends string>(spec: RuleSpec<Options, MessageIds>) {
  const create = spec.create;
  const rule = creator<Options, MessageIds>(spec);
  // ESLint (9.15 and later, our peer range) merges `meta.defaultOptions` into `context.options` itself; RuleCreator
  // would deep-merge them again for every file and rule. A host that hands fewer options than there are defaults gets
  // the merge (rules never mutate options).
  const defaults = (spec.meta.defaultOptions ?? []) as unknown as Options;
  const optionsFor = (given: readonly unknown[]): Options =>
    given.length >= defaults.length ? (given as unknown as Options) : (ESLintUtils.applyDefault(defaults, given as Options) as Options);
  return {
    ...rule,
    create(context: Parameters<typeof rule.create>[0]) {
      const options = optionsFor(context.options);
      let stopped = false;
      const pending: TSESLint.ReportDescriptor<MessageIds>[] = [];
      let buffering = false;
      const buffered = Object.create(context) as typeof context;
      Object.defineProperty(buffered, 'report', { value: (d: TSESLint.ReportDescriptor<MessageIds>) => (buffering ? pending.push(d) : context.report(d)) });
      const listeners = create(buffered, options) as Record<string, ((...args: unknown[]) => void) | undefined>;
      const guarded: Record<string, (...args: unknown[]) => void> = {};
      for (const selector in listeners) {
        const listener = listeners[selector];
        if (!listener) continue;
        guarded[selector] = (...args: unknown[]) => {
          if (stopped) return;
          buffering = true;
          try {
            listener(...args);
          } catch (e) {
            if (!(e instanceof AnalysisBudgetExceeded)) throw e;
            stopped = true;
            pending.length = 0;
            warnBudget(context.sourceCode.ast, e);
            return;
          } finally {
            buffering = false;
          }
          if (pending.length > 0) for (const d of pending.splice(0)) context.report(d);
        };
      }
      return guarded as never;
    },
  } as typeof rule;
}
