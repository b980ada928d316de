/** A cancel is CANCELLED, not TOOL_FAILED or CODE_TIMEOUT; an ended run is an EngineClosedError. */
import { afterEach, describe, expect, it } from "vitest";
import { coreTools, createToolSearch, EngineClosedError, type ToolSearchEngine } from "../../src/index.js";

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

const waits = coreTools([
  {
    name: "wait",
    description: "Waits until cancelled.",
    inputSchema: { type: "object" },
    execute: (_args, ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true })),
  },
]);

describe("cancel", () => {
  it("the caller's signal cancels a call with CANCELLED, naming the caller", async () => {
    engine = await createToolSearch({ toolSearch: { mode: "direct" }, sources: [waits] });
    const run = await engine.prepareRun({ sessionId: "s" });
    const controller = new AbortController();
    const pending = run.answerToolCall({ name: run.tools[0]!.function.name, arguments: "{}" }, controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect((await pending).error).toMatchObject({ code: "CANCELLED", message: expect.stringContaining("cancelled by the client") });
  });

  it("ending the run cancels its calls with CANCELLED; the ended run then throws EngineClosedError", async () => {
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [waits] });
    const run = await engine.prepareRun({ sessionId: "s" });
    const pending = run.call("core:wait", {});
    setTimeout(() => void run.end(), 20);
    expect(await pending).toMatchObject({ ok: false, error: { code: "CANCELLED", message: expect.stringContaining("The run ended") } });
    const ended = await run.search("wait").catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(EngineClosedError);
    expect(ended).toMatchObject({ code: "ENGINE_CLOSED" });
  });
});
