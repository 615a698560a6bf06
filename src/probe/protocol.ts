// What the probe checks about the JSON-RPC traffic itself, on every transport: one reply per request, and no reply to
// a request this connection never sent. A duplicate reply, or a reply to an unknown id, is a protocol fault; over a
// transport shared between connections it is also how replies meant for another caller show up.

import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { oneLine } from './text.js';
import type { ProtocolFault } from './types.js';

/** The largest JSON-RPC message the probe accepts, on stdio and over HTTP alike. */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** `256 MiB`: how the limit is named in messages. */
export function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

type Id = string | number;

export class ProtocolWatch {
  readonly faults: ProtocolFault[] = [];
  private readonly pending = new Set<Id>();
  private readonly answered = new Set<Id>();

  constructor(private readonly connection: string) {}

  outgoing(message: JSONRPCMessage): void {
    if ('method' in message && 'id' in message && message.id !== undefined) {
      this.pending.add(message.id);
      this.answered.delete(message.id);
    }
  }

  incoming(message: JSONRPCMessage): void {
    if ('method' in message) return; // a request or notification from the server
    if (!('id' in message)) return;
    const id = message.id as Id | null;
    if (id === null) return; // an error about a message the server could not parse: reported by the SDK
    if (this.pending.has(id)) {
      this.pending.delete(id);
      this.answered.add(id);
      return;
    }
    const excerpt = oneLine(JSON.stringify('result' in message ? message.result : 'error' in message ? message.error : message), 160);
    if (this.answered.has(id)) {
      this.faults.push({ connection: this.connection, kind: 'duplicate-reply', id, detail: `a second reply to request id ${JSON.stringify(id)}: ${excerpt}` });
    } else {
      this.faults.push({ connection: this.connection, kind: 'unknown-id', id, detail: `a reply to request id ${JSON.stringify(id)}, which this connection never sent: ${excerpt}` });
    }
  }
}

/** Wrap a client transport so that every message in and out passes the watch first. */
export function watchTransport<T extends Transport>(inner: T, watch: ProtocolWatch): Transport & { inner: T } {
  const outer: Transport & { inner: T } = {
    inner,
    async start() {
      inner.onmessage = (message, extra) => {
        watch.incoming(message);
        outer.onmessage?.(message, extra);
      };
      inner.onerror = (error) => outer.onerror?.(error);
      inner.onclose = () => outer.onclose?.();
      await inner.start();
    },
    async send(message: JSONRPCMessage, options?: TransportSendOptions) {
      watch.outgoing(message);
      await inner.send(message, options);
    },
    close: () => inner.close(),
    get sessionId() {
      return inner.sessionId;
    },
    setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
  };
  return outer;
}

/**
 * A fetch that refuses a response body larger than the probe's message limit (a JSON reply is one message; an SSE
 * stream is counted event by event), so HTTP applies the same limit as stdio.
 */
export function limitedFetch(limit = MAX_MESSAGE_BYTES): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const sse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    let count = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (sse) {
          // bytes since the last blank line (an event boundary)
          let start = 0;
          for (let i = 0; i < chunk.length; i++) {
            if (chunk[i] === 10 && (i > 0 ? chunk[i - 1] === 10 : false)) {
              count = 0;
              start = i + 1;
            }
          }
          count += chunk.length - start;
        } else {
          count += chunk.length;
        }
        if (count > limit) {
          controller.error(new Error(`the server sent a message larger than ${sizeText(limit)}, the probe's limit for one JSON-RPC message on both transports`));
          return;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
