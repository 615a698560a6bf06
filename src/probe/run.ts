import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  abortable,
  listAllTools,
  openHttp,
  openStdio,
  rethrowIfAborted,
  waitForListening,
  type ConnectCommon,
  type Connection,
} from './connections.js';
import { ProbeError } from './errors.js';
import { findForeignMarkers, markerFor, newRunId, readBack, SESSION_NAMES } from './markers.js';
import { ManagedProcess } from './process.js';
import { errorMessage, formatMs, oneLine } from './text.js';
import { fillTemplate, planArguments, planTeardownArguments, selectTeardown, selectTool, type ArgsPlan } from './tools.js';
import type {
  AssertionResult,
  CallOutcome,
  CallRecord,
  ExitCode,
  Failure,
  ProbeOptions,
  ProbeResult,
  RoundResult,
  TeardownCall,
  TeardownResult,
  Verdict,
} from './types.js';
import { checkWorkspace } from './workspace.js';

export type * from './types.js';
export { ProbeError } from './errors.js';
export { DEFAULT_COMMAND } from './tools.js';

export const DEFAULTS = {
  sessions: 2,
  rounds: 5,
  callTimeoutMs: 20_000,
  connectTimeoutMs: 20_000,
  timeoutMs: 120_000,
} as const;

function packageVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'eslint-plugin-mcp-stateless') return pkg.version ?? '0.0.0';
    } catch {
      // keep walking up
    }
    dir = path.dirname(dir);
  }
  return '0.0.0';
}

const PROBE_NAME = 'mcp-stateless probe';
const ANSWERED: readonly CallOutcome[] = ['result', 'tool-error', 'rpc-error'];

interface Session {
  name: string;
  workspace: string;
  connection: Connection;
}

function positiveInt(value: number | undefined, fallback: number, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) throw new ProbeError(`${what} must be a whole number from 1 to ${max}, got ${value}`);
  return value;
}

function positiveMs(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new ProbeError(`${what} must be a positive duration, got ${value}`);
  return value;
}

function classify(error: unknown): CallOutcome {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return 'timeout';
    if (error.code === ErrorCode.ConnectionClosed) return 'transport-error';
    return 'rpc-error';
  }
  return 'transport-error';
}

/**
 * Run the interleaved statelessness probe against one MCP server and return everything it observed.
 * Never throws for problems with the server or the options: those come back as verdict 'error'.
 */
