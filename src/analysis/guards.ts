import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { append, isFunction, isInside, memberName, paramBinds, staticString, unwrap, type FunctionNode, type Node } from './ast.js';
import type { ModuleModel } from './model.js';
import type { Variable } from './module.js';
import type { PathOptions } from './options.js';
import { moduleRef, objectLiteralOf } from './processes.js';
import { resolveValues, returnedExpressions } from './resolve.js';
import { cachedPer } from './cache.js';
import { PATH_ESCAPES } from './choices.js';

/** A containment verdict: sound, looks right and is not (why, where), or no check at all. */
export type GuardVerdict = { sound: true } | { sound: false; reason: string; node: Node } | null;

/** Names a guard function goes by (`validatePath`, `ensureInside`, `isSafePath`…). */
export const GUARD_NAME = /valid|check|assert|ensure|guard|safe|verify|within|inside|allowed|contain|sanitiz|sanitis|confine/i;

/**
 * Guard reasoning for one module: which checks keep a path inside a root, and which look right and are not
 * (`startsWith(root)` without a separator, a check before `decodeURIComponent` or before `..` is resolved, a guard
 * that is fail-open when its configuration is unset).
 */
const CASE_AND_TRIM = new Set(['toLowerCase', 'toUpperCase', 'toLocaleLowerCase', 'trim', 'trimEnd']);

export class Guards {
  private readonly guardFns = new Map<FunctionNode, GuardVerdict>();

  constructor(
    private readonly model: ModuleModel,
    private readonly options: PathOptions,
  ) {}


  /**
   * A containment check on `v` that protects its use at `pos`: an `if` before `pos` that rejects (throws/returns) when
   * the check says "outside", an `if`/ternary/`&&` whose checked branch contains `pos`, or a guard function called on
   * `v` as a statement before `pos`. Also checks on values derived from `v` (`path.relative(root, v)`, `realpath(v)`).
   */
  guardOn(v: Variable, pos: Node): GuardVerdict {
    let unsound: GuardVerdict = null;
    for (const { variable, relative } of this.derived(v)) {
      for (const ref of variable.references) {
        const r = ref.identifier as TSESTree.Identifier;
        if (r === pos || isInside(pos, r)) continue;
        const check = this.checkAt(r, relative);
        if (!check) continue;
        if (!this.protects(check.node, check.insideWhenTrue, pos)) continue;
        if (check.verdict.sound) {
          if (!relative && check.kind === 'startsWith' && !this.normalised(variable)) {
            unsound ??= { sound: false, reason: 'the path is checked before `..` segments are resolved (no path.resolve/realpath first)', node: check.node };
            continue;
          }
          return { sound: true };
        }
        unsound ??= check.verdict;
      }
    }
    return this.rejectsEscapes(v, pos) ? { sound: true } : unsound;
  }

  /**
   * Reject-first checks on the raw value, before any path is built from it: `if (p.split(/[\\/]/).includes('..') ||
   * path.isAbsolute(p)) throw …`. Sound together only: an `..` segment check, and an absolute-path check or a rejection
   * of every separator (a plain file name). Each part must reject the value before `pos` is reached.
   */
  private rejectsEscapes(v: Variable, pos: Node): boolean {
    const parts = new Set<RejectPart>();
    for (const ref of v.references) {
      const r = ref.identifier as TSESTree.Identifier;
      if (ref.init || r === pos || isInside(pos, r)) continue;
      const top = checkExpressionOf(r);
      const found = this.rejectParts(top, (id) => id === r, 0);
      if (found.size === 0 || this.underAnd(top, v) || !this.rejectsBefore(top, pos)) continue;
      for (const part of found) parts.add(part);
    }
    return parts.has('dotdot') && (parts.has('absolute') || parts.has('separator'));
  }

  /**
   * Whether a rejecting check runs before `pos`: as `protects` says, or in a block under the same test as the block of
   * `pos` (`if (action === 'download') { if (bad(p)) throw … }` … `if (action === 'download') { use(p) }`).
   */
  private rejectsBefore(check: Node, pos: Node): boolean {
    if (this.protects(check, false, pos)) return true;
    for (let b = check.parent; b && !isFunction(b); b = b.parent) {
      if (b.type !== AST_NODE_TYPES.BlockStatement || b.parent?.type !== AST_NODE_TYPES.IfStatement || b.parent.consequent !== b) continue;
      const outer = b.parent;
      // The check holds at the end of its block…
      if (!this.protects(check, false, { type: AST_NODE_TYPES.EmptyStatement, range: [b.range[1] - 1, b.range[1] - 1] } as Node)) return false;
      // …and a later block under the same test, of values no code reassigns, holds the use.
      for (let q = pos.parent; q && !isFunction(q); q = q.parent) {
        if (q.type === AST_NODE_TYPES.IfStatement && isInside(pos, q.consequent) && q.range[0] > outer.range[1] && sameOrEnclosingBlock(outer, q) && this.sameTest(outer.test, q.test)) return true;
      }
      return false;
    }
    return false;
  }

