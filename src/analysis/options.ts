// Options the filesystem and process rules share: each option owns its schema, its default and its lookup.
import type { ModuleNames } from './processes.js';

export interface PathOptions {
  /** Function names trusted as containment guards (their result, or a value passed to them, is contained). */
  guards: string[];
  /** Trust calls to imported functions named like a guard (`validatePath`) that the module cannot show. */
  trustImportedGuardNames: boolean;
  modules: ModuleNames;
}

export const DEFAULT_PATH_OPTIONS: PathOptions = { guards: [], trustImportedGuardNames: true, modules: { fs: [], process: [] } };

/** JSON-schema fragments the filesystem/process rules share (plain JSON, described). */
export const MODULE_OPTION_SCHEMAS = {
  fsModules: {
    type: 'array',
    items: { type: 'string', minLength: 1 },
    description: "Extra module specifiers whose exports behave like `fs` (for example a project's own fs wrapper package).",
  },
  processModules: {
    type: 'array',
    items: { type: 'string', minLength: 1 },
    description: 'Extra module specifiers whose `spawn`/`exec`/`execFile`/`fork` exports start child processes like `child_process`.',
  },
} as const;

export interface ModuleOptions {
  fsModules?: string[];
  processModules?: string[];
}

export function modulesOf(o: ModuleOptions): ModuleNames {
  return { fs: o.fsModules ?? [], process: o.processModules ?? [] };
}
