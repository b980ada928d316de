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
 * error), and each call's arguments are capped by the run before they are parsed. What a turn
 * costs is bounded too, however the provider behaves: the tool results kept in the conversation
 * share one byte budget (`maxTurnResultBytes`: the result that crosses it is cut with the marker
 * the per-call cap uses, later calls are answered unrun), a request over `maxRequestBytes` is not sent, each provider request has a deadline
 * that covers its whole answer, headers and body (`timeoutMs`), and the turn has one of its own
 * (`turnTimeoutMs`). A provider answering every trip with 32 calls of a 1 MiB tool, or sending
 * headers and then one byte a second, costs a bounded turn, not the process.
 *
 * With `onText` each provider request streams, and the model's text reaches the caller as it
 * arrives (the gateway's OpenAI- and Anthropic-compatible routes stream it on); the answer is
 * the same either way. With `onToolCall` the caller may take calls over: a response any of whose
 * calls it took ends the turn once its calls are answered (`handed_off`), unasked again, so that
 * the caller can hand those calls to its own client (client tools on the compatible routes).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { onAbort } from "../abort-listeners.js";
import { boundResult, type ToolSearchRun } from "../engine/run.js";
import { errorMessage, InvalidArgsError, ProviderFailedError, toErrorPayload, TurnBudgetError } from "../errors.js";
import { compileOptions } from "../validation/ajv.js";
import { declared, int, object, withDefault, type Filled, type TypeOf } from "../validation/typed-schema.js";
import type { ChatMessage } from "../wire/chat-types.js";
import type { AnthropicContentBlock, AnthropicMessage, ResponsesInputItem, ResponsesOutputItem } from "../wire/wire-types.js";
import type { RunTelemetry } from "../telemetry/types.js";

import { MAX_CALLS_PER_RESPONSE } from "./limits.js";

export { MAX_CALLS_PER_RESPONSE };
export const DEFAULT_MAX_TURNS = 8;
const MAX_TURNS = 100;
const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;
const MIB = 1024 * 1024;
/**
 * The turn budgets' defaults, for the library and the gateway's config alike. 1 MiB of results
 * is about 250,000 tokens, more than most models' context holds; every trip resends them, so
 * the budget is what a turn's memory grows with (bench/stall's amplifying-provider row measures
 * it; docs/hardening.md, "Agent turns", has its figures). The request cap matches
 * provider.maxResponseBytes and leaves room for direct mode's tool list over a large catalog.
 */
export const DEFAULT_MAX_TURN_RESULT_BYTES = 1 * MIB;
export const DEFAULT_MAX_REQUEST_BYTES = 16 * MIB;
/** setTimeout's largest delay; a longer one fires at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;
/** Less budget than this left is none: the marker and a little of a result would not fit in it. */
const MIN_KEPT_BYTES = 256;
const TURN_CUT = { setting: "maxTurnResultBytes: this turn's budget for tool results is spent", advice: "answer with what you have, or ask for less" };

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

/** runAgentTurn's input, checked and defaulted once (checkInput): every message names the key, what it allows and the value given. */
const agentTurnSchema = object(
  {
    /** The run whose tools the turn calls, each call through its one call path (engine.prepareRun). */
    run: declared<ToolSearchRun>()({ type: "object", methods: ["handleToolCall", "answerToolCall"], description: "a ToolSearchRun (engine.prepareRun)" }),
    /** Which API, its official client, and the model. */
    provider: declared<AgentProvider>()({
      type: "object",
      required: ["api", "model", "client"],
      properties: {
        api: { enum: ["chat", "responses", "anthropic"] },
        model: { type: "string", minLength: 1, description: "a non-empty string" },
        client: { type: "object", description: "the API's client (openai or @anthropic-ai/sdk)" },
      },
    }),
    /** The conversation so far, at least one message. */
    messages: declared<readonly AgentMessage[]>()({ type: "array", minItems: 1, description: "a non-empty list of messages" }),
    /** Provider round trips before the turn is cut (default 8, at most 100). */
    maxTurns: withDefault(int(1, MAX_TURNS), DEFAULT_MAX_TURNS),
    /** Cancels the provider request in flight and the tool calls running, and stops the loop. */
    signal: declared<AbortSignal>()({ type: "object", methods: ["addEventListener", "throwIfAborted"], description: "an AbortSignal" }),
    /**
     * Per provider request, from sending it to the last byte of the answer (default: the client's
     * own timeout, which covers only the wait for headers). Past it the turn fails with
     * PROVIDER_FAILED naming the deadline.
     */
    timeoutMs: int(1, MAX_TIMEOUT_MS),
    /** The whole turn, provider requests and tool calls together (default: none). Past it the turn fails with TURN_BUDGET. */
    turnTimeoutMs: int(1, MAX_TIMEOUT_MS),
    /**
     * UTF-8 bytes of tool results the conversation keeps over the whole turn (default 1 MiB): the
     * result that crosses it is cut with a marker the model reads, and calls made once it is spent
     * are answered TURN_BUDGET, unrun.
     */
    maxTurnResultBytes: withDefault(int(0, Number.MAX_SAFE_INTEGER), DEFAULT_MAX_TURN_RESULT_BYTES),
    /** The largest provider request, as the JSON sent (default 16 MiB): a larger one is not sent, and the turn fails with TURN_BUDGET. */
    maxRequestBytes: withDefault(int(1, Number.MAX_SAFE_INTEGER), DEFAULT_MAX_REQUEST_BYTES),
    /** Each piece of the model's text as it arrives: provider requests stream when this is given. */
    onText: declared<(delta: string) => void>()({ function: true }),
    /**
     * Told of each tool call once it is answered. `true` takes the call over: once the response's
     * calls are all answered the turn ends with status "handed_off" instead of asking the provider again.
     */
    onToolCall: declared<(call: AgentToolCall) => boolean | void>()({ function: true }),
  },
  { required: ["run", "provider", "messages"] },
);

/** One agent turn's input: the run, the provider, the conversation, and the turn's budgets (agentTurnSchema documents each). */
export type AgentTurnInput = TypeOf<typeof agentTurnSchema>;
/** The input as checkInput returns it: the budgets' defaults filled in. */
type CheckedTurnInput = Filled<typeof agentTurnSchema>;

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
  /** `handed_off`: `onToolCall` took calls of the last response over. */
  status: "answered" | "max_turns" | "handed_off";
  /** The model's final text (with `handed_off`, its text beside the calls taken over); null when the turn was cut. */
  answer: string | null;
  toolCalls: AgentToolCall[];
  roundTrips: number;
  /** Tokens the provider reported, summed over the turn's requests (0 where it reported none). */
  usage: TokenUsage;
  /** The run's telemetry when the turn ended. */
  telemetry: RunTelemetry;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

interface ModelReply {
  text: string | null;
  calls: Array<{ id: string; name: string; arguments: string | Record<string, unknown> }>;
  usage: TokenUsage;
}

/** One API's request shape and conversation bookkeeping. */
interface ApiConversation {
  request(options: RequestOptions): Promise<ModelReply>;
  /** Appends the model's reply and the answers to its calls. */
  answer(reply: ModelReply, contents: readonly string[]): Promise<void>;
  /** UTF-8 bytes of the next request's JSON. */
  requestBytes(): number;
}

interface RequestOptions {
  signal: AbortSignal;
  maxRetries: number;
}

/** Where a streamed request's text goes; absent, the request does not stream. */
type TextSink = ((delta: string) => void) | undefined;

export async function runAgentTurn(input: AgentTurnInput): Promise<AgentTurnResult> {
  const checked = checkInput(input);
  const { run, provider, messages, timeoutMs, turnTimeoutMs, maxTurns, maxRequestBytes } = checked;
  const budget = new ResultBudget(checked.maxTurnResultBytes);
  const conversation = conversationFor(provider, run, messages, checked.onText);
  const where = providerWhere(provider);
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  // Aborted by the caller (with its reason) or at the turn's deadline; every request and call listens to it.
  const turn = deadline(
    checked.signal,
    turnTimeoutMs,
    () => new TurnBudgetError(`The turn ran past its ${turnTimeoutMs} ms deadline (turnTimeoutMs; gateway.turnTimeoutMs in the gateway) and was stopped.`),
  );
  const toolCalls: AgentToolCall[] = [];
  try {
    for (let trip = 1; trip <= maxTurns; trip += 1) {
      turn.signal.throwIfAborted();
      checkRequestSize(conversation.requestBytes(), maxRequestBytes, where);
      const reply = await requestWithDeadline(conversation, where, turn.signal, timeoutMs);
      usage.inputTokens += reply.usage.inputTokens;
      usage.outputTokens += reply.usage.outputTokens;
      if (reply.calls.length === 0) return { status: "answered", answer: reply.text ?? "", toolCalls, roundTrips: trip, usage, telemetry: run.telemetry() };
      const contents: string[] = [];
      let handedOff = false;
      for (const [i, call] of reply.calls.entries()) {
        turn.signal.throwIfAborted();
        const runs = i < MAX_CALLS_PER_RESPONSE && !budget.spent();
        const content = runs ? budget.keep((await run.answerToolCall(call, turn.signal)).text) : unrunAnswer(i, budget);
        contents.push(content);
        const answered = {
          id: call.id,
          name: call.name,
          arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
          content,
        };
        toolCalls.push(answered);
        if (checked.onToolCall?.(answered) === true) handedOff = true;
        // A synchronous tool's call settles in microtasks: without a turn of the loop between
        // calls, one response's 32 calls (each serializing up to a 1 MiB result) would hold the
        // process's loop, every other session's, for all 32 at once.
        if (runs) await nextTurnOfLoop();
      }
      if (handedOff) return { status: "handed_off", answer: reply.text, toolCalls, roundTrips: trip, usage, telemetry: run.telemetry() };
      await conversation.answer(reply, contents);
    }
    return { status: "max_turns", answer: null, toolCalls, roundTrips: maxTurns, usage, telemetry: run.telemetry() };
  } finally {
    turn.release();
  }
}

function nextTurnOfLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Why a call was not run: it came after the first MAX_CALLS_PER_RESPONSE of its response, or after the result budget was spent. */
function unrunAnswer(index: number, budget: ResultBudget): string {
  return index < MAX_CALLS_PER_RESPONSE ? budget.spentAnswer() : tooManyCalls();
}

function tooManyCalls(): string {
  return JSON.stringify({
    ok: false,
    error: toErrorPayload(new InvalidArgsError(`Only ${MAX_CALLS_PER_RESPONSE} tool calls of one response are run; call the others in a later response.`)),
  });
}

/** Checked before the request is built by the client: the conversation's size is known without serializing it again. */
/**
 * "chat at http://host/v1, model m": every provider failure says where it went, so a connection
 * error names the URL that was tried and a 404 the model that was asked for.
 */
function providerWhere(provider: AgentProvider): string {
  const baseURL = (provider.client as { baseURL?: unknown }).baseURL;
  return `${provider.api} at ${typeof baseURL === "string" ? baseURL : "the client's default URL"}, model ${provider.model}`;
}

function checkRequestSize(bytes: number, maxBytes: number, api: string): void {
  if (bytes <= maxBytes) return;
  throw new TurnBudgetError(
    `The next request to the model provider (${api}) would be ${bytes} bytes, over the ${maxBytes}-byte limit (maxRequestBytes; provider.maxRequestBytes in the gateway); it was not sent.`,
  );
}

/**
 * One provider request under its own deadline, which runs until the answer is parsed: the
 * clients' `timeout` stops at the headers, so a provider that sends them and then drips or
 * goes silent would hold the turn for as long as it likes.
 */
async function requestWithDeadline(conversation: ApiConversation, api: string, turn: AbortSignal, timeoutMs: number | undefined): Promise<ModelReply> {
  const request = deadline(
    turn,
    timeoutMs,
    () =>
      new ProviderFailedError(
        `The model provider failed (${api}): it did not finish its answer (headers and body) within ${timeoutMs} ms (timeoutMs; provider.timeoutMs in the gateway).`,
      ),
  );
  try {
    return await conversation.request({ maxRetries: 0, signal: request.signal });
  } finally {
    request.release();
  }
}

/**
 * A signal that aborts when `parent` does (with the parent's reason) or after `ms` (with
 * `expired()`). Listened to directly and released after use: `AbortSignal.any` keeps combined
 * signals alive on Node 20 (see call-path.ts).
 */
function deadline(parent: AbortSignal | undefined, ms: number | undefined, expired: () => Error): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  if (parent?.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release: () => {} };
  }
  const off = parent ? onAbort(parent, () => controller.abort(parent.reason)) : undefined;
  const timer = ms === undefined ? undefined : setTimeout(() => controller.abort(expired()), ms);
  return {
    signal: controller.signal,
    release: () => {
      off?.();
      clearTimeout(timer);
    },
  };
}

