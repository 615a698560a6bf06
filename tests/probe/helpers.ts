import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { probeMain } from '../../src/probe/cli.js';
import type { ProbeResult } from '../../src/probe/types.js';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/probe-servers');
export const fixture = (name: string): string => path.join(FIXTURES, name);

/** A scratch directory for one test file: RUNS_ROOT for the fixtures, the fixed-path log, … */
export function scratchDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A tag that every process started for one test carries in its environment (PROBE_TEST_TAG). */
export function newTag(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
  json?: ProbeResult;
}

/** Run `mcp-stateless probe <argv>` in-process and capture its output. */
export async function cli(argv: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const started = performance.now();
  const code = await probeMain(argv, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    handleSignals: false,
  });
  const ms = performance.now() - started;
  const run: CliRun = { code, stdout, stderr, ms };
  if (argv.includes('--format') && argv[argv.indexOf('--format') + 1] === 'json') run.json = JSON.parse(stdout) as ProbeResult;
  return run;
}

/**
 * Live (non-zombie) processes whose environment has PROBE_TEST_TAG=`tag` exactly, or, with
 * `{ prefix: true }`, a PROBE_TEST_TAG starting with `tag`.
 */
export function processesWith(tag: string, { prefix = false }: { prefix?: boolean } = {}): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  const wanted = `PROBE_TEST_TAG=${tag}`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (state === 'Z') continue;
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (environ.some((e) => (prefix ? e.startsWith(wanted) : e === wanted))) {
        const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
        found.push({ pid: Number(entry), cmdline: cmdline.trim() });
      }
    } catch {
      // gone while reading, or not ours to read
    }
  }
  return found;
}

export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

export interface HttpFixture {
  url: string;
  port: number;
  child: ChildProcess;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Start `node <fixture> --http 0 …` in its own process group and wait for `LISTENING <port>`. */
export function startHttpFixture(name: string, args: string[], env: Record<string, string>): Promise<HttpFixture> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fixture(name), '--http', '0', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        try {
          process.kill(-(child.pid as number), 'SIGKILL');
        } catch {
          // gone
        }
        await exited;
      }
    };
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${name} did not print LISTENING within 15 s: ${stderr}`));
    }, 15_000);
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      const m = /LISTENING (\d+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        const port = Number(m[1]);
        resolve({ url: `http://127.0.0.1:${port}/mcp`, port, child, stderr: () => stderr, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening: ${stderr}`));
    });
  });
}

/** The one-line reason on stderr for exit code 2. */
export function errorLine(run: CliRun): string {
  const lines = run.stderr.split('\n').filter((l) => l.length > 0);
  if (lines.length !== 1) throw new Error(`expected exactly one stderr line, got ${lines.length}: ${run.stderr}`);
  return lines[0] as string;
}

/** The leaks found, as "owner>observer via reader" (cross-session evidence), sorted and deduplicated. */
export function leaks(result: ProbeResult): string[] {
  return [...new Set(result.evidence.filter((e) => e.kind === 'cross-session').map((e) => `${e.owner}>${e.observer} via ${e.via.tool}`))].sort();
}

/** Every session that got its own marker back. */
export function ownBack(result: ProbeResult): string[] {
  return Object.entries(result.ownMarkers)
    .filter(([, v]) => v.returned)
    .map(([k]) => k);
}
