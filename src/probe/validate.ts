// Validation of synthesised arguments (and of a lint summary) with a JSON Schema validator: ajv, loaded by deps.ts.

import { cjsDefault, type LoadedModules } from './deps.js';

/** Checks a value against a JSON Schema: null when valid, else one line saying what is wrong. */
export interface SchemaValidator {
  check(schema: unknown, value: unknown): string | null;
}

interface AjvError {
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}
interface AjvValidate {
  (value: unknown): boolean;
  errors?: AjvError[] | null;
}
interface AjvInstance {
  compile(schema: unknown): AjvValidate;
}
type AjvClass = new (options: Record<string, unknown>) => AjvInstance;

function describe(errors: AjvError[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'invalid';
  return errors
    .slice(0, 3)
    .map((e) => {
      const extra = e.params && 'allowedValues' in e.params ? ` (${JSON.stringify(e.params.allowedValues)})` : e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : '';
      return `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${extra}`;
    })
    .join('; ');
}

/** A validator over ajv (draft-07 by default; 2019-09 and 2020-12 by `$schema`), with the standard formats. */
export function makeValidator(modules: LoadedModules): SchemaValidator {
  const addFormats = cjsDefault<(ajv: AjvInstance) => void>(modules.ajvFormats);
  const make = (mod: unknown): AjvInstance => {
    const Ajv = cjsDefault<AjvClass>(mod);
    // strict: false: real tool schemas carry vendor keywords and zod's output; an unknown keyword is not an error
    const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
    addFormats(ajv);
    return ajv;
  };
  const instances = new Map<string, AjvInstance>();
  const instance = (dialect: string): AjvInstance => {
    let ajv = instances.get(dialect);
    if (!ajv) {
      ajv = make(dialect === '2020' ? modules.ajv2020 : dialect === '2019' ? modules.ajv2019 : modules.ajv);
      instances.set(dialect, ajv);
    }
    return ajv;
  };
  const compiled = new WeakMap<object, AjvValidate | string>();
  return {
    check(schema, value) {
      if (!schema || typeof schema !== 'object') return null;
      let validate = compiled.get(schema);
      if (validate === undefined) {
        const s = schema as Record<string, unknown>;
        const id = typeof s.$schema === 'string' ? s.$schema : '';
        const dialect = id.includes('2020-12') ? '2020' : id.includes('2019-09') ? '2019' : '07';
        // Meta-schema URLs ajv does not know (draft-04, a vendor's) are dropped; the keywords are mostly the same.
        const { $schema: _dropped, $id: _id, ...rest } = s;
        try {
          validate = instance(dialect).compile(dialect === '07' ? rest : { ...rest, $schema: id });
        } catch (error) {
          validate = `the schema does not compile: ${error instanceof Error ? error.message : String(error)}`;
        }
        compiled.set(schema, validate);
      }
      if (typeof validate === 'string') return validate;
      return validate(value) ? null : describe(validate.errors);
    },
  };
}