  /** Two tests that say the same thing of values that keep their value (parameters and bindings nobody reassigns). */
  private sameTest(a: Node, b: Node): boolean {
    const x = unwrap(a);
    const y = unwrap(b);
    if (x.type !== y.type) return false;
    switch (x.type) {
      case AST_NODE_TYPES.Identifier: {
        if (x.name !== (y as TSESTree.Identifier).name) return false;
        const v = this.model.facts.variableOf(x);
        return !!v && v === this.model.facts.variableOf(y as TSESTree.Identifier) && v.references.every((r) => !r.isWrite() || r.init);
      }
      case AST_NODE_TYPES.Literal:
        return x.value === (y as TSESTree.Literal).value;
      case AST_NODE_TYPES.MemberExpression: {
        const m = y as TSESTree.MemberExpression;
        return !x.computed && !m.computed && memberName(x) === memberName(m) && this.sameTest(x.object, m.object);
      }
      case AST_NODE_TYPES.BinaryExpression:
      case AST_NODE_TYPES.LogicalExpression: {
        const o = y as typeof x;
        return x.operator === o.operator && this.sameTest(x.left, o.left) && this.sameTest(x.right, o.right);
      }
      case AST_NODE_TYPES.UnaryExpression:
        return x.operator === (y as TSESTree.UnaryExpression).operator && this.sameTest(x.argument, (y as TSESTree.UnaryExpression).argument);
      default:
        return false;
    }
  }

  /**
   * Whether a check is only one operand of an `&&` in its test (`if (bad(p) && strict) throw`: not always rejected). A
   * truthiness test of the value itself does not count (`if (p && bad(p)) throw`: an empty value names no path).
   */
  private underAnd(check: Node, v: Variable): boolean {
    let n: Node = check;
    for (let p = check.parent; p && p.type !== AST_NODE_TYPES.IfStatement && p.type !== AST_NODE_TYPES.ConditionalExpression && !isFunction(p); n = p, p = p.parent) {
      if (p.type !== AST_NODE_TYPES.LogicalExpression || p.operator !== '&&') continue;
      const other = unwrap(p.left === n ? p.right : p.left);
      if (other.type !== AST_NODE_TYPES.Identifier || this.model.facts.variableOf(other) !== v) return true;
    }
    return false;
  }

