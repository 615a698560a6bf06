// The judge, with no server: call records in, verdict and evidence out.
import { beforeAll, describe, expect, it } from 'vitest';
import { judge, type JudgeInput } from '../../src/probe/judge.js';
import { marker } from '../../src/probe/markers.js';
import { planProbe, type ProbePlan, type ToolInfo } from '../../src/probe/planner.js';
import type { CallRecord, Pass, TransportCheck } from '../../src/probe/types.js';
import { loadSummary, probeValidator } from './summaries.js';

const RUN = '0a1b2c3d';
const k = (session: string, step: number) => marker(RUN, session, step, 'k0');
const p = (session: string, step: number, slot = 'p1') => marker(RUN, session, step, slot);

const tools: ToolInfo[] = [
  { name: 'add_note', inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } }, required: ['title', 'body'] } },
  { name: 'list_notes', inputSchema: { type: 'object', properties: {} } },
  { name: 'write_file', inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } }, annotations: { destructiveHint: true } },
];
let plan: ProbePlan;
let writersOnly: ProbePlan;
beforeAll(async () => {
  const validator = await probeValidator();
  plan = planProbe({ tools: tools.slice(0, 2), options: {}, validator });
  writersOnly = planProbe({ tools, options: {}, validator });
});

let seq = 0;
/** A call record: `sent` markers in the request, `got` markers in the reply. */
function call(session: string, tool: string, round: number, pass: Pass, sent: string[], got: string[], more: Partial<CallRecord> = {}): CallRecord {
  seq++;
  return {
    seq,
    session,
    connection: 'server process 1',
    tool,
    mode: 'own',
    round,
    pass,
    step: pass === 'concurrent' ? 2 * round - 1 : 2 * round,
    variant: 'full',
    arguments: {},
    sent,
    outcome: 'result',
    startMs: seq,
    durationMs: 1,
    excerpt: got.join(' '),
    markers: got,
    ...more,
  };
}
const input = (calls: CallRecord[], more: Partial<JudgeInput> = {}): JudgeInput => ({ runId: RUN, sessions: ['alpha', 'bravo'], plan, calls, rounds: 1, ...more });

/** A clean round: each session writes its note and lists its own notes back. */
function cleanRound(round: number): CallRecord[] {
  const c = 2 * round - 1;
  const s = 2 * round;
  return [
    call('alpha', 'add_note', round, 'concurrent', [k('alpha', c), p('alpha', c)], [k('alpha', c)]),
    call('bravo', 'add_note', round, 'concurrent', [k('bravo', c), p('bravo', c)], [k('bravo', c)]),
    call('alpha', 'list_notes', round, 'concurrent', [], [k('alpha', c), p('alpha', c)]),
    call('bravo', 'list_notes', round, 'concurrent', [], [k('bravo', c), p('bravo', c)]),
    call('alpha', 'add_note', round, 'sequential', [k('alpha', s), p('alpha', s)], [k('alpha', s)]),
    call('alpha', 'list_notes', round, 'sequential', [], [p('alpha', s)]),
    call('bravo', 'add_note', round, 'sequential', [k('bravo', s), p('bravo', s)], [k('bravo', s)]),
    call('bravo', 'list_notes', round, 'sequential', [], [p('bravo', s)]),
  ];
}

