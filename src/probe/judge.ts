// The judge: what the calls sent and got back (and what the disk and the wire showed) in, a verdict and its evidence
// out. Pure: no I/O.
//
// A reply that holds a probe marker which is not the caller's own — another session's of this run, or any marker of
// an earlier run — and which the caller did not send itself, is evidence of a leak. `isolated` needs every planned
// pair exercised and every session to have got its own marker back somewhere; anything less is `inconclusive`, with
// what to pass to make it conclusive. A wrong `isolated` is worse than none.

import { findMarkers, type ParsedMarker } from './markers.js';
import type { LintNote, PlannedPair, ProbePlan } from './planner.js';
import type {
  CallRecord,
  Evidence,
  ExitCode,
  Judgement,
  PairResult,
  ProtocolFault,
  TeardownResult,
  TransportCheck,
  Verdict,
  WorkspaceCheck,
} from './types.js';

export interface JudgeInput {
  runId: string;
  sessions: readonly string[];
  plan: ProbePlan | null;
  calls: readonly CallRecord[];
  workspaces?: readonly WorkspaceCheck[];
  faults?: readonly ProtocolFault[];
  transport?: TransportCheck;
  teardown?: TeardownResult;
  /** The problem that stopped the run, if one did. */
  fatal?: string;
  /** Calls that got no answer while others did (the session did not call that tool again). */
  unanswered?: readonly string[];
  rounds: number;
}

const JUDGED = new Set(['own', 'cross']);

