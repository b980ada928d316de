/**
 * Streamable HTTP by hand, for the tests that need what the SDK client hides: a refused
 * initialize's status and body, a POST whose answers arrive one SSE event at a time, a hang-up in
 * the middle of a batch, a client that never reads.
 */
import { request, type ClientRequest, type IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";

const PROTOCOL = "2025-06-18";
const ACCEPT = { "content-type": "application/json", accept: "application/json, text/event-stream" };

export interface RawSession {
  url: string;
  sessionId: string;
  headers: Record<string, string>;
}

export interface JsonRpcAnswer {
  id?: string | number;
  result?: { content?: Array<{ type: string; text?: string }>; isError?: boolean; tools?: unknown[] };
  error?: { code: number; message: string; data?: { code?: string } };
}

function authHeaders(token?: string): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

function initializeBody(id: number | string = 1): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
}

/** An initialize POST as it comes back: the status and the JSON body (a refusal) or the session id. */
export async function initialize(url: string, token?: string): Promise<{ status: number; sessionId: string | null; body: string }> {
  const response = await fetch(url, { method: "POST", headers: { ...ACCEPT, ...authHeaders(token) }, body: JSON.stringify(initializeBody()) });
  return { status: response.status, sessionId: response.headers.get("mcp-session-id"), body: await response.text() };
}

/** A session ready for requests (initialize, then notifications/initialized). */
export async function openRawSession(url: string, token?: string): Promise<RawSession> {
  const init = await initialize(url, token);
  if (init.status !== 200 || !init.sessionId) throw new Error(`initialize answered ${init.status}: ${init.body}`);
  const headers = { ...ACCEPT, ...authHeaders(token), "mcp-session-id": init.sessionId, "mcp-protocol-version": PROTOCOL };
  const ready = await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  await ready.text();
  if (ready.status !== 202) throw new Error(`notifications/initialized answered ${ready.status}`);
  return { url, sessionId: init.sessionId, headers };
}

/** One POST read to its end: the status and every JSON-RPC answer (SSE events or a JSON body). */
export async function post(session: RawSession, body: unknown): Promise<{ status: number; answers: JsonRpcAnswer[] }> {
  const response = await fetch(session.url, { method: "POST", headers: session.headers, body: JSON.stringify(body) });
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) return { status: response.status, answers: sseAnswers(text) };
  return { status: response.status, answers: text ? [JSON.parse(text) as JsonRpcAnswer].flat() : [] };
}

function sseAnswers(text: string): JsonRpcAnswer[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)) as JsonRpcAnswer);
}

export function toolCall(id: number | string, name: string, args: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

export interface StreamingPost {
  request: ClientRequest;
  /** Answers seen so far. */
  answers: JsonRpcAnswer[];
  /** Resolves once an answer matching `predicate` has arrived (rejects if the stream ends first). */
  until(predicate: (answers: JsonRpcAnswer[]) => boolean, what: string): Promise<void>;
  /** Resolves once the response has started (headers in). */
  started: Promise<IncomingMessage>;
}

/** A POST on its own connection, its SSE answers collected as they come; destroy `request` to hang up. */
export function streamPost(session: RawSession, body: unknown): StreamingPost {
  const answers: JsonRpcAnswer[] = [];
  const waiters: Array<() => void> = [];
  let ended: Error | undefined;
  const notify = () => waiters.splice(0).forEach((w) => w());
  const text = JSON.stringify(body);
  const req = request(session.url, { method: "POST", agent: false, headers: { ...session.headers, "content-length": Buffer.byteLength(text) } });
  const started = new Promise<IncomingMessage>((resolve, reject) => {
    req.once("response", (res) => {
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          answers.push(...sseAnswers(buffer.slice(0, cut + 1)));
          buffer = buffer.slice(cut + 2);
        }
        notify();
      });
      const end = () => {
        ended ??= new Error("the response ended");
        notify();
      };
      res.once("end", end);
      res.once("close", end);
      res.once("error", end);
      resolve(res);
    });
    req.once("error", (error) => {
      ended ??= error;
      notify();
      reject(error);
    });
  });
  started.catch(() => {});
  req.end(text);
  return {
    request: req,
    answers,
    started,
    async until(predicate, what) {
      while (!predicate(answers)) {
        if (ended) throw new Error(`${what}: ${ended.message} first; answers: ${JSON.stringify(answers).slice(0, 500)}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

export interface NonReader {
  socket: Socket;
  /** Bytes received so far (nothing while paused). */
  received(): number;
  /** Starts reading again; resolves with the bytes received once the server has closed the connection. */
  drainToClose(): Promise<Buffer>;
}

/** A POST on a raw socket that then stops reading: the kernel's buffers fill and the server's answers back up. */
export function nonReadingPost(session: RawSession, body: unknown): Promise<NonReader> {
  const url = new URL(session.url);
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      const head = [
        `POST ${url.pathname} HTTP/1.1`,
        `host: ${url.host}`,
        `content-length: ${Buffer.byteLength(text)}`,
        ...Object.entries(session.headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${head.join("\r\n")}\r\n\r\n${text}`);
      socket.pause();
      const chunks: Buffer[] = [];
      const closed = new Promise<Buffer>((done) => {
        socket.on("data", (chunk: Buffer) => chunks.push(chunk));
        socket.on("error", () => {});
        socket.once("close", () => done(Buffer.concat(chunks)));
      });
      resolve({
        socket,
        received: () => chunks.reduce((sum, chunk) => sum + chunk.length, 0),
        drainToClose: () => {
          socket.resume();
          return closed;
        },
      });
    });
    socket.once("error", reject);
  });
}
