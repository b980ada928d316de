/**
 * The control path's turns (src/dispatch/fair-turns.ts), on a clock the test moves: each piece
 * "takes" the time it adds to the clock, so who counts as flooding is exact. What is asserted is
 * the order pieces run in, never how long anything took.
 */
import { describe, expect, it, vi } from "vitest";
import { FairTurns } from "../../src/dispatch/fair-turns.js";

function clocked(limits = { maxWaitingPerTenant: 1_000, maxWaiting: 10_000 }, busy = 0) {
  let now = 0;
  const turns = new FairTurns(limits, { now: () => now, busy: () => busy });
  const order: string[] = [];
  /** A piece of `tenant` that costs `ms` on the clock and records that it ran. */
  const piece =
    (tenant: string, label: string, ms = 1) =>
    () => {
      now += ms;
      order.push(label);
      return label;
    };
  return { turns, order, piece, advance: (ms: number) => (now += ms) };
}

describe("FairTurns", () => {
  it("a tenant alone runs each piece at once, in the order it asked", async () => {
    const { turns, order, piece } = clocked();
    const answers = [turns.take("a", piece("a", "a1")), turns.take("a", piece("a", "a2"))];
    expect(order).toEqual(["a1", "a2"]);
    expect(await Promise.all(answers)).toEqual(["a1", "a2"]);
  });

  it("a quiet tenant's piece runs before a flooding tenant's queued ones", async () => {
    const { turns, order, piece } = clocked();
    await turns.take("quiet", piece("quiet", "q0", 1));
    // The flooder used far more than the quiet tenant lately: the first piece of its burst finds
    // nothing in the way, the others wait for turns.
    await turns.take("flood", piece("flood", "f0", 50));
    const flood = Array.from({ length: 100 }, (_, i) => turns.take("flood", piece("flood", `f${i + 1}`)));
    expect(order).toEqual(["q0", "f0", "f1"]);
    const quiet = turns.take("quiet", piece("quiet", "q1"));
    await quiet;
    expect(order).toEqual(["q0", "f0", "f1", "q1"]);
    await Promise.all(flood);
    expect(order.slice(4)).toEqual(Array.from({ length: 99 }, (_, i) => `f${i + 2}`));
  });

  it("tenants over their share take turns round robin, however many each queued", async () => {
    const { turns, order, piece } = clocked();
    await turns.take("quiet", piece("quiet", "q0", 1));
    await turns.take("a", piece("a", "a0", 50));
    await turns.take("b", piece("b", "b0", 50));
    // a and b each used more than a third of what the three used lately: their pieces queue.
    const all = [
      ...Array.from({ length: 3 }, (_, i) => turns.take("a", piece("a", `a${i + 1}`))),
      ...Array.from({ length: 3 }, (_, i) => turns.take("b", piece("b", `b${i + 1}`))),
    ];
    expect(order).toEqual(["q0", "a0", "b0", "a1"]);
    await Promise.all(all);
    expect(order.slice(4)).toEqual(["a2", "b1", "a3", "b2", "b3"]);
  });

  it("a busy loop paces the flooder's turns (a timer tick each): all still run in order, and the quiet tenant still cuts in", async () => {
    const { turns, order, piece } = clocked(undefined, 1);
    await turns.take("quiet", piece("quiet", "q0", 1));
    await turns.take("flood", piece("flood", "f0", 50));
    const flood = Array.from({ length: 5 }, (_, i) => turns.take("flood", piece("flood", `f${i + 1}`)));
    await new Promise<void>((resolve) => setImmediate(resolve));
    await new Promise<void>((resolve) => setImmediate(resolve));
    // f1 found nothing in the way and f2 had the turn already due; with three waiting, the next
    // turn is paced: one given back with setImmediate would have run by now.
    expect(order).toEqual(["q0", "f0", "f1", "f2"]);
    await turns.take("quiet", piece("quiet", "q1"));
    await Promise.all(flood);
    expect(order).toEqual(["q0", "f0", "f1", "f2", "q1", "f3", "f4", "f5"]);
  });

  it("a tenant over its share sending one piece at a time is never paced, however busy the loop", async () => {
    const { turns, order, piece } = clocked(undefined, 1);
    await turns.take("quiet", piece("quiet", "q0", 1));
    await turns.take("replay", piece("replay", "r0", 50));
    const timers = vi.spyOn(globalThis, "setTimeout");
    try {
      for (let i = 1; i <= 20; i += 1) await turns.take("replay", piece("replay", `r${i}`));
      expect(timers).not.toHaveBeenCalled();
    } finally {
      timers.mockRestore();
    }
    expect(order).toHaveLength(22);
  });

  it("bounds what a tenant and all tenants may have waiting: TOO_MANY_REQUESTS, others unaffected", async () => {
    const { turns, piece } = clocked({ maxWaitingPerTenant: 2, maxWaiting: 3 });
    await turns.take("quiet", piece("quiet", "q0", 1));
    await turns.take("flood", piece("flood", "f0", 50));
    // f1 runs at once (nothing in the way); f2 and f3 wait, the tenant's bound.
    const queued = [1, 2, 3].map((i) => turns.take("flood", piece("flood", `f${i}`)));
    await expect(turns.take("flood", piece("flood", "f4"))).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS", status: 429 });
    await turns.take("other", piece("other", "o0", 100));
    const other = turns.take("other", piece("other", "o1"));
    await expect(turns.take("other", piece("other", "o2"))).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS" });
    expect(await Promise.all([...queued, other])).toEqual(["f1", "f2", "f3", "o1"]);
  });

  it("a waiting piece whose signal aborts leaves the queue with its reason; the rest still run", async () => {
    const { turns, order, piece } = clocked();
    await turns.take("quiet", piece("quiet", "q0", 1));
    await turns.take("flood", piece("flood", "f0", 50));
    const cancel = new AbortController();
    const first = [1, 2].map((i) => turns.take("flood", piece("flood", `f${i}`)));
    const dropped = turns.take("flood", piece("flood", "f3"), cancel.signal);
    const last = turns.take("flood", piece("flood", "f4"));
    cancel.abort(new Error("the caller went away"));
    await expect(dropped).rejects.toThrow("the caller went away");
    expect(await Promise.all([...first, last])).toEqual(["f1", "f2", "f4"]);
    expect(order).not.toContain("f3");
    expect(turns.waiting).toBe(0);
  });

  it("a piece that throws rejects its own caller only", async () => {
    const { turns, piece } = clocked();
    await turns.take("quiet", piece("quiet", "q0", 1));
    await turns.take("flood", piece("flood", "f0", 50));
    const broken = turns.take("flood", () => {
      throw new RangeError("broke");
    });
    const next = turns.take("flood", piece("flood", "f1"));
    await expect(broken).rejects.toThrow("broke");
    expect(await next).toBe("f1");
  });
});
