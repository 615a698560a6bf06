// The layers, checked as code (docs/architecture.md draws them): no import circle anywhere in src/ and rules/; the
// analysis imports nothing from rules, the CLI, the report or the probe; the probe loads neither ESLint nor TypeScript
// nor the analysis; rules reach the models only through the door; no analysis module grows past ~800 lines.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(root, dir))) {
    const rel = path.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) out.push(...files(rel));
    else if (/\.ts$/.test(name) && !name.endsWith('.d.ts')) out.push(rel.split(path.sep).join('/'));
  }
  return out;
}

const sources = [...files('src'), ...files('rules')];
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every module specifier a file imports (static, re-exports, and literal dynamic imports). */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2]);
}

function resolveLocal(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.js$/, '.ts');
  return sources.includes(target) ? target : null;
}

const graph = new Map(sources.map((f) => [f, importsOf(f).map((s) => resolveLocal(f, s)).filter((t): t is string => t !== null)]));

describe('architecture', () => {
  it('has no import circle', () => {
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const on = new Set<string>();
    const cycles: string[][] = [];
    let n = 0;
    const visit = (v: string) => {
      index.set(v, n);
      low.set(v, n++);
      stack.push(v);
      on.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const scc: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          on.delete(w);
          scc.push(w);
        } while (w !== v);
        if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(scc.sort());
      }
    };
    for (const f of sources) if (!index.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  it('the analysis imports nothing from rules, the CLI, the report or the probe', () => {
    for (const f of sources.filter((s) => s.startsWith('src/analysis/'))) {
      for (const t of graph.get(f)!) expect(t.startsWith('src/analysis/') || t === 'src/vocabulary.ts' || t === 'src/summary.ts', `${f} imports ${t}`).toBe(true);
    }
  });

  it('the probe loads neither ESLint, TypeScript, typescript-eslint nor the analysis', () => {
    for (const f of sources.filter((s) => s.startsWith('src/probe/'))) {
      for (const spec of importsOf(f)) {
        expect(/^(eslint|typescript|@typescript-eslint\/|typescript-eslint)/.test(spec), `${f} imports ${spec}`).toBe(false);
        const t = resolveLocal(f, spec);
        if (t) expect(t.startsWith('src/probe/') || t === 'src/summary.ts' || t === 'src/vocabulary.ts', `${f} imports ${t}`).toBe(true);
      }
    }
  });

  it('the summary and vocabulary modules import nothing', () => {
    expect(importsOf('src/summary.ts')).toEqual([]);
    expect(importsOf('src/vocabulary.ts')).toEqual([]);
  });

  it('rules reach the models only through the door', () => {
    for (const f of sources.filter((s) => s.startsWith('rules/'))) {
      const text = readFileSync(path.join(root, f), 'utf8');
      expect(text, f).not.toMatch(/new (ModuleModel|ServerModel|ModuleFacts)\b/);
      for (const t of graph.get(f)!) expect(t.endsWith('/server.ts') || t.endsWith('/module.ts'), `${f} imports ${t}`).toBe(false);
    }
  });

  it('no analysis module is over ~800 lines', () => {
    for (const f of sources.filter((s) => s.startsWith('src/analysis/'))) {
      const lines = readFileSync(path.join(root, f), 'utf8').split('\n').length;
      expect(lines, f).toBeLessThanOrEqual(820);
    }
  });
});
