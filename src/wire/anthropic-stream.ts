/**
 * Anthropic Messages streaming: `message_start` (the message, no content yet), for each content
 * block `content_block_start`, its deltas (`text_delta`, or `input_json_delta` for a tool_use's
 * input) and `content_block_stop`, then `message_delta` (stop reason, usage) and
 * `message_stop`. A failure is an `error` event.
 */
import type { ReplyCall, ReplyHead, ReplyUsage } from "./reply.js";
import { anthropicErrorBody, type WireError } from "./error-body.js";
import { sseEvent, type ReplyStreamWriter } from "./reply-stream.js";

export class AnthropicStreamWriter implements ReplyStreamWriter {
  /** The index of the last block started; -1 before the first. */
  private block = -1;
  private textOpen = false;
  private calls = 0;

  constructor(private readonly head: ReplyHead) {}

  open(): string {
    const { id, model } = this.head;
    const message = {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    return this.event("message_start", { message });
  }

  text(delta: string): string {
    let frames = "";
    if (!this.textOpen) {
      this.block += 1;
      this.textOpen = true;
      frames += this.event("content_block_start", { index: this.block, content_block: { type: "text", text: "" } });
    }
    return frames + this.event("content_block_delta", { index: this.block, delta: { type: "text_delta", text: delta } });
  }

  toolCall(call: ReplyCall, pieces: readonly string[] = [call.arguments]): string {
    let frames = this.closeText();
    this.block += 1;
    this.calls += 1;
    const index = this.block;
    frames += this.event("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } });
    for (const piece of pieces) {
      if (piece !== "") frames += this.event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } });
    }
    return frames + this.event("content_block_stop", { index });
  }

  close(usage: ReplyUsage): string {
    const stop = this.calls > 0 ? "tool_use" : "end_turn";
    return (
      this.closeText() +
      this.event("message_delta", {
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
      }) +
      this.event("message_stop", {})
    );
  }

  fail(error: WireError): string {
    return sseEvent("error", anthropicErrorBody(error));
  }

  private closeText(): string {
    if (!this.textOpen) return "";
    this.textOpen = false;
    return this.event("content_block_stop", { index: this.block });
  }

  private event(type: string, body: Record<string, unknown>): string {
    return sseEvent(type, { type, ...body });
  }
}
