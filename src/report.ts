// `mcp-stateless report`: a short Markdown and JSON summary to attach when asking for the widening to `shared`.
//
// One ESLint run does everything. The lint config is the lint command's own (zero config or --config), with one extra
// rule on top that reads, for each file, the same ServerModel and definition records the plugin's rules use: the
// model caches are keyed by the file's AST, so nothing is discovered twice and nothing is re-implemented here.
import type { ESLint, Linter, Rule } from 'eslint';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { rules as pluginRules } from '../rules/index.js';
import { describeValue, getDefinitionRecords, type DefinitionRecord, type Field, type SourceNode } from './analysis/definitions.js';
import { getModuleModel } from './analysis/door.js';
import { summarizeModule, type ModuleSummary } from './analysis/summarize.js';
import { joinSummary } from './server-summary.js';
import type { ServerSummary } from './summary.js';
import { PREFIX } from './configs.js';
import { createESLint, inputProblem, LINT_OPTIONS, UsageError } from './session.js';
import plugin from './index.js';

const USAGE = `Usage: mcp-stateless report [options] [paths...]

Lints like \`mcp-stateless\` and writes a short summary to attach when asking for the widening to 'shared': files
linted, handlers found, hazards by rule, definition records checked, and a verdict. A clean report means no static
hazards were found; the interleaved probe (mcp-stateless probe, docs/probe.md) is still required before 'shared'.

Options:
  --strict            use the strict config (recommended plus the definition rules)
  --type-checked      whole-server analysis across files (needs a tsconfig.json including the sources)
  --config <file>     use this flat config file instead (the project's own config)
  --format <name>     what to print: markdown (default) or json
  --out <dir>         write <dir>/mcp-stateless-report.md and <dir>/mcp-stateless-report.json instead of printing
  -h, --help          show this help

Exit codes: 0 no hazards, 1 hazards found, 2 usage error, unparsable files or crash.`;

export const REPORT_BASENAME = 'mcp-stateless-report';

// ---------------------------------------------------------------------------------------------------------------
// The JSON shape
// ---------------------------------------------------------------------------------------------------------------

/** A place in a file: path relative to the working directory (forward slashes), 1-based line and column. */
export interface Location {
  file: string;
  line: number;
  column: number;
}

export interface HandlerEntry extends Location {
  /** tool, resource, prompt, request, notification, task, completion. */
  kind: string;
  /** Tool/resource/prompt name or request method; null when not known without running the code. */
  name: string | null;
  /** How it was registered: `registerTool`, `setRequestHandler(tools/call)`, `tool object`… */
  via: string;
  /** Where it was registered (the registration call, or the tool object/class). */
  registeredAt: Location;
  /** Names a dispatcher routes to (`switch (request.params.name)`), in source order; empty for direct handlers. */
  routes: string[];
}

export interface Finding extends Location {
  ruleId: string;
  severity: 'error' | 'warning';
  message: string;
}

/** A definition field as read statically. `text` is how the report prints it. */
export interface FieldEntry {
  /** absent: not set; maybe: an unresolvable spread or computed key may set it; known/nonPrimitive/unresolved: set. */
  state: 'absent' | 'maybe' | 'known' | 'nonPrimitive' | 'unresolved';
  /** The value when known and representable in JSON (undefined is omitted, bigint is a string). */
  value?: string | number | boolean | null;
  text: string;
}

export interface DefinitionEntry extends Location {
  /** record: registry record (`concurrencyModel`); definition: SDK definition (`concurrency.model`). */
  form: 'record' | 'definition';
  name: string | null;
  model: FieldEntry;
  maxConcurrent: FieldEntry;
  shareScope: FieldEntry;
  /** The interleaved-session flag that gates `shared`. */
  statelessnessProbePassed: FieldEntry;
  /** `probe.passed`: the availability gates (does not gate `shared`). */
  probePassed: FieldEntry;
  /** pass: the definition rules ran and report nothing here; fail: they report; not-checked: they were off. */
  verdict: 'pass' | 'fail' | 'not-checked';
  findings: Finding[];
}

export type VerdictStatus = 'hazards' | 'no-static-hazards' | 'incomplete';

