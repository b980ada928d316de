/**
 * A stdio server is stopped gently, and all of it: its whole process group (the server and what
 * it started, as npx starts the real server), SIGTERM first, SIGKILL only after a grace period,
 * so that npm can finish (or roll back) what it was writing. Nothing stays running after close.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createToolSearch } from "../../src/index.js";
import { childPids, faultSources, isRunning, NEVER_MS, readIfThere, waitFor } from "./helpers.js";

const { source, tempDir } = faultSources();

function grandchildOf(dir: string): Promise<number> {
  return waitFor(() => {
    const pid = readIfThere(path.join(dir, "grandchild.pid"));
    return pid ? Number(pid) : undefined;
  }, "the grandchild's pid");
}

describe("stopping a stdio server", () => {
  it("a start stopped at startupTimeoutMs: the process group gets SIGTERM, so the grandchild hears it and nothing stays", async () => {
    const dir = tempDir();
    const before = childPids();
    const { source: s } = source(
      "installing",
      { FAULT_START_DELAY_MS: NEVER_MS, FAULT_GRANDCHILD_DIR: dir },
      { startupTimeoutMs: 1_000, killGraceMs: 100, retryMinDelayMs: 600_000, retryMaxDelayMs: 600_000 },
    );
    const starting = s.start();
    const grandchild = await grandchildOf(dir);
    await expect(starting).rejects.toThrow(/did not connect and list its tools within 1000 ms \(startupTimeoutMs\)/);
    // The server never passes signals on: only a signal to the whole group reaches its child.
    expect(readIfThere(path.join(dir, "grandchild.signal"))).toBe("SIGTERM");
    await waitFor(() => !isRunning(grandchild), "the grandchild to end", 5_000);
    expect(childPids()).toEqual(before.filter(isRunning));
  });

  it("engine close: a ready server's grandchild hears SIGTERM, and no process of it is left", async () => {
    const dir = tempDir();
    const before = childPids();
    const { source: s } = source("ready", { FAULT_GRANDCHILD_DIR: dir }, { killGraceMs: 100 });
    const engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [s] });
    const grandchild = await grandchildOf(dir);
    const pid = s.status().pid!;
    expect(isRunning(grandchild)).toBe(true);
    await engine.close();
    expect(readIfThere(path.join(dir, "grandchild.signal"))).toBe("SIGTERM");
    expect(isRunning(pid)).toBe(false);
    await waitFor(() => !isRunning(grandchild), "the grandchild to end", 5_000);
    expect(childPids()).toEqual(before.filter(isRunning));
  });

  it("what ignores SIGTERM gets SIGKILL after termGraceMs", async () => {
    const dir = tempDir();
    const { source: s } = source("stubborn", { FAULT_GRANDCHILD_DIR: dir, FAULT_GRANDCHILD_IGNORES_TERM: true }, { killGraceMs: 100, termGraceMs: 300 });
    await s.start();
    const grandchild = await grandchildOf(dir);
    await s.close();
    expect(readIfThere(path.join(dir, "grandchild.signal"))).toBe("SIGTERM");
    await waitFor(() => !isRunning(grandchild), "SIGKILL to end the grandchild", 5_000);
  });
});
