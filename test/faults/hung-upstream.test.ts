/**
 * A server that hangs at start, or takes long to start, is off the request path: the engine waits
 * for it no longer than its connectTimeoutMs, runs use the catalog as it is while it keeps
 * starting in the background, and its tools join the catalog when it is ready.
 */
import { afterEach, describe, expect, it } from "vitest";
import { coreTools, createToolSearch, type ToolSearchEngine } from "../../src/index.js";
import { faultSources, NEVER_MS, nextChange, waitFor } from "./helpers.js";

const { source } = faultSources();
let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

const core = coreTools([{ name: "local_note", description: "Writes a local note", inputSchema: { type: "object" }, execute: () => "noted" }]);

describe("a hung or slow upstream server", () => {
  it("a run with one hung server among three returns while the hung one is still connecting", async () => {
    const a = source("alpha").source;
    const b = source("beta").source;
    const hung = source("hung", { FAULT_START_DELAY_MS: NEVER_MS }, { connectTimeoutMs: 300, killGraceMs: 100 });
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [core, a, b, hung.source] });

    expect(hung.source.status().state).toBe("connecting");
    expect(engine.catalogStatus().sources).toEqual([
      { source: "core", toolset: "core", ok: true, tools: 1 },
      { source: "mcp", toolset: "alpha", ok: true, tools: 4 },
      { source: "mcp", toolset: "beta", ok: true, tools: 4 },
      { source: "mcp", toolset: "hung", ok: false, tools: 0, error: expect.stringContaining('MCP server "hung" (stdio: node) is still connecting') },
    ]);
    // Several turns, each with calls on both live servers: none waits for the hung one.
    for (let turn = 0; turn < 3; turn += 1) {
      const run = await engine.prepareRun({ sessionId: `turn-${turn}` });
      expect((await run.search("echo text back")).map((hit) => hit.id)).toEqual(expect.arrayContaining(["mcp:alpha:echo", "mcp:beta:echo"]));
      expect(await run.call("mcp:alpha:echo", { text: "a" })).toMatchObject({ ok: true, result: "echo:a" });
      expect(await run.call("mcp:beta:echo", { text: "b" })).toMatchObject({ ok: true, result: "echo:b" });
      expect(await run.call("mcp:hung:echo", {})).toMatchObject({ ok: false, error: { code: "TOOL_NOT_FOUND" } });
      await run.end();
    }
    // All of that happened while the hung server was still on its first start.
    expect(hung.source.status().state).toBe("connecting");
    expect(hung.events.map((e) => e.kind)).toEqual(["connecting", "slow"]);
  });

  it("a server that needs longer than connectTimeoutMs to start joins the catalog when it is ready", async () => {
    const slow = source("slowstart", { FAULT_START_DELAY_MS: 1_500 }, { connectTimeoutMs: 300 });
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [core, slow.source] });
    const joined = nextChange((listener) => engine!.onCatalogChange(listener));

    const before = await engine.prepareRun({ sessionId: "before" });
    expect(slow.source.status().state).toBe("connecting");
    expect(await before.call("mcp:slowstart:echo", { text: "x" })).toMatchObject({ ok: false, error: { code: "TOOL_NOT_FOUND" } });
    await before.end();

    await joined;
    expect(slow.source.status().state).toBe("ready");
    expect(engine.catalogStatus().sources).toContainEqual({ source: "mcp", toolset: "slowstart", ok: true, tools: 4 });
    const after = await engine.prepareRun({ sessionId: "after" });
    expect(await after.call("mcp:slowstart:echo", { text: "late" })).toMatchObject({ ok: true, result: "echo:late" });
    await after.end();
    expect(slow.events.map((e) => e.kind)).toEqual(["connecting", "slow", "ready"]);
    expect(slow.events[2]).toMatchObject({ kind: "ready", first: true, attempt: 1, tools: 4 });
  });

  it("a hung start is stopped at startupTimeoutMs and tried again later, with a growing delay", async () => {
    const hung = source(
      "hung",
      { FAULT_START_DELAY_MS: NEVER_MS },
      { connectTimeoutMs: 100, startupTimeoutMs: 200, killGraceMs: 50, retryMinDelayMs: 50, retryMaxDelayMs: 400 },
    );
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [core, hung.source] });
    await waitFor(() => hung.events.filter((e) => e.kind === "failed").length >= 3, "three failed tries", 20_000);
    const failed = hung.events.flatMap((e) => (e.kind === "failed" ? [e] : []));
    expect(failed[0]).toMatchObject({ attempt: 1, reason: expect.stringContaining("did not connect and list its tools within 200 ms (startupTimeoutMs)") });
    expect(failed.map((e) => e.attempt).slice(0, 3)).toEqual([1, 2, 3]);
    // Equal jitter keeps each delay in the upper half of its doubling cap: they never shrink.
    const delays = failed.map((e) => e.retryInMs);
    for (let i = 1; i < delays.length; i += 1) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!);
    expect(Math.max(...delays)).toBeLessThanOrEqual(400);
    expect(hung.events.filter((e) => e.kind === "connecting").map((e) => (e.kind === "connecting" ? e.first : undefined))).toEqual(
      expect.arrayContaining([true, false]),
    );
  });
});
