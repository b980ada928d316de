/**
 * One session of `toolsearch mcp` over stdio, the client that started the process. stdin is cut
 * into lines of at most `gateway.maxBodyBytes` (stdio-lines.ts) before the SDK's transport reads
 * it: a longer line is answered BODY_TOO_LARGE and the next one served; a line the SDK cannot
 * read is answered too (protocol-errors.ts). stdout is watched (answer-flow.ts): a client that
 * leaves `mcp.maxUnreadBytes` unread has stdin paused, then is disconnected.
 */
import type { Readable, Writable } from "node:stream";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { ClientNotReadingError, type ErrorCode } from "../errors.js";
import { guardStdioOutput, REFUSED } from "./answer-flow.js";
import { refuseInvalidParams, unreadableLineAnswer } from "./protocol-errors.js";
import { LineLimit, type SkippedLine } from "./stdio-lines.js";

export interface StdioLimits {
  /** `gateway.maxBodyBytes`: the longest line read. */
  maxBodyBytes: number;
  /** `mcp.maxUnreadBytes`: answers the client may leave unread on stdout. */
  maxUnreadBytes: number;
}

export class StdioServing {
  readonly #lines: LineLimit;
  readonly #transport: StdioServerTransport;
  /** Set when the client left too much unread: the session ends with it instead of resolving. */
  #overflow: ClientNotReadingError | undefined;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly limits: StdioLimits,
  ) {
    // Whole lines of at most `max` bytes reach the SDK, one per chunk: its ReadBuffer never holds more than one.
    this.#lines = new LineLimit(limits.maxBodyBytes, (skipped) => this.#answer(tooLargeAnswer(skipped, limits.maxBodyBytes)));
    this.#transport = new StdioServerTransport(this.#lines, stdout, { maxBufferSize: Number.MAX_SAFE_INTEGER });
  }

  /**
   * Answers with `server` until the client goes away (stdin ends) or the transport fails; rejects
   * with ClientNotReadingError when the client left more than `mcp.maxUnreadBytes` unread.
   */
  async serve(server: Server): Promise<void> {
    this.stdin.pipe(this.#lines);
    const done = this.#ended();
    this.#transport.onerror = (error) => this.#onError(error);
    const unguard = guardStdioOutput(this.#transport, this.#lines, this.stdout, this.limits.maxUnreadBytes, (unread) => this.#notReading(unread));
    try {
      await server.connect(this.#transport);
      refuseInvalidParams(this.#transport);
      await done;
    } finally {
      unguard();
      this.stdin.unpipe(this.#lines);
      this.#lines.destroy();
    }
  }

  /** Settles when the transport closes: on EOF, a closed stdin, a failed stdout, or a client not reading. */
  #ended(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      // Closing the transport aborts every request in flight (the SDK's own close path), so EOF cancels them all.
      this.#transport.onclose = () => (this.#overflow ? reject(this.#overflow) : resolve());
      const end = () => void this.#transport.close();
      this.stdin.once("end", end);
      this.stdin.once("close", end);
      this.stdout.once("error", end);
    });
  }

  #onError(error: Error): void {
    const answer = unreadableLineAnswer(error);
    if (answer === undefined) return console.error(`toolsearch mcp: ${error.message.replace(/\s+/g, " ").slice(0, 500)}`);
    // The client hears of its bad line (it would otherwise wait for an answer); the operator gets one short line.
    console.error(`toolsearch mcp: ${answer.error.message} (answered ${answer.error.code}, id null)`);
    this.#answer(answer);
  }

  #notReading(unread: number): void {
    const max = this.limits.maxUnreadBytes;
    this.#overflow = new ClientNotReadingError(
      `the client has left ${unread} bytes of answers unread on stdout, past mcp.maxUnreadBytes (${max}); disconnecting it`,
    );
    void this.#transport.close();
  }

  #answer(message: JSONRPCMessage): void {
    void this.#transport.send(message).catch(() => {});
  }
}

/** The answer to a stdio line past the bound: BODY_TOO_LARGE, as `mcp --http` answers a body past it. */
function tooLargeAnswer(skipped: SkippedLine, max: number): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    id: skipped.id as RequestId,
    error: {
      code: REFUSED,
      message: `A message of ${skipped.bytes} bytes is over the ${max}-byte limit (gateway.maxBodyBytes); it was not read. Send smaller messages.`,
      data: { code: "BODY_TOO_LARGE" satisfies ErrorCode },
    },
  };
}
