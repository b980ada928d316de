/** tools.toolSearch.maxResultBytes in direct, tools and directory modes; a call past its deadline is TOOL_TIMEOUT. */
import { describe, expect, it } from "vitest";
import { coreTools, createToolSearch } from "../../src/index.js";

const tools = coreTools([
  { name: "huge", description: "Returns five megabytes of text.", inputSchema: { type: "object", properties: {} }, execute: () => "y".repeat(5 * 1024 * 1024) },
  {
    name: "stall",
    description: "Never answers until cancelled.",
    inputSchema: { type: "object", properties: {} },
    execute: (_args, ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted")))),
  },
]);

describe("results bounded in every mode", () => {
  for (const mode of ["direct", "tools", "directory"] as const) {
    it(`${mode}: a 5 MB result reaches the model cut to maxResultBytes, with a marker`, async () => {
      const engine = await createToolSearch({ toolSearch: { mode, maxResultBytes: 4_096 }, sources: [tools], backend: "minisearch" });
      try {
        const run = await engine.prepareRun({ sessionId: "s" });
        const call = mode === "direct" ? { name: "huge", arguments: "{}" } : { name: "tool_call", arguments: { id: "core:huge" } };
        const answer = await run.answerToolCall(call);
        expect(answer.truncated).toBe(true);
        expect(answer.error).toBeUndefined();
        expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(4_096);
        expect(answer.text).toContain("result cut to 4096 of");
        await run.end();
      } finally {
        await engine.close();
      }
    });
  }

  it("a call past callTimeoutMs is TOOL_TIMEOUT and the tool's signal is aborted", async () => {
    const engine = await createToolSearch({ toolSearch: { mode: "direct" }, sources: [tools], backend: "minisearch", callTimeoutMs: 50 });
    try {
      const run = await engine.prepareRun({ sessionId: "s" });
      const answer = await run.answerToolCall({ name: "stall", arguments: {} });
      expect(answer.error).toMatchObject({ code: "TOOL_TIMEOUT", message: expect.stringContaining("timed out after 50 ms") });
      await run.end();
    } finally {
      await engine.close();
    }
  });
});
