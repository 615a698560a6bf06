import path from 'node:path';
import { ESLintUtils, type TSESLint } from '@typescript-eslint/utils';
import { AnalysisBudgetExceeded, warnBudget } from '../analysis/budget.js';
import { indexListeners } from '../analysis/door.js';

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
export function createRule<Options extends readonly unknown[], MessageIds extends string>(
  spec: RuleSpec<Options, MessageIds>,
  /** `index: false` for rules that never read the module index (the definition rules): they do not build it. */
  { index: builds = true }: { index?: boolean } = {},
) {
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
      const buffered = new BufferedContext<MessageIds>(context);
      const listeners = create(buffered as unknown as typeof context, options) as Record<string, ((...args: unknown[]) => void) | undefined>;
      let any = false;
      for (const _ in listeners) {
        any = true;
        break;
      }
      // A rule that has nothing to ask of this file (most files of a server): no listeners to guard.
      if (!any) return listeners as never;
      const guarded: Record<string, (a?: unknown, b?: unknown, c?: unknown, d?: unknown) => void> = {};
      // The first rule that analyses this file also builds its index during ESLint's traversal (these listeners cannot
      // pass the step budget: they only file nodes).
      const index = builds ? indexListeners(context) : null;
      if (index) for (const selector in index) guarded[selector] = index[selector] as (a?: unknown) => void;
      for (const selector in listeners) {
        const listener = listeners[selector];
        if (!listener) continue;
        const indexing = guarded[selector];
        // Listeners get at most a node and a few code-path arguments: fixed parameters, no rest array per call.
        guarded[selector] = (a?: unknown, b?: unknown, c?: unknown, d?: unknown) => {
          indexing?.(a);
          if (stopped) return;
          buffered.buffering = true;
          try {
            try {
              listener(a, b, c, d);
            } catch (e) {
              // Another module's budget, met while this file's question reached into it: the server model has left that
              // module out by now, so the question is asked once more without it.
              if (!(e instanceof AnalysisBudgetExceeded) || path.resolve(e.fileName) === path.resolve(context.filename)) throw e;
              warnBudget(e);
              buffered.pending.length = 0;
              listener(a, b, c, d);
            }
          } catch (e) {
            if (!(e instanceof AnalysisBudgetExceeded)) throw e;
            stopped = true;
            buffered.pending.length = 0;
            warnBudget(e);
            return;
          } finally {
            buffered.buffering = false;
          }
          if (buffered.pending.length > 0) for (const d of buffered.pending.splice(0)) context.report(d);
        };
      }
      return guarded as never;
    },
  } as typeof rule;
}

type AnyRuleContext = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

/**
 * The context a rule sees: ESLint's, with `report` held back while a listener runs (so an interrupted listener's reports
 * can be dropped). A class with getters rather than `Object.create(context)`: making each rule's frozen context the
 * prototype of another object cost V8 a prototype-map copy, about 4 µs per rule and file, more than a file that serves
 * no call costs the whole analysis.
 */
class BufferedContext<MessageIds extends string> {
  buffering = false;
  readonly pending: TSESLint.ReportDescriptor<MessageIds>[] = [];

  constructor(private readonly inner: AnyRuleContext) {}

  readonly report = (d: TSESLint.ReportDescriptor<MessageIds>): void => {
    if (this.buffering) this.pending.push(d);
    else this.inner.report(d);
  };

  get id() {
    return this.inner.id;
  }
  get options() {
    return this.inner.options;
  }
  get settings() {
    return this.inner.settings;
  }
  get languageOptions() {
    return this.inner.languageOptions;
  }
  get parserOptions() {
    return this.inner.parserOptions;
  }
  get parserPath() {
    return this.inner.parserPath;
  }
  get cwd() {
    return this.inner.cwd;
  }
  get filename() {
    return this.inner.filename;
  }
  get physicalFilename() {
    return this.inner.physicalFilename;
  }
  get sourceCode() {
    return this.inner.sourceCode;
  }
}
