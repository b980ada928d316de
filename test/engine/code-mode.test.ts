/**
 * Code mode through the engine with real sandbox children: bridged calls take the
 * dispatcher's one path (policy, hooks, approval, telemetry), and a sandbox that cannot start
 * turns code mode into tools mode before the surface is built.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodePool, type CodePool, type ToolSearchEngine } from "../../src/index.js";
import * as sandbox from "../../src/sandbox/index.js";
import { waitFor } from "../sandbox/helpers.js";
import { fixtureEngine, parse } from "./helpers.js";

let pool: CodePool;
beforeAll(async () => {
  pool = await createCodePool({ prefork: 1 });
});
afterAll(async () => {
  await pool.close();
});

async function codeRun(engine: ToolSearchEngine, code: string, owner = false) {
  const run = await engine.prepareRun({ sessionId: "code", mode: "code", owner });
  const content = parse(await run.handleToolCall({ name: "tool_search_code", arguments: JSON.stringify({ code }) }));
  return { run, content };
}

describe("code mode through the engine", () => {
  it("runs the seed body (search → describe → call) and returns the tool's result and the logs", async () => {
    const recorder = { ran: [] as string[] };
    const engine = await fixtureEngine({ codePool: pool }, recorder);
    try {
      const { run, content } = await codeRun(
        engine,
        `const [hit] = await openclaw.tools.search("weather forecast for a city");
         const tool = await openclaw.tools.describe(hit.id);
         console.log("found", hit.id, Object.keys(tool.inputSchema.properties).join(","));
         return await openclaw.tools.call(hit.id, { city: "Paris", days: 2 });`,
      );
      expect(run.tools.map((t) => t.function.name)).toEqual(["tool_search_code"]);
      expect(run.instructions).toContain("openclaw.tools.search");
      expect(content).toEqual({
        ok: true,
        value: { city: "Paris", forecast: "sunny", days: 2 },
        logs: [{ level: "log", message: "found core:get_weather_forecast city,days" }],
      });
      expect(recorder.ran).toEqual(["get_weather_forecast"]);
      expect(run.telemetry()).toMatchObject({ mode: "code", counts: { search: 1, describe: 1, call: 1, codeRuns: 1 } });
      expect(run.telemetry().calls).toEqual([expect.objectContaining({ id: "core:get_weather_forecast", source: "core", ok: true, via: "bridge" })]);
    } finally {
      await engine.close();
    }
  });

  it("a denied tool is invisible from inside the body", async () => {
    const recorder = { ran: [] as string[] };
    const engine = await fixtureEngine({ codePool: pool, policy: { deny: ["plugin:github:*"] } }, recorder);
    try {
      const { content } = await codeRun(
        engine,
        `const hits = await openclaw.tools.search("create a github issue", { limit: 20 });
         const errors = [];
         try { await openclaw.tools.describe("plugin:github:create_issue"); } catch (e) { errors.push(e.code); }
         try { await openclaw.tools.call("plugin:github:create_issue", { repo: "a/b", title: "t" }); } catch (e) { errors.push(e.code); }
         return { ids: hits.map((h) => h.id), errors };`,
      );
      expect(content.ok).toBe(true);
      const value = content.value as { ids: string[]; errors: string[] };
      expect(value.ids.filter((id) => id.startsWith("plugin:github:"))).toEqual([]);
      expect(value.errors).toEqual(["TOOL_NOT_FOUND", "TOOL_NOT_FOUND"]);
      expect(recorder.ran).toEqual([]);
    } finally {
      await engine.close();
    }
  });

  it("an approval block reaches the body as an error with its code, and execute never runs", async () => {
    const recorder = { ran: [] as string[] };
    const engine = await fixtureEngine({ codePool: pool, hooks: { approve: () => ({ approved: false, reason: "user said no" }) } }, recorder);
    try {
      const { content, run } = await codeRun(
        engine,
        `try { await openclaw.tools.call("core:send_email", { to: "a@b.c", subject: "hi" }); return "sent"; }
         catch (e) { return { code: e.code, message: e.message, isError: e instanceof Error }; }`,
      );
      expect(content.value).toEqual({ code: "APPROVAL_DENIED", message: expect.stringContaining("user said no"), isError: true });
      expect(recorder.ran).toEqual([]);
      expect(run.telemetry().calls).toEqual([expect.objectContaining({ id: "core:send_email", ok: false, code: "APPROVAL_DENIED", via: "bridge" })]);
    } finally {
      await engine.close();
    }
  });

  it("reports body failures with their codes", async () => {
    const engine = await fixtureEngine({ codePool: pool, toolSearch: { mode: "code", codeTimeoutMs: 1000 } });
    try {
      expect((await codeRun(engine, "return (")).content).toMatchObject({ ok: false, error: { code: "CODE_SYNTAX" } });
      expect((await codeRun(engine, "throw new Error('boom')")).content).toMatchObject({
        ok: false,
        error: { code: "CODE_THREW", message: expect.stringContaining("boom") },
      });
      expect((await codeRun(engine, "while (true) {}")).content).toMatchObject({ ok: false, error: { code: "CODE_TIMEOUT" } });
      expect(
        parse(await (await engine.prepareRun({ sessionId: "x", mode: "code" })).handleToolCall({ name: "tool_search_code", arguments: "{}" })),
      ).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    } finally {
      await engine.close();
    }
  });
});

describe("fair shares of the code pool", () => {
  it("a run's bodies count against its tenant (the session, or RunContext.tenant): past its queue share it gets POOL_SATURATED, another session still queues", async () => {
    const shared = await sandbox.createCodePool({ prefork: 1, maxConcurrent: 1, maxQueue: 4, maxQueuePerTenant: 1 });
    const engine = await fixtureEngine({ codePool: shared, toolSearch: { mode: "code" } });
    const answer = (run: Awaited<ReturnType<ToolSearchEngine["prepareRun"]>>, code: string) =>
      run.handleToolCall({ name: "tool_search_code", arguments: JSON.stringify({ code }) }).then(parse);
    try {
      await shared.whenReady(1);
      const a = await engine.prepareRun({ sessionId: "a" });
      const holding = answer(a, "await new Promise(() => {});");
      // The pool's one child is handed to the body synchronously inside run(): none is ready now.
      await waitFor(() => shared.readyCount() === 0, 10_000, "a's first body to take the pool's slot");
      const queued = answer(a, "return 'a2';");
      expect(await answer(a, "return 'a3';")).toMatchObject({
        ok: false,
        error: { code: "POOL_SATURATED", message: expect.stringMatching(/share for this caller/) },
      });
      // Another session naming the same tenant shares that share.
      const sameTenant = await engine.prepareRun({ sessionId: "a-too", tenant: "a" });
      expect(await answer(sameTenant, "return 'c';")).toMatchObject({ ok: false, error: { code: "POOL_SATURATED" } });
      const b = await engine.prepareRun({ sessionId: "b" });
      const other = answer(b, "return 'b';");
      await a.end();
      expect(await holding).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
      expect(await queued).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
      expect(await other).toMatchObject({ ok: true, value: "b" });
      await Promise.all([b.end(), sameTenant.end()]);
    } finally {
      await engine.close();
      await shared.close();
    }
  });

  it("refuses an empty tenant in the run context with CONFIG_INVALID", async () => {
    const engine = await fixtureEngine({ codePool: pool });
    try {
      await expect(engine.prepareRun({ sessionId: "s", tenant: "" })).rejects.toMatchObject({
        code: "CONFIG_INVALID",
        message: expect.stringMatching(/tenant/),
      });
    } finally {
      await engine.close();
    }
  });
});

describe("fallback", () => {
  it("code mode becomes tools mode before compaction when the sandbox cannot start, and telemetry says why", async () => {
    const broken = await sandbox.createCodePool({ prefork: 1 }, { launchPlans: (plans) => plans.map((p) => ({ ...p, command: "/nonexistent/node" })) });
    const engine = await fixtureEngine({ codePool: broken, toolSearch: true });
    try {
      expect(broken.report().available).toBe(false);
      const run = await engine.prepareRun({ sessionId: "f" });
      expect(run.mode).toBe("tools");
      expect(run.tools.map((t) => t.function.name)).toEqual(["tool_search", "tool_describe", "tool_call"]);
      expect(run.telemetry()).toMatchObject({ mode: "tools", requestedMode: "code", fallbackReason: expect.stringContaining("code sandbox unavailable") });
      expect((await engine.sandboxReport()).available).toBe(false);
    } finally {
      await engine.close();
      await broken.close();
    }
  });
});
