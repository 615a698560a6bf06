// Test helpers: a real validator (ajv, as the probe loads it), and hand-written server summaries checked against
// docs/server-summary.schema.json with ajv before any test uses them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import type { ServerSummary } from '../../src/summary.js';
import { loadProbeDependencies } from '../../src/probe/deps.js';
import { makeValidator, type SchemaValidator } from '../../src/probe/validate.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const SUMMARIES = path.resolve(here, '../fixtures/probe-servers/summaries');
const schema = JSON.parse(readFileSync(path.resolve(here, '../../docs/server-summary.schema.json'), 'utf8')) as object;
const validateSummary = new Ajv({ strict: false, allErrors: true }).compile(schema);

/** A summary fixture, after checking it against the schema (a fixture that does not validate fails the test). */
export function loadSummary(name: string): ServerSummary {
  const value = JSON.parse(readFileSync(path.join(SUMMARIES, name), 'utf8')) as unknown;
  assertSummary(value);
  return value;
}

export function assertSummary(value: unknown): asserts value is ServerSummary {
  if (!validateSummary(value)) {
    throw new Error(`summary fixture does not match docs/server-summary.schema.json: ${JSON.stringify(validateSummary.errors)}`);
  }
}

let validator: SchemaValidator | undefined;
/** The probe's own validator (ajv + ajv-formats, loaded as the CLI loads them). */
export async function probeValidator(): Promise<SchemaValidator> {
  validator ??= makeValidator(await loadProbeDependencies());
  return validator;
}
