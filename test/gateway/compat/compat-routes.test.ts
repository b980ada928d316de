/**
 * The gateway's OpenAI- and Anthropic-compatible routes in-process, driven by the official
 * clients: errors in each API's own shape and status (so the SDKs raise their usual classes),
 * the bounds /v1/runs has (token before body, content type, body size), identity from the token
 * alone, the model aliases of provider.models, provider failures whole and mid-stream, and a
 * client that hangs up in the middle of a streamed answer.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pluginTools } from "../../../src/catalog/sources.js";
import type { ToolDefinition } from "../../../src/catalog/types.js";
import { resolveServerConfig } from "../../../src/config/server-config.js";
import { startGateway, type Gateway } from "../../../src/gateway/gateway-server.js";
import { startMockProvider, type MockProvider, type RecordedRequest } from "../../../src/mock-provider/mock-provider.js";
import type { SessionEvent } from "../../../src/telemetry/types.js";

const tool = (name: string, description: string): ToolDefinition => ({
  name,
  description,
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: (args) => ({ [name]: args.text }),
});
const catalog = [
  tool("echo_text", "Echo the given text back."),
  tool("shout_text", "Shout the given text in capitals."),
  tool("count_words", "Count the words of a text."),
];

async function gatewayFor(providerUrl: string, extra: Record<string, unknown> = {}): Promise<Gateway> {
  const { provider = {}, gateway = {}, ...rest } = extra as { provider?: object; gateway?: object };
  const config = resolveServerConfig(
    {
      tools: { toolSearch: { mode: "direct" } },
      provider: { baseURL: providerUrl, timeoutMs: 10_000, ...provider },
      gateway: { port: 0, maxBodyBytes: 64 * 1024, ...gateway },
      ...rest,
    },
    process.cwd(),
  );
  return startGateway(config, { sources: [pluginTools("acme", catalog)] });
}

const openaiFor = (gateway: Gateway, apiKey = "unused", maxRetries = 0) => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries });
const anthropicFor = (gateway: Gateway, apiKey = "unused") => new Anthropic({ baseURL: gateway.url, apiKey, maxRetries: 0 });
const user = (content: string) => [{ role: "user" as const, content }];

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error("expected a rejection"),
    (error: unknown) => error,
  );
}

async function post(url: string, body: string, headers: Record<string, string> = { "content-type": "application/json" }) {
  const res = await fetch(url, { method: "POST", headers, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("errors come in each API's own shape and status", () => {
  let provider: MockProvider;
  let gateway: Gateway;
  beforeAll(async () => {
    provider = await startMockProvider();
    gateway = await gatewayFor(provider.url);
  });
  afterAll(async () => {
    await gateway.close();
    await provider.close();
  });

  it("OpenAI: an unknown model is the SDK's NotFoundError, with the toolsearch code and the models to use", async () => {
    const error = await rejection(openaiFor(gateway).chat.completions.create({ model: "gpt-nope", messages: user("hi") }));
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({
      status: 404,
      code: "MODEL_NOT_FOUND",
      type: "invalid_request_error",
      message: expect.stringContaining('use one of "scripted"'),
    });
  });

  it("OpenAI: a forced tool choice, n above 1 and an image are the SDK's BadRequestError naming the field", async () => {
    const client = openaiFor(gateway);
    const forced = await rejection(client.chat.completions.create({ model: "scripted", messages: user("hi"), tool_choice: "required" }));
    expect(forced).toBeInstanceOf(OpenAI.BadRequestError);
    expect(forced).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("body.tool_choice") });
    const many = await rejection(client.chat.completions.create({ model: "scripted", messages: user("hi"), n: 2 }));
    expect(many).toMatchObject({ status: 400, message: expect.stringContaining("body.n: must be 1 or absent") });
    const image = await rejection(
      client.chat.completions.create({
        model: "scripted",
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.test/cat.png" } }] }],
      }),
    );
    expect(image).toMatchObject({ status: 400, message: expect.stringContaining("only text content is supported") });
    const stored = await rejection(client.responses.create({ model: "scripted", input: "hi", previous_response_id: "resp_1" }));
    expect(stored).toMatchObject({ status: 400, message: expect.stringContaining("keeps no responses") });
    // An item reference names what a provider stored: skipped here, where nothing is.
    const referenced = await client.responses.create({
      model: "scripted",
      input: [
        { type: "item_reference", id: "msg_1" },
        { role: "user", content: "zzqx vvkw" },
      ],
    });
    expect(referenced.output_text).toBe("I have no tool for that.");
  });

  it("OpenAI's body shape on the wire: { error: { message, type, param, code } }", async () => {
    const res = await post(`${gateway.url}/v1/chat/completions`, JSON.stringify({ model: "scripted" }));
    expect(res).toEqual({
      status: 400,
      json: {
        error: { message: expect.stringContaining('missing required option "messages"'), type: "invalid_request_error", param: null, code: "BAD_REQUEST" },
      },
    });
    expect(await post(`${gateway.url}/v1/chat/completions`, "{not json")).toMatchObject({ status: 400, json: { error: { code: "BAD_REQUEST" } } });
    expect(await post(`${gateway.url}/v1/chat/completions`, "{}", { "content-type": "text/plain" })).toMatchObject({
      status: 415,
      json: { error: { code: "UNSUPPORTED_MEDIA_TYPE", type: "invalid_request_error" } },
    });
    const wrongMethod = await fetch(`${gateway.url}/v1/chat/completions`);
    expect({ status: wrongMethod.status, json: await wrongMethod.json() }).toMatchObject({
      status: 404,
      json: { error: { code: "NOT_FOUND", message: expect.stringContaining("POST /v1/chat/completions") } },
    });
    // Another endpoint of an API (here Anthropic's token count) is a 404 in that API's shape.
    const countTokens = await post(`${gateway.url}/v1/messages/count_tokens`, JSON.stringify({ model: "scripted", messages: user("hi") }));
    expect(countTokens).toMatchObject({ status: 404, json: { type: "error", error: { type: "not_found_error", code: "NOT_FOUND" } } });
  });

  it("Anthropic: the SDK's NotFoundError and BadRequestError, in { type: 'error', error: { type, message } }", async () => {
    const client = anthropicFor(gateway);
    const unknown = await rejection(client.messages.create({ model: "claude-nope", max_tokens: 10, messages: user("hi") }));
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect((unknown as InstanceType<typeof Anthropic.APIError>).error).toEqual({
      type: "error",
      error: { type: "not_found_error", message: expect.stringContaining("claude-nope"), code: "MODEL_NOT_FOUND" },
    });
    const image = await rejection(
      client.messages.create({
        model: "scripted",
        max_tokens: 10,
        messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }],
      }),
    );
    expect(image).toBeInstanceOf(Anthropic.BadRequestError);
    expect((image as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      error: { type: "invalid_request_error", message: expect.stringContaining("images and documents are not supported") },
    });
  });

  it("a body over gateway.maxBodyBytes is 413 in the route's shape, and the gateway keeps serving", async () => {
    const big = "x".repeat(80 * 1024);
    const openai = await rejection(openaiFor(gateway).chat.completions.create({ model: "scripted", messages: user(big) }));
    expect(openai).toMatchObject({ status: 413, code: "BODY_TOO_LARGE" });
    const anthropic = await rejection(anthropicFor(gateway).messages.create({ model: "scripted", max_tokens: 10, messages: user(big) }));
    expect((anthropic as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: "request_too_large" } });
    const after = await openaiFor(gateway).chat.completions.create({ model: "scripted", messages: user("zzqx vvkw") });
    expect(after.choices[0]!.message.content).toBe("I have no tool for that.");
  });

  it("a call to a request's tool ends the turn there: it goes back to the client, and the provider is asked once", async () => {
    const mark = provider.received();
    const ask = { name: "ask_user", description: "Ask the user a question.", parameters: { type: "object", properties: { question: { type: "string" } } } };
    const completion = await openaiFor(gateway).chat.completions.create({
      model: "scripted",
      messages: user("Ask the user a question"),
      tools: [{ type: "function", function: ask }],
    });
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    expect(completion.choices[0]!.message.tool_calls).toEqual([{ id: expect.any(String), type: "function", function: { name: "ask_user", arguments: "{}" } }]);
    expect(provider.received() - mark).toBe(1);
  });

  it("/v1/runs is unchanged, and an unknown route names the compatible ones", async () => {
    const runs = await post(`${gateway.url}/v1/runs`, JSON.stringify({ sessionId: "s", input: "Echo the given text back" }));
    expect(runs.status).toBe(200);
    const missing = await fetch(`${gateway.url}/v1/nope`);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain("POST /v1/chat/completions");
  });
});

describe("identity, tokens and model aliases", () => {
  const NARROW = "narrow-token-0123456789abcdef";
  const WIDE = "wide-token-0123456789abcdef";
  const TOOLS_ONLY = "tools-token-0123456789abcdef";
  let provider: MockProvider;
  let gateway: Gateway;
  beforeAll(async () => {
    provider = await startMockProvider();
    gateway = await gatewayFor(provider.url, {
      provider: { models: { fast: "scripted", "fast-tools": { model: "scripted", mode: "tools" }, "fast-code": { model: "scripted", mode: "code" } } },
      gateway: { auth: { tokens: [{ token: NARROW, agentId: "narrow" }, { token: WIDE }, { token: TOOLS_ONLY, modes: ["tools"] }] } },
      policy: { agents: { narrow: { allow: ["plugin:acme:echo_text"] } } },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await provider.close();
  });

  it("no key, or a wrong one, is the SDKs' AuthenticationError (401), checked before the body is read", async () => {
    const none = await rejection(openaiFor(gateway, "").chat.completions.create({ model: "fast", messages: user("hi") }));
    expect(none).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(none).toMatchObject({ code: "UNAUTHORIZED" });
    const wrong = await rejection(anthropicFor(gateway, "not-a-token-0123456789").messages.create({ model: "fast", max_tokens: 10, messages: user("hi") }));
    expect(wrong).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((wrong as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: "authentication_error", code: "UNAUTHORIZED" } });
    // A body far over the cap is still a 401: the token is checked first.
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "x".repeat(200_000),
    }).catch((e: unknown) => e);
    // 401, or the connection closed while the client was still sending the refused body.
    expect([401, "closed"]).toContain(res instanceof Response ? res.status : "closed");
  });

  it("the run is the token's, whatever the body's user field says; Anthropic's x-api-key carries the token", async () => {
    // The gateway's own provider speaks Chat Completions, whatever API its caller used.
    const declared = (r: RecordedRequest) => (r.api === "chat" ? (r.body.tools ?? []).map((t) => t.function.name) : []);
    const mark = provider.received();
    const narrow = anthropicFor(gateway, NARROW);
    await narrow.messages.create({ model: "fast", max_tokens: 10, messages: user("zzqx vvkw"), metadata: { user_id: "owner" } });
    const wide = anthropicFor(gateway, WIDE);
    await wide.messages.create({ model: "fast", max_tokens: 10, messages: user("zzqx vvkw") });
    const [narrowRequest, wideRequest] = provider.requestsSince(mark);
    expect(declared(narrowRequest!)).toEqual(["echo_text"]);
    expect(declared(wideRequest!)).toEqual(["echo_text", "shout_text", "count_words"]);

    const openaiMark = provider.received();
    await openaiFor(gateway, NARROW).chat.completions.create({ model: "fast", messages: user("zzqx vvkw"), user: "owner" });
    expect(declared(provider.requestsSince(openaiMark)[0]!)).toEqual(["echo_text"]);
  });

  it("GET /v1/models lists the aliases this token may use, in OpenAI's or Anthropic's shape; an alias it may not use is not found", async () => {
    expect((await openaiFor(gateway, WIDE).models.list()).data.map((m) => m.id)).toEqual(["fast", "fast-tools", "fast-code"]);
    // An alias without a mode runs in a mode the token allows; one that names another mode is not this token's.
    expect((await openaiFor(gateway, TOOLS_ONLY).models.list()).data.map((m) => m.id)).toEqual(["fast", "fast-tools"]);
    expect(await openaiFor(gateway, WIDE).models.retrieve("fast-tools")).toMatchObject({ id: "fast-tools", object: "model", owned_by: "toolsearch" });
    const anthropicModels = await anthropicFor(gateway, WIDE).models.list();
    expect(anthropicModels.data.map((m) => [m.type, m.id])).toEqual([
      ["model", "fast"],
      ["model", "fast-tools"],
      ["model", "fast-code"],
    ]);
    const denied = await rejection(openaiFor(gateway, TOOLS_ONLY).chat.completions.create({ model: "fast-code", messages: user("hi") }));
    expect(denied).toMatchObject({ status: 404, code: "MODEL_NOT_FOUND", message: expect.stringContaining('use one of "fast", "fast-tools"') });
    const mark = provider.received();
    const ran = await openaiFor(gateway, TOOLS_ONLY).chat.completions.create({ model: "fast-tools", messages: user("Echo the given text back") });
    expect((ran as unknown as { toolsearch: { mode: string } }).toolsearch.mode).toBe("tools");
    expect(provider.requestsSince(mark)[0]!.body.model).toBe("scripted");
  });
});

describe("provider failures", () => {
  let url: string;
  let gateway: Gateway;
  beforeAll(async () => {
    // Nobody listens here: every provider request fails to connect.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v1`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    gateway = await gatewayFor(url);
  });
  afterAll(() => gateway.close());

  it("a whole answer is 502 with PROVIDER_FAILED: the SDK's InternalServerError", async () => {
    const error = await rejection(openaiFor(gateway).chat.completions.create({ model: "scripted", messages: user("hi") }));
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 502, code: "PROVIDER_FAILED", type: "server_error", message: expect.stringContaining(url) });
  });

  it("a stream that has begun ends with the API's in-stream error, which the SDKs raise", async () => {
    const stream = await openaiFor(gateway).chat.completions.create({ model: "scripted", messages: user("hi"), stream: true });
    const chat = await rejection(
      (async () => {
        for await (const _ of stream) void _;
      })(),
    );
    expect(chat).toBeInstanceOf(OpenAI.APIError);
    expect(chat).toMatchObject({ code: "PROVIDER_FAILED", message: expect.stringContaining("provider failed") });
    const anthropic = await rejection(
      anthropicFor(gateway)
        .messages.stream({ model: "scripted", max_tokens: 10, messages: user("hi") })
        .finalMessage(),
    );
    expect(anthropic).toBeInstanceOf(Anthropic.APIError);
    expect((anthropic as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: "api_error", code: "PROVIDER_FAILED" } });
    const events: string[] = [];
    const responses = openaiFor(gateway).responses.stream({ model: "scripted", input: "hi" });
    responses.on("event", (event) => events.push(event.type));
    // The SDK rejects with the error event itself, as it does for OpenAI's own.
    expect(await rejection(responses.finalResponse())).toMatchObject({ type: "error", code: "PROVIDER_FAILED" });
    expect(events).toEqual(["response.created", "response.in_progress", "error"]);
  });
});

describe("turn budgets", () => {
  it("a turn cut at gateway.maxTurns is 502 TURN_BUDGET, which the SDK does not retry", async () => {
    const provider = await startMockProvider();
    const gateway = await gatewayFor(provider.url, { tools: { toolSearch: { mode: "tools" } }, gateway: { maxTurns: 1 } });
    try {
      const mark = provider.received();
      // The client's default retries: x-should-retry: false keeps it from sending the turn again.
      const error = await rejection(openaiFor(gateway, "unused", 2).chat.completions.create({ model: "scripted", messages: user("Echo the given text back") }));
      expect(error).toMatchObject({ status: 502, code: "TURN_BUDGET", message: expect.stringContaining("gateway.maxTurns") });
      expect(provider.received() - mark).toBe(1);
    } finally {
      await gateway.close();
      await provider.close();
    }
  });
});

describe("a client that hangs up in the middle of a streamed answer", () => {
  let provider: MockProvider;
  let gateway: Gateway;
  let log: string;
  beforeAll(async () => {
    // Every streamed answer sends its opening and first word, then nothing until its client goes away.
    provider = await startMockProvider({ stallStreamsAfter: 2 });
    log = path.join(mkdtempSync(path.join(tmpdir(), "toolsearch-compat-")), "session.jsonl");
    gateway = await gatewayFor(provider.url, { sessionLog: log });
  });
  afterAll(async () => {
    await gateway.close();
    await provider.close();
  });

  /** run_end events in the log so far: whole lines only (the log is appended to as runs go). */
  const runEnds = () => {
    const text = existsSync(log) ? readFileSync(log, "utf8") : "";
    const lines = text
      .slice(0, text.lastIndexOf("\n") + 1)
      .split("\n")
      .filter(Boolean);
    return lines.map((line) => JSON.parse(line) as SessionEvent).filter((e) => e.type === "run_end").length;
  };

  const clients = {
    chat: async (signal: AbortSignal, onText: () => void) => {
      const stream = await openaiFor(gateway).chat.completions.create({ model: "scripted", messages: user("zzqx vvkw"), stream: true }, { signal });
      for await (const chunk of stream) if (chunk.choices[0]?.delta.content) onText();
    },
    responses: async (signal: AbortSignal, onText: () => void) => {
      const stream = await openaiFor(gateway).responses.create({ model: "scripted", input: "zzqx vvkw", stream: true }, { signal });
      for await (const event of stream) if (event.type === "response.output_text.delta") onText();
    },
    anthropic: async (signal: AbortSignal, onText: () => void) => {
      const stream = await anthropicFor(gateway).messages.create({ model: "scripted", max_tokens: 10, messages: user("zzqx vvkw"), stream: true }, { signal });
      for await (const event of stream) if (event.type === "content_block_delta") onText();
    },
  };

  it.each(Object.keys(clients) as Array<keyof typeof clients>)("%s: the provider's stream is abandoned and the run ends", async (api) => {
    const abandoned = provider.streamsAbandoned();
    const ended = runEnds();
    const mark = provider.received();
    const controller = new AbortController();
    let deltas = 0;
    // The SDKs end their iteration quietly on their own abort.
    await clients[api](controller.signal, () => {
      deltas += 1;
      controller.abort();
    });
    expect(deltas).toBe(1);
    await expect.poll(() => provider.streamsAbandoned()).toBe(abandoned + 1);
    await expect.poll(runEnds).toBe(ended + 1);
    expect(provider.received() - mark).toBe(1);
  });
});

describe("provider.models", () => {
  const resolve = (provider: Record<string, unknown>) => resolveServerConfig({ provider }, process.cwd(), {}).provider.models;

  it("defaults to the provider's model; takes names and { model, mode } entries in order", () => {
    expect(resolve({ model: "gpt-4o" })).toEqual([{ id: "gpt-4o", model: "gpt-4o" }]);
    expect(resolve({ models: { fast: "gpt-4o-mini", careful: { model: "gpt-4o", mode: "directory" } } })).toEqual([
      { id: "fast", model: "gpt-4o-mini" },
      { id: "careful", model: "gpt-4o", mode: "directory" },
    ]);
  });

  it("refuses an empty list, an unknown mode and an unknown key, naming them", () => {
    expect(() => resolve({ models: {} })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringContaining("provider.models") }));
    expect(() => resolve({ models: { a: { model: "m", mode: "fast" } } })).toThrow(
      expect.objectContaining({ message: expect.stringContaining("provider.models.a") }),
    );
    expect(() => resolve({ models: { a: { model: "m", temperature: 1 } } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});
