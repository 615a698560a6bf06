// The editor, for real: vscode-eslint-language-server (the server inside VS Code's ESLint extension, from
// vscode-langservers-extracted) over stdio, with the README's eslint.config.js and editor settings, on the example
// server. Diagnostics are pulled (textDocument/diagnostic) as VS Code does; suggestions arrive as quick fixes.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createESLint } from '../../src/session.js';
import { LspClient } from './lsp.js';

const root = path.resolve(import.meta.dirname, '../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const serverBin = path.join(root, 'node_modules/vscode-langservers-extracted/bin/vscode-eslint-language-server');

/** The README block marked `<!-- check: id -->`. */
function readmeBlock(id: string): string {
  const at = readme.indexOf(`<!-- check: ${id} -->\n`);
  const start = readme.indexOf('\n', readme.indexOf('```', at)) + 1;
  return readme.slice(start, readme.indexOf('\n```', start));
}

interface Diagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  code?: string | number;
  source?: string;
  message: string;
}
interface WorkspaceEdit {
  documentChanges?: { edits: { newText: string }[] }[];
  changes?: Record<string, { newText: string }[]>;
}
interface CodeAction {
  title: string;
  kind?: string;
  diagnostics?: Diagnostic[];
  edit?: WorkspaceEdit;
  command?: { command: string; arguments?: unknown[] };
}
const newTexts = (e: WorkspaceEdit | undefined) => (e?.documentChanges?.flatMap((c) => c.edits) ?? Object.values(e?.changes ?? {}).flat()).map((x) => x.newText);

/** The extension's settings for a document, from the README's `.vscode/settings.json` block. */
function settingsFor(workspace: string, languageId: string, extra: Record<string, unknown> = {}) {
  const user = JSON.parse(readmeBlock('editor-settings')) as Record<string, unknown>;
  const validate = user['eslint.validate'] as string[];
  return {
    validate: validate.includes(languageId) ? 'on' : 'off',
    packageManager: 'npm',
    useESLintClass: false,
    useFlatConfig: user['eslint.useFlatConfig'],
    experimental: { useFlatConfig: false },
    codeActionOnSave: { mode: 'all' },
    format: false,
    quiet: false,
    onIgnoredFiles: 'off',
    options: {},
    rulesCustomizations: [],
    run: 'onType',
    problems: { shortenToSingleLine: false },
    nodePath: null,
    workspaceFolder: { name: path.basename(workspace), uri: pathToFileURL(workspace).href },
    codeAction: { disableRuleComment: { enable: true, location: 'separateLine', commentStyle: 'line' }, showDocumentation: { enable: true } },
    ...extra,
  };
}

/** Start the server on a workspace, open `file`, pull its diagnostics. */
async function session(workspace: string, file: string, extra: Record<string, unknown> = {}) {
  const applied: WorkspaceEdit[] = [];
  const client = new LspClient('node', [serverBin, '--stdio'], workspace, (method, params) => {
    if (method === 'workspace/configuration') return (params as { items: unknown[] }).items.map(() => settingsFor(workspace, 'typescript', extra));
    // The editor applies a chosen quick fix when the server asks it to.
    if (method === 'workspace/applyEdit') {
      applied.push((params as { edit: WorkspaceEdit }).edit);
      return { applied: true };
    }
    return null; // client/registerCapability, window/workDoneProgress/create, …
  });
  const rootUri = pathToFileURL(workspace).href;
  await client.request('initialize', {
    processId: process.pid,
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: path.basename(workspace) }],
    capabilities: {
      workspace: { configuration: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: true } },
      textDocument: {
        diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
        publishDiagnostics: { relatedInformation: true },
        codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'source.fixAll.eslint'] } } },
      },
    },
  });
  client.notify('initialized', {});
  const uri = pathToFileURL(path.join(workspace, file)).href;
  const text = readFileSync(path.join(workspace, file), 'utf8');
  client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text } });
  const report = await client.request<{ kind: string; items: Diagnostic[] }>('textDocument/diagnostic', { textDocument: { uri } });
  return { client, uri, report, applied };
}

let workspace: string;
let expected: Map<string, string[]>;