  /** What a check expression rejects when it is true, about the identifier `isTarget` picks out. */
  private rejectParts(e: Node, isTarget: (id: Node) => boolean, depth: number): Set<RejectPart> {
    const out = new Set<RejectPart>();
    if (depth > 3) return out;
    const n = unwrap(e);
    if (n.type === AST_NODE_TYPES.LogicalExpression && n.operator === '||') {
      for (const part of this.rejectParts(n.left, isTarget, depth)) out.add(part);
      for (const part of this.rejectParts(n.right, isTarget, depth)) out.add(part);
      return out;
    }
    // name === '..'
    if (n.type === AST_NODE_TYPES.BinaryExpression && (n.operator === '===' || n.operator === '==')) {
      if ((isTarget(unwrap(n.left)) && staticString(n.right) === '..') || (isTarget(unwrap(n.right)) && staticString(n.left) === '..')) out.add('dotdot');
      return out;
    }
    if (n.type !== AST_NODE_TYPES.CallExpression) return out;
    const callee = unwrap(n.callee);
    const arg0 = n.arguments[0];
    if (callee.type === AST_NODE_TYPES.MemberExpression) {
      const m = memberName(callee);
      const obj = unwrap(callee.object);
      // p.includes('..'), p.startsWith('/')
      if (isTarget(obj)) {
        if (m === 'includes' && staticString(arg0) === '..') out.add('dotdot');
        if (m === 'startsWith' && (staticString(arg0) === '/' || this.isSep(arg0))) out.add('absolute');
        return out;
      }
      // p.split(sep).includes('..'), p.split(/[\\/]+/).some((s) => s === '..')
      if (obj.type === AST_NODE_TYPES.CallExpression && obj.callee.type === AST_NODE_TYPES.MemberExpression && memberName(obj.callee) === 'split' && isTarget(unwrap(obj.callee.object))) {
        if (m === 'includes' && staticString(arg0) === '..') out.add('dotdot');
        if ((m === 'some' || m === 'find') && arg0 && isFunction(unwrap(arg0)) && returnedExpressions(unwrap(arg0) as FunctionNode).some(comparesToDotDot)) out.add('dotdot');
        return out;
      }
      // /\.\./.test(p), /[\\/]/.test(p)
      if (m === 'test' && arg0 && isTarget(unwrap(arg0))) {
        const re = this.regexOf(callee.object);
        if (!re) return out;
        if (re.test('..') && re.test('a/../b')) out.add('dotdot');
        if (re.test('a/b') && re.test('a\\b')) out.add('separator');
        if (re.test('/etc')) out.add('absolute');
        return out;
      }
    }
    const index = n.arguments.findIndex((a) => isTarget(unwrap(a)));
    if (index < 0) return out;
    const ref = moduleRef(this.model.facts, n.callee, this.options.modules);
    if (ref) {
      if (ref.module === 'path' && ref.path[ref.path.length - 1] === 'isAbsolute') out.add('absolute');
      return out;
    }
    // A predicate of this module (`const badSegment = (p) => p.split(…).some(…)`): what it returns, about its parameter.
    for (const v of resolveValues(this.model.facts, n.callee)) {
      if (v.kind !== 'function') continue;
      const param = v.node.params[index];
      if (param?.type !== AST_NODE_TYPES.Identifier) continue;
      const pv = this.model.facts.variableOf(param);
      if (!pv) continue;
      const refs = new Set<Node>(pv.references.map((r) => r.identifier));
      for (const ret of returnedExpressions(v.node)) for (const part of this.rejectParts(ret, (id) => refs.has(id), depth + 1)) out.add(part);
    }
    return out;
  }

  /** `v` and the variables holding `path.relative(root, v)` / `realpath(v)` / `path.resolve(v)`. */
  private derived(v: Variable): { variable: Variable; relative: boolean }[] {
    const out = [{ variable: v, relative: false }];
    for (const ref of v.references) {
      let n: Node = ref.identifier;
      let p = n.parent;
      if (!p || p.type !== AST_NODE_TYPES.CallExpression) continue;
      const ref2 = moduleRef(this.model.facts, p.callee, this.options.modules);
      if (!ref2) continue;
      const last = ref2.path[ref2.path.length - 1];
      const relative = ref2.module === 'path' && last === 'relative' && p.arguments[1] === n;
      const resolving = (ref2.module === 'path' && (last === 'resolve' || last === 'normalize')) || (ref2.module === 'fs' && /^realpath/.test(last));
      if (!relative && !resolving) continue;
      n = p;
      while (n.parent && (n.parent.type === AST_NODE_TYPES.AwaitExpression || n.parent.type === AST_NODE_TYPES.TSAsExpression)) n = n.parent;
      const decl = n.parent;
      if (decl && decl.type === AST_NODE_TYPES.VariableDeclarator && decl.init === n && decl.id.type === AST_NODE_TYPES.Identifier) {
        const dv = this.model.facts.variableOf(decl.id);
        if (dv && dv !== v) out.push({ variable: dv, relative });
      }
    }
    return out;
  }

  /** Whether `v`'s value went through path.resolve/normalize/join/realpath (so `..` is gone). */
  private normalised(v: Variable): boolean {
    const def = v.defs[0];
    if (!def) return false;
    if (def.type === 'Variable') {
      const init = (def.node as TSESTree.VariableDeclarator).init;
      return !!init && this.normalisingExpr(init, 0);
    }
    return false;
  }

