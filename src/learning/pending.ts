/**
 * Observations made since the last write to the store, bounded: past `max` the oldest of the
 * tenant holding the most goes, so one tenant flooding observations (or a store too slow to keep
 * up) drops its own, never what another tenant's sessions taught. A scope's tenant is its owner
 * (scope-keys.ts); in the shared scope, where every tenant is one contributor, the contributor.
 */
import type { Observation } from "./model.js";
import { SHARED_SCOPE, ownerOfScope } from "./scope-keys.js";

export class PendingObservations {
  /** Queue per tenant, oldest first. */
  readonly #byTenant = new Map<string, Observation[]>();
  #size = 0;
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#size;
  }

  push(o: Observation): void {
    const tenant = o.scope === SHARED_SCOPE ? `shared:${o.contributor}` : ownerOfScope(o.scope);
    let queue = this.#byTenant.get(tenant);
    if (queue === undefined) this.#byTenant.set(tenant, (queue = []));
    queue.push(o);
    this.#size++;
    while (this.#size > this.#max) this.#dropOldestOfLargest();
  }

  /** Everything held, and nothing is held after. */
  drain(): Observation[] {
    const all = [...this.#byTenant.values()].flat();
    this.#byTenant.clear();
    this.#size = 0;
    return all;
  }

  /** A write failed: what it drained goes back, ahead of what came in meanwhile (within the bound). */
  restore(older: readonly Observation[]): void {
    const newer = this.drain();
    for (const o of [...older, ...newer]) this.push(o);
  }

  *[Symbol.iterator](): IterableIterator<Observation> {
    for (const queue of this.#byTenant.values()) yield* queue;
  }

  #dropOldestOfLargest(): void {
    let largest: [string, Observation[]] | undefined;
    for (const entry of this.#byTenant) if (largest === undefined || entry[1].length > largest[1].length) largest = entry;
    if (largest === undefined) return;
    largest[1].shift();
    this.#size--;
    if (largest[1].length === 0) this.#byTenant.delete(largest[0]);
  }
}
