/**
 * The parent's inspector guard: any process of the parent's uid can send SIGUSR1 (that is all
 * process._debugProcess does on POSIX), which opens Node's inspector. With a pool started, it
 * must stay closed.
 */
import { spawnSync } from "node:child_process";
import inspector from "node:inspector";
import { describe, expect, it } from "vitest";
import { createCodePool } from "../../src/sandbox/index.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(process.platform === "win32")("parent inspector guard", () => {
  it("keeps the inspector closed against _debugProcess and kill -USR1", async () => {
    const pool = await createCodePool({ prefork: 0 });
    try {
      expect(pool.report().layers.parentInspectorGuard).toBe(true);
      (process as unknown as { _debugProcess(pid: number): void })._debugProcess(process.pid);
      await sleep(300);
      expect(inspector.url()).toBeUndefined();
      // From another process of the same uid, as an escaped child without a PID namespace could.
      expect(spawnSync("kill", ["-USR1", String(process.pid)]).status).toBe(0);
      await sleep(300);
      expect(inspector.url()).toBeUndefined();
    } finally {
      await pool.close();
    }
    // The guard outlives the pool: removing it would reset SIGUSR1 to "terminate".
    process.kill(process.pid, "SIGUSR1");
    await sleep(100);
    expect(inspector.url()).toBeUndefined();
  });
});
