// Fresh projects for the install tests: the plugin packed as a git install would build it, installed with npm into an
// empty temporary project, next to the ESLint (10 or 9), typescript-eslint and TypeScript a user would have.
//
// Network-free: `npm install` of a range needs the registry's package documents, which `npm ci` does not keep in the
// cache; `npm ci --offline` with a lockfile needs only the tarballs, which it does keep. So each project gets a
// lockfile cut from this repository's own (the closure of what the project asks for, with the alias `eslint9` laid
// down as `eslint`), and the plugin as a `file:` tarball, and npm lays out node_modules itself, peers included.
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export const repo = path.resolve(import.meta.dirname, '../..');

interface LockEntry {
  version: string;
  name?: string;
  integrity?: string;
  resolved?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

const repoLock = JSON.parse(readFileSync(path.join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

/** Where node would find `dep` from the package at lock path `from` ('' is the root). */
function resolveIn(packages: Record<string, LockEntry>, from: string, dep: string): string | null {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${dep}`;
    if (packages[candidate]) return candidate;
    if (!base) return null;
    const i = base.lastIndexOf('/node_modules/');
    base = i < 0 ? '' : base.slice(0, i);
  }
}

function required(entry: LockEntry): string[] {
  const peers = Object.keys(entry.peerDependencies ?? {}).filter((n) => !entry.peerDependenciesMeta?.[n]?.optional);
  return [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...peers];
}

export interface Packed {
  /** The tarball. */
  file: string;
  /** Its package.json. */
  manifest: LockEntry & { name: string; files: string[]; bin: Record<string, string> };
  /** Paths inside the tarball (without the leading `package/`). */
  contents: string[];
}

/**
 * Pack the plugin from a copy of the source tree without `dist/` (what a git clone holds): npm runs `prepare`, which
 * must build it, exactly as when the package is installed from a git URL.
 */
export function packFromSource(into: string): Packed {
  const src = path.join(into, 'source');
  mkdirSync(src, { recursive: true });
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && existsSync(path.join(repo, f)));
  for (const f of files) cpSync(path.join(repo, f), path.join(src, f), { recursive: true });
  symlinkSync(path.join(repo, 'node_modules'), path.join(src, 'node_modules'), 'dir');
  if (existsSync(path.join(src, 'dist'))) throw new Error('the source copy has a dist/ already');
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', into], { cwd: src, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const [info] = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const manifest = JSON.parse(readFileSync(path.join(src, 'package.json'), 'utf8')) as Packed['manifest'];
  return { file: path.join(into, info.filename), manifest, contents: info.files.map((f) => f.path) };
}

export interface ProjectOptions {
  /** eslint 10 (the repo's `eslint`) or 9 (the repo's `eslint9` alias). */
  eslint: 10 | 9;
  /** Also install typescript-eslint and typescript (a TypeScript project). */
  typescript?: boolean;
  /** Extra packages from the repo's lockfile (name → lock path), e.g. the SARIF formatter. */
  extra?: Record<string, string>;
  /** Install the plugin (default true). */
  plugin?: boolean;
}

export interface Project {
  dir: string;
  /** Lock paths npm installed. */
  installed: string[];
  run(cmd: string, args: string[], env?: NodeJS.ProcessEnv): { code: number; stdout: string; stderr: string };
  write(file: string, text: string): void;
}

/** A temporary project with its own package.json and lockfile, installed by `npm ci --offline`. */
export async function freshProject(parent: string, name: string, packed: Packed, options: ProjectOptions): Promise<Project> {
  const dir = path.join(parent, name);
  mkdirSync(dir, { recursive: true });
  const roots: Record<string, string> = { eslint: options.eslint === 10 ? 'node_modules/eslint' : 'node_modules/eslint9' };
  if (options.typescript) Object.assign(roots, { 'typescript-eslint': 'node_modules/typescript-eslint', typescript: 'node_modules/typescript' });
  Object.assign(roots, options.extra);

  const src = repoLock.packages;
  const out: Record<string, LockEntry> = {};
  // Repo lock path → project lock path, by prefix (`node_modules/eslint9/…` → `node_modules/eslint/…`).
  const moves = Object.entries(roots).map(([n, from]) => [from, `node_modules/${n}`] as const);
  const moved = (p: string) => {
    for (const [from, to] of moves) if (p === from || p.startsWith(`${from}/`)) return to + p.slice(from.length);
    return p;
  };
  const visit = (from: string) => {
    const to = moved(from);
    if (out[to]) return;
    const { dev, devOptional, peer, ...entry } = src[from] as LockEntry & { dev?: boolean; devOptional?: boolean; peer?: boolean };
    void dev, void devOptional, void peer;
    if (to !== from && to === `node_modules/${entry.name}`) delete entry.name;
    // The tarball's address: npm then reads it from the cache by its integrity, without the registry's package document.
    if (!entry.resolved && entry.integrity) {
      const real = src[from].name ?? from.slice(from.lastIndexOf('node_modules/') + 'node_modules/'.length);
      entry.resolved = `https://registry.npmjs.org/${real}/-/${real.split('/').pop()}-${entry.version}.tgz`;
    }
    out[to] = entry;
    for (const dep of required(src[from])) {
      const at = resolveIn(src, from, dep);
      if (at) visit(at);
      else if (!src[from].optionalDependencies?.[dep]) throw new Error(`${from} needs ${dep}, which the repo's lockfile does not have`);
    }
  };
  for (const from of Object.values(roots)) visit(from);

  const dependencies: Record<string, string> = {};
  for (const [n, from] of Object.entries(roots)) dependencies[n] = src[from].version;
  if (options.plugin !== false) {
    const tarball = path.join(dir, path.basename(packed.file));
    cpSync(packed.file, tarball);
    const spec = `file:${path.basename(packed.file)}`;
    dependencies[packed.manifest.name] = spec;
    const m = packed.manifest;
    out[`node_modules/${m.name}`] = {
      version: m.version,
      resolved: spec,
      license: m.license,
      dependencies: m.dependencies,
      bin: m.bin,
      engines: m.engines,
      peerDependencies: m.peerDependencies,
      peerDependenciesMeta: m.peerDependenciesMeta,
    } as LockEntry;
    // The plugin's dependencies, where a project root would have them.
    for (const dep of required(m)) {
      if (out[`node_modules/${dep}`]) continue;
      const at = resolveIn(src, '', dep);
      if (!at) throw new Error(`the plugin needs ${dep}, which the repo's lockfile does not have`);
      visit(at);
    }
  }
  const pkg = { name, version: '1.0.0', private: true, type: 'module', dependencies };
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const lock = { name, version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name, version: '1.0.0', dependencies }, ...out } };
  writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  await promisify(execFile)('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: dir });

  return {
    dir,
    installed: Object.keys(out),
    run(cmd, args, env = {}) {
      try {
        const stdout = execFileSync(cmd, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        return { code: 0, stdout, stderr: '' };
      } catch (e) {
        const err = e as { status: number; stdout: string; stderr: string };
        return { code: err.status, stdout: err.stdout, stderr: err.stderr };
      }
    },
    write(file, text) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    },
  };
}

/** A scratch directory for one suite; removed by `dispose`. */
export function scratch(prefix: string): { dir: string; dispose(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Installed size in bytes of the lock paths (their own files, not nested node_modules). */
export function installedBytes(dir: string): number {
  const out = execFileSync('du', ['-sb', path.join(dir, 'node_modules')], { encoding: 'utf8' });
  return Number(out.split('\t')[0]);
}
