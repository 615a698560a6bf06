import { randomBytes } from 'node:crypto';

/** NATO alphabet: session names, and the first word of their markers. */
export const SESSION_NAMES = [
  'alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett', 'kilo', 'lima',
  'mike', 'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango', 'uniform', 'victor', 'whiskey',
  'xray', 'yankee', 'zulu',
] as const;

/** Random per run, so markers of this run cannot be confused with any other run's. */
export function newRunId(): string {
  return randomBytes(4).toString('hex');
}

export function markerFor(session: string, round: number, runId: string): string {
  return `${session}-${round}-${runId}`;
}

/** Every marker of `session` in this run, whatever the round: `bravo-<n>-<runId>`. */
export function markerRegExp(session: string, runId: string): RegExp {
  return new RegExp(`${session}-\\d+-${runId}`, 'g');
}

/** Distinct markers of the `others` sessions that occur in `text`. */
export function findForeignMarkers(text: string, others: readonly string[], runId: string): string[] {
  const found = new Set<string>();
  for (const other of others) for (const m of text.matchAll(markerRegExp(other, runId))) found.add(m[0]);
  return [...found];
}

interface ContentLike {
  type?: string;
  text?: unknown;
  uri?: unknown;
  resource?: { text?: unknown; uri?: unknown };
}

/** Everything a caller can read back from a tools/call result: text, embedded resources, structured content. */
export function readBack(result: unknown): string {
  if (!result || typeof result !== 'object') return '';
  const r = result as { content?: unknown; structuredContent?: unknown; toolResult?: unknown };
  const parts: string[] = [];
  if (Array.isArray(r.content)) {
    for (const item of r.content as ContentLike[]) {
      if (!item || typeof item !== 'object') continue;
      if (typeof item.text === 'string') parts.push(item.text);
      if (item.resource && typeof item.resource.text === 'string') parts.push(item.resource.text);
      if (typeof item.uri === 'string') parts.push(item.uri);
    }
  }
  if (r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent));
  if (r.toolResult !== undefined) parts.push(JSON.stringify(r.toolResult));
  return parts.join('\n');
}
