// The runner: executes a plan over connected sessions — the rounds (a concurrent pass and a sequential pass each),
// teardown, cleanup and the check for leftovers — and records every call. It judges nothing.

import path from 'node:path';
import { callTool, rethrowIfAborted, abortable, type Connection } from './connections.js';
import { findMarkers, KEY_SLOT, marker, readBack } from './markers.js';
import type { CleanupStep, PlannedTool, ProbePlan, ToolInfo } from './planner.js';
import { containsPlaceholder, fillTemplate, type FillValues } from './schema-args.js';
import { errorMessage, formatMs, oneLine } from './text.js';
import type {
  CallMode,
  CallOutcome,
  CallRecord,
  Leftover,
  Pass,
  PassSummary,
  TeardownCall,
  TeardownResult,
  WorkspaceCheck,
} from './types.js';
import type { SchemaValidator } from './validate.js';
import { checkWorkspace } from './workspace.js';
import { ErrorCode, ListResourcesResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

export interface RunnerSession {
  name: string;
  /** Scope argument value. */
  workspace: string;
  /** Its own directory; path arguments point inside it. */
  dir: string;
  connection: Connection;
}

export interface RunnerOptions {
  runId: string;
  plan: ProbePlan;
  tools: readonly ToolInfo[];
  sessions: readonly RunnerSession[];
  validator: SchemaValidator;
  rounds: number;
  callTimeoutMs: number;
  signal: AbortSignal;
  /** performance.now() at the start of the run; call times are relative to it. */
  t0: number;
  workspaceRoot: string | null;
  /** The probe's scratch directory (the sessions' directories are in it). */
  scratch?: string;
  onPass?: (pass: PassSummary) => void;
}

const ANSWERED: readonly CallOutcome[] = ['result', 'tool-error', 'rpc-error'];

function classify(error: unknown): CallOutcome {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return 'timeout';
    if (error.code === ErrorCode.ConnectionClosed) return 'transport-error';
    return 'rpc-error';
  }
  return 'transport-error';
}

