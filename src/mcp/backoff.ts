/**
 * Delays between tries of a server that is down (reconnects, probes of an open circuit breaker):
 * exponential in the failures in a row, bounded, with jitter so that the servers of many
 * gateways (or one gateway's many sources) that went down together are not tried in lockstep.
 *
 * Written here rather than taken from a retry library: those retry a function until it succeeds,
 * while here the tries are driven by events (a server going away, a start failing, close), each
 * delay is reported (logs, the breaker's "tried again in N s") and every timer must be cancelled
 * by close(). What is left is the formula below.
 */
export interface BackoffLimits {
  /** The first delay. */
  minMs: number;
  /** No delay is longer. */
  maxMs: number;
}

export class Backoff {
  private failures = 0;

  constructor(
    private readonly limits: BackoffLimits,
    private readonly random: () => number = Math.random,
  ) {}

  /** Failures in a row since the last reset. */
  get count(): number {
    return this.failures;
  }

  /**
   * Counts one more failure and returns the delay before the next try: min × 2^(failures − 1),
   * capped at max, then "equal jitter" (a random point in its upper half), so a delay is never
   * near zero and never past the cap.
   */
  next(): number {
    this.failures += 1;
    const exponent = Math.min(this.failures - 1, 40);
    const cap = Math.min(this.limits.maxMs, this.limits.minMs * 2 ** exponent);
    return Math.round(cap / 2 + (this.random() * cap) / 2);
  }

  reset(): void {
    this.failures = 0;
  }
}
