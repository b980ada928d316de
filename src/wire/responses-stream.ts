/**
 * OpenAI Responses streaming: typed events, each with its `sequence_number`. `response.created`
 * and `response.in_progress`; for text, a message item added, its output_text part added, text
 * deltas, then the text, part and item done; for each call, a function_call item added, its
 * argument deltas, arguments done, item done; then `response.completed` with the whole
 * response. A failure is an `error` event and `response.failed`.
 */
import { functionCallItem, messageItemId, responsesUsage, type ReplyCall, type ReplyHead, type ReplyUsage } from "./reply.js";
import type { WireError } from "./error-body.js";
import { sseEvent, type ReplyStreamWriter } from "./reply-stream.js";
import type { ResponsesOutputItem, ResponsesResponse } from "./wire-types.js";

export class ResponsesStreamWriter implements ReplyStreamWriter {
  private sequence = 0;
  private readonly output: ResponsesOutputItem[] = [];
  /** The message item text goes into, while one is open. */
  private message: { index: number; id: string; text: string } | undefined;

  constructor(private readonly head: ReplyHead) {}

  open(): string {
    return (
      this.event("response.created", { response: this.response("in_progress") }) +
      this.event("response.in_progress", { response: this.response("in_progress") })
    );
  }

  text(delta: string): string {
    let frames = "";
    if (!this.message) {
      const index = this.output.length;
      const id = messageItemId(this.head.id, index);
      this.message = { index, id, text: "" };
      const item: ResponsesOutputItem = { type: "message", id, role: "assistant", status: "in_progress", content: [] };
      this.output.push(item);
      frames += this.event("response.output_item.added", { output_index: index, item });
      frames += this.event("response.content_part.added", { item_id: id, output_index: index, content_index: 0, part: outputText("") });
    }
    this.message.text += delta;
    const { index, id } = this.message;
    return frames + this.event("response.output_text.delta", { item_id: id, output_index: index, content_index: 0, delta, logprobs: [] });
  }

  toolCall(call: ReplyCall, pieces: readonly string[] = [call.arguments]): string {
    let frames = this.closeMessage();
    const index = this.output.length;
    const added = functionCallItem(call, "in_progress");
    this.output.push(added);
    frames += this.event("response.output_item.added", { output_index: index, item: added });
    for (const piece of pieces) frames += this.event("response.function_call_arguments.delta", { item_id: added.id, output_index: index, delta: piece });
    frames += this.event("response.function_call_arguments.done", { item_id: added.id, output_index: index, name: call.name, arguments: call.arguments });
    const done = functionCallItem(call, "completed");
    this.output[index] = done;
    return frames + this.event("response.output_item.done", { output_index: index, item: done });
  }

  close(usage: ReplyUsage): string {
    return this.closeMessage() + this.event("response.completed", { response: { ...this.response("completed"), usage: responsesUsage(usage) } });
  }

  fail(error: WireError): string {
    return (
      this.event("error", { code: error.code, message: error.message, param: null }) +
      this.event("response.failed", { response: { ...this.response("failed"), error: { code: error.code, message: error.message } } })
    );
  }

  private closeMessage(): string {
    const message = this.message;
    if (!message) return "";
    this.message = undefined;
    const { index, id, text } = message;
    const part = outputText(text);
    const item: ResponsesOutputItem = { type: "message", id, role: "assistant", status: "completed", content: [part] };
    this.output[index] = item;
    return (
      this.event("response.output_text.done", { item_id: id, output_index: index, content_index: 0, text, logprobs: [] }) +
      this.event("response.content_part.done", { item_id: id, output_index: index, content_index: 0, part }) +
      this.event("response.output_item.done", { output_index: index, item })
    );
  }

  private response(status: ResponsesResponse["status"]): ResponsesResponse {
    const { id, created, model } = this.head;
    return { id, object: "response", created_at: created, model, status, error: null, incomplete_details: null, output: [...this.output], usage: null };
  }

  private event(type: string, body: Record<string, unknown>): string {
    const frame = sseEvent(type, { type, sequence_number: this.sequence, ...body });
    this.sequence += 1;
    return frame;
  }
}

function outputText(text: string): { type: "output_text"; text: string; annotations: unknown[] } {
  return { type: "output_text", text, annotations: [] };
}
