/**
 * runAgentTurn's streaming and hand-off, with the official clients against the scripted
 * provider: with `onText` every request streams and the text arrives in pieces that make the
 * answer; `onToolCall` taking a call over ends the turn after that response, unasked again.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgentTurn, type AgentProvider, type ToolSearchEngine } from "../../src/index.js";
import { startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";
import { fixtureEngine } from "../engine/helpers.js";

let provider: MockProvider;
let engine: ToolSearchEngine;
beforeAll(async () => {
  provider = await startMockProvider();
  engine = await fixtureEngine({}, { ran: [] });
});
afterAll(async () => {
  await engine.close();
  await provider.close();
});

function providerFor(api: AgentProvider["api"]): AgentProvider {
  if (api === "anthropic") return { api, client: new Anthropic({ baseURL: provider.url.replace(/\/v1$/, ""), apiKey: "x" }), model: "scripted" };
  return { api, client: new OpenAI({ baseURL: provider.url, apiKey: "x" }), model: "scripted" };
}

const APIS = ["chat", "responses", "anthropic"] as const;

describe("runAgentTurn streaming", () => {
  it.each(APIS)("%s: every request streams; the text arrives in pieces that make the answer; usage is summed", async (api) => {
    const mark = provider.received();
    const run = await engine.prepareRun({ sessionId: `stream-${api}` });
    const pieces: string[] = [];
    const result = await runAgentTurn({
      run,
      provider: providerFor(api),
      messages: [{ role: "user", content: "Get the weather forecast for a city" }],
      onText: (delta) => pieces.push(delta),
    });
    await run.end();
    expect(result.status).toBe("answered");
    expect(result.answer).toContain("sunny");
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe(result.answer);
    const sent = provider.requestsSince(mark);
    expect(sent.map((r) => (r.body as { stream?: boolean }).stream)).toEqual(sent.map(() => true));
    expect(result.usage).toEqual({ inputTokens: expect.any(Number), outputTokens: 20 * sent.length });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });

  it.each(APIS)("%s: a call onToolCall takes over ends the turn after its response, and the provider is not asked again", async (api) => {
    const mark = provider.received();
    const run = await engine.prepareRun({ sessionId: `handoff-${api}`, mode: "direct" });
    const seen: string[] = [];
    const result = await runAgentTurn({
      run,
      provider: providerFor(api),
      messages: [{ role: "user", content: "Get the weather forecast for a city" }],
      onToolCall: (call) => {
        seen.push(call.name);
        return call.name === "get_weather_forecast";
      },
    });
    await run.end();
    expect(result).toMatchObject({ status: "handed_off", roundTrips: 1 });
    expect(seen).toEqual(["get_weather_forecast"]);
    expect(result.toolCalls.map((c) => c.name)).toEqual(["get_weather_forecast"]);
    expect(provider.requestsSince(mark)).toHaveLength(1);
  });

  it("a call onToolCall only observes does not end the turn", async () => {
    const run = await engine.prepareRun({ sessionId: "observe", mode: "direct" });
    const seen: string[] = [];
    const result = await runAgentTurn({
      run,
      provider: providerFor("chat"),
      messages: [{ role: "user", content: "Get the weather forecast for a city" }],
      onToolCall: (call) => void seen.push(call.name),
    });
    await run.end();
    expect(result.status).toBe("answered");
    expect(seen).toEqual(["get_weather_forecast"]);
  });

  it("refuses an onText that is not a function", async () => {
    const run = await engine.prepareRun({ sessionId: "bad-on-text" });
    await expect(
      runAgentTurn({ run, provider: providerFor("chat"), messages: [{ role: "user", content: "x" }], onText: "yes" as unknown as () => void }),
    ).rejects.toMatchObject({ code: "CONFIG_INVALID", message: 'runAgentTurn.onText: must be a function; got "yes" (string)' });
    await run.end();
  });
});
