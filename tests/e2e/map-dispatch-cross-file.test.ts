// A `tools/call` dispatcher that indexes one map spread together from maps of other modules (whole-server analysis):
// each function of those maps serves the tool named by its key.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintProject } from './lint-project.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/map-dispatch-cross-file');

describe('handler maps spread across modules', () => {
  it('names the tools of the other modules by their keys', async () => {
    const { findings } = await lintProject(fixture, 'recommended-type-checked', ['src']);
    expect(findings.map((f) => f.at)).toEqual(['src/tools/selection.ts:11:5 mcp-stateless/no-cross-call-binding']);
    expect(findings[0].message).toContain("tool 'select' assigns `current` here and tool 'show' reads it (line 6)");
  });

  it('finds the method of a handler object of another module kept in a Map, under its key', async () => {
    const { findings } = await lintProject(fixture, 'strict-type-checked', ['src']);
    const queue = findings.filter((f) => f.at.startsWith('src/tools/queue.ts'));
    expect(queue.map((f) => f.at)).toEqual(['src/tools/queue.ts:9:22 mcp-stateless/no-fixed-path-io']);
    expect(queue[0].message).toContain("tool 'enqueue' appends to `QUEUE`");
  });

  it('one file at a time, the maps are not handler code', async () => {
    const { findings } = await lintProject(fixture, 'recommended', ['src']);
    expect(findings).toEqual([]);
  });
});
