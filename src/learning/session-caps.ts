/**
 * Which tools each contributor (a session; in the shared scope a tenant) has taught, for the
 * per-session cap (maxToolsPerSession). Bounded: at most `max` contributors are remembered in
 * all. Past it, the least recently seen contributor of the owner that remembers the most goes
 * (owners as scope-keys.ts gives them: a scope's tenant), so a tenant minting sessions makes its
 * own old sessions forget their caps, never another tenant's while it holds more than they do.
 */
export class SessionCaps {
  /** owner → contributor key → tools it taught; each inner map least recently used first. */
  readonly #byOwner = new Map<string, Map<string, Set<string>>>();
  #size = 0;
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** The tools this contributor has taught (a new, empty set the first time), marked as just used. */
  taught(owner: string, key: string): Set<string> {
    const known = this.#byOwner.get(owner)?.get(key);
    if (known !== undefined) {
      const mine = this.#byOwner.get(owner)!;
      mine.delete(key);
      mine.set(key, known);
      return known;
    }
    if (this.#size >= this.#max) this.#forgetOne();
    let mine = this.#byOwner.get(owner);
    if (mine === undefined) this.#byOwner.set(owner, (mine = new Map()));
    const tools = new Set<string>();
    mine.set(key, tools);
    this.#size++;
    return tools;
  }

  get size(): number {
    return this.#size;
  }

  /** The owner remembering the most forgets its least recently seen contributor. */
  #forgetOne(): void {
    let largest: [string, Map<string, Set<string>>] | undefined;
    for (const entry of this.#byOwner) if (largest === undefined || entry[1].size > largest[1].size) largest = entry;
    if (largest === undefined) return;
    const [owner, contributors] = largest;
    const oldest = contributors.keys().next();
    if (!oldest.done) contributors.delete(oldest.value);
    this.#size--;
    if (contributors.size === 0) this.#byOwner.delete(owner);
  }
}
