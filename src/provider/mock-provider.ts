/**
 * A scripted OpenAI-compatible provider: a real HTTP server speaking Chat Completions
 * (non-streaming) whose "model" is the planner. It records every raw request body;
 * `GET /debug/requests` returns them, `DELETE /debug/requests` clears them.
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
  requests(): RecordedRequest[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const MAX_RECORDED = 2_000;

export async function startMockProvider(options: { port?: number; host?: string } = {}): Promise<MockProvider> {
  const recorded: RecordedRequest[] = [];
  let counter = 0;
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendJson(res, 500, { error: { message: String(error) } }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method === "GET" && url.pathname === "/healthz") return sendJson(res, 200, { ok: true });
    if (url.pathname === "/debug/requests") {
      if (req.method === "DELETE") recorded.length = 0;
      return sendJson(res, 200, { requests: recorded });
    }
    if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) return sendJson(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
    const raw = await readBody(req, MAX_BODY_BYTES);
    let body: ChatRequest;
    try {
      body = JSON.parse(raw.toString("utf8")) as ChatRequest;
    } catch {
      return sendJson(res, 400, { error: { message: "request body is not JSON" } });
    }
    recorded.push({ bytes: raw.length, body });
    if (recorded.length > MAX_RECORDED) recorded.shift();
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
    requests: () => [...recorded],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
