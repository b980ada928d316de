/**
 * The HTTP gateway's server (`toolsearch serve`): starts the engine, the provider's client
 * (OpenAI Chat Completions, OpenAI Responses or Anthropic Messages: `provider.api`) and the
 * operator endpoints, binds, makes the checks every route shares, routes each request, answers
 * GET /healthz, and on close drains, then cuts the turns still running. The turns are the
 * routes': POST /v1/runs (runs-route.ts), and OpenAI's and Anthropic's own APIs
 * (compat/compat-routes.ts: /v1/chat/completions, /v1/responses, /v1/messages, /v1/models), so
 * that their clients point at it by changing their base URL and API key. Runs are independent;
 * the engine (catalog, index, sandbox pool) is shared; a slow tool or provider blocks only its
 * own run.
 *
 * Without `gateway.auth` it binds loopback only, serves only requests no web page could have
 * sent (http/request-guard.ts), and a run's identity is the body's, which may not claim
 * `owner: true` unless `gateway.trustLoopbackIdentity` (the developer setup). With it, every
 * request but GET /healthz needs a bearer token, checked before the body is read, and a run's
 * identity (agentId, owner, channel, mode) is the token's. Either way a POST body must be
 * declared application/json, checked before it is read.
 *
 * GET /healthz discloses no more than the caller may see: without a token, that the process
 * answers; with one, only the sources whose tools its policy admits (an owner token also sees
 * which are down); never a source's error text, which goes to the operator's stderr.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import OpenAI from "openai";
import type { AgentProvider, AgentTurnInput } from "../agent/agent-turn.js";
import { boundedProviderFetch } from "../agent/bounded-fetch.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import { ConfigInvalidError, HttpError } from "../errors.js";
import { escapeControl } from "../text/prompt-text.js";
import { sendJson } from "../http/json-http.js";
import { RequestGuard } from "../http/request-guard.js";
import { isLoopbackHost, tokenSubjects, TokenTable, unauthorized, type TokenIdentity } from "../auth/token-auth.js";
import { closingError } from "../http/drain.js";
import { HttpSkeleton } from "../http/http-skeleton.js";
import { engineFromConfig, type ConfiguredEngine, type EngineExtras } from "../config/config-engine.js";
import type { ServerConfig } from "../config/server-config.js";
import { RUNS_PATH, RunsRoute, type RunsRouteContext } from "./runs-route.js";
import { COMPAT_ROUTE_NAMES, compatRoutes, type CompatRoutes, type CompatRoutesContext } from "./compat/compat-routes.js";
import { OperatorEndpoints } from "../admin/operator-endpoints.js";
import { definedProps } from "../defined.js";

export interface Gateway {
  readonly url: string;
  readonly port: number;
  readonly engine: ToolSearchEngine;
  /**
   * Stops the server, then the engine. No new connection is accepted, idle keep-alive ones are
   * closed, and a request that arrives on an open one is answered CLOSING (503). Requests in
   * flight get `drainMs` (default 0) to finish, or until `signal` aborts (a second SIGTERM);
   * turns still running then are stopped and answered CLOSING (503, with the run's telemetry:
   * which tool calls ran) where their answer has not started, and the connections are closed.
   */
  close(options?: { drainMs?: number; signal?: AbortSignal }): Promise<void>;
}

export interface GatewayExtras extends EngineExtras {
  /** One line per request (method, path, status, ms, session): `--verbose`. */
  log?: (line: string) => void;
  /** Extra fields of the authenticated /healthz view (`serve --workers`: every worker's state). */
  health?: () => Promise<Record<string, unknown>>;
}

/** No token list means no authentication, which only a loopback address may offer. */
function checkExposure(config: ServerConfig): TokenTable | undefined {
  if (config.gateway.auth) return new TokenTable(config.gateway.auth.tokens);
  if (!isLoopbackHost(config.gateway.host)) {
    throw new ConfigInvalidError(
      `gateway.host "${config.gateway.host}" is not a loopback address, and without gateway.auth anyone who can reach it could run tools as anyone; configure gateway.auth.tokens or bind 127.0.0.1`,
    );
  }
  return undefined;
}

