// Long-lived state that per-request HTTP code writes and handler code reads: the route (or middleware, or a
// transport's session callback) stores one request's value, such as its bearer token, in a binding every call shares,
// and a concurrent call's handler reads whichever request came last.
import type { Node } from './ast.js';
import { independentOfCalls } from './memo.js';
import type { ModuleModel } from './model.js';
import { isReset, type StateAccess } from './state.js';
import { getWiring, type Route } from './wiring.js';

export interface RequestWrite {
  /** The write, in per-request code that serves no call. */
  write: StateAccess;
  /** The per-request function whose code makes it. */
  route: Route;
  /** The first read of what it stores in handler code, preferring one in another handler. */
  read: StateAccess;
}

const cache = new WeakMap<ModuleModel, readonly RequestWrite[]>();

/**
 * Writes (`token = …`, `client.token = …`, through a method of a long-lived object) made by per-request code outside
 * handler code, of a binding that handler code reads back. Left out: emptying it, and a value that takes nothing from
 * any request (`Date.now()`, a constant, a fresh empty container). A lazy fill in per-request code (`if (!client)
 * client = …`) is no-first-caller-cache's question, not this one.
 */
export function requestWrites(model: ModuleModel): readonly RequestWrite[] {
  let out = cache.get(model);
  if (out) return out;
  out = [];
  cache.set(model, out);
  if (!model.servesCalls || !model.facts.indexed) return out;
  const readKeys = new Set<string>();
  for (const a of model.stateAccesses()) if (a.kind === 'read') readKeys.add(a.binding.key);
  if (readKeys.size === 0) return out;
  const wiring = getWiring(model.facts);
  if (wiring.routes.length === 0) return out;
  const isRequestCode = (n: Node) => wiring.routeOf(n) !== null && !model.isHandlerCode(n);
  const list = out as RequestWrite[];
  for (const w of model.accessesIn(isRequestCode)) {
    if ((w.kind !== 'assign' && w.kind !== 'fieldWrite') || !readKeys.has(w.binding.key)) continue;
    if (isReset(w.value) || (w.value && independentOfCalls(model, w.value))) continue;
    const { first, other } = model.readsOf(w);
    const read = other ?? first;
    const route = wiring.routeOf(w.node);
    if (read && route) list.push({ write: w, route, read });
  }
  return out;
}
