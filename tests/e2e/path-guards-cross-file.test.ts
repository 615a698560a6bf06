// Containment guards in another file (tests/fixtures/path-guards-cross-file): with whole-server analysis the guard's
// own body decides, so strict (which trusts no imported name) stays silent on a sound guard and reports one that looks
// right and is not; without type information strict reports every use, since it cannot see either body.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintProject } from './lint-project.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/path-guards-cross-file');
const RULE = 'mcp-stateless/no-unguarded-path-join';

async function lint(config: 'strict' | 'strict-type-checked') {
  const { findings } = await lintProject(fixture, config, ['src/server.ts']);
  return findings.filter((f) => f.at.endsWith(RULE));
}

describe('containment guards in another file', () => {
  it('strict-type-checked: the sound guard is trusted, the prefix test without a separator is reported at its call', async () => {
    const found = await lint('strict-type-checked');
    expect(found.map((f) => f.at)).toEqual([`src/server.ts:17:3 ${RULE}`]);
    expect(found[0].message).toContain('startsWith(root) without a trailing separator also accepts a sibling');
    expect(found[0].message).toContain("tool 'write' passes to `writeFile`");
  });

  it('strict without type information trusts neither imported name', async () => {
    const found = await lint('strict');
    expect(found.map((f) => f.at)).toEqual([`src/server.ts:13:59 ${RULE}`, `src/server.ts:18:19 ${RULE}`]);
  });
});
