/** runAgentTurn as a library function, with the official clients against the scripted provider. */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgentTurn, MAX_CALLS_PER_RESPONSE, type AgentProvider, type ToolSearchEngine } from "../../src/index.js";
import { toAnthropicMessages, toResponsesInput } from "../../src/agent/agent-turn.js";
import { startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";
import { fixtureEngine } from "../engine/helpers.js";

let provider: MockProvider;
let engine: ToolSearchEngine;
const recorder = { ran: [] as string[] };
beforeAll(async () => {
  provider = await startMockProvider();
  engine = await fixtureEngine({}, recorder);
});
afterAll(async () => {
  await engine.close();
  await provider.close();
});

function providerFor(api: AgentProvider["api"]): AgentProvider {
  if (api === "anthropic") return { api, client: new Anthropic({ baseURL: provider.url.replace(/\/v1$/, ""), apiKey: "x" }), model: "scripted" };
  return { api, client: new OpenAI({ baseURL: provider.url, apiKey: "x" }), model: "scripted" };
}

describe("runAgentTurn", () => {
  it.each(["chat", "responses", "anthropic"] as const)("%s: searches, describes and calls the tool, then answers", async (api) => {
    const mark = provider.received();
    const run = await engine.prepareRun({ sessionId: `agent-${api}` });
    const result = await runAgentTurn({
      run,
      provider: providerFor(api),
      messages: [{ role: "user", content: "Get the weather forecast for a city" }],
      maxTurns: 6,
    });
    await run.end();
    expect(result.status).toBe("answered");
    expect(result.toolCalls.map((c) => c.name)).toEqual(["tool_search", "tool_describe", "tool_call"]);
    expect(result.toolCalls.every((c) => typeof c.id === "string" && c.id.length > 0)).toBe(true);
    expect(result.answer).toContain("sunny");
    expect(result.roundTrips).toBe(4);
    expect(result.telemetry.calls.at(-1)).toMatchObject({ id: "core:get_weather_forecast", ok: true, via: "tool_call" });
    const sent = provider.requestsSince(mark);
    expect(sent.map((r) => r.api)).toEqual([api, api, api, api]);
  });

  it("cuts the turn at maxTurns", async () => {
    const run = await engine.prepareRun({ sessionId: "agent-cut" });
    const result = await runAgentTurn({
      run,
      provider: providerFor("chat"),
      messages: [{ role: "user", content: "Get the weather forecast for a city" }],
      maxTurns: 2,
    });
    await run.end();
    expect(result).toMatchObject({ status: "max_turns", answer: null, roundTrips: 2 });
    expect(result.toolCalls).toHaveLength(2);
  });

  it("runs at most MAX_CALLS_PER_RESPONSE calls of one response and answers the rest with an error", async () => {
    const run = await engine.prepareRun({ sessionId: "agent-flood", mode: "direct" });
    let requests = 0;
    const calls = Array.from({ length: MAX_CALLS_PER_RESPONSE + 8 }, (_, i) => ({
      id: `c${i}`,
      type: "function",
      function: { name: "get_weather_forecast", arguments: '{"city":"Paris"}' },
    }));
    const client = {
      chat: {
        completions: {
          create: async () => {
            requests += 1;
            return {
              choices: [{ message: requests === 1 ? { role: "assistant", content: null, tool_calls: calls } : { role: "assistant", content: "done" } }],
            };
          },
        },
      },
    } as unknown as OpenAI;
    const before = recorder.ran.length;
    const result = await runAgentTurn({ run, provider: { api: "chat", client, model: "m" }, messages: [{ role: "user", content: "x" }] });
    await run.end();
    expect(result.status).toBe("answered");
    expect(recorder.ran.length - before).toBe(MAX_CALLS_PER_RESPONSE);
    expect(result.toolCalls.at(-1)!.content).toContain("INVALID_ARGS");
  });

  it("stops when the signal aborts, and refuses a bad provider", async () => {
    const run = await engine.prepareRun({ sessionId: "agent-abort" });
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(runAgentTurn({ run, provider: providerFor("chat"), messages: [{ role: "user", content: "x" }], signal: controller.signal })).rejects.toThrow(
      "stop",
    );
    await expect(runAgentTurn({ run, provider: { api: "gemini" } as never, messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
    });
    await run.end();
  });

  it("translates a chat history with tool calls for the Responses and Messages APIs", () => {
    const history = [
      { role: "system" as const, content: "be brief" },
      { role: "user" as const, content: "hi" },
      {
        role: "assistant" as const,
        content: null,
        tool_calls: [
          { id: "c1", type: "function" as const, function: { name: "t", arguments: '{"a":1}' } },
          { id: "c2", type: "function" as const, function: { name: "u", arguments: "{}" } },
        ],
      },
      { role: "tool" as const, tool_call_id: "c1", content: "r1" },
      { role: "tool" as const, tool_call_id: "c2", content: "r2" },
    ];
    expect(toResponsesInput(history)).toEqual([
      { role: "user", content: "hi" },
      { type: "function_call", call_id: "c1", name: "t", arguments: '{"a":1}' },
      { type: "function_call", call_id: "c2", name: "u", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "r1" },
      { type: "function_call_output", call_id: "c2", output: "r2" },
    ]);
    expect(toAnthropicMessages(history)).toEqual([
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "c1", name: "t", input: { a: 1 } },
          { type: "tool_use", id: "c2", name: "u", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c1", content: "r1" },
          { type: "tool_result", tool_use_id: "c2", content: "r2" },
        ],
      },
    ]);
  });
});
