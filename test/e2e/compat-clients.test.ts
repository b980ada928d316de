/**
 * End to end: `toolsearch serve` as a real process in front of a real MCP server
 * (server-memory, over stdio, its graph seeded with one entity) and a plugin, the scripted
 * provider behind it, driven by the official clients of each API with only `baseURL` and
 * `apiKey` changed: `openai` (chat, streaming chat, responses, streaming responses),
 * `@anthropic-ai/sdk` (messages, streaming), and the AI SDK's OpenAI-compatible provider
 * (generateText and streamText with a client tool). The answer arrives; a catalog tool was
 * called inside the gateway; a client tool's call comes back in the SDK's own types and its
 * result, sent back, is answered; streams yield deltas; a client that hangs up cancels its turn.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, streamText, tool } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";
import type { SessionEvent } from "../../src/telemetry/types.js";
import { startCli, writeJson, type ServerProcess } from "./processes.js";

const require = createRequire(import.meta.url);
const TOKEN = "compat-token-0123456789abcdef";
const GRAPH = "Read the entire knowledge graph";
const WEATHER = "What is the current weather in a city?";

let provider: MockProvider;
let server: ServerProcess;
let dir: string;

/** A plugin whose one tool waits until its call is cancelled, leaving a file when it starts and one when it is cancelled. */
function waitingPlugin(folder: string): { started: string; cancelled: string } {
  const started = path.join(folder, "wait.started");
  const cancelled = path.join(folder, "wait.cancelled");
  mkdirSync(path.join(folder, "plugins"));
  writeFileSync(
    path.join(folder, "plugins", "slow.mjs"),
    `import { writeFileSync } from "node:fs";
export default { id: "slow", tools: [
  { name: "hold_until_cancelled", description: "Hold the line until the call is cancelled.", inputSchema: { type: "object", properties: {} },
    execute: (_args, ctx) => new Promise((resolve) => { writeFileSync(${JSON.stringify(started)}, "started");
      ctx.signal.addEventListener("abort", () => { writeFileSync(${JSON.stringify(cancelled)}, "cancelled"); resolve("cancelled"); }); }) },
] };
`,
  );
  return { started, cancelled };
}

let marks: { started: string; cancelled: string };

