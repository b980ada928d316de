/** The pool with real children: end to end runs, lifecycle, saturation, cleanup. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodePool, probeSandbox, type SandboxPool } from "../../src/sandbox/index.js";
import { fakeBridge, isAlive, manualGate, poolProcesses, SEARCH_DESCRIBE_CALL, unaccountedProcesses, waitFor } from "./helpers.js";

const RUN = { timeoutMs: 10_000 };

describe("code pool", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await createCodePool({ prefork: 2 });
  });
  afterAll(async () => {
    await pool.close();
  });

  it("reports the sandbox available, with the permission model and the code-generation ban", () => {
    const report = pool.report();
    expect(report.available).toBe(true);
    expect(report.nodeVersion).toBe(process.version);
    expect(report.permissionFlag).toMatch(/^--(experimental-)?permission$/);
    expect(report.layers.permissionModel).toBe(true);
    expect(report.layers.noCodeGenFromStrings).toBe(true);
    expect(report.layers.vmContext).toBe(true);
    expect(report.layers.parentInspectorGuard).toBe(process.platform !== "win32");
  });

  it("runs search → describe → call end to end, with logs and stats", async () => {
    const bridge = fakeBridge();
    const result = await pool.run(SEARCH_DESCRIBE_CALL, bridge, RUN);
    expect(result).toMatchObject({
      ok: true,
      value: { city: "Paris", tempC: 21, sky: "clear" },
      logs: [{ level: "log", message: "using core:weather" }],
      stats: { bridgeCalls: 3 },
    });
    expect(result.stats.ms).toBeGreaterThan(0);
    expect(bridge.calls.map((c) => c.op)).toEqual(["search", "describe", "call"]);
    expect(bridge.calls[2]!.arg).toEqual({ id: "core:weather", args: { city: "Paris" } });
  });

  it("passes search options and query lists through", async () => {
    const bridge = fakeBridge();
    const result = await pool.run('return await openclaw.tools.search(["email", "weather"], { limit: 1 });', bridge, RUN);
    expect(result.ok && Array.isArray(result.value) && result.value.length).toBe(1);
    expect(bridge.calls[0]!.arg).toEqual(["email", "weather"]);
  });

  it("delivers a bridge rejection to the body as an Error with the ToolSearchError's code", async () => {
    const code = `
      try { await openclaw.tools.call("plugin:mail:send", { to: "a@b.c" }); return "sent"; }
      catch (e) { return { code: e.code, message: e.message, isError: e instanceof Error }; }`;
    const result = await pool.run(code, fakeBridge(), RUN);
    expect(result).toMatchObject({
      ok: true,
      value: { code: "APPROVAL_DENIED", message: "The user denied sending this email.", isError: true },
    });
  });

  it("gives plain tool errors the TOOL_FAILED code and unknown ids TOOL_NOT_FOUND", async () => {
    const code = `
      const out = [];
      for (const id of ["core:crash", "core:nope"]) {
        try { await openclaw.tools.call(id, {}); } catch (e) { out.push(e.code); }
      }
      return out;`;
    expect(await pool.run(code, fakeBridge(), RUN)).toMatchObject({ ok: true, value: ["TOOL_FAILED", "TOOL_NOT_FOUND"] });
  });

  it("answers malformed bridge arguments with INVALID_ARGS in the body", async () => {
    const code = `
      const out = [];
      for (const f of [() => openclaw.tools.search(42), () => openclaw.tools.describe(), () => openclaw.tools.search("x", { limit: -1 })]) {
        try { await f(); out.push("ok"); } catch (e) { out.push(e.code); }
      }
      return out;`;
    expect(await pool.run(code, fakeBridge(), RUN)).toMatchObject({ ok: true, value: ["INVALID_ARGS", "INVALID_ARGS", "INVALID_ARGS"] });
  });

  it("converts return values to JSON data (undefined becomes null)", async () => {
    expect(await pool.run("return;", fakeBridge(), RUN)).toMatchObject({ ok: true, value: null });
    expect(await pool.run("return { d: new Date(0), u: undefined, n: NaN, a: [1, undefined] };", fakeBridge(), RUN)).toMatchObject({
      ok: true,
      value: { d: "1970-01-01T00:00:00.000Z", n: null, a: [1, null] },
    });
    const bigint = await pool.run("return 10n;", fakeBridge(), RUN);
    expect(bigint).toMatchObject({ ok: false, error: { code: "CODE_THREW" } });
    expect(!bigint.ok && bigint.error.message).toMatch(/not JSON-serializable/);
  });

  it("reports a body that does not parse as CODE_SYNTAX with the line", async () => {
    const result = await pool.run("const a = 1;\nreturn a +;", fakeBridge(), RUN);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_SYNTAX" } });
    expect(!result.ok && result.error.message).toMatch(/SyntaxError: .*\(line 2\)/);
  });

  it("rejects a body that closes its function wrapper early as CODE_SYNTAX", async () => {
    const result = await pool.run("}); (async function () {", fakeBridge(), RUN);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_SYNTAX" } });
  });

  it("reports a throwing body as CODE_THREW with a stack of body frames only", async () => {
    const code = "function inner() { throw new TypeError('bad input'); }\nfunction outer() { inner(); }\nouter();";
    const result = await pool.run(code, fakeBridge(), RUN);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_THREW", message: "TypeError: bad input" } });
    const stack = !result.ok ? (result.error.stack ?? "") : "";
    expect(stack.split("\n")).toEqual(["at inner (code.js:1:26)", "at outer (code.js:2:20)", "at code.js:3:1"]);
    expect(stack).not.toMatch(/node:|toolsearch|realm|eval/);
  });

  it("names the code of an uncaught bridge error in the CODE_THREW message", async () => {
    const result = await pool.run('await openclaw.tools.call("plugin:mail:send", {});', fakeBridge(), RUN);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_THREW", message: "Error [APPROVAL_DENIED]: The user denied sending this email." } });
  });

  it("reports thrown non-errors readably", async () => {
    expect(await pool.run('throw "plain";', fakeBridge(), RUN)).toMatchObject({ ok: false, error: { code: "CODE_THREW", message: "Uncaught plain" } });
  });
});

describe("pool lifecycle", () => {
  it("keeps `prefork` children ready and never reuses one", async () => {
    const pool = await createCodePool({ prefork: 3, maxConcurrent: 1 });
    try {
      await pool.whenReady(3);
      expect(pool.readyCount()).toBe(3);
      expect(pool.childPids()).toHaveLength(3);

      const used: number[] = [];
      for (let i = 0; i < 3; i++) {
        await pool.whenReady(3);
        const before = new Set(pool.childPids());
        const result = await pool.run("return 1;", fakeBridge(), RUN);
        expect(result.ok).toBe(true);
        // The child that ran is the one no longer among the ready ones.
        await waitFor(() => pool.childPids().filter((pid) => before.has(pid)).length === 2, 5000, "the used child to be reaped");
        const gone = [...before].filter((pid) => !pool.childPids().includes(pid));
        expect(gone).toHaveLength(1);
        used.push(gone[0]!);
        expect(isAlive(gone[0]!)).toBe(false);
      }
      expect(new Set(used).size).toBe(3);
      expect(unaccountedProcesses(pool)).toEqual([]);
      await pool.whenReady(3);
      expect(pool.readyCount()).toBe(3);
    } finally {
      await pool.close();
    }
  });

  it("answers POOL_SATURATED immediately past the queue, and runs queued bodies later", async () => {
    const pool = await createCodePool({ prefork: 1, maxConcurrent: 1, maxQueue: 1 });
    try {
      await pool.whenReady(1);
      const { gate, open } = manualGate();
      const bridge = fakeBridge(gate);
      const first = pool.run('return await openclaw.tools.describe("core:weather");', bridge, RUN);
      await waitFor(() => bridge.calls.length === 1, 5000, "the first body to reach the bridge");
      const second = pool.run("return 2;", fakeBridge(), RUN);
      // The first body is held at the gate, so the pool is full: an answer now means no waiting.
      const third = await pool.run("return 3;", fakeBridge(), RUN);
      expect(third).toMatchObject({ ok: false, error: { code: "POOL_SATURATED" } });
      expect(!third.ok && third.error.message).toMatch(/saturated.*maxQueue 1/);
      open();
      expect(await first).toMatchObject({ ok: true, value: { id: "core:weather" } });
      expect(await second).toMatchObject({ ok: true, value: 2 });
    } finally {
      await pool.close();
    }
  });

  it("spawns on demand with prefork 0", async () => {
    const pool = await createCodePool({ prefork: 0, maxConcurrent: 2 });
    try {
      const results = await Promise.all([1, 2, 3].map((n) => pool.run(`return ${n};`, fakeBridge(), RUN)));
      expect(results.map((r) => r.ok && r.value)).toEqual([1, 2, 3]);
    } finally {
      await pool.close();
    }
  });

  it("close() kills every child, running or waiting, and leaves no process behind", async () => {
    const pool = await createCodePool({ prefork: 2, maxConcurrent: 2 });
    await pool.whenReady(2);
    const bridge = fakeBridge();
    const running = pool.run('await openclaw.tools.call("core:wait", {});', bridge, RUN);
    await waitFor(() => bridge.calls.length === 1, 5000, "the body to reach the bridge");
    const pids = pool.childPids();
    const processes = poolProcesses(pool);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    expect(processes.length).toBeGreaterThanOrEqual(pids.length);

    await pool.close();
    expect(await running).toMatchObject({ ok: false, error: { code: "SANDBOX_UNAVAILABLE" } });
    expect(bridge.signals[0]!.aborted).toBe(true);
    expect(pool.childPids()).toEqual([]);
    for (const pid of [...pids, ...processes]) expect(isAlive(pid)).toBe(false);
    expect(poolProcesses(pool)).toEqual([]);
    expect(await pool.run("return 1;", fakeBridge(), RUN)).toMatchObject({ ok: false, error: { code: "SANDBOX_UNAVAILABLE" } });
    await pool.close(); // idempotent
  });

  it("fails queued bodies with SANDBOX_UNAVAILABLE when closed", async () => {
    const pool = await createCodePool({ prefork: 1, maxConcurrent: 1 });
    await pool.whenReady(1);
    const { gate } = manualGate();
    const bridge = fakeBridge(gate);
    const first = pool.run('await openclaw.tools.search("x");', bridge, RUN);
    const queued = pool.run("return 1;", fakeBridge(), RUN);
    await waitFor(() => bridge.calls.length === 1);
    await pool.close();
    expect(await first).toMatchObject({ ok: false, error: { code: "SANDBOX_UNAVAILABLE" } });
    expect(await queued).toMatchObject({ ok: false, error: { code: "SANDBOX_UNAVAILABLE" } });
    expect(poolProcesses(pool)).toEqual([]);
  });

  it("rejects bad run arguments with CONFIG_INVALID (API misuse)", async () => {
    const pool = await createCodePool({ prefork: 0 });
    try {
      await expect(pool.run("return 1", fakeBridge(), { timeoutMs: 0 })).rejects.toMatchObject({ code: "CONFIG_INVALID" });
      await expect(pool.run(42 as unknown as string, fakeBridge(), RUN)).rejects.toMatchObject({ code: "CONFIG_INVALID" });
    } finally {
      await pool.close();
    }
  });
});

/** A bridge whose searches log `order` (the body's label) in the order the bodies reached it; `gate` holds every call. */
function orderBridge(order: string[], gate?: () => Promise<void>) {
  const bridge = fakeBridge(gate);
  const search = bridge.search.bind(bridge);
  bridge.search = (query, options, call) => {
    order.push(String(query));
    return search(query, options, call);
  };
  return bridge;
}

