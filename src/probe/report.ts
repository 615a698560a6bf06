import type { ProbePlan } from './planner.js';
import { formatMs, oneLine } from './text.js';
import type { PassSummary, ProbeResult } from './types.js';

const VERDICT_WORD = { isolated: 'ISOLATED', leak: 'LEAK', inconclusive: 'INCONCLUSIVE', error: 'ERROR' } as const;

function describeTarget(result: ProbeResult): string {
  const t = result.target;
  if (t.transport === 'stdio') return `stdio, server: ${(t.command ?? []).join(' ')}`;
  return `Streamable HTTP, ${t.url ?? ''}${t.command ? ` (server started by the probe: ${t.command.join(' ')})` : ''}`;
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function names(list: readonly string[], max = 6): string {
  if (list.length === 0) return 'none';
  return list.length > max ? `${list.slice(0, max).join(', ')} (+${list.length - max})` : list.join(', ');
}

function passLine(p: PassSummary, rounds: number, result: ProbeResult): string {
  const leaks = result.evidence.filter((e) => e.via.round === p.round && e.via.pass === p.pass);
  const status = p.foreign > 0 ? `LEAK: ${p.foreign} ${p.foreign === 1 ? 'reply' : 'replies'} held another session's marker` : p.answered < p.calls ? `${p.calls - p.answered} unanswered` : 'ok';
  const first = leaks[0] ? ` (${leaks[0].via.tool} → ${leaks[0].observer})` : '';
  return `  round ${String(p.round).padStart(String(rounds).length)}/${rounds} ${p.pass.padEnd(10)} ${String(p.calls).padStart(4)} calls ${formatMs(p.durationMs).padStart(8)}   ${status}${first}`;
}

/** The plan, for --plan and at the top of a run's text. */
export function formatPlan(plan: ProbePlan, { detailed }: { detailed: boolean }): string[] {
  const lines: string[] = [];
  const skipped = plan.tools.filter((t) => t.role === 'skipped');
  lines.push(
    `  plan: ${count(plan.tools.length, 'tool')}, from the tools' input schemas${plan.source === 'schemas+lint' ? ' and the lint\'s summary' : ''}: ` +
      `${count(plan.writers.length, 'writer')} (${names(plan.writers)}), ${count(plan.readers.length, 'reader')} (${names(plan.readers)}), ${count(plan.pairs.length, 'pair')}` +
      `${plan.pairs.some((p) => p.origin === 'lint') ? ` (${plan.pairs.filter((p) => p.origin === 'lint').length} from the lint, first)` : ''}`,
  );
  for (const t of skipped) lines.push(`  skipped: ${t.name}: ${t.skip?.detail ?? t.why}${t.skip?.flag ? ` (${t.skip.flag})` : ''}`);
  if (!detailed) return lines;
  lines.push('  tools:');
  for (const t of plan.tools) {
    lines.push(`    ${t.role.padEnd(12)} ${t.name}: ${t.why}`);
    if (t.args && t.role !== 'skipped' && t.role !== 'not-selected' && t.role !== 'teardown') lines.push(`                 args ${JSON.stringify(t.args)}${t.minimal ? `  (if refused: ${JSON.stringify(t.minimal)})` : ''}`);
  }
  lines.push('  pairs (writer → reader):');
  for (const p of plan.pairs) {
    const lint = p.state ? `  [lint: ${p.state.name}${p.state.write ? ` written at ${p.state.write.file}:${p.state.write.line}` : ''}]` : '';
    lines.push(`    ${p.writer} → ${p.reader}${lint}`);
  }
  const cross = plan.tools.filter((t) => t.cross).map((t) => t.name);
  lines.push(
    `  order, per session and pass: ${plan.order.join(', ')}${cross.length > 0 ? `; then, given another session's key: ${cross.join(', ')}` : ''}${plan.last.length > 0 ? `; last: ${plan.last.join(', ')}` : ''}`,
  );
  lines.push(
    '  each round: a concurrent pass (each tool called by every session at the same moment) and a sequential pass (one session after another, the order of the sessions reversed every other round)',
  );
  lines.push(`  teardown: ${plan.teardown ? `${plan.teardown.tool} ${JSON.stringify(plan.teardown.args)}, for every session, twice` : plan.teardownNote}`);
  lines.push(`  cleanup: ${plan.cleanup.length === 0 ? 'no tool removes what the calls create' : plan.cleanup.map((c) => `${c.tool} ${JSON.stringify(c.args)}`).join('; ')}`);
  for (const n of plan.lint) lines.push(`  lint: ${n.rule.replace(/^mcp-stateless\//, '')} in ${n.tool ?? 'handler code'} at ${n.file}:${n.line}: ${n.exercised ? 'exercised' : `not exercised (${n.why ?? ''})`}`);
  for (const w of plan.warnings) lines.push(`  warning: ${w}`);
  return lines;
}

/** The human summary. With `verdictLine: false` the final line is left out (the CLI writes an error's reason to stderr instead). */
export function formatText(result: ProbeResult, { verdictLine = true, plan = false }: { verdictLine?: boolean; plan?: boolean } = {}): string {
  const lines: string[] = [];
  lines.push(`${result.probe.name} ${result.probe.version}: ${describeTarget(result)}`);
  if (result.design) lines.push(`  sessions: ${result.design}`);
  if (result.plan) lines.push(...formatPlan(result.plan, { detailed: plan }));
  if (plan) {
    if (verdictLine) lines.push(`PLAN (exit ${result.exitCode}): ${result.reason}`);
    return `${lines.join('\n')}\n`;
  }
  if (result.settings.workspaceRoot) lines.push(`  workspace root: ${result.settings.workspaceRoot}`);
  if (result.passes.length > 0) {
    lines.push(`  markers: mcpsl-${result.runId}-<session>-<step>-<slot>; each session's files under ${result.sessions[0]?.dir.replace(/[^/]+$/, '') ?? ''}`);
    for (const p of result.passes) lines.push(passLine(p, result.settings.rounds, result));
  }
  if (result.transport) lines.push(`  transport: ${result.transport.status}: ${result.transport.summary}`);
  const td = result.teardown;
  if (td.status !== 'not-run') lines.push(`  teardown: ${td.status}${td.tool ? ` (${td.tool})` : ''}: ${td.detail}`);
  const cl = result.cleanup;
  if (cl.status !== 'not-run') lines.push(`  cleanup: ${cl.status}: ${cl.detail}`);
  for (const n of cl.notes) lines.push(`  cleanup: ${n}`);
  if (result.pairs.length > 0) {
    const count = (s: string) => result.pairs.filter((p) => p.status === s).length;
    lines.push(`  pairs: ${result.pairs.length} planned: ${count('leak')} leak, ${count('isolated')} isolated, ${count('not-exercised')} not exercised`);
  }
  for (const f of result.protocolFaults.slice(0, 5)) lines.push(`  protocol fault: ${f.connection}: ${f.detail}`);
  for (const n of result.lint) {
    if (!n.exercised && result.verdict !== 'inconclusive') lines.push(`  lint: ${n.rule.replace(/^mcp-stateless\//, '')} in ${n.tool ?? 'handler code'} at ${n.file}:${n.line}: not exercised by the probe (${n.why ?? 'not called'})`);
  }
  for (const w of result.warnings) lines.push(`  warning: ${w}`);
  const shown = result.evidence.slice(0, 10);
  if (shown.length > 0) lines.push('  evidence:');
  for (const e of shown) lines.push(`  - ${e.message}${e.occurrences > 1 ? ` (${e.occurrences} times)` : ''}`);
  if (result.evidence.length > shown.length) lines.push(`  - … ${result.evidence.length - shown.length} more`);
  for (const why of result.inconclusive) lines.push(`  - ${why}`);
  if (result.toConclude.length > 0) lines.push(`  to make it conclusive: ${result.toConclude.join('; ')}`);
  if (verdictLine) lines.push(`${VERDICT_WORD[result.verdict]} (exit ${result.exitCode}, ${formatMs(result.timings.totalMs)}): ${oneLine(result.reason, 500)}`);
  return `${lines.join('\n')}\n`;
}

export function formatJson(result: ProbeResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}
