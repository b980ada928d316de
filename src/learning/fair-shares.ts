/**
 * Entries owned by tenants, bounded in all: past `max`, the tenant holding the most loses its
 * least recently used entry, so one tenant's flood evicts its own, never another tenant's while it
 * holds more than they do. Serves the per-session cap's bookkeeping (session-caps.ts) and the
 * observations waiting for the store (pending.ts).
 */
export class FairShares<V> {
  /** tenant → key → value; each inner map least recently used first. */
  readonly #byTenant = new Map<string, Map<string, V>>();
  #size = 0;
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#size;
  }

  /** The value under `key`, marked as just used. */
  get(tenant: string, key: string): V | undefined {
    const mine = this.#byTenant.get(tenant);
    const value = mine?.get(key);
    if (mine === undefined || value === undefined) return undefined;
    mine.delete(key);
    mine.set(key, value);
    return value;
  }

  /** Adds a new entry (most recently used), then evicts down to the bound. */
  add(tenant: string, key: string, value: V): void {
    let mine = this.#byTenant.get(tenant);
    if (mine === undefined) this.#byTenant.set(tenant, (mine = new Map()));
    mine.set(key, value);
    this.#size++;
    while (this.#size > this.#max) this.#evictOne();
  }

  /** Every value, tenant by tenant, oldest first within each. */
  *values(): IterableIterator<V> {
    for (const mine of this.#byTenant.values()) yield* mine.values();
  }

  clear(): void {
    this.#byTenant.clear();
    this.#size = 0;
  }

  /** The tenant holding the most loses its least recently used entry. */
  #evictOne(): void {
    let largest: [string, Map<string, V>] | undefined;
    for (const entry of this.#byTenant) if (largest === undefined || entry[1].size > largest[1].size) largest = entry;
    if (largest === undefined) return;
    const [tenant, mine] = largest;
    const oldest = mine.keys().next();
    if (!oldest.done) mine.delete(oldest.value);
    this.#size--;
    if (mine.size === 0) this.#byTenant.delete(tenant);
  }
}
