// Variants of the spec-style command runner (tests/fixtures/command-runner/server.ts) seen in real servers: where the
// workspace comes from MCP session identity, and where a missing scope falls back to the process's working directory or
// to the runs root itself. Each is one string edit of the clean source and produces exactly one report, at the line
// where the scope goes wrong.
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';

const source = readFileSync(path.resolve(import.meta.dirname, '../fixtures/command-runner/server.ts'), 'utf8');

function lint(code: string, config: 'recommended' | 'strict'): string[] {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tsParser as never } }, ...(plugin.configs[config] as never[])], 'server.ts');
  return messages.map((m) => `${m.line}:${m.column} ${m.ruleId ?? `fatal: ${m.message}`}`);
}

function edit(edits: [string, string][]): string {
  let code = source;
  for (const [from, to] of edits) {
    expect(code, `the fixture no longer contains ${JSON.stringify(from)}`).toContain(from);
    code = code.replace(from, to);
  }
  return code;
}

const HANDLER_HEAD = "inputSchema: { command: z.string(), timeout: z.number().default(300), workspace: z.string().default('') } },\n  async ({ command, timeout, workspace }) => {\n    const cwd = workspaceDir(workspace);";
const CHECK = "  const name = workspace || '_adhoc';\n  const dir = path.resolve(RUNS_ROOT, name);\n  const rel = path.relative(RUNS_ROOT, dir);\n  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw";

const VARIANTS: { name: string; edits: [string, string][]; expected: string }[] = [
  {
    name: 'the workspace is keyed by the MCP session',
    edits: [[HANDLER_HEAD, "inputSchema: { command: z.string(), timeout: z.number().default(300) } },\n  async ({ command, timeout }, extra) => {\n    const cwd = workspaceDir(extra.sessionId ?? 'local');"]],
    expected: '40:30 mcp-stateless/no-shared-scratch-dir',
  },
  {
    name: 'the workspace path joins the session id onto the runs root',
    edits: [[HANDLER_HEAD, "inputSchema: { command: z.string(), timeout: z.number().default(300) } },\n  async ({ command, timeout }, extra) => {\n    const cwd = path.join(RUNS_ROOT, String(extra.sessionId));"]],
    expected: '40:45 mcp-stateless/no-shared-scratch-dir',
  },
  {
    name: "a missing scope falls back to the process's working directory (in the handler)",
    edits: [['    const cwd = workspaceDir(workspace);', '    const cwd = workspace ? workspaceDir(workspace) : process.cwd();']],
    expected: '40:55 mcp-stateless/no-shared-scope-fallback',
  },
  {
    name: "a missing scope falls back to the process's working directory (in the helper)",
    edits: [["  const name = workspace || '_adhoc';\n", '  if (!workspace) return process.cwd();\n  const name = workspace;\n']],
    expected: '16:26 mcp-stateless/no-shared-scope-fallback',
  },
  {
    name: "an empty default scope resolves to the runs root past a guard that allows dir === root",
    edits: [[CHECK, '  const dir = path.resolve(RUNS_ROOT, workspace);\n  if (dir !== RUNS_ROOT && !dir.startsWith(RUNS_ROOT + path.sep)) throw']],
    expected: '16:39 mcp-stateless/no-shared-scope-fallback',
  },
  {
    name: 'a missing scope falls back to the runs root',
    edits: [["  const name = workspace || '_adhoc';\n  const dir = path.resolve(RUNS_ROOT, name);", '  const dir = workspace ? path.resolve(RUNS_ROOT, workspace) : RUNS_ROOT;']],
    expected: '16:64 mcp-stateless/no-shared-scope-fallback',
  },
];

describe('spec-style command runner, variants seen in real servers', () => {
  for (const v of VARIANTS) {
    it(`one report: ${v.name}`, () => {
      const code = edit(v.edits);
      expect(lint(code, 'recommended')).toEqual([v.expected]);
      expect(lint(code, 'strict')).toEqual([v.expected]);
    });
  }

  it('a guard that allows dir === root is fine when an empty scope never reaches it', () => {
    const code = edit([[CHECK, "  const name = workspace || '_adhoc';\n  const dir = path.resolve(RUNS_ROOT, name);\n  if (dir !== RUNS_ROOT && !dir.startsWith(RUNS_ROOT + path.sep)) throw"]]);
    expect(lint(code, 'strict')).toEqual([]);
  });
});
