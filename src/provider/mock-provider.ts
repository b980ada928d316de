/**
 * A scripted OpenAI-compatible provider: a real HTTP server speaking Chat Completions
 * (non-streaming) whose "model" is the planner. It records the request bodies it gets;
 * `GET /debug/requests` returns them, `DELETE /debug/requests` clears them.
 *
 * The record is bounded, because `toolsearch mock-provider` may run for days and a direct-mode
 * request over a large catalog is megabytes: it keeps the last 200 requests and at most 16 MiB
 * of body bytes in all (raw bytes as received), dropping the oldest first; a single body over
 * the byte bound is not kept. Callers that need every request of a turn (demo, bench) take a
 * mark with `received()` and read `requestsSince(mark)`, which throws rather than hand back a
 * turn with its first requests silently dropped; they can raise the bounds with the options.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatRequest } from "./chat-types.js";
import { readBody, sendJson } from "../http/json-http.js";
import { plan } from "./planner.js";

export interface RecordedRequest {
  /** Byte length of the raw body as received. */
  bytes: number;
  body: ChatRequest;
}

export interface MockProvider {
  readonly url: string;
  readonly port: number;
  /** The requests still recorded, oldest first. */
  requests(): RecordedRequest[];
  /** How many chat requests it has received in all, recorded or dropped: a mark for requestsSince. */
  received(): number;
  /** The requests received after `mark`; throws RecordDroppedError when some of them were already dropped. */
  requestsSince(mark: number): RecordedRequest[];
  close(): Promise<void>;
}

export interface MockProviderOptions {
  port?: number;
  host?: string;
  /** Requests kept at most (default 200). */
  maxRecorded?: number;
  /** Recorded body bytes kept at most, all requests together (default 16 MiB). */
  maxRecordedBytes?: number;
}

/** A caller asked for requests the bounded record no longer holds. */
export class RecordDroppedError extends Error {
  constructor(mark: number, firstKept: number) {
    super(`The scripted provider no longer holds requests ${mark + 1}–${firstKept} (its record is bounded); raise maxRecorded / maxRecordedBytes or clear it more often.`);
  }
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_RECORDED = 200;
export const DEFAULT_MAX_RECORDED_BYTES = 16 * 1024 * 1024;

/** The last requests within a count and a byte bound; `dropped` counts every request no longer held. */
class RequestRecord {
  private readonly kept: RecordedRequest[] = [];
  private bytes = 0;
  private dropped = 0;

  constructor(
    private readonly maxCount: number,
    private readonly maxBytes: number,
  ) {}

  add(request: RecordedRequest): void {
    this.kept.push(request);
    this.bytes += request.bytes;
    while (this.kept.length > 0 && (this.kept.length > this.maxCount || this.bytes > this.maxBytes)) {
      this.bytes -= this.kept.shift()!.bytes;
      this.dropped += 1;
    }
  }

  clear(): void {
    this.dropped += this.kept.length;
    this.kept.length = 0;
    this.bytes = 0;
  }

  all(): RecordedRequest[] {
    return [...this.kept];
  }

  received(): number {
    return this.dropped + this.kept.length;
  }

  since(mark: number): RecordedRequest[] {
    if (mark < this.dropped) throw new RecordDroppedError(mark, this.dropped);
    return this.kept.slice(mark - this.dropped);
  }
}

export async function startMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  const recorded = new RequestRecord(options.maxRecorded ?? DEFAULT_MAX_RECORDED, options.maxRecordedBytes ?? DEFAULT_MAX_RECORDED_BYTES);
  let counter = 0;
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendJson(res, 500, { error: { message: String(error) } }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method === "GET" && url.pathname === "/healthz") return sendJson(res, 200, { ok: true });
    if (url.pathname === "/debug/requests") {
      if (req.method === "DELETE") recorded.clear();
      return sendJson(res, 200, { requests: recorded.all() });
    }
    if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) return sendJson(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
    const raw = await readBody(req, MAX_BODY_BYTES);
    let body: ChatRequest;
    try {
      body = JSON.parse(raw.toString("utf8")) as ChatRequest;
    } catch {
      return sendJson(res, 400, { error: { message: "request body is not JSON" } });
    }
    recorded.add({ bytes: raw.length, body });
    counter += 1;
    const next = plan(body);
    const message =
      "answer" in next
        ? { role: "assistant", content: next.answer }
        : {
            role: "assistant",
            content: null,
            tool_calls: [{ id: `call_${counter}`, type: "function", function: { name: next.toolCall.name, arguments: JSON.stringify(next.toolCall.arguments) } }],
          };
    sendJson(res, 200, {
      id: `chatcmpl-${counter}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? "scripted",
      choices: [{ index: 0, message, finish_reason: "answer" in next ? "stop" : "tool_calls" }],
      usage: { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: 20, total_tokens: Math.ceil(raw.length / 4) + 20 },
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}/v1`,
    port,
    requests: () => recorded.all(),
    received: () => recorded.received(),
    requestsSince: (mark) => recorded.since(mark),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
