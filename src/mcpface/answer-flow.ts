/**
 * The budgets of one `toolsearch mcp` session on the way out: how many of its requests are
 * answered at once, how many answer bytes its client may leave unread, and what a hang-up does.
 *
 * - In flight: at most `mcp.maxInFlightPerSession` tools/list and tools/call are answered at
 *   once; each further one (a batch counts each message) gets TOO_MANY_REQUESTS at once.
 * - Unread: the SDK's Streamable HTTP transport queues every answer of a POST in a web stream
 *   that @hono/node-server copies to the socket only as the client reads, so a client that does
 *   not read makes that queue grow without end (answers of a 1 MiB tool, 100 to a batch). Each
 *   answer is counted as it is handed to the transport; what the socket has taken is subtracted
 *   (`socket.bytesWritten`) and what the socket still holds added (`writableLength`): that is
 *   what this process holds for the client. While a session holds half of `mcp.maxUnreadBytes`,
 *   its next POST waits before its body is read (paused); an answer that finds more than
 *   `mcp.maxUnreadBytes` still unread on its connection resets that connection (which also
 *   frees the kernel's buffers) instead of joining the queue. One answer always goes out,
 *   whatever its size, so a connection holds at most the cap plus one answer. stdio does the
 *   same with stdout: stdin is paused, then the session ends with CLIENT_NOT_READING.
 * - Hang-up: a POST's connection that closes before its answers are written cancels the requests
 *   it carried, through the path `notifications/cancelled` takes (their AbortSignals fire, so
 *   tool calls and code bodies, queued or running, stop at once).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  McpError,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/** What the SDK writes around each message on an SSE stream: "event: message\ndata: " and "\n\n". */
const SSE_FRAME_BYTES = 23;
/** The JSON-RPC error code of a refusal at the door (the gateway's own errors use it too). */
export const REFUSED = -32_000;

/** Requests one session is answering now, capped; and when it last did anything. */
export class RequestBudget {
  private running = 0;
  private used = Date.now();

  constructor(private readonly maxInFlight: number) {}

  inFlight(): number {
    return this.running;
  }

  lastUsed(): number {
    return this.used;
  }

  /** No slot is free: a POST carrying requests is refused whole (429). */
  full(): boolean {
    return this.running >= this.maxInFlight;
  }

  touch(): void {
    this.used = Date.now();
  }

  /** Runs one request's work in a slot; none free is TOO_MANY_REQUESTS as that request's JSON-RPC error. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.maxInFlight) throw tooManyRequests(this.maxInFlight);
    this.running += 1;
    this.used = Date.now();
    try {
      return await work();
    } finally {
      this.running -= 1;
      this.used = Date.now();
    }
  }
}

export function tooManyRequestsMessage(max: number): string {
  return `This session already has ${max} requests in flight (mcp.maxInFlightPerSession); wait for an answer, then send more.`;
}

function tooManyRequests(max: number): McpError {
  return new McpError(REFUSED, tooManyRequestsMessage(max), { code: "TOO_MANY_REQUESTS" });
}

/** The ids of the JSON-RPC requests in a POST body (one message or a batch). */
export function requestIds(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter((message) => isJSONRPCRequest(message)).map((message) => (message as { id: RequestId }).id);
}

/** One response being written to its connection: a POST's answers, or the GET stream of notifications. */
class PendingResponse {
  private produced = 0;
  private readonly baseline: number;
  dropped = false;

  constructor(
    readonly socket: Socket,
    /** The requests it carries that have no answer yet. */
    readonly unanswered: Set<RequestId>,
  ) {
    this.baseline = socket.bytesWritten;
  }

  add(bytes: number): void {
    this.produced += bytes;
  }

  /** Bytes this process holds for the client: not yet handed to the socket, plus what the socket still buffers. */
  unread(): number {
    const handed = this.socket.bytesWritten - this.baseline;
    return Math.max(0, this.produced - handed) + this.socket.writableLength;
  }
}

/** Says why a connection was dropped (the operator's log). */
export type DropReport = (unread: number, socket: Socket) => void;

/** The answers of one HTTP session on their way to the client. */
export class HttpAnswerFlow {
  private readonly byId = new Map<RequestId, PendingResponse>();
  private readonly open = new Set<PendingResponse>();
  private standalone: PendingResponse | undefined;
  private readonly waiters = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly maxUnreadBytes: number,
    private readonly report: DropReport,
  ) {}

