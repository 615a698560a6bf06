// `mcp-stateless probe`. This module loads nothing heavy: the MCP SDK and ajv are optional peer dependencies, checked
// (with one line saying what to install) before the probe itself is imported.

import { parseArgs } from 'node:util';
import { DEFAULTS, SESSIONS_MAX, SESSIONS_MIN } from './defaults.js';
import { loadProbeDependencies, MissingDependencyError, type Importer } from './deps.js';
import { killAllSync } from './process.js';
import { formatJson, formatText } from './report.js';
import { oneLine } from './text.js';
import type { ProbeOptions } from './types.js';

export const PROBE_USAGE = `Usage:
  mcp-stateless probe [options] -- <server command...>     stdio: the probe starts the server itself
  mcp-stateless probe [options] --url http://127.0.0.1:PORT/mcp
                                                          Streamable HTTP: sessions to a running server
  mcp-stateless probe [options] --url URL -- <server command...>
                                                          HTTP: start the server, wait for URL's port, probe, stop it
  mcp-stateless probe --auto --source DIR [options] -- <server command...>
                                                          lint DIR first and probe what the lint found first

Plans from the server's tools: every tool gets arguments synthesised from its input schema, each string carrying
the session's marker; tools that take caller data are writers, tools that return data are readers, and every
writer is paired with every reader. Each round runs the pairs across sessions at the same moment and one session
after another; no session may ever see another's marker (or an earlier run's), and every session must get its own
back. Exit code: 0 isolated, 1 leak, 2 could not run the probe, 3 inconclusive (the output says what to pass).

Options:
  --auto                   plan every tool from its schema (the default without --tool)
  --source DIR             lint DIR (child process: mcp-stateless report --format json) and plan from its
                           summary: the tools the lint found sharing state are probed first, verdicts name the
                           source lines, and a hazard the probe cannot exercise keeps the verdict inconclusive
  --type-checked           with --source: the whole-server (type-checked) lint
  --summary FILE           plan from a saved summary (report --format json output, or the summary alone)
  --plan                   print the plan (tools, arguments, pairs, order, what is skipped) and call nothing
  --tool NAME              probe only this tool (as writer and reader of its own replies)
  --args JSON              its arguments; {marker}, {workspace}, {session}, {round}, {dir} are replaced
  --allow-destructive      also call tools annotated destructiveHint or named delete/remove/drop/kill/rm/…
  --allow-open-world       also call tools annotated openWorldHint, named send/push/fetch/…, or taking URLs
  --no-cleanup             leave what the calls created (default: removed through the server's own tools)
  --scratch-home           start the server with HOME and XDG_* in the probe's scratch directory (TMPDIR always is)
  --rounds N               rounds, each a concurrent and a sequential pass (default ${DEFAULTS.rounds})
  --sessions N             independent sessions, ${SESSIONS_MIN} to ${SESSIONS_MAX} (default ${DEFAULTS.sessions})
  --no-second-process      stdio: do not start the second server process (the cross-process disk check)
  --workspace-root DIR     the server keeps workspaces at DIR/<workspace>; also check their files
  --teardown NAME          teardown tool (default: found by name: teardown|cleanup|delete_workspace)
  --teardown-args JSON     teardown arguments template (default: its workspace argument = {workspace})
  --no-teardown            do not call a teardown tool
  --call-timeout DURATION  per tools/call and tools/list, e.g. 20s, 1500ms, 2m; a bare number is
                           seconds (default 20s)
  --connect-timeout DURATION
                           starting the server and initialize, per connection (default 20s)
  --timeout DURATION       whole run, the lint excluded (default 120s)
  --format text|json       output format (default text); json has everything a registration request needs
  --env KEY=VALUE          extra environment for a server the probe starts (repeatable)
  --cwd DIR                working directory for a server the probe starts
  --header 'Name: value'   extra HTTP header on every request (repeatable)
  --verbose                copy the server's stderr to stderr
  -h, --help               this help

See docs/probe.md.`;

export interface ProbeIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Install SIGINT/SIGTERM handlers that stop the run cleanly (default true). */
  handleSignals?: boolean;
  /** How packages are loaded (tests replace it to see the missing-dependency message). */
  importer?: Importer;
}

class UsageError extends Error {}

