/**
 * How much of the main thread each tenant's control-path pieces used lately (their time, halved
 * every second), and which tenants count as active: those that ran a piece in the last ten
 * seconds. Bounded: the least recently active are forgotten first.
 */
import { LruMap } from "../validation/lru.js";

/** Lately used time decays by half in this long. */
const HALF_LIFE_MS = 1_000;
/** A tenant with no piece for this long no longer counts when the share is divided. */
const ACTIVE_MS = 10_000;
/** Tenants remembered at most; past it the least recently active is forgotten. */
const MAX_TRACKED = 4_096;

interface Used {
  ms: number;
  at: number;
}

export class TenantUsage {
  /** Least recently charged first (peek, not get: a look must not reorder them). */
  readonly #byTenant = new LruMap<string, Used>(MAX_TRACKED);
  #total: Used = { ms: 0, at: 0 };

  /** `ms` more used by `tenant`, at `now` (performance.now()). */
  charge(tenant: string, ms: number, now: number): void {
    const used = this.#byTenant.peek(tenant);
    this.#byTenant.set(tenant, { ms: (used ? decayed(used, now) : 0) + ms, at: now });
    this.#total = { ms: decayed(this.#total, now) + ms, at: now };
  }

  /**
   * Whether `tenant` used at most its even share of what the active tenants used lately: true
   * for a tenant alone, a newcomer, or one that sends little while another floods.
   */
  withinShare(tenant: string, now: number): boolean {
    this.#forgetInactive(now);
    const used = this.#byTenant.peek(tenant);
    if (used === undefined) return true;
    const active = this.#byTenant.size;
    return active === 1 || decayed(used, now) * active <= decayed(this.#total, now);
  }

  #forgetInactive(now: number): void {
    for (const [tenant, used] of this.#byTenant.entries()) {
      if (now - used.at < ACTIVE_MS) return;
      this.#byTenant.delete(tenant);
    }
  }
}

function decayed(used: Used, now: number): number {
  return used.ms * 0.5 ** ((now - used.at) / HALF_LIFE_MS);
}
