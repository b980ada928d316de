/**
 * Observations made since the last write to the store, bounded: past `max` the oldest of the
 * tenant holding the most goes (fair-shares.ts), so one tenant flooding observations (or a store
 * too slow to keep up) drops its own, never what another tenant's sessions taught. An
 * observation counts against its scope's tenant (scope-keys.ts); in the shared scope, where
 * every tenant is one contributor, against the contributor.
 */
import { FairShares } from "./fair-shares.js";
import type { Observation } from "./model.js";
import { SHARED_SCOPE, tenantOfScope } from "./scope-keys.js";

export class PendingObservations {
  readonly #queued: FairShares<Observation>;
  /** Keys in arrival order (each observation is its own entry). */
  #next = 0;

  constructor(max: number) {
    this.#queued = new FairShares(max);
  }

  get size(): number {
    return this.#queued.size;
  }

  push(o: Observation): void {
    const tenant = o.scope === SHARED_SCOPE ? `shared:${o.contributor}` : tenantOfScope(o.scope);
    this.#queued.add(tenant, String(this.#next++), o);
  }

  /** Everything held, and nothing is held after. */
  drain(): Observation[] {
    const all = [...this.#queued.values()];
    this.#queued.clear();
    return all;
  }

  /** A write failed: what it drained goes back, ahead of what came in meanwhile (within the bound). */
  restore(older: readonly Observation[]): void {
    const newer = this.drain();
    for (const o of [...older, ...newer]) this.push(o);
  }

  [Symbol.iterator](): IterableIterator<Observation> {
    return this.#queued.values();
  }
}
