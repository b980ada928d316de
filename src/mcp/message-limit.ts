/**
 * `maxMessageBytes`, enforced where the bytes arrive, before anything is parsed.
 *
 * The SDK buffers a whole message before parsing it (stdio: a line, however long; HTTP: a JSON
 * body or an SSE event), then parses and validates it while every other session of the shared
 * parent waits. Here a message over the limit is counted, not kept: its bytes are dropped as they
 * arrive, and the request it answers is failed at once by handing the client a JSON-RPC error in
 * its place (`tooLargeAnswer`), so the caller hears "over the limit" now rather than a timeout.
 *
 * - stdio: `BoundedLineBuffer` is the reader of the stdio transport (stdio-transport.ts), in the
 *   place of the SDK's `ReadBuffer`. An oversized line is attributed to a request by its
 *   top-level `"id"`, read from the first and last bytes of the line (the SDK writes `{"result":…,"jsonrpc":"2.0","id":7}`,
 *   other servers put the id first). A line that cannot be attributed (a notification, a server
 *   request, an id in the middle) is dropped and reported to `onerror`.
 * - Streamable HTTP: `boundedMcpFetch` wraps the fetch the SDK's transport uses. The request ids
 *   come from the POST body it sent; a JSON body is counted whole (and refused at once by its
 *   `content-length`), an SSE stream per event.
 */
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { McpError, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { ToolFailedError } from "../errors.js";

/** The JSON-RPC error code of the answer put in place of a dropped one (implementation-defined range). */
const MESSAGE_TOO_LARGE_CODE = -32_060;
const MARK = "toolsearch.messageTooLarge";
/** How much of each end of an oversized line is kept to find its id. */
const SAMPLE_BYTES = 512;

/**
 * Given to the transport's `onerror` (and thrown by the fetch) when a message over the limit was dropped.
 * TOOL_FAILED: what a call whose answer was over the limit fails with (mcp-server-source.ts callFailure).
 */
export class MessageTooLargeError extends ToolFailedError {
  constructor(
    readonly limit: number,
    what = "a message",
  ) {
    super(`the server sent ${what} larger than maxMessageBytes (${limit} bytes); it was dropped unread`);
  }
}

/** What the client receives instead of an answer over the limit: the request fails with this error. */
export function tooLargeAnswer(id: RequestId, limit: number): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    id,
    error: { code: MESSAGE_TOO_LARGE_CODE, message: new MessageTooLargeError(limit, "an answer").message, data: { reason: MARK, limit } },
  };
}

/** The limit an error reports, when it is a message over `maxMessageBytes`; else undefined. */
export function messageLimitOf(error: unknown): number | undefined {
  if (error instanceof MessageTooLargeError) return error.limit;
  if (!(error instanceof McpError) || error.code !== MESSAGE_TOO_LARGE_CODE) return undefined;
  const data: unknown = error.data;
  if (typeof data !== "object" || data === null) return undefined;
  const { reason, limit } = data as { reason?: unknown; limit?: unknown };
  return reason === MARK && typeof limit === "number" ? limit : undefined;
}

// ── stdio ──────────────────────────────────────────────────────────────────────────────────

interface DroppedLine {
  head: Buffer;
  tail: Buffer;
}

/**
 * Newline-delimited JSON-RPC, like the SDK's `ReadBuffer` (same three methods), with two
 * differences: a line is kept as a list of chunks joined once (the SDK concatenates the whole
 * buffer on every chunk, quadratic in a long line's length), and a line past `limit` bytes is
 * dropped as it arrives, keeping only its two ends to find its id.
 */
export class BoundedLineBuffer {
  private parts: Buffer[] = [];
  private size = 0;
  private dropping: DroppedLine | undefined;
  private readonly lines: Array<Buffer | DroppedLine> = [];

  constructor(private readonly limit: number) {}

  append(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      this.take(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  /** The next message; a dropped answer becomes `tooLargeAnswer`; throws for a line it cannot use (the transport reports it). */
  readMessage(): JSONRPCMessage | null {
    const line = this.lines.shift();
    if (line === undefined) return null;
    if (Buffer.isBuffer(line)) return deserializeMessage(line.toString("utf8").replace(/\r$/, ""));
    const id = answeredId(line.head.toString("utf8"), line.tail.toString("utf8"));
    if (id === undefined) throw new MessageTooLargeError(this.limit, "a message that answers no request it could name");
    return tooLargeAnswer(id, this.limit);
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.dropping = undefined;
    this.lines.length = 0;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.dropping) {
      this.dropping.tail = lastBytes([this.dropping.tail, piece]);
      return;
    }
    if (this.size + piece.length <= this.limit) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    const parts = [...this.parts, piece];
    // Buffer.concat with a length copies only that much: the head, not the megabytes before the cap.
    this.dropping = { head: Buffer.concat(parts, Math.min(SAMPLE_BYTES, this.size + piece.length)), tail: lastBytes(parts) };
    this.parts = [];
    this.size = 0;
  }

  private endLine(): void {
    if (this.dropping) {
      this.lines.push(this.dropping);
      this.dropping = undefined;
      return;
    }
    this.lines.push(this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size));
    this.parts = [];
    this.size = 0;
  }
}

