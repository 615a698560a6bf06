import { setTimeout as delay } from 'node:timers/promises';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ManagedProcess, type ExitInfo } from './process.js';
import { MAX_MESSAGE_BYTES, sizeText } from './protocol.js';
import { oneLine } from './text.js';

export interface ProcessStdioTransportOptions {
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  label: string;
  onStderr?: (text: string) => void;
  /** The largest message accepted (default MAX_MESSAGE_BYTES, as over HTTP). */
  maxMessageBytes?: number;
}

/**
 * The stdio client transport the probe uses with the SDK's `Client`. It speaks the same framing as the
 * SDK's `StdioClientTransport` (newline-delimited JSON-RPC, `serializeMessage`), and differs in what
 * the probe needs:
 * - the server runs in its own process group, so `close()` kills the whole tree it started;
 * - stderr is captured (its last line explains a crash);
 * - anything on stdout that is not a JSON-RPC message is a protocol violation that ends the connection
 *   at once, with the offending line as the reason, instead of being skipped until a timeout;
 * - one message may be as large as over HTTP (MAX_MESSAGE_BYTES); lines are framed in linear time, so a
 *   50 MB reply costs what it costs to read it.
 */
export class ProcessStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  process: ManagedProcess | undefined;
  /** What went wrong, when the server wrote something that is not JSON-RPC to stdout: the offending line
   * (shortened) and, for a message over the limit, why. */
  violation: { line: string; why?: string } | undefined;
  private chunks: Buffer[] = [];
  private pendingBytes = 0;
  private closed = false;
  private closing: Promise<void> | undefined;

  private readonly limit: number;

  constructor(private readonly options: ProcessStdioTransportOptions) {
    this.limit = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  async start(): Promise<void> {
    if (this.process) throw new Error('already started');
    this.process = await ManagedProcess.start({
      command: this.options.command,
      args: this.options.args,
      cwd: this.options.cwd,
      env: this.options.env,
      stdin: 'pipe',
      label: this.options.label,
      onStderr: this.options.onStderr,
      onStdout: (chunk) => this.onStdout(chunk),
    });
    const stdout = this.process.child.stdout;
    const stdoutEnded = new Promise<void>((resolve) => {
      if (!stdout || stdout.readableEnded) resolve();
      else stdout.once('close', () => resolve());
    });
    // Read what the server wrote before it died, but do not wait on a grandchild that holds stdout open.
    this.process.onExit(() => {
      void Promise.race([stdoutEnded, delay(200, undefined, { ref: false })]).then(() => this.finish());
    });
  }

  get exit(): ExitInfo | null {
    return this.process?.exit ?? null;
  }

  private onStdout(chunk: Buffer): void {
    if (this.violation) return;
    let from = 0;
    let newline: number;
    // Only the new chunk is searched for a newline; the bytes before it are kept as they came.
    while ((newline = chunk.indexOf(10, from)) !== -1) {
      const piece = chunk.subarray(from, newline);
      const line = this.chunks.length === 0 ? piece : Buffer.concat([...this.chunks, piece]);
      this.chunks = [];
      this.pendingBytes = 0;
      from = newline + 1;
      if (line.length > this.limit) {
        this.fail(line.subarray(0, 120).toString('utf8'), `a message larger than ${sizeText(this.limit)}, the probe's limit for one JSON-RPC message on both transports,`);
        return;
      }
      if (!this.deliver(line.toString('utf8').replace(/\r$/, ''))) return;
    }
    if (from < chunk.length) {
      const rest = chunk.subarray(from);
      this.chunks.push(rest);
      this.pendingBytes += rest.length;
      if (this.pendingBytes > this.limit) {
        const head = (this.chunks[0] as Buffer).subarray(0, 120).toString('utf8');
        this.fail(head, `a message larger than ${sizeText(this.limit)}, the probe's limit for one JSON-RPC message on both transports,`);
      }
    }
  }

  /** Parse and hand on one line; false when it was not JSON-RPC (the connection is then failed). */
  private deliver(line: string): boolean {
    if (line.trim() === '') return true;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch {
      this.fail(line);
      return false;
    }
    this.onmessage?.(message);
    return true;
  }

  private fail(line: string, why?: string): void {
    this.violation = { line: oneLine(line, 120), ...(why ? { why } : {}) };
    this.chunks = [];
    this.pendingBytes = 0;
    this.onerror?.(new Error(why ? `stdout: ${why}` : `not JSON-RPC on stdout: ${oneLine(line, 120)}`));
    void this.close();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.process?.child.stdin;
    if (!stdin || this.closed || !stdin.writable) throw new Error('Not connected');
    const json = serializeMessage(message);
    await new Promise<void>((resolve, reject) => {
      stdin.write(json, (error) => (error ? reject(error) : resolve()));
    });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.process?.terminate();
      this.finish();
    })();
    return this.closing;
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
