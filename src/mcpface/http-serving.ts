/**
 * `toolsearch mcp --http`: Streamable HTTP at `/mcp` (with /healthz and the operator endpoints)
 * on the HTTP skeleton both faces share. Every request passes the request guard first; with
 * `gateway.auth` it needs a bearer token, checked before its body is read, and a session answers
 * only the token that opened it. An initialize opens a session once the tenant shares admit it
 * (tenant-shares.ts); a POST to an open session waits while its client leaves answers unread, is
 * refused when the session has no free slot, and runs in its tenant's turn (answer-flow.ts). An
 * idle session is closed after `mcp.sessionIdleMs`.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ErrorCode as JsonRpcCode, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { OperatorEndpoints } from "../admin/operator-endpoints.js";
import {
  ForbiddenFieldError,
  identityFromToken,
  tokenTenant,
  unauthorized,
  type RunIdentity,
  type TokenIdentity,
  type TokenTable,
} from "../auth/token-auth.js";
import type { ServerConfig } from "../config/server-config.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import type { RunContext } from "../engine/options.js";
import { HttpError } from "../errors.js";
import { closingError } from "../http/drain.js";
import { HttpSkeleton, type HttpCloseOptions } from "../http/http-skeleton.js";
import { sendJson } from "../http/json-http.js";
import { RequestGuard } from "../http/request-guard.js";
import { HttpAnswerFlow, requestIds, tooManyRequestsMessage } from "./answer-flow.js";
import type { FaceDrain } from "./face-drain.js";
import type { FaceSessions, LiveSession } from "./face-sessions.js";
import { httpRefusalCode, refuseInvalidParams } from "./protocol-errors.js";
import type { SessionOpener } from "./session-opener.js";
import { admitSession, tenantOf, type SessionTenantKey } from "./tenant-shares.js";
import { definedProps } from "../defined.js";

/** What the HTTP side shares with the rest of the face. */
export interface HttpFaceParts {
  readonly config: ServerConfig;
  readonly engine: ToolSearchEngine;
  /** The configured bearer tokens; undefined without `gateway.auth`. */
  readonly tokens: TokenTable | undefined;
  readonly operator: OperatorEndpoints;
  readonly sessions: FaceSessions;
  readonly drain: FaceDrain;
  readonly opener: SessionOpener;
  /** Who the config's `mcp` section says sessions run as. */
  readonly configIdentity: RunIdentity;
  /** One line per request (`--verbose`), already escaped. */
  readonly log: ((line: string) => void) | undefined;
}

/** An open HTTP session: its transport and its answer flow are set. */
type HttpSession = LiveSession & Required<Pick<LiveSession, "transport" | "flow">>;

function isHttpSession(entry: LiveSession | undefined): entry is HttpSession {
  return entry?.transport !== undefined && entry.flow !== undefined;
}

