/**
 * The HTTP gateway (`toolsearch serve`): runs agent turns (runAgentTurn) against a provider
 * speaking OpenAI Chat Completions, OpenAI Responses or Anthropic Messages (`provider.api`),
 * with the tool-search engine in front of the tools. Runs are independent; the engine (catalog,
 * index, sandbox pool) is shared; a slow tool or provider blocks only its own run.
 *
 * Without `gateway.auth` it binds loopback only, serves only requests no web page could have
 * sent (http/request-guard.ts), and takes the body's identity fields, except `owner: true`,
 * which needs `gateway.trustLoopbackIdentity` (the developer setup). With it, every request but
 * GET /healthz needs a bearer token, checked before the body is read, and the run's identity
 * (agentId, owner, channel, mode) is the token's. Either way a POST body must be declared
 * application/json, checked before it is read.
 *
 * GET /healthz discloses no more than the caller may see: without a token, that the process
 * answers; with one, only the sources whose tools its policy admits (an owner token also sees
 * which are down); never a source's error text, which goes to the operator's stderr.
 *
 * Beside /v1/runs it serves OpenAI's and Anthropic's own APIs (compat/compat-routes.ts:
 * /v1/chat/completions, /v1/responses, /v1/messages, /v1/models), so that their clients point
 * at it by changing their base URL and API key.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import OpenAI from "openai";
import { runAgentTurn, type AgentProvider, type AgentTurnInput } from "../agent/agent-turn.js";
import { boundedProviderFetch } from "../agent/bounded-fetch.js";
import type { ToolSearchMode } from "../settings/tool-search-config.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import type { ToolSearchRun } from "../engine/run.js";
import { CancelledError, ConfigInvalidError, HttpError, ProviderFailedError, ToolSearchError, TurnBudgetError } from "../errors.js";
import { escapeControl } from "../text/prompt-text.js";
import { sendJson } from "../http/json-http.js";
import { RequestGuard } from "../http/request-guard.js";
import {
  identityFromToken,
  isLoopbackHost,
  loopbackIdentity,
  tokenSubjects,
  tokenTenant,
  TokenTable,
  unauthorized,
  type TokenIdentity,
} from "../auth/token-auth.js";
import { closingError } from "../http/drain.js";
import { HttpSkeleton } from "../http/http-skeleton.js";
import { onAbort } from "../abort-listeners.js";
import { clientAddressKey } from "../http/client-address.js";
import { engineFromConfig, type ConfiguredEngine, type EngineExtras } from "../config/config-engine.js";
import type { ServerConfig } from "../config/server-config.js";
import { parseRunRequest, type RunRequest } from "./run-request.js";
import { clientToolOf, type ClientToolCall } from "./client-tool.js";
import { COMPAT_ROUTE_NAMES, compatRoutes, type CompatRoutes } from "./compat/compat-routes.js";
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
 * The gateway's state: the engine and the provider its turns share, the HTTP server, the
 * OpenAI- and Anthropic-compatible routes, and the cut that stops the turns still running at
 * the drain's end.
 */
class GatewayServer implements Gateway {
  readonly engine: ToolSearchEngine;
  readonly #started: ConfiguredEngine;
  readonly #guard: RequestGuard;
  /** Shutdown (close): the cut at the drain's end stops the turns still running. */
  readonly #cut = new AbortController();
  readonly #http: HttpSkeleton;
  readonly #compat: CompatRoutes;
  /** Whether requests are logged (`--verbose`): a /v1/runs answer then names its session. */
  readonly #logged: boolean;
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
    this.#logged = log !== undefined;
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
    this.#compat = this.#compatRoutes();
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

