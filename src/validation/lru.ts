/**
 * A Map with a size bound: reads (get) and writes (set) refresh an entry, and past `max` entries
 * the least recently used one is dropped (and handed to `onEvict`). Every cache and table on the
 * shared parent that untrusted input can fill is one of these, so none of them grows without
 * bound and none evicts by hand. `peek` reads without refreshing, for tables ordered by when an
 * entry was last written (a run's start, a tenant's last charge) rather than last read.
 */
import { InternalError } from "../errors.js";

export class LruMap<K, V> {
  readonly #map = new Map<K, V>();

  constructor(
    readonly max: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {
    // Every bound is a constant or an already-checked option of ours: a bad one is our bug.
    if (!Number.isInteger(max) || max < 1) throw new InternalError(`LruMap max must be a positive integer; got ${max}`);
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    // Map keeps insertion order: re-inserting moves the entry to the most recent end.
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.max) {
      const [oldKey, oldValue] = this.#map.entries().next().value as [K, V];
      this.#map.delete(oldKey);
      this.onEvict?.(oldKey, oldValue);
    }
  }

  /** The value without refreshing the entry: for a look that must not change what is evicted next. */
  peek(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Removes the entry without handing it to `onEvict` (it was taken, not pushed out). */
  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  clear(): void {
    this.#map.clear();
  }

  /** Entries, least recently used first. */
  entries(): IterableIterator<[K, V]> {
    return this.#map.entries();
  }

  keys(): IterableIterator<K> {
    return this.#map.keys();
  }

  values(): IterableIterator<V> {
    return this.#map.values();
  }
}