describe('verdicts', () => {
  it('isolated: every pair exercised in both orders, each session got its own marker back, nobody saw another\'s', () => {
    const j = judge(input(cleanRound(1)));
    expect(j.verdict).toBe('isolated');
    expect(j.exitCode).toBe(0);
    expect(j.reason).toBe('isolated: 2 pairs checked across 2 sessions in 1 round, concurrently and sequentially; every session got its own marker back and none saw another\'s');
    expect(j.pairs).toEqual([
      { writer: 'add_note', reader: 'list_notes', origin: 'schema', status: 'isolated', orders: ['alpha→bravo', 'bravo→alpha'], concurrent: true, sequential: true, carries: true },
      { writer: 'add_note', reader: 'add_note', origin: 'schema', status: 'isolated', orders: ['alpha→bravo', 'bravo→alpha'], concurrent: true, sequential: true, carries: false },
    ]);
    expect(j.ownMarkers).toEqual({ alpha: { returned: true, via: 'add_note' }, bravo: { returned: true, via: 'add_note' } });
    expect(j.evidence).toEqual([]);
  });

  it('leak: a reader returns another session\'s marker; the evidence says who saw whose, through which tools, which round', () => {
    const calls = [
      ...cleanRound(1).slice(0, 4),
      call('alpha', 'add_note', 1, 'sequential', [k('alpha', 2), p('alpha', 2)], [k('alpha', 2)]),
      call('bravo', 'list_notes', 1, 'sequential', [], [p('bravo', 1), p('alpha', 2)]),
    ];
    const j = judge(input(calls));
    expect(j.verdict).toBe('leak');
    expect(j.exitCode).toBe(1);
    expect(j.evidence).toHaveLength(1);
    expect(j.evidence[0]).toMatchObject({
      kind: 'cross-session',
      observer: 'bravo',
      owner: 'alpha',
      marker: p('alpha', 2),
      via: { tool: 'list_notes', mode: 'own', round: 1, pass: 'sequential' },
      writtenBy: { tool: 'add_note', session: 'alpha', round: 1, pass: 'sequential' },
      occurrences: 1,
    });
    expect(j.reason).toBe(
      "leak in 1 of 1 round: list_notes returned session alpha's marker to session bravo (round 1, sequential): alpha wrote it with add_note (round 1, sequential)",
    );
    expect(j.pairs.find((x) => x.reader === 'list_notes')?.status).toBe('leak');
    expect(j.pairs.find((x) => x.reader === 'add_note')?.status).toBe('isolated');
  });

  it('an echo of what the caller sent is not evidence, even when it is another session\'s key (a cross read)', () => {
    const calls = [
      ...cleanRound(1),
      // bravo asks for alpha's key and the server answers "no note named <alpha's key>": nothing of alpha's came back
      call('bravo', 'list_notes', 1, 'sequential', [k('alpha', 2)], [k('alpha', 2)], { mode: 'cross', target: 'alpha' }),
    ];
    expect(judge(input(calls)).verdict).toBe('isolated');
  });

  it('a marker of an earlier run, or of the probe before markers had one shape, is a leak too', () => {
    const earlier = marker('ffffffff', 'alpha', 3, 'p2');
    const j = judge(input([...cleanRound(1), call('bravo', 'list_notes', 1, 'sequential', [], [earlier, 'charlie-2-8599037d'])]));
    expect(j.verdict).toBe('leak');
    expect(j.evidence.map((e) => `${e.kind} ${e.owner} ${e.marker}`)).toEqual(['earlier-run run ffffffff mcpsl-ffffffff-alpha-3-p2', 'earlier-run run 8599037d charlie-2-8599037d']);
    expect(j.evidence[0]?.message).toBe(
      'list_notes returned a marker of an earlier probe run (mcpsl-ffffffff-alpha-3-p2) to session bravo (round 1, sequential): data outlived the run that wrote it',
    );
  });

  it('inconclusive: nothing carried a marker back (a server that returns nobody\'s marker never passes)', () => {
    const calls = [
      call('alpha', 'add_note', 1, 'concurrent', [k('alpha', 1), p('alpha', 1)], []),
      call('bravo', 'add_note', 1, 'concurrent', [k('bravo', 1), p('bravo', 1)], []),
      call('alpha', 'list_notes', 1, 'concurrent', [], []),
      call('bravo', 'list_notes', 1, 'concurrent', [], []),
    ];
    const j = judge(input(calls));
    expect(j.verdict).toBe('inconclusive');
    expect(j.exitCode).toBe(3);
    expect(j.reason).toBe("inconclusive: nothing carried a marker back: no reply contained anything the probe sent, so no session could have seen another's");
    expect(j.toConclude).toEqual(['--tool NAME --args JSON naming a tool that returns what it is given or keeps']);
  });

  it('inconclusive: a writer whose data never comes back to anybody (it may keep it for everybody)', () => {
    const calls = [
      call('alpha', 'add_note', 1, 'concurrent', [k('alpha', 1), p('alpha', 1)], []),
      call('bravo', 'add_note', 1, 'concurrent', [k('bravo', 1), p('bravo', 1)], []),
      // an unrelated echo gives each session its own marker back
      call('alpha', 'list_notes', 1, 'concurrent', [k('alpha', 1)], [k('alpha', 1)]),
      call('bravo', 'list_notes', 1, 'concurrent', [k('bravo', 1)], [k('bravo', 1)]),
    ];
    const j = judge(input(calls));
    expect(j.verdict).toBe('inconclusive');
    expect(j.inconclusive).toContain(
      'what add_note takes never came back to the session that sent it, in its reply or through a reader: whether it is kept, and for whom, cannot be seen',
    );
  });

  it('inconclusive: a writer skipped for safety, with the switch that exercises it', () => {
    const j = judge(input(cleanRound(1), { plan: writersOnly }));
    expect(j.verdict).toBe('inconclusive');
    expect(j.reason).toBe('inconclusive: not exercised: write_file (annotated destructiveHint)');
    expect(j.toConclude).toEqual(['--allow-destructive']);
  });

  it('a leak wins over everything that stayed inconclusive, and over a run that could not finish', () => {
    const calls = [call('alpha', 'add_note', 1, 'concurrent', [k('alpha', 1)], [k('alpha', 1)]), call('bravo', 'list_notes', 1, 'concurrent', [], [k('alpha', 1)])];
    const j = judge(input(calls, { plan: writersOnly, fatal: 'round 1: alpha got no answer' }));
    expect(j.verdict).toBe('leak');
    expect(j.reason).toMatch(/; also round 1: alpha got no answer$/);
    expect(j.inconclusive).toEqual([]);
  });

  it('a call that got no answer while the others did is named, and keeps the verdict from isolated', () => {
    const j = judge(input(cleanRound(1), { unanswered: ['round 1: alpha got no answer to tools/call list_notes within 1.50 s (--call-timeout) while bravo was answered'] }));
    expect(j.verdict).toBe('inconclusive');
    expect(j.inconclusive).toEqual(['round 1: alpha got no answer to tools/call list_notes within 1.50 s (--call-timeout) while bravo was answered; not called again by that session']);
    expect(j.toConclude).toEqual(['a longer --call-timeout, if the tool is only slow']);
  });

  it('error when the run could not finish and nothing leaked', () => {
    const j = judge(input([], { fatal: 'server process 1 exited with code 3 before answering initialize' }));
    expect(j).toMatchObject({ verdict: 'error', exitCode: 2, reason: 'server process 1 exited with code 3 before answering initialize' });
  });
});

