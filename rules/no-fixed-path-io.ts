import { getModuleModel, isAnalysed } from '../src/analysis/door.js';
import { MODULE_OPTION_SCHEMAS, modulesOf } from '../src/analysis/options.js';
import { fixedReason, getPathAnalysis, isFixed, isPerCall, pathKey, quote, type Trace } from '../src/analysis/paths.js';
import { shellTargets } from '../src/analysis/shell.js';
import { storeUses } from '../src/analysis/stores.js';
import { createRule } from '../src/util/create-rule.js';
import { handlerPhrase } from '../src/util/describe.js';
import type { TSESTree } from '@typescript-eslint/utils';

export type Options = [{ reportAllReads?: boolean; reportAppends?: boolean; fsModules?: string[]; processModules?: string[] }];
export type MessageId = 'fixedWrite' | 'fixedReadBack' | 'fixedRead' | 'fixedShellTarget' | 'fixedStore';

const VERBS: Record<string, string> = {
  appendFile: 'appends to', createWriteStream: 'opens a write stream on', mkdir: 'creates', ensureDir: 'creates', mkdirp: 'creates', mkdirs: 'creates',
  ensureFile: 'creates', rename: 'renames into', move: 'moves into', copyFile: 'copies to', cp: 'copies to', copy: 'copies to', rm: 'removes',
  unlink: 'removes', remove: 'removes', rmdir: 'removes', emptyDir: 'empties', truncate: 'truncates', symlink: 'links', link: 'links',
  pdf: 'saves a PDF to', screenshot: 'saves a screenshot to', saveAs: 'saves a download to',
};

const CONTENT_READS = new Set(['readFile', 'createReadStream', 'readJson', 'readJSON', 'readJsonFile', 'open', 'readdir', 'opendir']);

/**
 * Under a place where callers' files live (the system temp dir, the server's home or working directory), or named by a
 * start-up random or a timestamp: a read another process or file may have written for another caller. System files
 * (`/proc/…`, `/etc/…`), files next to the server's own source and files the environment names (a config file) are the
 * server's or the operator's, not a caller's.
 */
function inSharedScratch(t: Trace): boolean {
  return ['tmpdir', 'homedir', 'cwd', 'time', 'random-startup'].some((x) => t.tags.has(x as never)) && !t.tags.has('dirname');
}

