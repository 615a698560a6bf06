import { connect as netConnect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, ListRootsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ProbeError } from './errors.js';
import type { ManagedProcess } from './process.js';
import { limitedFetch, ProtocolWatch, watchTransport } from './protocol.js';
import { ProcessStdioTransport } from './stdio-transport.js';
import { errorMessage, formatMs, oneLine } from './text.js';
import type { ConnectionInfo } from './types.js';

/** One MCP client connection: a stdio server process, or one Streamable HTTP session. */
export interface Connection {
  info: ConnectionInfo;
  client: Client;
  /** Duplicate replies and replies to unknown ids seen on this connection. */
  watch: ProtocolWatch;
  /** One line explaining why the connection is dead (process exit, garbage on stdout), if it is;
   * `phase` says when, e.g. "during tools/call". */
  deathReason(phase: string): string | undefined;
  close(): Promise<void>;
}

export interface ConnectCommon {
  label: string;
  clientInfo: { name: string; version: string };
  callTimeoutMs: number;
  /** For starting the server and initialize. */
  connectTimeoutMs: number;
  signal: AbortSignal;
  /** Directories offered to the server as MCP roots (a server such as server-filesystem then works inside them). */
  roots?: string[];
}

/** A client that offers `roots` to the server and notes when the server asks for them. */
function makeClient(options: ConnectCommon, info: () => ConnectionInfo | undefined): { client: Client; rootsAsked: () => boolean } {
  const roots = options.roots ?? [];
  const client = new Client(options.clientInfo, { capabilities: roots.length > 0 ? { roots: { listChanged: false } } : {} });
  client.onerror = () => undefined; // failures surface through the pending requests; protocol faults through the watch
  let asked = false;
  if (roots.length > 0) {
    client.setRequestHandler(ListRootsRequestSchema, () => {
      asked = true;
      const i = info();
      if (i) i.rootsRequested = true;
      return { roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href, name: 'mcp-stateless probe scratch' })) };
    });
  }
  return { client, rootsAsked: () => asked };
}

/** tools/call without the client-side output-schema check: the probe wants whatever the server sent. */
export function callTool(
  connection: Connection,
  name: string,
  args: Record<string, unknown>,
  options: { timeout: number; signal: AbortSignal },
): Promise<{ isError?: boolean } & Record<string, unknown>> {
  return connection.client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, options) as Promise<
    { isError?: boolean } & Record<string, unknown>
  >;
}

function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

/** Rethrow the run's abort reason (run timeout, interruption) in preference to whatever an await threw. */
export function rethrowIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new ProbeError(String(signal.reason));
}

/** Reject as soon as `signal` aborts, with its reason. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export function describeExit(label: string, proc: ManagedProcess, phase: string): string | undefined {
  if (!proc.exit) return undefined;
  const how = proc.exit.signal ? `was killed by ${proc.exit.signal}` : `exited with code ${proc.exit.code}`;
  const stderr = proc.lastStderrLine();
  return `${label} (pid ${proc.pid}) ${how} ${phase}${stderr ? `; last stderr line: "${oneLine(stderr, 160)}"` : ''}`;
}

export interface StdioConnectOptions extends ConnectCommon {
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  onStderr?: (text: string) => void;
}

/** Start a stdio server in its own process group and initialize an SDK client over it. */
export async function openStdio(options: StdioConnectOptions): Promise<Connection> {
  const transport = new ProcessStdioTransport({
    command: options.command,
    args: options.args,
    cwd: options.cwd,
    env: options.env,
    label: options.label,
    onStderr: options.onStderr,
  });
  let info: ConnectionInfo | undefined;
  const { client } = makeClient(options, () => info);
  const watch = new ProtocolWatch(options.label);
  const deathReason = (phase: string): string | undefined => {
    const v = transport.violation;
    if (v !== undefined) {
      return v.why
        ? `${options.label} sent ${v.why} ${phase} (it starts "${oneLine(v.line, 60)}")`
        : `${options.label} wrote something that is not JSON-RPC to stdout ${phase}: "${oneLine(v.line, 120)}"`;
    }
    return transport.process ? describeExit(options.label, transport.process, phase) : undefined;
  };
  const started = performance.now();
  try {
    await client.connect(watchTransport(transport, watch), { timeout: options.connectTimeoutMs, signal: options.signal });
  } catch (error) {
    // Work out why before closing: closing ends the process, and its exit would then look like the cause.
    const death = deathReason('before answering initialize');
    await transport.close();
    rethrowIfAborted(options.signal);
    if (!transport.process) {
      throw new ProbeError(`could not start the server (${[options.command, ...options.args].join(' ')}): ${errorMessage(error)}`);
    }
    if (death) throw new ProbeError(death);
    if (isTimeout(error)) throw new ProbeError(`${options.label} did not answer initialize within ${formatMs(options.connectTimeoutMs)} (--connect-timeout)`);
    throw new ProbeError(`${options.label} failed to initialize: ${oneLine(errorMessage(error))}`);
  }
  info = {
    label: options.label,
    transport: 'stdio',
    pid: transport.process?.pid,
    serverInfo: client.getServerVersion(),
    connectMs: Math.round(performance.now() - started),
  };
  return {
    info,
    client,
    watch,
    deathReason,
    close: async () => {
      await client.close().catch(() => undefined);
      await transport.close();
    },
  };
}

