import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CircuitBreaker, type BreakerHooks } from "../../src/mcp/circuit-breaker.js";

/** Hooks that record what the breaker did, with the probe's answers given in order. */
function recorder(answers: boolean[]): BreakerHooks & { events: string[]; probes: number } {
  const hooks = {
    events: [] as string[],
    probes: 0,
    probe: () => {
      hooks.probes += 1;
      return Promise.resolve(answers.shift() ?? false);
    },
    opened: (reason: string, retryInMs: number) => void hooks.events.push(`opened ${retryInMs}: ${reason}`),
    closed: () => void hooks.events.push("closed"),
  };
  return hooks;
}

// The breaker's waits are timers and its "tried again in N s" reads the clock: both are faked, so
// a minute of open time costs nothing here.
describe("CircuitBreaker", () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] }));
  afterEach(() => void vi.useRealTimers());

  const limits = { minMs: 10_000, maxMs: 60_000 };

  it("opens after `threshold` timeouts in a row, and an answer in between starts the count again", () => {
    const hooks = recorder([]);
    const breaker = new CircuitBreaker(2, limits, "srv", hooks);
    breaker.timedOut();
    breaker.answered();
    breaker.timedOut();
    expect(breaker.openReason()).toBeUndefined();
    breaker.timedOut();
    expect(breaker.openReason()).toMatch(
      /^srv is not answering \(its last 2 calls timed out\); its calls fail at once until it is tried again in (5|6|7|8|9|10) s$/,
    );
    expect(hooks.events).toHaveLength(1);
    breaker.stop();
  });

  it("counts the open time down on the clock, probes when it is over, and closes on an answer", async () => {
    const hooks = recorder([true]);
    const breaker = new CircuitBreaker(1, limits, "srv", hooks);
    breaker.timedOut();
    const retryInMs = Number(/^opened (\d+)/.exec(hooks.events[0]!)![1]);
    await vi.advanceTimersByTimeAsync(retryInMs - 3_000);
    expect(breaker.openReason()).toMatch(/tried again in 3 s$/);
    expect(hooks.probes).toBe(0);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(hooks.probes).toBe(1);
    expect(breaker.openReason()).toBeUndefined();
    expect(hooks.events.at(-1)).toBe("closed");
  });

  it("opens again for longer when the probe gets no answer, up to retryMaxDelayMs", async () => {
    const hooks = recorder([false, false, false, false]);
    const breaker = new CircuitBreaker(1, limits, "srv", hooks);
    breaker.timedOut();
    const delays = () => hooks.events.map((e) => Number(/^opened (\d+)/.exec(e)![1]));
    for (let round = 0; round < 4; round += 1) await vi.advanceTimersByTimeAsync(delays().at(-1)!);
    expect(hooks.probes).toBe(4);
    expect(delays()).toHaveLength(5);
    // Equal jitter: each delay lies in the upper half of min × 2^n, capped at max.
    delays().forEach((delay, n) => {
      const cap = Math.min(limits.maxMs, limits.minMs * 2 ** n);
      expect(delay).toBeGreaterThanOrEqual(cap / 2);
      expect(delay).toBeLessThanOrEqual(cap);
    });
    breaker.stop();
  });

  it("stop() cancels the pending probe: nothing runs after it", async () => {
    const hooks = recorder([true]);
    const breaker = new CircuitBreaker(1, limits, "srv", hooks);
    breaker.timedOut();
    breaker.stop();
    await vi.advanceTimersByTimeAsync(limits.maxMs * 2);
    expect(hooks.probes).toBe(0);
    expect(breaker.openReason()).toBeUndefined();
  });
});
