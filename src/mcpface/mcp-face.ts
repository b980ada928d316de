/**
 * `toolsearch mcp`: the configured catalog served to any MCP client, through the configured
 * mode, on the official SDK's server classes. stdio serves one session (the client that started
 * the process); Streamable HTTP serves up to `mcp.maxSessions`, each with its own engine run.
 *
 * Identity for policy comes from the config (`mcp: { agentId, owner, channel }`), never from
 * the client. Over HTTP the gateway's token rules apply: with `gateway.auth` every request needs
 * a bearer token, checked before its body is read, and the session runs as the token's identity
 * (the config may only narrow it, as a gateway request body may); a session answers only the
 * token that opened it. Without `gateway.auth` only a loopback address may be bound, and a
 * request a web page could have sent (a Host that is not a loopback name, a foreign Origin) is
 * refused; a POST body must be declared application/json, checked before it is read. Both
 * rules are `serve`'s too, in one place: http/request-guard.ts.
 *
 * Bounds: a request body (HTTP) or a line (stdio) past `gateway.maxBodyBytes` is refused before
 * it is parsed; sessions past `mcp.maxSessions` are refused, and one token (or client address)
 * holds at most `mcp.maxSessionsPerTenant` of them, other tenants' idle sessions giving way when
 * the server is full (tenant-shares.ts); an idle HTTP session is closed after
 * `mcp.sessionIdleMs`; a tool result's text is cut to `tools.toolSearch.maxResultBytes`; a
 * session answers `mcp.maxInFlightPerSession` requests at once, and a client that leaves
 * `mcp.maxUnreadBytes` of answers unread is paused, then dropped; a hang-up cancels what the
 * client was waiting for (answer-flow.ts). A stdio line past `gateway.maxBodyBytes` is answered
 * BODY_TOO_LARGE and the next line is served (stdio-lines.ts).
 *
 * Stopping (close): no new session or request is taken (CLOSING), the requests in flight get
 * `drainMs` to finish, those still running then are cancelled and answered CLOSING, and only
 * then are sessions and connections closed (face-drain.ts).
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Readable, Writable } from "node:stream";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode as JsonRpcCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import type { RunContext } from "../engine/options.js";
import type { ToolSearchMode } from "../settings/tool-search-config.js";
import { ClientNotReadingError, ConfigInvalidError, HttpError, type ErrorCode } from "../errors.js";
import { ForbiddenFieldError, identityFromToken, isLoopbackHost, TokenTable, tokenTenant, unauthorized, type TokenIdentity } from "../auth/token-auth.js";
import type { ServerConfig } from "../config/server-config.js";
import { engineFromConfig, type EngineExtras } from "../config/config-engine.js";
import { escapeControl } from "../text/prompt-text.js";
import { sendJson } from "../http/json-http.js";
import { HttpSkeleton } from "../http/http-skeleton.js";
import { RequestGuard } from "../http/request-guard.js";
import type { McpServerSource } from "../mcp/index.js";
import { packageVersion } from "../version.js";
import { guardStdioOutput, HttpAnswerFlow, REFUSED, RequestBudget, requestIds, tooManyRequestsMessage } from "./answer-flow.js";
import { FaceDrain } from "./face-drain.js";
import { httpRefusalCode, refuseInvalidParams, unreadableLineAnswer } from "./protocol-errors.js";
import type { TenantTurns } from "../dispatch/fair-turns.js";
import { LineLimit, type SkippedLine } from "./stdio-lines.js";
import { closingError, drainThenCut } from "../http/drain.js";
import { FaceSession } from "./face-session.js";
import { FaceSessions, type LiveSession } from "./face-sessions.js";
import { admitSession, tenantOf, type SessionTenantKey } from "./tenant-shares.js";
import { OperatorEndpoints } from "../admin/operator-endpoints.js";

export interface McpFaceExtras extends EngineExtras {
  /** One line per MCP request (`--verbose`). */
  log?: (line: string) => void;
}