/** A body that first tells the bridge who it is, then returns its label. */
const labelled = (label: string) => `await openclaw.tools.search(${JSON.stringify(label)}); return ${JSON.stringify(label)};`;

/** Tenant A's body "A0", held at the bridge (its slot taken) until `open()`. */
async function holdFirstBody(pool: Awaited<ReturnType<typeof createCodePool>>, order: string[]) {
  const { gate, open } = manualGate();
  const body = pool.run(labelled("A0"), orderBridge(order, gate), { ...RUN, tenant: "A" });
  await waitFor(() => order.length === 1, 5000, "A's first body to reach the bridge");
  return { body, open };
}

describe("fair shares among tenants", () => {
  it("serves tenants' queues in turn: B's one body runs before A's many", async () => {
    const pool = await createCodePool({ prefork: 1, maxConcurrent: 1 });
    try {
      await pool.whenReady(1);
      const order: string[] = [];
      const { body: first, open } = await holdFirstBody(pool, order);
      const queuedA = ["A1", "A2", "A3", "A4", "A5"].map((label) => pool.run(labelled(label), orderBridge(order), { ...RUN, tenant: "A" }));
      const queuedB = pool.run(labelled("B0"), orderBridge(order), { ...RUN, tenant: "B" });
      open();
      const results = await Promise.all([first, ...queuedA, queuedB]);
      expect(results.map((r) => r.ok && r.value)).toEqual(["A0", "A1", "A2", "A3", "A4", "A5", "B0"]);
      // A's line was in turn first (A1 queued before B's); then the lines alternate.
      expect(order).toEqual(["A0", "A1", "B0", "A2", "A3", "A4", "A5"]);
    } finally {
      await pool.close();
    }
  });

  it("keeps a slot for other tenants: A's bodies hold one of two, B's body runs while they wait", async () => {
    const pool = await createCodePool({ prefork: 2, maxConcurrent: 2 });
    try {
      await pool.whenReady(2);
      const order: string[] = [];
      const { gate, open } = manualGate();
      const bodiesA = ["A0", "A1", "A2"].map((label) => pool.run(labelled(label), orderBridge(order, gate), { ...RUN, tenant: "A" }));
      await waitFor(() => order.length === 1, 5000, "A's first body to reach the bridge");
      // A0 is held at the gate; A1 and A2 wait for A's one slot (maxRunningPerTenant defaults to maxConcurrent − 1).
      expect(await pool.run(labelled("B0"), orderBridge(order), { ...RUN, tenant: "B" })).toMatchObject({ ok: true, value: "B0" });
      expect(order).toEqual(["A0", "B0"]);
      open();
      expect((await Promise.all(bodiesA)).map((r) => r.ok && r.value)).toEqual(["A0", "A1", "A2"]);
    } finally {
      await pool.close();
    }
  });

  it("runs bodies that name no tenant side by side, each a tenant of its own", async () => {
    const pool = await createCodePool({ prefork: 2, maxConcurrent: 2 });
    try {
      await pool.whenReady(2);
      const order: string[] = [];
      const { gate, open } = manualGate();
      const bodies = ["X", "Y"].map((label) => pool.run(labelled(label), orderBridge(order, gate), RUN));
      await waitFor(() => order.length === 2, 5000, "both bodies to reach the bridge at once");
      open();
      expect((await Promise.all(bodies)).map((r) => r.ok && r.value)).toEqual(["X", "Y"]);
    } finally {
      await pool.close();
    }
  });

  it("reports its load: bodies running and waiting, tenant by tenant, busiest first", async () => {
    const pool = await createCodePool({ prefork: 1, maxConcurrent: 1, maxQueue: 8 });
    try {
      await pool.whenReady(1);
      expect(pool.load()).toMatchObject({ ready: 1, running: 0, queued: 0, maxConcurrent: 1, maxQueue: 8, tenants: [] });
      const order: string[] = [];
      const { body: running, open } = await holdFirstBody(pool, order);
      const queued = [
        pool.run(labelled("B0"), orderBridge(order), { ...RUN, tenant: "B" }),
        pool.run(labelled("B1"), orderBridge(order), { ...RUN, tenant: "B" }),
        pool.run(labelled("N0"), orderBridge(order), RUN),
      ];
      expect(pool.load()).toMatchObject({
        running: 1,
        queued: 3,
        tenants: [
          { tenant: "B", running: 0, queued: 2 },
          { tenant: "A", running: 1, queued: 0 },
          { tenant: undefined, running: 0, queued: 1 },
        ],
      });
      open();
      await Promise.all([running, ...queued]);
      // A slot is given back once its child is gone, just after the body's result.
      await waitFor(() => pool.load().running === 0, 5000, "the last slot to be given back");
      expect(pool.load()).toMatchObject({ running: 0, queued: 0, tenants: [] });
    } finally {
      await pool.close();
    }
  });

  it("answers POOL_SATURATED to a tenant past its queue share while another still queues", async () => {
    const pool = await createCodePool({ prefork: 1, maxConcurrent: 1, maxQueue: 8, maxQueuePerTenant: 2 });
    try {
      await pool.whenReady(1);
      const order: string[] = [];
      const { body: running, open } = await holdFirstBody(pool, order);
      const queuedA = ["A1", "A2"].map((label) => pool.run(labelled(label), orderBridge(order), { ...RUN, tenant: "A" }));
      const refused = await pool.run(labelled("A3"), orderBridge(order), { ...RUN, tenant: "A" });
      expect(refused).toMatchObject({ ok: false, error: { code: "POOL_SATURATED" } });
      expect(!refused.ok && refused.error.message).toMatch(
        /share for this caller is full: 2 of its bodies waiting .*maxQueuePerTenant 2.*other callers' bodies still queue/,
      );
      const queuedB = pool.run(labelled("B0"), orderBridge(order), { ...RUN, tenant: "B" });
      open();
      expect((await Promise.all([running, ...queuedA, queuedB])).map((r) => r.ok && r.value)).toEqual(["A0", "A1", "A2", "B0"]);
      expect(order).not.toContain("A3");
    } finally {
      await pool.close();
    }
  });

  it("a queued body cancelled by its signal leaves the queue at once and frees its place in the share", async () => {
    const pool = await createCodePool({ prefork: 1, maxConcurrent: 1, maxQueue: 8, maxQueuePerTenant: 1 });
    try {
      await pool.whenReady(1);
      const order: string[] = [];
      const { body: running, open } = await holdFirstBody(pool, order);
      const cancel = new AbortController();
      const queued = pool.run(labelled("A1"), orderBridge(order), { ...RUN, tenant: "A", signal: cancel.signal });
      expect(await pool.run(labelled("A2"), orderBridge(order), { ...RUN, tenant: "A" })).toMatchObject({ error: { code: "POOL_SATURATED" } });
      cancel.abort();
      // Answered while A0 still holds the only slot: the waiter left the queue, it did not wait its turn.
      expect(await queued).toMatchObject({ ok: false, error: { code: "CANCELLED", message: expect.stringMatching(/while it waited/) } });
      const again = pool.run(labelled("A3"), orderBridge(order), { ...RUN, tenant: "A" });
      open();
      expect((await Promise.all([running, again])).map((r) => r.ok && r.value)).toEqual(["A0", "A3"]);
      expect(order).toEqual(["A0", "A3"]);
    } finally {
      await pool.close();
    }
  });

  it("a running body cancelled by its signal is killed at once and its slot goes to the next tenant in turn", async () => {
    const pool = await createCodePool({ prefork: 1, maxConcurrent: 1 });
    try {
      await pool.whenReady(1);
      const order: string[] = [];
      const { gate } = manualGate(); // never opened: only the cancel ends A0
      const cancel = new AbortController();
      const running = pool.run(labelled("A0"), orderBridge(order, gate), { ...RUN, tenant: "A", signal: cancel.signal });
      await waitFor(() => order.length === 1, 5000, "A's first body to reach the bridge");
      // The one child there is now is A0's (nothing is queued yet, so no replacement has been forked).
      const busy = pool.childPids();
      const queuedA = pool.run(labelled("A1"), orderBridge(order), { ...RUN, tenant: "A" });
      const queuedB = pool.run(labelled("B0"), orderBridge(order), { ...RUN, tenant: "B" });
      cancel.abort();
      expect(await running).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
      expect(busy.length).toBeGreaterThan(0);
      await waitFor(() => busy.some((p) => !isAlive(p)), 5000, "the cancelled body's child to die");
      expect((await Promise.all([queuedA, queuedB])).map((r) => r.ok && r.value)).toEqual(["A1", "B0"]);
      expect(order).toEqual(["A0", "A1", "B0"]);
      expect(unaccountedProcesses(pool)).toEqual([]);
    } finally {
      await pool.close();
    }
  });

  it("rejects a tenant that is not a non-empty string with CONFIG_INVALID", async () => {
    const pool = await createCodePool({ prefork: 0 });
    try {
      await expect(pool.run("return 1", fakeBridge(), { ...RUN, tenant: "" })).rejects.toMatchObject({
        code: "CONFIG_INVALID",
        message: expect.stringMatching(/tenant/),
      });
      await expect(pool.run("return 1", fakeBridge(), { ...RUN, tenant: 7 as unknown as string })).rejects.toMatchObject({ code: "CONFIG_INVALID" });
    } finally {
      await pool.close();
    }
  });
});