export async function startGateway(config: ServerConfig, extras: GatewayExtras = {}): Promise<Gateway> {
  // Before anything starts, so a refused config leaves nothing running.
  const tokens = checkExposure(config);
  const operator = await OperatorEndpoints.start(config, "serve");
  const built = await engineFromConfig(config, { ...extras, events: operator.events }).catch(async (error: unknown) => {
    await operator.close();
    throw error;
  });
  operator.attach({ engine: built.engine, mcpSources: built.mcpSources });
  const provider = await providerFor(config.provider).catch(async (error: unknown) => {
    await stopStarted(built, operator);
    throw error;
  });
  const gateway = new GatewayServer(config, extras, tokens, operator, built, provider);
  await gateway.listen();
  return gateway;
}

/** What startGateway started beside the server, stopped in order: the engine (MCP children, the pool), the session log, the operator endpoints. */
async function stopStarted({ engine, sessionLog }: ConfiguredEngine, operator: OperatorEndpoints): Promise<void> {
  await engine.close();
  await sessionLog?.close();
  await operator.close();
}

/**
 * The gateway's state: the engine and the provider its turns share, the HTTP server, the routes
 * (/v1/runs, the OpenAI- and Anthropic-compatible ones), and the cut that stops the turns still
 * running at the drain's end.
 */
class GatewayServer implements Gateway {
  readonly engine: ToolSearchEngine;
  readonly #started: ConfiguredEngine;
  readonly #guard: RequestGuard;
  /** Shutdown (close): the cut at the drain's end stops the turns still running. */
  readonly #cut = new AbortController();
  readonly #http: HttpSkeleton;
  readonly #runs: RunsRoute;
  readonly #compat: CompatRoutes;
  /** 0 until `listen` binds; startGateway hands the gateway out only after. */
  #port = 0;

