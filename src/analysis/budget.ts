/**
 * The analysis of one file runs within a fixed number of steps. Each search in the analysis is linear by design; this is
 * the safety net for shapes nobody foresaw: past the budget the file's analysis stops, every rule reports nothing for
 * the file, and one warning names the file (never a hang in the editor, never a CI timeout).
 */
export class AnalysisBudgetExceeded extends Error {
  constructor(readonly fileName: string, readonly phase: string) {
    super(`mcp-stateless: the analysis of ${fileName} passed its step budget (in ${phase}); no statelessness findings are reported for this file`);
    this.name = 'AnalysisBudgetExceeded';
  }
}

/** Default steps per file: far above what any real file needs (the largest real server files use well under 1%). */
export const DEFAULT_STEP_BUDGET = 5_000_000;

const TIMING = Boolean(process.env.TIMING);

export class Budget {
  private used = 0;
  private exceeded: AnalysisBudgetExceeded | null = null;
  /** The step limit, read from the environment at the first step (most files never take one). */
  private max = 0;
  /** Per-phase CPU time when `TIMING` is set (ESLint's own switch for rule timings, which ESLint too reads once). */
  readonly timings: Map<string, number> | null = TIMING ? new Map() : null;

  constructor(readonly fileName: string) {}

  get limit(): number {
    if (this.max === 0) {
      // MCP_STATELESS_STEP_BUDGET lowers (or raises) the limit: for tests of the safety net and for diagnosing a slow file.
      const fromEnv = Number(process.env.MCP_STATELESS_STEP_BUDGET);
      this.max = Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_STEP_BUDGET;
    }
    return this.max;
  }

  /** Spend `n` steps; throws once the budget is gone (and on every later call, so every rule stops). */
  tick(phase: string, n = 1): void {
    if (this.exceeded) throw this.exceeded;
    this.used += n;
    if (this.used > (this.max || this.limit)) {
      this.exceeded = new AnalysisBudgetExceeded(this.fileName, phase);
      throw this.exceeded;
    }
  }

  get steps(): number {
    return this.used;
  }

  get isExceeded(): boolean {
    return this.exceeded !== null;
  }

  /** Run one phase, timing it when `TIMING` is set. */
  phase<T>(name: string, run: () => T): T {
    const timings = this.timings;
    if (!timings) return run();
    const t0 = performance.now();
    try {
      return run();
    } finally {
      const t = performance.now() - t0;
      timings.set(name, (timings.get(name) ?? 0) + t);
      recordPhase(name, t);
    }
  }
}

// Timing totals for `TIMING=1`, printed at exit like ESLint's rule table. Debug output only: nothing the analysis
// decides reads it, so it cannot make results depend on file order or threads.
let phaseTotals: Map<string, number> | null = null;

function recordPhase(name: string, ms: number): void {
  if (!phaseTotals) {
    phaseTotals = new Map();
    process.once('exit', printPhases);
  }
  phaseTotals.set(name, (phaseTotals.get(name) ?? 0) + ms);
}

function printPhases(): void {
  if (!phaseTotals || phaseTotals.size === 0) return;
  const rows = [...phaseTotals].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((n, [, t]) => n + t, 0);
  const width = Math.max(...rows.map(([n]) => n.length), 'Analysis phase (mcp-stateless)'.length);
  const lines = [
    `${'Analysis phase (mcp-stateless)'.padEnd(width)} | Time (ms) | Relative`,
    `:${'-'.repeat(width - 1)}|----------:|--------:`,
    ...rows.map(([n, t]) => `${n.padEnd(width)} | ${t.toFixed(3).padStart(9)} | ${((100 * t) / (total || 1)).toFixed(1).padStart(7)}%`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * Report a budget overrun once: a process warning the CLI prints as one line (and Node prints otherwise). A budget
 * throws the same error on every step after its last, so the error itself is the key: a module that several linted
 * files reach through the server model is named once, not once per file.
 */
const warned = new WeakSet<object>();
export function warnBudget(error: AnalysisBudgetExceeded): void {
  if (warned.has(error)) return;
  warned.add(error);
  process.emitWarning(error.message, { type: 'McpStatelessWarning', code: 'MCP_STATELESS_BUDGET' });
}
