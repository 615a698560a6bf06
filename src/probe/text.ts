/** Collapse whitespace (newlines included) and cut to `max` characters, for one-line reasons. */
export function oneLine(text: string, max = 300): string {
  // only the start matters: a 50 MB reply is not collapsed whole to show 300 characters of it
  const flat = (text.length > max * 4 + 64 ? text.slice(0, max * 4 + 64) : text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    // fetch failures carry the useful part in `cause`: ECONNREFUSED, "bad port", …
    const cause = (error as Error & { cause?: unknown }).cause;
    if (cause && typeof cause === 'object') {
      const code = 'code' in cause && cause.code !== undefined ? String(cause.code) : undefined;
      const detail = code ?? (cause instanceof Error ? cause.message : undefined);
      if (detail && !error.message.includes(detail)) return `${error.message} (${detail})`;
    }
    return error.message;
  }
  return String(error);
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
