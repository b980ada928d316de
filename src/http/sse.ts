/**
 * A Server-Sent Events answer: the status and headers once, then frames as they are written.
 * What the client has not read is bounded: a client that stops reading while more than
 * `maxUnreadBytes` wait in the socket's buffer is disconnected (its `close` then ends whatever
 * was writing to it), instead of the gateway holding every frame for it. While nothing else is
 * written, a comment goes out every `keepAliveMs`, so that a proxy in front does not cut a stream
 * that waits on a slow tool call as idle.
 */
import type { ServerResponse } from "node:http";

/** Below the 60 s idle timeouts common in front of servers (nginx's proxy_read_timeout, load balancers). */
const DEFAULT_KEEP_ALIVE_MS = 15_000;

export class SseResponse {
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly maxUnreadBytes: number,
    private readonly keepAliveMs = DEFAULT_KEEP_ALIVE_MS,
  ) {}

  /** 200 and the event-stream headers, sent now: the client's SDK returns its stream on them. */
  open(headers: Record<string, string> = {}): void {
    this.res.writeHead(200, {
      ...headers,
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      // Proxies such as nginx buffer a response unless told not to; deltas must arrive as they happen.
      "x-accel-buffering": "no",
    });
    this.res.flushHeaders();
    this.res.once("close", () => this.stopKeepAlive());
    this.armKeepAlive();
  }

  /** Frames as one write; dropped once the client is gone. */
  write(frames: string): void {
    if (frames === "" || this.gone()) return;
    this.res.write(frames);
    if (this.res.writableLength > this.maxUnreadBytes) this.res.destroy();
    else this.armKeepAlive();
  }

  /** A comment line, which SSE clients skip: it says what happens meanwhile and keeps idle proxies from cutting the stream. */
  comment(text: string): void {
    this.write(`: ${text.replace(/[\r\n]+/g, " ")}\n\n`);
  }

  end(frames = ""): void {
    this.stopKeepAlive();
    if (this.gone()) return;
    this.res.end(frames);
  }

  /** The next keep-alive comment, `keepAliveMs` after the last write. */
  private armKeepAlive(): void {
    this.stopKeepAlive();
    this.keepAlive = setTimeout(() => this.comment("keep-alive"), this.keepAliveMs);
    this.keepAlive.unref();
  }

  private stopKeepAlive(): void {
    clearTimeout(this.keepAlive);
    this.keepAlive = undefined;
  }

  private gone(): boolean {
    return this.res.writableEnded || this.res.destroyed;
  }
}