function where(call: Pick<CallRecord, 'round' | 'pass'>): string {
  return call.round > 0 ? `round ${call.round}${call.pass ? `, ${call.pass}` : ''}` : 'after the rounds';
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

function list(items: readonly string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function locate(file: string, line: number): string {
  return `${file}:${line}`;
}

/** The lint's words for a pair: "create_entities writes this.memoryFilePath at index.js:109". */
function lintCitation(plan: ProbePlan | null, writer: string, reader: string): string | undefined {
  if (!plan) return undefined;
  const pair = plan.pairs.find((p) => p.writer === writer && p.reader === reader && p.origin === 'lint') ??
    plan.pairs.find((p) => p.writer === writer && p.origin === 'lint');
  if (pair?.state) {
    const w = pair.state.write;
    if (w) return `${writer} writes ${pair.state.name} at ${locate(w.file, w.line)}`;
  }
  const hazard = plan.tools.find((t) => t.name === writer)?.lint[0];
  if (hazard) return `${writer}: ${hazard.rule.replace(/^mcp-stateless\//, '')} at ${locate(hazard.file, hazard.line)}`;
  return undefined;
}

/** Every marker a session sent, with the first call that sent it (the ledger). */
function ledger(calls: readonly CallRecord[]): Map<string, CallRecord[]> {
  const byMarker = new Map<string, CallRecord[]>();
  for (const call of calls) {
    if (call.outcome === 'not-sent' || call.outcome === 'invalid-args') continue;
    for (const m of call.sent) {
      const list = byMarker.get(m) ?? [];
      list.push(call);
      byMarker.set(m, list);
    }
  }
  return byMarker;
}

function ownerOf(m: ParsedMarker, runId: string): string {
  return m.legacy || m.run !== runId ? `run ${m.run}` : m.session;
}

export function judge(input: JudgeInput): Judgement {
  const { runId, sessions, plan, calls } = input;
  const sent = ledger(calls);
  const evidence: Evidence[] = [];
  const evidenceKey = new Map<string, Evidence>();
  const ownMarkers: Judgement['ownMarkers'] = Object.fromEntries(sessions.map((s) => [s, { returned: false }]));
  const addEvidence = (key: string, make: () => Evidence) => {
    const existing = evidenceKey.get(key);
    if (existing) {
      existing.occurrences++;
      return;
    }
    const e = make();
    evidenceKey.set(key, e);
    evidence.push(e);
  };

  // ---- replies -----------------------------------------------------------------------------------------------------
  interface Sighting {
    call: CallRecord;
    marker: string;
    owner: string;
    count: number;
    writers: Map<string, CallRecord>;
  }
  const sightings = new Map<string, Sighting>();
  const leakRounds = new Set<number>();
  const order: string[] = [];
  for (const call of calls) {
    if (!JUDGED.has(call.mode)) continue;
    const sentHere = new Set(call.sent);
    // a marker written in this very pass first: the sighting is then reported as what it is (no race needed)
    const thisPass = (m: ParsedMarker) => !m.legacy && m.run === runId && m.step === call.step;
    const found = findMarkers(call.markers.join('\n')).sort((a, b) => Number(thisPass(b)) - Number(thisPass(a)));
    for (const m of found) {
      if (sentHere.has(m.text)) {
        if (m.session === call.session && m.run === runId && !m.legacy) markOwn(call);
        continue; // an echo of the request proves nothing about anyone else
      }
      const owner = ownerOf(m, runId);
      if (owner === call.session) {
        markOwn(call);
        continue;
      }
      if (call.round > 0) leakRounds.add(call.round);
      if (owner.startsWith('run ')) {
        addEvidence(`earlier|${m.run}|${call.session}|${call.tool}`, () => ({
          kind: 'earlier-run',
          observer: call.session,
          owner,
          marker: m.text,
          via: { tool: call.tool, mode: call.mode, round: call.round, pass: call.pass, connection: call.connection, seq: call.seq },
          occurrences: 1,
          message: `${call.tool} returned a marker of an earlier probe run (${m.text}) to session ${call.session} (${where(call)}): data outlived the run that wrote it`,
        }));
        continue;
      }
      const writers = (sent.get(m.text) ?? []).filter((c) => c.session === owner && c.mode === 'own' && (!plan || plan.writers.includes(c.tool)));
      const key = `session|${owner}|${call.session}|${call.tool}|${call.mode}|${call.pass ?? ''}`;
      const group = sightings.get(key);
      if (group) {
        group.count++;
        for (const w of writers) if (!group.writers.has(w.tool)) group.writers.set(w.tool, w);
      } else {
        sightings.set(key, { call, marker: m.text, owner, count: 1, writers: new Map(writers.map((w) => [w.tool, w])) });
        order.push(key);
      }
    }
  }
  for (const key of order) {
    const { call, marker: text, owner, count, writers } = sightings.get(key) as Sighting;
    // the writer the lint has a line for, else the first that sent the marker
    const all = [...writers.values()];
    const cited = all.map((w) => ({ w, lint: lintCitation(plan, w.tool, call.tool) })).find((x) => x.lint !== undefined);
    const writer = cited?.w ?? all[0];
    const lint = cited?.lint;
    const others = all.filter((w) => w !== writer).map((w) => w.tool);
    const how = writer
      ? writer.tool === call.tool
        ? `${owner} sent it to ${writer.tool} too (${where(writer)})`
        : `${owner} wrote it with ${writer.tool} (${where(writer)})${others.length > 0 ? `; also written by ${list(others)}` : ''}`
      : `${owner} sent it`;
    evidence.push({
      kind: 'cross-session',
      observer: call.session,
      owner,
      marker: text,
      via: { tool: call.tool, mode: call.mode, round: call.round, pass: call.pass, connection: call.connection, seq: call.seq },
      ...(writer ? { writtenBy: { tool: writer.tool, session: writer.session, round: writer.round, pass: writer.pass, connection: writer.connection } } : {}),
      writers: all.map((w) => w.tool),
      ...(lint ? { lint } : {}),
      occurrences: count,
      ...(call.context ? { context: call.context } : {}),
      message: `${lint ? `${lint}; ` : ''}${call.tool} returned session ${owner}'s marker to session ${call.session} (${where(call)}${call.mode === 'cross' ? `, asked for ${call.target ?? owner}'s key` : ''}): ${how}`,
    });
  }
  function markOwn(call: CallRecord): void {
    const own = ownMarkers[call.session];
    if (own && !own.returned) {
      own.returned = true;
      own.via = call.tool;
    }
  }

  // ---- the disk ----------------------------------------------------------------------------------------------------
  const inconclusive: string[] = [];
  const toConclude: string[] = [];
  for (const ws of input.workspaces ?? []) {
    for (const f of ws.foreignMarkers) {
      const m = findMarkers(f.marker)[0];
      const owner = m ? ownerOf(m, runId) : 'another session';
      addEvidence(`workspace|${ws.session}|${owner}`, () => ({
        kind: 'workspace',
        observer: ws.session,
        owner,
        marker: f.marker,
        via: { tool: '(disk)', mode: 'workspace', round: ws.round, connection: '(disk)' },
        occurrences: 1,
        message: `session ${ws.session}'s workspace ${ws.dir} holds ${owner.startsWith('run ') ? `a marker of an earlier probe run` : `session ${owner}'s marker`} ${f.marker} in ${f.file} (after round ${ws.round})`,
      }));
    }
  }
  const wsMissing = (input.workspaces ?? []).filter((ws) => !ws.exists || !ws.ownMarker);
  if (wsMissing.length > 0) {
    const first = wsMissing[0] as WorkspaceCheck;
    inconclusive.push(
      !first.exists
        ? `workspace directory ${first.dir} does not exist after round ${first.round}: the workspace argument did not decide where ${first.session}'s files went`
        : `no file in ${first.dir} holds ${first.session}'s marker after round ${first.round}`,
    );
    toConclude.push('pass --workspace-root only for a server that keeps each workspace at DIR/<workspace>');
  }

  // ---- the wire ----------------------------------------------------------------------------------------------------
  const t = input.transport;
  if (t && t.status === 'crossed') {
    for (const x of t.exchanges) {
      const found = findMarkers(x.markers.join('\n'));
      if (found.some((m) => ownerOf(m, runId) === x.session)) continue; // its own reply (perhaps holding a tool's leak)
      for (const m of found) {
        const owner = ownerOf(m, runId);
        if (owner === x.session) continue;
        addEvidence(`transport|${owner}|${x.session}`, () => ({
          kind: 'transport',
          observer: x.session,
          owner,
          marker: m.text,
          via: { tool: t.call, mode: 'transport', round: 0, connection: `HTTP session (${x.session})` },
          occurrences: 1,
          message: `replies cross between HTTP sessions: ${x.session}'s request id ${x.id} (${t.call}) was answered with session ${owner}'s reply (${m.text}), sent with the same id at the same moment: one MCP server or transport serves every connection (the lint's no-shared-server-connection)`,
        }));
      }
    }
  }
  const faults = input.faults ?? [];

  // ---- pairs -------------------------------------------------------------------------------------------------------
  const pairs: PairResult[] = [];
  const judged = calls.filter((c) => JUDGED.has(c.mode));
  const answered = judged.filter((c) => c.outcome === 'result');
  for (const pair of plan?.pairs ?? []) pairs.push(judgePair(pair, answered, evidence, sessions));

  // ---- tools the plan could not exercise ---------------------------------------------------------------------------
  const lint: LintNote[] = (plan?.lint ?? []).map((n) => ({ ...n }));
  if (plan) {
    const skippedWriters = plan.tools.filter((tool) => tool.role === 'skipped' && tool.skip && (tool.skip.because === 'arguments' || !tool.deleter));
    const byFlag = new Map<string, string[]>();
    for (const tool of skippedWriters) {
      const flag = tool.skip?.flag ?? '';
      const names = byFlag.get(flag) ?? [];
      names.push(`${tool.name} (${tool.skip?.detail ?? tool.why})`);
      byFlag.set(flag, names);
    }
    for (const [flag, names] of byFlag) {
      inconclusive.push(`not exercised: ${list(names)}`);
      if (flag) toConclude.push(flag.startsWith('--tool') ? `${flag} for ${names.map((n) => n.split(' ')[0]).join(', ')}` : flag);
    }
    for (const name of plan.writers) {
      const mine = judged.filter((c) => c.tool === name);
      if (mine.length > 0 && !mine.some((c) => c.outcome === 'result')) {
        const first = mine[0] as CallRecord;
        inconclusive.push(`could not exercise ${name}: every call failed (${first.outcome}${first.error ? `: ${first.error}` : first.excerpt ? `: "${first.excerpt.slice(0, 120)}"` : ''})`);
        toConclude.push(`--tool ${name} --args JSON with arguments it accepts`);
      }
    }
    for (const note of lint) {
      if (note.exercised && note.tool) {
        const mine = judged.filter((c) => c.tool === note.tool);
        if (mine.length > 0 && !mine.some((c) => c.outcome === 'result')) {
          note.exercised = false;
          note.why = 'every call failed';
        }
      }
      if (!note.exercised) {
        inconclusive.push(`the lint reports ${note.rule.replace(/^mcp-stateless\//, '')} in ${note.tool ?? 'handler code'} at ${locate(note.file, note.line)}, which the probe did not exercise: ${note.why ?? 'not called'}`);
      }
    }
  }

  // ---- own markers -------------------------------------------------------------------------------------------------
  const without = sessions.filter((s) => !ownMarkers[s]?.returned);
  if (judged.length > 0 && without.length === sessions.length) {
    inconclusive.unshift('nothing carried a marker back: no reply contained anything the probe sent, so no session could have seen another\'s');
    toConclude.push('--tool NAME --args JSON naming a tool that returns what it is given or keeps');
  } else if (without.length > 0) {
    inconclusive.push(`${list(without)} never got ${without.length === 1 ? 'its' : 'their'} own marker back`);
  }
  // Every writer's data must come back to the session that sent it, in its own reply or through a reader: a writer
  // whose data is never seen again by anybody may keep it for everybody, and the probe could not tell.
  if (plan) {
    const unseen: string[] = [];
    for (const name of plan.writers) {
      const mine = judged.filter((c) => c.tool === name && c.mode === 'own' && c.outcome === 'result');
      if (mine.length === 0) continue;
      const back = mine.some((w) =>
        judged.some((r) => r.session === w.session && r.seq >= w.seq && r.outcome === 'result' && r.markers.some((m) => w.sent.includes(m) && (r.seq === w.seq || !r.sent.includes(m)))),
      );
      if (!back) unseen.push(name);
    }
    if (unseen.length > 0 && !(judged.length > 0 && without.length === sessions.length)) {
      inconclusive.push(`what ${list(unseen)} ${unseen.length === 1 ? 'takes' : 'take'} never came back to the session that sent it, in its reply or through a reader: whether it is kept, and for whom, cannot be seen`);
      toConclude.push(`a reader that shows what ${list(unseen)} ${unseen.length === 1 ? 'keeps' : 'keep'} (--tool NAME --args JSON), or --source DIR to see what the lint finds`);
    }
  }
  for (const pair of pairs) {
    if (pair.status === 'not-exercised' && pair.origin === 'lint') inconclusive.push(`the pair the lint names, ${pair.writer} → ${pair.reader}, was not exercised: ${pair.why ?? ''}`);
  }
  for (const u of input.unanswered ?? []) {
    inconclusive.push(`${u}; not called again by that session`);
    toConclude.push('a longer --call-timeout, if the tool is only slow');
  }
  if (faults.length > 0) {
    const f = faults[0] as ProtocolFault;
    inconclusive.push(`protocol fault on ${f.connection}: ${f.detail}${faults.length > 1 ? ` (+${faults.length - 1} more)` : ''}`);
  }
  if (t && t.status === 'lost-replies') inconclusive.push(`transport check: ${t.summary}`);
  const td = input.teardown;
  if (td && td.status === 'failed') {
    inconclusive.push(`teardown: ${td.detail}`);
    toConclude.push('fix the teardown tool (a second call must be harmless), or pass --no-teardown to judge isolation alone');
  }

  // ---- verdict -----------------------------------------------------------------------------------------------------
  let verdict: Verdict;
  let exitCode: ExitCode;
  let reason: string;
  const sortedEvidence = [...evidence].sort((a, b) => rank(a) - rank(b));
  if (sortedEvidence.length > 0) {
    verdict = 'leak';
    exitCode = 1;
    const first = sortedEvidence[0] as Evidence;
    for (const e of sortedEvidence) if (e.via.round > 0) leakRounds.add(e.via.round);
    const rounds = leakRounds.size;
    const more = sortedEvidence.length > 1 ? ` (+${sortedEvidence.length - 1} more)` : '';
    reason = `leak${rounds > 0 ? ` in ${rounds} of ${plural(input.rounds, 'round')}` : ''}: ${first.message}${more}${input.fatal ? `; also ${input.fatal}` : ''}`;
  } else if (input.fatal) {
    verdict = 'error';
    exitCode = 2;
    reason = input.fatal;
  } else if (inconclusive.length > 0 || !plan) {
    verdict = 'inconclusive';
    exitCode = 3;
    reason = `inconclusive: ${inconclusive[0] ?? 'nothing was probed'}${inconclusive.length > 1 ? ` (+${inconclusive.length - 1} more)` : ''}`;
  } else {
    verdict = 'isolated';
    exitCode = 0;
    const checked = pairs.filter((p) => p.status === 'isolated').length;
    const notes: string[] = [];
    if (td?.status === 'passed') notes.push(`teardown ${td.tool} idempotent`);
    if (input.workspaces && input.workspaces.length > 0) notes.push('every workspace held only its own files');
    if (t?.status === 'clean') notes.push('replies never crossed between HTTP sessions');
    reason = `isolated: ${plural(checked, 'pair')} checked across ${plural(sessions.length, 'session')} in ${plural(input.rounds, 'round')}, concurrently and sequentially; every session got its own marker back and none saw another's${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`;
  }
  return {
    verdict,
    exitCode,
    reason,
    evidence: sortedEvidence,
    pairs,
    ownMarkers,
    inconclusive: verdict === 'inconclusive' ? inconclusive : verdict === 'leak' ? [] : inconclusive,
    toConclude: verdict === 'inconclusive' ? [...new Set(toConclude)] : [],
    lint,
  };
}

/** Transport evidence first (it explains everything else), then the evidence the lint predicted, then a leak that
 * needed no race (written and read in the same sequential pass), then the rest; in the order seen. */
function rank(e: Evidence): number {
  const kind = e.kind === 'transport' ? 0 : e.kind === 'earlier-run' ? 2 : 1;
  const noRace = e.via.pass === 'sequential' && e.writtenBy?.pass === 'sequential' && e.writtenBy.round === e.via.round;
  return kind * 1e12 + (e.lint ? 0 : 1e11) + (noRace ? 0 : e.kind === 'workspace' ? 2e10 : 1e10) + (e.via.seq ?? 0);
}

function judgePair(pair: PlannedPair, answered: readonly CallRecord[], evidence: readonly Evidence[], sessions: readonly string[]): PairResult {
  const writes = answered.filter((c) => c.tool === pair.writer && c.mode === 'own');
  const reads = answered.filter((c) => c.tool === pair.reader);
  const orders = new Set<string>();
  let concurrent = false;
  let sequential = false;
  let carries = false;
  for (const r of reads) {
    for (const w of writes) {
      if (w.seq >= r.seq) continue;
      if (w.session === r.session) {
        if (r.markers.some((m) => w.sent.includes(m) && !r.sent.includes(m))) carries = true;
        continue;
      }
      orders.add(`${w.session}→${r.session}`);
      if (r.pass === 'concurrent') concurrent = true;
      if (r.pass === 'sequential') sequential = true;
    }
  }
  const leak = evidence.some((e) => e.kind === 'cross-session' && (e.writers ?? []).includes(pair.writer) && e.via.tool === pair.reader);
  const result: PairResult = {
    writer: pair.writer,
    reader: pair.reader,
    origin: pair.origin,
    status: leak ? 'leak' : orders.size > 0 ? 'isolated' : 'not-exercised',
    orders: [...orders].sort(),
    concurrent,
    sequential,
    carries,
  };
  if (result.status === 'not-exercised') {
    result.why =
      writes.length === 0
        ? `${pair.writer} never answered without an error`
        : reads.length === 0
          ? `${pair.reader} never answered without an error`
          : `${pair.reader} was never called by another session after ${pair.writer}`;
  } else if (!leak && sessions.length > 1) {
    // both directions between every two sessions should have been seen; a missing one is noted, not fatal
    const expected = sessions.length * (sessions.length - 1);
    if (orders.size < expected) result.why = `${orders.size} of ${expected} session orders exercised`;
  }
  return result;
}
