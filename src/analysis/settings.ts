import { DEFAULT_HANDLER_PROPERTIES, DEFAULT_SCOPE_ARGUMENTS } from '../vocabulary.js';

/**
 * Shared settings, read from `settings['mcp-stateless']` in the user's flat config. Every key is optional and checked:
 * a wrong key or type stops the lint with one clear line rather than silently changing what is found.
 */
export interface McpSettings {
  /** Extra function or method names that register handlers: their last function argument (and the handler properties of object arguments) serve calls. */
  registrationFunctions: string[];
  /** Property and method names that hold the function serving a call in tool-definition objects and classes. */
  handlerProperties: string[];
  /** Names of the argument through which a caller passes its scope (workspace, run id). */
  scopeArguments: string[];
  /** Whole-server analysis across the files of the TypeScript program (needs type information; set by the type-checked config). */
  crossFile: boolean;
}

export { DEFAULT_HANDLER_PROPERTIES, DEFAULT_SCOPE_ARGUMENTS };

export const settingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    registrationFunctions: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description: 'Extra function or method names that register a handler (project wrappers around server.tool).',
    },
    handlerProperties: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description: 'Property/method names holding the handler in tool-definition objects and classes (replaces the default list).',
    },
    scopeArguments: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description: "Names of the caller's scope argument (replaces the default list).",
    },
    crossFile: {
      type: 'boolean',
      description: 'Analyse the whole server across the files of the TypeScript program (requires parserOptions.projectService); set by the recommended-type-checked config.',
    },
  },
} as const;

const KEYS = Object.keys(settingsSchema.properties);

function stringArray(value: unknown, key: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v.length > 0)) {
    throw new Error(`mcp-stateless: settings['mcp-stateless'].${key} must be an array of non-empty strings`);
  }
  return value as string[];
}

// ESLint hands every file of a config the same settings object: read and check it once (the result is never mutated).
const readCache = new WeakMap<object, McpSettings>();
const keyCache = new WeakMap<McpSettings, string>();

/** Read and check the shared settings; defaults for what is absent. Throws one clear line on bad input. */
export function readSettings(all: Readonly<Record<string, unknown>> | undefined): McpSettings {
  const raw = all?.['mcp-stateless'];
  if (raw === undefined) return DEFAULT_SETTINGS;
  if (typeof raw !== 'object' || raw === null) return checkSettings(raw);
  let out = readCache.get(raw);
  if (!out) {
    out = checkSettings(raw);
    readCache.set(raw, out);
  }
  return out;
}

function checkSettings(raw: unknown): McpSettings {
  const out: McpSettings = {
    registrationFunctions: [],
    handlerProperties: [...DEFAULT_HANDLER_PROPERTIES],
    scopeArguments: [...DEFAULT_SCOPE_ARGUMENTS],
    crossFile: false,
  };
  if (raw === undefined) return out;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error("mcp-stateless: settings['mcp-stateless'] must be an object");
  }
  for (const [key, value] of Object.entries(raw)) {
    if (!KEYS.includes(key)) {
      throw new Error(`mcp-stateless: settings['mcp-stateless'] has unknown key '${key}' (known: ${KEYS.join(', ')})`);
    }
    if (key === 'crossFile') {
      if (typeof value !== 'boolean') throw new Error("mcp-stateless: settings['mcp-stateless'].crossFile must be a boolean");
      out.crossFile = value;
      continue;
    }
    out[key as Exclude<keyof McpSettings, 'crossFile'>] = stringArray(value, key);
  }
  return out;
}

/** A stable cache key for settings (they are plain JSON). */
export function settingsKey(s: McpSettings): string {
  let key = keyCache.get(s);
  if (key === undefined) {
    key = JSON.stringify(s);
    keyCache.set(s, key);
  }
  return key;
}

/** The settings of a config that sets none: one frozen object, so its cache key is computed once. */
const DEFAULT_SETTINGS: McpSettings = (() => {
  const s = checkSettings(undefined);
  for (const v of Object.values(s)) if (Array.isArray(v)) Object.freeze(v);
  return Object.freeze(s);
})();
