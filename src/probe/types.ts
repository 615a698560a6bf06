import type { ServerSummary } from '../summary.js';
import type { LintNote, ProbePlan } from './planner.js';

/** Options of `runProbe`. Exactly one of `command` (stdio) or `url` (Streamable HTTP) selects the target;
 * with both, `command` is an HTTP server the probe starts and stops around the run. */
export interface ProbeOptions {
  /** Server command line: `['node', 'server.js']`. Started fresh by the probe. */
  command?: string[];
  /** Streamable HTTP endpoint, e.g. `http://127.0.0.1:8080/mcp`. */
  url?: string;
  /** Working directory for a server the probe starts. */
  cwd?: string;
  /** Extra environment for a server the probe starts (on top of the probe's own environment). */
  env?: Record<string, string>;
  /** Extra HTTP headers on every request (HTTP only), e.g. an Authorization header. */
  headers?: Record<string, string>;
  /** Number of independent sessions, 2–25 (default 2). */
  sessions?: number;
  /** stdio only: also start a second server process with one more session, to catch leaks through
   * the disk between processes (default true). */
  secondProcess?: boolean;
  /** Probe only this tool (default: every tool, planned from the schemas). */
  tool?: string;
  /** Arguments template for `tool` (JSON text or object) with `{marker}` and `{workspace}` placeholders. */
  args?: string | Record<string, unknown>;
  /** Teardown tool name; `false` to skip teardown; default: found by name. */
  teardown?: string | false;
  /** Teardown arguments template with a `{workspace}` placeholder. */
  teardownArgs?: string | Record<string, unknown>;
  /** Rounds (default 3); each round is a concurrent pass and a sequential pass. */
  rounds?: number;
  /** Per-call timeout in ms (default 20 000). */
  callTimeoutMs?: number;
  /** Timeout in ms for starting a server and for each initialize (default 20 000). */
  connectTimeoutMs?: number;
  /** Whole-run timeout in ms (default 120 000). */
  timeoutMs?: number;
  /** Directory under which the server creates `<workspace>` directories; enables the workspace check. */
  workspaceRoot?: string;
  /** Call tools annotated destructiveHint or named delete/remove/drop/kill/… (default false). */
  allowDestructive?: boolean;
  /** Call tools annotated openWorldHint, named send/push/fetch/…, or taking URLs and hosts (default false). */
  allowOpenWorld?: boolean;
  /** Remove what the probe's calls created, through the server's own tools (default true). */
  cleanup?: boolean;
  /** Start the server with HOME (and XDG_*) in the probe's scratch directory too (default: only TMPDIR). */
  scratchHome?: boolean;
  /** Only make the plan: start the server, list its tools, call nothing. */
  planOnly?: boolean;
  /** The lint's model of the server (what `report --format json` emits as `summary`). */
  summary?: ServerSummary;
  /** Lint this directory first (child process) and plan from its summary; implies the summary. */
  source?: string;
  /** With `source`: the whole-server (type-checked) lint. */
  typeChecked?: boolean;
  /** Aborts the run (reported as an error, exit 2). */
  signal?: AbortSignal;
  /** Receives the stderr of every server process the probe starts. */
  onServerStderr?: (text: string, label: string) => void;
  /** Called after every pass. */
  onPass?: (pass: PassSummary) => void;
}

export type Verdict = 'leak' | 'isolated' | 'inconclusive' | 'error';
export type ExitCode = 0 | 1 | 2 | 3;

export interface TargetInfo {
  transport: 'stdio' | 'http';
  command?: string[];
  url?: string;
  cwd?: string;
}

export interface ConnectionInfo {
  label: string;
  transport: 'stdio' | 'http';
  pid?: number;
  sessionId?: string;
  serverInfo?: { name: string; version: string };
  connectMs: number;
  /** The server asked this connection for its roots (roots/list). */
  rootsRequested?: boolean;
}

export interface SessionInfo {
  name: string;
  /** Markers of this session: `mcpsl-<run>-<name>-<step>-<slot>`. */
  markerPattern: string;
  /** Its scope argument value. */
  workspace: string;
  /** Its own directory (path arguments point inside it). */
  dir: string;
  connection: string;
}

export type CallOutcome = 'result' | 'tool-error' | 'rpc-error' | 'timeout' | 'transport-error' | 'aborted' | 'invalid-args' | 'not-sent';
export type CallMode = 'own' | 'cross' | 'teardown' | 'cleanup' | 'residue';
export type Pass = 'concurrent' | 'sequential';

export interface CallRecord {
  /** Order in which calls were sent. */
  seq: number;
  session: string;
  connection: string;
  tool: string;
  mode: CallMode;
  /** cross: whose key the call was given. */
  target?: string;
  /** 0 after the rounds (teardown, cleanup, residue). */
  round: number;
  pass?: Pass;
  step: number;
  variant: 'full' | 'minimal' | 'user';
  arguments: Record<string, unknown>;
  /** Probe markers in the request. */
  sent: string[];
  outcome: CallOutcome;
  /** ms after the run started, and how long the call took. */
  startMs: number;
  durationMs: number;
  /** Start of what came back (text, resources, structured content, or the error message). */
  excerpt: string;
  /** Probe markers in what came back (lowercase). */
  markers: string[];
  /** What came back around the first marker that is not the caller's. */
  context?: string;
  error?: string;
}

