// Tool arguments handed to functions of other modules (whole-server analysis): the path rule judges the path where it
// is built, with the argument's origin carried across the call.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintProject } from './lint-project.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/input-cross-file');

describe('tool arguments passed to other modules', () => {
  it('reports the unguarded joins in the helper module, not the checked or guarded ones', async () => {
    const { findings } = await lintProject(fixture, 'recommended-type-checked', ['src']);
    const paths = findings.filter((f) => f.at.includes('no-unguarded-path-join'));
    expect(paths.map((f) => f.at)).toEqual([
      'src/lib/files.ts:10:19 mcp-stateless/no-unguarded-path-join',
      'src/lib/files.ts:28:56 mcp-stateless/no-unguarded-path-join',
    ]);
    expect(paths[0].message).toContain("tool 'read' passes `path.join(ROOT, name)`, built from a tool argument");
    expect(paths[1].message).toContain("tool 'read_all' passes `f`");
  });

  it('one file at a time, the helpers have no tool arguments', async () => {
    const { findings } = await lintProject(fixture, 'recommended', ['src']);
    expect(findings.filter((f) => f.at.includes('no-unguarded-path-join'))).toEqual([]);
  });
});