  /** The OpenAI- and Anthropic-compatible routes (compat/): answered in those APIs' own shapes, errors included. */
  #compatRoutes(): CompatRoutes {
    const { engine, provider, config, tokens } = this;
    return compatRoutes({
      engine,
      provider,
      config,
      tokens,
      guard: this.#guard,
      budgets: turnBudgets(config),
      trustLoopbackIdentity: config.gateway.trustLoopbackIdentity,
      logged: this.#logged,
      shutdown: { draining: () => this.#http.draining, cut: this.#cut.signal },
    });
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
    if (req.method === "POST" && path === "/v1/runs") return this.#answerRun(identity, req, res);
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

  /** POST /v1/runs: the body read (bounded), one turn run, its answer sent. */
  async #answerRun(identity: TokenIdentity | null, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [status, body] = await this.#runTurn(await this.#guard.readJson(req, this.config.gateway.maxBodyBytes, "BAD_REQUEST"), identity, req, res);
    const session = (body as { sessionId?: unknown }).sessionId;
    if (this.#logged && typeof session === "string") res.setHeader("x-toolsearch-session", encodeURIComponent(session.slice(0, 64)));
    return sendJson(res, status, body);
  }

  async #runTurn(body: unknown, identity: TokenIdentity | null, req: IncomingMessage, res: ServerResponse): Promise<[number, unknown]> {
    const parsed = parseRunRequest(body);
    const request = identity
      ? withTokenIdentity(parsed, identity, this.engine.settings.mode)
      : loopbackIdentity(parsed, this.config.gateway.trustLoopbackIdentity);
    const clientToolCalls: ClientToolCall[] = [];
    const run = await this.#prepareRun(request, identity, req, clientToolCalls);
    // A caller that hangs up stops its turn: no more provider requests or tool calls for nobody.
    // So does the drain's end at shutdown, with CLOSING as the reason.
    const stop = this.#turnSignal(res);
    try {
      const messages = request.messages ?? [{ role: "user" as const, content: request.input! }];
      const { telemetry: _during, ...turn } = await runAgentTurn({ run, provider: this.provider, messages, ...turnBudgets(this.config), signal: stop.signal });
      await run.end();
      return [200, { runId: run.runId, sessionId: run.sessionId, mode: run.mode, ...turn, clientToolCalls, telemetry: run.telemetry() }];
    } catch (error) {
      await run.end();
      return this.#failedTurn(error, run, stop.signal);
    } finally {
      stop.off();
    }
  }

  /** The request's run; bad input for the engine (an unknown profile, a bad client tool) is a 400. */
  async #prepareRun(request: RunRequest, identity: TokenIdentity | null, req: IncomingMessage, clientToolCalls: ClientToolCall[]): Promise<ToolSearchRun> {
    try {
      return await this.engine.prepareRun({
        sessionId: request.sessionId,
        // Whose share of the engine's control path: the token's tenant, else the client's address.
        ...(identity ? { tenant: tokenTenant(identity) } : { shareKey: clientAddressKey(req) }),
        ...pick(request),
        prompt: promptOf(request),
        clientTools: (request.clientTools ?? []).map((spec) => clientToolOf(spec, clientToolCalls, "forwarded_to_client")),
      });
    } catch (error) {
      if (error instanceof ToolSearchError) throw new HttpError(error.code, error.message, {}, 400);
      throw error;
    }
  }

  /** Aborted when the caller hangs up or at the drain's end (the cut's CLOSING as the reason); `off` stops watching both. */
  #turnSignal(res: ServerResponse): { signal: AbortSignal; off: () => void } {
    const hangUp = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) hangUp.abort(new CancelledError("The caller closed the connection."));
    };
    res.once("close", onClose);
    const cut = this.#cut.signal;
    const offCut = cut.aborted ? (hangUp.abort(cut.reason), () => {}) : onAbort(cut, () => hangUp.abort(cut.reason));
    return {
      signal: hangUp.signal,
      off: () => {
        offCut();
        res.off("close", onClose);
      },
    };
  }

  /** The answer to a turn that failed: 502 for the provider or a budget, 503 when the cut stopped it, 499 when the caller left. */
  #failedTurn(error: unknown, run: ToolSearchRun, signal: AbortSignal): [number, unknown] {
    if (error instanceof ProviderFailedError || error instanceof TurnBudgetError) {
      return [502, { runId: run.runId, error: { code: error.code, message: error.message }, telemetry: run.telemetry() }];
    }
    // Stopped at the drain's end: the telemetry says which tool calls ran, so the caller knows what to retry.
    if (error === this.#cut.signal.reason) return [503, { runId: run.runId, error: (error as HttpError).toJSON(), telemetry: run.telemetry() }];
    // Nobody is left to read an answer.
    if (signal.aborted) return [499, { runId: run.runId, error: new HttpError("CLIENT_CLOSED", "The caller closed the connection.").toJSON() }];
    throw error;
  }
}

/** What bounds one turn, whatever the provider answers: round trips, bytes kept and sent, and time. */
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

/** The request with the token's identity in place of the body's; a body field asking for more is a 403. */
function withTokenIdentity(request: RunRequest, identity: TokenIdentity, defaultMode: ToolSearchMode): RunRequest {
  const { agentId, owner, channel, mode, ...rest } = request;
  return { ...rest, ...identityFromToken(request, identity, defaultMode) };
}

function pick(request: RunRequest): Pick<RunRequest, "agentId" | "profile" | "channel" | "owner" | "mode"> {
  return definedProps({ mode: request.mode, agentId: request.agentId, profile: request.profile, channel: request.channel, owner: request.owner });
}

function promptOf(request: RunRequest): string {
  if (request.input !== undefined) return request.input;
  const lastUser = request.messages?.findLast((m) => m.role === "user");
  return typeof lastUser?.content === "string" ? lastUser.content : "";
}
