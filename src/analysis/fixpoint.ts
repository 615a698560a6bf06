/**
 * A memoised, linear solver for facts that flow along a dependency graph with cycles (a value's origins are the union
 * of what it is built from; a variable's, the union of everything assigned to it). Each key is expanded once over the
 * solver's life: strongly connected components (Tarjan, iterative so no input can overflow the stack) are solved
 * together, by iterating their members to a fixpoint; everything else is computed once from finished dependencies.
 */
export interface FlowSpec<K, V> {
  /** The keys this key's value is computed from. */
  deps(key: K): readonly K[];
  /** This key's value, from the current values of its dependencies (`get` of a key never seen yields `bottom`). */
  combine(key: K, get: (dep: K) => V): V;
  equal(a: V, b: V): boolean;
  readonly bottom: V;
}

interface Frame<K> {
  key: K;
  deps: readonly K[];
  next: number;
}

export class FlowSolver<K, V> {
  private readonly done = new Map<K, V>();

  constructor(
    private readonly spec: FlowSpec<K, V>,
    /** Called once per expanded key (the analysis' step budget). */
    private readonly tick: () => void = () => {},
  ) {}

  get(root: K): V {
    const known = this.done.get(root);
    if (known !== undefined) return known;
    this.solve(root);
    return this.done.get(root) ?? this.spec.bottom;
  }

  private solve(root: K): void {
    const spec = this.spec;
    const index = new Map<K, number>();
    const low = new Map<K, number>();
    const onStack = new Set<K>();
    const sccStack: K[] = [];
    const work: Frame<K>[] = [];
    let counter = 0;
    const enter = (key: K) => {
      this.tick();
      index.set(key, counter);
      low.set(key, counter);
      counter++;
      sccStack.push(key);
      onStack.add(key);
      work.push({ key, deps: spec.deps(key), next: 0 });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame.next < frame.deps.length) {
        const dep = frame.deps[frame.next++];
        if (this.done.has(dep)) continue;
        if (!index.has(dep)) {
          enter(dep);
        } else if (onStack.has(dep)) {
          low.set(frame.key, Math.min(low.get(frame.key)!, index.get(dep)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.key, Math.min(low.get(parent.key)!, low.get(frame.key)!));
      if (low.get(frame.key) !== index.get(frame.key)) continue;
      // frame.key is the root of a component: pop it and solve it.
      const members: K[] = [];
      for (;;) {
        const k = sccStack.pop()!;
        onStack.delete(k);
        members.push(k);
        if (k === frame.key) break;
      }
      this.finish(members);
    }
  }

  private finish(members: K[]): void {
    const spec = this.spec;
    if (members.length === 1 && !spec.deps(members[0]).includes(members[0])) {
      const k = members[0];
      this.done.set(k, spec.combine(k, (d) => this.done.get(d) ?? spec.bottom));
      return;
    }
    const current = new Map<K, V>();
    const get = (d: K): V => current.get(d) ?? this.done.get(d) ?? spec.bottom;
    // Values only grow; with a finite lattice this stops after a few rounds. The bound is a belt and braces.
    for (let round = 0; round < 64; round++) {
      let changed = false;
      for (const k of members) {
        this.tick();
        const next = spec.combine(k, get);
        const prev = current.get(k);
        if (prev === undefined || !spec.equal(prev, next)) {
          current.set(k, next);
          changed = true;
        }
      }
      if (!changed) break;
    }
    for (const k of members) this.done.set(k, current.get(k) ?? spec.bottom);
  }
}
