// The server summary: the one picture of a server that the lint hands to the report and the probe.
//
// Plain JSON, versioned, described by docs/server-summary.schema.json (a test validates real output against it).
// This module has no imports: the probe reads a summary without loading ESLint, TypeScript or the analysis.

export const SUMMARY_SCHEMA_ID = 'mcp-stateless/server-summary@1';

/** A place in the source: path relative to `root` (forward slashes), 1-based line and column. */
export interface SummaryLocation {
  file: string;
  line: number;
  column: number;
}

export type SummaryHandlerKind = 'tool' | 'resource' | 'prompt' | 'request' | 'notification' | 'task' | 'completion';

/** How a handler touches one piece of long-lived state (see `ServerSummary.state`). */
export interface StateTouch extends SummaryLocation {
  /** `StateEntry.id` of the state touched. */
  state: string;
  /** read: reads it; write: assigns or mutates it (append, set, delete, lazy fill…). */
  access: 'read' | 'write';
  /** What the code does, in a few words: `history.push(…)`, `reads currentPage`, `fills client on first call`. */
  what: string;
}

/** A file-system operation in handler code. */
export interface FileTouch extends SummaryLocation {
  /** read, write (incl. append), create (mkdir), remove, mkdtemp, meta (stat, exists, readdir). */
  effect: 'read' | 'write' | 'create' | 'remove' | 'mkdtemp' | 'meta';
  /** The fs API: `writeFile`, `promises.readFile`, `page.pdf`… */
  api: string;
  /** The path as written in the source (shortened). */
  target: string;
  /**
   * Where the path comes from: fixed (the same for every call: a literal, `__dirname`, `os.tmpdir()`…), scoped (derived
   * from the caller's scope argument), input (from a tool argument, not the scope), random (per call), unknown.
   */
  origin: 'fixed' | 'scoped' | 'input' | 'random' | 'unknown';
  /** `StateEntry.id` of the file as shared state, when the same fixed path is also touched by other handler code. */
  state?: string;
}

/** A child process started by handler code. */
export interface ProcessTouch extends SummaryLocation {
  /** spawn, exec, execFile, fork, execa, or the project wrapper's name. */
  api: string;
  /** Per-call isolation passed to the child. */
  cwd: boolean;
  home: boolean;
  tmpdir: boolean;
}

/** One function that serves calls: a tool, or a routed case of a `tools/call` dispatcher, or another request handler. */
export interface ToolEntry extends SummaryLocation {
  /** Tool/resource/prompt name or request method; null when not known without running the code. */
  name: string | null;
  kind: SummaryHandlerKind;
  /** How it was registered: `registerTool`, `setRequestHandler(tools/call) case`, `tool object`, `addTool`… */
  via: string;
  /** Where it was registered (the registration call, the tool object or class, the `case`). */
  registeredAt: SummaryLocation;
  /** Found through another file (whole-server analysis). */
  crossFile: boolean;
  /** Names of its arguments that carry the caller's scope (from the settings' scopeArguments), as the code reads them. */
  scopeArguments: string[];
  state: StateTouch[];
  files: FileTouch[];
  processes: ProcessTouch[];
  /** Rule ids (`mcp-stateless/…`) that reported inside this handler's code. */
  rules: string[];
}

/** A piece of state that outlives a call and that handler code touches. */
export interface StateEntry extends SummaryLocation {
  /** Stable within one summary: `module:src/index.ts:12:history`, `file:src/memory.ts:48`. */
  id: string;
  /** How reports name it: `history`, `this.currentPage`, `memory.json`. */
  name: string;
  /**
   * module: module or class-static binding, one per process; instance: a binding of a server instance or a long-lived
   * object; import: project state imported from another module; file: a fixed path on disk; process: process-wide
   * (process.env, process.chdir, globals).
   */
  scope: 'module' | 'instance' | 'import' | 'file' | 'process';
  /** Names of the tools that write it and read it (null entries: handlers without a known name). */
  writers: (string | null)[];
  readers: (string | null)[];
}

export interface SummaryFinding extends SummaryLocation {
  ruleId: string;
  message: string;
  /** The tool whose code it is in, when it is in handler code and the name is known. */
  tool: string | null;
}

export interface ServerSummary {
  schema: typeof SUMMARY_SCHEMA_ID;
  /** eslint-plugin-mcp-stateless version that made it. */
  version: string;
  /** Absolute directory every `file` is relative to. */
  root: string;
  /** one-file: each file alone (recommended); whole-server: across the TypeScript program (type-checked). */
  mode: 'one-file' | 'whole-server';
  /** The argument names treated as the caller's scope (settings['mcp-stateless'].scopeArguments). */
  scopeArguments: string[];
  /** The idempotent teardown tool, when there is one. */
  teardown: { tool: string; file: string; line: number } | null;
  tools: ToolEntry[];
  state: StateEntry[];
  findings: SummaryFinding[];
}

/** Is this parsed JSON a server summary this version can read? (a cheap shape check; the JSON Schema is the contract) */
export function isServerSummary(value: unknown): value is ServerSummary {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return v.schema === SUMMARY_SCHEMA_ID && Array.isArray(v.tools) && Array.isArray(v.state) && Array.isArray(v.findings);
}