/** `20s`, `1500ms`, `2m`, or a bare number of seconds. */
export function parseDuration(text: string, option: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(text);
  if (!m) throw new UsageError(`${option}: not a duration: "${text}" (use e.g. 20s, 1500ms, 2m)`);
  const value = Number(m[1]);
  const ms = m[2] === 'ms' ? value : m[2] === 'm' ? value * 60_000 : value * 1000;
  if (ms <= 0) throw new UsageError(`${option} must be positive`);
  return ms;
}

function parseCount(text: string, option: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${option}: not a whole number: "${text}"`);
  return Number(text);
}

export interface ParsedProbeArgs {
  options: ProbeOptions;
  format: 'text' | 'json';
  verbose: boolean;
  help: boolean;
  plan: boolean;
  /** --summary FILE, read once the validator is loaded. */
  summaryFile?: string;
}

/** Parse the arguments after the word `probe` into options (throws UsageError). */
export function parseProbeArgs(argv: string[]): ParsedProbeArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      tokens: true,
      options: {
        url: { type: 'string' },
        auto: { type: 'boolean' },
        source: { type: 'string' },
        'type-checked': { type: 'boolean' },
        summary: { type: 'string' },
        plan: { type: 'boolean' },
        tool: { type: 'string' },
        args: { type: 'string' },
        'allow-destructive': { type: 'boolean' },
        'allow-open-world': { type: 'boolean' },
        'no-cleanup': { type: 'boolean' },
        'scratch-home': { type: 'boolean' },
        rounds: { type: 'string' },
        sessions: { type: 'string' },
        'no-second-process': { type: 'boolean' },
        'workspace-root': { type: 'string' },
        teardown: { type: 'string' },
        'teardown-args': { type: 'string' },
        'no-teardown': { type: 'boolean' },
        'call-timeout': { type: 'string' },
        'connect-timeout': { type: 'string' },
        timeout: { type: 'string' },
        format: { type: 'string' },
        env: { type: 'string', multiple: true },
        cwd: { type: 'string' },
        header: { type: 'string', multiple: true },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, tokens } = parsed;
  const terminator = tokens.find((t) => t.kind === 'option-terminator');
  const before = tokens.filter((t) => t.kind === 'positional' && (!terminator || t.index < terminator.index));
  if (before.length > 0 && !values.help) {
    const first = before[0] as { value: string };
    throw new UsageError(`unexpected argument "${first.value}": put the server command after --`);
  }
  const command = terminator ? argv.slice(terminator.index + 1) : [];
  const help = values.help === true;
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got "${format}"`);
  if (!help && command.length === 0 && values.url === undefined) {
    throw new UsageError('nothing to probe: give a server command after -- (stdio) or --url (Streamable HTTP)');
  }
  if (values.teardown !== undefined && values['no-teardown']) throw new UsageError('--teardown and --no-teardown exclude each other');
  if (values.auto && values.tool !== undefined) throw new UsageError('--auto and --tool exclude each other: --auto plans every tool, --tool probes one');
  if (values.args !== undefined && values.tool === undefined) throw new UsageError('--args needs --tool: it is the arguments of one tool');
  if (values.source !== undefined && values.summary !== undefined) throw new UsageError('--source and --summary exclude each other');
  if (values['type-checked'] && values.source === undefined) throw new UsageError('--type-checked applies to the lint: give --source DIR');

  const options: ProbeOptions = {};
  if (command.length > 0) options.command = command;
  if (values.url !== undefined) options.url = values.url;
  if (values.tool !== undefined) options.tool = values.tool;
  if (values.args !== undefined) options.args = values.args;
  if (values.source !== undefined) options.source = values.source;
  if (values['type-checked']) options.typeChecked = true;
  if (values['allow-destructive']) options.allowDestructive = true;
  if (values['allow-open-world']) options.allowOpenWorld = true;
  if (values['no-cleanup']) options.cleanup = false;
  if (values['scratch-home']) options.scratchHome = true;
  if (values.plan) options.planOnly = true;
  if (values.rounds !== undefined) options.rounds = parseCount(values.rounds, '--rounds');
  if (values.sessions !== undefined) {
    options.sessions = parseCount(values.sessions, '--sessions');
    if (options.sessions < SESSIONS_MIN || options.sessions > SESSIONS_MAX) {
      throw new UsageError(`--sessions must be from ${SESSIONS_MIN} to ${SESSIONS_MAX}, got ${options.sessions}`);
    }
  }
  if (values['no-second-process']) options.secondProcess = false;
  if (values['workspace-root'] !== undefined) options.workspaceRoot = values['workspace-root'];
  if (values.teardown !== undefined) options.teardown = values.teardown;
  if (values['no-teardown']) options.teardown = false;
  if (values['teardown-args'] !== undefined) options.teardownArgs = values['teardown-args'];
  if (values['call-timeout'] !== undefined) options.callTimeoutMs = parseDuration(values['call-timeout'], '--call-timeout');
  if (values['connect-timeout'] !== undefined) options.connectTimeoutMs = parseDuration(values['connect-timeout'], '--connect-timeout');
  if (values.timeout !== undefined) options.timeoutMs = parseDuration(values.timeout, '--timeout');
  if (values.cwd !== undefined) options.cwd = values.cwd;
  if (values.env) {
    options.env = {};
    for (const pair of values.env) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new UsageError(`--env expects KEY=VALUE, got "${pair}"`);
      options.env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  if (values.header) {
    options.headers = {};
    for (const header of values.header) {
      const colon = header.indexOf(':');
      if (colon <= 0) throw new UsageError(`--header expects "Name: value", got "${header}"`);
      options.headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    }
  }
  return {
    options,
    format,
    verbose: values.verbose === true,
    help,
    plan: values.plan === true,
    ...(values.summary !== undefined ? { summaryFile: values.summary } : {}),
  };
}

