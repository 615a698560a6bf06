import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * A child process started by the probe, in its own process group (and session), so that the
 * whole tree it starts can be killed: servers routinely spawn shells, and a shell's children.
 */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedProcessOptions {
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** 'pipe' for a stdio MCP server; 'ignore' for an HTTP server started by the probe. */
  stdin: 'pipe' | 'ignore';
  label: string;
  onStderr?: (text: string) => void;
  onStdout?: (chunk: Buffer) => void;
}

const TAIL_LIMIT = 8 * 1024;

/** Every process group the probe has started and not yet seen disappear. */
const live = new Set<ManagedProcess>();
let exitHookInstalled = false;

/** SIGKILL every process group the probe started and has not finished stopping (synchronous). */
export function killAllSync(): void {
  for (const proc of live) proc.killGroupSync('SIGKILL');
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort if the host process exits while a probe is running.
  process.on('exit', killAllSync);
}

export class ManagedProcess {
  readonly label: string;
  readonly child: ChildProcess;
  readonly pid: number;
  exit: ExitInfo | null = null;
  private stderrTail = '';
  private readonly exited: Promise<ExitInfo>;

  private constructor(options: ManagedProcessOptions, child: ChildProcess, pid: number) {
    this.label = options.label;
    this.child = child;
    this.pid = pid;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      this.stderrTail = (this.stderrTail + text).slice(-TAIL_LIMIT);
      options.onStderr?.(text);
    });
    if (options.onStdout) child.stdout?.on('data', options.onStdout);
    else child.stdout?.resume();
    // A dying child must never take the probe down with EPIPE.
    child.stdin?.on('error', () => undefined);
    child.stdout?.on('error', () => undefined);
    child.stderr?.on('error', () => undefined);
  }

  /** Spawn and wait until the OS has started it (or failed to, e.g. ENOENT). */
  static start(options: ManagedProcessOptions): Promise<ManagedProcess> {
    installExitHook();
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(options.command, options.args, {
          cwd: options.cwd,
          env: options.env,
          stdio: [options.stdin, 'pipe', 'pipe'],
          detached: true, // new session and process group: pgid = pid, so the tree can be killed
          shell: false,
        });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      child.once('error', (error) => reject(error));
      child.once('spawn', () => {
        const pid = child.pid;
        if (pid === undefined) {
          reject(new Error('spawn returned no pid'));
          return;
        }
        const proc = new ManagedProcess(options, child, pid);
        live.add(proc);
        resolve(proc);
      });
    });
  }

  get running(): boolean {
    return this.exit === null;
  }

  /** The last non-empty line the process wrote to stderr, for one-line reasons. */
  lastStderrLine(): string | undefined {
    const lines = this.stderrTail.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
    return lines.at(-1);
  }

  stderrText(): string {
    return this.stderrTail;
  }

  /** Resolves when the process has exited, or after `ms` (with undefined). */
  async waitForExit(ms: number): Promise<ExitInfo | undefined> {
    if (this.exit) return this.exit;
    const timer = delay(ms, undefined, { ref: false });
    return Promise.race([this.exited, timer]);
  }

  onExit(listener: (info: ExitInfo) => void): void {
    void this.exited.then(listener);
  }

  killGroupSync(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is gone
    }
  }

  /** True while any process is left in the group. */
  groupAlive(): boolean {
    try {
      process.kill(-this.pid, 0);
      return livingMembers(this.pid).length > 0 || !procAvailable();
    } catch {
      return false;
    }
  }

  /**
   * Stop the process and everything it started: close stdin and give it `graceMs` to exit by itself,
   * then SIGTERM the group, then SIGKILL the group and any descendant that left the group.
   * Resolves when nothing is left, or after a bounded wait.
   */
  async terminate(graceMs = 500): Promise<void> {
    try {
      this.child.stdin?.end();
    } catch {
      // ignore
    }
    if (this.running) await this.waitForExit(graceMs);
    // Collect descendants while the parent links still exist (a child that called setsid is not in the group).
    const stragglers = new Set(descendantsOf(this.pid));
    if (this.running || this.groupAlive()) {
      this.killGroupSync('SIGTERM');
      for (const pid of stragglers) killPid(pid, 'SIGTERM');
      const deadline = Date.now() + 500;
      while (Date.now() < deadline && (this.running || this.groupAlive())) await delay(25);
    }
    for (const pid of descendantsOf(this.pid)) stragglers.add(pid);
    this.killGroupSync('SIGKILL');
    for (const pid of stragglers) killPid(pid, 'SIGKILL');
    const deadline = Date.now() + 2000;
    while (Date.now() < deadline && (this.running || this.groupAlive())) await delay(25);
    live.delete(this);
  }
}

function killPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone
  }
}

interface ProcStat {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
}

let procChecked: boolean | undefined;
function procAvailable(): boolean {
  if (procChecked === undefined) {
    try {
      readFileSync('/proc/self/stat', 'utf8');
      procChecked = true;
    } catch {
      procChecked = false;
    }
  }
  return procChecked;
}

/** Snapshot of /proc (Linux); empty elsewhere, where only the process-group kill applies. */
export function processTable(): ProcStat[] {
  if (!procAvailable()) return [];
  const rows: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid pgrp ... ; comm may contain spaces and parentheses
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      rows.push({ pid: Number(entry), state: rest[0] ?? '?', ppid: Number(rest[1]), pgid: Number(rest[2]) });
    } catch {
      // exited while we were reading
    }
  }
  return rows;
}

/** Live (non-zombie) processes in process group `pgid`. */
export function livingMembers(pgid: number): number[] {
  return processTable()
    .filter((p) => p.pgid === pgid && p.state !== 'Z')
    .map((p) => p.pid);
}

/** Every live descendant of `pid` (by parent links), plus every live member of its process group. */
export function descendantsOf(pid: number): number[] {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const p of table) {
    const list = children.get(p.ppid) ?? [];
    list.push(p.pid);
    children.set(p.ppid, list);
  }
  const found = new Set<number>();
  const stack = [pid];
  while (stack.length > 0) {
    const current = stack.pop() as number;
    for (const child of children.get(current) ?? []) {
      if (!found.has(child)) {
        found.add(child);
        stack.push(child);
      }
    }
  }
  for (const p of table) if (p.pgid === pid && p.pid !== pid) found.add(p.pid);
  const alive = new Set(table.filter((p) => p.state !== 'Z').map((p) => p.pid));
  return [...found].filter((p) => alive.has(p));
}
