// Child processes started through the project's own wrappers in other files: with whole-server analysis a handler's
// call is reported where it decides the process (it passes the options, or it gets the process back), naming the
// wrapper's line; a wrapper that fixes its options and keeps the process is reported only where it starts it.
// Without type information the same rule stays within each file, as recommended does.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintProject } from './lint-project.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/process-wrappers');
const RULE = 'mcp-stateless/require-child-process-isolation';

async function lint(config: 'recommended' | 'recommended-type-checked') {
  const { findings } = await lintProject(fixture, config, ['src']);
  return findings.filter((f) => f.at.endsWith(RULE)).sort((a, b) => a.at.localeCompare(b.at, 'en', { numeric: true }));
}

describe('child processes through project wrappers', () => {
  it('recommended-type-checked reports each handler call that decides a process, with the wrapper line', async () => {
    const found = await lint('recommended-type-checked');
    expect(found.map((f) => f.at)).toEqual([
      `src/lib/device-cli.ts:8:12 ${RULE}`,
      `src/lib/device-cli.ts:13:12 ${RULE}`,
      `src/server.ts:17:15 ${RULE}`,
      `src/server.ts:18:16 ${RULE}`,
      `src/server.ts:19:17 ${RULE}`,
      `src/server.ts:24:17 ${RULE}`,
      // A function of a name → function map built in another module, looked up by the tools/call handler.
      `src/tools/install.ts:7:17 ${RULE}`,
    ]);
    const [recordHere, version, log, repo, piped, record, install] = found.map((f) => f.message);
    expect(install).toContain('the tools/call handler starts a child process with `spawn` with no `cwd`, no `env`');
    expect(log).toContain("tool 'status' starts a child process through `runTool` (`execFileSync` at src/lib/exec.ts:6) with no `cwd`, an `env` without `HOME` and `TMPDIR`");
    expect(log).toContain('in the options this call gives it');
    expect(repo).toContain('through `chart` (`execFileSync` at src/lib/exec.ts:6)');
    // The wrapper sets stdio on top of the caller's options; the caller's cwd counts, its missing env does not pass.
    expect(piped).toContain('through `runPiped` (`spawnSync` at src/lib/exec.ts:11) with no `env`');
    expect(piped).not.toContain('no `cwd`');
    expect(record).toContain('through `cli.startRecording` (`spawn` at src/lib/device-cli.ts:8) with no `cwd`, no `env`');
    expect(record).toContain('Give the wrapper a per-call `cwd` and `env`');
    // The wrapper's own process calls are handler code of their file (reached from the tools): reported there too.
    expect(version).toContain("tool 'record' starts a child process with `execFileSync` with no `cwd`");
    expect(recordHere).toContain("tool 'record' starts a child process with `spawn` with no `cwd`");
  });

  it('recommended stays within each file: no wrapper in another file is followed', async () => {
    expect(await lint('recommended')).toEqual([]);
  });
});