  private normalisingExpr(e: Node, depth: number): boolean {
    if (depth > 4) return false;
    const n = unwrap(e);
    if (n.type === AST_NODE_TYPES.CallExpression) {
      // `path.normalize(p).toLowerCase()`: a case fold or trim keeps a normalised path normalised.
      const callee = unwrap(n.callee);
      if (callee.type === AST_NODE_TYPES.MemberExpression && CASE_AND_TRIM.has(memberName(callee) ?? '')) return this.normalisingExpr(callee.object, depth + 1);
      const ref = moduleRef(this.model.facts, n.callee, this.options.modules);
      if (ref) {
        const last = ref.path[ref.path.length - 1];
        return (ref.module === 'path' && ['resolve', 'normalize', 'join'].includes(last)) || (ref.module === 'fs' && /^realpath/.test(last));
      }
      const fns = resolveValues(this.model.facts, n.callee).flatMap((v) => (v.kind === 'function' ? [v.node] : []));
      if (fns.length) return fns.every((fn) => returnedExpressions(fn).some((r) => this.normalisingExpr(r, depth + 1)));
      const name = n.callee.type === AST_NODE_TYPES.Identifier ? n.callee.name : n.callee.type === AST_NODE_TYPES.MemberExpression ? memberName(n.callee) : null;
      return !!name && (this.options.guards.includes(name) || /resolve|normali[sz]e|realpath|canonical/i.test(name));
    }
    if (n.type === AST_NODE_TYPES.Identifier) {
      const v = this.model.facts.variableOf(n);
      const def = v?.defs[0];
      if (def?.type === 'Variable') {
        const init = (def.node as TSESTree.VariableDeclarator).init;
        return !!init && this.normalisingExpr(init, depth + 1);
      }
    }
    if (n.type === AST_NODE_TYPES.ConditionalExpression) return this.normalisingExpr(n.consequent, depth + 1) && this.normalisingExpr(n.alternate, depth + 1);
    return false;
  }

  /**
   * The check a reference takes part in, if any: `r.startsWith(root + sep)` (true = inside), `rel.startsWith('..')`
   * (true = outside), `path.isAbsolute(rel)`, `RE.test(r)` with a name allow-list, `guard(r)`.
   */
  private checkAt(r: TSESTree.Identifier, relative: boolean): { node: Node; insideWhenTrue: boolean; verdict: GuardVerdict & object; kind: string } | null {
    const facts = this.model.facts;
    const p = r.parent;
    if (!p) return null;
    // r.startsWith(x)
    if (p.type === AST_NODE_TYPES.MemberExpression && p.object === r && p.parent?.type === AST_NODE_TYPES.CallExpression && p.parent.callee === p) {
      const m = memberName(p);
      const call = p.parent;
      if (m === 'startsWith' && call.arguments[0]) {
        const arg = call.arguments[0];
        if (relative) {
          const s = staticString(arg);
          if (s !== null && s.startsWith('..')) return { node: call, insideWhenTrue: false, verdict: { sound: true }, kind: 'relative' };
          return null;
        }
        if (staticString(arg) !== null && !/[\\/]$/.test(staticString(arg)!)) return null; // startsWith('~') etc.: not a containment check
        const sound = this.endsWithSeparator(arg, 0);
        return {
          node: call,
          insideWhenTrue: true,
          kind: 'startsWith',
          verdict: sound ? { sound: true } : { sound: false, node: call, reason: 'startsWith(root) without a trailing separator also accepts a sibling (`/runs/a` vs `/runs/ab`)' },
        };
      }
      if (relative && (m === 'includes' || m === 'split') ) {
        const s = staticString(call.arguments[0]);
        if (m === 'includes' && s === '..') return { node: call, insideWhenTrue: false, verdict: { sound: true }, kind: 'relative' };
      }
      return null;
    }
    if (p.type === AST_NODE_TYPES.CallExpression && p.arguments.includes(r)) {
      const callee = unwrap(p.callee);
      const ref = moduleRef(facts, callee, this.options.modules);
      if (relative && ref && ref.module === 'path' && ref.path[ref.path.length - 1] === 'isAbsolute') {
        return { node: p, insideWhenTrue: false, verdict: { sound: true }, kind: 'relative' };
      }
      // /^[\w-]+$/.test(r): a name allow-list that cannot spell `..` or a separator.
      if (callee.type === AST_NODE_TYPES.MemberExpression && memberName(callee) === 'test') {
        const re = this.regexOf(callee.object);
        if (re) {
          const escapes = PATH_ESCAPES.filter((s) => re.test(s));
          return escapes.length === 0
            ? { node: p, insideWhenTrue: true, verdict: { sound: true }, kind: 'allowlist' }
            : { node: p, insideWhenTrue: true, verdict: { sound: false, node: p, reason: `the allow-list pattern also accepts ${JSON.stringify(escapes[0])}` }, kind: 'allowlist' };
        }
        return null;
      }
      const name = callee.type === AST_NODE_TYPES.Identifier ? callee.name : callee.type === AST_NODE_TYPES.MemberExpression ? memberName(callee) : null;
      if (!name || ref) return null;
      if (this.options.guards.includes(name)) return { node: p, insideWhenTrue: true, verdict: { sound: true }, kind: 'guard' };
      const fns = resolveValues(facts, callee).flatMap((v) => (v.kind === 'function' ? [v.node] : []));
      if (fns.length) {
        const verdicts = fns.map((f) => this.guardFunction(f));
        const bad = verdicts.find((x) => x && !x.sound);
        if (bad) return { node: p, insideWhenTrue: true, verdict: bad, kind: 'guard' };
        if (verdicts.every((x) => x && x.sound)) return { node: p, insideWhenTrue: true, verdict: { sound: true }, kind: 'guard' };
        return null;
      }
      // A guard in another module (whole-server analysis): judged by its own body there.
      const elsewhere = this.crossModuleGuard(p);
      if (elsewhere) return elsewhere.sound ? { node: p, insideWhenTrue: true, verdict: { sound: true }, kind: 'guard' } : { node: p, insideWhenTrue: true, verdict: { ...elsewhere, node: p }, kind: 'guard' };
      if (this.options.trustImportedGuardNames && GUARD_NAME.test(name)) return { node: p, insideWhenTrue: true, verdict: { sound: true }, kind: 'guard' };
    }
    return null;
  }

