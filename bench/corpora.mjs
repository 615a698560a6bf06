// Real code for the bench and the sweep: where it is, and how to list it.
//
// - Published MCP servers: the built JavaScript of servers installed as pinned devDependencies (PUBLISHED_SERVERS).
//   They sit under node_modules/, which ESLint ignores by default, so they are always linted by explicit file list.
// - Fetched servers' sources, when MCP_STATELESS_MIRRORS names a folder of <owner>+<name>/repo bare git mirrors (as the
//   search tool's `fetch` makes them): each mirror's source files at HEAD are extracted with `git archive` into
//   bench/out/mirrors/<owner>+<name>/ (git-ignored; never committed), once per HEAD commit.

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = path.join(ROOT, 'bench', 'out');

/** Every extension ESLint's JS and TS parsers take. */
export const SOURCE_EXT = /\.(js|mjs|cjs|jsx|ts|mts|cts|tsx)$/;
export const DECLARATION = /\.d\.[mc]?ts$/;
export const TS_EXT = /\.(ts|mts|cts|tsx)$/;

/**
 * Published MCP servers installed as devDependencies, linted as their authors ship them (built JavaScript). Chosen for
 * light dependency trees (no browsers, no native binaries at install).
 */
export const PUBLISHED_SERVERS = [
  '@modelcontextprotocol/server-everything',
  '@modelcontextprotocol/server-filesystem',
  '@modelcontextprotocol/server-memory',
  '@modelcontextprotocol/server-sequential-thinking',
  '@modelcontextprotocol/server-github',
  '@antv/mcp-server-chart',
  '@supabase/mcp-server-supabase',
  'tavily-mcp',
];

/** Repositories among the mirrors that are frameworks or SDKs, not servers: swept, but not in the bench's server corpus. */
export const NOT_SERVERS = new Set(['modelcontextprotocol+typescript-sdk', 'punkpeye+fastmcp']);

const SKIP_DIRS = new Set(['node_modules', '.git']);
const BUILD_DIRS = new Set(['dist', 'build', 'out', 'coverage', 'lib-cov', '.next']);
const TEST_PATH = /(^|\/)(tests?|__tests__|__mocks__|spec|e2e|fixtures?)\/|\.(test|spec)\.[a-z]+$/;

/** Source files under `dir`, sorted; `nested` also descends into node_modules (for sweeping installed packages). */
export function walkSources(dir, { nested = false, skip = () => false } = {}) {
  const out = [];
  const visit = (d) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name === '.git' || (!nested && SKIP_DIRS.has(e.name)) || skip(full, e.name)) continue;
        visit(full);
      } else if (e.isFile() && SOURCE_EXT.test(e.name)) out.push(full);
    }
  };
  visit(dir);
  return out;
}

/** The published servers' own files (not their dependencies'), and the packages that are missing. */
export function publishedServerFiles(root = ROOT) {
  const files = [];
  const missing = [];
  for (const pkg of PUBLISHED_SERVERS) {
    const dir = path.join(root, 'node_modules', pkg);
    if (!existsSync(path.join(dir, 'package.json'))) {
      missing.push(pkg);
      continue;
    }
    for (const f of walkSources(dir)) {
      const rel = path.relative(dir, f).split(path.sep).join('/');
      if (!DECLARATION.test(f) && !TEST_PATH.test(rel) && !/\.min\.[cm]?js$/.test(f)) files.push({ file: f, group: pkg });
    }
  }
  return { files, missing };
}

export function mirrorRootFromEnv() {
  const r = process.env.MCP_STATELESS_MIRRORS;
  return r && r.trim() ? path.resolve(r) : null;
}

/** The mirrors under `root`: folders `<owner>+<name>` holding a bare repository at `repo` (or being one). */
export function listMirrors(root) {
  if (!root || !existsSync(root)) return [];
  const out = [];
  for (const e of readdirSync(root, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!e.isDirectory() || !e.name.includes('+')) continue;
    for (const gitDir of [path.join(root, e.name, 'repo'), path.join(root, e.name)]) {
      if (existsSync(path.join(gitDir, 'HEAD')) && existsSync(path.join(gitDir, 'objects'))) {
        out.push({ name: e.name, gitDir });
        break;
      }
    }
  }
  return out;
}

/**
 * The source files of one mirror's HEAD, extracted into `dest` (only JS/TS files; nothing else is written). Re-extracted
 * when HEAD moves. Returns the extracted folder and the file count, or an error line.
 */