/** The last SAMPLE_BYTES of the parts, copied (so the big chunk they came from can be freed). */
function lastBytes(parts: readonly Buffer[]): Buffer {
  const picked: Buffer[] = [];
  let bytes = 0;
  for (let i = parts.length - 1; i >= 0 && bytes < SAMPLE_BYTES; i -= 1) {
    picked.unshift(parts[i]!);
    bytes += parts[i]!.length;
  }
  const joined = Buffer.concat(picked);
  return Buffer.from(joined.subarray(Math.max(0, joined.length - SAMPLE_BYTES)));
}

const PRIMITIVE = String.raw`(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)`;
const PAIR = String.raw`"((?:[^"\\]|\\.)*)"\s*:\s*(${PRIMITIVE})`;
/** `{"jsonrpc":"2.0","id":7,` at the start of a line. */
const LEADING = new RegExp(String.raw`^\s*\{\s*((?:"(?:[^"\\]|\\.)*"\s*:\s*${PRIMITIVE}\s*,\s*)+)`);
/** `,"jsonrpc":"2.0","id":7}` at its end. */
const TRAILING = new RegExp(String.raw`((?:,\s*"(?:[^"\\]|\\.)*"\s*:\s*${PRIMITIVE}\s*)+)\}\s*$`);

/**
 * The id of the response a line holds, read from the top-level key/value pairs before the first
 * and after the last structured value; undefined for a request or notification (it has a
 * `method`) or when the id is not among those pairs. JSON syntax keeps a match from starting
 * inside a string: there a quote is always escaped.
 */
export function answeredId(head: string, tail: string): RequestId | undefined {
  const pairs = new Map<string, string>();
  for (const run of [LEADING.exec(head)?.[1], TRAILING.exec(tail)?.[1]]) {
    for (const match of (run ?? "").matchAll(new RegExp(PAIR, "g"))) pairs.set(match[1]!, match[2]!);
  }
  const id = pairs.get("id");
  if (id === undefined || pairs.has("method")) return undefined;
  const value: unknown = JSON.parse(id);
  return typeof value === "string" || (typeof value === "number" && Number.isInteger(value)) ? value : undefined;
}

// ── Streamable HTTP ────────────────────────────────────────────────────────────────────────

/**
 * A fetch for StreamableHTTPClientTransport that stops reading a response past `limit`: it
 * calls `dropped` with the ids of the requests that POST carried (their answers will not come)
 * and errors the body, which cancels the download.
 */
export function boundedMcpFetch(limit: number, dropped: (ids: RequestId[]) => void, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    // Redirects are read by the SDK (Location, response.url) and carry nothing worth counting.
    if (response.body === null || (response.status >= 300 && response.status < 400)) return response;
    const over = (): void => dropped(requestIds(init?.body));
    const isSse = (response.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (!isSse && !response.headers.has("content-encoding") && declared > limit) {
      await response.body.cancel().catch(() => {});
      over();
      throw new MessageTooLargeError(limit, "an answer");
    }
    const counted = response.body.pipeThrough(isSse ? sseEventLimit(limit, over) : bodyLimit(limit, over));
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function bodyLimit(limit: number, over: () => void): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0;
  return new TransformStream({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      if (bytes <= limit) return controller.enqueue(chunk);
      over();
      controller.error(new MessageTooLargeError(limit, "an answer"));
    },
  });
}

/**
 * Counts the bytes of each SSE event (an event ends at a blank line), so a long stream of small
 * events (progress, then the answer) is fine and one huge event is not, however many `data:`
 * lines it is split into.
 */
function sseEventLimit(limit: number, over: () => void): TransformStream<Uint8Array, Uint8Array> {
  let eventBytes = 0;
  let lineEmpty = true;
  return new TransformStream({
    transform(chunk, controller) {
      for (let pos = 0; pos < chunk.length;) {
        const newline = chunk.indexOf(0x0a, pos);
        const end = newline === -1 ? chunk.length : newline;
        if (end > pos && !(end - pos === 1 && chunk[pos] === 0x0d)) lineEmpty = false;
        eventBytes += end - pos;
        if (eventBytes > limit) {
          over();
          controller.error(new MessageTooLargeError(limit, "an event"));
          return;
        }
        if (newline === -1) break;
        if (lineEmpty) eventBytes = 0;
        lineEmpty = true;
        pos = newline + 1;
      }
      controller.enqueue(chunk);
    },
  });
}

/** The ids of the requests in a POST body the SDK sent (a JSON-RPC message or a batch). */
function requestIds(body: unknown): RequestId[] {
  if (typeof body !== "string") return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((message: unknown) => {
      if (typeof message !== "object" || message === null || !("method" in message) || !("id" in message)) return [];
      const { id } = message as { id: unknown };
      return typeof id === "string" || typeof id === "number" ? [id] : [];
    });
  } catch {
    return [];
  }
}