beforeAll(async () => {
  provider = await startMockProvider();
  dir = mkdtempSync(path.join(tmpdir(), "toolsearch-compat-"));
  marks = waitingPlugin(dir);
  const memory = path.join(dir, "memory.jsonl");
  writeFileSync(memory, `${JSON.stringify({ type: "entity", name: "Ada Lovelace", entityType: "person", observations: ["wrote the first program"] })}\n`);
  const memoryEntry = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist", "index.js");
  const config = writeJson(path.join(dir, "toolsearch.config.json5"), {
    tools: { toolSearch: { mode: "code" } },
    provider: {
      baseURL: provider.url,
      timeoutMs: 20_000,
      models: { toolsearch: "scripted", "toolsearch-tools": { model: "scripted", mode: "tools" }, "toolsearch-direct": { model: "scripted", mode: "direct" } },
    },
    gateway: { auth: { tokens: [{ token: TOKEN }] } },
    plugins: ["./plugins"],
    mcpServers: { memory: { command: process.execPath, args: [memoryEntry], env: { MEMORY_FILE_PATH: memory } } },
    sessionLog: "session.jsonl",
  });
  server = await startCli(["serve", "--config", config, "--port", "0"]);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const openai = () => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
const anthropic = () => new Anthropic({ baseURL: server.url, apiKey: TOKEN, maxRetries: 0 });

function sessionEvents(): SessionEvent[] {
  return readFileSync(path.join(dir, "session.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as SessionEvent);
}

/** The calls the session log recorded for one run. */
function callsOf(runId: string): Array<Extract<SessionEvent, { type: "call" }>> {
  return sessionEvents().filter((e): e is Extract<SessionEvent, { type: "call" }> => e.type === "call" && e.runId === runId);
}

const weatherTool = {
  name: "get_weather",
  description: "Get the current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

describe("openai chat completions", () => {
  it("answers after calling the MCP server's tool inside the gateway", async () => {
    const completion = await openai().chat.completions.create({ model: "toolsearch", messages: [{ role: "user", content: GRAPH }] });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("toolsearch");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.choices[0]!.message.content).toContain("Ada Lovelace");
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
    const runId = (completion as unknown as { toolsearch: { runId: string } }).toolsearch.runId;
    expect(callsOf(runId)).toEqual([expect.objectContaining({ id: "mcp:memory:read_graph", ok: true, via: "bridge" })]);
  });

  it("streams the answer as content deltas, with usage when asked", async () => {
    const stream = await openai().chat.completions.create({
      model: "toolsearch-tools",
      messages: [{ role: "user", content: GRAPH }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const deltas = chunks.flatMap((c) => (c.choices[0]?.delta.content ? [c.choices[0].delta.content] : []));
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toContain("Ada Lovelace");
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe("stop");
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage!.completion_tokens).toBeGreaterThan(0);

    const plain = await openai().chat.completions.create({ model: "toolsearch-tools", messages: [{ role: "user", content: GRAPH }], stream: true });
    const plainChunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of plain) plainChunks.push(chunk);
    expect(plainChunks.some((c) => c.usage)).toBe(false);
  });

  it("hands a client tool's call back as tool_calls, then answers from the tool message sent back", async () => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "user", content: WEATHER }];
    const first = await openai().chat.completions.create({ model: "toolsearch", messages, tools: [{ type: "function", function: weatherTool }] });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const call = choice.message.tool_calls![0]!;
    expect(call.type === "function" && call.function.name).toBe("get_weather");
    expect(call.type === "function" && JSON.parse(call.function.arguments)).toEqual({ city: "sample-city" });
    messages.push(choice.message, { role: "tool", tool_call_id: call.id, content: "Sunny, 21 degrees" });
    const second = await openai().chat.completions.create({ model: "toolsearch", messages, tools: [{ type: "function", function: weatherTool }] });
    expect(second.choices[0]!.message.content).toBe("Result: Sunny, 21 degrees");
  });

  it("streams a client tool's call as tool-call deltas", async () => {
    const stream = openai().chat.completions.stream({
      model: "toolsearch-direct",
      messages: [{ role: "user", content: WEATHER }],
      tools: [{ type: "function", function: weatherTool }],
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.choices[0]!.message.tool_calls).toEqual([
      { id: expect.any(String), type: "function", function: { name: "get_weather", arguments: '{"city":"sample-city"}' } },
    ]);
  });
});

describe("openai responses", () => {
  it("answers, and streams typed events whose text deltas make the answer", async () => {
    const response = await openai().responses.create({ model: "toolsearch", input: GRAPH });
    expect(response.status).toBe("completed");
    expect(response.output_text).toContain("Ada Lovelace");

    const deltas: string[] = [];
    const stream = openai().responses.stream({ model: "toolsearch-tools", input: GRAPH, instructions: "Answer briefly." });
    stream.on("response.output_text.delta", ({ delta }) => deltas.push(delta));
    const final = await stream.finalResponse();
    expect(deltas.length).toBeGreaterThan(1);
    const text = final.output
      .flatMap((item) => (item.type === "message" ? item.content.flatMap((c) => (c.type === "output_text" ? [c.text] : [])) : []))
      .join("");
    expect(text).toBe(deltas.join(""));
    expect(text).toContain("Ada Lovelace");
  });

  it("hands a client tool's call back as a function_call item, then answers from its output", async () => {
    const tools: OpenAI.Responses.Tool[] = [{ type: "function", strict: false, ...weatherTool }];
    const first = await openai().responses.create({ model: "toolsearch-tools", input: WEATHER, tools });
    const call = first.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: "get_weather", arguments: '{"city":"sample-city"}' });
    const second = await openai().responses.create({
      model: "toolsearch-tools",
      input: [
        { role: "user", content: WEATHER },
        ...first.output,
        { type: "function_call_output", call_id: (call as OpenAI.Responses.ResponseFunctionToolCall).call_id, output: "Rain, 12 degrees" },
      ],
      tools,
    });
    expect(second.output_text).toBe("Result: Rain, 12 degrees");
  });
});

describe("anthropic messages", () => {
  const tools: Anthropic.Tool[] = [
    { name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters as Anthropic.Tool.InputSchema },
  ];

  it("answers, and streams text deltas that make the answer", async () => {
    const message = await anthropic().messages.create({ model: "toolsearch", max_tokens: 1024, messages: [{ role: "user", content: GRAPH }] });
    expect(message.stop_reason).toBe("end_turn");
    expect(message.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("Ada Lovelace") });

    const deltas: string[] = [];
    const stream = anthropic().messages.stream({ model: "toolsearch-tools", max_tokens: 1024, messages: [{ role: "user", content: GRAPH }] });
    stream.on("text", (delta) => deltas.push(delta));
    const final = await stream.finalMessage();
    expect(deltas.length).toBeGreaterThan(1);
    expect(final.content).toEqual([{ type: "text", text: deltas.join("") }]);
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  it("hands a client tool's call back as a tool_use block, then answers from the tool_result", async () => {
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: WEATHER }];
    const first = await anthropic().messages.stream({ model: "toolsearch-direct", max_tokens: 1024, messages, tools }).finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use")!;
    expect(use).toMatchObject({ name: "get_weather", input: { city: "sample-city" } });
    messages.push({ role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "Fog" }] });
    const second = await anthropic().messages.create({ model: "toolsearch-direct", max_tokens: 1024, messages, tools });
    expect(second.content).toEqual([{ type: "text", text: "Result: Fog" }]);
  });
});

