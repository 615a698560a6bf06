import { SESSION_NAMES } from './markers.js';

export const DEFAULTS = {
  sessions: 2,
  rounds: 3,
  callTimeoutMs: 20_000,
  connectTimeoutMs: 20_000,
  timeoutMs: 120_000,
} as const;

/** Sessions: at least 2 (somebody to leak to), at most 25 (the NATO alphabet, one name kept for the second process). */
export const SESSIONS_MIN = 2;
export const SESSIONS_MAX = SESSION_NAMES.length - 1;
