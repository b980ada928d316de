/**
 * aiSdkTools with the `ai` package's own mock model in generateText: the model searches, calls
 * the tool it found (through policy and hooks), and a tool the policy denies is not reachable.
 */
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiSdkTools } from "../../src/ai-sdk/index.js";
import type { ToolSearchEngine } from "../../src/index.js";
import { fixtureEngine } from "../engine/helpers.js";

type Prompt = Array<{ role: string; content: unknown }>;
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const callTool = (id: string, toolName: string, input: unknown): GenerateResult => ({
  content: [{ type: "tool-call", toolCallId: id, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: [],
});
const say = (text: string): GenerateResult => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] });

/** The tool results so far, as the model reads them (the tool-message text). */
function toolResults(prompt: Prompt): string[] {
  return prompt
    .filter((m) => m.role === "tool")
    .flatMap((m) => m.content as Array<{ type: string; output?: { type: string; value: unknown } }>)
    .filter((p) => p.type === "tool-result")
    .map((p) => String(p.output?.value));
}

let engine: ToolSearchEngine;
const recorder = { ran: [] as string[] };
const before: string[] = [];
const after: string[] = [];

beforeAll(async () => {
  engine = await fixtureEngine(
    {
      policy: { deny: ["plugin:github:create_issue"] },
      hooks: {
        beforeToolCall: (call) => {
          before.push(call.id);
          return undefined;
        },
        afterToolCall: (call) => {
          after.push(`${call.id}:${call.outcome.ok ? "ok" : call.outcome.error.code}`);
        },
      },
    },
    recorder,
  );
});
afterAll(async () => {
  await engine.close();
});

describe("aiSdkTools", () => {
  it("declares the run's surface as a ToolSet", async () => {
    const run = await engine.prepareRun({ sessionId: "ai-surface" });
    const tools = aiSdkTools(run);
    expect(Object.keys(tools)).toEqual(run.tools.map((t) => t.function.name));
    expect(tools.tool_search!.description).toBe(run.tools[0]!.function.description);
    await run.end();
  });

  it("generateText: a tool found by search is called through policy and hooks; a denied tool is not reachable", async () => {
    const run = await engine.prepareRun({ sessionId: "ai-run" });
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        const results = toolResults(prompt as Prompt);
        switch (results.length) {
          case 0:
            return callTool("c1", "tool_search", { query: "weather forecast for a city" });
          case 1: {
            const hits = (JSON.parse(results[0]!) as { hits: Array<{ id: string }> }).hits;
            return callTool("c2", "tool_call", { id: hits[0]!.id, args: { city: "Paris" } });
          }
          case 2:
            return callTool("c3", "tool_call", { id: "plugin:github:create_issue", args: { repo: "a/b", title: "t" } });
          case 3:
            return callTool("c4", "tool_search", { query: "create an issue in a github repository" });
          default:
            return say(`done: ${results[1]}`);
        }
      },
    });
    const result = await generateText({
      model,
      system: run.instructions,
      tools: aiSdkTools(run),
      prompt: "What is the weather in Paris?",
      stopWhen: stepCountIs(8),
    });
    await run.end();

    expect(result.text).toContain("sunny");
    const outputs = result.steps.flatMap((s) => s.toolResults).map((r) => JSON.parse(String(r.output)) as Record<string, unknown>);
    expect(outputs[1]).toMatchObject({ ok: true, id: "core:get_weather_forecast", result: { city: "Paris", forecast: "sunny" } });
    // The denied tool does not exist for this run: not found, never run, never seen by a hook.
    expect(outputs[2]).toMatchObject({ ok: false, error: { code: "TOOL_NOT_FOUND" } });
    const hitIds = (outputs[3]!.hits as Array<{ id: string }>).map((h) => h.id);
    expect(hitIds).not.toContain("plugin:github:create_issue");
    expect(recorder.ran).toEqual(["get_weather_forecast"]);
    expect(before).toEqual(["core:get_weather_forecast"]);
    expect(after).toEqual(["core:get_weather_forecast:ok"]);
    expect(run.telemetry().calls.map((c) => [c.id, c.ok, c.via])).toEqual([
      ["core:get_weather_forecast", true, "tool_call"],
      ["plugin:github:create_issue", false, "tool_call"],
    ]);
  });
});