  /**
   * The verdict on a call's callees in other modules, when every one of them is a guard (or one is an unsound one):
   * computed by each module's own guard reasoning, once per function. Null when the call reaches no other module (no
   * whole-server analysis) or a callee is not a guard.
   */
  crossModuleGuard(call: TSESTree.CallExpression): GuardVerdict {
    const callees = this.model.calleesOf(call).filter((c) => c.model !== this.model);
    if (callees.length === 0) return null;
    const verdicts = callees.map((c) => guardsFor(c.model, this.options).guardFunction(c.fn));
    const bad = verdicts.find((x) => x && !x.sound);
    if (bad) return bad;
    return verdicts.every((x) => x && x.sound) ? { sound: true } : null;
  }

  private regexOf(e: Node): RegExp | null {
    const n = unwrap(e);
    if (n.type === AST_NODE_TYPES.Literal && 'regex' in n && n.regex) {
      try {
        return new RegExp(n.regex.pattern, n.regex.flags.replace(/[gy]/g, ''));
      } catch {
        return null;
      }
    }
    if (n.type === AST_NODE_TYPES.Identifier) {
      const v = this.model.facts.variableOf(n);
      const def = v?.defs[0];
      if (def?.type === 'Variable') {
        const init = (def.node as TSESTree.VariableDeclarator).init;
        return init ? this.regexOf(init) : null;
      }
    }
    return null;
  }

  private endsWithSeparator(arg: Node, depth: number): boolean {
    if (depth > 4) return false;
    const n = unwrap(arg);
    const s = staticString(n);
    if (s !== null) return /[\\/]$/.test(s);
    if (this.isSep(n)) return true;
    if (n.type === AST_NODE_TYPES.BinaryExpression && n.operator === '+') return this.endsWithSeparator(n.right, depth + 1);
    if (n.type === AST_NODE_TYPES.TemplateLiteral) {
      const tail = n.quasis[n.quasis.length - 1].value.cooked ?? '';
      if (tail) return /[\\/]$/.test(tail);
      const last = n.expressions[n.expressions.length - 1];
      return !!last && this.endsWithSeparator(last, depth + 1);
    }
    if (n.type === AST_NODE_TYPES.ConditionalExpression) return this.endsWithSeparator(n.consequent, depth + 1) || this.endsWithSeparator(n.alternate, depth + 1);
    if (n.type === AST_NODE_TYPES.Identifier) {
      const v = this.model.facts.variableOf(n);
      const def = v?.defs[0];
      if (def?.type === 'Variable') {
        const init = (def.node as TSESTree.VariableDeclarator).init;
        if (init && this.endsWithSeparator(init, depth + 1)) return true;
      }
      // root = root.endsWith(sep) ? root : root + sep
      return !!v && v.references.some((ref) => ref.isWrite() && ref.writeExpr && !ref.init && this.endsWithSeparator(ref.writeExpr, depth + 1));
    }
    if (n.type === AST_NODE_TYPES.CallExpression) {
      const ref = moduleRef(this.model.facts, n.callee, this.options.modules);
      if (ref && ref.module === 'path' && ref.path[ref.path.length - 1] === 'join') {
        const lastArg = n.arguments[n.arguments.length - 1];
        return !!lastArg && this.isSep(lastArg);
      }
    }
    return false;
  }

