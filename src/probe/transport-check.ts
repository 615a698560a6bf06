// The transport-level check (Streamable HTTP): open fresh sessions with plain HTTP requests, then send the same
// request with the same JSON-RPC id from every session at the same moment. Each session must get exactly its own
// reply. A server that wires one MCP server (or one transport) to every connection delivers a reply to whichever
// connection has a request with that id open — another caller's — which is the leak the lint's
// no-shared-server-connection finds in the source (GHSA-345p-7cg4-v4c7).

import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { findMarkers } from './markers.js';
import { limitedFetch } from './protocol.js';
import { errorMessage, oneLine } from './text.js';
import type { TransportCheck, TransportExchange } from './types.js';

export interface TransportCheckOptions {
  url: URL;
  headers?: Record<string, string>;
  /** Per session: its name and the request body params (the same tool call, each with its own marker). */
  sessions: { name: string; params: Record<string, unknown> | null }[];
  /** tools/call of this tool, or ping when no tool echoes its input. */
  call: string;
  bursts: number;
  timeoutMs: number;
  signal: AbortSignal;
  clientInfo: { name: string; version: string };
}

interface RawSession {
  name: string;
  sessionId?: string;
  protocolVersion: string;
}

const BASE_ID = 900_000;
const doFetch = limitedFetch();

function headersFor(o: TransportCheckOptions, s?: RawSession): Record<string, string> {
  return {
    ...o.headers,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(s?.sessionId ? { 'mcp-session-id': s.sessionId } : {}),
    ...(s ? { 'mcp-protocol-version': s.protocolVersion } : {}),
  };
}

/** Every JSON-RPC message in a response body (JSON, or an SSE stream read to its end). */
function parseMessages(body: string, contentType: string): unknown[] {
  if (contentType.includes('text/event-stream')) {
    const out: unknown[] = [];
    for (const event of body.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (!data) continue;
      try {
        out.push(JSON.parse(data));
      } catch {
        // not JSON: ignore this event
      }
    }
    return out;
  }
  try {
    const parsed = JSON.parse(body) as unknown;
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return [];
  }
}

async function post(o: TransportCheckOptions, body: unknown, s: RawSession | undefined, timeoutMs: number): Promise<{ messages: unknown[]; sessionId?: string; status: number }> {
  const response = await doFetch(o.url, {
    method: 'POST',
    headers: headersFor(o, s),
    body: JSON.stringify(body),
    signal: AbortSignal.any([o.signal, AbortSignal.timeout(timeoutMs)]),
  });
  const text = await response.text();
  return {
    messages: parseMessages(text, response.headers.get('content-type') ?? ''),
    sessionId: response.headers.get('mcp-session-id') ?? undefined,
    status: response.status,
  };
}

async function open(o: TransportCheckOptions, name: string): Promise<RawSession> {
  const init = await post(
    o,
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: o.clientInfo } },
    undefined,
    o.timeoutMs,
  );
  const reply = init.messages.find((m) => (m as { id?: unknown }).id === 0) as { result?: { protocolVersion?: string } } | undefined;
  if (!reply?.result) throw new Error(`initialize was not answered (HTTP ${init.status})`);
  const session: RawSession = { name, sessionId: init.sessionId, protocolVersion: reply.result.protocolVersion ?? LATEST_PROTOCOL_VERSION };
  await doFetch(o.url, {
    method: 'POST',
    headers: headersFor(o, session),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    signal: AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs)]),
  }).then((r) => r.body?.cancel());
  return session;
}

async function close(o: TransportCheckOptions, s: RawSession): Promise<void> {
  if (!s.sessionId) return;
  await doFetch(o.url, { method: 'DELETE', headers: headersFor(o, s), signal: AbortSignal.timeout(1000) })
    .then((r) => r.body?.cancel())
    .catch(() => undefined);
}

export async function transportCheck(o: TransportCheckOptions): Promise<TransportCheck> {
  const names = new Set(o.sessions.map((s) => s.name));
  // A reply meant for another caller carries that caller's marker and none of this session's own. (A reply that holds
  // this session's marker and another's is the tool leaking, not the transport: the rounds report that.)
  const isCrossed = (x: TransportExchange): boolean => {
    const found = findMarkers(x.markers.join('\n'));
    return found.some((m) => names.has(m.session) && m.session !== x.session) && !found.some((m) => m.session === x.session);
  };
  const exchanges: TransportExchange[] = [];
  const opened: RawSession[] = [];
  try {
    for (const s of o.sessions) opened.push(await open(o, s.name));
    for (let burst = 1; burst <= o.bursts; burst++) {
      const id = BASE_ID + burst;
      const results = await Promise.all(
        opened.map(async (s, i): Promise<TransportExchange> => {
          const params = o.sessions[i]?.params;
          const body = params ? { jsonrpc: '2.0', id, method: 'tools/call', params } : { jsonrpc: '2.0', id, method: 'ping' };
          try {
            const r = await post(o, body, s, o.timeoutMs);
            const replies = r.messages.filter((m) => (m as { id?: unknown }).id === id);
            if (replies.length === 0) return { session: s.name, id, outcome: 'no-reply', markers: [], excerpt: `HTTP ${r.status}, no reply with id ${id}` };
            const text = JSON.stringify(replies);
            return { session: s.name, id, outcome: 'reply', markers: findMarkers(text).map((m) => m.text), excerpt: oneLine(text, 300) };
          } catch (error) {
            const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
            if (o.signal.aborted) throw error;
            return { session: s.name, id, outcome: timedOut ? 'no-reply' : 'error', markers: [], excerpt: oneLine(errorMessage(error), 200) };
          }
        }),
      );
      exchanges.push(...results);
      if (results.some(isCrossed)) break; // shown: no need to wait out more unanswered requests
    }
  } finally {
    await Promise.all(opened.map((s) => close(o, s)));
  }
  const crossed = exchanges.filter(isCrossed);
  const lost = exchanges.filter((x) => x.outcome !== 'reply');
  let status: TransportCheck['status'];
  let summary: string;
  if (crossed.length > 0) {
    const x = crossed[0] as TransportExchange;
    status = 'crossed';
    summary = `${x.session}'s request id ${x.id} was answered with another session's reply (${crossed.length} of ${exchanges.length} replies crossed${lost.length > 0 ? `, ${lost.length} never arrived` : ''}; the check stops at the first burst that shows it)`;
  } else if (lost.length > 0 && lost.length < exchanges.length) {
    const x = lost[0] as TransportExchange;
    status = 'lost-replies';
    summary = `${lost.length} of ${exchanges.length} requests sent with the same id at once got no reply (${x.session}: ${x.excerpt}) while others did: replies may be going to another connection`;
  } else if (lost.length === exchanges.length) {
    status = 'lost-replies';
    summary = `no request of the check was answered (${(lost[0] as TransportExchange).excerpt})`;
  } else {
    status = 'clean';
    summary = `${exchanges.length} requests with the same id at once, ${o.bursts} times: every session got exactly its own reply`;
  }
  return { call: o.call, bursts: o.bursts, exchanges, summary, status };
}
