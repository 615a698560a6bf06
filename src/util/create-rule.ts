import { ESLintUtils } from '@typescript-eslint/utils';

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

export const createRule = ESLintUtils.RuleCreator<McpRuleDocs>(docsUrl);
