/**
 * A reply written as it happens, as Server-Sent Events in one API's streaming format: the frames
 * that open it, text deltas as they arrive, function calls, and the frames that close it (or an
 * error in the API's stream shape). One writer per reply; each method returns the frames to send.
 * chat-stream.ts, responses-stream.ts and anthropic-stream.ts are the three formats.
 */
import type { ReplyCall, ReplyUsage } from "./reply.js";
import type { WireError } from "./error-body.js";

export interface ReplyStreamWriter {
  /** The frames that open the reply, sent before any text. */
  open(): string;
  text(delta: string): string;
  /** One function call, its arguments in `pieces` (default: whole, in one delta). */
  toolCall(call: ReplyCall, pieces?: readonly string[]): string;
  /** The frames that end a complete reply. */
  close(usage: ReplyUsage): string;
  /** An error after the reply was opened, in the API's stream shape; nothing follows it. */
  fail(error: WireError): string;
}

/** `data: <json>` — JSON text has no raw line breaks, so one line always holds it. */
export function sseData(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\n${sseData(data)}`;
}
