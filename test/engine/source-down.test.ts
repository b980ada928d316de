/** A source that cannot start is said through onSourceDown, not only kept in catalogStatus(). */
import { describe, expect, it } from "vitest";
import { coreTools, createToolSearch, mcpServer, type SourceStatus } from "../../src/index.js";

describe("onSourceDown", () => {
  it("is called once at start for each source that is down, with why; the others still serve", { timeout: 60_000 }, async () => {
    const down: SourceStatus[] = [];
    const engine = await createToolSearch({
      toolSearch: { mode: "tools" },
      sources: [
        coreTools([{ name: "ping", description: "Answer pong.", inputSchema: { type: "object" }, execute: () => "pong" }]),
        mcpServer({ name: "missing", command: "/nonexistent/mcp-server-binary" }, { connectTimeoutMs: 5_000 }),
      ],
      onSourceDown: (status) => down.push(status),
    });
    try {
      expect(down).toHaveLength(1);
      expect(down[0]).toMatchObject({ source: "mcp", toolset: "missing", ok: false, error: expect.any(String) });
      const run = await engine.prepareRun({ sessionId: "s" });
      expect(await run.call("core:ping", {})).toMatchObject({ ok: true, result: "pong" });
    } finally {
      await engine.close();
    }
  });

  it("a callback that throws does not refuse the engine", { timeout: 60_000 }, async () => {
    const engine = await createToolSearch({
      toolSearch: { mode: "tools" },
      sources: [mcpServer({ name: "missing", command: "/nonexistent/mcp-server-binary" }, { connectTimeoutMs: 5_000 })],
      onSourceDown: () => {
        throw new Error("the caller's bug");
      },
    });
    await engine.close();
  });

  it("must be a function", async () => {
    await expect(createToolSearch({ onSourceDown: "log it" as never })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining("onSourceDown"),
    });
  });
});