export async function runProbe(options: ProbeOptions): Promise<ProbeResult> {
  const startedAt = new Date();
  const t0 = performance.now();
  const version = packageVersion();
  const runId = newRunId();
  const warnings: string[] = [];
  const failures: Failure[] = [];
  const rounds: RoundResult[] = [];
  const connections: Connection[] = [];
  let httpServer: ManagedProcess | undefined;
  let fatal: string | undefined;
  let sessions: Session[] = [];
  let tool: Tool | undefined;
  let selectedBy: 'option' | 'auto' = 'auto';
  let plan: ArgsPlan | undefined;
  let teardownTool: Tool | null = null;
  let design = '';
  let connectStart: number | undefined;
  let connectMs = 0;
  let roundsMs = 0;
  let teardownMs = 0;
  let teardown: TeardownResult = { tool: null, status: 'not-run', detail: 'the probe did not get as far as teardown', calls: [] };

  const settings: ProbeResult['settings'] = {
    rounds: options.rounds ?? DEFAULTS.rounds,
    sessions: options.sessions ?? DEFAULTS.sessions,
    secondProcess: options.secondProcess ?? true,
    callTimeoutMs: options.callTimeoutMs ?? DEFAULTS.callTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    workspaceRoot: options.workspaceRoot ? path.resolve(options.workspaceRoot) : null,
  };
  const transport: 'stdio' | 'http' = options.url ? 'http' : 'stdio';
  const target: ProbeResult['target'] = { transport };
  if (options.url) target.url = options.url;
  if (options.command && options.command.length > 0) {
    target.command = [...options.command];
    target.cwd = path.resolve(options.cwd ?? process.cwd());
  }
  if (transport === 'http') settings.secondProcess = false;

  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new ProbeError(`the run did not finish within ${formatMs(settings.timeoutMs)} (--timeout)`)),
    Math.min(settings.timeoutMs, 2_147_483_647),
  );
  const onUserAbort = () => controller.abort(new ProbeError('the run was interrupted'));
  if (options.signal?.aborted) onUserAbort();
  options.signal?.addEventListener('abort', onUserAbort, { once: true });
  const signal = controller.signal;
  setMaxListeners(0, signal); // the SDK adds an abort listener per request

  const common = (label: string): ConnectCommon => ({
    label,
    clientInfo: { name: 'mcp-stateless-probe', version },
    callTimeoutMs: settings.callTimeoutMs,
    connectTimeoutMs: settings.connectTimeoutMs,
    signal,
  });
  const env = { ...process.env, ...options.env };
  const stderrTo = (label: string) => (options.onServerStderr ? (text: string) => options.onServerStderr?.(text, label) : undefined);

  try {
    // ---- validate --------------------------------------------------------------------------
    settings.rounds = positiveInt(options.rounds, DEFAULTS.rounds, 'rounds');
    settings.sessions = positiveInt(options.sessions, DEFAULTS.sessions, 'sessions', SESSION_NAMES.length - 1);
    if (settings.sessions < 2) throw new ProbeError('sessions must be at least 2: the probe needs someone to leak to');
    settings.callTimeoutMs = positiveMs(options.callTimeoutMs, DEFAULTS.callTimeoutMs, 'call timeout');
    settings.connectTimeoutMs = positiveMs(options.connectTimeoutMs, DEFAULTS.connectTimeoutMs, 'connect timeout');
    settings.timeoutMs = positiveMs(options.timeoutMs, DEFAULTS.timeoutMs, 'timeout');
    const command = options.command ?? [];
    if (!options.url && command.length === 0) throw new ProbeError('nothing to probe: give a server command (stdio) or a URL (Streamable HTTP)');
    let url: URL | undefined;
    if (options.url) {
      try {
        url = new URL(options.url);
      } catch {
        throw new ProbeError(`not a URL: ${options.url}`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ProbeError(`not an http(s) URL: ${options.url}`);
    }

    // ---- connect ---------------------------------------------------------------------------
    connectStart = performance.now();
    const names = SESSION_NAMES.slice(0, settings.sessions);
    let tools: Tool[];
    if (!url) {
      const [cmd, ...args] = command as [string, ...string[]];
      const open = (label: string) =>
        openStdio({ ...common(label), command: cmd, args, cwd: options.cwd, env, onStderr: stderrTo(label) });
      // Both processes start at once; keep them in order (process 1 first) whichever answers first.
      const opened = await Promise.allSettled([open('server process 1'), ...(settings.secondProcess ? [open('server process 2')] : [])]);
      for (const o of opened) if (o.status === 'fulfilled') connections.push(o.value);
      const failed = opened.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason;
      const [primary, second] = connections as [Connection, Connection | undefined];
      tools = await listAllTools(primary, common(primary.info.label));
      ({ tool, selectedBy } = selectTool(tools, options.tool));
      if (second) await requireTool(second, tool.name);
      sessions = names.map((name) => ({ name, workspace: `probe-${runId}-${name}`, connection: primary }));
      if (second) {
        const name = SESSION_NAMES[settings.sessions] as string;
        sessions.push({ name, workspace: `probe-${runId}-${name}`, connection: second });
      }
      const inProcess = listNames(names);
      design = second
        ? `stdio: ${inProcess} interleaved on one connection to server process 1; ${sessions.at(-1)?.name} on server process 2 (same command, same disk)`
        : `stdio: ${inProcess} interleaved on one connection to server process 1; no second process`;
    } else {
      if (command.length > 0) {
        const [cmd, ...args] = command as [string, ...string[]];
        try {
          // not abortable: spawning takes milliseconds, and a process started after an abort would be orphaned
          httpServer = await ManagedProcess.start({
            command: cmd,
            args,
            cwd: options.cwd,
            env,
            stdin: 'ignore',
            label: 'server process',
            onStderr: stderrTo('server process'),
          });
        } catch (error) {
          rethrowIfAborted(signal);
          throw new ProbeError(`could not start the server (${command.join(' ')}): ${errorMessage(error)}`);
        }
        await waitForListening(url, httpServer, settings.connectTimeoutMs, signal);
      }
      tools = [];
      for (const [i, name] of names.entries()) {
        const connection = await openHttp({ ...common(`HTTP session ${i + 1} (${name})`), url, headers: options.headers, server: httpServer });
        connections.push(connection);
        if (i === 0) {
          tools = await listAllTools(connection, common(connection.info.label));
          ({ tool, selectedBy } = selectTool(tools, options.tool));
        } else {
          await requireTool(connection, (tool as Tool).name);
        }
        sessions.push({ name, workspace: `probe-${runId}-${name}`, connection });
      }
      design = `Streamable HTTP: ${listNames(names)}, each on its own session to ${url.href}`;
    }
    connectMs = performance.now() - connectStart;
    const probed = tool as Tool;
    plan = planArguments(probed, options.args);
    warnings.push(...plan.warnings);
    teardownTool = selectTeardown(tools, options.teardown, probed);

    // ---- rounds ----------------------------------------------------------------------------
    const roundsStart = performance.now();
    let firstProblem: string | undefined;
    for (let round = 1; round <= settings.rounds; round++) {
      const result = await runRound(round, probed, plan, sessions);
      rounds.push(result.round);
      options.onRound?.(result.round);
      rethrowIfAborted(signal);
      firstProblem ??= result.problem;
      if (result.stop) break;
    }
    roundsMs = performance.now() - roundsStart;
    fatal = firstProblem ?? allErrorsInFirstRound();

    // ---- teardown --------------------------------------------------------------------------
    if (!fatal) {
      const teardownStart = performance.now();
      teardown = await runTeardown(probed, plan, sessions);
      teardownMs = performance.now() - teardownStart;
    } else {
      teardown = { tool: teardownTool?.name ?? null, status: 'not-run', detail: 'not attempted: the probe could not complete its rounds', calls: [] };
    }
  } catch (error) {
    if (connectMs === 0 && connectStart !== undefined) connectMs = performance.now() - connectStart;
    if (signal.aborted && signal.reason instanceof ProbeError) fatal = signal.reason.message;
    else if (error instanceof ProbeError) fatal = error.message;
    else fatal = `unexpected error: ${oneLine(errorMessage(error))}`;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onUserAbort);
  }

  // ---- cleanup: every connection closed, every process tree we started gone -------------------
  const cleanupStart = performance.now();
  await Promise.allSettled(connections.map((c) => c.close()));
  await httpServer?.terminate();
  const cleanupMs = performance.now() - cleanupStart;

  const { verdict, exitCode, reason } = decide();
  const finishedAt = new Date();
  return {
    probe: { name: PROBE_NAME, version },
    verdict,
    exitCode,
    reason,
    target,
    design,
    runId,
    tool: tool
      ? { name: tool.name, selectedBy, commandArgument: plan?.commandArgument, workspaceArgument: plan?.workspaceArgument }
      : null,
    argsTemplate: plan?.template ?? null,
    settings,
    sessions: sessions.map((s) => ({
      name: s.name,
      markerPattern: `${s.name}-<round>-${runId}`,
      workspace: s.workspace,
      connection: s.connection.info.label,
    })),
    connections: connections.map((c) => c.info),
    rounds,
    teardown,
    failures,
    warnings,
    ...(verdict === 'error' && fatal ? { error: fatal } : {}),
    timings: {
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      totalMs: Math.round(performance.now() - t0),
      connectMs: Math.round(connectMs),
      roundsMs: Math.round(roundsMs),
      teardownMs: Math.round(teardownMs),
      cleanupMs: Math.round(cleanupMs),
    },
  };

  // ---- helpers (closures over the run's state) ---------------------------------------------------

  async function requireTool(connection: Connection, name: string): Promise<void> {
    const listed = await listAllTools(connection, common(connection.info.label));
    if (!listed.some((t) => t.name === name)) {
      throw new ProbeError(`${connection.info.label} does not list the tool "${name}" that the first connection lists`);
    }
  }

  /**
   * One round: every session's call at once, then the assertions. `problem` describes a call that got no
   * answer; `stop` ends the rounds: after a dead connection, or when no call at all was answered. A call
   * that times out while others are answered does not stop the run: a reply delivered to the wrong
   * session looks exactly like that, and the next rounds may show where it went.
   */
  async function runRound(
    round: number,
    probed: Tool,
    argsPlan: ArgsPlan,
    all: Session[],
  ): Promise<{ round: RoundResult; problem?: string; stop: boolean }> {
    const markers = Object.fromEntries(all.map((s) => [s.name, markerFor(s.name, round, runId)]));
    const started = performance.now();
    // Fire every session's call at once: the shape `shared` exposes the server to.
    const calls = await Promise.all(
      all.map(async (s): Promise<CallRecord> => {
        const marker = markers[s.name] as string;
        const args = fillTemplate(argsPlan.template, { marker, workspace: s.workspace, session: s.name, round }) as Record<string, unknown>;
        const startMs = performance.now() - started;
        const record: CallRecord = {
          session: s.name,
          marker,
          connection: s.connection.info.label,
          arguments: args,
          outcome: 'result',
          startMs: Math.round(startMs),
          durationMs: 0,
          excerpt: '',
          foreignMarkers: [],
          ownMarker: false,
        };
        let text = '';
        try {
          const result = await s.connection.client.callTool({ name: probed.name, arguments: args }, undefined, {
            timeout: settings.callTimeoutMs,
            signal,
          });
          text = readBack(result);
          record.outcome = result.isError ? 'tool-error' : 'result';
        } catch (error) {
          record.outcome = signal.aborted ? 'aborted' : classify(error);
          record.error = oneLine(errorMessage(error));
          if (record.outcome === 'rpc-error') text = errorMessage(error);
        }
        record.durationMs = Math.round(performance.now() - started - startMs);
        record.excerpt = oneLine(text, 400);
        const others = all.filter((o) => o.name !== s.name).map((o) => o.name);
        record.foreignMarkers = findForeignMarkers(text, others, runId);
        record.ownMarker = text.includes(marker);
        return record;
      }),
    );
    const durationMs = Math.round(performance.now() - started);
    const assertions: AssertionResult[] = [];
    for (const call of calls) {
      const answered = ANSWERED.includes(call.outcome);
      for (const other of all) {
        if (other.name === call.session) continue;
        const seen = call.foreignMarkers.filter((m) => m.startsWith(`${other.name}-`));
        const assertion: AssertionResult = {
          kind: 'isolation',
          name: `${call.session} did not observe ${other.name}`,
          session: call.session,
          other: other.name,
          status: !answered && seen.length === 0 ? 'not-run' : seen.length > 0 ? 'failed' : 'passed',
        };
        if (seen.length > 0) {
          assertion.detail = `${call.session} received ${other.name}'s marker ${seen.join(', ')}`;
          failures.push({ kind: 'leak', round, session: call.session, message: `round ${round}: ${assertion.detail}` });
        }
        assertions.push(assertion);
      }
      const own: AssertionResult = {
        kind: 'own-marker',
        name: `${call.session} got its own marker back`,
        session: call.session,
        status: call.ownMarker ? 'passed' : answered ? 'failed' : 'not-run',
      };
      if (!call.ownMarker) {
        own.detail = !answered
          ? `no answer: ${call.error ?? call.outcome}`
          : call.outcome === 'result'
            ? `the reply does not contain ${call.marker}${call.excerpt ? ` (reply: "${oneLine(call.excerpt, 120)}")` : ' (empty reply)'}`
            : `the call returned an error without ${call.marker}: "${oneLine(call.excerpt, 160)}"`;
        if (answered) failures.push({ kind: 'own-marker', round, session: call.session, message: `round ${round}: ${call.session}: ${own.detail}` });
      }
      assertions.push(own);
    }

    const broken = calls.find((c) => !ANSWERED.includes(c.outcome));
    let workspaces: RoundResult['workspaces'];
    if (settings.workspaceRoot && !broken) {
      const root = settings.workspaceRoot;
      workspaces = await abortable(
        Promise.all(
          all.map((s) =>
            checkWorkspace(
              s.name,
              path.join(root, s.workspace),
              markers[s.name] as string,
              all.filter((o) => o.name !== s.name).map((o) => o.name),
              runId,
            ),
          ),
        ),
        signal,
      );
      for (const ws of workspaces) {
        const assertion: AssertionResult = {
          kind: 'workspace',
          name: `${ws.session}'s workspace holds only its own files`,
          session: ws.session,
          status: 'passed',
        };
        if (ws.foreignMarkers.length > 0) {
          assertion.status = 'failed';
          const first = ws.foreignMarkers[0] as { marker: string; file: string };
          assertion.detail = `${ws.dir} holds ${first.marker} in ${first.file}${ws.foreignMarkers.length > 1 ? ` (+${ws.foreignMarkers.length - 1} more)` : ''}`;
          failures.push({ kind: 'leak', round, session: ws.session, message: `round ${round}: ${ws.session}'s workspace ${assertion.detail}` });
        } else if (!ws.exists || !ws.ownMarker) {
          assertion.status = 'failed';
          assertion.detail = !ws.exists
            ? `workspace directory ${ws.dir} does not exist`
            : `no file in ${ws.dir} holds ${markers[ws.session]} (${ws.files} files)`;
          failures.push({ kind: 'workspace', round, session: ws.session, message: `round ${round}: ${assertion.detail}` });
        }
        assertions.push(assertion);
      }
    }

    const result: RoundResult = {
      round,
      markers,
      durationMs,
      calls,
      assertions,
      ...(workspaces ? { workspaces } : {}),
      passed: !broken && assertions.every((a) => a.status === 'passed'),
    };
    if (!broken) return { round: result, stop: false };
    if (signal.aborted) return { round: result, stop: true };
    const dead = calls.find((c) => c.outcome === 'transport-error' || c.outcome === 'aborted');
    const answered = calls.filter((c) => ANSWERED.includes(c.outcome)).map((c) => c.session);
    const described = dead ?? broken;
    const session = all.find((s) => s.name === described.session) as Session;
    let why: string;
    if (described.outcome === 'timeout') {
      why = ` got no answer to tools/call within ${formatMs(settings.callTimeoutMs)} (--call-timeout)`;
      if (answered.length > 0) why += ` while ${listNames(answered)} ${answered.length === 1 ? 'was' : 'were'} answered`;
    } else {
      const death = session.connection.deathReason('during tools/call');
      why = death ? `: ${death}` : ` tools/call failed: ${described.error ?? 'unknown error'}`;
    }
    return { round: result, problem: `round ${round}: ${described.session}${why}`, stop: dead !== undefined || answered.length === 0 };
  }

  function allErrorsInFirstRound(): string | undefined {
    const first = rounds[0];
    if (!first || first.calls.length === 0) return undefined;
    if (first.calls.every((c) => (c.outcome === 'tool-error' || c.outcome === 'rpc-error') && !c.ownMarker)) {
      const sample = first.calls[0] as CallRecord;
      return `every call in round 1 came back as an error, so nothing can be concluded; check --tool and --args (${sample.session}: "${oneLine(sample.excerpt, 160)}")`;
    }
    return undefined;
  }

  async function runTeardown(probed: Tool, argsPlan: ArgsPlan, all: Session[]): Promise<TeardownResult> {
    if (options.teardown === false) return { tool: null, status: 'skipped', detail: 'skipped (--no-teardown)', calls: [] };
    if (!teardownTool) {
      warnings.push('the server lists no teardown tool (teardown, cleanup, delete_workspace); a finished run\'s data may linger');
      return { tool: null, status: 'absent', detail: 'no teardown tool found', calls: [] };
    }
    const teardownPlan = planTeardownArguments(teardownTool, options.teardownArgs, argsPlan);
    if (typeof teardownPlan === 'string') {
      warnings.push(teardownPlan);
      return { tool: teardownTool.name, status: 'skipped', detail: teardownPlan, calls: [] };
    }
    const calls: TeardownCall[] = [];
    const problems: string[] = [];
    for (const s of all) {
      for (const attempt of [1, 2] as const) {
        rethrowIfAborted(signal);
        const args = fillTemplate(teardownPlan, { workspace: s.workspace, session: s.name }) as Record<string, unknown>;
        const started = performance.now();
        const call: TeardownCall = { session: s.name, workspace: s.workspace, attempt, arguments: args, outcome: 'result', durationMs: 0, excerpt: '' };
        try {
          const result = await s.connection.client.callTool({ name: (teardownTool as Tool).name, arguments: args }, undefined, {
            timeout: settings.callTimeoutMs,
            signal,
          });
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
        }
      }
    }
    let workspacesRemoved: Record<string, boolean> | undefined;
    if (settings.workspaceRoot) {
      workspacesRemoved = {};
      for (const s of all) {
        const dir = path.join(settings.workspaceRoot, s.workspace);
        const check = await checkWorkspace(s.name, dir, '', [], runId);
        workspacesRemoved[s.name] = !check.exists;
        if (check.exists) problems.push(`${dir} still exists after teardown`);
      }
    }
    for (const p of problems) failures.push({ kind: 'teardown', message: `teardown: ${p}` });
    const name = teardownTool.name;
    return {
      tool: name,
      status: problems.length === 0 ? 'passed' : 'failed',
      detail:
        problems.length === 0
          ? `${name} for ${all.length} workspaces; each second call was harmless${workspacesRemoved ? '; workspace directories removed' : ''}`
          : (problems[0] as string),
      calls,
      ...(workspacesRemoved ? { workspacesRemoved } : {}),
    };
  }

  function decide(): { verdict: Verdict; exitCode: ExitCode; reason: string } {
    const leaks = failures.filter((f) => f.kind === 'leak');
    if (leaks.length > 0) {
      const leakyRounds = new Set(leaks.map((l) => l.round)).size;
      const first = leaks[0] as Failure;
      const stopped = fatal ? `; also ${fatal}` : '';
      return {
        verdict: 'leak',
        exitCode: 1,
        reason: oneLine(`leak in ${leakyRounds} of ${plural(rounds.length, 'round')}: ${first.message}${stopped}`, 400),
      };
    }
    if (fatal) return { verdict: 'error', exitCode: 2, reason: oneLine(fatal, 400) };
    if (failures.length > 0) {
      const first = failures[0] as Failure;
      const more = failures.length > 1 ? ` (+${failures.length - 1} more)` : '';
      return { verdict: 'fail', exitCode: 1, reason: oneLine(`${first.message}${more}`, 400) };
    }
    const wsNote = settings.workspaceRoot ? '; every workspace held only its own files' : '';
    const tdNote =
      teardown.status === 'passed' ? `; teardown ${teardown.tool} idempotent` : teardown.status === 'absent' ? '; no teardown tool' : '';
    return {
      verdict: 'pass',
      exitCode: 0,
      reason: `${plural(rounds.length, 'round')}, ${plural(sessions.length, 'session')}: no session observed another and each got its own marker back${wsNote}${tdNote}`,
    };
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function listNames(names: readonly string[]): string {
  if (names.length <= 2) return names.join(' and ');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
