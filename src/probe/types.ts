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
  /** Number of independent sessions (default 2). */
  sessions?: number;
  /** stdio only: also start a second server process with one more session, to catch leaks through
   * the disk between processes (default true). */
  secondProcess?: boolean;
  /** Tool to probe; default: the only tool with a command-like string argument. */
  tool?: string;
  /** Arguments template (JSON text or object) with `{marker}` and `{workspace}` placeholders. */
  args?: string | Record<string, unknown>;
  /** Teardown tool name; `false` to skip teardown; default: found by name. */
  teardown?: string | false;
  /** Teardown arguments template with a `{workspace}` placeholder. */
  teardownArgs?: string | Record<string, unknown>;
  /** Rounds of concurrent calls (default 5). */
  rounds?: number;
  /** Per-call timeout in ms (default 20 000). */
  callTimeoutMs?: number;
  /** Timeout in ms for starting a server and for each initialize (default 20 000). */
  connectTimeoutMs?: number;
  /** Whole-run timeout in ms (default 120 000). */
  timeoutMs?: number;
  /** Directory under which the server creates `<workspace>` directories; enables the workspace check. */
  workspaceRoot?: string;
  /** Aborts the run (reported as an error, exit 2). */
  signal?: AbortSignal;
  /** Receives the stderr of every server process the probe starts. */
  onServerStderr?: (text: string, label: string) => void;
  /** Called after every round. */
  onRound?: (round: RoundResult) => void;
}

export type Verdict = 'pass' | 'leak' | 'fail' | 'error';
export type ExitCode = 0 | 1 | 2;

export interface TargetInfo {
  transport: 'stdio' | 'http';
  /** Server command line, when the probe started the server. */
  command?: string[];
  url?: string;
  /** Working directory the server was started in. */
  cwd?: string;
}

export interface ConnectionInfo {
  label: string;
  transport: 'stdio' | 'http';
  pid?: number;
  sessionId?: string;
  serverInfo?: { name: string; version: string };
  connectMs: number;
}

export interface SessionInfo {
  name: string;
  /** Markers of this session look like `<name>-<round>-<runId>`. */
  markerPattern: string;
  workspace: string;
  connection: string;
}

export type CallOutcome = 'result' | 'tool-error' | 'rpc-error' | 'timeout' | 'transport-error' | 'aborted';

export interface CallRecord {
  session: string;
  marker: string;
  connection: string;
  arguments: Record<string, unknown>;
  outcome: CallOutcome;
  /** ms after the round started that the call was sent, and how long it took. */
  startMs: number;
  durationMs: number;
  /** Start of what came back (text content, structured content, or the error message). */
  excerpt: string;
  /** Markers of other sessions found in what came back. */
  foreignMarkers: string[];
  ownMarker: boolean;
  error?: string;
}

export type AssertionKind = 'isolation' | 'own-marker' | 'workspace';
export type AssertionStatus = 'passed' | 'failed' | 'not-run';

export interface AssertionResult {
  kind: AssertionKind;
  /** e.g. "alpha did not observe bravo", "alpha got its own marker back". */
  name: string;
  session: string;
  other?: string;
  status: AssertionStatus;
  detail?: string;
}

export interface WorkspaceCheck {
  session: string;
  dir: string;
  exists: boolean;
  files: number;
  ownMarker: boolean;
  foreignMarkers: { marker: string; file: string }[];
}

export interface RoundResult {
  round: number;
  markers: Record<string, string>;
  durationMs: number;
  calls: CallRecord[];
  assertions: AssertionResult[];
  workspaces?: WorkspaceCheck[];
  passed: boolean;
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

export interface Failure {
  kind: 'leak' | 'own-marker' | 'workspace' | 'teardown';
  round?: number;
  session?: string;
  message: string;
}

export interface ProbeResult {
  probe: { name: string; version: string };
  verdict: Verdict;
  exitCode: ExitCode;
  /** One line: why this verdict. */
  reason: string;
  target: TargetInfo;
  /** How the sessions were laid out, in one sentence. */
  design: string;
  runId: string;
  tool: { name: string; selectedBy: 'option' | 'auto'; commandArgument?: string; workspaceArgument?: string } | null;
  argsTemplate: Record<string, unknown> | null;
  settings: {
    rounds: number;
    sessions: number;
    secondProcess: boolean;
    callTimeoutMs: number;
    connectTimeoutMs: number;
    timeoutMs: number;
    workspaceRoot: string | null;
  };
  sessions: SessionInfo[];
  connections: ConnectionInfo[];
  rounds: RoundResult[];
  teardown: TeardownResult;
  failures: Failure[];
  warnings: string[];
  /** The error that stopped the run, when the verdict is 'error'. */
  error?: string;
  timings: {
    startedAt: string;
    finishedAt: string;
    totalMs: number;
    connectMs: number;
    roundsMs: number;
    teardownMs: number;
    cleanupMs: number;
  };
}