export class HttpServing {
  readonly #guard: RequestGuard;
  readonly #http: HttpSkeleton;
  /** Closes idle sessions; started once the server listens. */
  #sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly face: HttpFaceParts,
    private readonly host: string,
  ) {
    this.#guard = new RequestGuard({ bindHost: host, authenticated: face.tokens !== undefined });
    const log = face.log;
    this.#http = new HttpSkeleton({
      name: "toolsearch mcp",
      route: (req, res) => this.#route(req, res),
      errorBody: (code, message) => ({
        jsonrpc: "2.0",
        error: { code: code === "INTERNAL" ? JsonRpcCode.InternalError : httpRefusalCode(code), message, data: { code } },
        id: null,
      }),
      observe: (req, res) => face.operator.observe(req, res),
      ...definedProps({ log }),
      sessionOf: (req) => String(req.headers["mcp-session-id"] ?? "-").slice(0, 64),
      drainWaitsFor: "tracked",
    });
  }

  /** Binds `port` on the host, then sweeps idle sessions; resolves with the endpoint's URL. */
  async listen(port: number): Promise<{ url: string; port: number }> {
    const bound = await this.#http.listen(port, this.host);
    const idle = this.face.config.mcp.sessionIdleMs;
    this.#sweeper = setInterval(() => this.face.sessions.closeIdle(idle), Math.min(60_000, Math.max(500, Math.floor(idle / 4))));
    this.#sweeper.unref();
    const host = this.host;
    return { url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}/mcp`, port: bound };
  }

  /** Stops sweeping and stops the server (http-skeleton.ts), the face's drain in `options`. */
  async close(options: HttpCloseOptions): Promise<void> {
    clearInterval(this.#sweeper);
    await this.#http.close(options);
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { tokens, operator } = this.face;
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    // Before anything, /healthz included: without tokens the loopback bind is the only guard, and a page in a browser can reach it.
    this.#guard.admit(req);
    if (req.method === "GET" && path === "/healthz") return sendJson(res, 200, { ok: true });
    if (operator.serves(path)) return operator.handle(req, res, tokens ? tokens.match(req.headers.authorization) : null, this.#guard);
    if (path !== "/mcp") throw new HttpError("NOT_FOUND", `No route ${req.method} ${path}; the MCP endpoint is /mcp.`);
    const identity = tokens ? tokens.match(req.headers.authorization) : null;
    if (identity === undefined) throw unauthorized(req.headers.authorization, "server");
    const sessionHeader = req.headers["mcp-session-id"];
    if (typeof sessionHeader === "string") return this.#toSession(sessionHeader, identity, req, res);
    if (req.method !== "POST") throw new HttpError("BAD_REQUEST", "No mcp-session-id: POST an initialize request first.");
    return this.#initialize(identity, req, res);
  }

  /** A request to the open session `id` names. */
  async #toSession(id: string, identity: TokenIdentity | null, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const entry = this.face.sessions.http(id);
    // Another token's session is as unknown as one that never existed.
    if (!isHttpSession(entry) || entry.identity !== identity) throw new HttpError("SESSION_NOT_FOUND", "Session not found; initialize a new one.");
    entry.budget.touch();
    if (req.method === "POST") return this.#postToSession(entry, req, res);
    if (req.method === "GET") entry.flow.trackStream(req, res);
    return entry.transport.handleRequest(req, res);
  }

  /** A POST without a session: an initialize, which opens one if the tenant shares admit it. */
  async #initialize(identity: TokenIdentity | null, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { config, sessions, drain } = this.face;
    const body = await this.#guard.readJson(req, config.gateway.maxBodyBytes, "PARSE_ERROR");
    if (!isInitializeRequest(body)) throw new HttpError("BAD_REQUEST", "No mcp-session-id: the first request of a session must be initialize.");
    if (drain.draining) throw new HttpError("CLOSING", "The server is shutting down.");
    const tenant = tenantOf(req, identity);
    this.#admit(tenant);
    const entry = await sessions.whileOpening(tenant, () => this.#openSession(identity, tenant, req, res, body));
    // An initialize the SDK refused opened no session: its run ends now.
    if (!sessions.isBound(entry)) await sessions.close(entry);
  }

  /** Throws TOO_MANY_SESSIONS past the shares; when the server is full, evicts another tenant's idle session. */
  #admit(tenant: SessionTenantKey): void {
    const { config, sessions, log } = this.face;
    const victim = admitSession(tenant, sessions.httpSessions(), sessions.opening(tenant), config.mcp);
    if (!victim) return;
    log?.(
      `mcp session ${victim.transport?.sessionId ?? "-"} evicted: idle longest, and another tenant needed its slot (mcp.maxSessions ${config.mcp.maxSessions})`,
    );
    void sessions.close(victim);
  }

  /** The session an initialize opens: its run, its transport, its answer flow; then the initialize is answered. */
  async #openSession(identity: TokenIdentity | null, tenant: SessionTenantKey, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<LiveSession> {
    const { engine, sessions, opener } = this.face;
    const sessionId = randomUUID();
    // The session's share of the control path: the token's tenant, else the client's address.
    const shareKey = identity ? tokenTenant(identity) : (tenant as string);
    const share = identity ? { tenant: shareKey } : { shareKey };
    const opened = await opener.open({ sessionId, ...this.#runIdentity(identity), ...share }, sessionId, {
      identity,
      tenant,
      turns: engine.controlTurns(shareKey),
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      onsessioninitialized: (id) => sessions.bindHttp(id, opened),
    });
    opened.transport = transport;
    opened.flow = this.#answerFlow(sessionId);
    opened.flow.attach(transport);
    transport.onclose = () => void sessions.close(opened);
    await opened.server.connect(transport);
    refuseInvalidParams(transport);
    await transport.handleRequest(req, res, body);
    return opened;
  }

  #answerFlow(sessionId: string): HttpAnswerFlow {
    const max = this.face.config.mcp.maxUnreadBytes;
    return new HttpAnswerFlow(max, (unread, socket) => {
      console.error(
        `toolsearch mcp: dropped a connection from ${socket.remoteAddress ?? "?"} (session ${sessionId}): ${unread} bytes of answers unread, past mcp.maxUnreadBytes (${max})`,
      );
    });
  }

  /**
   * A POST to an open session: paused while the session's client leaves answers unread, refused
   * (429) when its requests would find no slot, followed so a hang-up cancels what it carried.
   */
  async #postToSession(entry: HttpSession, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { config, drain, log } = this.face;
    const { budget, flow, transport } = entry;
    const turns = entry.turns!;
    await flow.whenDrained(req, (unread) =>
      log?.(
        `mcp session ${String(req.headers["mcp-session-id"]).slice(0, 64)} paused: ${unread} bytes of answers unread (mcp.maxUnreadBytes ${config.mcp.maxUnreadBytes}); this POST waits`,
      ),
    );
    if (req.destroyed) return;
    const body = await this.#guard.readJson(req, config.gateway.maxBodyBytes, "PARSE_ERROR");
    const ids = requestIds(body);
    if (ids.length === 0) return transport.handleRequest(req, res, body);
    if (drain.draining) throw closingError("this server takes no new request; reconnect once it is back.");
    if (budget.full()) {
      throw new HttpError("TOO_MANY_REQUESTS", tooManyRequestsMessage(config.mcp.maxInFlightPerSession), { "retry-after": "1" });
    }
    flow.trackPost(req, res, ids, (unanswered) => {
      // The same path as the client's own notifications/cancelled: the SDK aborts each request's signal and sends no answer.
      for (const requestId of unanswered) {
        transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "The client closed the connection." } });
      }
    });
    budget.touch();
    this.#http.track(res);
    const gone = new AbortController();
    res.once("close", () => gone.abort(new HttpError("CLIENT_CLOSED", "The client closed the connection.")));
    // In its tenant's turn: the protocol's own work on a request (parsing, validation, the
    // answer's stream) costs several times a search, so a flooding tenant's requests wait in
    // its queue for it, not in front of another tenant's.
    return turns.take(() => transport.handleRequest(req, res, body), gone.signal);
  }

  /** The config's identity; with a token, the token's, which the config may only narrow. */
  #runIdentity(identity: TokenIdentity | null): Omit<RunContext, "sessionId"> {
    const configIdentity = this.face.configIdentity;
    if (identity === null) return configIdentity;
    try {
      const { agentId, owner, channel, mode } = identityFromToken(configIdentity, identity, this.face.engine.settings.mode);
      return definedProps({ agentId, owner, channel, mode });
    } catch (error) {
      if (error instanceof ForbiddenFieldError) throw new HttpError("FORBIDDEN", `the config's mcp.${error.message}`);
      throw error;
    }
  }
}