  private isSep(n: Node): boolean {
    const u = unwrap(n);
    if (u.type === AST_NODE_TYPES.MemberExpression && memberName(u) === 'sep') {
      const ref = moduleRef(this.model.facts, u.object, this.options.modules);
      return !!ref && ref.module === 'path';
    }
    if (u.type === AST_NODE_TYPES.Identifier) {
      const ref = moduleRef(this.model.facts, u, this.options.modules);
      return !!ref && ref.module === 'path' && ref.path[ref.path.length - 1] === 'sep';
    }
    return false;
  }

  /**
   * Does a check at `check` protect the use at `pos`? Yes when `pos` is in the branch the check lets through
   * (`if (inside) { use }`, `inside ? use : …`, `inside && use`), or when an earlier `if` rejects the outside case and
   * leaves (throw/return/continue).
   */
  private protects(check: Node, insideWhenTrue: boolean, pos: Node): boolean {
    let inside = insideWhenTrue;
    let n: Node = check;
    let p = n.parent;
    while (p) {
      if (p.type === AST_NODE_TYPES.UnaryExpression && p.operator === '!') inside = !inside;
      else if (p.type === AST_NODE_TYPES.BinaryExpression && (p.operator === '===' || p.operator === '==' || p.operator === '!==' || p.operator === '!=')) {
        const other = p.left === n ? p.right : p.left;
        const o = unwrap(other);
        if (o.type === AST_NODE_TYPES.Literal && typeof o.value === 'boolean') {
          if ((o.value === false) !== (p.operator === '!==' || p.operator === '!=')) inside = !inside;
        } else return false;
      } else if (p.type === AST_NODE_TYPES.LogicalExpression) {
        if (p.left === n && p.operator === '&&' && inside && isInside(pos, p.right)) return true;
        if (p.left === n && p.operator === '||' && !inside && isInside(pos, p.right)) return true;
      } else if (p.type === AST_NODE_TYPES.IfStatement && p.test === n) {
        if (isInside(pos, p.consequent)) return inside;
        if (p.alternate && isInside(pos, p.alternate)) return !inside;
        if (!inside && exits(p.consequent) && pos.range[0] > p.range[1] && sameOrEnclosingBlock(p, pos)) return true;
        return false;
      } else if (p.type === AST_NODE_TYPES.ConditionalExpression && p.test === n) {
        if (isInside(pos, p.consequent)) return inside;
        if (isInside(pos, p.alternate)) return !inside;
        return false;
      } else if (p.type === AST_NODE_TYPES.ExpressionStatement || (p.type === AST_NODE_TYPES.AwaitExpression && p.parent?.type === AST_NODE_TYPES.ExpressionStatement)) {
        // assertInside(root, p); — a guard called for its throw.
        const stmt = p.type === AST_NODE_TYPES.ExpressionStatement ? p : (p.parent as TSESTree.ExpressionStatement);
        return check.type === AST_NODE_TYPES.CallExpression && unwrap(stmt.expression) === check && pos.range[0] > stmt.range[1] && sameOrEnclosingBlock(stmt, pos);
      } else if (p.type === AST_NODE_TYPES.ReturnStatement || isFunction(p) || p.type === AST_NODE_TYPES.BlockStatement) {
        return false;
      } else if (p.type === AST_NODE_TYPES.CallExpression && p.callee.type === AST_NODE_TYPES.MemberExpression && ['some', 'every', 'find', 'filter'].includes(memberName(p.callee) ?? '')) {
        // dirs.some(d => p.startsWith(d + sep)): the check of one element stands for the whole test.
      } else if (p.type === AST_NODE_TYPES.AwaitExpression || p.type === AST_NODE_TYPES.TSAsExpression || p.type === AST_NODE_TYPES.TSNonNullExpression || p.type === AST_NODE_TYPES.ChainExpression) {
        // transparent
      } else if (p.type === AST_NODE_TYPES.VariableDeclarator && p.init === n && p.id.type === AST_NODE_TYPES.Identifier) {
        // const ok = check; if (!ok) throw … — follow the flag.
        const fv = this.model.facts.variableOf(p.id);
        if (!fv) return false;
        return fv.references.some((ref) => !ref.init && this.protects(ref.identifier, inside, pos));
      }
      n = p;
      p = p.parent;
    }
    return false;
  }