/**
 * `mcp-stateless probe …`: `argv` is everything after the word `probe`. Resolves to the exit code:
 * 0 isolated, 1 leak, 2 the probe could not run, 3 inconclusive.
 */
export async function probeMain(argv: string[], io: ProbeIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  let parsed: ParsedProbeArgs;
  try {
    parsed = parseProbeArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`mcp-stateless probe: ${oneLine(error.message)}\nRun "mcp-stateless probe --help" for usage.\n`);
    return 2;
  }
  if (parsed.help) {
    io.stdout.write(`${PROBE_USAGE}\n`);
    return 0;
  }

  // The probe's runtime packages are optional peers: say what to install, in one line, before importing anything.
  try {
    await loadProbeDependencies(io.importer);
  } catch (error) {
    if (!(error instanceof MissingDependencyError)) throw error;
    io.stderr.write(`${error.message}\n`);
    return 2;
  }
  const { runProbe } = await import('./run.js');
  if (parsed.summaryFile !== undefined) {
    try {
      const [{ readSummaryFile }, { makeValidator }] = await Promise.all([import('./lint.js'), import('./validate.js')]);
      parsed.options.summary = readSummaryFile(parsed.summaryFile, makeValidator(await loadProbeDependencies(io.importer)));
    } catch (error) {
      io.stderr.write(`mcp-stateless probe: could not run the probe: ${oneLine(error instanceof Error ? error.message : String(error), 400)}\n`);
      return 2;
    }
  }

  const controller = new AbortController();
  // First Ctrl-C: stop the run and clean up (bounded, a few seconds). Second: kill everything now and exit.
  const onSignal = () => {
    if (!controller.signal.aborted) {
      controller.abort();
      return;
    }
    killAllSync();
    process.exit(130);
  };
  const handleSignals = io.handleSignals ?? true;
  if (handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  try {
    const result = await runProbe({
      ...parsed.options,
      signal: controller.signal,
      ...(parsed.verbose
        ? {
            onServerStderr: (text: string, label: string) => {
              for (const line of text.split(/\r?\n/)) if (line) io.stderr.write(`[${label}] ${line}\n`);
            },
          }
        : {}),
    });
    const isError = result.verdict === 'error';
    io.stdout.write(parsed.format === 'json' ? formatJson(result) : formatText(result, { verdictLine: !isError, plan: parsed.plan }));
    if (isError) io.stderr.write(`mcp-stateless probe: could not run the probe: ${oneLine(result.reason, 600)}\n`);
    return result.exitCode;
  } finally {
    if (handleSignals) {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    }
  }
}
