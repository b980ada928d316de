/**
 * Servers that crash mid-call, flap, answer garbage or list 50,000 tools: each fault stays with
 * its server. The other servers keep answering, a server that went away comes back by itself,
 * and one that keeps failing is tried less and less often.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createToolSearch, type ToolSearchEngine } from "../../src/index.js";
import { faultSources, waitFor } from "./helpers.js";

const { source } = faultSources();
let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

const quickRetry = { retryMinDelayMs: 50, retryMaxDelayMs: 400 };

describe("a flaky upstream server", () => {
  it("crashes mid-call: that call is TOOL_UNAVAILABLE, the other server answers meanwhile, and the crashed one comes back by itself", async () => {
    const crashy = source("crashy", {}, quickRetry);
    const steady = source("steady");
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [crashy.source, steady.source] });
    const run = await engine.prepareRun({ sessionId: "s" });
    const [crashed, other] = await Promise.all([run.call("mcp:crashy:crash", {}), run.call("mcp:steady:echo", { text: "still here" })]);
    expect(crashed).toMatchObject({ ok: false, error: { code: "TOOL_UNAVAILABLE", message: expect.stringContaining('MCP server "crashy" exited') } });
    expect(other).toMatchObject({ ok: true, result: "echo:still here" });
    await run.end();

    await waitFor(() => crashy.events.some((e) => e.kind === "ready" && !e.first), "the background reconnect", 20_000);
    expect(crashy.events.map((e) => e.kind)).toEqual(["connecting", "ready", "gone", "connecting", "ready"]);
    const again = await engine.prepareRun({ sessionId: "s2" });
    expect(await again.call("mcp:crashy:echo", { text: "back" })).toMatchObject({ ok: true, result: "echo:back" });
    await again.end();
  });

  it("flaps (exits soon after each start): it is reconnected each time, with delays that do not reset", async () => {
    const flappy = source("flappy", { FAULT_EXIT_AFTER_MS: 100 }, quickRetry);
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [flappy.source] });
    await waitFor(() => flappy.events.filter((e) => e.kind === "gone").length >= 4, "four exits", 30_000);
    const gone = flappy.events.flatMap((e) => (e.kind === "gone" ? [e] : []));
    // A connection that lasted less than retryMaxDelayMs is not a success: the delay keeps growing to the cap.
    for (let i = 1; i < gone.length; i += 1) expect(gone[i]!.retryInMs).toBeGreaterThanOrEqual(gone[i - 1]!.retryInMs);
    expect(gone.at(-1)!.retryInMs).toBeGreaterThanOrEqual(200);
    expect(gone.at(-1)!.retryInMs).toBeLessThanOrEqual(400);
    expect(flappy.events.filter((e) => e.kind === "ready").length).toBeGreaterThanOrEqual(4);
    expect(flappy.source.status().failures).toBeGreaterThanOrEqual(4);
  });

  it("answers garbage on stdout: its start fails at startupTimeoutMs and is tried again later; the other server serves", async () => {
    const garbled = source("garbled", { FAULT_GARBAGE: true }, { startupTimeoutMs: 300, killGraceMs: 50, ...quickRetry });
    const steady = source("steady");
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [garbled.source, steady.source] });
    expect(engine.catalogStatus().sources).toEqual([
      { source: "mcp", toolset: "garbled", ok: false, tools: 0, error: expect.stringContaining("did not connect and list its tools within 300 ms") },
      { source: "mcp", toolset: "steady", ok: true, tools: 4 },
    ]);
    const run = await engine.prepareRun({ sessionId: "s" });
    expect(await run.call("mcp:steady:echo", { text: "ok" })).toMatchObject({ ok: true, result: "echo:ok" });
    await run.end();
    await waitFor(() => garbled.events.filter((e) => e.kind === "failed").length >= 2, "a second failed try", 20_000);
    expect(garbled.source.status().state).not.toBe("ready");
  });

  it("lists 50,000 tools: maxTools of them are taken, the listing is marked truncated, and the others' tools are unaffected", { timeout: 60_000 }, async () => {
    const huge = source("huge", { FAULT_TOOLS: 50_000 }, { startupTimeoutMs: 30_000, connectTimeoutMs: 30_000 });
    const steady = source("steady");
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [huge.source, steady.source] });
    expect(huge.source.status()).toMatchObject({ state: "ready", tools: 5_000, truncated: true });
    expect(engine.catalogStatus().sources).toEqual([
      { source: "mcp", toolset: "huge", ok: true, tools: 5_000 },
      { source: "mcp", toolset: "steady", ok: true, tools: 4 },
    ]);
    const run = await engine.prepareRun({ sessionId: "s" });
    expect(await run.call("mcp:steady:echo", { text: "ok" })).toMatchObject({ ok: true, result: "echo:ok" });
    expect(await run.call("mcp:huge:tool_4995", {})).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
    await run.end();
  });
});