  /**
   * A same-file function the analysis can see reject an escape: it holds a sound check on something derived from its
   * parameters and throws/returns on the outside case (or returns the check). Unsound when its only checks look right
   * and are not, or when it lets everything through while its allow-list is empty (fail-open). Null: not a guard.
   */
  guardFunction(fn: FunctionNode): GuardVerdict {
    if (this.guardFns.has(fn)) return this.guardFns.get(fn)!;
    this.guardFns.set(fn, null);
    const verdict = this.computeGuardFunction(fn);
    this.guardFns.set(fn, verdict);
    return verdict;
  }

  private computeGuardFunction(fn: FunctionNode): GuardVerdict {
    const facts = this.model.facts;
    let sound = false;
    let unsound: GuardVerdict = null;
    for (const call of facts.allCalls) {
      if (call.type !== AST_NODE_TYPES.CallExpression || !isInside(call, fn) || call === fn.parent) continue;
      const callee = unwrap(call.callee);
      if (callee.type !== AST_NODE_TYPES.MemberExpression || callee.computed) {
        // A guard built on another guard (`validateOutputPath` calling `isPathUnderRoot`).
        const inner = resolveValues(facts, callee).flatMap((v) => (v.kind === 'function' && v.node !== fn ? [this.guardFunction(v.node)] : []));
        if (inner.length && inner.every((x) => x && x.sound)) sound = true;
        else if (inner.some((x) => x && !x.sound)) unsound ??= inner.find((x) => x && !x.sound)!;
        continue;
      }
      const m = memberName(callee);
      if (m === 'startsWith' && call.arguments[0]) {
        const obj = unwrap(callee.object);
        const arg0 = staticString(call.arguments[0]);
        if (arg0 !== null) {
          if (arg0.startsWith('..') && this.isRelativeValue(obj)) sound = true;
          continue;
        }
        if (this.endsWithSeparator(call.arguments[0], 0)) {
          if (obj.type === AST_NODE_TYPES.Identifier) {
            const v = facts.variableOf(obj);
            if (v && !this.normalised(v) && v.defs[0]?.type !== 'Parameter') {
              unsound ??= { sound: false, node: call, reason: 'the path is checked before `..` segments are resolved (no path.resolve/realpath first)' };
              continue;
            }
          }
          sound = true;
        } else unsound ??= { sound: false, node: call, reason: 'startsWith(root) without a trailing separator also accepts a sibling (`/runs/a` vs `/runs/ab`)' };
      }
      if (m === 'test') {
        const re = this.regexOf(callee.object);
        if (re) {
          const escapes = PATH_ESCAPES.filter((s) => re.test(s));
          if (escapes.length === 0) sound = true;
        }
      }
    }
    if (!sound && !unsound) return null;
    if (!sound) return unsound;
    const failOpen = this.failOpen(fn);
    if (failOpen) return { sound: false, node: failOpen, reason: 'it lets every path through when its allow-list is empty (fail-open)' };
    return { sound: true };
  }

  private isRelativeValue(n: Node): boolean {
    const u = unwrap(n);
    if (u.type === AST_NODE_TYPES.CallExpression) {
      const ref = moduleRef(this.model.facts, u.callee, this.options.modules);
      return !!ref && ref.module === 'path' && ref.path[ref.path.length - 1] === 'relative';
    }
    if (u.type === AST_NODE_TYPES.Identifier) {
      const v = this.model.facts.variableOf(u);
      const def = v?.defs[0];
      if (def?.type === 'Variable') {
        const init = (def.node as TSESTree.VariableDeclarator).init;
        return !!init && this.isRelativeValue(init);
      }
    }
    return false;
  }

  /** `if (!allowed.length) return true;` / `if (allowed.length === 0) return p;` inside a guard. */
  private failOpen(fn: FunctionNode): Node | null {
    const stack: Node[] = fn.body.type === AST_NODE_TYPES.BlockStatement ? [...fn.body.body] : [];
    while (stack.length) {
      const s = stack.pop()!;
      if (s.type === AST_NODE_TYPES.IfStatement) {
        if (testsEmpty(s.test) && lets(s.consequent, fn)) return s;
        stack.push(s.consequent);
        if (s.alternate) stack.push(s.alternate);
      } else if (s.type === AST_NODE_TYPES.BlockStatement) append(stack, s.body);
    }
    return null;
  }
}