export interface Report {
  tool: 'mcp-stateless report';
  version: string;
  /** `recommended` or `strict` (zero config), or `file:<path>` for --config, or `custom` (programmatic). */
  config: string;
  files: string[];
  /** Files ESLint could not parse: nothing in them was checked. */
  unparsed: Finding[];
  handlers: HandlerEntry[];
  hazards: { total: number; byRule: Record<string, number>; findings: Finding[] };
  /** The statelessness-hazard rules and definition rules that were on for at least one file. */
  rulesRun: string[];
  definitions: DefinitionEntry[];
  verdict: { status: VerdictStatus; text: string };
  exitCode: 0 | 1 | 2;
  /** The server summary (docs/server-summary.schema.json): what the probe plans from. */
  summary: ServerSummary;
}

export interface ReportOptions {
  strict?: boolean;
  /** Whole-server analysis (recommended-type-checked / strict-type-checked). */
  typeChecked?: boolean;
  /** A flat config file (the project's own); replaces the zero config. */
  config?: string;
  /** Programmatic use: this flat config instead of the zero config (ignored when `config` is given). */
  overrideConfig?: Linter.Config[];
}

// ---------------------------------------------------------------------------------------------------------------
// Collecting the model through one ESLint run
// ---------------------------------------------------------------------------------------------------------------

interface Pos {
  line: number;
  column: number;
}
interface CollectedRegistration {
  kind: string;
  name: string | null;
  via: string;
  handler: Pos;
  site: Pos;
  routes: string[];
}
interface CollectedDefinition {
  record: DefinitionRecord;
  start: Pos;
  end: Pos;
}
interface Collected {
  registrations: CollectedRegistration[];
  definitions: CollectedDefinition[];
  summary: ModuleSummary | null;
  scopeArguments: string[];
  wholeServer: boolean;
}

type Loc = { start: Pos; end: Pos };

/** ESTree columns are 0-based, @eslint/json's (Momoa) 1-based; messages are 1-based. */
function position(node: SourceNode, end: boolean, columnStart: 0 | 1): Pos {
  const loc = (node as unknown as { loc: Loc }).loc;
  const p = end ? loc.end : loc.start;
  return { line: p.line, column: p.column + 1 - columnStart };
}

/** A rule that reports nothing: it reads the model of each file the lint config covers and hands it back. */
function collectorPlugin(into: Map<string, Collected>): ESLint.Plugin {
  const collect: Rule.RuleModule = {
    meta: { type: 'problem', schema: [], docs: { description: 'Collects handlers and definition records for the report' } },
    create(context) {
      const sourceCode = context.sourceCode as never;
      const definitions = (columnStart: 0 | 1): CollectedDefinition[] =>
        getDefinitionRecords(sourceCode).map((record) => ({
          record,
          start: position(record.node, false, columnStart),
          end: position(record.node, true, columnStart),
        }));
      return {
        'Program:exit'() {
          const model = getModuleModel(context as never);
          const routes = new Map<unknown, { name: string; at: number }[]>();
          for (const [fn, ref] of model.reached) {
            if (ref.routedName === null) continue;
            const list = routes.get(ref.registration) ?? [];
            const seen = list.find((r) => r.name === ref.routedName);
            if (seen) seen.at = Math.min(seen.at, fn.range[0]);
            else list.push({ name: ref.routedName, at: fn.range[0] });
            routes.set(ref.registration, list);
          }
          into.set(context.filename, {
            // Handlers defined here and registered by another file (whole-server analysis) are listed where they are defined.
            registrations: [...model.registrations, ...model.crossRoots.filter(([, r]) => r.inputParam !== null).map(([, r]) => r)].map((r) => ({
              kind: r.kind,
              name: r.name,
              via: r.via,
              handler: position(r.handler, false, 0),
              site: position(r.site, false, 0),
              routes: (routes.get(r) ?? []).sort((a, b) => a.at - b.at).map((x) => x.name),
            })),
            definitions: definitions(0),
            summary: summarizeModule(model, relative(context.filename), context.sourceCode.text),
            scopeArguments: model.settings.scopeArguments,
            wholeServer: model.settings.crossFile,
          });
        },
        'Document:exit'() {
          into.set(context.filename, { registrations: [], definitions: definitions(1), summary: null, scopeArguments: [], wholeServer: false });
        },
      };
    },
  };
  return { meta: { name: 'mcp-stateless-report' }, rules: { collect } };
}

const COLLECTOR = 'mcp-stateless-report';

/** The rules that check definition records: those that lint JSON too (as configs.json is derived). */
const DEFINITION_RULES = new Set(
  Object.entries(pluginRules)
    .filter(([, rule]) => (rule.meta as { languages?: readonly string[] }).languages?.includes('json/json'))
    .map(([name]) => `${PREFIX}/${name}`),
);

