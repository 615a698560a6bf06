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
      // readExactly(): read_guarded hands it a checked path, read_via (through a second module) the raw name.
      'src/lib/files.ts:22:19 mcp-stateless/no-unguarded-path-join',
      'src/lib/files.ts:28:56 mcp-stateless/no-unguarded-path-join',
      // The property of an options object, destructured by the helper.
      'src/lib/via.ts:11:25 mcp-stateless/no-unguarded-path-join',
    ]);
    // Each names the call that handed the argument in, not the first tool that reaches the helper.
    expect(paths[0].message).toContain("tool 'read' (call at src/index.ts:11) passes `path.join(ROOT, name)`, built from a tool argument");
    expect(paths[1].message).toContain("tool 'read_via' (call at src/lib/via.ts:6) passes `file`");
    expect(paths[2].message).toContain("tool 'read_all' (call at src/index.ts:16) passes `f`");
    expect(paths[3].message).toContain("tool 'list' (call at src/index.ts:19) passes `folder`");
  });

  it('one file at a time, the helpers have no tool arguments', async () => {
    const { findings } = await lintProject(fixture, 'recommended', ['src']);
    expect(findings.filter((f) => f.at.includes('no-unguarded-path-join'))).toEqual([]);
  });
});
