import { randomBytes } from 'node:crypto';

// Markers: the values the probe puts into calls, so that whatever comes back can be traced to the call that sent it.
//
//   mcpsl-<run>-<session>-<step>-<slot>      e.g. mcpsl-3fa2c1d0-alpha-4-k0
//
// run:     8 hex digits, random per probe run
// session: alpha, bravo, … (the NATO alphabet)
// step:    which pass of which round wrote it (the ledger says which)
// slot:    k0 for the key of that step (names, ids, queries, file names), p1…pz for payload fields (text, content…)
//
// Every run's markers have this one shape, so a marker left behind by an earlier run is recognised as a probe marker
// too. Lowercase letters, digits and hyphens only: it fits names, ids, file names and most `pattern`s.

export const MARKER_PREFIX = 'mcpsl';

/** NATO alphabet: session names. */
export const SESSION_NAMES = [
  'alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett', 'kilo', 'lima',
  'mike', 'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango', 'uniform', 'victor', 'whiskey',
  'xray', 'yankee', 'zulu',
] as const;

/** Random per run. */
export function newRunId(): string {
  return randomBytes(4).toString('hex');
}

export const KEY_SLOT = 'k0';

/** Payload slot `n` (1-based): p1…p9, pa…pz, then wraps. */
export function payloadSlot(n: number): string {
  const alphabet = '123456789abcdefghijklmnopqrstuvwxyz';
  return `p${alphabet[(n - 1) % alphabet.length]}`;
}

export function marker(run: string, session: string, step: number, slot: string = KEY_SLOT): string {
  return `${MARKER_PREFIX}-${run}-${session}-${step}-${slot}`;
}

export interface ParsedMarker {
  /** The marker as found, lowercased. */
  text: string;
  run: string;
  session: string;
  step: number;
  slot: string;
  /** Marker of the probe before 0.2 (`bravo-3-8599037d`): no step/slot. */
  legacy?: true;
}

const MARKER_RE = /mcpsl-([0-9a-f]{8})-([a-z]+)-(\d{1,6})-([kp][0-9a-z])/gi;
const LEGACY_RE = new RegExp(`(?<![A-Za-z0-9])(${SESSION_NAMES.join('|')})-(\\d{1,4})-([0-9a-f]{8})(?![0-9a-f])`, 'g');

/** Every probe marker in `text`, in order of appearance, deduplicated (case-insensitive). */
export function findMarkers(text: string): ParsedMarker[] {
  const found = new Map<string, ParsedMarker>();
  for (const m of text.matchAll(MARKER_RE)) {
    const value = m[0].toLowerCase();
    if (!found.has(value)) {
      found.set(value, { text: value, run: (m[1] as string).toLowerCase(), session: (m[2] as string).toLowerCase(), step: Number(m[3]), slot: (m[4] as string).toLowerCase() });
    }
  }
  for (const m of text.matchAll(LEGACY_RE)) {
    const value = m[0];
    if (!found.has(value)) found.set(value, { text: value, run: m[3] as string, session: m[1] as string, step: Number(m[2]), slot: KEY_SLOT, legacy: true });
  }
  return [...found.values()];
}

/** The markers in `text` that are probe markers of this run and belong to `session`. */
export function ownMarkers(text: string, run: string, session: string): string[] {
  return findMarkers(text)
    .filter((m) => !m.legacy && m.run === run && m.session === session)
    .map((m) => m.text);
}

interface ContentLike {
  type?: string;
  text?: unknown;
  uri?: unknown;
  name?: unknown;
  resource?: { text?: unknown; uri?: unknown };
}

/** Everything a caller can read back from a tools/call result: text, resources and links, structured content. */
export function readBack(result: unknown): string {
  if (!result || typeof result !== 'object') return '';
  const r = result as { content?: unknown; structuredContent?: unknown; toolResult?: unknown };
  const parts: string[] = [];
  if (Array.isArray(r.content)) {
    for (const item of r.content as ContentLike[]) {
      if (!item || typeof item !== 'object') continue;
      if (typeof item.text === 'string') parts.push(item.text);
      if (item.resource && typeof item.resource.text === 'string') parts.push(item.resource.text);
      if (item.resource && typeof item.resource.uri === 'string') parts.push(item.resource.uri);
      if (typeof item.uri === 'string') parts.push(item.uri);
      if (item.type === 'resource_link' && typeof item.name === 'string') parts.push(item.name);
    }
  }
  if (r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent));
  if (r.toolResult !== undefined) parts.push(JSON.stringify(r.toolResult));
  return parts.join('\n');
}