function fieldEntry(field: Field): FieldEntry {
  if (field.state === 'absent') return { state: 'absent', text: '—' };
  if (field.state === 'maybe') return { state: 'maybe', text: '(may be set by a spread)' };
  const v = field.value;
  if (v.kind === 'unknown') return { state: 'unresolved', text: '(unresolved)' };
  if (v.kind === 'nonPrimitive') return { state: 'nonPrimitive', text: describeValue(v) };
  const text = describeValue(v);
  if (v.value === undefined) return { state: 'known', text };
  return { state: 'known', value: typeof v.value === 'bigint' ? String(v.value) : v.value, text };
}

const before = (a: Pos, b: Pos) => a.line < b.line || (a.line === b.line && a.column < b.column);
const within = (p: Pos, d: CollectedDefinition) => !before(p, d.start) && before(p, d.end);

function relative(file: string): string {
  return path.relative(process.cwd(), file).split(path.sep).join('/') || '.';
}

const byPlace = (a: Location, b: Location) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column);

// ---------------------------------------------------------------------------------------------------------------
// buildReport
// ---------------------------------------------------------------------------------------------------------------

/**
 * Lints `paths` as `mcp-stateless` would (zero config, `--strict`, or the project's config file) and returns the
 * report. Throws UsageError for a missing path or config file; ESLint's own errors (bad settings, no files) propagate.
 */
export async function buildReport(paths: string[], options: ReportOptions = {}): Promise<Report> {
  const problem = inputProblem(paths, options.config);
  if (problem) throw new UsageError(problem);
  const collected = new Map<string, Collected>();
  const collector: Linter.Config = {
    name: `${COLLECTOR}/collect`,
    plugins: { [COLLECTOR]: collectorPlugin(collected) },
    rules: { [`${COLLECTOR}/collect`]: 'error' },
  };
  const eslint = createESLint(paths, { strict: options.strict, typeChecked: options.typeChecked, config: options.config, overrideConfig: options.config ? undefined : options.overrideConfig }, [collector]);
  const results = await eslint.lintFiles(paths.map((p) => path.resolve(p)));
  results.sort((a, b) => (a.filePath < b.filePath ? -1 : a.filePath > b.filePath ? 1 : 0));

  const files: string[] = [];
  const unparsed: Finding[] = [];
  const handlers: HandlerEntry[] = [];
  const findings: Finding[] = [];
  const definitions: DefinitionEntry[] = [];
  const rulesRun = new Set<string>();

  for (const result of results) {
    const file = relative(result.filePath);
    files.push(file);
    const config = (await eslint.calculateConfigForFile(result.filePath)) as { rules?: Record<string, unknown> } | undefined;
    const on = new Set(
      Object.entries(config?.rules ?? {})
        .filter(([id, setting]) => id.startsWith(`${PREFIX}/`) && severityOf(setting) > 0)
        .map(([id]) => id),
    );
    for (const id of on) rulesRun.add(id);
    const own: Finding[] = [];
    for (const m of result.messages) {
      const finding: Finding = { ruleId: m.ruleId ?? '', severity: m.severity === 2 ? 'error' : 'warning', message: m.message, file, line: m.line ?? 0, column: m.column ?? 0 };
      if (m.fatal) unparsed.push({ ...finding, ruleId: 'parse' });
      else if (m.ruleId?.startsWith(`${PREFIX}/`)) own.push(finding);
    }
    findings.push(...own);

    const model = collected.get(result.filePath);
    if (!model) continue;
    for (const r of model.registrations) {
      handlers.push({
        kind: r.kind,
        name: r.name,
        via: r.via,
        file,
        ...r.handler,
        registeredAt: { file, ...r.site },
        routes: r.routes,
      });
    }
    const definitionRulesOn = [...on].some((id) => DEFINITION_RULES.has(id));
    for (const d of model.definitions) {
      // A finding belongs to the innermost record around it (reports are always placed inside their record).
      const mine = own.filter(
        (f) => DEFINITION_RULES.has(f.ruleId) && within(f, d) && !model.definitions.some((o) => o !== d && within(f, o) && !before(o.start, d.start) && before(o.end, d.end)),
      );
      const r = d.record;
      definitions.push({
        form: r.form,
        name: r.name,
        file,
        ...d.start,
        model: fieldEntry(r.model),
        maxConcurrent: fieldEntry(r.maxConcurrent),
        shareScope: fieldEntry(r.shareScope),
        statelessnessProbePassed: fieldEntry(r.statelessnessProbePassed),
        probePassed: fieldEntry(r.probePassed),
        verdict: !definitionRulesOn ? 'not-checked' : mine.length ? 'fail' : 'pass',
        findings: mine,
      });
    }
  }

  findings.sort(byPlace);
  const byRule: Record<string, number> = {};
  for (const f of [...findings].sort((a, b) => (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0))) byRule[f.ruleId] = (byRule[f.ruleId] ?? 0) + 1;

  const configName = options.config ? `file:${relative(path.resolve(options.config))}` : options.overrideConfig ? 'custom' : `${options.strict ? 'strict' : 'recommended'}${options.typeChecked ? '-type-checked' : ''}`;
  const report: Omit<Report, 'verdict' | 'exitCode' | 'summary'> = {
    tool: 'mcp-stateless report',
    version: plugin.meta.version,
    config: configName,
    files,
    unparsed,
    handlers,
    hazards: { total: findings.length, byRule, findings },
    rulesRun: [...rulesRun].sort(),
    definitions,
  };
  const verdict = verdictOf(report);
  const parts = [...collected.values()];
  const summary = joinSummary({
    version: plugin.meta.version,
    root: process.cwd(),
    mode: parts.some((c) => c.wholeServer) ? 'whole-server' : 'one-file',
    scopeArguments: parts.find((c) => c.summary)?.scopeArguments ?? [],
    modules: parts.flatMap((c) => (c.summary ? [c.summary] : [])),
    findings,
  });
  return { ...report, verdict, exitCode: verdict.status === 'hazards' ? 1 : verdict.status === 'incomplete' ? (findings.length ? 1 : 2) : 0, summary };
}

