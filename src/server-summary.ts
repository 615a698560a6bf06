// Joins the per-module parts (src/analysis/summarize.ts) of every linted file into one server summary, and attributes
// the lint's findings to the tools whose code they are in.
import type { ModuleSummary, StatePart, ToolPart } from './analysis/summarize.js';
import { SUMMARY_SCHEMA_ID, type ServerSummary, type StateEntry, type SummaryFinding, type ToolEntry } from './summary.js';

export interface LintFinding {
  ruleId: string;
  message: string;
  file: string;
  line: number;
  column: number;
}

export interface SummaryInput {
  version: string;
  root: string;
  mode: ServerSummary['mode'];
  scopeArguments: string[];
  modules: ModuleSummary[];
  findings: LintFinding[];
}

const byPlace = (a: { file: string; line: number; column: number }, b: { file: string; line: number; column: number }) =>
  a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column;

export function joinSummary(input: SummaryInput): ServerSummary {
  const tools = new Map<string, ToolEntry>();
  const merge = (p: ToolPart) => {
    const t = tools.get(p.key);
    if (!t) {
      tools.set(p.key, {
        name: p.name,
        kind: p.kind,
        via: p.via,
        ...p.at,
        registeredAt: p.registeredAt,
        crossFile: p.crossFile,
        scopeArguments: [...p.scopeArguments],
        state: [...p.state],
        files: [...p.files],
        processes: [...p.processes],
        rules: [],
      });
      return;
    }
    // Where the tool is registered (not only reached) names it best.
    if (t.crossFile && !p.crossFile) Object.assign(t, { via: p.via, ...p.at, registeredAt: p.registeredAt, crossFile: false });
    for (const s of p.scopeArguments) if (!t.scopeArguments.includes(s)) t.scopeArguments.push(s);
    t.state.push(...p.state);
    t.files.push(...p.files);
    t.processes.push(...p.processes);
  };
  const stateParts = new Map<string, StatePart>();
  for (const m of input.modules) {
    for (const p of m.tools) merge(p);
    for (const s of m.state) {
      const known = stateParts.get(s.id);
      // An imported binding is best placed where it is declared, when that module was linted too.
      if (!known || (known.scope === 'import' && s.scope !== 'import')) stateParts.set(s.id, s);
    }
  }

  // Findings: the tool whose code holds each one (innermost span of the file).
  const findings: SummaryFinding[] = [];
  const spansByFile = new Map<string, ModuleSummary['spans']>();
  for (const m of input.modules) for (const s of m.spans) spansByFile.set(s.start.file, [...(spansByFile.get(s.start.file) ?? []), s]);
  const keyToTool = new Map<string, ToolEntry>();
  for (const [k, t] of tools) keyToTool.set(k, t);
  for (const f of input.findings) {
    let best: ModuleSummary['spans'][number] | null = null;
    for (const s of spansByFile.get(f.file) ?? []) {
      const afterStart = f.line > s.start.line || (f.line === s.start.line && f.column >= s.start.column);
      const beforeEnd = f.line < s.end.line || (f.line === s.end.line && f.column <= s.end.column);
      if (!afterStart || !beforeEnd) continue;
      if (!best || s.start.line > best.start.line || (s.start.line === best.start.line && s.start.column > best.start.column)) best = s;
    }
    const owners = (best?.tools ?? []).flatMap((k) => keyToTool.get(k) ?? []);
    for (const tool of owners) if (!tool.rules.includes(f.ruleId)) tool.rules.push(f.ruleId);
    findings.push({ ruleId: f.ruleId, message: f.message, file: f.file, line: f.line, column: f.column, tool: owners[0]?.name ?? null });
  }

  const state = new Map<string, StateEntry>();
  const entry = (id: string): StateEntry | null => {
    let e = state.get(id);
    if (!e) {
      const p = stateParts.get(id);
      if (!p) return null;
      e = { id, name: p.name, scope: p.scope, file: p.file, line: p.line, column: p.column, writers: [], readers: [] };
      state.set(id, e);
    }
    return e;
  };
  const add = (list: (string | null)[], name: string | null) => {
    if (!list.includes(name)) list.push(name);
  };
  for (const t of tools.values()) {
    for (const s of t.state) {
      const e = entry(s.state);
      if (e) add(s.access === 'write' ? e.writers : e.readers, t.name);
    }
    for (const f of t.files) {
      if (!f.state) continue;
      const e = entry(f.state);
      if (e) add(f.effect === 'read' || f.effect === 'meta' ? e.readers : e.writers, t.name);
    }
    t.state.sort(byPlace);
    t.files.sort(byPlace);
    t.processes.sort(byPlace);
    t.rules.sort();
  }

  const toolList = [...tools.values()].sort(byPlace);
  const teardownName = input.modules.flatMap((m) => m.teardownTools)[0];
  const teardownTool = teardownName ? toolList.find((t) => t.name === teardownName) : undefined;
  return {
    schema: SUMMARY_SCHEMA_ID,
    version: input.version,
    root: input.root,
    mode: input.mode,
    scopeArguments: input.scopeArguments,
    teardown: teardownName ? { tool: teardownName, file: teardownTool?.file ?? '', line: teardownTool?.line ?? 1 } : null,
    tools: toolList,
    state: [...state.values()].sort(byPlace),
    findings: findings.sort(byPlace),
  };
}