function listNames(names: readonly string[]): string {
  if (names.length <= 2) return names.join(' and ');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export class Runner {
  readonly calls: CallRecord[] = [];
  readonly passes: PassSummary[] = [];
  readonly workspaces: WorkspaceCheck[] = [];
  /** What stopped the rounds: a dead connection, or a pass nobody answered (the run's error unless a leak is found). */
  problem: string | undefined;
  /** Calls that timed out while others were answered (`reason|session|tool`); that session does not call that tool again. */
  readonly unanswered: string[] = [];
  private seq = 0;
  private readonly byName: Map<string, PlannedTool>;
  private readonly schemas: Map<string, unknown>;
  /** full or minimal, once a tool has answered with one of them. */
  private readonly variant = new Map<string, 'full' | 'minimal'>();
  /** session|tool pairs that timed out once: not called again. */
  private readonly unresponsive = new Set<string>();
  /** Steps in which each session made its own calls (its keys). */
  private readonly steps = new Map<string, number[]>();

  constructor(private readonly o: RunnerOptions) {
    this.byName = new Map(o.plan.tools.map((t) => [t.name, t]));
    this.schemas = new Map(o.tools.map((t) => [t.name, t.inputSchema]));
    for (const s of o.sessions) this.steps.set(s.name, []);
  }

  private fill(s: RunnerSession, step: number, round: number, owner: RunnerSession = s, pass?: Pass): FillValues {
    const { runId } = this.o;
    return {
      pause: pass === 'concurrent' ? '0.2' : '0',
      key: marker(runId, owner.name, step, KEY_SLOT),
      payload: (slot) => marker(runId, owner.name, step, slot),
      dir: owner.dir,
      workspace: s.workspace,
      session: s.name,
      round,
      run: runId,
    };
  }

  private latestStep(s: RunnerSession): number {
    return this.steps.get(s.name)?.at(-1) ?? 1;
  }

  /** One call, recorded. */
  private async call(
    s: RunnerSession,
    tool: PlannedTool,
    mode: CallMode,
    at: { step: number; round: number; pass?: Pass },
    target?: RunnerSession,
    argsOverride?: Record<string, unknown>,
  ): Promise<CallRecord | undefined> {
    const { signal, callTimeoutMs, t0 } = this.o;
    if (this.unresponsive.has(`${s.name}|${tool.name}`)) return undefined;
    const chosen = this.variant.get(tool.name) ?? 'full';
    const userArgs = tool.argsFrom === 'user';
    const template = argsOverride ?? (chosen === 'minimal' && tool.minimal ? tool.minimal : (tool.args ?? {}));
    const owner = mode === 'cross' && target ? target : s;
    const ownerStep = mode === 'cross' && target ? this.latestStep(target) : at.step;
    const args = fillTemplate(template, this.fill(s, ownerStep, at.round, owner, at.pass)) as Record<string, unknown>;
    const record: CallRecord = {
      seq: ++this.seq,
      session: s.name,
      connection: s.connection.info.label,
      tool: tool.name,
      mode,
      ...(mode === 'cross' && target ? { target: target.name } : {}),
      round: at.round,
      ...(at.pass ? { pass: at.pass } : {}),
      step: at.step,
      variant: userArgs ? 'user' : argsOverride ? 'full' : chosen === 'minimal' && tool.minimal ? 'minimal' : 'full',
      arguments: args,
      sent: findMarkers(JSON.stringify(args)).map((m) => m.text),
      outcome: 'result',
      startMs: Math.round(performance.now() - t0),
      durationMs: 0,
      excerpt: '',
      markers: [],
    };
    this.calls.push(record);
    if (mode === 'own' && !this.steps.get(s.name)?.includes(at.step)) this.steps.get(s.name)?.push(at.step);
    if (!userArgs && !tool.request) {
      const problem = this.o.validator.check(this.schemas.get(tool.name), args);
      if (problem) {
        record.outcome = 'invalid-args';
        record.error = `not sent: the arguments do not match the input schema: ${problem}`;
        return record;
      }
    }
    const started = performance.now();
    let text = '';
    try {
      if (tool.request === 'resources/list') {
        const result = await s.connection.client.request({ method: 'resources/list' }, ListResourcesResultSchema, { timeout: callTimeoutMs, signal });
        text = JSON.stringify(result.resources);
      } else {
        const result = await callTool(s.connection, tool.name, args, { timeout: callTimeoutMs, signal });
        text = readBack(result);
        record.outcome = result.isError ? 'tool-error' : 'result';
      }
    } catch (error) {
      record.outcome = signal.aborted ? 'aborted' : classify(error);
      record.error = oneLine(errorMessage(error));
      if (record.outcome === 'rpc-error') text = errorMessage(error);
      if (record.outcome === 'timeout') this.unresponsive.add(`${s.name}|${tool.name}`);
    }
    record.durationMs = Math.round(performance.now() - started);
    record.excerpt = oneLine(text, 400);
    const found = findMarkers(text);
    record.markers = found.map((m) => m.text);
    const foreign = found.find((m) => m.legacy || m.run !== this.o.runId || m.session !== s.name);
    if (foreign && !record.sent.includes(foreign.text)) {
      const at = text.toLowerCase().indexOf(foreign.text);
      record.context = oneLine(text.slice(Math.max(0, at - 100), at + foreign.text.length + 100), 260);
    }
    // the full argument set refused: try the required arguments alone, and keep whichever works
    if (mode === 'own' && !argsOverride && chosen === 'full' && !this.variant.has(tool.name)) {
      if (record.outcome === 'result') this.variant.set(tool.name, 'full');
      else if ((record.outcome === 'tool-error' || record.outcome === 'rpc-error') && tool.minimal) {
        this.variant.set(tool.name, 'minimal');
        const retry = await this.call(s, tool, mode, at, target);
        if (retry && retry.outcome !== 'result') this.variant.delete(tool.name);
        return retry;
      }
    }
    return record;
  }

  private tool(name: string): PlannedTool {
    return this.byName.get(name) as PlannedTool;
  }

  /** Every round: a concurrent pass, then a sequential pass. Stops at a dead connection or a pass nobody answered. */
  async rounds(): Promise<void> {
    const { sessions, rounds } = this.o;
    for (let round = 1; round <= rounds; round++) {
      if (!(await this.pass(round, 'concurrent', 2 * round - 1))) return;
      const order = round % 2 === 1 ? [...sessions] : [...sessions].reverse();
      if (!(await this.pass(round, 'sequential', 2 * round, order))) return;
      if (this.o.workspaceRoot) await this.checkWorkspaces(round);
    }
  }

  private async pass(round: number, pass: Pass, step: number, order: readonly RunnerSession[] = this.o.sessions): Promise<boolean> {
    const { plan, sessions, signal } = this.o;
    const started = performance.now();
    const first = this.calls.length;
    const at = { step, round, pass };
    const crossReaders = plan.readers.filter((r) => this.tool(r).cross);
    if (pass === 'concurrent') {
      // lockstep: each tool called by every session at the same moment
      for (const name of plan.order) {
        await Promise.all(sessions.map((s) => this.call(s, this.tool(name), 'own', at)));
        rethrowIfAborted(signal);
      }
      const offset = 1 + ((round - 1) % Math.max(1, sessions.length - 1));
      for (const name of crossReaders) {
        await Promise.all(sessions.map((s, i) => this.call(s, this.tool(name), 'cross', at, sessions[(i + offset) % sessions.length])));
        rethrowIfAborted(signal);
      }
      for (const name of plan.last) {
        await Promise.all(sessions.map((s) => this.call(s, this.tool(name), 'own', at)));
        rethrowIfAborted(signal);
      }
    } else {
      // one session after another: what one wrote, the next reads, with no race needed
      for (const [i, s] of order.entries()) {
        for (const name of plan.order) {
          await this.call(s, this.tool(name), 'own', at);
          rethrowIfAborted(signal);
        }
        const before = order[(i - 1 + order.length) % order.length] as RunnerSession;
        for (const name of crossReaders) {
          await this.call(s, this.tool(name), 'cross', at, before);
          rethrowIfAborted(signal);
        }
        for (const name of plan.last) {
          await this.call(s, this.tool(name), 'own', at);
          rethrowIfAborted(signal);
        }
      }
    }
    const calls = this.calls.slice(first);
    const summary: PassSummary = {
      round,
      pass,
      step,
      calls: calls.length,
      answered: calls.filter((c) => ANSWERED.includes(c.outcome)).length,
      durationMs: Math.round(performance.now() - started),
      foreign: calls.filter((c) => c.context !== undefined).length,
    };
    this.passes.push(summary);
    this.o.onPass?.(summary);
    return this.afterPass(round, calls);
  }

  /** Note the first call nobody answered; false when the rounds must stop. */
  private afterPass(round: number, calls: CallRecord[]): boolean {
    const broken = calls.find((c) => !ANSWERED.includes(c.outcome) && c.outcome !== 'invalid-args');
    if (!broken) return true;
    if (this.o.signal.aborted) return false;
    const dead = calls.find((c) => c.outcome === 'transport-error' || c.outcome === 'aborted');
    const described = dead ?? broken;
    const session = this.o.sessions.find((s) => s.name === described.session) as RunnerSession;
    let why: string;
    if (described.outcome === 'timeout') {
      const answered = calls.filter((c) => c.tool === described.tool && c.step === described.step && ANSWERED.includes(c.outcome)).map((c) => c.session);
      why = ` got no answer to tools/call within ${formatMs(this.o.callTimeoutMs)} (--call-timeout)`;
      if (calls.some((c) => c.tool !== described.tool)) why = ` got no answer to tools/call ${described.tool} within ${formatMs(this.o.callTimeoutMs)} (--call-timeout)`;
      if (answered.length > 0) why += ` while ${listNames([...new Set(answered)])} ${answered.length === 1 ? 'was' : 'were'} answered`;
    } else {
      const death = session.connection.deathReason('during tools/call');
      why = death ? `: ${death}` : ` tools/call ${described.tool} failed: ${described.error ?? 'unknown error'}`;
    }
    const text = `round ${round}: ${described.session}${why}`;
    const stop = dead !== undefined || !calls.some((c) => ANSWERED.includes(c.outcome));
    if (stop) this.problem ??= text;
    else {
      // others were answered: the run goes on without this session's call of that tool (a reply delivered to the
      // wrong session looks exactly like this, and the rest of the run may show where it went)
      for (const c of calls.filter((x) => x.outcome === 'timeout')) {
        const line = c === described ? text : `round ${round}: ${c.session} got no answer to tools/call ${c.tool} within ${formatMs(this.o.callTimeoutMs)} (--call-timeout)`;
        if (!this.unanswered.some((u) => u.endsWith(`|${c.session}|${c.tool}`))) this.unanswered.push(`${line}|${c.session}|${c.tool}`);
      }
    }
    return !stop;
  }

  private async checkWorkspaces(round: number): Promise<void> {
    const root = this.o.workspaceRoot as string;
    const checks = await abortable(
      Promise.all(this.o.sessions.map((s) => checkWorkspace(s.name, path.join(root, s.workspace), round, this.o.runId))),
      this.o.signal,
    );
    this.workspaces.push(...checks);
  }

  /** The teardown tool for every session's workspace, twice: the second call must be harmless. */
  async teardown(teardownTool: { tool: string; args: Record<string, unknown> }): Promise<TeardownResult> {
    const { sessions, signal, callTimeoutMs } = this.o;
    const calls: TeardownCall[] = [];
    const problems: string[] = [];
    for (const s of sessions) {
      for (const attempt of [1, 2] as const) {
        rethrowIfAborted(signal);
        const args = fillTemplate(teardownTool.args, this.fill(s, this.latestStep(s), 0)) as Record<string, unknown>;
        const started = performance.now();
        const call: TeardownCall = { session: s.name, workspace: s.workspace, attempt, arguments: args, outcome: 'result', durationMs: 0, excerpt: '' };
        try {
          const result = await callTool(s.connection, teardownTool.tool, args, { timeout: callTimeoutMs, signal });
          call.outcome = result.isError ? 'tool-error' : 'result';
          call.excerpt = oneLine(readBack(result), 200);
        } catch (error) {
          rethrowIfAborted(signal);
          call.outcome = classify(error);
          call.error = oneLine(errorMessage(error));
        }
        call.durationMs = Math.round(performance.now() - started);
        calls.push(call);
        if (call.outcome !== 'result') {
          const what = attempt === 1 ? 'teardown' : 'the second teardown (must be harmless)';
          problems.push(`${what} of ${s.workspace} ${call.outcome === 'tool-error' ? `returned an error: "${oneLine(call.excerpt, 120)}"` : `failed: ${call.error ?? call.outcome}`}`);
          if (call.outcome === 'timeout') break; // no second wait on a session that gets no answers
        }
      }
    }
    let workspacesRemoved: Record<string, boolean> | undefined;
    if (this.o.workspaceRoot) {
      workspacesRemoved = {};
      for (const s of sessions) {
        const dir = path.join(this.o.workspaceRoot, s.workspace);
        const check = await checkWorkspace(s.name, dir, 0, this.o.runId);
        workspacesRemoved[s.name] = !check.exists;
        if (check.exists) problems.push(`${dir} still exists after teardown`);
      }
    }
    const name = teardownTool.tool;
    return {
      tool: name,
      status: problems.length === 0 ? 'passed' : 'failed',
      detail:
        problems.length === 0
          ? `${name} for ${sessions.length} workspaces; each second call was harmless${workspacesRemoved ? '; workspace directories removed' : ''}`
          : (problems[0] as string),
      calls,
      ...(workspacesRemoved ? { workspacesRemoved } : {}),
    };
  }

  /** Arguments for a cleanup step: array items that hold {key} are repeated for each of the session's keys. */
  private cleanupArgs(step: CleanupStep, s: RunnerSession, keys: number[]): Record<string, unknown>[] {
    const base = this.fill(s, this.latestStep(s), 0);
    if (step.kind === 'command') return [fillTemplate(step.args, base) as Record<string, unknown>];
    const forStep = (n: number): FillValues => ({ ...base, key: marker(this.o.runId, s.name, n, KEY_SLOT), payload: (slot) => marker(this.o.runId, s.name, n, slot) });
    if (step.keys === 'each') return keys.map((n) => fillTemplate(step.args, forStep(n)) as Record<string, unknown>);
    const expand = (value: unknown): unknown => {
      if (Array.isArray(value)) {
        return value.flatMap((item) => (containsPlaceholder(item, '{key}') ? keys.map((n) => fillTemplate(item, forStep(n))) : [expand(item)]));
      }
      if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v)]));
      return fillTemplate(value, base);
    };
    return [expand(step.args) as Record<string, unknown>];
  }

  /**
   * Remove what the calls created, through the server's own tools; then read once more and list whatever of this run
   * is still there. Returns the leftovers and the tools used.
   */
  async cleanup(): Promise<{ tools: string[]; leftovers: Leftover[]; crossProcess: Set<string> }> {
    const { plan, sessions, signal } = this.o;
    const used = new Set<string>();
    const leftovers = new Map<string, Leftover>();
    const crossProcess = new Set<string>();
    const ownerConnection = new Map(sessions.map((s) => [s.name, s.connection.info.label]));
    const note = (record: CallRecord | undefined, fromOutput: boolean) => {
      if (!record) return;
      for (const m of findMarkers(record.markers.join('\n'))) {
        if (m.legacy || m.run !== this.o.runId) continue;
        // a deleter's reply may echo what it was asked to delete; only the cleanup command lists what is left
        if (!fromOutput && record.sent.includes(m.text)) continue;
        const inScratch = this.o.scratch !== undefined && JSON.stringify(record.arguments).includes(this.o.scratch);
        if (!leftovers.has(m.text)) leftovers.set(m.text, { marker: m.text, seenBy: `${record.tool} on ${record.connection}`, ...(inScratch ? { inScratch: true as const } : {}) });
        if (ownerConnection.get(m.session) !== record.connection) crossProcess.add(m.text);
      }
    };
    for (const step of plan.cleanup) {
      const tool = this.tool(step.tool);
      for (const s of sessions) {
        const keys = [...new Set(this.steps.get(s.name) ?? [])];
        if (keys.length === 0) continue;
        for (const args of this.cleanupArgs(step, s, keys)) {
          rethrowIfAborted(signal);
          const record = await this.call(s, tool, 'cleanup', { step: this.latestStep(s), round: 0 }, undefined, args);
          used.add(step.tool);
          if (step.kind === 'command') note(record, true);
        }
      }
    }
    // what is left: every reader, once per session
    for (const s of sessions) {
      for (const name of plan.readers) {
        rethrowIfAborted(signal);
        const tool = this.tool(name);
        note(await this.call(s, tool, 'residue', { step: this.latestStep(s), round: 0 }), false);
      }
    }
    return { tools: [...used], leftovers: [...leftovers.values()], crossProcess };
  }
}
