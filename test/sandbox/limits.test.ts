/** Deadlines, cancellation and per-run limits, with real children. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createCodePool, type SandboxPool } from "../../src/sandbox/index.js";
import { fakeBridge, poolProcesses, unaccountedProcesses, waitFor } from "./helpers.js";

const FAST = { timeoutMs: 1000 };

describe("deadlines and limits", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await createCodePool({
      prefork: 2,
      maxResultBytes: 10_000,
      maxLogBytes: 1000,
      maxBridgeCalls: 20,
      maxConcurrentBridgeCalls: 4,
    });
  });
  afterEach(() => {
    expect(unaccountedProcesses(pool)).toEqual([]);
  });
  afterAll(async () => {
    await pool.close();
    expect(poolProcesses(pool)).toEqual([]);
  });

  it.each([
    ["a busy loop", "while (true) {}"],
    ["a promise that never settles", "await new Promise(() => {});"],
    ["Atomics.wait on the main thread", "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);"],
    ["a microtask loop left running before return", "Promise.resolve().then(function spin() { while (true) {} }); return 1;"],
  ])("kills %s at the deadline with CODE_TIMEOUT", async (_name, code) => {
    const started = performance.now();
    const result = await pool.run(code, fakeBridge(), FAST);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_TIMEOUT" } });
    expect(!result.ok && result.error.message).toMatch(/1000 ms/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("returns the value even when the body leaves async work running after return", async () => {
    const result = await pool.run("(async () => { for (;;) await null; })(); return 'done';", fakeBridge(), FAST);
    expect(result).toMatchObject({ ok: true, value: "done" });
  });

  it("aborts in-flight bridge calls when the deadline kills the body", async () => {
    const bridge = fakeBridge();
    const result = await pool.run('await openclaw.tools.call("core:wait", {});', bridge, FAST);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_TIMEOUT" } });
    expect(bridge.signals).toHaveLength(1);
    expect(bridge.signals[0]!.aborted).toBe(true);
  });

  it("stops the run when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const bridge = fakeBridge();
    const pending = pool.run('await openclaw.tools.call("core:wait", {});', bridge, { timeoutMs: 10_000, signal: controller.signal });
    await waitFor(() => bridge.calls.length === 1);
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
    expect(!result.ok && result.error.message).toMatch(/cancelled/);
    expect(bridge.signals[0]!.aborted).toBe(true);
    expect(await pool.run("return 1;", fakeBridge(), { timeoutMs: 1000, signal: AbortSignal.abort() })).toMatchObject({
      ok: false,
      error: { code: "CANCELLED" },
    });
  });

  it("ends a run whose result is too large with CODE_LIMIT naming maxResultBytes", async () => {
    const result = await pool.run('return "x".repeat(20000);', fakeBridge(), FAST);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" } });
    expect(!result.ok && result.error.message).toMatch(/maxResultBytes/);
  });

  it("ends a run that logs too much with CODE_LIMIT naming maxLogBytes, keeping logs up to the limit", async () => {
    const result = await pool.run('for (let i = 0; ; i++) console.log("line " + i + " " + "y".repeat(90));', fakeBridge(), FAST);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" } });
    expect(!result.ok && result.error.message).toMatch(/maxLogBytes/);
    const bytes = result.logs.reduce((n, l) => n + Buffer.byteLength(l.message), 0);
    expect(bytes).toBeLessThanOrEqual(1000);
    expect(result.logs[0]!.message).toMatch(/^line 0 /);
  });

  it("cuts one oversized log line instead of shipping it whole", async () => {
    const result = await pool.run('console.error("z".repeat(1_000_000)); return 1;', fakeBridge(), FAST);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" } });
    expect(result.logs).toEqual([{ level: "error", message: "z".repeat(1000) }]);
  });

  it("ends a run that makes too many bridge calls with CODE_LIMIT naming maxBridgeCalls", async () => {
    const bridge = fakeBridge();
    const result = await pool.run('for (let i = 0; i < 1000; i++) await openclaw.tools.search("weather");', bridge, FAST);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" }, stats: { bridgeCalls: 21 } });
    expect(!result.ok && result.error.message).toMatch(/maxBridgeCalls/);
    expect(bridge.calls).toHaveLength(20);
  });

  it("ends a run with too many bridge calls in flight with CODE_LIMIT naming maxConcurrentBridgeCalls", async () => {
    const result = await pool.run('await Promise.all(Array.from({ length: 10 }, () => openclaw.tools.call("core:wait", {})));', fakeBridge(), FAST);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" } });
    expect(!result.ok && result.error.message).toMatch(/maxConcurrentBridgeCalls/);
  });

  it("allows bridge calls in parallel up to the limit", async () => {
    const result = await pool.run('return (await Promise.all([1, 2, 3].map(() => openclaw.tools.search("weather")))).length;', fakeBridge(), FAST);
    expect(result).toMatchObject({ ok: true, value: 3 });
  });

  it("ends a run whose tool result exceeds the frame limit with CODE_LIMIT naming maxFrameBytes", async () => {
    const small = await createCodePool({ prefork: 1, maxFrameBytes: 200_000, maxResultBytes: 1000, maxLogBytes: 1000 });
    try {
      const result = await small.run('return (await openclaw.tools.call("core:big", { bytes: 300000 })).length;', fakeBridge(), FAST);
      expect(result).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" } });
      expect(!result.ok && result.error.message).toMatch(/maxFrameBytes/);
      const args = await small.run('await openclaw.tools.call("core:weather", { city: "x".repeat(300000) });', fakeBridge(), FAST);
      expect(args).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" } });
      expect(!args.ok && args.error.message).toMatch(/maxFrameBytes/);
    } finally {
      await small.close();
    }
  });
});
