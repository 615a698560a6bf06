import { parseArgs } from 'node:util';
import { killAllSync } from './process.js';
import { formatJson, formatText } from './report.js';
import { DEFAULTS, runProbe } from './run.js';
import { oneLine } from './text.js';
import type { ProbeOptions } from './types.js';

export const PROBE_USAGE = `Usage:
  mcp-stateless probe [options] -- <server command...>     stdio: the probe starts the server itself
  mcp-stateless probe [options] --url http://127.0.0.1:PORT/mcp
                                                          Streamable HTTP: sessions to a running server
  mcp-stateless probe [options] --url URL -- <server command...>
                                                          HTTP: start the server, wait for URL's port, probe, stop it

Runs interleaved sessions against one MCP server: every round fires one call per session at once,
each carrying its own marker, and asserts that no session sees another's marker and that every
session gets its own back. Exit code: 0 passed, 1 leak or failed check, 2 could not run the probe.

Options:
  --tool NAME              tool to call (default: the only tool with a command-like string argument)
  --args JSON              arguments template; {marker}, {workspace}, {session}, {round} are replaced
                           (default for a command runner: write the marker to cwd, $HOME and $TMPDIR,
                           sleep 0.2 s, read all three back; workspace argument = {workspace})
  --rounds N               rounds of concurrent calls (default ${DEFAULTS.rounds}); one leak fails the run
  --sessions N             independent sessions (default ${DEFAULTS.sessions})
  --no-second-process      stdio: do not start the second server process (the cross-process disk check)
  --workspace-root DIR     the server keeps workspaces at DIR/<workspace>; also check their files
  --teardown NAME          teardown tool (default: found by name: teardown|cleanup|delete_workspace)
  --teardown-args JSON     teardown arguments template (default: its workspace argument = {workspace})
  --no-teardown            do not call a teardown tool
  --call-timeout DURATION  per tools/call and tools/list, e.g. 20s, 1500ms, 2m; a bare number is
                           seconds (default 20s)
  --connect-timeout DURATION
                           starting the server and initialize, per connection (default 20s)
  --timeout DURATION       whole run (default 120s)
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

/** Parse the arguments after the word `probe` into options (throws UsageError). */
export function parseProbeArgs(argv: string[]): { options: ProbeOptions; format: 'text' | 'json'; verbose: boolean; help: boolean } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      tokens: true,
      options: {
        url: { type: 'string' },
        tool: { type: 'string' },
        args: { type: 'string' },
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

  const options: ProbeOptions = {};
  if (command.length > 0) options.command = command;
  if (values.url !== undefined) options.url = values.url;
  if (values.tool !== undefined) options.tool = values.tool;
  if (values.args !== undefined) options.args = values.args;
  if (values.rounds !== undefined) options.rounds = parseCount(values.rounds, '--rounds');
  if (values.sessions !== undefined) options.sessions = parseCount(values.sessions, '--sessions');
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
  return { options, format, verbose: values.verbose === true, help };
}

/**
 * `mcp-stateless probe …`: `argv` is everything after the word `probe`. Resolves to the exit code:
 * 0 passed, 1 leak found (or another check failed), 2 the probe could not run.
 */
export async function probeMain(argv: string[], io: ProbeIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  let parsed;
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
    io.stdout.write(parsed.format === 'json' ? formatJson(result) : formatText(result, { verdictLine: !isError }));
    if (isError) io.stderr.write(`mcp-stateless probe: could not run the probe: ${result.reason}\n`);
    return result.exitCode;
  } finally {
    if (handleSignals) {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    }
  }
}
