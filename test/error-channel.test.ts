/** Failures that fail no call and no run are published on "toolsearch:error" and, for the catalog, kept in its status. */
import { describe, expect, it } from "vitest";
import { coreTools, createToolSearch, type CatalogSource, type ToolDefinition } from "../src/index.js";
import { lenientOutputValidator } from "../src/mcp/output-validator.js";
import { fixtureEngine } from "./engine/helpers.js";
import { publishedFailures } from "./support/error-events.js";

const published = publishedFailures();

const tool = (name: string): ToolDefinition => ({ name, description: `${name} tool`, inputSchema: { type: "object" }, execute: () => name });

/** A plugin source whose list the test changes, as an MCP server's list changes. */
function liveSource(initial: ToolDefinition[]): CatalogSource & { set(tools: ToolDefinition[]): void } {
  let tools = initial;
  const listeners: Array<() => void> = [];
  return {
    source: "plugin",
    toolset: "live",
    tools: () => tools,
    onChange: (l) => listeners.push(l),
    set(next) {
      tools = next;
      for (const l of listeners) l();
    },
  };
}

describe("toolsearch:error", () => {
  it("a refused rebuild keeps the previous catalog, shows in catalogStatus and is published; the next good one clears it", async () => {
    const live = liveSource([tool("a")]);
    const engine = await createToolSearch({ sources: [coreTools([tool("core_one")]), live] });
    try {
      live.set([tool("b"), tool("b")]);
      expect(engine.catalogStatus()).toMatchObject({
        size: 2,
        rebuildError: { code: "CONFIG_INVALID", message: expect.stringContaining('Duplicate tool id "plugin:live:b"') },
      });
      expect(published).toEqual([expect.objectContaining({ origin: "catalog_rebuild", code: "CONFIG_INVALID" })]);
      const run = await engine.prepareRun({ sessionId: "s" });
      expect((await run.describe("plugin:live:a")).id).toBe("plugin:live:a");
      live.set([tool("c")]);
      expect(engine.catalogStatus().rebuildError).toBeUndefined();
      expect(engine.catalogStatus().size).toBe(2);
    } finally {
      await engine.close();
    }
  });

  it("an afterToolCall hook that throws leaves the outcome alone and is published", async () => {
    const engine = await fixtureEngine({
      hooks: {
        afterToolCall: () => {
          throw new Error("observer broke");
        },
      },
    });
    try {
      const run = await engine.prepareRun({ sessionId: "s1" });
      const outcome = await run.call("core:get_weather_forecast", { city: "Paris" });
      expect(outcome.ok).toBe(true);
      expect(published).toEqual([
        expect.objectContaining({
          origin: "after_tool_call",
          message: "observer broke",
          sessionId: "s1",
          runId: run.runId,
          toolId: "core:get_weather_forecast",
        }),
      ]);
    } finally {
      await engine.close();
    }
  });

  it("a session-log sink that throws fails nothing and is published", async () => {
    const engine = await fixtureEngine({
      sessionLog: {
        write() {
          throw new Error("disk full");
        },
      },
    });
    try {
      const run = await engine.prepareRun({ sessionId: "s2" });
      await run.search("weather");
      expect(published.length).toBeGreaterThan(0);
      expect(published[0]).toMatchObject({ origin: "session_log", message: "disk full", sessionId: "s2", runId: run.runId });
    } finally {
      await engine.close();
    }
  });

  it("an MCP output schema that will not compile is reported, not enforced; a good one is enforced", () => {
    const validator = lenientOutputValidator(10_000, "srv");
    const bad = validator.getValidator({ type: "object", properties: { a: { $ref: "#/nowhere" } } });
    expect(bad({ a: 1 }).valid).toBe(true);
    expect(published).toEqual([
      expect.objectContaining({ origin: "output_schema", code: "CONFIG_INVALID", server: "srv", message: expect.stringContaining('MCP server "srv"') }),
    ]);
    const good = validator.getValidator({ type: "object", properties: { n: { type: "number" } } });
    expect(good({ n: "x" }).valid).toBe(false);
    expect(published).toHaveLength(1);
  });
});
