/**
 * The scripted provider's answers: a plan written as the reply each API answers with, whole or
 * streamed (src/wire writes both). A streamed answer's text goes out a word at a time and a
 * call's arguments in two pieces, so that clients accumulate deltas as they would a model's.
 */
import type { Plan } from "./planner.js";
import type { ProviderApi } from "../wire/wire-types.js";
import { anthropicMessageOf, chatCompletionOf, responseOf, type Reply, type ReplyUsage } from "../wire/reply.js";
import type { ReplyStreamWriter } from "../wire/reply-stream.js";
import { ChatStreamWriter } from "../wire/chat-stream.js";
import { ResponsesStreamWriter } from "../wire/responses-stream.js";
import { AnthropicStreamWriter } from "../wire/anthropic-stream.js";

/** The reply a plan is, with the ids each API gives its answers and calls. */
export function replyOf(api: ProviderApi, next: Plan, n: number, model: string, usage: ReplyUsage): Reply {
  const ids = { chat: [`chatcmpl-${n}`, `call_${n}`], responses: [`resp_${n}`, `call_${n}`], anthropic: [`msg_${n}`, `toolu_${n}`] }[api];
  const head = { id: ids[0]!, model, created: Math.floor(Date.now() / 1000), usage };
  if ("answer" in next) return { ...head, text: next.answer, calls: [] };
  return { ...head, text: null, calls: [{ id: ids[1]!, name: next.toolCall.name, arguments: JSON.stringify(next.toolCall.arguments) }] };
}

export function wholeReply(api: ProviderApi, reply: Reply): unknown {
  if (api === "chat") return chatCompletionOf(reply);
  return api === "responses" ? responseOf(reply) : anthropicMessageOf(reply);
}

export function streamWriter(api: ProviderApi, reply: Reply, includeUsage: boolean): ReplyStreamWriter {
  if (api === "chat") return new ChatStreamWriter(reply, includeUsage);
  return api === "responses" ? new ResponsesStreamWriter(reply) : new AnthropicStreamWriter(reply);
}

/** The reply as the frames a streamed answer sends, in order: one item per write. */
export function streamedFrames(writer: ReplyStreamWriter, reply: Reply): string[] {
  const frames = [writer.open()];
  if (reply.text !== null) for (const word of reply.text.match(/\S+\s*|\s+/g) ?? []) frames.push(writer.text(word));
  for (const call of reply.calls) frames.push(writer.toolCall(call, halves(call.arguments)));
  frames.push(writer.close(reply.usage));
  return frames;
}

function halves(text: string): string[] {
  const middle = Math.ceil(text.length / 2);
  return text.length < 2 ? [text] : [text.slice(0, middle), text.slice(middle)];
}
