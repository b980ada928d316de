/** PoolOptions checking and the body-stack trimmer (no children). */
import { describe, expect, it } from "vitest";
import { ConfigInvalidError } from "../../src/errors.js";
import { createCodePool } from "../../src/sandbox/index.js";
import { resolvePoolOptions } from "../../src/sandbox/pool/options.js";
import { trimBodyStack } from "../../src/sandbox/pool/stack.js";

describe("pool options", () => {
  it("fills defaults", () => {
    const o = resolvePoolOptions(undefined);
    expect(o).toMatchObject({
      prefork: 2,
      maxConcurrent: 2,
      maxQueue: 64,
      maxOldSpaceSizeMb: 64,
      maxMemoryMb: 512,
      maxResultBytes: 1024 * 1024,
      maxLogBytes: 64 * 1024,
      maxBridgeCalls: 256,
      maxConcurrentBridgeCalls: 16,
      maxFrameBytes: 4 * 1024 * 1024,
      guardParentInspector: true,
    });
    expect(resolvePoolOptions({ prefork: 0 }).maxConcurrent).toBe(1);
    // Tenant shares: a quarter of the queue, and every slot but one (at least one).
    expect(o).toMatchObject({ maxQueuePerTenant: 16, maxRunningPerTenant: 1 });
    expect(resolvePoolOptions({ maxConcurrent: 4, maxQueue: 10 })).toMatchObject({ maxQueuePerTenant: 3, maxRunningPerTenant: 3 });
    expect(resolvePoolOptions({ prefork: 0, maxQueue: 0 })).toMatchObject({ maxQueuePerTenant: 0, maxRunningPerTenant: 1 });
    expect(resolvePoolOptions({ maxConcurrent: 4, maxRunningPerTenant: 4, maxQueuePerTenant: 64 })).toMatchObject({
      maxQueuePerTenant: 64,
      maxRunningPerTenant: 4,
    });
    expect(resolvePoolOptions({ maxResultBytes: 8 * 1024 * 1024 }).maxFrameBytes).toBe(8 * 1024 * 1024 + 64 * 1024);
  });

  it.each([
    [{ prefork: -1 }, /pool\.prefork: must be an integer from 0 to 64; got -1 \(number\)/],
    [{ prefork: "2" }, /pool\.prefork: .* got "2" \(string\)/],
    [{ maxQueue: 1.5 }, /pool\.maxQueue/],
    [{ namespaces: "yes" }, /pool\.namespaces: must be boolean; got "yes" \(string\)/],
    [{ maxFrames: 1 }, /pool: unknown option "maxFrames"/],
    [{ maxFrameBytes: 2048, maxResultBytes: 10_000 }, /pool\.maxFrameBytes \(2048\) must be at least/],
    [{ maxMemoryMb: 128, maxOldSpaceSizeMb: 64 }, /pool\.maxMemoryMb \(128\) must be at least maxOldSpaceSizeMb \(64\) \+ 128/],
    [{ maxQueuePerTenant: -1 }, /pool\.maxQueuePerTenant: must be an integer from 0 to 100000; got -1/],
    [{ maxRunningPerTenant: 0 }, /pool\.maxRunningPerTenant: must be an integer from 1 to 256; got 0/],
    [{ maxQueue: 8, maxQueuePerTenant: 9 }, /pool\.maxQueuePerTenant \(9\) must be at most maxQueue \(8\)/],
    [{ maxConcurrent: 2, maxRunningPerTenant: 3 }, /pool\.maxRunningPerTenant \(3\) must be at most maxConcurrent \(2\)/],
  ])("rejects %o", (options, message) => {
    expect(() => resolvePoolOptions(options as never)).toThrow(ConfigInvalidError);
    expect(() => resolvePoolOptions(options as never)).toThrow(message);
  });

  it("createCodePool rejects bad options with CONFIG_INVALID before starting anything", async () => {
    await expect(createCodePool({ maxConcurrent: 0 })).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });
});

describe("body stack trimming", () => {
  it("keeps only frames in code.js", () => {
    const stack = [
      "TypeError: bad",
      "    at inner (code.js:1:26)",
      "    at outer (code.js:2:20)",
      "    at code.js:3:1",
      "    at start (toolsearch:realm:1:200)",
      "    at run ([eval]:1:9000)",
      "    at async Promise.all (index 0)",
      "    at async code.js:4:2",
      "    at node:internal/process/task_queues:95:5",
    ].join("\n");
    expect(trimBodyStack(stack)).toBe("at inner (code.js:1:26)\nat outer (code.js:2:20)\nat code.js:3:1\nat async code.js:4:2");
  });
  it("returns undefined when no frame is the body's", () => {
    expect(trimBodyStack("Error: x\n    at node:internal/x:1:1")).toBeUndefined();
  });
  it("caps the number of frames", () => {
    const stack = Array.from({ length: 50 }, (_, i) => `    at f${i} (code.js:${i + 1}:1)`).join("\n");
    expect(trimBodyStack(stack)!.split("\n")).toHaveLength(10);
  });
});