describe('the wire, the disk and the teardown', () => {
  it('a reply that crossed between HTTP sessions is named as a transport leak, first', () => {
    const transport: TransportCheck = {
      call: 'tools/call add_note',
      bursts: 1,
      status: 'crossed',
      summary: "bravo's request id 900001 was answered with another session's reply",
      exchanges: [
        { session: 'alpha', id: 900001, outcome: 'no-reply', markers: [], excerpt: '' },
        { session: 'bravo', id: 900001, outcome: 'reply', markers: [k('alpha', 7)], excerpt: '' },
      ],
    };
    const calls = [...cleanRound(1), call('bravo', 'list_notes', 1, 'sequential', [], [p('alpha', 2)])];
    const j = judge(input(calls, { transport }));
    expect(j.evidence.map((e) => e.kind)).toEqual(['transport', 'cross-session']);
    expect(j.reason).toMatch(
      /^leak in 1 of 1 round: replies cross between HTTP sessions: bravo's request id 900001 \(tools\/call add_note\) was answered with session alpha's reply \(mcpsl-0a1b2c3d-alpha-7-k0\), sent with the same id at the same moment: one MCP server or transport serves every connection \(the lint's no-shared-server-connection\) \(\+1 more\)$/,
    );
  });

  it('a reply holding the session\'s own marker and another\'s is the tool leaking, not the transport', () => {
    const transport: TransportCheck = {
      call: 'tools/call add_note',
      bursts: 1,
      status: 'clean',
      summary: '',
      exchanges: [{ session: 'bravo', id: 900001, outcome: 'reply', markers: [k('bravo', 7), k('alpha', 7)], excerpt: '' }],
    };
    expect(judge(input(cleanRound(1), { transport })).evidence).toEqual([]);
  });

  it('protocol faults keep the verdict from isolated', () => {
    const j = judge(input(cleanRound(1), { faults: [{ connection: 'server process 1', kind: 'duplicate-reply', id: 4, detail: 'a second reply to request id 4: {}' }] }));
    expect(j.verdict).toBe('inconclusive');
    expect(j.reason).toBe('inconclusive: protocol fault on server process 1: a second reply to request id 4: {}');
  });

  it('another session\'s marker in a workspace directory is a leak; a missing workspace is inconclusive', () => {
    const leak = judge(input(cleanRound(1), { workspaces: [{ session: 'alpha', round: 1, dir: '/runs/probe-x-alpha', exists: true, files: 2, ownMarker: true, foreignMarkers: [{ marker: k('bravo', 1), file: 'notes/b.txt' }] }] }));
    expect(leak.evidence[0]?.message).toBe(`session alpha's workspace /runs/probe-x-alpha holds session bravo's marker ${k('bravo', 1)} in notes/b.txt (after round 1)`);
    const missing = judge(input(cleanRound(1), { workspaces: [{ session: 'alpha', round: 1, dir: '/runs/probe-x-alpha', exists: false, files: 0, ownMarker: false, foreignMarkers: [] }] }));
    expect(missing.verdict).toBe('inconclusive');
    expect(missing.reason).toMatch(/workspace directory \/runs\/probe-x-alpha does not exist after round 1/);
  });

  it('a teardown whose second call fails keeps the verdict from isolated, and says how to judge isolation alone', () => {
    const j = judge(input(cleanRound(1), { teardown: { tool: 'teardown_workspace', status: 'failed', detail: 'the second teardown (must be harmless) of w returned an error', calls: [] } }));
    expect(j.verdict).toBe('inconclusive');
    expect(j.toConclude).toEqual(['fix the teardown tool (a second call must be harmless), or pass --no-teardown to judge isolation alone']);
  });
});

describe('with the lint\'s summary', () => {
  it('names the source line in the evidence, and never stays silent about a hazard it could not exercise', async () => {
    const validator = await probeValidator();
    const summary = loadSummary('server-memory.json');
    const memoryTools: ToolInfo[] = [
      { name: 'create_entities', inputSchema: { type: 'object', properties: { entities: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } }, required: ['entities'] } },
      { name: 'read_graph', inputSchema: { type: 'object', properties: {} } },
    ];
    const lintPlan = planProbe({ tools: memoryTools, summary, options: {}, validator });
    const calls = [
      call('alpha', 'create_entities', 1, 'sequential', [k('alpha', 2)], [k('alpha', 2)]),
      call('bravo', 'read_graph', 1, 'sequential', [], [k('alpha', 2)]),
    ];
    const leak = judge(input(calls, { plan: lintPlan }));
    expect(leak.reason).toBe(
      "leak in 1 of 1 round: create_entities writes this.memoryFilePath at index.js:109; read_graph returned session alpha's marker to session bravo (round 1, sequential): alpha wrote it with create_entities (round 1, sequential)",
    );
    // the same server, no leak seen: the subscribe handlers the lint flags cannot be exercised, so no `isolated`
    const quiet = judge(input([call('alpha', 'create_entities', 1, 'sequential', [k('alpha', 2)], [k('alpha', 2)]), call('bravo', 'create_entities', 1, 'sequential', [k('bravo', 2)], [k('bravo', 2)]), call('bravo', 'read_graph', 1, 'sequential', [], [])], { plan: lintPlan }));
    expect(quiet.verdict).toBe('inconclusive');
    expect(quiet.inconclusive).toEqual([
      'the lint reports no-module-accumulator in resources/subscribe at index.js:486, which the probe did not exercise: request handler resources/subscribe: the probe calls tools only',
      'the lint reports no-module-accumulator in resources/unsubscribe at index.js:490, which the probe did not exercise: request handler resources/unsubscribe: the probe calls tools only',
    ]);
  });
});
