/**
 * The value kept for (owner, key): made once by `make`, collected with its owner. The analysis' caches are all of this
 * shape (a model or program, then its options or settings as a string key), never module-level state keyed by file.
 */
export function cachedPer<O extends object, V>(cache: WeakMap<O, Map<string, V>>, owner: O, key: string, make: () => V): V {
  let per = cache.get(owner);
  if (!per) {
    per = new Map();
    cache.set(owner, per);
  }
  let value = per.get(key);
  if (value === undefined) {
    value = make();
    per.set(key, value);
  }
  return value;
}

/** The value kept for one owner (a module's facts, a variable, a visitor-key table): made once, collected with it. */
export function cachedFor<O extends object, V>(cache: WeakMap<O, V>, owner: O, make: () => V): V {
  let value = cache.get(owner);
  if (value === undefined) {
    value = make();
    cache.set(owner, value);
  }
  return value;
}
