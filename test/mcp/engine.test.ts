/** Through the engine: an MCP server's tools are searched, described and called like any other; a dead server's tools drop out and come back. */
import { afterEach, describe, expect, it } from "vitest";
import { coreTools, createToolSearch, type ToolSearchEngine } from "../../src/index.js";
import { mcpServer } from "../../src/mcp/index.js";
import { childPids, everythingConfig, isRunning, nextChange, waitFor } from "./helpers.js";

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

const core = coreTools([{ name: "local_note", description: "Writes a local note", inputSchema: { type: "object" }, execute: () => "noted" }]);

describe("mcpServer in the engine", () => {
  it("search, describe and call mcp:everything:echo; close leaves no child", async () => {
    const before = childPids();
    const source = mcpServer(everythingConfig());
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [core, source] });
    expect(engine.catalogStatus().sources).toContainEqual(expect.objectContaining({ source: "mcp", toolset: "everything", ok: true }));
    const run = await engine.prepareRun({ sessionId: "s", mode: "tools" });
    const hits = await run.search("echo");
    expect(hits[0]).toMatchObject({ id: "mcp:everything:echo", source: "mcp", toolset: "everything" });
    expect(await run.describe("mcp:everything:echo")).toMatchObject({ id: "mcp:everything:echo" });
    expect(await run.call("mcp:everything:echo", { message: "hi" })).toEqual({ ok: true, id: "mcp:everything:echo", source: "mcp", result: "Echo: hi" });
    // ajv checks arguments against the MCP inputSchema before the server sees them.
    expect(await run.call("mcp:everything:echo", { message: 5 })).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    expect(run.telemetry().catalog.bySource.mcp).toBeGreaterThan(5);
    await run.end();
    const pid = source.status().pid!;
    await engine.close();
    engine = undefined;
    expect(isRunning(pid)).toBe(false);
    expect(childPids()).toEqual(before.filter(isRunning));
  });

  it("a server that dies: its tools drop out of later runs, other sources keep working, and it comes back by itself", async () => {
    const source = mcpServer(everythingConfig(), { retryMinDelayMs: 200, retryMaxDelayMs: 400 });
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [core, source] });
    const run = await engine.prepareRun({ sessionId: "s" });
    const pid = source.status().pid!;
    process.kill(pid, "SIGKILL");
    await waitFor(() => source.status().state === "gone", "the source to notice");

    expect(await run.call("mcp:everything:echo", { message: "x" })).toMatchObject({ ok: false });
    expect(await run.call("core:local_note", {})).toMatchObject({ ok: true, result: "noted" });
    await run.end();
    expect(engine.catalogStatus().sources).toContainEqual(
      expect.objectContaining({ toolset: "everything", ok: false, error: expect.stringContaining("exited") }),
    );

    // No run asks for it: the source reconnects in the background, and the catalog takes its tools back.
    const back = nextChange((listener) => engine!.onCatalogChange(listener));
    await waitFor(() => source.status().state === "ready", "the background reconnect", 20_000);
    await back;
    expect(source.status().pid).not.toBe(pid);
    const revived = await engine.prepareRun({ sessionId: "s" });
    expect((await revived.search("echo"))[0]?.id).toBe("mcp:everything:echo");
    expect(await revived.call("mcp:everything:echo", { message: "back" })).toMatchObject({ ok: true, result: "Echo: back" });
    expect(engine.catalogStatus().sources).toContainEqual({ source: "mcp", toolset: "everything", ok: true, tools: expect.any(Number) });
    await revived.end();
  });

  // A tool that vanished with its MCP server is TOOL_UNAVAILABLE, saying why, not TOOL_NOT_FOUND:
  // the catalog was rebuilt without it, and the run falls back to the entry it was admitted with.
  it("a run prepared before the server died answers TOOL_UNAVAILABLE for its tools", async () => {
    const source = mcpServer(everythingConfig());
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [source] });
    const run = await engine.prepareRun({ sessionId: "s" });
    process.kill(source.status().pid!, "SIGKILL");
    await waitFor(() => source.status().state === "gone", "the source to notice");
    expect(await run.call("mcp:everything:echo", { message: "x" })).toMatchObject({
      ok: false,
      error: { code: "TOOL_UNAVAILABLE", message: expect.stringContaining('MCP server "everything" exited') },
    });
    await run.end();
  });

  it("a server down at engine start is reported in the source status, not fatal", async () => {
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [core, mcpServer({ name: "nope", command: "/nonexistent/server" })] });
    expect(engine.catalogStatus().sources).toContainEqual(
      expect.objectContaining({ toolset: "nope", ok: false, error: expect.stringMatching(/MCP server "nope" .*could not start/) }),
    );
    const run = await engine.prepareRun({ sessionId: "s" });
    expect(await run.call("core:local_note", {})).toMatchObject({ ok: true });
    await run.end();
  });
});