/** What a reject-first check rules out: an `..` segment, an absolute path, or any separator (a plain name). */
type RejectPart = 'dotdot' | 'absolute' | 'separator';

/** The check expression a reference sits in: `p.split(…).some(…)` for `p`, `isAbsolute(p)`, `badSegment(p)`. */
function checkExpressionOf(r: Node): Node {
  let n: Node = r;
  for (let i = 0; i < 4; i++) {
    const p = n.parent;
    if (p?.type === AST_NODE_TYPES.MemberExpression && p.object === n) n = p;
    else if (p?.type === AST_NODE_TYPES.CallExpression && p.callee === n) n = p;
    else break;
  }
  const p = n.parent;
  if (p?.type === AST_NODE_TYPES.CallExpression && p.arguments.includes(n as never)) return p;
  if (p?.type === AST_NODE_TYPES.BinaryExpression && n === r && (p.operator === '===' || p.operator === '==')) return p;
  return n;
}

/** `s === '..'` (either side), possibly one of several `||`-joined comparisons. */
function comparesToDotDot(e: Node): boolean {
  const n = unwrap(e);
  if (n.type === AST_NODE_TYPES.LogicalExpression && n.operator === '||') return comparesToDotDot(n.left) || comparesToDotDot(n.right);
  return n.type === AST_NODE_TYPES.BinaryExpression && (n.operator === '===' || n.operator === '==') && (staticString(n.left) === '..' || staticString(n.right) === '..');
}

const guardsByModel = new WeakMap<ModuleModel, Map<string, Guards>>();

/** The guard reasoning of another module (memoised per model and options), for guards that live in another file. */
export function guardsFor(model: ModuleModel, options: PathOptions): Guards {
  return cachedPer(guardsByModel, model, JSON.stringify(options), () => new Guards(model, options));
}

/** A statement (or block) that always leaves: throw, return, continue, break, or `process.exit()`. */
export function exits(s: Node): boolean {
  switch (s.type) {
    case AST_NODE_TYPES.ThrowStatement:
    case AST_NODE_TYPES.ReturnStatement:
    case AST_NODE_TYPES.ContinueStatement:
    case AST_NODE_TYPES.BreakStatement:
      return true;
    case AST_NODE_TYPES.BlockStatement:
      return s.body.some((b) => exits(b));
    case AST_NODE_TYPES.IfStatement:
      return !!s.alternate && exits(s.consequent) && exits(s.alternate);
    default:
      return false;
  }
}

/** `pos` runs after `stmt` in the same block or a block nested in it (stmt's block encloses pos). */
function sameOrEnclosingBlock(stmt: Node, pos: Node): boolean {
  const block = stmt.parent;
  return !!block && isInside(pos, block);
}

function testsEmpty(test: Node): boolean {
  const t = unwrap(test);
  if (t.type === AST_NODE_TYPES.LogicalExpression) return testsEmpty(t.left) || testsEmpty(t.right);
  if (t.type === AST_NODE_TYPES.UnaryExpression && t.operator === '!') {
    const a = unwrap(t.argument);
    return (a.type === AST_NODE_TYPES.MemberExpression && memberName(a) === 'length') || a.type === AST_NODE_TYPES.Identifier || a.type === AST_NODE_TYPES.MemberExpression;
  }
  if (t.type === AST_NODE_TYPES.BinaryExpression) {
    const l = unwrap(t.left);
    const r = unwrap(t.right);
    const isLen = (x: Node) => x.type === AST_NODE_TYPES.MemberExpression && memberName(x) === 'length';
    const zero = (x: Node) => x.type === AST_NODE_TYPES.Literal && (x.value === 0 || x.value === 1);
    return (isLen(l) && zero(r)) || (isLen(r) && zero(l));
  }
  return false;
}

/** A branch that lets the path through: `return true`, or `return <param>`. */
function lets(s: Node, fn: FunctionNode): boolean {
  const stmts = s.type === AST_NODE_TYPES.BlockStatement ? s.body : [s];
  for (const st of stmts) {
    if (st.type !== AST_NODE_TYPES.ReturnStatement || !st.argument) continue;
    const a = unwrap(st.argument);
    if (a.type === AST_NODE_TYPES.Literal && a.value === true) return true;
    if (a.type === AST_NODE_TYPES.Identifier && fn.params.some((p) => paramBinds(p, a.name))) return true;
  }
  return false;
}
