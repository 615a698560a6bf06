// A module past its step budget (a vendored bundle under src/) with whole-server analysis: the module is left out of
// the server, the files that reach it keep their own findings, and the warning names it once, not once per file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { lintProject } from './lint-project.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'mcp-stateless-budget-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

// The bundle: one function the handler reaches, long enough to pass a lowered budget; the server: small, with its own
// accumulator.
const bundle = ["let current = '';", 'const seen: string[] = [];', 'let client: { x: string } | undefined;', 'declare function mk(): { x: string };', 'export async function render(x: string): Promise<string> {'];
for (let i = 0; i < 300; i++) bundle.push(`  current = x + '${i}'; await 0; seen.push(current); if (!client) client = mk(); x = current + client.x;`);
bundle.push('  return x;', '}');
write('tsconfig.json', JSON.stringify({ compilerOptions: { target: 'es2022', module: 'nodenext', strict: true, skipLibCheck: true, noEmit: true }, include: ['src'] }));
write('src/bundle.ts', bundle.join('\n') + '\n');
for (const name of ['show', 'list']) {
  write(
    `src/${name}.ts`,
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { render } from './bundle.js';
const server = new McpServer({ name: 't', version: '1' });
const seen: string[] = [];
server.tool('${name}', {}, async (args: { q: string }) => {
  seen.push(args.q);
  return { content: [{ type: 'text', text: await render(seen.join()) }] };
});
`,
  );
}

describe('a module past its step budget, with whole-server analysis', () => {
  it('is left out: the files that reach it keep their findings, and one warning names it', async () => {
    vi.stubEnv('MCP_STATELESS_STEP_BUDGET', '1000');
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const { findings } = await lintProject(root, 'recommended-type-checked', ['src/show.ts', 'src/list.ts', 'src/bundle.ts']);
      await new Promise((r) => setTimeout(r, 10)); // process warnings are emitted on the next tick
      expect(findings.map((f) => f.at).sort()).toEqual(['src/list.ts:6:3 mcp-stateless/no-module-accumulator', 'src/show.ts:6:3 mcp-stateless/no-module-accumulator']);
      expect(warnings.filter((w) => w.includes('step budget'))).toEqual([expect.stringContaining(`${path.join(root, 'src/bundle.ts')} passed its step budget`)]);
    } finally {
      process.off('warning', onWarning);
      vi.unstubAllEnvs();
    }
  });
});
