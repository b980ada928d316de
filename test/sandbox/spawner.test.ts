/**
 * The spawner (src/sandbox/pool/spawner.ts): a small process that forks the pool's children so
 * that this (large) process never forks per body. Real processes throughout.
 */
import { describe, expect, it } from "vitest";
import { createCodePool } from "../../src/sandbox/pool/pool.js";
import { childPids } from "../support/proc.js";
import { fakeBridge, isAlive, manualGate, parentOf, poolProcesses, SEARCH_DESCRIBE_CALL, unaccountedProcesses, waitFor } from "./helpers.js";

const RUN = { timeoutMs: 10_000 };

describe.runIf(process.platform === "linux")("spawner", () => {
  it("forks every child: none is this process's own, and the layers are those of a child forked here", async () => {
    const pool = await createCodePool({ prefork: 2, maxConcurrent: 2 }, { spawners: 1 });
    const direct = await createCodePool({ prefork: 0 }, { spawner: false });
    try {
      await pool.whenReady(2);
      const [spawner] = pool.spawnerPids();
      expect(spawner).toBeGreaterThan(0);
      expect(childPids()).toContain(spawner);
      for (const pid of pool.childPids()) expect(parentOf(pid)).toBe(spawner);
      expect(pool.report()).toEqual(direct.report());
      expect(direct.spawnerPids()).toEqual([]);
      const result = await pool.run(SEARCH_DESCRIBE_CALL, fakeBridge(), RUN);
      expect(result).toMatchObject({ ok: true, value: { city: "Paris" }, stats: { bridgeCalls: 3 } });
      expect(unaccountedProcesses(pool)).toEqual([]);
    } finally {
      await pool.close();
      await direct.close();
    }
  });

  it("with two spawners, children are forked by each in turn and every body runs", async () => {
    const pool = await createCodePool({ prefork: 4, maxConcurrent: 2 }, { spawners: 2 });
    try {
      await pool.whenReady(4);
      const spawners = pool.spawnerPids();
      expect(spawners).toHaveLength(2);
      const parents = pool.childPids().map(parentOf);
      // The probe child comes from the first; the rest take turns.
      for (const parent of parents) expect(spawners).toContain(parent);
      for (const spawner of spawners) expect(parents).toContain(spawner);
      const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => pool.run(`return ${n};`, fakeBridge(), RUN)));
      expect(results.map((r) => r.ok && r.value)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(unaccountedProcesses(pool)).toEqual([]);
    } finally {
      await pool.close();
    }
  });

  it("close() ends the spawners with their children", async () => {
    const pool = await createCodePool({ prefork: 2 }, { spawners: 2 });
    await pool.whenReady(2);
    const spawners = pool.spawnerPids();
    expect(spawners).toHaveLength(2);
    const processes = poolProcesses(pool);
    expect(processes.length).toBeGreaterThanOrEqual(2);
    await pool.close();
    for (const pid of [...spawners, ...processes]) expect(isAlive(pid)).toBe(false);
    expect(poolProcesses(pool)).toEqual([]);
  });

  it("per body, one write carries the run and one the finished child's kill with its replacement's spawn (each bridge call adds its answer)", async () => {
    const pool = await createCodePool({ prefork: 1, maxConcurrent: 1 }, { spawners: 1 });
    try {
      const writesFor = async (body: string, bodies: number) => {
        await pool.whenReady(1);
        const before = pool.spawnerIo().writes;
        for (let i = 0; i < bodies; i++) {
          await pool.whenReady(1); // one body at a time, on a ready child: nothing else is in flight
          expect(await pool.run(body, fakeBridge(), RUN)).toMatchObject({ ok: true });
        }
        await pool.whenReady(1);
        return (pool.spawnerIo().writes - before) / bodies;
      };
      // Before the kill and the spawn shared a write, a body cost three writes (four wake-ups of the spawner with the run).
      expect(await writesFor("return 1;", 4)).toBe(2);
      expect(await writesFor(SEARCH_DESCRIBE_CALL, 3)).toBe(5);
      expect(pool.spawnerIo().reads).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
  });

  it("a spawner killed from outside takes its children with it: the running body fails, a new spawner serves the next", async () => {
    const pool = await createCodePool({ prefork: 1, maxConcurrent: 1 }, { spawners: 1 });
    try {
      await pool.whenReady(1);
      const [first] = pool.spawnerPids() as [number];
      const { gate } = manualGate(); // never opened: the body waits at the bridge until its child dies
      const bridge = fakeBridge(gate);
      const running = pool.run('return await openclaw.tools.describe("core:weather");', bridge, RUN);
      await waitFor(() => bridge.calls.length === 1, 5000, "the body to reach the bridge");
      const children = poolProcesses(pool);
      process.kill(first, "SIGKILL");
      expect(await running).toMatchObject({ ok: false, error: { code: "SANDBOX_UNAVAILABLE" } });
      await waitFor(() => children.every((pid) => !isAlive(pid)), 10_000, "the dead spawner's children to die");
      const next = await pool.run("return 2;", fakeBridge(), RUN);
      expect(next).toMatchObject({ ok: true, value: 2 });
      expect(pool.spawnerPids()).toHaveLength(1);
      expect(pool.spawnerPids()).not.toContain(first);
      expect(pool.report().available).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it("when the spawner cannot start, this process forks each child and the report's notes say so", async () => {
    // The spawner runs under the first plan's setpriv; a plan whose command does not exist stops it.
    const pool = await createCodePool(
      { prefork: 1 },
      { launchPlans: (plans) => [{ ...plans[0]!, setpriv: true, command: "/nonexistent/toolsearch-setpriv" }, ...plans] },
    );
    try {
      const report = pool.report();
      expect(report.available).toBe(true);
      expect(report.notes?.some((note) => /spawner did not start.*this process forks each child itself/.test(note))).toBe(true);
      expect(pool.spawnerPids()).toEqual([]);
      await pool.whenReady(1);
      for (const pid of pool.childPids()) expect(parentOf(pid)).toBe(process.pid);
      expect(await pool.run("return 3;", fakeBridge(), RUN)).toMatchObject({ ok: true, value: 3 });
    } finally {
      await pool.close();
    }
  });
});
