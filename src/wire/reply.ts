/**
 * A model's reply (its text, its function calls, the tokens it cost) written as each API's
 * answer: an OpenAI chat completion, an OpenAI response, an Anthropic message. The scripted
 * provider writes its plans with these and the gateway's compatible routes write their turns'
 * replies with them, so both answer in one shape per API; reply-stream.ts writes the same
 * replies as Server-Sent Events.
 */
import type { AnthropicResponse, ResponsesOutputItem, ResponsesResponse } from "./wire-types.js";

export interface ReplyCall {
  /** The call id the client sends back with the result (`tool_call_id`, `call_id`, `tool_use_id`). */
  id: string;
  name: string;
  /** A JSON object's text. */
  arguments: string;
}

export interface ReplyUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ReplyHead {
  /** The answer's id: `chatcmpl-…`, `resp_…` or `msg_…` as the API has them. */
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
}

export interface Reply extends ReplyHead {
  text: string | null;
  calls: readonly ReplyCall[];
  usage: ReplyUsage;
}

export function chatCompletionOf(reply: Reply): Record<string, unknown> {
  const calls = reply.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
  return {
    id: reply.id,
    object: "chat.completion",
    created: reply.created,
    model: reply.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: reply.text, refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
        logprobs: null,
        finish_reason: reply.calls.length > 0 ? "tool_calls" : "stop",
      },
    ],
    usage: chatUsage(reply.usage),
  };
}

export function chatUsage(usage: ReplyUsage): Record<string, number> {
  return { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };
}

/** The output items of a Responses answer: the message (when there is text), then the calls. */
function responsesOutputOf(reply: Pick<Reply, "id" | "text" | "calls">): ResponsesOutputItem[] {
  const message: ResponsesOutputItem[] =
    reply.text === null
      ? []
      : [
          {
            type: "message",
            id: messageItemId(reply.id, 0),
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: reply.text, annotations: [] }],
          },
        ];
  return [...message, ...reply.calls.map((c) => functionCallItem(c, "completed"))];
}

export function messageItemId(responseId: string, index: number): string {
  return `msg_${responseId.replace(/^resp_/, "")}_${index}`;
}

export function functionCallItem(call: ReplyCall, status: "in_progress" | "completed"): Extract<ResponsesOutputItem, { type: "function_call" }> {
  return { type: "function_call", id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: status === "completed" ? call.arguments : "", status };
}

export function responsesUsage(usage: ReplyUsage): NonNullable<ResponsesResponse["usage"]> {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
}

export function responseOf(reply: Reply): ResponsesResponse {
  return {
    id: reply.id,
    object: "response",
    created_at: reply.created,
    model: reply.model,
    status: "completed",
    error: null,
    incomplete_details: null,
    output: responsesOutputOf(reply),
    usage: responsesUsage(reply.usage),
  };
}

export function anthropicMessageOf(reply: Reply): AnthropicResponse {
  return {
    id: reply.id,
    type: "message",
    role: "assistant",
    model: reply.model,
    content: [
      ...(reply.text !== null && reply.text !== "" ? [{ type: "text" as const, text: reply.text }] : []),
      ...reply.calls.map((c) => ({ type: "tool_use" as const, id: c.id, name: c.name, input: parseObject(c.arguments) })),
    ],
    stop_reason: reply.calls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: reply.usage.inputTokens, output_tokens: reply.usage.outputTokens },
  };
}

/** A call's arguments as Anthropic's `input` object: text that is not a JSON object is `{}`. */
function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
