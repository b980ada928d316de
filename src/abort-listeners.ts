/**
 * One real "abort" listener per signal, fanned out to any number of callbacks. A run's signal
 * is listened to by every body, pool waiter and bridged call in flight at once: as plain
 * listeners, 11 of them made Node print MaxListenersExceededWarning (issue 12), and raising the
 * limit would only hide a real leak elsewhere. Here the signal carries one listener, removed
 * when the last callback is released, and the callbacks live in a Set only while registered.
 *
 * Same semantics as `addEventListener("abort", fn, { once: true })`: each callback is called at
 * most once, and not at all when the signal had already aborted (callers check `aborted` first).
 */
interface Fanout {
  readonly callbacks: Set<() => void>;
  readonly fire: () => void;
}

const fanouts = new WeakMap<AbortSignal, Fanout>();

/** Calls `callback` when `signal` aborts; the returned function unregisters it (idempotent). */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let fanout = fanouts.get(signal);
  if (fanout === undefined) {
    const callbacks = new Set<() => void>();
    const fire = (): void => {
      fanouts.delete(signal);
      const pending = [...callbacks];
      callbacks.clear();
      for (const cb of pending) cb();
    };
    fanout = { callbacks, fire };
    fanouts.set(signal, fanout);
    signal.addEventListener("abort", fire, { once: true });
  }
  // A wrapper, so one function registered twice is two registrations.
  const entry = (): void => callback();
  const { callbacks, fire } = fanout;
  callbacks.add(entry);
  return () => {
    if (!callbacks.delete(entry) || callbacks.size > 0) return;
    if (fanouts.get(signal)?.callbacks === callbacks) {
      fanouts.delete(signal);
      signal.removeEventListener("abort", fire);
    }
  };
}

/** How many real "abort" listeners this module holds on `signal` (0 or 1): for tests. */
export function abortListenerCount(signal: AbortSignal): number {
  return fanouts.has(signal) ? 1 : 0;
}
