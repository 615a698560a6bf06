// The probe's runtime packages are optional peer dependencies: the lint's users install neither the MCP SDK nor ajv.
// When the probe starts it loads them here, and a missing one stops it with one line saying what to install.

export interface ProbeDependency {
  name: string;
  /** The range to install (the peer range in package.json). */
  range: string;
  /** A module of the package to load, to see that it is there. */
  entry: string;
}

export const PROBE_DEPENDENCIES: readonly ProbeDependency[] = [
  { name: '@modelcontextprotocol/sdk', range: '^1.32.2', entry: '@modelcontextprotocol/sdk/client/index.js' },
  { name: 'ajv', range: '^8.20.0', entry: 'ajv' },
  { name: 'ajv-formats', range: '^3.0.1', entry: 'ajv-formats' },
];

function listNames(names: string[]): string {
  return names.length <= 2 ? names.join(' and ') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export class MissingDependencyError extends Error {
  override name = 'MissingDependencyError';
  constructor(readonly missing: readonly ProbeDependency[]) {
    super(
      `mcp-stateless probe needs ${listNames(missing.map((d) => d.name))} (optional peer ${missing.length === 1 ? 'dependency' : 'dependencies'} of eslint-plugin-mcp-stateless, not installed): ` +
        `npm install --save-dev ${missing.map((d) => `${d.name}@${d.range}`).join(' ')}`,
    );
  }
}

export type Importer = (specifier: string) => Promise<unknown>;

const defaultImporter: Importer = (specifier) => import(specifier);

function isNotFound(error: unknown, dependency: ProbeDependency): boolean {
  if (!error || typeof error !== 'object') return false;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : '';
  // Node says "Cannot find package 'ajv' imported from …" for a package that is not installed; a module missing
  // inside a package that is installed is a broken install, reported as it is.
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(`Cannot find package '${dependency.name}'`);
}

/** The default export of a CommonJS module loaded with import() (ajv and ajv-formats are CommonJS). */
export function cjsDefault<T>(mod: unknown): T {
  const m = mod as { default?: { default?: unknown } };
  return (m.default?.default ?? m.default ?? mod) as T;
}

export interface LoadedModules {
  ajv: unknown;
  ajv2019: unknown;
  ajv2020: unknown;
  ajvFormats: unknown;
}

/**
 * Check that every runtime package of the probe can be loaded, and load the validator's modules.
 * Throws MissingDependencyError naming every missing package at once.
 */
export async function loadProbeDependencies(importer: Importer = defaultImporter): Promise<LoadedModules> {
  const loaded = new Map<string, unknown>();
  const missing: ProbeDependency[] = [];
  for (const dependency of PROBE_DEPENDENCIES) {
    try {
      loaded.set(dependency.name, await importer(dependency.entry));
    } catch (error) {
      if (isNotFound(error, dependency)) missing.push(dependency);
      else throw error;
    }
  }
  if (missing.length > 0) throw new MissingDependencyError(missing);
  return {
    ajv: loaded.get('ajv'),
    ajv2019: await importer('ajv/dist/2019.js'),
    ajv2020: await importer('ajv/dist/2020.js'),
    ajvFormats: loaded.get('ajv-formats'),
  };
}
