/**
 * One agent turn as a library function: send the run's surface to the model, answer each tool
 * call through `run.handleToolCall`, and loop until the model answers or `maxTurns` round trips
 * are spent. One loop for three APIs, each with its official client:
 *
 *   { api: "chat", client: new OpenAI(), model }          OpenAI Chat Completions
 *   { api: "responses", client: new OpenAI(), model }     OpenAI Responses (stateless: store false)
 *   { api: "anthropic", client: new Anthropic(), model }  Anthropic Messages
 *
 * The gateway runs exactly this function. What the model sends is bounded: at most
 * MAX_CALLS_PER_RESPONSE tool calls of one response are run (the rest are answered with an
 * error), and each call's arguments are capped by the run before they are parsed.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import type { ToolSearchRun } from "../engine/run.js";
import { InvalidArgsError, ProviderFailedError, toErrorPayload } from "../errors.js";
import type { ChatMessage } from "../provider/chat-types.js";
import type { AnthropicContentBlock, AnthropicMessage, ProviderApi, ResponsesInputItem, ResponsesOutputItem } from "../provider/wire-types.js";
import type { RunTelemetry } from "../telemetry/types.js";

/** Tool calls of one model response that are run; more are answered with an error, unrun. */
export const MAX_CALLS_PER_RESPONSE = 32;
const DEFAULT_MAX_TURNS = 8;
const MAX_TURNS = 100;
const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/** Which API, its official client, and the model. */
export type AgentProvider =
  | { api: "chat"; client: OpenAI; model: string }
  | { api: "responses"; client: OpenAI; model: string }
  | { api: "anthropic"; client: Anthropic; model: string; /** Anthropic's required `max_tokens` (default 4096). */ maxTokens?: number };

/**
 * The conversation so far, in the Chat Completions shape whatever the API (system, user,
 * assistant with tool_calls, tool): it is translated for the Responses and Messages APIs.
 */
export type AgentMessage = ChatMessage;

export interface AgentTurnInput {
  run: ToolSearchRun;
  provider: AgentProvider;
  messages: readonly AgentMessage[];
  /** Provider round trips before the turn is cut (default 8, at most 100). */
  maxTurns?: number;
  /** Cancels the provider request in flight and stops the loop. */
  signal?: AbortSignal;
  /** Per provider request (default: the client's own). */
  timeoutMs?: number;
}

export interface AgentToolCall {
  /** The provider's call id. */
  id: string;
  name: string;
  /** As the model sent them: a JSON string (OpenAI) or the JSON of Anthropic's `input`. */
  arguments: string;
  /** The tool-message content the model got back. */
  content: string;
}

export interface AgentTurnResult {
  status: "answered" | "max_turns";
  /** The model's final text; null when the turn was cut. */
  answer: string | null;
  toolCalls: AgentToolCall[];
  roundTrips: number;
  /** The run's telemetry when the turn ended. */
  telemetry: RunTelemetry;
}

interface ModelReply {
  text: string | null;
  calls: Array<{ id: string; name: string; arguments: string | Record<string, unknown> }>;
}

/** One API's request shape and conversation bookkeeping. */
interface ApiConversation {
  request(options: RequestOptions): Promise<ModelReply>;
  /** Appends the model's reply and the answers to its calls. */
  answer(reply: ModelReply, contents: readonly string[]): void;
}

interface RequestOptions {
  signal?: AbortSignal;
  timeout?: number;
  maxRetries: number;
}

export async function runAgentTurn(input: AgentTurnInput): Promise<AgentTurnResult> {
  const { run, provider, messages, signal } = checkInput(input);
  const maxTurns = input.maxTurns ?? DEFAULT_MAX_TURNS;
  const conversation = conversationFor(provider, run, messages);
  const options: RequestOptions = { maxRetries: 0, ...(signal ? { signal } : {}), ...(input.timeoutMs !== undefined ? { timeout: input.timeoutMs } : {}) };
  const toolCalls: AgentToolCall[] = [];
  for (let trip = 1; trip <= maxTurns; trip += 1) {
    signal?.throwIfAborted();
    const reply = await conversation.request(options);
    if (reply.calls.length === 0) return { status: "answered", answer: reply.text ?? "", toolCalls, roundTrips: trip, telemetry: run.telemetry() };
    const contents: string[] = [];
    for (const [i, call] of reply.calls.entries()) {
      signal?.throwIfAborted();
      const content =
        i < MAX_CALLS_PER_RESPONSE
          ? await run.handleToolCall(call)
          : JSON.stringify({ ok: false, error: toErrorPayload(new InvalidArgsError(`Only ${MAX_CALLS_PER_RESPONSE} tool calls of one response are run; call the others in a later response.`)) });
      contents.push(content);
      toolCalls.push({ id: call.id, name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments), content });
    }
    conversation.answer(reply, contents);
  }
  return { status: "max_turns", answer: null, toolCalls, roundTrips: maxTurns, telemetry: run.telemetry() };
}

