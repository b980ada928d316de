/**
 * One MCP server's call slots, shared fairly by tenants.
 *
 * At most `maxConcurrent` calls are sent to the server at once; the others wait here, one FIFO
 * line per tenant, each line bounded (`maxQueuedPerTenant`, past it TOOL_BUSY at once) and all of
 * them together too. When a slot frees, the waiting tenant served least recently goes next (a
 * tenant that had nothing in flight and nothing waiting when it asked counts as never served), so a tenant that queued a hundred slow
 * calls delays another tenant's call by at most one of its own calls per slot, not by a hundred.
 * Plain round-robin over the lines would not do: a flooder's first call goes straight to the
 * server without ever waiting, so its line would still stand in front of a later tenant's.
 */
import { onAbort } from "../abort-listeners.js";
import { ToolBusyError } from "../errors.js";

export interface CallSlotLimits {
  maxConcurrent: number;
  maxQueuedPerTenant: number;
  /** Waiting calls of every tenant together (the shared parent's bound). */
  maxQueued: number;
}

interface Waiter {
  tenant: string;
  id: string;
  grant(release: () => void): void;
  fail(error: unknown): void;
}

export class CallSlots {
  private running = 0;
  private queued = 0;
  /** Tenant → its waiting calls, oldest first (only tenants with something waiting). */
  private readonly lines = new Map<string, Waiter[]>();
  /** Tenant → its calls in flight (only tenants with some). */
  private readonly inFlight = new Map<string, number>();
  /** Tenant → when it was last given a slot (only tenants with something in flight or waiting). */
  private readonly lastServed = new Map<string, number>();
  private served = 0;

  constructor(
    private readonly limits: CallSlotLimits,
    private readonly label: string,
  ) {}

  /** Calls in flight and waiting, for status. */
  counts(): { running: number; queued: number } {
    return { running: this.running, queued: this.queued };
  }

  /**
   * Resolves with a release function once `tenant` may send its call; `signal` takes the call out
   * of the line (rejecting with the signal's reason). A full line rejects at once with TOOL_BUSY.
   */
  acquire(tenant: string, id: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    if (this.running < this.limits.maxConcurrent && this.queued === 0) return Promise.resolve(this.take(tenant));
    const line = this.lines.get(tenant) ?? [];
    if (line.length >= this.limits.maxQueuedPerTenant) {
      return Promise.reject(
        new ToolBusyError(id, `${this.label} has ${this.running} call(s) in flight and ${line.length} of yours waiting (maxQueuedCallsPerTenant)`),
      );
    }
    if (this.queued >= this.limits.maxQueued) {
      return Promise.reject(new ToolBusyError(id, `${this.label} has ${this.queued} calls waiting, the most it queues`));
    }
    return new Promise<() => void>((resolve, reject) => {
      let off = (): void => {};
      const waiter: Waiter = {
        tenant,
        id,
        grant: (release) => {
          off();
          resolve(release);
        },
        fail: (error) => {
          off();
          reject(error as Error);
        },
      };
      off = onAbort(signal, () => {
        if (this.remove(waiter)) waiter.fail(signal.reason);
      });
      line.push(waiter);
      this.lines.set(tenant, line);
      this.queued += 1;
      this.lastServed.set(tenant, this.lastServed.get(tenant) ?? -1);
    });
  }

  /** Fails every waiting call with `error` (the server went away, its breaker opened); calls in flight go on. */
  failWaiting(error: (id: string) => unknown): void {
    const waiting = [...this.lines.values()].flat();
    this.lines.clear();
    this.queued = 0;
    for (const waiter of waiting) {
      if (!this.inFlight.has(waiter.tenant)) this.lastServed.delete(waiter.tenant);
      waiter.fail(error(waiter.id));
    }
  }

  private take(tenant: string): () => void {
    this.running += 1;
    this.inFlight.set(tenant, (this.inFlight.get(tenant) ?? 0) + 1);
    this.lastServed.set(tenant, (this.served += 1));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      const left = (this.inFlight.get(tenant) ?? 1) - 1;
      if (left > 0) this.inFlight.set(tenant, left);
      else {
        this.inFlight.delete(tenant);
        // A tenant with nothing in flight and nothing waiting starts afresh: its next call is not behind anyone's.
        if (!this.lines.has(tenant)) this.lastServed.delete(tenant);
      }
      this.dispatch();
    };
  }

  private dispatch(): void {
    while (this.running < this.limits.maxConcurrent && this.queued > 0) {
      const tenant = this.nextTenant();
      const line = this.lines.get(tenant)!;
      const waiter = line.shift()!;
      if (line.length === 0) this.lines.delete(tenant);
      this.queued -= 1;
      waiter.grant(this.take(tenant));
    }
  }

  /** The waiting tenant served least recently (linear in the tenants waiting, which the queue bound bounds). */
  private nextTenant(): string {
    let best: string | undefined;
    let bestServed = Number.POSITIVE_INFINITY;
    for (const tenant of this.lines.keys()) {
      const served = this.lastServed.get(tenant) ?? -1;
      if (served < bestServed) {
        best = tenant;
        bestServed = served;
      }
    }
    return best!;
  }

  private remove(waiter: Waiter): boolean {
    const line = this.lines.get(waiter.tenant);
    const at = line ? line.indexOf(waiter) : -1;
    if (!line || at < 0) return false;
    line.splice(at, 1);
    if (line.length === 0) {
      this.lines.delete(waiter.tenant);
      if (!this.inFlight.has(waiter.tenant)) this.lastServed.delete(waiter.tenant);
    }
    this.queued -= 1;
    return true;
  }
}
