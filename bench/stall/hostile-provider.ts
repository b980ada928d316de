/**
 * A model provider that misbehaves as rows 8 and 9 of the multi-tenant issue describe, a real
 * HTTP server on 127.0.0.1 speaking the three APIs' paths (`/chat/completions`, `/responses`,
 * `/messages`):
 *
 * - "amplify": every request is answered with `calls` calls of the request's tool whose name
 *   contains `tool` (a 1 MiB-result tool, say), in that API's shape, and never with an answer;
 * - "drip": headers, then one byte a second, for ever;
 * - "silent": headers, then nothing.
 *
 * It records the size of every request body it read (what the gateway sent it) and counts the
 * answers cut off before they ended (the caller gave up on a drip or a silence), with a promise
 * for the next one, so tests wait on the event rather than on a clock. The stall benchmark's
 * amplifying-provider row and the turn-budget tests share it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type HostileBehaviour = "amplify" | "drip" | "silent";

export interface HostileProviderOptions {
  behaviour: HostileBehaviour;
  /** Tool calls per answer ("amplify"; default 32). */
  calls?: number;
  /** Part of the name of the tool to call ("amplify"; default "big_result"). */
  tool?: string;
}

export interface HostileProvider {
  /** Base URL for "chat" and "responses" (ends with /v1). */
  readonly url: string;
  /** Base URL for "anthropic" (the host; the client adds /v1/messages). */
  readonly origin: string;
  /** Bytes of each request body read, in order. */
  requestBytes(): number[];
  /** Text of the last request body read (the conversation as last sent). */
  lastBody(): string;
  /** Answers the caller cut off before they ended. */
  cutOff(): number;
  /** Resolves when the next answer is cut off (or at once when `count` have been already). */
  whenCutOff(count?: number): Promise<void>;
  close(): Promise<void>;
}

type Api = "chat" | "responses" | "anthropic";

function apiOf(pathname: string): Api | undefined {
  if (pathname.endsWith("/chat/completions")) return "chat";
  if (pathname.endsWith("/responses")) return "responses";
  if (pathname.endsWith("/messages")) return "anthropic";
  return undefined;
}

const SMALL_BODY = 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The first tool of the request whose name contains `part`, in any of the three APIs' tool shapes. */
function toolName(body: { tools?: Array<{ name?: string; function?: { name?: string } }> }, part: string): string {
  for (const tool of body.tools ?? []) {
    const name = tool.function?.name ?? tool.name;
    if (typeof name === "string" && name.includes(part)) return name;
  }
  throw new Error(`the request offers no tool whose name contains "${part}"`);
}

/** `calls` calls of `name` with empty arguments, as `api` answers them. */
function amplifiedAnswer(api: Api, name: string, calls: number, n: number): unknown {
  const ids = Array.from({ length: calls }, (_, i) => `call_${n}_${i}`);
  if (api === "chat") {
    const tool_calls = ids.map((id) => ({ id, type: "function", function: { name, arguments: "{}" } }));
    return {
      id: `chatcmpl-${n}`,
      object: "chat.completion",
      created: 0,
      model: "hostile",
      choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls }, finish_reason: "tool_calls" }],
    };
  }
  if (api === "responses") {
    const output = ids.map((id, i) => ({ type: "function_call", id: `fc_${n}_${i}`, call_id: id, name, arguments: "{}", status: "completed" }));
    return { id: `resp_${n}`, object: "response", created_at: 0, model: "hostile", status: "completed", output };
  }
  const content = ids.map((id) => ({ type: "tool_use", id, name, input: {} }));
  return {
    id: `msg_${n}`,
    type: "message",
    role: "assistant",
    model: "hostile",
    content,
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

export async function startHostileProvider(options: HostileProviderOptions): Promise<HostileProvider> {
  const sizes: number[] = [];
  let last: Buffer = Buffer.alloc(0);
  let cut = 0;
  let waiters: Array<{ count: number; resolve: () => void }> = [];
  let trips = 0;
  let toolSeen: string | undefined;

  function onCutOff(): void {
    cut += 1;
    const ready = waiters.filter((w) => cut >= w.count);
    waiters = waiters.filter((w) => cut < w.count);
    for (const w of ready) w.resolve();
  }

  /** Headers now, then a byte a second ("drip") or nothing ("silent") until the caller hangs up. */
  function stall(res: ServerResponse, drip: boolean): void {
    res.writeHead(200, { "content-type": "application/json" });
    res.flushHeaders();
    const timer = drip ? setInterval(() => res.write(" "), 1_000) : undefined;
    if (drip) res.write("{");
    res.once("close", () => {
      clearInterval(timer);
      if (!res.writableFinished) onCutOff();
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const api = req.method === "POST" ? apiOf(new URL(req.url ?? "/", "http://localhost").pathname) : undefined;
    if (!api) {
      res.writeHead(404).end();
      return;
    }
    const body = await readBody(req);
    sizes.push(body.length);
    last = body;
    if (options.behaviour !== "amplify") return stall(res, options.behaviour === "drip");
    trips += 1;
    // The tool list does not change: it is read from a turn's first, small request, so that the
    // stand-in does not parse megabytes of conversation on the loop the benchmark measures.
    const tool =
      body.length < SMALL_BODY && toolSeen === undefined ? toolName(JSON.parse(body.toString("utf8")) as never, options.tool ?? "big_result") : toolSeen;
    if (tool === undefined) throw new Error("the first request was too large to read its tools");
    toolSeen = tool;
    const answer = JSON.stringify(amplifiedAnswer(api, tool, options.calls ?? 32, trips));
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) }).end(answer);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/v1`,
    origin,
    requestBytes: () => [...sizes],
    lastBody: () => last.toString("utf8"),
    cutOff: () => cut,
    whenCutOff: (count = cut + 1) => (cut >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
