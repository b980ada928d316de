/**
 * OpenAI Chat Completions streaming: `chat.completion.chunk` objects as `data:` lines (a role
 * chunk, content deltas, tool-call deltas by index, a chunk with the finish reason), with
 * `stream_options.include_usage` a last chunk of usage and no choices, then `data: [DONE]`.
 */
import { chatUsage, type ReplyCall, type ReplyHead, type ReplyUsage } from "./reply.js";
import { openAiError, type WireError } from "./error-body.js";
import { sseData, type ReplyStreamWriter } from "./reply-stream.js";

export class ChatStreamWriter implements ReplyStreamWriter {
  private calls = 0;

  constructor(
    private readonly head: ReplyHead,
    private readonly includeUsage: boolean,
  ) {}

  open(): string {
    return this.chunk({ role: "assistant", content: "" }, null);
  }

  text(delta: string): string {
    return this.chunk({ content: delta }, null);
  }

  toolCall(call: ReplyCall, pieces: readonly string[] = [call.arguments]): string {
    const index = this.calls;
    this.calls += 1;
    return pieces
      .map((piece, i) => {
        const delta =
          i === 0 ? { index, id: call.id, type: "function", function: { name: call.name, arguments: piece } } : { index, function: { arguments: piece } };
        return this.chunk({ tool_calls: [delta] }, null);
      })
      .join("");
  }

  close(usage: ReplyUsage): string {
    const finish = this.chunk({}, this.calls > 0 ? "tool_calls" : "stop");
    const usageChunk = this.includeUsage ? sseData({ ...this.base(), choices: [], usage: chatUsage(usage) }) : "";
    return `${finish}${usageChunk}data: [DONE]\n\n`;
  }

  fail(error: WireError): string {
    return sseData({ error: openAiError(error) });
  }

  private base(): Record<string, unknown> {
    const { id, created, model } = this.head;
    return { id, object: "chat.completion.chunk", created, model, system_fingerprint: null };
  }

  private chunk(delta: Record<string, unknown>, finish: string | null): string {
    return sseData({ ...this.base(), choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(this.includeUsage ? { usage: null } : {}) });
  }
}
