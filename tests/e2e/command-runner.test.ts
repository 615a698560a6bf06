// The spec-style command runner (tests/fixtures/command-runner/server.ts) lints clean with `recommended`; each
// deliberate single break of it, written here as a string edit of the clean source, produces exactly one report.
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';

const source = readFileSync(path.resolve(import.meta.dirname, '../fixtures/command-runner/server.ts'), 'utf8');

function lint(code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tsParser as never } }, ...(plugin.configs.recommended as never[])], 'server.ts');
  return messages.map((m) => `${m.line}:${m.column} ${m.ruleId ?? `fatal: ${m.message}`}`);
}

/** Apply string edits, failing loudly if the clean source no longer contains what a break edits. */
function broken(edits: [string, string][]): string {
  let code = source;
  for (const [from, to] of edits) {
    expect(code, `the fixture no longer contains ${JSON.stringify(from)}`).toContain(from);
    code = code.replace(from, to);
  }
  return code;
}

const BREAKS: { name: string; edits: [string, string][]; rule: string }[] = [
  { name: 'the child inherits HOME', edits: [['HOME: cwd, TMPDIR: cwd', 'TMPDIR: cwd']], rule: 'require-child-process-isolation' },
  { name: 'TMPDIR is the shared temp dir', edits: [['TMPDIR: cwd }', 'TMPDIR: os.tmpdir() }']], rule: 'require-child-process-isolation' },
  { name: 'the child inherits the whole environment', edits: [['const env = { ...process.env, HOME: cwd, TMPDIR: cwd };', 'const env = process.env;']], rule: 'require-child-process-isolation' },
  { name: 'no per-call cwd', edits: [['{ cwd, env, timeout', '{ env, timeout']], rule: 'require-child-process-isolation' },
  { name: 'a missing scope falls back to $HOME', edits: [["workspace || '_adhoc'", 'workspace || os.homedir()']], rule: 'no-shared-scope-fallback' },
  { name: 'a missing scope falls back to /tmp', edits: [["workspace || '_adhoc'", "workspace ? workspace : '/tmp'"]], rule: 'no-shared-scope-fallback' },
  {
    name: 'the containment check has no trailing separator',
    edits: [["if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw", 'if (!dir.startsWith(RUNS_ROOT)) throw']],
    rule: 'no-unguarded-path-join',
  },
  { name: 'teardown skips the guard', edits: [['await rm(workspaceDir(workspace),', "await rm(path.join(RUNS_ROOT, workspace),"]], rule: 'no-unguarded-path-join' },
  { name: 'output goes to a fixed file', edits: [["path.join(cwd, 'last-output.txt')", "path.join(os.tmpdir(), 'last-output.txt')"]], rule: 'no-fixed-path-io' },
  { name: 'output file stamped with Date.now()', edits: [["path.join(cwd, 'last-output.txt')", '`/tmp/output-${Date.now()}.txt`']], rule: 'no-fixed-path-io' },
  {
    name: 'one scratch directory made at start-up',
    edits: [
      ["import { mkdir, rm, writeFile } from 'node:fs/promises';", "import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';"],
      ['const server = new McpServer', "const SCRATCH = await mkdtemp(path.join(os.tmpdir(), 'runner-'));\nconst server = new McpServer"],
      ['const cwd = workspaceDir(workspace);', 'const cwd = SCRATCH;'],
    ],
    rule: 'no-shared-scratch-dir',
  },
  { name: 'a child runs in the server\'s working directory', edits: [['{ cwd, env, timeout', '{ cwd: process.cwd(), env, timeout']], rule: 'no-shared-scratch-dir' },
  { name: 'teardown fails when the run is already gone', edits: [['{ recursive: true, force: true }', '{ recursive: true }']], rule: 'require-teardown-tool' },
  { name: 'no teardown tool', edits: [["'teardown',", "'archive',"]], rule: 'require-teardown-tool' },
];

describe('spec-style command runner', () => {
  it('lints clean with recommended', () => {
    expect(lint(source)).toEqual([]);
  });

  for (const b of BREAKS) {
    it(`one report when broken: ${b.name}`, () => {
      const found = lint(broken(b.edits));
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(new RegExp(` mcp-stateless/${b.rule}$`));
    });
  }
});