export function extractMirror(m, destRoot = path.join(OUT, 'mirrors')) {
  const dest = path.join(destRoot, m.name);
  const git = (...args) => execFileSync('git', ['--git-dir', m.gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
  let head;
  try {
    head = git('rev-parse', 'HEAD').trim();
  } catch (e) {
    return { name: m.name, dir: dest, error: `git rev-parse failed: ${String(e.stderr ?? e.message).trim().split('\n')[0]}` };
  }
  const stamp = path.join(dest, '.mirror-head');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === head) return { name: m.name, dir: dest, head };
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  // `ls-tree -r -z`: "<mode> <type> <id>\t<path>" per entry. A partial mirror can lack some blobs: leave those out.
  const entries = git('ls-tree', '-r', '-z', head)
    .split('\0')
    .map((line) => {
      const tab = line.indexOf('\t');
      const [, type, id] = line.slice(0, tab).split(' ');
      return { type, id, path: line.slice(tab + 1) };
    })
    .filter((e) => e.type === 'blob' && SOURCE_EXT.test(e.path) && !e.path.split('/').includes('node_modules'));
  const present = new Set(
    execFileSync('git', ['--git-dir', m.gitDir, 'cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: entries.map((e) => e.id).join('\n'), encoding: 'utf8', maxBuffer: 1 << 28 })
      .split('\n')
      .filter((l) => l.endsWith(' blob'))
      .map((l) => l.split(' ')[0]),
  );
  const paths = entries.filter((e) => present.has(e.id)).map((e) => e.path);
  // In batches, to stay well under the argument-length limit.
  for (let i = 0; i < paths.length; i += 500) {
    const batch = paths.slice(i, i + 500);
    const archive = spawnSync('git', ['--git-dir', m.gitDir, 'archive', '--format=tar', head, '--', ...batch], { maxBuffer: 1 << 30 });
    if (archive.status !== 0) return { name: m.name, dir: dest, error: `git archive failed: ${String(archive.stderr).trim().split('\n')[0]}` };
    const tar = spawnSync('tar', ['-x', '-C', dest], { input: archive.stdout, maxBuffer: 1 << 20 });
    if (tar.status !== 0) return { name: m.name, dir: dest, error: `tar failed: ${String(tar.stderr).trim().split('\n')[0]}` };
  }
  writeFileSync(stamp, `${head}\n`);
  return { name: m.name, dir: dest, head };
}

/** Extract every mirror; returns [{ name, dir, head } | { name, error }]. */
export function extractMirrors(root, log = () => {}) {
  const out = [];
  for (const m of listMirrors(root)) {
    const r = extractMirror(m);
    if (r.error) log(`mirror ${m.name}: ${r.error}`);
    out.push(r);
  }
  return out;
}

/**
 * The bench's server-source corpus from extracted mirrors: each server repository's non-test, non-build, non-declaration
 * source files, deterministically sampled to at most `perRepoBytes` per repository (files in path order), so that no
 * single large repository dominates and the run stays within minutes.
 */
export function mirrorServerFiles(extracted, { perRepoBytes = 200_000 } = {}) {
  const files = [];
  for (const m of extracted) {
    if (m.error || NOT_SERVERS.has(m.name)) continue;
    let budget = perRepoBytes;
    const list = walkSources(m.dir, { skip: (_full, name) => BUILD_DIRS.has(name) });
    for (const f of list) {
      const rel = path.relative(m.dir, f).split(path.sep).join('/');
      if (DECLARATION.test(f) || TEST_PATH.test(rel) || /\.min\.[cm]?js$/.test(f)) continue;
      const size = statSync(f).size;
      if (size > budget) continue;
      budget -= size;
      files.push({ file: f, group: m.name });
    }
  }
  return files;
}

export function sha1(text) {
  return createHash('sha1').update(text).digest('hex');
}

/** Lines and bytes of a file list. */
export function measureFiles(files) {
  let lines = 0;
  let bytes = 0;
  for (const f of files) {
    const t = readFileSync(typeof f === 'string' ? f : f.file, 'utf8');
    bytes += Buffer.byteLength(t);
    lines += t.split('\n').length;
  }
  return { files: files.length, lines, bytes };
}

/**
 * The real-code corpora of the counted and share instruments, as lists of file paths: the published servers' built
 * JavaScript (when installed), and the fetched servers' sources (when MCP_STATELESS_MIRRORS is set), at most
 * `perRepoBytes` of source per repository.
 */
export function realCorpora(perRepoBytes, log = () => {}) {
  const corpora = [];
  const published = publishedServerFiles();
  if (published.files.length) corpora.push({ name: 'published servers (built JS)', files: published.files.map((f) => f.file) });
  const mirrorRoot = mirrorRootFromEnv();
  if (mirrorRoot) {
    const files = mirrorServerFiles(extractMirrors(mirrorRoot, log), { perRepoBytes });
    if (files.length) corpora.push({ name: 'fetched servers (sources)', files: files.map((f) => f.file) });
  }
  return corpora;
}
