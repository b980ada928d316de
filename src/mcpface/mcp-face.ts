/**
 * `toolsearch mcp`: the configured catalog served to any MCP client, through the configured
 * mode, on the official SDK's server classes. stdio serves one session (the client that started
 * the process); Streamable HTTP serves up to `mcp.maxSessions`, each with its own engine run.
 * Here: the face's state and its stop; stdio-serving.ts and http-serving.ts serve each transport,
 * session-opener.ts opens a session on either.
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
import type { Readable, Writable } from "node:stream";
import type { ToolSearchEngine } from "../engine/engine.js";
import type { ToolSearchMode } from "../settings/tool-search-config.js";
import { ConfigInvalidError } from "../errors.js";
import { ForbiddenFieldError, identityFromToken, isLoopbackHost, TokenTable, tokenTenant } from "../auth/token-auth.js";
import type { ServerConfig } from "../config/server-config.js";
import { engineFromConfig, type ConfiguredEngine, type EngineExtras } from "../config/config-engine.js";
import { escapeControl } from "../text/prompt-text.js";
import type { McpServerSource } from "../mcp/index.js";
import { drainThenCut } from "../http/drain.js";
import { FaceDrain } from "./face-drain.js";
import { FaceSessions } from "./face-sessions.js";
import { HttpServing, type HttpFaceParts } from "./http-serving.js";
import { SessionOpener } from "./session-opener.js";
import { StdioServing } from "./stdio-serving.js";
import type { SessionTenantKey } from "./tenant-shares.js";
import { OperatorEndpoints } from "../admin/operator-endpoints.js";
import { definedProps } from "../defined.js";

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
  const built = await engineFromConfig(config, { ...extras, events: operator.events }).catch(async (error: unknown) => {
    await operator.close();
    throw error;
  });
  return new McpFaceServer(config, tokens, operator, built, extras.log);
}

/**
 * The face's state: the engine and its downstream servers, the sessions open (stdio and HTTP),
 * the drain every request runs under, and the HTTP server once `listenHttp` has bound one.
 */
class McpFaceServer implements McpFace {
  readonly engine: ToolSearchEngine;
  readonly mcpSources: readonly McpServerSource[];
  readonly #sessionLog: ConfiguredEngine["sessionLog"];
  readonly #sessions = new FaceSessions();
  readonly #drain = new FaceDrain();
  readonly #parts: HttpFaceParts;
  /** Set once `listenHttp` binds: the server, which also sweeps idle sessions. */
  #http: HttpServing | undefined;
  /** Stops telling the sessions of catalog changes. */
  readonly #stopWatchingCatalog: () => void;

  constructor(
    private readonly config: ServerConfig,
    tokens: TokenTable | undefined,
    private readonly operator: OperatorEndpoints,
    { engine, sessionLog, mcpSources }: ConfiguredEngine,
    write: ((line: string) => void) | undefined,
  ) {
    this.engine = engine;
    this.mcpSources = mcpSources;
    this.#sessionLog = sessionLog;
    // A tool name or a header is the client's text: escaped, so it cannot forge a log line.
    const log = write ? (line: string) => write(escapeControl(line)) : undefined;
    const serverReason = (name: string): string | undefined => mcpSources.find((source) => source.toolset === name)?.unavailableReason();
    this.#parts = {
      config,
      engine,
      tokens,
      operator,
      sessions: this.#sessions,
      drain: this.#drain,
      opener: new SessionOpener(engine, this.#sessions, this.#drain, serverReason, config.mcp.maxInFlightPerSession, log),
      configIdentity: mcpSectionIdentity(config),
      log,
    };
    operator.attach({
      engine,
      mcpSources,
      sessions: () => this.#sessions.all().map((e) => ({ tenant: tenantLabel(e.tenant), inFlight: e.budget.inFlight() })),
    });
    this.#stopWatchingCatalog = engine.onCatalogChange(() => this.#catalogChanged());
  }

  async serveStdio(stdin: Readable = process.stdin, stdout: Writable = process.stdout): Promise<void> {
    const sessionId = `stdio-${randomUUID()}`;
    const entry = await this.#parts.opener.open({ sessionId, ...this.#parts.configIdentity }, sessionId);
    const limits = { maxBodyBytes: this.config.gateway.maxBodyBytes, maxUnreadBytes: this.config.mcp.maxUnreadBytes };
    try {
      await new StdioServing(stdin, stdout, limits).serve(entry.server);
    } finally {
      await this.#sessions.close(entry);
    }
  }

  async listenHttp(host: string, port: number): Promise<{ url: string; port: number }> {
    checkHttpExposure(this.config, host);
    const http = new HttpServing(this.#parts, host);
    const bound = await http.listen(port);
    this.#http = http;
    return bound;
  }

  sessionCount(): number {
    return this.#sessions.size;
  }

  async close(options: { drainMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    if (this.#drain.draining) return;
    this.#drain.start();
    this.#stopWatchingCatalog();
    await this.#drainSessions(options.drainMs ?? 0, options.signal);
    await this.engine.close();
    await this.#sessionLog?.close();
    await this.operator.close();
  }

  /** The requests in flight get `drainMs`, those still running are answered CLOSING, then every session ends. */
  async #drainSessions(drainMs: number, signal: AbortSignal | undefined): Promise<void> {
    const busy = () => this.#sessions.busy();
    const cut = () => this.#drain.cut(drainMs);
    // The CLOSING answers go out before their sessions and connections are closed.
    const closeSessions = () => this.#sessions.closeAll();
    if (this.#http) {
      await this.#http.close({ drainMs, ...definedProps({ signal }), busy, cut, beforeConnectionsClose: closeSessions });
      return;
    }
    await drainThenCut(() => !busy(), drainMs, signal, cut);
    await closeSessions();
  }

  /** Each session gets a fresh run at its next request, and its client is told the list changed. */
  #catalogChanged(): void {
    for (const entry of this.#sessions.all()) {
      entry.session.markStale();
      entry.server.sendToolListChanged().catch(() => {
        // not initialized yet, or the client is gone: nothing to tell
      });
    }
  }
}

/** A session's tenant as the admin API names it: a token's label, `address:<ip>` without auth, "stdio". */
function tenantLabel(tenant: SessionTenantKey | undefined): string {
  if (tenant === undefined) return "stdio";
  return typeof tenant === "string" ? tenant : tokenTenant(tenant);
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
  return definedProps({ agentId: config.mcp.agentId, owner: config.mcp.owner, channel: config.mcp.channel });
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
