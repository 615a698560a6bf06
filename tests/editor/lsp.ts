// A minimal LSP client over stdio (Content-Length framed JSON-RPC), enough to drive vscode-eslint-language-server as
// the VS Code extension does: initialize, answer workspace/configuration, open a document, pull its diagnostics, ask
// for code actions.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

export class LspClient {
  private readonly proc: ChildProcessWithoutNullStreams;
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  /** What the server logged (window/logMessage) and its notifications, for failure messages. */
  readonly log: string[] = [];
  stderr = '';

  constructor(
    command: string,
    args: string[],
    cwd: string,
    /** Answers to server→client requests, by method. */
    private readonly onRequest: (method: string, params: unknown) => unknown,
  ) {
    this.proc = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    this.proc.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.proc.on('exit', (code) => {
      for (const p of this.pending.values()) p.reject(new Error(`language server exited (${code}): ${this.stderr}`));
      this.pending.clear();
    });
  }

  private send(message: Message): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.proc.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]));
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString('ascii'))?.[1]);
      if (this.buffer.length < headerEnd + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8')) as Message;
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      this.dispatch(message);
    }
  }

  private dispatch(m: Message): void {
    if (m.method !== undefined && m.id !== undefined) {
      // A request from the server.
      let result: unknown = null;
      try {
        result = this.onRequest(m.method, m.params);
      } catch (e) {
        this.send({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: (e as Error).message } });
        return;
      }
      this.send({ jsonrpc: '2.0', id: m.id, result: result ?? null });
    } else if (m.method !== undefined) {
      const p = m.params as { message?: string } | undefined;
      this.log.push(`${m.method}${p?.message ? `: ${p.message}` : ''}`);
    } else if (typeof m.id === 'number' && this.pending.has(m.id)) {
      const p = this.pending.get(m.id)!;
      this.pending.delete(m.id);
      if (m.error) p.reject(new Error(`${m.error.message}\n${this.log.join('\n')}`));
      else p.resolve(m.result);
    }
  }

  request<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  async close(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    try {
      await Promise.race([this.request('shutdown', null), new Promise((r) => setTimeout(r, 2000))]);
      this.notify('exit', null);
    } catch {
      // already gone
    }
    const timer = setTimeout(() => this.proc.kill(), 3000);
    await exited;
    clearTimeout(timer);
  }
}