export interface McpFace {
  readonly engine: ToolSearchEngine;
  /** The configured downstream MCP servers, in config order. */
  readonly mcpSources: readonly McpServerSource[];
  /**
   * Serves one session over stdio; resolves when the client goes away (stdin ends) or the
   * transport fails; rejects with ClientNotReadingError when the client left more than
   * `mcp.maxUnreadBytes` unread on stdout (those bytes stay queued: the caller should exit).
   */
  serveStdio(stdin?: Readable, stdout?: Writable): Promise<void>;
  /** Serves Streamable HTTP at `/mcp` on the config's host and port (or the overrides). */
  listenHttp(host: string, port: number): Promise<{ url: string; port: number }>;
  /** Sessions open now. */
  sessionCount(): number;
  /**
   * Stops taking sessions and requests (CLOSING), gives the requests in flight `drainMs`
   * (default 0) to finish or until `signal` aborts (a second SIGTERM), answers those still
   * running CLOSING, then ends every session and run, stops listening, closes the engine (and
   * the downstream servers). Idempotent.
   */
  close(options?: { drainMs?: number; signal?: AbortSignal }): Promise<void>;
}

/** Builds the engine over the config's plugins and MCP servers; nothing listens yet. */
export async function createMcpFace(config: ServerConfig, extras: McpFaceExtras = {}): Promise<McpFace> {
  const tokens = config.gateway.auth ? new TokenTable(config.gateway.auth.tokens) : undefined;
  const operator = await OperatorEndpoints.start(config, "mcp");
  const { engine, sessionLog, mcpSources } = await engineFromConfig(config, { ...extras, events: operator.events }).catch(async (error: unknown) => {
    await operator.close();
    throw error;
  });
  // A tool name or a header is the client's text: escaped, so it cannot forge a log line.
  const write = extras.log;
  const log = write ? (line: string) => write(escapeControl(line)) : undefined;
  const sessions = new FaceSessions();
  const drain = new FaceDrain();
  /** Set once `listenHttp` binds: the server, and the timer that closes idle sessions. */
  let listening: { http: HttpSkeleton; sweeper: NodeJS.Timeout } | undefined;

  operator.attach({ engine, mcpSources, sessions: () => sessions.all().map((e) => ({ tenant: tenantLabel(e.tenant), inFlight: e.budget.inFlight() })) });

  const serverReason = (name: string): string | undefined => mcpSources.find((source) => source.toolset === name)?.unavailableReason();
  const configIdentity = mcpSectionIdentity(config);

  const stopListening = engine.onCatalogChange(() => {
    for (const entry of sessions.all()) {
      entry.session.markStale();
      entry.server.sendToolListChanged().catch(() => {
        // not initialized yet, or the client is gone: nothing to tell
      });
    }
  });

  function newServer(session: FaceSession, budget: RequestBudget, label: string): Server {
    const server = new Server(
      { name: "toolsearch", version: packageVersion() },
      { capabilities: { tools: { listChanged: true } }, ...(session.instructions ? { instructions: session.instructions } : {}) },
    );
    server.setRequestHandler(ListToolsRequestSchema, (_request, extra) =>
      budget.run(() =>
        drain.run(async () => {
          const started = performance.now();
          const tools = await session.listTools();
          log?.(`mcp tools/list ${tools.length} tools ${ms(started)} session=${label}`);
          return { tools };
        }, extra.signal),
      ),
    );
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      budget.run(() =>
        drain.run(async (signal) => {
          const started = performance.now();
          const result = await session.callTool(request.params.name, request.params.arguments, signal);
          log?.(`mcp tools/call ${request.params.name.slice(0, 128)} ${result.isError ? "error" : "ok"} ${ms(started)} session=${label}`);
          return result;
        }, extra.signal),
      ),
    );
    return server;
  }

  async function openSession(
    context: RunContext,
    label: string,
    http?: { identity: TokenIdentity | null; tenant: SessionTenantKey; turns: TenantTurns },
  ): Promise<LiveSession> {
    const session = await FaceSession.open(engine, context, serverReason);
    const budget = new RequestBudget(config.mcp.maxInFlightPerSession);
    const entry: LiveSession = { session, budget, server: newServer(session, budget, label), ...(http ?? {}) };
    sessions.add(entry);
    return entry;
  }

  // ── stdio ────────────────────────────────────────────────────────────────────────────────

  async function serveStdio(stdin: Readable = process.stdin, stdout: Writable = process.stdout): Promise<void> {
    const sessionId = `stdio-${randomUUID()}`;
    const entry = await openSession({ sessionId, ...configIdentity }, sessionId);
    const max = config.gateway.maxBodyBytes;
    // Whole lines of at most `max` bytes reach the SDK, one per chunk: its ReadBuffer never holds more than one.
    const lines = new LineLimit(max, (skipped) => void transport.send(tooLargeAnswer(skipped, max)).catch(() => {}));
    stdin.pipe(lines);
    const transport = new StdioServerTransport(lines, stdout, { maxBufferSize: Number.MAX_SAFE_INTEGER });
    let overflow: ClientNotReadingError | undefined;
    const done = new Promise<void>((resolve, reject) => {
      // Closing the transport aborts every request in flight (the SDK's own close path), so EOF cancels them all.
      transport.onclose = () => (overflow ? reject(overflow) : resolve());
      const end = () => void transport.close();
      stdin.once("end", end);
      stdin.once("close", end);
      stdout.once("error", end);
    });
    transport.onerror = (error) => {
      const answer = unreadableLineAnswer(error);
      if (answer === undefined) return console.error(`toolsearch mcp: ${error.message.replace(/\s+/g, " ").slice(0, 500)}`);
      // The client hears of its bad line (it would otherwise wait for an answer); the operator gets one short line.
      console.error(`toolsearch mcp: ${answer.error.message} (answered ${answer.error.code}, id null)`);
      void transport.send(answer).catch(() => {});
    };
    const maxUnread = config.mcp.maxUnreadBytes;
    const unguard = guardStdioOutput(transport, lines, stdout, maxUnread, (unread) => {
      overflow = new ClientNotReadingError(
        `the client has left ${unread} bytes of answers unread on stdout, past mcp.maxUnreadBytes (${maxUnread}); disconnecting it`,
      );
      void transport.close();
    });
    try {
      await entry.server.connect(transport);
      refuseInvalidParams(transport);
      await done;
    } finally {
      unguard();
      stdin.unpipe(lines);
      lines.destroy();
      await sessions.close(entry);
    }
  }

  // ── Streamable HTTP ──────────────────────────────────────────────────────────────────────

  async function listenHttp(host: string, port: number): Promise<{ url: string; port: number }> {
    checkHttpExposure(config, host);
    const guard = new RequestGuard({ bindHost: host, authenticated: tokens !== undefined });
    const server = new HttpSkeleton({
      name: "toolsearch mcp",
      route: (req, res) => route(req, res, guard, server),
      errorBody: (code, message) => ({
        jsonrpc: "2.0",
        error: { code: code === "INTERNAL" ? JsonRpcCode.InternalError : httpRefusalCode(code), message, data: { code } },
        id: null,
      }),
      observe: (req, res) => operator.observe(req, res),
      ...(log ? { log } : {}),
      sessionOf: (req) => String(req.headers["mcp-session-id"] ?? "-").slice(0, 64),
      drainWaitsFor: "tracked",
    });
    const bound = await server.listen(port, host);
    const idle = config.mcp.sessionIdleMs;
    const sweeper = setInterval(() => sessions.closeIdle(idle), Math.min(60_000, Math.max(500, Math.floor(idle / 4))));
    sweeper.unref();
    listening = { http: server, sweeper };
    return { url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}/mcp`, port: bound };
  }

  async function route(req: IncomingMessage, res: ServerResponse, guard: RequestGuard, server: HttpSkeleton): Promise<void> {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    // Before anything, /healthz included: without tokens the loopback bind is the only guard, and a page in a browser can reach it.
    guard.admit(req);
    if (req.method === "GET" && path === "/healthz") return sendJson(res, 200, { ok: true });
    if (operator.serves(path)) return operator.handle(req, res, tokens ? tokens.match(req.headers.authorization) : null, guard);
    if (path !== "/mcp") throw new HttpError("NOT_FOUND", `No route ${req.method} ${path}; the MCP endpoint is /mcp.`);
    const identity = tokens ? tokens.match(req.headers.authorization) : null;
    if (identity === undefined) throw unauthorized(req.headers.authorization, "server");
    const sessionHeader = req.headers["mcp-session-id"];
    if (typeof sessionHeader === "string") {
      const entry = sessions.http(sessionHeader);
      // Another token's session is as unknown as one that never existed.
      if (!entry?.transport || !entry.flow || entry.identity !== identity) throw new HttpError("SESSION_NOT_FOUND", "Session not found; initialize a new one.");
      entry.budget.touch();
      if (req.method === "POST") return postToSession(entry.budget, entry.flow, entry.transport, entry.turns!, req, res, guard, server);
      if (req.method === "GET") entry.flow.trackStream(req, res);
      return entry.transport.handleRequest(req, res);
    }
    if (req.method !== "POST") throw new HttpError("BAD_REQUEST", "No mcp-session-id: POST an initialize request first.");
    const body = await guard.readJson(req, config.gateway.maxBodyBytes, "PARSE_ERROR");
    if (!isInitializeRequest(body)) throw new HttpError("BAD_REQUEST", "No mcp-session-id: the first request of a session must be initialize.");
    if (drain.draining) throw new HttpError("CLOSING", "The server is shutting down.");
    const tenant = tenantOf(req, identity);
    const victim = admitSession(tenant, sessions.httpSessions(), sessions.opening(tenant), config.mcp);
    if (victim) {
      log?.(
        `mcp session ${victim.transport?.sessionId ?? "-"} evicted: idle longest, and another tenant needed its slot (mcp.maxSessions ${config.mcp.maxSessions})`,
      );
      void sessions.close(victim);
    }
    const entry = await sessions.whileOpening(tenant, async () => {
      const sessionId = randomUUID();
      // The session's share of the control path: the token's tenant, else the client's address.
      const shareKey = identity ? tokenTenant(identity) : (tenant as string);
      const share = identity ? { tenant: shareKey } : { shareKey };
      const opened = await openSession({ sessionId, ...runIdentity(identity), ...share }, sessionId, {
        identity,
        tenant,
        turns: engine.controlTurns(shareKey),
      });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => sessionId,
        onsessioninitialized: (id) => sessions.bindHttp(id, opened),
      });
      opened.transport = transport;
      opened.flow = new HttpAnswerFlow(config.mcp.maxUnreadBytes, (unread, socket) => {
        console.error(
          `toolsearch mcp: dropped a connection from ${socket.remoteAddress ?? "?"} (session ${sessionId}): ${unread} bytes of answers unread, past mcp.maxUnreadBytes (${config.mcp.maxUnreadBytes})`,
        );
      });
      opened.flow.attach(transport);
      transport.onclose = () => void sessions.close(opened);
      await opened.server.connect(transport);
      refuseInvalidParams(transport);
      await transport.handleRequest(req, res, body);
      return opened;
    });
    // An initialize the SDK refused opened no session: its run ends now.
    if (!sessions.isBound(entry)) await sessions.close(entry);
  }

  /**
   * A POST to an open session: paused while the session's client leaves answers unread, refused
   * (429) when its requests would find no slot, followed so a hang-up cancels what it carried.
   */
  async function postToSession(
    budget: RequestBudget,
    flow: HttpAnswerFlow,
    transport: StreamableHTTPServerTransport,
    turns: TenantTurns,
    req: IncomingMessage,
    res: ServerResponse,
    guard: RequestGuard,
    server: HttpSkeleton,
  ): Promise<void> {
    await flow.whenDrained(req, (unread) =>
      log?.(
        `mcp session ${String(req.headers["mcp-session-id"]).slice(0, 64)} paused: ${unread} bytes of answers unread (mcp.maxUnreadBytes ${config.mcp.maxUnreadBytes}); this POST waits`,
      ),
    );
    if (req.destroyed) return;
    const body = await guard.readJson(req, config.gateway.maxBodyBytes, "PARSE_ERROR");
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
    server.track(res);
    const gone = new AbortController();
    res.once("close", () => gone.abort(new HttpError("CLIENT_CLOSED", "The client closed the connection.")));
    // In its tenant's turn: the protocol's own work on a request (parsing, validation, the
    // answer's stream) costs several times a search, so a flooding tenant's requests wait in
    // its queue for it, not in front of another tenant's.
    return turns.take(() => transport.handleRequest(req, res, body), gone.signal);
  }

  /** The config's identity; with a token, the token's, which the config may only narrow. */
  function runIdentity(identity: TokenIdentity | null): Omit<RunContext, "sessionId"> {
    if (identity === null) return configIdentity;
    try {
      const { agentId, owner, channel, mode } = identityFromToken(configIdentity, identity, engine.settings.mode);
      return {
        ...(agentId !== undefined ? { agentId } : {}),
        ...(owner !== undefined ? { owner } : {}),
        ...(channel !== undefined ? { channel } : {}),
        ...(mode !== undefined ? { mode } : {}),
      };
    } catch (error) {
      if (error instanceof ForbiddenFieldError) throw new HttpError("FORBIDDEN", `the config's mcp.${error.message}`);
      throw error;
    }
  }

  return {
    engine,
    mcpSources,
    serveStdio,
    listenHttp,
    sessionCount: () => sessions.size,
    async close(options = {}) {
      if (drain.draining) return;
      drain.start();
      stopListening();
      const drainMs = options.drainMs ?? 0;
      const busy = () => sessions.busy();
      const cut = () => drain.cut(drainMs);
      // The CLOSING answers go out before their sessions and connections are closed.
      const closeSessions = () => sessions.closeAll();
      if (listening) {
        clearInterval(listening.sweeper);
        await listening.http.close({ drainMs, ...(options.signal ? { signal: options.signal } : {}), busy, cut, beforeConnectionsClose: closeSessions });
      } else {
        await drainThenCut(() => !busy(), drainMs, options.signal, cut);
        await closeSessions();
      }
      await engine.close();
      await sessionLog?.close();
      await operator.close();
    },
  };
}

