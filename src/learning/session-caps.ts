/**
 * Which tools each contributor (a session; in the shared scope a tenant) has taught, for the
 * per-session cap (maxToolsPerSession). Bounded: at most `max` contributors are remembered in
 * all, shared fairly between the tenants of their scopes (scope-keys.ts; fair-shares.ts), so a
 * tenant minting sessions makes its own old sessions forget their caps, never another tenant's
 * while it holds more than they do.
 */
import { FairShares } from "./fair-shares.js";

export class SessionCaps {
  readonly #taught: FairShares<Set<string>>;

  constructor(max: number) {
    this.#taught = new FairShares(max);
  }

  /** The tools this contributor has taught (a new, empty set the first time), marked as just used. */
  taught(tenant: string, key: string): Set<string> {
    const known = this.#taught.get(tenant, key);
    if (known !== undefined) return known;
    const tools = new Set<string>();
    this.#taught.add(tenant, key, tools);
    return tools;
  }

  get size(): number {
    return this.#taught.size;
  }
}
