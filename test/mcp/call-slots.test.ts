/** An MCP server's call slots (src/mcp/call-slots.ts) and the delays between tries (src/mcp/backoff.ts), alone. */
import { describe, expect, it } from "vitest";
import { Backoff } from "../../src/mcp/backoff.js";
import { CallSlots } from "../../src/mcp/call-slots.js";

const signal = () => new AbortController().signal;

describe("CallSlots", () => {
  it("gives a free slot at once, and the next slot to the tenant served least recently", async () => {
    const slots = new CallSlots({ maxConcurrent: 1, maxQueuedPerTenant: 10, maxQueued: 100 }, "server");
    const order: string[] = [];
    // Each call "runs" until the next turn of the event loop, then gives its slot back.
    const run = async (tenant: string, label: string) => {
      const release = await slots.acquire(tenant, label, signal());
      order.push(label);
      setImmediate(release);
    };
    const first = run("flooder", "f0");
    const waiting = [run("flooder", "f1"), run("flooder", "f2"), run("quiet", "q0"), run("other", "o0")];
    expect(slots.counts()).toEqual({ running: 1, queued: 4 });
    await Promise.all([first, ...waiting]);
    // The quiet and the other tenant had nothing in flight: both go before the flooder's second call.
    expect(order).toEqual(["f0", "q0", "o0", "f1", "f2"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(slots.counts()).toEqual({ running: 0, queued: 0 });
  });

  it("bounds each tenant's line and all lines together with TOOL_BUSY", async () => {
    const slots = new CallSlots({ maxConcurrent: 1, maxQueuedPerTenant: 1, maxQueued: 2 }, 'MCP server "s"');
    const held = await slots.acquire("a", "x", signal());
    const queued = slots.acquire("a", "x", signal());
    await expect(slots.acquire("a", "mcp:s:t", signal())).rejects.toMatchObject({
      code: "TOOL_BUSY",
      message: expect.stringContaining("maxQueuedCallsPerTenant"),
    });
    const other = slots.acquire("b", "x", signal());
    await expect(slots.acquire("c", "mcp:s:t", signal())).rejects.toMatchObject({ code: "TOOL_BUSY", message: expect.stringContaining("2 calls waiting") });
    held();
    // b had nothing in flight, a had: b goes first.
    (await other)();
    (await queued)();
    expect(slots.counts()).toEqual({ running: 0, queued: 0 });
  });

  it("an aborted waiter leaves its line with the signal's reason; failWaiting fails every waiter, not the calls in flight", async () => {
    const slots = new CallSlots({ maxConcurrent: 1, maxQueuedPerTenant: 10, maxQueued: 100 }, "server");
    const held = await slots.acquire("a", "x", signal());
    const controller = new AbortController();
    const leaving = slots.acquire("b", "x", controller.signal);
    controller.abort(new Error("the run ended"));
    await expect(leaving).rejects.toThrow("the run ended");
    expect(slots.counts()).toEqual({ running: 1, queued: 0 });
    const failed = [slots.acquire("b", "id-1", signal()), slots.acquire("c", "id-2", signal())];
    slots.failWaiting((id) => new Error(`gone: ${id}`));
    await expect(failed[0]).rejects.toThrow("gone: id-1");
    await expect(failed[1]).rejects.toThrow("gone: id-2");
    expect(slots.counts()).toEqual({ running: 1, queued: 0 });
    held();
    held(); // idempotent
    expect(slots.counts()).toEqual({ running: 0, queued: 0 });
  });
});

describe("Backoff", () => {
  it("doubles from the first delay up to the cap, each delay in the upper half of its step", () => {
    const low = new Backoff({ minMs: 100, maxMs: 1_000 }, () => 0);
    expect([1, 2, 3, 4, 5, 6].map(() => low.next())).toEqual([50, 100, 200, 400, 500, 500]);
    const high = new Backoff({ minMs: 100, maxMs: 1_000 }, () => 1);
    expect([1, 2, 3, 4, 5].map(() => high.next())).toEqual([100, 200, 400, 800, 1_000]);
    expect(high.count).toBe(5);
    high.reset();
    expect(high.count).toBe(0);
    expect(high.next()).toBe(100);
  });
});
