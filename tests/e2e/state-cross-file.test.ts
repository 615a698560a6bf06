// State kept in classes of other modules and reached through the objects handler code calls (issue 15): each method's
// effect on `this` is summarised once in its own module and applied at the call site, with whole-server analysis.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintProject } from './lint-project.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/state-cross-file');

describe('state in other modules (whole-server analysis)', () => {
  it('reports at the call that changes a long-lived object of another module, and in the class itself', async () => {
    const { findings } = await lintProject(fixture, 'recommended-type-checked', ['src']);
    expect(findings.map((f) => f.at).sort()).toEqual([
      // The history's own push (the class's module-level instance).
      'src/lib/history.ts:6:5 mcp-stateless/no-module-accumulator',
      // start() files the recording in a map and sets the singleton's active recording, current() reads it back for
      // another caller; stop() empties it (no caller's data) and binary() fills a configuration cache: both silent.
      'src/lib/session.ts:14:5 mcp-stateless/no-module-accumulator',
      'src/lib/session.ts:15:5 mcp-stateless/no-cross-call-binding',
      // touch() replaces the day's record and counts into it.
      'src/lib/usage.ts:6:35 mcp-stateless/no-cross-call-binding',
      'src/lib/usage.ts:7:5 mcp-stateless/no-module-accumulator',
      // The calls: history.add(…) on the imported singleton, Recording.getInstance().start(…) on the getInstance one
      // (one call, one hazard: the field it only ever replaces, the active recording, is the crossing to name), the
      // module-level log container handed whole to a function of another module that pushes into it, and
      // usage.touch(…), whose field is replaced and then counted into (an accumulator).
      'src/tools/dispatch.ts:15:3 mcp-stateless/no-module-accumulator',
      'src/tools/dispatch.ts:18:7 mcp-stateless/no-cross-call-binding',
      'src/tools/dispatch.ts:34:7 mcp-stateless/no-module-accumulator',
      'src/tools/dispatch.ts:37:7 mcp-stateless/no-module-accumulator',
      // A handler function of another module handed the process-wide manager: its track() call keeps every forward.
      'src/tools/forward.ts:5:3 mcp-stateless/no-module-accumulator',
      // The function the log container was handed to, seen from its own module (handed a fresh object elsewhere: silent).
      'src/tools/logs.ts:3:3 mcp-stateless/no-module-accumulator',
      // A server factory's pool, handed to handler functions of another module: open() files each caller's terminal.
      // The function handed only a pool made for its call (scratchTerminal) is silent.
      'src/tools/pool-tools.ts:4:3 mcp-stateless/no-module-accumulator',
      // A server's task store handed to handlers of another module through a table: addTask's put() files the task.
      // Reported once, where the method is called on the handed store, not again at the hand-over in tasks-server.ts.
      'src/tools/tasks.ts:5:3 mcp-stateless/no-module-accumulator',
    ]);
    const at = (prefix: string) => findings.find((f) => f.at.startsWith(prefix))!.message;
    expect(at('src/tools/dispatch.ts:18:7')).toContain("tool 'start_recording' assigns `Recording.getInstance().active` here and tool 'current_recording' reads it (line 21)");
    expect(at('src/tools/dispatch.ts:15:3')).toContain('history.add(…), which changes history.entries');
    expect(at('src/tools/dispatch.ts:34:7')).toContain('hands state to appendLog(…), which changes it');
    expect(at('src/tools/dispatch.ts:37:7')).toContain('usage.touch(…), which changes usage.current');
    expect(at('src/tools/tasks.ts:5:3')).toContain('`store` is the object `createTaskServer()` makes (src/tasks-server.ts:8) and hands to every call, shared by every call on that server instance');
    expect(at('src/tools/pool-tools.ts:4:3')).toContain("`pool` is the object `createServer()` makes (src/factory-server.ts:8)");
    expect(at('src/tools/pool-tools.ts:4:3')).toContain("tool 'open_terminal' mutates it here (pool.open(…), which changes pool.terminals)");
    expect(at('src/tools/forward.ts:5:3')).toContain('`manager` is the process-wide object src/tools/dispatch.ts:10 hands to every call');
  });

  it('one file at a time, nothing shows where the class is not visible', async () => {
    const { findings } = await lintProject(fixture, 'recommended', ['src']);
    expect(findings).toEqual([]);
  });
});
