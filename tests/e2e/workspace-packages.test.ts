// Whole-server analysis follows imports that look like packages but are the project's own source: a workspace
// package linked into node_modules (npm, pnpm, yarn and bun workspaces) and a tsconfig `paths` alias. A real package
// from node_modules is still someone else's code. The project is written to a temp dir because the workspace link is
// a symlink under node_modules, which the repository does not keep.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintProject } from './lint-project.js';

let root = '';

function write(rel: string, text: string): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'mcp-stateless-workspace-'));
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'Preserve', moduleResolution: 'Bundler', strict: true, noEmit: true, skipLibCheck: true, types: [], paths: { '@lib/*': ['./src/lib/*'] } },
      include: ['src/**/*.ts', 'packages/**/*.ts'],
    }),
  );
  write('packages/store/package.json', JSON.stringify({ name: '@acme/store', main: 'index.ts', types: 'index.ts' }));
  write(
    'packages/store/index.ts',
    `export class NoteBook {
  private notes = new Map<string, string>();
  add(id: string, text: string) { this.notes.set(id, text); }
  all() { return [...this.notes.values()]; }
}
export const notebook = new NoteBook();
`,
  );
  mkdirSync(path.join(root, 'node_modules/@acme'), { recursive: true });
  symlinkSync('../../packages/store', path.join(root, 'node_modules/@acme/store'), 'dir');
  // A published package: its own state is not this server's to judge (and its source is not in the program).
  write('node_modules/ext-cache/package.json', JSON.stringify({ name: 'ext-cache', main: 'index.js', types: 'index.d.ts' }));
  write('node_modules/ext-cache/index.d.ts', 'export declare const cache: { add(x: string): void };\n');
  write('node_modules/ext-cache/index.js', 'export const cache = { add() {} };\n');
  write('src/lib/hits.ts', 'export const hits: string[] = [];\n');
  write(
    'src/index.ts',
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { notebook } from '@acme/store';
import { hits } from '@lib/hits';
import { cache } from 'ext-cache';
const server = new McpServer({ name: 'notes', version: '1.0.0' });
server.registerTool('add_note', {}, async (_args: { id: string; text: string }) => {
  notebook.add(_args.id, _args.text);
  hits.push(_args.id);
  cache.add(_args.id);
  return { content: [{ type: 'text' as const, text: notebook.all().join('\\n') }] };
});
`,
  );
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('workspace packages and path aliases (whole-server analysis)', () => {
  it('follows a linked workspace package and a paths alias into the project, not a published package', async () => {
    const { findings } = await lintProject(root, 'recommended-type-checked', ['src', 'packages']);
    expect(findings.map((f) => f.at).sort()).toEqual([
      'packages/store/index.ts:3:35 mcp-stateless/no-module-accumulator',
      'src/index.ts:7:3 mcp-stateless/no-module-accumulator',
      'src/index.ts:8:3 mcp-stateless/no-module-accumulator',
    ]);
    const at = (prefix: string) => findings.find((f) => f.at.startsWith(prefix))!.message;
    expect(at('src/index.ts:7:3')).toContain('notebook.add(…), which changes notebook.notes');
    expect(at('packages/store/index.ts:3:35')).toContain("tool 'add_note'");
  });

  it('without type information the same imports are packages: nothing is followed', async () => {
    const { findings } = await lintProject(root, 'recommended', ['src', 'packages']);
    expect(findings).toEqual([]);
  });
});