export interface PassSummary {
  round: number;
  pass: Pass;
  step: number;
  calls: number;
  answered: number;
  durationMs: number;
  /** Calls whose reply held a marker that is not the caller's. */
  foreign: number;
}

export interface WorkspaceCheck {
  session: string;
  round: number;
  dir: string;
  exists: boolean;
  files: number;
  ownMarker: boolean;
  foreignMarkers: { marker: string; file: string }[];
}

export interface ProtocolFault {
  connection: string;
  kind: 'duplicate-reply' | 'unknown-id' | 'not-json-rpc';
  id?: string | number | null;
  detail: string;
}

export interface TransportExchange {
  session: string;
  id: number;
  outcome: 'reply' | 'no-reply' | 'error';
  /** Markers in the reply. */
  markers: string[];
  excerpt: string;
}

export interface TransportCheck {
  /** The tool call repeated with the same JSON-RPC id in every session at once, or ping. */
  call: string;
  bursts: number;
  exchanges: TransportExchange[];
  /** One line: what it showed. */
  summary: string;
  status: 'crossed' | 'clean' | 'lost-replies' | 'not-run';
}

export interface TeardownCall {
  session: string;
  workspace: string;
  attempt: 1 | 2;
  arguments: Record<string, unknown>;
  outcome: CallOutcome;
  durationMs: number;
  excerpt: string;
  error?: string;
}

export interface TeardownResult {
  tool: string | null;
  status: 'passed' | 'failed' | 'absent' | 'skipped' | 'not-run';
  detail: string;
  calls: TeardownCall[];
  /** With a workspace root: whether each workspace directory is gone after teardown. */
  workspacesRemoved?: Record<string, boolean>;
}

export interface Leftover {
  marker: string;
  /** Where it was seen: a tool's reply (and connection). */
  seenBy: string;
  /** Seen through a call whose arguments point into the probe's scratch directory: removed with it. */
  inScratch?: true;
}

export interface CleanupResult {
  status: 'clean' | 'leftovers' | 'unknown' | 'skipped' | 'not-run';
  detail: string;
  /** Calls made to clean up, by tool. */
  tools: string[];
  leftovers: Leftover[];
  /** What the probe could not clean up, and why. */
  notes: string[];
  scratch: { dir: string; removed: boolean } | null;
}

export interface Evidence {
  kind: 'cross-session' | 'earlier-run' | 'transport' | 'workspace';
  /** The session that saw it. */
  observer: string;
  /** Whose marker: a session of this run, or `run <id>` for an earlier run. */
  owner: string;
  marker: string;
  via: { tool: string; mode: CallMode | 'transport' | 'workspace'; round: number; pass?: Pass; connection: string; seq?: number };
  writtenBy?: { tool: string; session: string; round: number; pass?: Pass; connection: string };
  /** Every tool of the owner that sent the marker (they share a step's key). */
  writers?: string[];
  /** The lint's line for the writer, with --source. */
  lint?: string;
  /** How many calls showed the same thing. */
  occurrences: number;
  /** What came back, around the marker. */
  context?: string;
  message: string;
}

export interface PairResult {
  writer: string;
  reader: string;
  origin: 'lint' | 'schema';
  status: 'leak' | 'isolated' | 'not-exercised';
  /** Ordered session pairs checked (writer's session → reader's session), e.g. `alpha→bravo`. */
  orders: string[];
  concurrent: boolean;
  sequential: boolean;
  /** The reader returned the writer's own data to the writer's session (the pair carries data at all). */
  carries: boolean;
  why?: string;
}

export interface Judgement {
  verdict: Verdict;
  exitCode: ExitCode;
  reason: string;
  evidence: Evidence[];
  pairs: PairResult[];
  /** Per session: did it get its own marker back, and through which tool. */
  ownMarkers: Record<string, { returned: boolean; via?: string }>;
  /** Why the verdict cannot be `isolated` (empty for isolated and leak). */
  inconclusive: string[];
  /** What to pass to make it conclusive. */
  toConclude: string[];
  lint: LintNote[];
}

export interface ProbeResult extends Judgement {
  probe: { name: string; version: string };
  target: TargetInfo;
  /** How the sessions were laid out, in one sentence. */
  design: string;
  runId: string;
  settings: {
    rounds: number;
    sessions: number;
    secondProcess: boolean;
    callTimeoutMs: number;
    connectTimeoutMs: number;
    timeoutMs: number;
    workspaceRoot: string | null;
    allowDestructive: boolean;
    allowOpenWorld: boolean;
    cleanup: boolean;
    scratchHome: boolean;
  };
  plan: ProbePlan | null;
  sessions: SessionInfo[];
  connections: ConnectionInfo[];
  passes: PassSummary[];
  calls: CallRecord[];
  transport?: TransportCheck;
  protocolFaults: ProtocolFault[];
  workspaces: WorkspaceCheck[];
  teardown: TeardownResult;
  cleanup: CleanupResult;
  warnings: string[];
  /** The error that stopped the run. */
  error?: string;
  timings: {
    startedAt: string;
    finishedAt: string;
    totalMs: number;
    lintMs: number;
    connectMs: number;
    roundsMs: number;
    teardownMs: number;
    cleanupMs: number;
  };
}