describe("the AI SDK's OpenAI-compatible provider", () => {
  const gateway = () => createOpenAICompatible({ name: "toolsearch", baseURL: `${server.url}/v1`, apiKey: TOKEN, includeUsage: true });
  const ran: string[] = [];
  const tools = {
    get_weather: tool({
      description: weatherTool.description,
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        ran.push(city);
        return `Clear skies in ${city}`;
      },
    }),
  };

  it("generateText: the client tool runs in the client between two requests, and the answer uses its result", async () => {
    ran.length = 0;
    const result = await generateText({ model: gateway()("toolsearch"), prompt: WEATHER, tools, stopWhen: stepCountIs(3), maxRetries: 0 });
    expect(ran).toEqual(["sample-city"]);
    expect(result.steps[0]!.toolCalls).toEqual([expect.objectContaining({ toolName: "get_weather", input: { city: "sample-city" } })]);
    expect(result.text).toBe("Result: Clear skies in sample-city");
  });

  it("streamText: text arrives in parts; the client tool ran", async () => {
    ran.length = 0;
    const result = streamText({ model: gateway()("toolsearch-tools"), prompt: WEATHER, tools, stopWhen: stepCountIs(3), maxRetries: 0 });
    const parts: string[] = [];
    for await (const part of result.textStream) parts.push(part);
    expect(ran).toEqual(["sample-city"]);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.join("")).toBe("Result: Clear skies in sample-city");
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });
});

describe("a client that hangs up", () => {
  it("cancels the tool call running inside the gateway, and the provider is not asked again", async () => {
    const controller = new AbortController();
    const mark = provider.received();
    const stream = await openai().chat.completions.create(
      { model: "toolsearch-direct", messages: [{ role: "user", content: "Hold the line until the call is cancelled" }], stream: true },
      { signal: controller.signal },
    );
    const reading = (async () => {
      for await (const _ of stream) void _;
    })();
    await expect.poll(() => existsSync(marks.started), { timeout: 20_000 }).toBe(true);
    controller.abort();
    await reading;
    await expect.poll(() => existsSync(marks.cancelled), { timeout: 20_000 }).toBe(true);
    // The call's event is written when the cancelled call settles, after the tool saw the abort.
    const callEvent = () => sessionEvents().find((e) => e.type === "call" && e.id === "plugin:slow:hold_until_cancelled");
    await expect.poll(() => callEvent() !== undefined, { timeout: 20_000 }).toBe(true);
    const run = callEvent()!;
    await expect.poll(() => sessionEvents().some((e) => e.type === "run_end" && e.runId === run.runId), { timeout: 20_000 }).toBe(true);
    expect(callsOf(run.runId)).toEqual([expect.objectContaining({ ok: false, code: "CANCELLED" })]);
    expect(provider.received() - mark).toBe(1);
  });
});