describe("probeSandbox", () => {
  it("reports the layers without keeping a pool", async () => {
    const report = await probeSandbox();
    expect(report).toMatchObject({ available: true, layers: { permissionModel: true, noCodeGenFromStrings: true, vmContext: true } });
  });
});

describe("unavailable sandbox", () => {
  it("reports why and answers SANDBOX_UNAVAILABLE when no child can start", async () => {
    // Every launch plan points at a program that does not exist: a host where nothing starts.
    const pool = await createCodePool({ prefork: 1 }, { launchPlans: (plans) => plans.map((p) => ({ ...p, command: "/nonexistent/toolsearch-node" })) });
    try {
      const report = pool.report();
      expect(report.available).toBe(false);
      expect(report.reason).toMatch(/no sandbox child could start: .*ENOENT/);
      expect(await pool.run("return 1;", fakeBridge(), RUN)).toMatchObject({ ok: false, error: { code: "SANDBOX_UNAVAILABLE" } });
    } finally {
      await pool.close();
    }
    expect(poolProcesses(pool)).toEqual([]);
  });

  it("refuses to run bodies when the permission model does not take effect in the child", async () => {
    const pool = await createCodePool(
      { prefork: 1, namespaces: false },
      { launchPlans: (plans) => plans.map((p) => ({ ...p, nodeFlags: p.nodeFlags.filter((f) => !f.includes("permission")) })) },
    );
    try {
      expect(pool.report()).toMatchObject({ available: false, reason: expect.stringMatching(/permission model did not take effect/) });
      expect(await pool.run("return 1;", fakeBridge(), RUN)).toMatchObject({ ok: false, error: { code: "SANDBOX_UNAVAILABLE" } });
    } finally {
      await pool.close();
    }
    expect(poolProcesses(pool)).toEqual([]);
  });

  it("falls back to a weaker launch plan and says which it skipped", async (ctx) => {
    let hadUnshare = false;
    const pool = await createCodePool(
      { prefork: 0 },
      {
        launchPlans: (plans) => {
          hadUnshare = plans.some((p) => p.unshare);
          // An option unshare does not know makes it exit at once, as a host that refuses it would.
          return plans.map((p) => (p.unshare ? { ...p, prefix: ["--no-such-unshare-option", ...p.prefix] } : p));
        },
      },
    );
    try {
      if (!hadUnshare) ctx.skip("this host plans no unshare layer, so there is none to fall back from");
      const report = pool.report();
      expect(report.available).toBe(true);
      expect(report.layers.pidNamespace).toBe(false);
      expect(report.layers.networkNamespace).toBe(false);
      expect(pool.launchPlan()!.unshare).toBe(false);
      expect(report.notes?.join(" ")).toMatch(/unshare: exited before ready/);
    } finally {
      await pool.close();
    }
  });
});