function severityOf(setting: unknown): number {
  const s = Array.isArray(setting) ? setting[0] : setting;
  return s === 'error' || s === 2 ? 2 : s === 'warn' || s === 1 ? 1 : 0;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const PROBE = 'the interleaved probe is still required before registering as shared (`mcp-stateless probe`, see docs/probe.md)';

/** The one verdict line. Never claims the server is stateless: static analysis cannot show that. */
function verdictOf(r: Omit<Report, 'verdict' | 'exitCode' | 'summary'>): Report['verdict'] {
  const n = r.hazards.total;
  const files = plural(r.files.length, 'file');
  const unparsed = new Set(r.unparsed.map((u) => u.file)).size;
  if (n > 0) {
    const rules = Object.keys(r.hazards.byRule).length;
    const where = new Set(r.hazards.findings.map((f) => f.file)).size;
    return {
      status: 'hazards',
      text:
        `${plural(n, 'static hazard')} found by ${plural(rules, 'rule')} in ${where === r.files.length ? '' : `${where} of `}${files}` +
        (unparsed ? ` (and ${plural(unparsed, 'file')} could not be parsed)` : '') +
        ': not ready to register as shared. Fix each one or keep the server sidecar; once none are found, ' +
        `${PROBE}.`,
    };
  }
  if (unparsed) {
    return {
      status: 'incomplete',
      text: `${plural(unparsed, 'file')} of ${files} could not be parsed, so nothing in them was checked: no verdict until they parse.`,
    };
  }
  const caveats: string[] = [];
  if (r.handlers.length === 0) caveats.push('no handlers were found, so the statelessness rules had no handler code to check');
  if (![...DEFINITION_RULES].some((id) => r.rulesRun.includes(id))) caveats.push('the definition rules did not run (use --strict)');
  return {
    status: 'no-static-hazards',
    text:
      `no static hazards were found in ${files} (${plural(r.handlers.length, 'handler')}, ${plural(r.definitions.length, 'definition')} checked` +
      (caveats.length ? `; note: ${caveats.join('; ')}` : '') +
      `). Static analysis cannot prove statelessness: ${PROBE}.`,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------------------------------------------

const cell = (s: string) => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string) => `\`${s.replace(/`/g, "'")}\``;
const at = (l: Location, column = false) => `${l.file}:${l.line}${column ? `:${l.column}` : ''}`;

