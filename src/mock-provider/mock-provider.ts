/**
 * A scripted provider: a real HTTP server speaking OpenAI Chat Completions
 * (`POST /v1/chat/completions`), OpenAI Responses (`POST /v1/responses`) and Anthropic Messages
 * (`POST /v1/messages`), whose "model" is the planner: each request is read as the same
 * conversation (src/wire/to-chat.ts) and planned the same way, whatever the API. With
 * `stream: true` it answers with Server-Sent Events in that API's streaming format (chat honours
 * `stream_options.include_usage`). It records the request bodies it gets, with the API each came
 * in; `GET /debug/requests` returns them, `DELETE /debug/requests` clears them.
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
import type { ChatRequest } from "../wire/chat-types.js";
import { readBody, sendJson } from "../http/json-http.js";
import { listenOn } from "../http/listen.js";
import { plan } from "./planner.js";
import { replyOf, streamedFrames, streamWriter, wholeReply } from "./wire.js";
import { anthropicToChat, responsesToChat } from "../wire/to-chat.js";
import type { AnthropicRequest, ProviderApi, ResponsesRequest } from "../wire/wire-types.js";
import { ConfigInvalidError } from "../errors.js";

/** One request as received: `api` says which API it came in, `body` is its JSON as sent. */
export type RecordedRequest = { bytes: number } & (
  { api: "chat"; body: ChatRequest } | { api: "responses"; body: ResponsesRequest } | { api: "anthropic"; body: AnthropicRequest }
);

export interface MockProvider {
  readonly url: string;
  readonly port: number;
  /** The requests still recorded, oldest first. */
  requests(): RecordedRequest[];
  /** How many model requests (any API) it has received in all, recorded or dropped: a mark for requestsSince. */
  received(): number;
  /** The requests received after `mark`; throws RecordDroppedError when some of them were already dropped. */
  requestsSince(mark: number): RecordedRequest[];
  /** Streamed answers whose client went away before the last frame. */
  streamsAbandoned(): number;
  close(): Promise<void>;
}

export interface MockProviderOptions {
  port?: number;
  host?: string;
  /** Requests kept at most (default 200). */
  maxRecorded?: number;
  /** Recorded body bytes kept at most, all requests together (default 16 MiB). */
  maxRecordedBytes?: number;
  /**
   * A streamed answer sends this many writes (the opening frames are the first) and then nothing
   * until its client goes away: a model that stalls mid-answer, for tests of cancellation.
   */
  stallStreamsAfter?: number;
}

/** A caller asked for requests the bounded record no longer holds: CONFIG_INVALID, a mark (or a bound) to fix. */
export class RecordDroppedError extends ConfigInvalidError {
  constructor(mark: number, firstKept: number) {
    super(
      `The scripted provider no longer holds requests ${mark + 1}–${firstKept} (its record is bounded); raise maxRecorded / maxRecordedBytes or clear it more often.`,
    );
  }
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_RECORDED = 200;
const DEFAULT_MAX_RECORDED_BYTES = 16 * 1024 * 1024;

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
    while (this.kept.length > this.maxCount || this.bytes > this.maxBytes) {
      const oldest = this.kept.shift();
      if (oldest === undefined) break;
      this.bytes -= oldest.bytes;
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

function apiOf(pathname: string): ProviderApi | undefined {
  if (pathname.endsWith("/chat/completions")) return "chat";
  if (pathname.endsWith("/responses")) return "responses";
  if (pathname.endsWith("/messages")) return "anthropic";
  return undefined;
}

export async function startMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  const recorded = new RequestRecord(options.maxRecorded ?? DEFAULT_MAX_RECORDED, options.maxRecordedBytes ?? DEFAULT_MAX_RECORDED_BYTES);
  let counter = 0;
  let abandoned = 0;
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
    const api = req.method === "POST" ? apiOf(url.pathname) : undefined;
    if (!api)
      return sendJson(res, 404, { error: { message: `no route ${req.method} ${url.pathname}; use POST /v1/chat/completions, /v1/responses or /v1/messages` } });
    const raw = await readBody(req, MAX_BODY_BYTES);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return sendJson(res, 400, { error: { message: "request body is not JSON" } });
    }
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return sendJson(res, 400, { error: { message: "request body is not a JSON object" } });
    let chat: ChatRequest;
    try {
      chat =
        api === "chat" ? (body as ChatRequest) : api === "responses" ? responsesToChat(body as ResponsesRequest) : anthropicToChat(body as AnthropicRequest);
    } catch (error) {
      return sendJson(res, 400, { error: { message: `request body is not a ${api} request: ${(error as Error).message}` } });
    }
    recorded.add({ bytes: raw.length, api, body } as RecordedRequest);
    counter += 1;
    const model = typeof chat.model === "string" ? chat.model : "scripted";
    const reply = replyOf(api, plan(chat), counter, model, { inputTokens: Math.ceil(raw.length / 4), outputTokens: 20 });
    if ((body as { stream?: unknown }).stream !== true) return sendJson(res, 200, wholeReply(api, reply));
    const includeUsage = (body as { stream_options?: { include_usage?: unknown } }).stream_options?.include_usage === true;
    await stream(res, streamedFrames(streamWriter(api, reply, includeUsage), reply));
  }

  async function stream(res: ServerResponse, frames: readonly string[]): Promise<void> {
    res.once("close", () => {
      if (!res.writableFinished) abandoned += 1;
    });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const sent = options.stallStreamsAfter ?? frames.length;
    for (const frame of frames.slice(0, sent)) {
      res.write(frame);
      // A turn of the loop between writes: the client reads deltas one by one, as a model sends them.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (sent >= frames.length) res.end();
  }

  await listenOn(server, options.port ?? 0, options.host ?? "127.0.0.1");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}/v1`,
    port,
    requests: () => recorded.all(),
    received: () => recorded.received(),
    requestsSince: (mark) => recorded.since(mark),
    streamsAbandoned: () => abandoned,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