/**
 * The turn's budget of tool-result bytes kept in the conversation. The per-call cap bounds one
 * result; this bounds their sum, which a provider asking for 32 calls every trip would
 * otherwise grow by 32 results a trip, and resend all of them every trip. The result that
 * crosses the budget is cut with the per-call cap's marker; once it is spent, calls are
 * answered unrun, as the calls past MAX_CALLS_PER_RESPONSE are: running a tool whose result the
 * model will not see costs its work and its result's memory for nothing.
 */
class ResultBudget {
  private left: number;

  constructor(private readonly maxBytes: number) {
    this.left = maxBytes;
  }

  spent(): boolean {
    return this.left < MIN_KEPT_BYTES;
  }

  /** The content as the conversation keeps it: whole while the budget lasts, else cut with a marker. */
  keep(content: string): string {
    const { text } = boundResult(content, this.left, TURN_CUT);
    this.left = Math.max(0, this.left - Buffer.byteLength(text));
    return text;
  }

  /** The answer to a call made after the budget is spent. */
  spentAnswer(): string {
    const error = new TurnBudgetError(
      `This turn's budget for tool results (maxTurnResultBytes, ${this.maxBytes} bytes) is spent, so the call was not run. Answer with what you have.`,
    );
    return JSON.stringify({ ok: false, error: toErrorPayload(error) });
  }
}