  constructor(
    private readonly config: ServerConfig,
    private readonly extras: GatewayExtras,
    private readonly tokens: TokenTable | undefined,
    private readonly operator: OperatorEndpoints,
    started: ConfiguredEngine,
    private readonly provider: AgentProvider,
  ) {
    this.engine = started.engine;
    this.#started = started;
    // Whatever a caller put in a path or header is escaped: one request, one log line.
    const write = extras.log;
    const log = write ? (line: string) => write(escapeControl(line)) : undefined;
    this.#guard = new RequestGuard({ bindHost: config.gateway.host, authenticated: tokens !== undefined });
    this.#http = new HttpSkeleton({
      name: "toolsearch gateway",
      route: (req, res) => this.#route(req, res),
      errorBody: (code, message) => ({ error: { code, message } }),
      observe: (req, res) => operator.observe(req, res),
      ...definedProps({ log }),
      sessionOf: (_req, res) => String(res.getHeader("x-toolsearch-session") ?? "-"),
      drainWaitsFor: "every",
    });
    const routes = this.#routeContext(log !== undefined);
    this.#runs = new RunsRoute(routes);
    this.#compat = compatRoutes(routes);
  }

  get url(): string {
    return `http://${this.config.gateway.host}:${this.#port}`;
  }

  get port(): number {
    return this.#port;
  }

  /** Binds the configured host and port; on failure (a busy port) stops what started for this gateway. */
  async listen(): Promise<void> {
    try {
      this.#port = await this.#http.listen(this.config.gateway.port, this.config.gateway.host);
    } catch (error) {
      // A busy port: what started for this gateway (MCP children, the pool) must not outlive it.
      await stopStarted(this.#started, this.operator);
      throw error;
    }
  }

  async close(options: { drainMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    const drainMs = options.drainMs ?? 0;
    await this.#http.close({
      drainMs,
      ...(options.signal ? { signal: options.signal } : {}),
      cut: () => this.#cut.abort(closingError(`this turn was still running at the end of the drain (gateway.drainMs ${drainMs} ms) and was stopped.`)),
    });
    await stopStarted(this.#started, this.operator);
  }

  /**
   * What the routes share: POST /v1/runs (runs-route.ts) and the OpenAI- and Anthropic-compatible
   * routes (compat/), these answered in those APIs' own shapes, errors included. `logged`: whether
   * requests are logged (`--verbose`), an answer then naming its session.
   */
  #routeContext(logged: boolean): RunsRouteContext & CompatRoutesContext {
    const { engine, provider, config, tokens } = this;
    return {
      engine,
      provider,
      config,
      tokens,
      guard: this.#guard,
      budgets: turnBudgets(config),
      trustLoopbackIdentity: config.gateway.trustLoopbackIdentity,
      logged,
      shutdown: { draining: () => this.#http.draining, cut: this.#cut.signal },
    };
  }

  /** The caller's token identity; undefined without a valid token; `null` when the gateway has no auth (the body's identity is trusted). */
  #identityOf(req: IncomingMessage): TokenIdentity | null | undefined {
    return this.tokens ? this.tokens.match(req.headers.authorization) : null;
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await this.#compat.serve(req, res)) return;
    // Before anything, /healthz included: a rebound page must not even learn that this port answers.
    this.#guard.admit(req);
    // /healthz too: a balancer's probe learns to send this instance nothing more.
    if (this.#http.draining) throw closingError("this instance takes no new request; send it to another instance, or again once this one is back.");
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const identity = this.#identityOf(req);
    if (this.operator.serves(path)) return this.operator.handle(req, res, identity, this.#guard);
    if (req.method === "GET" && path === "/healthz") return this.#health(identity, res);
    // Before the body is read: a caller without a token costs a header check, not a 1 MiB parse.
    if (identity === undefined) throw unauthorized(req.headers.authorization, "gateway");
    if (req.method === "POST" && path === RUNS_PATH) return this.#runs.answer(identity, req, res);
    throw new HttpError("NOT_FOUND", `No route ${req.method} ${path}; use POST /v1/runs, GET /healthz, ${COMPAT_ROUTE_NAMES}.`);
  }

  async #health(identity: TokenIdentity | null | undefined, res: ServerResponse): Promise<void> {
    // Unauthenticated: a balancer's probe learns nothing but that this process answers.
    if (identity === undefined) return sendJson(res, 200, { ok: true });
    const more = this.extras.health ? await this.extras.health() : {};
    return sendJson(res, 200, { ok: true, mode: this.engine.settings.mode, catalog: this.#catalogView(identity), ...more });
  }

  /**
   * What /healthz shows of the catalog. No auth: every source (the caller is on this machine and
   * got past the browser checks). A token: what its policy admits; an owner token also sees the
   * sources that are down. No error text in either: it is the operator's (stderr, at start and
   * when a source goes down).
   */
  #catalogView(identity: TokenIdentity | null): Record<string, unknown> {
    const engine = this.engine;
    if (identity !== null) {
      const owner = identity.owner === true;
      const rebuildError = owner ? engine.catalogStatus().rebuildError : undefined;
      return { ...engine.catalogStatusFor(tokenSubjects(identity), { includeDown: owner }), ...(rebuildError ? { rebuildError } : {}) };
    }
    const { size, sources, rebuildError } = engine.catalogStatus();
    return { size, sources: sources.map(({ source, toolset, ok, tools }) => ({ source, toolset, ok, tools })), ...(rebuildError ? { rebuildError } : {}) };
  }
}

/** What bounds one turn of either route family, whatever the provider answers: round trips, bytes kept and sent, and time. */
function turnBudgets(config: ServerConfig): Pick<AgentTurnInput, "maxTurns" | "timeoutMs" | "turnTimeoutMs" | "maxTurnResultBytes" | "maxRequestBytes"> {
  return {
    maxTurns: config.gateway.maxTurns,
    timeoutMs: config.provider.timeoutMs,
    turnTimeoutMs: config.gateway.turnTimeoutMs,
    maxTurnResultBytes: config.gateway.maxTurnResultBytes,
    maxRequestBytes: config.provider.maxRequestBytes,
  };
}

/**
 * The official client of the configured API; the Anthropic SDK is loaded only when it is used.
 * The client gets no `timeout` of its own: it would stop at the headers, and race the deadline
 * runAgentTurn gives each request (provider.timeoutMs), which covers the whole answer;
 * boundedProviderFetch caps the answer's bytes and stops its body at that deadline.
 */
async function providerFor(settings: ServerConfig["provider"]): Promise<AgentProvider> {
  const common = { baseURL: settings.baseURL, apiKey: settings.apiKey, maxRetries: 0, fetch: boundedProviderFetch(settings.maxResponseBytes) };
  if (settings.api === "anthropic") {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    return {
      api: "anthropic",
      client: new Anthropic(common),
      model: settings.model,
      ...definedProps({ maxTokens: settings.maxTokens }),
    };
  }
  return { api: settings.api, client: new OpenAI(common), model: settings.model };
}