export function renderMarkdown(r: Report): string {
  const out: string[] = [];
  out.push('# mcp-stateless registration report', '');
  out.push(`**Verdict:** ${r.verdict.text}`, '');
  out.push(
    `- Config: ${code(r.config)} (rules run: ${r.rulesRun.length ? r.rulesRun.map((id) => id.slice(PREFIX.length + 1)).join(', ') : 'none'})`,
    `- Files linted: ${r.files.length}`,
    `- Handlers found: ${r.handlers.length}`,
    `- Hazards: ${r.hazards.total}`,
    `- Definitions checked: ${r.definitions.length}`,
    `- Version: eslint-plugin-mcp-stateless ${r.version}`,
    '',
  );

  out.push('## Files linted', '');
  for (const f of r.files) out.push(`- ${code(f)}`);
  if (r.files.length === 0) out.push('None.');
  for (const u of r.unparsed) out.push(`- could not parse ${code(at(u, true))}: ${u.message}`);
  out.push('');

  out.push('## Handlers found', '');
  if (r.handlers.length === 0) {
    out.push('None. If the server registers handlers through its own wrappers, list them in `settings["mcp-stateless"].registrationFunctions`.');
  } else {
    out.push('| kind | name | location | registered via |', '| --- | --- | --- | --- |');
    for (const h of r.handlers) {
      const name = h.name === null ? '—' : code(h.name);
      const routes = h.routes.length ? ` (routes ${h.routes.map(code).join(', ')})` : '';
      out.push(`| ${h.kind} | ${cell(name + routes)} | ${code(at(h))} | ${cell(code(h.via))} |`);
    }
  }
  out.push('');

  out.push('## Hazards by rule', '');
  if (r.hazards.total === 0) out.push('None found.');
  for (const [ruleId, count] of Object.entries(r.hazards.byRule)) {
    out.push(`### ${ruleId} (${count})`, '');
    for (const f of r.hazards.findings.filter((x) => x.ruleId === ruleId)) {
      out.push(`- ${code(at(f, true))}${f.severity === 'warning' ? ' (warning)' : ''}: ${f.message.replace(/\n/g, ' ')}`);
    }
    out.push('');
  }
  if (r.hazards.total === 0) out.push('');

  out.push('## Definitions checked', '');
  if (r.definitions.length === 0) {
    out.push('No definition or registry records found in the linted files.');
  } else {
    out.push(
      '| location | form | name | model | maxConcurrent | shareScope | statelessnessProbePassed | verdict |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const d of r.definitions) {
      const verdict = d.verdict === 'fail' ? `fail (${d.findings.map((f) => f.ruleId.slice(PREFIX.length + 1)).join(', ')})` : d.verdict;
      out.push(
        `| ${code(at(d))} | ${d.form} | ${d.name === null ? '—' : code(d.name)} | ${cell(d.model.text)} | ${cell(d.maxConcurrent.text)} | ${cell(d.shareScope.text)} | ${cell(d.statelessnessProbePassed.text)} | ${verdict} |`,
      );
    }
  }
  out.push('');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// The command
// ---------------------------------------------------------------------------------------------------------------

export async function reportMain(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  let values: { strict?: boolean; 'type-checked'?: boolean; config?: string; format?: string; out?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { ...LINT_OPTIONS, out: { type: 'string' } },
    }));
  } catch (e) {
    err.write(`mcp-stateless report: ${(e as Error).message.split('\n')[0]}\n${USAGE.split('\n')[0]}\n`);
    return 2;
  }
  if (values.help) {
    out.write(`${USAGE}\n`);
    return 0;
  }
  const format = values.format ?? 'markdown';
  if (format !== 'markdown' && format !== 'md' && format !== 'json') {
    err.write(`mcp-stateless report: unknown format '${format}' (use markdown or json)\n`);
    return 2;
  }
  if (values.out !== undefined && (values.out === '' || statSync(values.out, { throwIfNoEntry: false })?.isDirectory() === false)) {
    err.write(`mcp-stateless report: --out must name a directory: ${values.out}\n`);
    return 2;
  }
  let report: Report;
  try {
    report = await buildReport(positionals.length ? positionals : ['.'], { strict: values.strict, typeChecked: values['type-checked'], config: values.config });
  } catch (e) {
    err.write(`mcp-stateless report: ${(e as Error).message.split('\n')[0]}\n`);
    return 2;
  }
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const markdown = renderMarkdown(report);
  if (values.out !== undefined) {
    const md = path.join(values.out, `${REPORT_BASENAME}.md`);
    const js = path.join(values.out, `${REPORT_BASENAME}.json`);
    try {
      mkdirSync(values.out, { recursive: true });
      writeFileSync(md, markdown);
      writeFileSync(js, json);
    } catch (e) {
      err.write(`mcp-stateless report: cannot write the report: ${(e as Error).message.split('\n')[0]}\n`);
      return 2;
    }
    out.write(`Verdict: ${report.verdict.text}\nmcp-stateless report: wrote ${md} and ${js}\n`);
  } else {
    out.write(format === 'json' ? json : markdown);
  }
  return report.exitCode;
}