beforeAll(async () => {
  // Inside the repository so that the workspace's eslint.config.js finds eslint, typescript-eslint and this plugin
  // (by its package name) exactly as an installed project would.
  mkdirSync(path.join(root, '.tmp'), { recursive: true });
  workspace = mkdtempSync(path.join(root, '.tmp', 'editor-'));
  cpSync(path.join(root, 'examples/leaky-server'), path.join(workspace, 'src'), { recursive: true });
  writeFileSync(path.join(workspace, 'eslint.config.js'), readmeBlock('config-ts'));
  // What the same config reports from the command line, per file.
  const results = await createESLint([path.join(workspace, 'src')], {}).lintFiles([path.join(workspace, 'src')]);
  expected = new Map(results.map((r) => [path.basename(r.filePath), r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId}`).sort()]));
});

afterAll(() => rmSync(workspace, { recursive: true, force: true }));

const asFindings = (items: Diagnostic[]) => items.map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code}`).sort();

describe('vscode-eslint-language-server with the README settings (ESLint 10)', () => {
  it('pulls the same diagnostics the CLI reports, and offers the suggestions as quick fixes', async () => {
    const { client, uri, report, applied } = await session(workspace, 'src/runner.ts');
    try {
      expect(report.kind).toBe('full');
      expect(asFindings(report.items)).toEqual(expected.get('runner.ts'));
      expect(report.items.every((d) => d.source === 'eslint')).toBe(true);
      // The child process started without cwd/env: the quick fix adds them.
      const isolation = report.items.find((d) => d.code === 'mcp-stateless/require-child-process-isolation' && d.range.start.line === 22)!;
      const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: isolation.range,
        context: { diagnostics: [isolation], only: ['quickfix'] },
      });
      const titles = actions.map((a) => a.title);
      expect(titles).toContain('Run it in `cwd`: add `env` with HOME and TMPDIR. (mcp-stateless/require-child-process-isolation)');
      // Choosing it: the extension runs the action's command and the server sends back the edit.
      const fix = actions.find((a) => a.title.startsWith('Run it in'))!;
      if (fix.edit) applied.push(fix.edit);
      else await client.request('workspace/executeCommand', fix.command);
      expect(applied.flatMap(newTexts)).toEqual([', env: { ...process.env, HOME: cwd, TMPDIR: cwd }']);
      // Never an autofix: nothing for this rule is offered as a fix-all.
      expect(actions.filter((a) => a.kind?.startsWith('source.fixAll'))).toEqual([]);
      // Which findings offer a suggestion (besides ESLint's own "disable" and "show documentation" actions).
      const offering: string[] = [];
      for (const d of report.items) {
        const all = await client.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: d.range, context: { diagnostics: [d], only: ['quickfix'] } });
        const own = all.filter((a) => a.diagnostics?.[0]?.range.start.line === d.range.start.line && a.diagnostics?.[0]?.code === d.code && !/^(Disable|Show documentation)/.test(a.title));
        if (own.length) offering.push(`${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code}`);
      }
      expect(offering.sort()).toEqual([
        '23:19 mcp-stateless/require-child-process-isolation',
        '23:55 mcp-stateless/no-unguarded-path-join',
        '52:17 mcp-stateless/no-unguarded-path-join',
      ]);
    } finally {
      await client.close();
    }
  });

  it('the example notes server: every hazard arrives as a diagnostic', async () => {
    const { client, report } = await session(workspace, 'src/server.ts');
    try {
      expect(asFindings(report.items)).toEqual(expected.get('server.ts'));
      expect(report.items.length).toBe(5);
    } finally {
      await client.close();
    }
  });

  it('the old eslint.experimental.useFlatConfig setting shows nothing on ESLint 10 (why the README says to remove it)', async () => {
    const { client, report } = await session(workspace, 'src/server.ts', { experimental: { useFlatConfig: true } });
    try {
      expect(report.items).toEqual([]);
      expect(client.log.join('\n')).toContain("doesn't export a FlatESLint class");
    } finally {
      await client.close();
    }
  });
});

describe('vscode-eslint-language-server with ESLint 9', () => {
  it('loads the workspace\'s ESLint 9 and pulls the same diagnostics', async () => {
    // A workspace outside the repository whose node_modules holds ESLint 9 as `eslint`, the way a user's project does.
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-stateless-editor9-'));
    try {
      mkdirSync(path.join(dir, 'node_modules'));
      symlinkSync(path.join(root, 'node_modules/eslint9'), path.join(dir, 'node_modules/eslint'), 'dir');
      symlinkSync(path.join(root, 'node_modules/typescript-eslint'), path.join(dir, 'node_modules/typescript-eslint'), 'dir');
      symlinkSync(root, path.join(dir, 'node_modules/eslint-plugin-mcp-stateless'), 'dir');
      cpSync(path.join(workspace, 'src'), path.join(dir, 'src'), { recursive: true });
      writeFileSync(path.join(dir, 'eslint.config.js'), readmeBlock('config-ts'));
      const { client, report } = await session(dir, 'src/server.ts');
      try {
        expect(client.log.join('\n')).toMatch(/ESLint library loaded from: .*eslint9/);
        expect(asFindings(report.items)).toEqual(expected.get('server.ts'));
      } finally {
        await client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
