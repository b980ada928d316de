/**
 * Bodies that try to exhaust something: memory (V8 heap and ArrayBuffers outside it), log output,
 * the result channel, the bridge, CPU. Each ends with a clear code, the child is gone afterwards,
 * and the pool keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodePool, type SandboxPool } from "../../src/sandbox/index.js";
import { fakeBridge, isAlive, poolProcesses, unaccountedProcesses, waitFor } from "../sandbox/helpers.js";
import { expectParentUnchanged, snapshotParent, type ParentSnapshot } from "./guard.js";

describe("resource exhaustion", () => {
  let pool: SandboxPool;
  let before: ParentSnapshot;
  beforeAll(async () => {
    before = snapshotParent();
    pool = await createCodePool({ prefork: 2, maxOldSpaceSizeMb: 64, maxMemoryMb: 256 });
  });
  afterAll(async () => {
    await pool.close();
    expect(poolProcesses(pool)).toEqual([]);
    expectParentUnchanged(before);
  });

  /** Runs a body and checks that every process that existed for it is gone afterwards. */
  async function attack(code: string, timeoutMs = 5000) {
    await pool.whenReady(2);
    const ready = new Set(poolProcesses(pool));
    const result = await pool.run(code, fakeBridge(), { timeoutMs });
    // The processes that ran the body (wrapper and node) are the ready ones that disappear.
    await waitFor(() => [...ready].filter((pid) => !isAlive(pid)).length >= 1, 5000, "the attacking child to be reaped");
    expect(unaccountedProcesses(pool)).toEqual([]);
    return result;
  }

  it("V8 heap exhaustion → CODE_LIMIT (memory)", async () => {
    const result = await attack("const keep = []; for (;;) keep.push(new Array(100000).fill(1.5));", 20_000);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" } });
    expect(!result.ok && result.error.message).toMatch(/ran out of memory.*maxOldSpaceSizeMb 64/);
  });

  it("ArrayBuffer exhaustion outside the heap is refused by the memory cap", async () => {
    const result = await attack("const keep = []; for (;;) keep.push(new Uint8Array(32 << 20).fill(7));", 20_000);
    expect(pool.report().layers.memoryLimit).toBe(true);
    expect(result.ok).toBe(false);
    // Either the allocation is refused inside the body or the child dies of it; never a hang.
    expect(!result.ok && result.error.code).toMatch(/^CODE_(THREW|LIMIT)$/);
    expect(!result.ok && result.error.message).toMatch(/allocation failed|out of memory/i);
  });

  it("a huge return value → CODE_LIMIT (result)", async () => {
    const result = await attack('return "x".repeat(5_000_000);');
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" } });
    expect(!result.ok && result.error.message).toMatch(/maxResultBytes/);
  });

  it("a string past V8's own limits → a clear failure, not a crash of the parent", async () => {
    const result = await attack('let s = "x"; for (;;) s += s; return s.length;');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.code).toMatch(/^CODE_(THREW|LIMIT)$/);
  });

  it("a log flood → CODE_LIMIT (logs)", async () => {
    const result = await attack('for (;;) console.log("flood");');
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" } });
    expect(!result.ok && result.error.message).toMatch(/maxLogBytes/);
  });

  it("thousands of bridge calls → CODE_LIMIT (bridge calls)", async () => {
    const result = await attack('for (let i = 0; i < 5000; i++) await openclaw.tools.search("weather");');
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" }, stats: { bridgeCalls: 257 } });
    expect(!result.ok && result.error.message).toMatch(/maxBridgeCalls/);
  });

  it("thousands of parallel bridge calls → CODE_LIMIT (concurrent bridge calls)", async () => {
    const result = await attack('await Promise.all(Array.from({ length: 5000 }, () => openclaw.tools.search("weather")));');
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" } });
    expect(!result.ok && result.error.message).toMatch(/maxConcurrentBridgeCalls/);
  });

  it("an endless loop → CODE_TIMEOUT", async () => {
    const result = await attack("for (;;) {}", 1000);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_TIMEOUT" } });
  });

  it("the pool still serves after all of the above", async () => {
    expect(await pool.run("return 6 * 7;", fakeBridge(), { timeoutMs: 5000 })).toMatchObject({ ok: true, value: 42 });
  });
});