/** A session's tenant as the admin API names it: a token's label, `address:<ip>` without auth, "stdio". */
function tenantLabel(tenant: SessionTenantKey | undefined): string {
  if (tenant === undefined) return "stdio";
  return typeof tenant === "string" ? tenant : tokenTenant(tenant);
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

function ms(started: number): string {
  return `${Math.round(performance.now() - started)}ms`;
}

/**
 * Without bearer tokens only a loopback address may serve HTTP. Exported so that `mcp --http`
 * refuses a bad --host before it spawns any MCP server, not after.
 */
export function checkHttpExposure(config: ServerConfig, host: string): void {
  if (!config.gateway.auth && !isLoopbackHost(host)) {
    throw new ConfigInvalidError(
      `--host "${host}" is not a loopback address, and without gateway.auth anyone who can reach it could call tools as this config's identity; configure gateway.auth.tokens or bind 127.0.0.1`,
    );
  }
}

/** Who the config's `mcp` section says sessions run as. */
function mcpSectionIdentity(config: ServerConfig): { agentId?: string; owner?: boolean; channel?: string } {
  return {
    ...(config.mcp.agentId !== undefined ? { agentId: config.mcp.agentId } : {}),
    ...(config.mcp.owner !== undefined ? { owner: config.mcp.owner } : {}),
    ...(config.mcp.channel !== undefined ? { channel: config.mcp.channel } : {}),
  };
}

/**
 * Over HTTP a session runs as the config's `mcp` identity narrowed by the caller's token. A
 * token that identity asks more of (another agentId, owner rights, a channel it does not list)
 * would have every session refused with 403; said at start instead, naming both sides.
 */
export function checkTokenIdentities(config: ServerConfig, defaultMode: ToolSearchMode): void {
  const section = mcpSectionIdentity(config);
  for (const [i, token] of (config.gateway.auth?.tokens ?? []).entries()) {
    try {
      identityFromToken(section, token, defaultMode);
    } catch (error) {
      if (!(error instanceof ForbiddenFieldError)) throw error;
      throw new ConfigInvalidError(
        `gateway.auth.tokens.${i} conflicts with the mcp section: mcp.${error.message}, so every session with that token would be refused (403); make mcp.${error.field} agree with the token or remove it from the mcp section`,
      );
    }
  }
}
