/**
 * The HTTP server both faces run on (`toolsearch serve`, `toolsearch mcp --http`): one request
 * handler that logs, routes and answers what the route throws as JSON; the responses in flight;
 * listening; and the stop (drain.ts): no new connection, `drainMs` for what runs, the cut, its
 * CLOSING answers, then every connection closed. A face gives what differs: its routes, the
 * shape of its error answers, and which responses the drain waits for.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorMessage, HttpError, type ErrorCode } from "../errors.js";
import { drainThenCut } from "./drain.js";
import { sendJson } from "./json-http.js";
import { listenOn } from "./listen.js";

export interface HttpSkeletonOptions {
  /** Who says an internal error on stderr ("toolsearch gateway"). */
  name: string;
  /** Answers one request; an HttpError it throws is answered with its status, anything else 500. */
  route(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** The face's shape of an error answer: the gateway's `{ error }`, the MCP face's JSON-RPC error. */
  errorBody(code: ErrorCode, message: string): unknown;
  /** Sees every request first (the operator endpoints' counters). */
  observe?(req: IncomingMessage, res: ServerResponse): void;
  /** One line per request (`--verbose`); the caller escapes it. */
  log?: (line: string) => void;
  /** The session a request's log line names ("-" when none). */
  sessionOf?(req: IncomingMessage, res: ServerResponse): string;
  /**
   * Which responses the drain waits for. "every": each one (the gateway: an answer is a whole
   * turn), and while draining each closes its connection once written, so no keep-alive
   * connection outlives the drain idle. "tracked": those the face passes to `track` (the MCP
   * face: a session's GET stream lives as long as the session); a session's connection stays
   * open, so its requests are answered CLOSING on it.
   */
  drainWaitsFor: "every" | "tracked";
}

export interface HttpCloseOptions {
  /** How long the requests in flight get to finish (`gateway.drainMs`). */
  drainMs?: number;
  /** A second SIGTERM/SIGINT: stop waiting at once. */
  signal?: AbortSignal;
  /** Work of the face's own still running (an MCP session's requests): the drain waits for it too. */
  busy?: () => boolean;
  /** The drain's end: stops what still runs, which the face answers CLOSING. */
  cut(): void;
  /** After the drain, before the connections close (the MCP face ends its sessions). */
  beforeConnectionsClose?: () => Promise<void>;
}

export class HttpSkeleton {
  readonly #server: Server;
  readonly #inFlight = new Set<ServerResponse>();
  #draining = false;

  constructor(private readonly options: HttpSkeletonOptions) {
    this.#server = createServer((req, res) => this.#serve(req, res));
  }

  /** Whether the server has begun to stop: a new request is to be answered CLOSING. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Binds; resolves with the port bound (a busy one is CONFIG_INVALID naming it). */
  async listen(port: number, host: string): Promise<number> {
    await listenOn(this.#server, port, host);
    return (this.#server.address() as AddressInfo).port;
  }

  /** `res` is in flight until it closes: the drain waits for it. */
  track(res: ServerResponse): void {
    this.#inFlight.add(res);
    res.once("close", () => this.#inFlight.delete(res));
    if (this.#draining && this.options.drainWaitsFor === "every") this.#leaveAfter(res);
  }

  /**
   * Stops: no new connection, idle keep-alive ones closed; what is in flight gets `drainMs`,
   * then `cut` and a grace for its CLOSING answers; then every connection is closed. Once only.
   */
  async close(options: HttpCloseOptions): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    const stopped = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeIdleConnections();
    if (this.options.drainWaitsFor === "every") for (const res of this.#inFlight) this.#leaveAfter(res);
    const busy = options.busy ?? (() => false);
    await drainThenCut(() => this.#inFlight.size === 0 && !busy(), options.drainMs ?? 0, options.signal, options.cut);
    await options.beforeConnectionsClose?.();
    this.#server.closeAllConnections();
    await stopped;
  }

  #serve(req: IncomingMessage, res: ServerResponse): void {
    this.options.observe?.(req, res);
    if (this.options.drainWaitsFor === "every") this.track(res);
    this.#logOnFinish(req, res);
    this.options.route(req, res).catch((error: unknown) => this.#answerError(error, req, res));
  }

  #logOnFinish(req: IncomingMessage, res: ServerResponse): void {
    const log = this.options.log;
    if (!log) return;
    const started = performance.now();
    res.once("finish", () =>
      log(
        `${req.method} ${(req.url ?? "/").slice(0, 200)} ${res.statusCode} ${Math.round(performance.now() - started)}ms session=${this.options.sessionOf?.(req, res) ?? "-"}`,
      ),
    );
  }

  #answerError(error: unknown, req: IncomingMessage, res: ServerResponse): void {
    const { errorBody, name } = this.options;
    if (error instanceof HttpError) return sendJson(res, error.status, errorBody(error.code, error.message), error.headers);
    // The detail may hold paths, hosts or secrets: it goes to the operator's stderr, not the client.
    console.error(`${name}: internal error on ${req.method} ${req.url}: ${errorMessage(error).replace(/\s+/g, " ").slice(0, 500)}`);
    if (!res.headersSent) sendJson(res, 500, errorBody("INTERNAL", "internal error"));
    else res.end();
  }

  /** While draining, an answer closes its connection once written. */
  #leaveAfter(res: ServerResponse): void {
    if (!res.headersSent) res.setHeader("connection", "close");
    res.once("finish", () => setImmediate(() => this.#server.closeIdleConnections()));
  }
}
