/**
 * The scripted provider streams when asked, in each API's own format: the official clients'
 * stream helpers accumulate its events into the answer a plain request gets.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";

const weather = {
  name: "get_weather",
  description: "Get the current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

let provider: MockProvider;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  provider = await startMockProvider();
  openai = new OpenAI({ baseURL: provider.url, apiKey: "test", maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: provider.url.replace(/\/v1$/, ""), apiKey: "test", maxRetries: 0 });
});
afterAll(() => provider.close());

describe("the scripted provider streams", () => {
  it("chat: content deltas a word at a time, tool-call deltas, and usage only when asked", async () => {
    const deltas: string[] = [];
    const plain = openai.chat.completions.stream({ model: "m", messages: [{ role: "user", content: "tell me a story" }] });
    plain.on("content.delta", ({ delta }) => deltas.push(delta));
    const answer = await plain.finalChatCompletion();
    expect(answer.choices[0]!.message.content).toBe("I have no tool for that.");
    expect(deltas).toEqual(["I ", "have ", "no ", "tool ", "for ", "that."]);
    expect(answer.usage).toBeUndefined();

    const withUsage = openai.chat.completions.stream({
      model: "m",
      messages: [{ role: "user", content: "what is the weather in Paris" }],
      tools: [{ type: "function", function: weather }],
      stream_options: { include_usage: true },
    });
    const call = await withUsage.finalChatCompletion();
    expect(call.choices[0]!.finish_reason).toBe("tool_calls");
    expect(call.choices[0]!.message.tool_calls).toEqual([
      { id: expect.any(String), type: "function", function: { name: "get_weather", arguments: '{"city":"sample-city"}' } },
    ]);
    expect(call.usage).toMatchObject({ completion_tokens: 20, prompt_tokens: expect.any(Number) });
  });

  it("responses: typed events with sequence numbers, accumulated into the response", async () => {
    const types: string[] = [];
    const text = openai.responses.stream({ model: "m", input: "tell me a story" });
    text.on("event", (event) => types.push(event.type));
    const answered = await text.finalResponse();
    expect(answered.output).toEqual([
      expect.objectContaining({ type: "message", content: [expect.objectContaining({ type: "output_text", text: "I have no tool for that." })] }),
    ]);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(types.filter((t) => t === "response.output_text.delta")).toHaveLength(6);

    const call = await openai.responses
      .stream({ model: "m", input: "what is the weather in Paris", tools: [{ type: "function", strict: false, ...weather }] })
      .finalResponse();
    expect(call.output).toEqual([expect.objectContaining({ type: "function_call", name: "get_weather", arguments: '{"city":"sample-city"}' })]);
    expect(call.usage).toMatchObject({ output_tokens: 20 });
  });

  it("anthropic: message_start, text and input_json deltas, message_delta with the stop reason", async () => {
    const deltas: string[] = [];
    const text = anthropic.messages.stream({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "tell me a story" }] });
    text.on("text", (delta) => deltas.push(delta));
    const answered = await text.finalMessage();
    expect(answered.content).toEqual([{ type: "text", text: "I have no tool for that." }]);
    expect(deltas).toHaveLength(6);
    expect(answered.stop_reason).toBe("end_turn");

    const call = await anthropic.messages
      .stream({
        model: "m",
        max_tokens: 100,
        messages: [{ role: "user", content: "what is the weather in Paris" }],
        tools: [{ name: weather.name, description: weather.description, input_schema: weather.parameters as Anthropic.Tool.InputSchema }],
      })
      .finalMessage();
    expect(call.content).toEqual([{ type: "tool_use", id: expect.any(String), name: "get_weather", input: { city: "sample-city" } }]);
    expect(call.stop_reason).toBe("tool_use");
    expect(call.usage).toMatchObject({ output_tokens: 20 });
  });

  it("a stalled stream is abandoned when its client goes away", async () => {
    const stalling = await startMockProvider({ stallStreamsAfter: 2 });
    try {
      const client = new OpenAI({ baseURL: stalling.url, apiKey: "test", maxRetries: 0 });
      const controller = new AbortController();
      const stream = await client.chat.completions.create(
        { model: "m", messages: [{ role: "user", content: "tell me a story" }], stream: true },
        { signal: controller.signal },
      );
      const seen: string[] = [];
      // The client ends its iteration quietly on its own abort.
      for await (const chunk of stream) {
        seen.push(chunk.choices[0]?.delta.content ?? "");
        if (seen.length === 2) controller.abort();
      }
      expect(seen).toEqual(["", "I "]);
      await expect.poll(() => stalling.streamsAbandoned()).toBe(1);
    } finally {
      await stalling.close();
    }
  });
});