function checkInput(input: AgentTurnInput): AgentTurnInput {
  if (typeof input !== "object" || input === null) throw new InvalidArgsError("runAgentTurn needs { run, provider, messages }.");
  const { provider, messages, maxTurns } = input;
  if (typeof input.run?.handleToolCall !== "function") throw new InvalidArgsError("runAgentTurn: run must be a ToolSearchRun (engine.prepareRun).");
  if (typeof provider !== "object" || provider === null || !["chat", "responses", "anthropic"].includes(provider.api)) {
    throw new InvalidArgsError(`runAgentTurn: provider.api must be "chat", "responses" or "anthropic"; got ${JSON.stringify((provider as { api?: unknown } | null)?.api)}`);
  }
  if (typeof provider.model !== "string" || provider.model.length === 0) throw new InvalidArgsError("runAgentTurn: provider.model must be a non-empty string.");
  if (typeof provider.client !== "object" || provider.client === null) throw new InvalidArgsError("runAgentTurn: provider.client must be the API's client (openai or @anthropic-ai/sdk).");
  if (!Array.isArray(messages) || messages.length === 0) throw new InvalidArgsError("runAgentTurn: messages must be a non-empty list.");
  if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > MAX_TURNS)) {
    throw new InvalidArgsError(`runAgentTurn: maxTurns must be an integer from 1 to ${MAX_TURNS}; got ${String(maxTurns)}`);
  }
  return input;
}

function conversationFor(provider: AgentProvider, run: ToolSearchRun, messages: readonly AgentMessage[]): ApiConversation {
  switch (provider.api) {
    case "chat":
      return chatConversation(provider.client, provider.model, run, messages);
    case "responses":
      return responsesConversation(provider.client, provider.model, run, messages);
    case "anthropic":
      return anthropicConversation(provider.client, provider.model, provider.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS, run, messages);
  }
}

