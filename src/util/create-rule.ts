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
  // RuleCreator deep-clones the defaults into the options for every file and rule; ESLint hands the same few option
  // sets file after file, so the merged options are computed once per distinct set (rules never mutate them).
  const defaults = (spec.meta.defaultOptions ?? []) as unknown as Options;
  const merged = new Map<string, Options>();
  const optionsFor = (given: readonly unknown[]): Options => {
    const key = JSON.stringify(given);
    let options = merged.get(key);
    if (!options) {
      options = ESLintUtils.applyDefault(defaults, given as Options) as Options;
      if (merged.size < 64) merged.set(key, options);
    }
    return options;
  };
  return {
    ...rule,
    create(context: Parameters<typeof rule.create>[0]) {
      const options = optionsFor(context.options);
      let stopped = false;
      const pending: TSESLint.ReportDescriptor<MessageIds>[] = [];
      let buffering = false;
      const buffered = Object.create(context, {
        report: {
          value: (d: TSESLint.ReportDescriptor<MessageIds>) => (buffering ? pending.push(d) : context.report(d)),
        },
      }) as typeof context;
      const listeners = create(buffered, options) as Record<string, ((...args: unknown[]) => void) | undefined>;
      const guarded: Record<string, (...args: unknown[]) => void> = {};
      for (const [selector, listener] of Object.entries(listeners)) {
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
          for (const d of pending.splice(0)) context.report(d);
        };
      }
      return guarded as never;
    },
  } as typeof rule;
}
