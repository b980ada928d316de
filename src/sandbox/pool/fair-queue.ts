/**
 * The code pool's wait queue, fair across tenants: one FIFO line per tenant, and the lines take
 * turns (round-robin). One tenant with a hundred bodies waiting delays another tenant's next
 * body by at most one of its own, not by a hundred.
 */

/**
 * Whose a code run is, in the pool's queue and counts: the caller's `tenant` string, or a symbol
 * of its own for a run that names none (not an MCP session's tenant: see mcpface SessionTenantKey).
 */
export type RunTenantKey = string | symbol;

export class FairQueue<T> {
  /** Tenant → its waiting items, oldest first. The Map's order is the turn order. */
  private readonly lines = new Map<RunTenantKey, T[]>();
  private count = 0;

  /** Items waiting, all tenants together. */
  get size(): number {
    return this.count;
  }

  /** Items `tenant` has waiting. */
  sizeOf(tenant: RunTenantKey): number {
    return this.lines.get(tenant)?.length ?? 0;
  }

  /** A tenant with nothing waiting joins at the back of the turn order. */
  push(tenant: RunTenantKey, item: T): void {
    const line = this.lines.get(tenant);
    if (line) line.push(item);
    else this.lines.set(tenant, [item]);
    this.count += 1;
  }

  /** Takes `item` out wherever it waits (a cancelled waiter); false when it was not waiting. */
  remove(tenant: RunTenantKey, item: T): boolean {
    const line = this.lines.get(tenant);
    const at = line ? line.indexOf(item) : -1;
    if (!line || at < 0) return false;
    line.splice(at, 1);
    if (line.length === 0) this.lines.delete(tenant);
    this.count -= 1;
    return true;
  }

  /**
   * The oldest item of the first tenant in turn that `eligible` admits (a tenant at its running
   * share is passed over and keeps its place); that tenant then goes to the back of the turn.
   */
  take(eligible: (tenant: RunTenantKey) => boolean): T | undefined {
    for (const [tenant, line] of this.lines) {
      if (!eligible(tenant)) continue;
      const item = line.shift() as T;
      this.lines.delete(tenant);
      if (line.length > 0) this.lines.set(tenant, line);
      this.count -= 1;
      return item;
    }
    return undefined;
  }

  /** How many items could be taken now, when each tenant may have `allowance(tenant)` more taken. */
  countEligible(allowance: (tenant: RunTenantKey) => number): number {
    let total = 0;
    for (const [tenant, line] of this.lines) total += Math.max(0, Math.min(line.length, allowance(tenant)));
    return total;
  }

  /** Each tenant with items waiting, and how many. */
  *sizes(): IterableIterator<[RunTenantKey, number]> {
    for (const [tenant, line] of this.lines) yield [tenant, line.length];
  }

  /** Empties the queue, returning every item. */
  drain(): T[] {
    const all = [...this.lines.values()].flat();
    this.lines.clear();
    this.count = 0;
    return all;
  }
}
