// runProbe: plan, run, judge. Connects the sessions, asks the planner for a plan, lets the runner execute it, asks
// the judge for the verdict, and always cleans up (connections, processes, the scratch directory).

import { setMaxListeners } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ServerSummary } from '../summary.js';
import { listAllTools, openHttp, openStdio, rethrowIfAborted, waitForListening, type ConnectCommon, type Connection } from './connections.js';
import { loadProbeDependencies, MissingDependencyError } from './deps.js';
import { ProbeError } from './errors.js';
import { judge } from './judge.js';
import { DEFAULTS, SESSIONS_MAX, SESSIONS_MIN } from './defaults.js';
import { checkSummary, lintSource } from './lint.js';
import { KEY_SLOT, marker, newRunId, SESSION_NAMES } from './markers.js';
import { planProbe, type ProbePlan } from './planner.js';
import { ManagedProcess } from './process.js';
import { Runner, type RunnerSession } from './runner.js';
import { fillTemplate } from './schema-args.js';
import { errorMessage, formatMs, oneLine } from './text.js';
import { transportCheck } from './transport-check.js';
import type { CleanupResult, ProbeOptions, ProbeResult, TeardownResult, TransportCheck } from './types.js';
import { makeValidator, type SchemaValidator } from './validate.js';

export type * from './types.js';
export type { ProbePlan, PlannedTool, PlannedPair, LintNote } from './planner.js';
export { ProbeError } from './errors.js';
export { DEFAULT_COMMAND, CLEANUP_COMMAND } from './planner.js';

export { DEFAULTS, SESSIONS_MIN, SESSIONS_MAX } from './defaults.js';
const TRANSPORT_BURSTS = 3;

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

