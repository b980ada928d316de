/**
 * Issue 23, failures in-band: whether a model tool call failed is what the surface says, never
 * the shape of a tool's result; a fault of our own is INTERNAL (its detail on the error channel),
 * a tool's own throw stays TOOL_FAILED. The engine is real; a fault of ours is made by making one
 * of its methods throw, since no input can cause one (if one could, that would be the bug to fix).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { EffectiveCatalog } from "../../src/catalog/effective-catalog.js";
import { RunDispatcher } from "../../src/dispatch/run-dispatcher.js";
import { coreTools, createToolSearch, type ToolSearchMode } from "../../src/index.js";
import { LOOKS_FAILED, RESULT_TOOLS } from "../support/result-tools.js";
import { publishedFailures } from "../support/error-events.js";

const published = publishedFailures();
afterEach(() => vi.restoreAllMocks());

async function runIn(mode: ToolSearchMode) {
  const engine = await createToolSearch({ toolSearch: { mode }, sources: [coreTools(RESULT_TOOLS)] });
  const run = await engine.prepareRun({ sessionId: "s1" });
  return { run, close: async () => (await run.end(), await engine.close()) };
}

describe("a surface's answer says whether it failed", () => {
  it("direct: a tool result shaped like a failure is a success; a tool's throw is TOOL_FAILED", async () => {
    const { run, close } = await runIn("direct");
    try {
      const shaped = await run.answerToolCall({ name: "shaped_result", arguments: "{}" });
      expect(shaped.error).toBeUndefined();
      expect(JSON.parse(shaped.text)).toEqual(LOOKS_FAILED);
      const thrown = await run.answerToolCall({ name: "throws_plainly", arguments: "{}" });
      expect(thrown.error).toMatchObject({ code: "TOOL_FAILED", message: expect.stringContaining("tool broke") });
    } finally {
      await close();
    }
  });

  it("tools: tool_call of the shaped result is a success; of a missing tool, a failure", async () => {
    const { run, close } = await runIn("tools");
    try {
      const shaped = await run.answerToolCall({ name: "tool_call", arguments: { id: "core:shaped_result" } });
      expect(shaped.error).toBeUndefined();
      expect(JSON.parse(shaped.text)).toMatchObject({ ok: true, result: LOOKS_FAILED });
      const missing = await run.answerToolCall({ name: "tool_call", arguments: { id: "core:nope" } });
      expect(missing.error?.code).toBe("TOOL_NOT_FOUND");
      expect(JSON.parse(missing.text)).toMatchObject({ ok: false, error: { code: "TOOL_NOT_FOUND" } });
    } finally {
      await close();
    }
  });
});

describe("a fault of our own is INTERNAL, not TOOL_FAILED", () => {
  it("a model tool call (handleToolCall) answers INTERNAL without the detail; the detail is published", async () => {
    const { run, close } = await runIn("tools");
    try {
      vi.spyOn(RunDispatcher.prototype, "search").mockImplementation(() => {
        throw new TypeError("secret /internal/path broke");
      });
      const answer = await run.answerToolCall({ name: "tool_search", arguments: { query: "anything" } });
      expect(answer.error?.code).toBe("INTERNAL");
      expect(answer.text).not.toContain("secret");
      expect(JSON.parse(answer.text)).toMatchObject({ ok: false, error: { code: "INTERNAL" } });
      expect(published).toEqual([expect.objectContaining({ origin: "internal", code: "INTERNAL", message: "secret /internal/path broke", sessionId: "s1" })]);
    } finally {
      await close();
    }
  });

  it("run.call answers INTERNAL for a fault of ours and TOOL_FAILED for the tool's throw", async () => {
    const { run, close } = await runIn("tools");
    try {
      expect(await run.call("core:throws_plainly")).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
      vi.spyOn(EffectiveCatalog.prototype, "get").mockImplementation(() => {
        throw new RangeError("lookup broke");
      });
      const outcome = await run.call("core:shaped_result");
      expect(outcome).toMatchObject({ ok: false, error: { code: "INTERNAL" } });
      expect(run.telemetry().calls.at(-1)).toMatchObject({ ok: false, code: "INTERNAL" });
      expect(published.map((e) => [e.origin, e.message])).toEqual([["internal", "lookup broke"]]);
    } finally {
      await close();
    }
  });

  it("code mode: the body sees INTERNAL from a bridged search, TOOL_FAILED from the tool's throw", { timeout: 60_000 }, async () => {
    const { run, close } = await runIn("code");
    try {
      expect(run.mode).toBe("code");
      const body = `
        const codes = [];
        try { await openclaw.tools.call("core:throws_plainly", {}); } catch (e) { codes.push(e.code); }
        try { await openclaw.tools.search("anything"); } catch (e) { codes.push(e.code); }
        return codes;`;
      vi.spyOn(RunDispatcher.prototype, "search").mockImplementation(() => Promise.reject(new TypeError("bridge broke")));
      const answer = await run.answerToolCall({ name: "tool_search_code", arguments: { code: body } });
      expect(answer.error).toBeUndefined();
      expect(JSON.parse(answer.text)).toMatchObject({ ok: true, value: ["TOOL_FAILED", "INTERNAL"] });
      expect(published.map((e) => e.origin)).toEqual(["internal"]);
    } finally {
      await close();
    }
  });
});
