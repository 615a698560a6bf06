// Handler shapes as real servers write them (SDK v2 low-level string methods, the inner server of a high-level one,
// subscribe/setLevel handlers, name→function dispatch maps, tool objects in arrays registered in loops, tool classes,
// project wrappers, closures started by handlers, factory state, registerToolTask and ResourceTemplate callbacks),
// each fixture with hazards and look-alikes; exact findings for recommended and recommended-type-checked.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintProject } from './lint-project.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/shapes');

async function lint(config: 'recommended' | 'recommended-type-checked') {
  return (await lintProject(fixture, config)).findings;
}

const EXPECTED = [
  'closures.ts:14:51 mcp-stateless/no-module-accumulator',
  'closures.ts:20:5 mcp-stateless/no-module-accumulator',
  'dispatch-map.ts:10:3 mcp-stateless/no-module-accumulator',
  'factory.ts:11:5 mcp-stateless/no-module-accumulator',
  'factory.ts:16:5 mcp-stateless/no-cross-call-binding',
  'tasks-and-templates.ts:11:5 mcp-stateless/no-module-accumulator',
  'tasks-and-templates.ts:22:7 mcp-stateless/no-module-accumulator',
  'tool-objects.ts:13:5 mcp-stateless/no-module-accumulator',
  'tool-objects.ts:23:5 mcp-stateless/no-module-accumulator',
  'tool-objects.ts:40:3 mcp-stateless/no-cross-call-binding',
  'v2-low-level.ts:10:3 mcp-stateless/no-session-keyed-state',
  'v2-low-level.ts:11:3 mcp-stateless/no-first-caller-cache',
  'v2-low-level.ts:16:3 mcp-stateless/no-cross-call-binding',
  'v2-low-level.ts:31:3 mcp-stateless/no-module-accumulator',
];

describe('handler shapes', () => {
  it('recommended finds exactly the hazards of every shape', async () => {
    const found = await lint('recommended');
    expect(found.map((f) => f.at).sort()).toEqual(EXPECTED);
    const text = (at: string) => found.find((f) => f.at.startsWith(at))!.message;
    // Factory state is per server instance, not per caller; wrappers name each tool; v2 credentials are the caller's.
    expect(text('factory.ts:11:5')).toContain('shared by every call on this server instance');
    expect(text('tool-objects.ts:40:3')).toContain("tool 'open' assigns `lastPath` here and tool 'where' reads it (line 43)");
    expect(text('v2-low-level.ts:11:3')).toContain('its credentials');
    expect(text('v2-low-level.ts:16:3')).toContain('the logging/setLevel handler');
    // A name→function map dispatcher names the tool by the key the function is stored under.
    expect(text('dispatch-map.ts:10:3')).toContain("tool 'visit' mutates it");
  });

  it('recommended-type-checked finds the same hazards in single-file servers', async () => {
    const found = await lint('recommended-type-checked');
    expect(found.map((f) => f.at).sort()).toEqual(EXPECTED);
  });
});