// Not copied deep: the messages are the caller's conversation (up to megabytes, every turn); only
// the top level is copied, which is where the defaults go.
const checkTurnInput = compileOptions("agentTurn", agentTurnSchema, { copy: false });

function checkInput(input: AgentTurnInput): CheckedTurnInput {
  return checkTurnInput(typeof input === "object" && input !== null ? { ...input } : input, "runAgentTurn");
}

/** UTF-8 bytes of a value's JSON, as the clients send it. */
function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "");
}

/**
 * The list a request carries (messages, input items) and the size of the whole request's JSON,
 * kept as items are added: the body is serialized once here and each item once more when it is
 * added, instead of the whole conversation again before every trip.
 */
class RequestBody<T> {
  private bytes: number;

  constructor(
    readonly items: T[],
    private readonly shape: (items: T[]) => Record<string, unknown>,
  ) {
    this.bytes = jsonBytes(shape(items));
  }

  body(): Record<string, unknown> {
    return this.shape(this.items);
  }

  /** Adds an item; `itemBytes` is its JSON's size when the caller has measured it already. */
  push(item: T, itemBytes = jsonBytes(item)): void {
    // The item's JSON, and a comma when it is not the first.
    this.bytes += itemBytes + (this.items.length > 0 ? 1 : 0);
    this.items.push(item);
  }

