import { setTimeout as delay } from 'node:timers/promises';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ManagedProcess, type ExitInfo } from './process.js';
import { oneLine } from './text.js';

export interface ProcessStdioTransportOptions {
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  label: string;
  onStderr?: (text: string) => void;
}

/**
 * The stdio client transport the probe uses with the SDK's `Client`. It speaks the same framing as the
 * SDK's `StdioClientTransport` (newline-delimited JSON-RPC, `serializeMessage`), and differs in what
 * the probe needs:
 * - the server runs in its own process group, so `close()` kills the whole tree it started;
 * - stderr is captured (its last line explains a crash);
 * - anything on stdout that is not a JSON-RPC message is a protocol violation that ends the connection
 *   at once, with the offending line as the reason, instead of being skipped until a timeout.
 */
export class ProcessStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  process: ManagedProcess | undefined;
  /** The offending line, when the server wrote something that is not JSON-RPC to stdout. */
  violation: string | undefined;
  private buffer = '';
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: ProcessStdioTransportOptions) {}

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
    this.buffer += chunk.toString('utf8');
    if (this.buffer.length > 10 * 1024 * 1024) {
      this.fail(`${this.buffer.slice(0, 120)} (more than 10 MB without a newline)`);
      return;
    }
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) !== -1) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, '');
      this.buffer = this.buffer.slice(newline + 1);
      if (line.trim() === '') continue;
      let message: JSONRPCMessage;
      try {
        message = JSONRPCMessageSchema.parse(JSON.parse(line));
      } catch {
        this.fail(line);
        return;
      }
      this.onmessage?.(message);
    }
  }

  private fail(line: string): void {
    this.violation = line;
    this.onerror?.(new Error(`not JSON-RPC on stdout: ${oneLine(line, 120)}`));
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
