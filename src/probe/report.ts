import { formatMs, oneLine } from './text.js';
import type { ProbeResult, RoundResult } from './types.js';

const VERDICT_WORD = { pass: 'PASS', leak: 'LEAK', fail: 'FAIL', error: 'ERROR' } as const;

function describeTarget(result: ProbeResult): string {
  const t = result.target;
  if (t.transport === 'stdio') return `stdio, server: ${(t.command ?? []).join(' ')}`;
  return `Streamable HTTP, ${t.url ?? ''}${t.command ? ` (server started by the probe: ${t.command.join(' ')})` : ''}`;
}

function roundLine(round: RoundResult, total: number): string {
  const parts = round.calls.map((call) => {
    if (call.foreignMarkers.length > 0) return `${call.session} LEAK (saw ${call.foreignMarkers.join(', ')})`;
    switch (call.outcome) {
      case 'timeout':
        return `${call.session} TIMEOUT`;
      case 'transport-error':
      case 'aborted':
        return `${call.session} NO ANSWER`;
      default:
        if (!call.ownMarker) return `${call.session} NO OWN MARKER${call.outcome === 'result' ? '' : ` (${call.outcome})`}`;
        return `${call.session} ok ${formatMs(call.durationMs)}`;
    }
  });
  for (const ws of round.workspaces ?? []) {
    if (ws.foreignMarkers.length > 0) parts.push(`${ws.session}'s workspace LEAK (${ws.foreignMarkers[0]?.marker} in ${ws.foreignMarkers[0]?.file})`);
    else if (!ws.exists) parts.push(`${ws.session}'s workspace MISSING`);
    else if (!ws.ownMarker) parts.push(`${ws.session}'s workspace lacks its own file`);
  }
  const status = round.passed ? 'ok  ' : 'FAIL';
  return `  round ${String(round.round).padStart(String(total).length)}/${total}  ${status} ${formatMs(round.durationMs).padStart(8)}   ${parts.join(' | ')}`;
}

/** The human summary, round by round. With `verdictLine: false` the final verdict line is left out
 * (the CLI writes an error's one-line reason to stderr instead). */
export function formatText(result: ProbeResult, { verdictLine = true }: { verdictLine?: boolean } = {}): string {
  const lines: string[] = [];
  lines.push(`${result.probe.name} ${result.probe.version}: ${describeTarget(result)}`);
  if (result.design) lines.push(`  sessions: ${result.design}`);
  if (result.tool) {
    lines.push(`  tool: ${result.tool.name} (${result.tool.selectedBy === 'option' ? '--tool' : 'the only tool with a command argument'})`);
  }
  if (result.argsTemplate) lines.push(`  args: ${JSON.stringify(result.argsTemplate)}`);
  if (result.settings.workspaceRoot) lines.push(`  workspace root: ${result.settings.workspaceRoot}`);
  if (result.rounds.length > 0) {
    lines.push(`  markers: <session>-<round>-${result.runId}, workspaces: probe-${result.runId}-<session>`);
    for (const round of result.rounds) lines.push(roundLine(round, result.settings.rounds));
  }
  const td = result.teardown;
  if (td.status !== 'not-run') lines.push(`  teardown: ${td.status}${td.tool ? ` (${td.tool})` : ''}: ${td.detail}`);
  for (const warning of result.warnings) lines.push(`  warning: ${warning}`);
  const shown = result.failures.slice(0, 10);
  for (const f of shown) lines.push(`  - ${f.message}`);
  if (result.failures.length > shown.length) lines.push(`  - … ${result.failures.length - shown.length} more`);
  if (verdictLine) lines.push(`${VERDICT_WORD[result.verdict]} (exit ${result.exitCode}, ${formatMs(result.timings.totalMs)}): ${oneLine(result.reason, 400)}`);
  return `${lines.join('\n')}\n`;
}

export function formatJson(result: ProbeResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}
