/**
 * An MCP server's circuit breaker: after `threshold` calls in a row time out, the server is taken
 * as not answering and its calls fail at once (TOOL_UNAVAILABLE, saying when it is tried again)
 * instead of each holding a caller, and a call slot, until its own timeout. When the open time is
 * over a probe (a ping) is sent: an answer closes the breaker, no answer opens it again for longer
 * (Backoff, up to `retryMaxDelayMs`). The open time grows until a call is answered again, so a
 * server that answers pings but never its calls costs fewer timed-out calls each round.
 */
import { Backoff, type BackoffLimits } from "./backoff.js";

export interface BreakerHooks {
  /** Resolves true when the server answered the probe. */
  probe(): Promise<boolean>;
  opened(reason: string, retryInMs: number): void;
  closed(): void;
}

export class CircuitBreaker {
  private timeoutsInARow = 0;
  private openUntil: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly backoff: Backoff;
  private stopped = false;

  constructor(
    private readonly threshold: number,
    limits: BackoffLimits,
    private readonly label: string,
    private readonly hooks: BreakerHooks,
  ) {
    this.backoff = new Backoff(limits);
  }

  /** Why calls fail at once now (for the model: when the server is tried again); undefined when closed. */
  openReason(): string | undefined {
    if (this.openUntil === undefined) return undefined;
    const seconds = Math.max(0, Math.ceil((this.openUntil - Date.now()) / 1000));
    return `${this.label} is not answering (its last ${this.threshold} call${this.threshold === 1 ? "" : "s"} timed out); its calls fail at once until it is tried again in ${seconds} s`;
  }

  /** A call sent to the server timed out. */
  timedOut(): void {
    if (this.threshold === 0 || this.openUntil !== undefined || this.stopped) return;
    this.timeoutsInARow += 1;
    if (this.timeoutsInARow >= this.threshold) this.open();
  }

  /** The server answered a call (a result or an error of its own): it is answering. */
  answered(): void {
    this.timeoutsInARow = 0;
    if (this.openUntil === undefined) this.backoff.reset();
  }

  /** A new connection: nothing is known against it. */
  reset(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timeoutsInARow = 0;
    this.openUntil = undefined;
    this.backoff.reset();
  }

  stop(): void {
    this.stopped = true;
    this.reset();
  }

  private open(): void {
    const delay = this.backoff.next();
    this.openUntil = Date.now() + delay;
    this.timer = setTimeout(() => void this.probe(), delay);
    this.timer.unref();
    this.hooks.opened(this.openReason()!, delay);
  }

  private async probe(): Promise<boolean> {
    this.timer = undefined;
    const answered = await this.hooks.probe().catch(() => false);
    if (this.stopped || this.openUntil === undefined) return answered;
    if (!answered) {
      this.open();
      return false;
    }
    this.openUntil = undefined;
    this.timeoutsInARow = 0;
    this.hooks.closed();
    return true;
  }
}
