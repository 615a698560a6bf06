// `--auto --source DIR`: the lint's model of the server, got by running the lint as a child process (the probe never
// loads ESLint or TypeScript itself) and reading `summary` from `mcp-stateless report --format json`.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isServerSummary, type ServerSummary } from '../summary.js';
import { ProbeError } from './errors.js';
import { oneLine } from './text.js';
import type { SchemaValidator } from './validate.js';

/** The root of this package (where package.json, bin/ and docs/ are). */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'eslint-plugin-mcp-stateless') return dir;
    } catch {
      // keep walking up
    }
    dir = path.dirname(dir);
  }
  throw new ProbeError('cannot find the eslint-plugin-mcp-stateless package root (for the lint and the summary schema)');
}

let schemaCache: unknown;
function summarySchema(): unknown {
  schemaCache ??= JSON.parse(readFileSync(path.join(packageRoot(), 'docs', 'server-summary.schema.json'), 'utf8')) as unknown;
  return schemaCache;
}

/** Check a parsed summary against docs/server-summary.schema.json; throws ProbeError naming what is wrong. */
export function checkSummary(value: unknown, validator: SchemaValidator, from: string): ServerSummary {
  if (!isServerSummary(value)) {
    const schema = value && typeof value === 'object' ? (value as { schema?: unknown }).schema : undefined;
    throw new ProbeError(`${from} is not a server summary this probe reads (schema ${JSON.stringify(schema ?? null)}, expected "mcp-stateless/server-summary@1")`);
  }
  const problem = validator.check(summarySchema(), value);
  if (problem) throw new ProbeError(`${from} does not match docs/server-summary.schema.json: ${problem}`);
  return value;
}

/** Read a summary from a file: a summary itself, or a `report --format json` output that carries one. */
export function readSummaryFile(file: string, validator: SchemaValidator): ServerSummary {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ProbeError(`cannot read the summary ${file}: ${error instanceof Error ? oneLine(error.message, 160) : String(error)}`);
  }
  const inner = parsed && typeof parsed === 'object' && 'summary' in parsed ? (parsed as { summary: unknown }).summary : parsed;
  return checkSummary(inner, validator, file);
}

export interface LintRun {
  summary: ServerSummary;
  ms: number;
  /** The command line that was run, for the record. */
  command: string[];
}

/**
 * Run `node <this package>/bin/mcp-stateless.js report --format json [--type-checked] DIR` and return its summary.
 * Exit 0 (clean) and 1 (hazards) both carry a report; anything else is an error with the lint's last stderr line.
 */
export async function lintSource(
  dir: string,
  options: { typeChecked?: boolean; signal?: AbortSignal; timeoutMs?: number; validator: SchemaValidator },
): Promise<LintRun> {
  const source = path.resolve(dir);
  if (!existsSync(source) || !statSync(source).isDirectory()) throw new ProbeError(`--source: not a directory: ${dir}`);
  const bin = path.join(packageRoot(), 'bin', 'mcp-stateless.js');
  const command = [process.execPath, bin, 'report', '--format', 'json', ...(options.typeChecked ? ['--type-checked'] : []), source];
  const started = performance.now();
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command[0] as string, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], cwd: source });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-8192)));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    const onAbort = () => child.kill('SIGKILL');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (exit) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ code: exit, stdout: Buffer.concat(out).toString('utf8'), stderr: err });
    });
  });
  if (options.signal?.aborted) throw new ProbeError('the run was interrupted');
  if (code !== 0 && code !== 1) {
    const last = stderr.split(/\r?\n/).filter((l) => l.trim()).at(-1) ?? `exit code ${code}`;
    throw new ProbeError(`the lint of ${dir} failed (exit ${code}): ${oneLine(last, 200)}`);
  }
  let report: unknown;
  try {
    report = JSON.parse(stdout);
  } catch {
    throw new ProbeError(`the lint of ${dir} did not print a JSON report (${oneLine(stdout, 80) || 'nothing on stdout'})`);
  }
  if (!report || typeof report !== 'object' || !('summary' in report)) {
    throw new ProbeError(`the lint's report has no "summary" (this version of mcp-stateless report does not emit the server summary yet); plan without --source, or pass --summary FILE`);
  }
  const summary = checkSummary((report as { summary: unknown }).summary, options.validator, 'the lint\'s summary');
  return { summary, ms: Math.round(performance.now() - started), command };
}