  requestBytes(): number {
    return this.bytes;
  }
}

/** A measured value this big gives the loop a turn before the next is measured. */
const LARGE_JSON_BYTES = 64 * 1024;

/**
 * Each value's JSON size, with a turn of the loop after each large one: one trip's results are
 * up to the whole result budget, and serializing them in one go would hold the loop for all of them.
 */
async function jsonSizes(values: readonly unknown[]): Promise<number[]> {
  const sizes: number[] = [];
  for (const value of values) {
    sizes.push(jsonBytes(value));
    if (sizes.at(-1)! > LARGE_JSON_BYTES) await nextTurnOfLoop();
  }
  return sizes;
}

function conversationFor(provider: AgentProvider, run: ToolSearchRun, messages: readonly AgentMessage[], onText: TextSink): ApiConversation {
  const where = providerWhere(provider);
  switch (provider.api) {
    case "chat":
      return chatConversation(provider.client, provider.model, run, messages, where, onText);
    case "responses":
      return responsesConversation(provider.client, provider.model, run, messages, where, onText);
    case "anthropic":
      return anthropicConversation(provider.client, provider.model, provider.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS, run, messages, where, onText);
  }
}

/** A count the provider reported, or 0: a provider that reports no usage is not a failed answer. */
function tokens(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

async function ask<T>(api: string, send: () => Promise<T>, signal: AbortSignal): Promise<T> {
  try {
    return await send();
  } catch (error) {
    // A cancel is the caller's, a deadline the turn's or the request's: the signal's reason says which.
    if (signal.aborted) throw signal.reason;
    throw new ProviderFailedError(`The model provider failed (${api}): ${errorMessage(error)}`, { cause: error });
  }
}

function systemText(run: ToolSearchRun, messages: readonly AgentMessage[]): string {
  return [run.instructions, ...messages.filter((m) => m.role === "system").map((m) => m.content)].filter((t) => t.length > 0).join("\n\n");
}

function chatConversation(
  client: OpenAI,
  model: string,
  run: ToolSearchRun,
  messages: readonly AgentMessage[],
  where: string,
  onText: TextSink,
): ApiConversation {
  const tools = run.toolsFor("openai-chat");
  const conversation = new RequestBody<ChatMessage>(
    [...(run.instructions ? [{ role: "system" as const, content: run.instructions }] : []), ...messages],
    (items) => ({
      model,
      messages: items,
      ...(tools.length > 0 ? { tools } : {}),
    }),
  );
  return {
    requestBytes: () => conversation.requestBytes(),
    async request(options) {
      const body = conversation.body() as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
      const completion = await ask(
        where,
        () => (onText ? streamedChat(client, body, options, onText) : client.chat.completions.create(body, options)),
        options.signal,
      );
      const message = (completion as Partial<typeof completion>).choices?.[0]?.message;
      if (!message) throw new ProviderFailedError(`The model provider failed (${where}): its answer has no choices[0].message (not a chat completion).`);
      const calls = (message.tool_calls ?? []).flatMap((c) =>
        c.type === "function" ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
      );
      const usage = (completion as Partial<typeof completion>).usage;
      return { text: message.content ?? null, calls, usage: { inputTokens: tokens(usage?.prompt_tokens), outputTokens: tokens(usage?.completion_tokens) } };
    },
    async answer(reply, contents) {
      conversation.push({
        role: "assistant",
        content: reply.text,
        tool_calls: reply.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: String(c.arguments) } })),
      });
      const results = reply.calls.map((c, i): ChatMessage => ({ role: "tool", tool_call_id: c.id, content: contents[i]! }));
      const sizes = await jsonSizes(results);
      results.forEach((m, i) => conversation.push(m, sizes[i]));
    },
  };
}