  /** Counts every message the session's transport writes, before it is queued. */
  attach(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options?: TransportSendOptions) => {
      this.produced(message, options?.relatedRequestId);
      return send(message, options);
    };
  }

  /**
   * Follows the response `res` to a POST carrying the requests `ids`: if its connection closes
   * before they are all answered, `cancel` gets the rest.
   */
  trackPost(req: IncomingMessage, res: ServerResponse, ids: readonly RequestId[], cancel: (ids: RequestId[]) => void): void {
    const pending = new PendingResponse(req.socket, new Set(ids));
    for (const id of ids) this.byId.set(id, pending);
    this.follow(pending, req, res, cancel);
  }

  /** Follows the GET stream, where notifications that answer no request go (the first one open; the SDK refuses a second). */
  trackStream(req: IncomingMessage, res: ServerResponse): void {
    const pending = new PendingResponse(req.socket, new Set());
    this.standalone ??= pending;
    this.follow(pending, req, res, () => {});
  }

  private follow(pending: PendingResponse, req: IncomingMessage, res: ServerResponse, cancel: (ids: RequestId[]) => void): void {
    this.open.add(pending);
    const wake = () => this.wake();
    req.socket.on("drain", wake);
    res.once("close", () => {
      req.socket.off("drain", wake);
      this.open.delete(pending);
      for (const id of pending.unanswered) if (this.byId.get(id) === pending) this.byId.delete(id);
      if (this.standalone === pending) this.standalone = undefined;
      if (pending.unanswered.size > 0) cancel([...pending.unanswered]);
      this.wake();
    });
  }

  /** Bytes of this session's answers its client has not read, over all its connections. */
  unread(): number {
    let total = 0;
    for (const pending of this.open) total += pending.unread();
    return total;
  }

  /**
   * Paused: resolves once the session holds less than half of `maxUnreadBytes` unread, the
   * request closes, or the session ends. `onPause` hears it once if the request has to wait.
   */
  async whenDrained(req: IncomingMessage, onPause?: (unread: number) => void): Promise<void> {
    let told = false;
    while (!this.closed && !req.destroyed) {
      const unread = this.unread();
      if (unread < this.maxUnreadBytes / 2) return;
      if (!told) onPause?.(unread);
      told = true;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.waiters.delete(done);
          req.off("close", done);
          resolve();
        };
        this.waiters.add(done);
        req.once("close", done);
      });
    }
  }

  /** The session ended: connections still holding unread answers are dropped (nothing will read them), waiters let go. */
  close(): void {
    this.closed = true;
    for (const pending of this.open) if (pending.unread() > 0) this.drop(pending, pending.unread());
    this.wake();
  }

  private produced(message: JSONRPCMessage, related: RequestId | undefined): void {
    const answer = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const id = answer ? message.id : related;
    const pending = id === undefined ? this.standalone : this.byId.get(id);
    if (!pending) return;
    if (answer && id !== undefined) {
      pending.unanswered.delete(id);
      this.byId.delete(id);
    }
    // Measured before this message is queued: one answer always goes out, whatever its size;
    // a client that still holds more than the cap unread when the next one is ready is not reading.
    const unread = pending.unread();
    if (unread > this.maxUnreadBytes) this.drop(pending, unread);
    else pending.add(Buffer.byteLength(JSON.stringify(message)) + SSE_FRAME_BYTES);
  }

  /** Resets the connection: the client's queue and the kernel's buffers are freed; its requests are cancelled by the close. */
  private drop(pending: PendingResponse, unread: number): void {
    if (pending.dropped) return;
    pending.dropped = true;
    this.report(unread, pending.socket);
    if (typeof pending.socket.resetAndDestroy === "function") pending.socket.resetAndDestroy();
    else pending.socket.destroy();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/**
 * stdio: at half of `maxUnreadBytes` unread on stdout, stdin is paused (no new request is read)
 * until stdout drains; a message that finds more than `maxUnreadBytes` unread is not written and
 * `onOverflow` runs (once; nothing is written after it). Returns the undo.
 */
export function guardStdioOutput(
  transport: Transport,
  stdin: Readable,
  stdout: Writable,
  maxUnreadBytes: number,
  onOverflow: (unread: number) => void,
): () => void {
  const send = transport.send.bind(transport);
  let paused = false;
  let over = false;
  const resume = () => {
    if (!paused || over) return;
    paused = false;
    stdin.resume();
  };
  stdout.on("drain", resume);
  transport.send = (message: JSONRPCMessage, options?: TransportSendOptions) => {
    // As over HTTP, measured before this message: one answer always goes out, whatever its size.
    const unread = stdout.writableLength;
    if (over || unread > maxUnreadBytes) {
      if (!over) {
        over = true;
        onOverflow(unread);
      }
      return Promise.resolve();
    }
    // The transport writes synchronously and resolves on drain: writableLength counts this message now.
    const sent = send(message, options);
    if (!paused && stdout.writableLength >= maxUnreadBytes / 2) {
      paused = true;
      stdin.pause();
    }
    return sent;
  };
  return () => {
    over = true;
    stdout.off("drain", resume);
  };
}