async function ask<T>(api: ProviderApi, send: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  try {
    return await send();
  } catch (error) {
    // A cancel is the caller's, not the provider's failure.
    if (signal?.aborted) throw signal.reason;
    throw new ProviderFailedError(`The model provider failed (${api}): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

function systemText(run: ToolSearchRun, messages: readonly AgentMessage[]): string {
  return [run.instructions, ...messages.filter((m) => m.role === "system").map((m) => m.content)].filter((t) => t.length > 0).join("\n\n");
}

function chatConversation(client: OpenAI, model: string, run: ToolSearchRun, messages: readonly AgentMessage[]): ApiConversation {
  const tools = run.toolsFor("openai-chat");
  const conversation: ChatMessage[] = [...(run.instructions ? [{ role: "system" as const, content: run.instructions }] : []), ...messages];
  return {
    async request(options) {
      const body = { model, messages: conversation as OpenAI.Chat.ChatCompletionMessageParam[], ...(tools.length > 0 ? { tools: tools as OpenAI.Chat.ChatCompletionTool[] } : {}) };
      const completion = await ask("chat", () => client.chat.completions.create(body, options), options.signal);
      const message = (completion as Partial<typeof completion>).choices?.[0]?.message;
      if (!message) throw new ProviderFailedError("The model provider failed (chat): its answer has no choices[0].message (not a chat completion).");
      const calls = (message.tool_calls ?? []).flatMap((c) => (c.type === "function" ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : []));
      return { text: message.content ?? null, calls };
    },
    answer(reply, contents) {
      conversation.push({ role: "assistant", content: reply.text, tool_calls: reply.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: String(c.arguments) } })) });
      reply.calls.forEach((c, i) => conversation.push({ role: "tool", tool_call_id: c.id, content: contents[i]! }));
    },
  };
}

/** Chat messages as Responses input items; system messages go to `instructions`. */
export function toResponsesInput(messages: readonly AgentMessage[]): ResponsesInputItem[] {
  return messages.flatMap((m): ResponsesInputItem[] => {
    if (m.role === "system") return [];
    if (m.role === "user") return [{ role: "user", content: m.content }];
    if (m.role === "tool") return [{ type: "function_call_output", call_id: m.tool_call_id, output: m.content }];
    return [
      ...(m.content ? [{ role: "assistant" as const, content: m.content }] : []),
      ...(m.tool_calls ?? []).map((c) => ({ type: "function_call" as const, call_id: c.id, name: c.function.name, arguments: c.function.arguments })),
    ];
  });
}

function responsesConversation(client: OpenAI, model: string, run: ToolSearchRun, messages: readonly AgentMessage[]): ApiConversation {
  const tools = run.toolsFor("openai-responses");
  const instructions = systemText(run, messages);
  const input = toResponsesInput(messages);
  return {
    async request(options) {
      const body = { model, store: false, input, ...(instructions ? { instructions } : {}), ...(tools.length > 0 ? { tools } : {}) };
      const response = await ask("responses", () => client.responses.create(body as OpenAI.Responses.ResponseCreateParamsNonStreaming, options), options.signal);
      const output = (response as { output?: unknown }).output;
      if (!Array.isArray(output)) throw new ProviderFailedError("The model provider failed (responses): its answer has no output list (not a response).");
      const items = output as ResponsesOutputItem[];
      const calls = items.flatMap((item) => (item.type === "function_call" ? [{ id: item.call_id, name: item.name, arguments: item.arguments }] : []));
      const text = items.flatMap((item) => (item.type === "message" ? item.content.filter((c) => c.type === "output_text").map((c) => c.text) : [])).join("");
      return { text: text.length > 0 ? text : null, calls };
    },
    answer(reply, contents) {
      if (reply.text) input.push({ role: "assistant", content: reply.text });
      for (const c of reply.calls) input.push({ type: "function_call", call_id: c.id, name: c.name, arguments: String(c.arguments) });
      reply.calls.forEach((c, i) => input.push({ type: "function_call_output", call_id: c.id, output: contents[i]! }));
    },
  };
}

/** Chat messages as Anthropic messages: tool calls as tool_use blocks, tool results as tool_result blocks in a user message. */
export function toAnthropicMessages(messages: readonly AgentMessage[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  for (const m of messages) {
    if (m.role === "system") continue;
    if (m.role === "user") out.push({ role: "user", content: m.content });
    else if (m.role === "assistant") {
      const blocks: AnthropicContentBlock[] = [...(m.content ? [{ type: "text" as const, text: m.content }] : [])];
      for (const c of m.tool_calls ?? []) blocks.push({ type: "tool_use", id: c.id, name: c.function.name, input: parseObject(c.function.arguments) });
      out.push({ role: "assistant", content: blocks });
    } else {
      const block: AnthropicContentBlock = { type: "tool_result", tool_use_id: m.tool_call_id, content: m.content };
      const last = out.at(-1);
      if (last?.role === "user" && Array.isArray(last.content) && last.content.every((b) => b.type === "tool_result")) last.content.push(block);
      else out.push({ role: "user", content: [block] });
    }
  }
  return out;
}

function parseObject(text: string): unknown {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

function anthropicConversation(client: Anthropic, model: string, maxTokens: number, run: ToolSearchRun, messages: readonly AgentMessage[]): ApiConversation {
  const tools = run.toolsFor("anthropic");
  const system = systemText(run, messages);
  const conversation = toAnthropicMessages(messages);
  let lastContent: AnthropicContentBlock[] = [];
  return {
    async request(options) {
      const body = { model, max_tokens: maxTokens, messages: conversation, ...(system ? { system } : {}), ...(tools.length > 0 ? { tools } : {}) };
      const message = await ask("anthropic", () => client.messages.create(body as Anthropic.MessageCreateParamsNonStreaming, options), options.signal);
      const content = (message as { content?: unknown }).content;
      if (!Array.isArray(content)) throw new ProviderFailedError("The model provider failed (anthropic): its answer has no content list (not a message).");
      lastContent = content as AnthropicContentBlock[];
      const calls = lastContent.flatMap((b) => (b.type === "tool_use" ? [{ id: b.id, name: b.name, arguments: (b.input ?? {}) as Record<string, unknown> }] : []));
      const text = lastContent.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
      return { text: text.length > 0 ? text : null, calls };
    },
    answer(reply, contents) {
      // The assistant message goes back as it came (text and tool_use blocks), then one user message of results.
      conversation.push({ role: "assistant", content: lastContent.filter((b) => b.type === "text" || b.type === "tool_use") });
      conversation.push({ role: "user", content: reply.calls.map((c, i) => ({ type: "tool_result" as const, tool_use_id: c.id, content: contents[i]! })) });
    },
  };
}