/** A streamed chat completion, accumulated by the client into the completion a plain request returns; its text goes to `onText` as it arrives. */
function streamedChat(
  client: OpenAI,
  body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
  options: RequestOptions,
  onText: (delta: string) => void,
): Promise<OpenAI.Chat.ChatCompletion> {
  const stream = client.chat.completions.stream({ ...body, stream: true, stream_options: { include_usage: true } }, options);
  stream.on("content.delta", ({ delta }) => onText(delta));
  return stream.finalChatCompletion();
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

function responsesConversation(
  client: OpenAI,
  model: string,
  run: ToolSearchRun,
  messages: readonly AgentMessage[],
  where: string,
  onText: TextSink,
): ApiConversation {
  const tools = run.toolsFor("openai-responses");
  const instructions = systemText(run, messages);
  const input = new RequestBody(toResponsesInput(messages), (items) => ({
    model,
    store: false,
    input: items,
    ...(instructions ? { instructions } : {}),
    ...(tools.length > 0 ? { tools } : {}),
  }));
  return {
    requestBytes: () => input.requestBytes(),
    async request(options) {
      const body = input.body() as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming;
      const response = await ask(
        where,
        () => (onText ? streamedResponse(client, body, options, onText) : client.responses.create(body, options)),
        options.signal,
      );
      const output = (response as { output?: unknown }).output;
      if (!Array.isArray(output)) throw new ProviderFailedError(`The model provider failed (${where}): its answer has no output list (not a response).`);
      const items = output as ResponsesOutputItem[];
      const calls = items.flatMap((item) => (item.type === "function_call" ? [{ id: item.call_id, name: item.name, arguments: item.arguments }] : []));
      const text = items.flatMap((item) => (item.type === "message" ? item.content.filter((c) => c.type === "output_text").map((c) => c.text) : [])).join("");
      const usage = (response as Partial<typeof response>).usage;
      return { text: text.length > 0 ? text : null, calls, usage: { inputTokens: tokens(usage?.input_tokens), outputTokens: tokens(usage?.output_tokens) } };
    },
    async answer(reply, contents) {
      if (reply.text) input.push({ role: "assistant", content: reply.text });
      for (const c of reply.calls) input.push({ type: "function_call", call_id: c.id, name: c.name, arguments: String(c.arguments) });
      const outputs = reply.calls.map((c, i): ResponsesInputItem => ({ type: "function_call_output", call_id: c.id, output: contents[i]! }));
      const sizes = await jsonSizes(outputs);
      outputs.forEach((item, i) => input.push(item, sizes[i]));
    },
  };
}

/** A streamed response, accumulated by the client into the response a plain request returns; its text goes to `onText` as it arrives. */
function streamedResponse(
  client: OpenAI,
  body: OpenAI.Responses.ResponseCreateParamsNonStreaming,
  options: RequestOptions,
  onText: (delta: string) => void,
): Promise<OpenAI.Responses.Response> {
  const stream = client.responses.stream({ ...body, stream: true }, options);
  stream.on("response.output_text.delta", ({ delta }) => onText(delta));
  return stream.finalResponse();
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

function anthropicConversation(
  client: Anthropic,
  model: string,
  maxTokens: number,
  run: ToolSearchRun,
  messages: readonly AgentMessage[],
  where: string,
  onText: TextSink,
): ApiConversation {
  const tools = run.toolsFor("anthropic");
  const system = systemText(run, messages);
  const conversation = new RequestBody(toAnthropicMessages(messages), (items) => ({
    model,
    max_tokens: maxTokens,
    messages: items,
    ...(system ? { system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
  }));
  let lastContent: AnthropicContentBlock[] = [];
  return {
    requestBytes: () => conversation.requestBytes(),
    async request(options) {
      const body = conversation.body() as unknown as Anthropic.MessageCreateParamsNonStreaming;
      const message = await ask(where, () => (onText ? streamedMessage(client, body, options, onText) : client.messages.create(body, options)), options.signal);
      const content = (message as { content?: unknown }).content;
      if (!Array.isArray(content)) throw new ProviderFailedError(`The model provider failed (${where}): its answer has no content list (not a message).`);
      lastContent = content as AnthropicContentBlock[];
      const calls = lastContent.flatMap((b) =>
        b.type === "tool_use" ? [{ id: b.id, name: b.name, arguments: (b.input ?? {}) as Record<string, unknown> }] : [],
      );
      const text = lastContent.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
      const usage = (message as Partial<typeof message>).usage;
      return { text: text.length > 0 ? text : null, calls, usage: { inputTokens: tokens(usage?.input_tokens), outputTokens: tokens(usage?.output_tokens) } };
    },
    async answer(reply, contents) {
      // The assistant message goes back as it came (text and tool_use blocks), then one user message of results.
      conversation.push({ role: "assistant", content: lastContent.filter((b) => b.type === "text" || b.type === "tool_use") });
      const blocks = reply.calls.map((c, i): AnthropicContentBlock => ({ type: "tool_result", tool_use_id: c.id, content: contents[i]! }));
      const sizes = await jsonSizes(blocks);
      // {"role":"user","content":[]} with the blocks and the commas between them inside the brackets.
      const bytes = jsonBytes({ role: "user", content: [] }) + sizes.reduce((a, b) => a + b, 0) + Math.max(0, blocks.length - 1);
      conversation.push({ role: "user", content: blocks }, bytes);
    },
  };
}

/** A streamed message, accumulated by the client into the message a plain request returns; its text goes to `onText` as it arrives. */
function streamedMessage(
  client: Anthropic,
  body: Anthropic.MessageCreateParamsNonStreaming,
  options: RequestOptions,
  onText: (delta: string) => void,
): Promise<Anthropic.Message> {
  const stream = client.messages.stream(body, options);
  stream.on("text", (delta) => onText(delta));
  return stream.finalMessage();
}