function listNames(names: readonly string[]): string {
  if (names.length <= 2) return names.join(' and ');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * Run the interleaved statelessness probe against one MCP server and return everything it observed.
 * Never throws for problems with the server or the options: those come back as verdict 'error' (exit 2).
 */
export async function runProbe(options: ProbeOptions): Promise<ProbeResult> {
  const startedAt = new Date();
  const t0 = performance.now();
  const version = packageVersion();
  const runId = newRunId();
  const warnings: string[] = [];
  const connections: Connection[] = [];
  let httpServer: ManagedProcess | undefined;
  let fatal: string | undefined;
  let sessions: RunnerSession[] = [];
  let plan: ProbePlan | null = null;
  let runner: Runner | undefined;
  let design = '';
  let scratch: string | undefined;
  let connectStart: number | undefined;
  let lintMs = 0;
  let connectMs = 0;
  let roundsMs = 0;
  let teardownMs = 0;
  let cleanupMs = 0;
  let summary: ServerSummary | undefined = options.summary;
  let validator: SchemaValidator | undefined;
  let transport: TransportCheck | undefined;
  let teardown: TeardownResult = { tool: null, status: 'not-run', detail: 'the probe did not get as far as teardown', calls: [] };
  let cleanup: CleanupResult = { status: 'not-run', detail: 'the probe did not get as far as cleanup', tools: [], leftovers: [], notes: [], scratch: null };
  let tools: Tool[] = [];

  const settings: ProbeResult['settings'] = {
    rounds: options.rounds ?? DEFAULTS.rounds,
    sessions: options.sessions ?? DEFAULTS.sessions,
    secondProcess: options.secondProcess ?? true,
    callTimeoutMs: options.callTimeoutMs ?? DEFAULTS.callTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    workspaceRoot: options.workspaceRoot ? path.resolve(options.workspaceRoot) : null,
    allowDestructive: options.allowDestructive === true,
    allowOpenWorld: options.allowOpenWorld === true,
    cleanup: options.cleanup !== false,
    scratchHome: options.scratchHome === true,
  };
  const transportKind: 'stdio' | 'http' = options.url ? 'http' : 'stdio';
  const target: ProbeResult['target'] = { transport: transportKind };
  if (options.url) target.url = options.url;
  if (options.command && options.command.length > 0) {
    target.command = [...options.command];
    target.cwd = path.resolve(options.cwd ?? process.cwd());
  }
  if (transportKind === 'http') settings.secondProcess = false;

  const controller = new AbortController();
  const onUserAbort = () => controller.abort(new ProbeError('the run was interrupted'));
  if (options.signal?.aborted) onUserAbort();
  options.signal?.addEventListener('abort', onUserAbort, { once: true });
  const signal = controller.signal;
  setMaxListeners(0, signal); // the SDK adds an abort listener per request
  let timer: NodeJS.Timeout | undefined;

  const common = (label: string, roots: string[]): ConnectCommon => ({
    label,
    clientInfo: { name: 'mcp-stateless-probe', version },
    callTimeoutMs: settings.callTimeoutMs,
    connectTimeoutMs: settings.connectTimeoutMs,
    signal,
    roots,
  });
  const stderrTo = (label: string) => (options.onServerStderr ? (text: string) => options.onServerStderr?.(text, label) : undefined);

  try {
    // ---- validate --------------------------------------------------------------------------------------------------
    settings.rounds = positiveInt(options.rounds, DEFAULTS.rounds, 'rounds');
    if (options.sessions !== undefined && (!Number.isInteger(options.sessions) || options.sessions < SESSIONS_MIN || options.sessions > SESSIONS_MAX)) {
      throw new ProbeError(
        options.sessions === 1
          ? 'sessions must be at least 2: the probe needs someone to leak to'
          : `sessions must be a whole number from ${SESSIONS_MIN} to ${SESSIONS_MAX}, got ${options.sessions}`,
      );
    }
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
    if (options.tool === undefined && options.args !== undefined) throw new ProbeError('--args needs --tool: it is the arguments of one tool');

    // ---- the validator, and the lint's summary ----------------------------------------------------------------------
    validator = makeValidator(await loadProbeDependencies());
    if (summary) summary = checkSummary(summary, validator, 'the summary');
    if (options.source !== undefined) {
      const lint = await lintSource(options.source, { typeChecked: options.typeChecked, signal, validator });
      summary = lint.summary;
      lintMs = lint.ms;
    }

    timer = setTimeout(
      () => controller.abort(new ProbeError(`the run did not finish within ${formatMs(settings.timeoutMs)} (--timeout)`)),
      Math.min(settings.timeoutMs, 2_147_483_647),
    );

    // ---- scratch: TMPDIR (and HOME) of the servers the probe starts, the sessions' own directories --------------------
    scratch = realpathSync(mkdtempSync(path.join(tmpdir(), 'mcp-stateless-probe-')));
    const rootsDir = path.join(scratch, 'roots');
    mkdirSync(path.join(scratch, 'tmp'), { recursive: true });
    const scratchEnv: Record<string, string> = { TMPDIR: path.join(scratch, 'tmp'), TMP: path.join(scratch, 'tmp'), TEMP: path.join(scratch, 'tmp') };
    if (settings.scratchHome) {
      for (const [name, sub] of [['HOME', 'home'], ['XDG_CONFIG_HOME', 'home/.config'], ['XDG_DATA_HOME', 'home/.local/share'], ['XDG_STATE_HOME', 'home/.local/state'], ['XDG_CACHE_HOME', 'home/.cache']] as const) {
        mkdirSync(path.join(scratch, sub), { recursive: true });
        scratchEnv[name] = path.join(scratch, sub);
      }
    }
    const env = { ...process.env, ...scratchEnv, ...options.env };
    const names = SESSION_NAMES.slice(0, settings.sessions);
    const dirOf = (name: string) => path.join(rootsDir, `probe-${runId}-${name}`);
    for (const name of SESSION_NAMES.slice(0, settings.sessions + 1)) mkdirSync(dirOf(name), { recursive: true });

    // ---- connect ---------------------------------------------------------------------------------------------------
    connectStart = performance.now();
    if (!url) {
      const [cmd, ...args] = command as [string, ...string[]];
      const open = (label: string) =>
        openStdio({ ...common(label, [rootsDir]), command: cmd, args, cwd: options.cwd, env, onStderr: stderrTo(label) });
      const second = settings.secondProcess && !options.planOnly;
      // Both processes start at once; keep them in order (process 1 first) whichever answers first.
      const opened = await Promise.allSettled([open('server process 1'), ...(second ? [open('server process 2')] : [])]);
      for (const o of opened) if (o.status === 'fulfilled') connections.push(o.value);
      const failed = opened.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason;
      const [primary, other] = connections as [Connection, Connection | undefined];
      tools = await listAllTools(primary, common(primary.info.label, []));
      if (other) await sameTools(other, tools);
      sessions = names.map((name) => ({ name, workspace: `probe-${runId}-${name}`, dir: dirOf(name), connection: primary }));
      if (other) {
        const name = SESSION_NAMES[settings.sessions] as string;
        sessions.push({ name, workspace: `probe-${runId}-${name}`, dir: dirOf(name), connection: other });
      }
      design = other
        ? `stdio: ${listNames(names)} interleaved on one connection to server process 1; ${sessions.at(-1)?.name} on server process 2 (same command, same disk)`
        : `stdio: ${listNames(names)} interleaved on one connection to server process 1; no second process`;
    } else {
      if (command.length > 0) {
        const [cmd, ...args] = command as [string, ...string[]];
        try {
          // not abortable: spawning takes milliseconds, and a process started after an abort would be orphaned
          httpServer = await ManagedProcess.start({ command: cmd, args, cwd: options.cwd, env, stdin: 'ignore', label: 'server process', onStderr: stderrTo('server process') });
        } catch (error) {
          rethrowIfAborted(signal);
          throw new ProbeError(`could not start the server (${command.join(' ')}): ${errorMessage(error)}`);
        }
        await waitForListening(url, httpServer, settings.connectTimeoutMs, signal);
      }
      for (const [i, name] of names.entries()) {
        const connection = await openHttp({ ...common(`HTTP session ${i + 1} (${name})`, [dirOf(name)]), url, headers: options.headers, server: httpServer });
        connections.push(connection);
        if (i === 0) tools = await listAllTools(connection, common(connection.info.label, []));
        else await sameTools(connection, tools);
        sessions.push({ name, workspace: `probe-${runId}-${name}`, dir: dirOf(name), connection });
        if (options.planOnly) break;
      }
      design = `Streamable HTTP: ${listNames(names)}, each on its own session to ${url.href}`;
    }
    connectMs = performance.now() - connectStart;
    // A server that asked for roots applies them asynchronously: give it a moment before the first call.
    if (connections.some((c) => c.info.rootsRequested)) await delay(100);

    // ---- plan ------------------------------------------------------------------------------------------------------
    plan = planProbe({
      tools,
      resources: connections[0]?.client.getServerCapabilities()?.resources !== undefined,
      summary,
      validator,
      options: {
        tool: options.tool,
        args: options.args,
        teardown: options.teardown,
        teardownArgs: options.teardownArgs,
        allowDestructive: settings.allowDestructive,
        allowOpenWorld: settings.allowOpenWorld,
        cleanup: settings.cleanup,
      },
    });
    warnings.push(...plan.warnings);

    if (!options.planOnly) {
      // ---- rounds --------------------------------------------------------------------------------------------------
      runner = new Runner({
        runId,
        plan,
        tools,
        sessions,
        validator,
        rounds: settings.rounds,
        callTimeoutMs: settings.callTimeoutMs,
        signal,
        t0,
        workspaceRoot: settings.workspaceRoot,
        scratch,
        onPass: options.onPass,
      });
      const roundsStart = performance.now();
      await runner.rounds();
      roundsMs = performance.now() - roundsStart;
      fatal = runner.problem ?? allErrorsInFirstRound(runner);

      // ---- the wire: same ids from every HTTP session at once ----------------------------------------------------------
      if (url && !signal.aborted) transport = await checkTransport(url, runner, plan);

      // ---- cleanup (what the calls created), then teardown (the workspaces themselves) ------------------------------
      if (settings.cleanup) {
        const cleanupStart = performance.now();
        cleanup = await runCleanup(runner, plan, !url || httpServer !== undefined, url);
        cleanupMs = performance.now() - cleanupStart;
      } else {
        cleanup = { status: 'skipped', detail: 'skipped (--no-cleanup): what the calls created is left where the server put it', tools: [], leftovers: [], notes: [], scratch: null };
      }
      if (!fatal) {
        const teardownStart = performance.now();
        if (plan.teardown) teardown = await runner.teardown(plan.teardown);
        else if (options.teardown === false) teardown = { tool: null, status: 'skipped', detail: 'skipped (--no-teardown)', calls: [] };
        else {
          teardown = { tool: null, status: 'absent', detail: plan.teardownNote, calls: [] };
          warnings.push(`${plan.teardownNote}; a finished run's data may linger`);
        }
        teardownMs = performance.now() - teardownStart;
      } else {
        teardown = { tool: plan.teardown?.tool ?? null, status: 'not-run', detail: 'not attempted: the probe could not complete its rounds', calls: [] };
      }
    }
  } catch (error) {
    if (connectMs === 0 && connectStart !== undefined) connectMs = performance.now() - connectStart;
    if (signal.aborted && signal.reason instanceof ProbeError) fatal = signal.reason.message;
    else if (error instanceof ProbeError || error instanceof MissingDependencyError) fatal = error.message;
    else fatal = `unexpected error: ${oneLine(errorMessage(error))}`;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onUserAbort);
  }

  // ---- every connection closed, every process tree gone, the scratch directory removed ------------------------------
  const closeStart = performance.now();
  await Promise.allSettled(connections.map((c) => c.close()));
  await httpServer?.terminate();
  if (scratch) {
    let removed = true;
    try {
      rmSync(scratch, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      removed = false;
    }
    cleanup.scratch = { dir: scratch, removed };
    if (!removed) cleanup.notes.push(`could not remove the probe's scratch directory ${scratch}`);
  }
  cleanupMs += performance.now() - closeStart;

  const allFaults = connections.flatMap((c) => c.watch.faults);
  const judgement = judge({
    runId,
    sessions: sessions.map((s) => s.name),
    plan: options.planOnly ? null : plan,
    calls: runner?.calls ?? [],
    workspaces: runner?.workspaces ?? [],
    faults: allFaults,
    transport,
    teardown,
    fatal,
    unanswered: (runner?.unanswered ?? []).map((u) => u.split('|')[0] as string),
    rounds: settings.rounds,
  });
  if (options.planOnly && !fatal) {
    judgement.verdict = 'inconclusive';
    judgement.exitCode = 0;
    judgement.reason = 'plan only (--plan): nothing was called';
    judgement.inconclusive = [];
    judgement.lint = plan?.lint ?? [];
  }
  const finishedAt = new Date();
  return {
    probe: { name: PROBE_NAME, version },
    ...judgement,
    target,
    design,
    runId,
    settings,
    plan,
    sessions: sessions.map((s) => ({
      name: s.name,
      markerPattern: `${marker(runId, s.name, 0, KEY_SLOT).replace(/-0-k0$/, '-<step>-<slot>')}`,
      workspace: s.workspace,
      dir: s.dir,
      connection: s.connection.info.label,
    })),
    connections: connections.map((c) => c.info),
    passes: runner?.passes ?? [],
    calls: runner?.calls ?? [],
    ...(transport ? { transport } : {}),
    protocolFaults: allFaults,
    workspaces: runner?.workspaces ?? [],
    teardown,
    cleanup,
    warnings,
    ...(judgement.verdict === 'error' && fatal ? { error: fatal } : {}),
    timings: {
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      totalMs: Math.round(performance.now() - t0),
      lintMs,
      connectMs: Math.round(connectMs),
      roundsMs: Math.round(roundsMs),
      teardownMs: Math.round(teardownMs),
      cleanupMs: Math.round(cleanupMs),
    },
  };

  // ---- helpers --------------------------------------------------------------------------------------------------------

  async function sameTools(connection: Connection, expected: Tool[]): Promise<void> {
    const listed = await listAllTools(connection, common(connection.info.label, []));
    const names = new Set(listed.map((t) => t.name));
    const missing = expected.find((t) => !names.has(t.name));
    if (missing) throw new ProbeError(`${connection.info.label} does not list the tool "${missing.name}" that the first connection lists`);
  }

  function allErrorsInFirstRound(r: Runner): string | undefined {
    const first = r.calls.filter((c) => c.round === 1 && (c.mode === 'own' || c.mode === 'cross'));
    if (first.length === 0) return undefined;
    if (first.every((c) => c.outcome === 'tool-error' || c.outcome === 'rpc-error' || c.outcome === 'invalid-args')) {
      const sample = first[0] as (typeof first)[number];
      return `every call in round 1 came back as an error, so nothing can be concluded; check --tool and --args (${sample.session}: "${oneLine(sample.error ?? sample.excerpt, 160)}")`;
    }
    return undefined;
  }

  async function checkTransport(url: URL, r: Runner, p: ProbePlan): Promise<TransportCheck> {
    // the fastest call whose reply carried back what it sent: it shows whose reply arrived where
    const echo = r.calls
      .filter((c) => c.mode === 'own' && c.outcome === 'result' && c.markers.some((m) => c.sent.includes(m)))
      .sort((a, b) => a.durationMs - b.durationMs)[0];
    const tool = echo ? p.tools.find((t) => t.name === echo.tool) : undefined;
    const step = 2 * settings.rounds + 1;
    const template = tool ? (echo?.variant === 'minimal' && tool.minimal ? tool.minimal : tool.args) : undefined;
    const params = (s: RunnerSession) =>
      tool && template
        ? {
            name: tool.name,
            arguments: fillTemplate(template, {
              key: marker(runId, s.name, step, KEY_SLOT),
              payload: (slot) => marker(runId, s.name, step, slot),
              dir: s.dir,
              workspace: s.workspace,
              session: s.name,
              round: step,
              run: runId,
              pause: '0.5', // both requests must be open at the same moment, even on a loaded machine
            }) as Record<string, unknown>,
          }
        : null;
    try {
      return await transportCheck({
        url,
        headers: options.headers,
        sessions: sessions.map((s) => ({ name: s.name, params: params(s) })),
        call: tool ? `tools/call ${tool.name}` : 'ping',
        bursts: TRANSPORT_BURSTS,
        timeoutMs: Math.min(settings.callTimeoutMs, 10_000),
        signal,
        clientInfo: { name: 'mcp-stateless-probe', version },
      });
    } catch (error) {
      rethrowIfAborted(signal);
      return { call: tool ? `tools/call ${tool.name}` : 'ping', bursts: 0, exchanges: [], status: 'not-run', summary: `could not run: ${oneLine(errorMessage(error), 200)}` };
    }
  }

  async function runCleanup(r: Runner, p: ProbePlan, startedByProbe: boolean, url: URL | undefined): Promise<CleanupResult> {
    const where = url?.href;
    const { tools: used, leftovers: seen, crossProcess } = await r.cleanup();
    const notes: string[] = [];
    if (p.cleanup.length === 0 && seen.length > 0) notes.push('the server lists no tool that removes what the probe wrote (and no command runner)');
    const inScratch = seen.filter((l) => l.inScratch);
    if (inScratch.length > 0) notes.push(`${inScratch.length} of this run's markers are in the probe's scratch directory, where the server wrote them (path arguments and roots point there): removed with it`);
    const remaining = seen.filter((l) => !l.inScratch);
    // Seen from another server process: on disk (or another shared store), and still there. Seen only by the process
    // that holds it, with a second process that did not see it: in that process's memory, gone with it.
    const twoProcesses = new Set(sessions.map((s) => s.connection.info.label)).size > 1 && !url;
    const onDisk = remaining.filter((l) => crossProcess.has(l.marker));
    const inMemory = twoProcesses && startedByProbe ? remaining.filter((l) => !crossProcess.has(l.marker)) : [];
    const leftovers = remaining.filter((l) => !inMemory.includes(l));
    if (onDisk.length > 0) {
      notes.push(`${onDisk.length} of this run's markers are visible from another server process, so they are on disk (or in another shared store) and stay there: first ${onDisk[0]?.marker} (${onDisk[0]?.seenBy})`);
    }
    if (inMemory.length > 0) notes.push(`${inMemory.length} of this run's markers were held only in the memory of the server process that received them, and went with it when the probe stopped it`);
    const unknown = leftovers.filter((l) => !onDisk.includes(l));
    if (unknown.length > 0) {
      notes.push(
        startedByProbe
          ? `${unknown.length} of this run's markers were still held by the server when the probe stopped it: gone if they were in memory, still there if it wrote them to disk (first ${unknown[0]?.marker}, ${unknown[0]?.seenBy})`
          : `the server at ${where ?? ''} still holds ${unknown.length} of this run's markers: the probe did not start it and cannot stop it (first ${unknown[0]?.marker}, ${unknown[0]?.seenBy})`,
      );
    }
    const blind = p.readers.length === 0 && !p.cleanup.some((c) => c.kind === 'command');
    if (blind) {
      notes.push(
        startedByProbe
          ? 'whatever the server kept only in memory went with the process the probe stopped; anything it wrote to disk the probe cannot see'
          : `whatever the server at ${where ?? ''} kept is still there: the probe did not start it and cannot stop it`,
      );
    }
    return {
      status: leftovers.length > 0 ? 'leftovers' : blind ? 'unknown' : 'clean',
      detail:
        leftovers.length > 0
          ? `${leftovers.length} of this run's markers may still be there after cleanup${used.length > 0 ? ` (${used.join(', ')})` : ''}: first ${leftovers[0]?.marker}, seen by ${leftovers[0]?.seenBy}`
          : blind
            ? 'the server lists no tool that lists or removes what the probe sent, so the probe cannot tell what is left'
            : `${used.length > 0 ? `removed what the calls created through ${used.join(', ')}; ` : ''}nothing of this run is left that the probe can see${inScratch.length + inMemory.length > 0 ? ' (see below for what went with the scratch directory or the process)' : ''}`,
      tools: used,
      leftovers,
      notes,
      scratch: null,
    };
  }
}

export { SESSION_NAMES } from './markers.js';