export default createRule<Options, MessageId>({
  name: 'no-fixed-path-io',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow handler code that writes, or reads back, a file path that does not depend on the call',
      recommended: 'recommended',
      strictOptions: [{ reportAllReads: true, reportAppends: true }],
    },
    messages: {
      fixedWrite:
        "{{handler}} {{verb}} `{{path}}`, a path that does not depend on the call ({{reason}}): concurrent callers overwrite and read each other's file. Derive it from the caller's workspace (`path.join(workspaceDir, …)`) or make it per call (`mkdtemp` inside the call).",
      fixedReadBack:
        "{{handler}} reads `{{path}}`, a fixed path that handler code also writes ({{reason}}): one caller reads back what another wrote. Derive it from the caller's workspace instead.",
      fixedRead:
        "{{handler}} reads `{{path}}`, a fixed path every caller shares ({{reason}}): whatever writes it between calls (another process, another file), one caller reads what another left there. Derive it from the caller's workspace instead.",
      fixedStore:
        "`{{store}}` is a database kept at `{{path}}`, a path that does not depend on the call ({{reason}}): {{handler}} writes it (line {{writeLine}}) and handler code reads it (line {{readLine}}), so every caller reads and changes what other callers stored. Open it per call under the caller's workspace (`path.join(workspaceDir, …)`), or keep each caller's data apart by the caller's scope argument.",
      fixedShellTarget:
        "{{handler}} runs a shell command that writes to `{{path}}`, which does not depend on the call ({{reason}}): concurrent callers clobber each other's output. Write under the caller's workspace (and run the command with `cwd` set to it).",
    },
    schema: [
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          reportAllReads: {
            type: 'boolean',
            description: 'Also report handler reads of fixed paths that no handler in the file writes (files another process or file may write).',
          },
          reportAppends: {
            type: 'boolean',
            description: 'Also report appends to a fixed path that no handler in the file reads back (append-only logs).',
          },
          ...MODULE_OPTION_SCHEMAS,
        },
      },
    ],
    defaultOptions: [{ reportAllReads: false, reportAppends: false, fsModules: [], processModules: [] }],
  },
  create(context, [options]) {
    if (!isAnalysed(context)) return {};
    return {
      'Program:exit'() {
        const model = getModuleModel(context);
        if (!model.servesCalls) return;
        const analysis = getPathAnalysis(model, { modules: modulesOf(options) });
        const text = (n: TSESTree.Node) => context.sourceCode.getText(n);
        const writtenKeys = new Set<string>();
        const reads: { node: TSESTree.Node; trace: Trace; key: string }[] = [];
        const appends: { node: TSESTree.Node; trace: Trace; key: string; verb: string }[] = [];
        for (const f of analysis.fsCalls) {
          const h = model.handlerOf(f.call);
          if (!h) continue;
          for (const { arg, effect, reportAt } of analysis.pathArgs(f)) {
            // A directory carries nothing until files are written into it; those writes are reported.
            // Removing a fixed path is the same hazard as writing it, reported at the write.
            if (effect === 'mkdtemp' || effect === 'meta' || effect === 'create' || effect === 'remove') continue;
            const trace = analysis.trace(arg, f.call);
            // Under a start-up mkdtemp: no-shared-scratch-dir reports the directory where it is made.
            if (!isFixed(trace) || trace.tags.has('random-startup')) continue;
            const key = pathKey(model, arg, text);
            if (effect === 'read') {
              // Only content reads read back what another call wrote; stat/access/exists checks do not.
              if (CONTENT_READS.has(f.method.replace(/Sync$/, ''))) reads.push({ node: arg, trace, key });
              continue;
            }
            writtenKeys.add(key);
            const method = f.method.replace(/Sync$/, '');
            if (method === 'appendFile' || (method === 'createWriteStream' && /\bflags\s*:\s*['"]a/.test(f.call.arguments[1] ? text(f.call.arguments[1]) : ''))) {
              // An append-only file (a log) carries nothing between callers unless something reads it back.
              appends.push({ node: arg, trace, key, verb: (Object.hasOwn(VERBS, method) ? VERBS[method] : 'appends to') });
              continue;
            }
            context.report({ node: reportAt ?? arg, messageId: 'fixedWrite', data: { handler: handlerPhrase(h), verb: (Object.hasOwn(VERBS, method) ? VERBS[method] : 'writes'), path: quote(text(arg)), reason: fixedReason(trace) } });
          }
        }
        const readKeys = new Set(reads.map((r) => r.key));
        for (const a of appends) {
          if (!options.reportAppends && !readKeys.has(a.key)) continue;
          context.report({ node: a.node, messageId: 'fixedWrite', data: { handler: handlerPhrase(model.handlerOf(a.node)), verb: a.verb, path: quote(text(a.node)), reason: fixedReason(a.trace) } });
        }
        for (const r of reads) {
          const written = writtenKeys.has(r.key);
          if (!written && (!options.reportAllReads || !inSharedScratch(r.trace))) continue;
          context.report({ node: r.node, messageId: written ? 'fixedReadBack' : 'fixedRead', data: { handler: handlerPhrase(model.handlerOf(r.node)), path: quote(text(r.node)), reason: fixedReason(r.trace) } });
        }
        // Stores opened at one path: written and read back by handler code through whatever keeps them.
        const stores = new Map<string, { open: TSESTree.Node; path: TSESTree.Node; trace: Trace; uses: NonNullable<ReturnType<typeof storeUses>> }[]>();
        for (const s of analysis.storeOpens) {
          const trace = analysis.trace(s.path, s.open);
          if (!isFixed(trace) || trace.tags.has('random-startup')) continue;
          const uses = storeUses(model, s.open);
          if (!uses) continue;
          const key = pathKey(model, s.path, text);
          const list = stores.get(key);
          if (list) list.push({ ...s, trace, uses });
          else stores.set(key, [{ ...s, trace, uses }]);
        }
        for (const group of stores.values()) {
          const write = group.find((g) => g.uses.write)?.uses.write;
          const read = group.find((g) => g.uses.read)?.uses.read;
          if (!write || !read) continue;
          for (const g of group) {
            if (!g.uses.write && !g.uses.read) continue;
            context.report({
              node: g.path,
              messageId: 'fixedStore',
              data: { store: g.uses.name, path: quote(text(g.path)), reason: fixedReason(g.trace), handler: handlerPhrase(model.handlerOf(write)), writeLine: write.loc.start.line, readLine: read.loc.start.line },
            });
          }
        }
        for (const p of analysis.processCalls) {
          if (!p.shell || !p.command) continue;
          const h = model.handlerOf(p.call);
          if (!h) continue;
          const { props } = analysis.processOptions(p);
          const cwd = props.get('cwd');
          const cwdPerCall = !!cwd && isPerCall(analysis.trace(cwd, p.call));
          for (const target of shellTargets(model, p.command)) {
            let trace: Trace;
            if (target.parts.length === 0) {
              if (!target.text.startsWith('/') && !target.text.startsWith('~') && cwdPerCall) continue;
              trace = { tags: new Set(['const']), rawInput: null, unsound: null };
              if (target.text.startsWith('/tmp')) trace.tags.add('tmpdir');
              else if (!target.text.startsWith('/')) {
                // Relative to the child's working directory: the server's, or the fixed one it is given.
                if (cwd) analysis.trace(cwd, p.call).tags.forEach((t) => trace.tags.add(t));
                else trace.tags.add('cwd');
                if (!isFixed(trace)) continue;
              }
            } else {
              trace = { tags: new Set(['const']), rawInput: null, unsound: null };
              for (const part of target.parts) analysis.trace(part, p.call).tags.forEach((t) => trace.tags.add(t));
              if (!isFixed(trace)) continue;
              if (!target.text.startsWith('${') && !target.text.startsWith('/') && cwdPerCall) continue;
            }
            context.report({ node: p.command, messageId: 'fixedShellTarget', data: { handler: handlerPhrase(h), path: quote(target.text), reason: fixedReason(trace) } });
          }
        }
      },
    };
  },
});
