/** The one call path: validation, hooks, approval, execute, after hooks. Blocks are reported, never bypassed. */
import { afterEach, describe, expect, it } from "vitest";
import type { ToolCallInfo, ToolSearchEngine } from "../../src/index.js";
import { fixtureEngine } from "./helpers.js";

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

const WEATHER = "core:get_weather_forecast";

describe("call path", () => {
  it("validates args with ajv and names the bad field", async () => {
    const recorder = { ran: [] as string[] };
    engine = await fixtureEngine({}, recorder);
    const run = await engine.prepareRun({ sessionId: "s" });
    const wrongType = await run.call(WEATHER, { city: 5 });
    expect(wrongType).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    expect(wrongType).toMatchObject({ error: { message: expect.stringContaining("args.city: must be string") } });
    const missing = await run.call(WEATHER, {});
    expect(missing).toMatchObject({ ok: false, error: { code: "INVALID_ARGS", message: expect.stringContaining('missing required field "city"') } });
    const extra = await run.call(WEATHER, { city: "Paris", color: "red" });
    expect(extra).toMatchObject({ ok: false, error: { code: "INVALID_ARGS", message: expect.stringContaining('unknown field "color"') } });
    expect(recorder.ran).toEqual([]);
  });

  it("a blocking beforeToolCall hook is reported and execute never runs", async () => {
    const recorder = { ran: [] as string[] };
    const seen: ToolCallInfo[] = [];
    engine = await fixtureEngine(
      {
        hooks: {
          beforeToolCall: [
            (call) => {
              seen.push(call);
            },
            (call) => (call.id === WEATHER ? { block: true, reason: "no weather today" } : undefined),
          ],
        },
      },
      recorder,
    );
    const run = await engine.prepareRun({ sessionId: "s", agentId: "agent-1" });
    const outcome = await run.call(WEATHER, { city: "Paris" });
    expect(outcome).toEqual({
      ok: false,
      id: WEATHER,
      source: "core",
      error: { code: "HOOK_BLOCKED", message: "Blocked by a beforeToolCall hook: no weather today" },
    });
    expect(recorder.ran).toEqual([]);
    expect(seen[0]).toMatchObject({
      id: WEATHER,
      name: "get_weather_forecast",
      source: "core",
      toolset: "core",
      sessionId: "s",
      agentId: "agent-1",
      runId: run.runId,
    });
    expect(run.telemetry().calls).toEqual([expect.objectContaining({ id: WEATHER, ok: false, code: "HOOK_BLOCKED" })]);
  });

  it("a hook may rewrite args, which are validated again", async () => {
    engine = await fixtureEngine({ hooks: { beforeToolCall: (call) => ({ args: { ...call.args, days: 3 } }) } });
    const run = await engine.prepareRun({ sessionId: "s" });
    expect(await run.call(WEATHER, { city: "Oslo" })).toMatchObject({ ok: true, result: { city: "Oslo", days: 3 } });
    await engine.close();
    engine = await fixtureEngine({ hooks: { beforeToolCall: () => ({ args: { city: 1 } }) } });
    const bad = await (await engine.prepareRun({ sessionId: "s" })).call(WEATHER, { city: "Oslo" });
    expect(bad).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
  });

  it("a hook that throws blocks the call (fail closed)", async () => {
    const recorder = { ran: [] as string[] };
    engine = await fixtureEngine(
      {
        hooks: {
          beforeToolCall: () => {
            throw new Error("hook crashed");
          },
        },
      },
      recorder,
    );
    const outcome = await (await engine.prepareRun({ sessionId: "s" })).call(WEATHER, { city: "Paris" });
    expect(outcome).toMatchObject({ ok: false, error: { code: "HOOK_BLOCKED", message: expect.stringContaining("hook crashed") } });
    expect(recorder.ran).toEqual([]);
  });

  it("approval may deny (boolean, object, or by throwing) and execute never runs", async () => {
    for (const approve of [
      () => false,
      async () => ({ approved: false, reason: "user said no" }),
      () => {
        throw new Error("approver down");
      },
    ]) {
      const recorder = { ran: [] as string[] };
      engine = await fixtureEngine({ hooks: { approve } }, recorder);
      const outcome = await (await engine.prepareRun({ sessionId: "s" })).call(WEATHER, { city: "Paris" });
      expect(outcome).toMatchObject({ ok: false, error: { code: "APPROVAL_DENIED" } });
      expect(recorder.ran).toEqual([]);
      await engine.close();
    }
    engine = await fixtureEngine({ hooks: { approve: (call) => ({ approved: call.args.city === "Paris" }) } });
    const run = await engine.prepareRun({ sessionId: "s" });
    expect(await run.call(WEATHER, { city: "Paris" })).toMatchObject({ ok: true });
    expect(await run.call(WEATHER, { city: "Rome" })).toMatchObject({
      ok: false,
      error: { code: "APPROVAL_DENIED", message: expect.stringContaining("Approval denied") },
    });
  });

  it("a tool that throws gives TOOL_FAILED with its message; afterToolCall sees every outcome", async () => {
    const after: Array<{ id: string; ok: boolean }> = [];
    engine = await fixtureEngine({ hooks: { afterToolCall: (call) => void after.push({ id: call.id, ok: call.outcome.ok }) } });
    const run = await engine.prepareRun({ sessionId: "s" });
    expect(await run.call("plugin:github:fail_always", {})).toMatchObject({
      ok: false,
      error: { code: "TOOL_FAILED", message: expect.stringContaining("backend exploded") },
    });
    await run.call(WEATHER, { city: "Paris" });
    expect(after).toEqual([
      { id: "plugin:github:fail_always", ok: false },
      { id: WEATHER, ok: true },
    ]);
  });

  it("a slow tool is cut at the call deadline and sees its signal aborted", async () => {
    let aborted = false;
    const slow = {
      name: "slow",
      description: "Never finishes on its own.",
      inputSchema: { type: "object" },
      execute: (_args: unknown, ctx: { signal: AbortSignal }) => new Promise(() => ctx.signal.addEventListener("abort", () => (aborted = true))),
    };
    const { createToolSearch, coreTools } = await import("../../src/index.js");
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [coreTools([slow])], callTimeoutMs: 50 });
    const outcome = await (await engine.prepareRun({ sessionId: "s" })).call("core:slow", {});
    expect(outcome).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT", message: expect.stringContaining("timed out after 50 ms") } });
    expect(aborted).toBe(true);
  });

  it("unknown ids get up to three did-you-mean ids", async () => {
    engine = await fixtureEngine();
    const run = await engine.prepareRun({ sessionId: "s" });
    const outcome = await run.call("core:get_weather_forcast", { city: "x" });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: "TOOL_NOT_FOUND", message: expect.stringContaining("Did you mean: core:get_weather_forecast") },
    });
  });
});