export interface HttpConnectOptions extends ConnectCommon {
  url: URL;
  headers?: Record<string, string>;
  /** The server process the probe started for this URL, if any. */
  server?: ManagedProcess;
}

/** Open one Streamable HTTP session (its own client, transport and Mcp-Session-Id). */
export async function openHttp(options: HttpConnectOptions): Promise<Connection> {
  const transport = new StreamableHTTPClientTransport(options.url, {
    requestInit: options.headers ? { headers: options.headers } : undefined,
    fetch: limitedFetch(),
  });
  let info: ConnectionInfo | undefined;
  const { client } = makeClient(options, () => info);
  const watch = new ProtocolWatch(options.label);
  const deathReason = (phase: string): string | undefined =>
    options.server ? describeExit('the server process', options.server, phase) : undefined;
  const close = async () => {
    await Promise.race([transport.terminateSession().catch(() => undefined), delay(1000, undefined, { ref: false })]);
    await client.close().catch(() => undefined);
  };
  const started = performance.now();
  try {
    await client.connect(watchTransport(transport, watch), { timeout: options.connectTimeoutMs, signal: options.signal });
  } catch (error) {
    const death = deathReason(`before ${options.label} was initialized`);
    await close();
    rethrowIfAborted(options.signal);
    if (death) throw new ProbeError(death);
    if (isTimeout(error)) {
      throw new ProbeError(`${options.label} got no answer to initialize from ${options.url.href} within ${formatMs(options.connectTimeoutMs)} (--connect-timeout)`);
    }
    throw new ProbeError(`could not open ${options.label} at ${options.url.href}: ${oneLine(errorMessage(error))}`);
  }
  info = {
    label: options.label,
    transport: 'http',
    sessionId: transport.sessionId,
    serverInfo: client.getServerVersion(),
    connectMs: Math.round(performance.now() - started),
  };
  return { info, client, watch, deathReason, close };
}

/** Every tool the connection lists (all pages). */
export async function listAllTools(connection: Connection, options: ConnectCommon): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  try {
    for (let page = 0; page < 100; page++) {
      const result = await connection.client.listTools(cursor ? { cursor } : undefined, {
        timeout: options.callTimeoutMs,
        signal: options.signal,
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
  } catch (error) {
    rethrowIfAborted(options.signal);
    const death = connection.deathReason('while listing tools');
    if (death) throw new ProbeError(death);
    if (isTimeout(error)) throw new ProbeError(`${connection.info.label} did not answer tools/list within ${formatMs(options.callTimeoutMs)} (--call-timeout)`);
    throw new ProbeError(`${connection.info.label} failed to list tools: ${oneLine(errorMessage(error))}`);
  }
  return tools;
}

/** Wait until something accepts TCP connections at the URL's host and port. */
export async function waitForListening(url: URL, server: ManagedProcess, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    rethrowIfAborted(signal);
    const exited = describeExit('the server process', server, `before listening on ${host}:${port}`);
    if (exited) throw new ProbeError(exited);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = netConnect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) {
      throw new ProbeError(`nothing listens on ${host}:${port} ${formatMs(timeoutMs)} after the server was started (--connect-timeout)`);
    }
    await delay(100);
  }
}
