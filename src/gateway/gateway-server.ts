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
import { engineFromConfig, type EngineExtras } from "../config/config-engine.js";
import type { ServerConfig } from "../config/server-config.js";
import { parseRunRequest, type RunRequest } from "./run-request.js";
import { clientToolOf } from "./client-tool.js";
import { COMPAT_ROUTE_NAMES, compatRoutes } from "./compat/compat-routes.js";
import { OperatorEndpoints } from "../admin/operator-endpoints.js";

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
  const { engine, sessionLog, mcpSources } = await engineFromConfig(config, { ...extras, events: operator.events }).catch(async (error: unknown) => {
    await operator.close();
    throw error;
  });
  operator.attach({ engine, mcpSources });
  let provider: AgentProvider;
  try {
    provider = await providerFor(config.provider);
  } catch (error) {
    await engine.close();
    await sessionLog?.close();
    await operator.close();
    throw error;
  }

  // Whatever a caller put in a path or header is escaped: one request, one log line.
  const write = extras.log;
  const log = write ? (line: string) => write(escapeControl(line)) : undefined;
  const guard = new RequestGuard({ bindHost: config.gateway.host, authenticated: tokens !== undefined });
  // Shutdown (close): the cut at the drain's end stops the turns still running.
  const cut = new AbortController();
  const http = new HttpSkeleton({
    name: "toolsearch gateway",
    route: (req, res) => route(req, res),
    errorBody: (code, message) => ({ error: { code, message } }),
    observe: (req, res) => operator.observe(req, res),
    ...(log ? { log } : {}),
    sessionOf: (_req, res) => String(res.getHeader("x-toolsearch-session") ?? "-"),
    drainWaitsFor: "every",
  });
  // The OpenAI- and Anthropic-compatible routes (compat/): answered in those APIs' own shapes, errors included.
  const compat = compatRoutes({
    engine,
    provider,
    config,
    tokens,
    guard,
    budgets: turnBudgets(config),
    trustLoopbackIdentity: config.gateway.trustLoopbackIdentity,
    logged: log !== undefined,
    shutdown: { draining: () => http.draining, cut: cut.signal },
  });

  /** The caller's token identity; undefined without a valid token; `null` when the gateway has no auth (the body's identity is trusted). */
  function identityOf(req: IncomingMessage): TokenIdentity | null | undefined {
    return tokens ? tokens.match(req.headers.authorization) : null;
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await compat.serve(req, res)) return;
    // Before anything, /healthz included: a rebound page must not even learn that this port answers.
    guard.admit(req);
    // /healthz too: a balancer's probe learns to send this instance nothing more.
    if (http.draining) throw closingError("this instance takes no new request; send it to another instance, or again once this one is back.");
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const identity = identityOf(req);
    if (operator.serves(path)) return operator.handle(req, res, identity, guard);
    if (req.method === "GET" && path === "/healthz") {
      // Unauthenticated: a balancer's probe learns nothing but that this process answers.
      if (identity === undefined) return sendJson(res, 200, { ok: true });
      const more = extras.health ? await extras.health() : {};
      return sendJson(res, 200, { ok: true, mode: engine.settings.mode, catalog: catalogView(identity), ...more });
    }
    // Before the body is read: a caller without a token costs a header check, not a 1 MiB parse.
    if (identity === undefined) throw unauthorized(req.headers.authorization, "gateway");
    if (req.method === "POST" && path === "/v1/runs") {
      const [status, body] = await runTurn(await guard.readJson(req, config.gateway.maxBodyBytes, "BAD_REQUEST"), identity, req, res);
      const session = (body as { sessionId?: unknown }).sessionId;
      if (log && typeof session === "string") res.setHeader("x-toolsearch-session", encodeURIComponent(session.slice(0, 64)));
      return sendJson(res, status, body);
    }
    throw new HttpError("NOT_FOUND", `No route ${req.method} ${path}; use POST /v1/runs, GET /healthz, ${COMPAT_ROUTE_NAMES}.`);
  }

  /**
   * What /healthz shows of the catalog. No auth: every source (the caller is on this machine and
   * got past the browser checks). A token: what its policy admits; an owner token also sees the
   * sources that are down. No error text in either: it is the operator's (stderr, at start and
   * when a source goes down).
   */
  function catalogView(identity: TokenIdentity | null): Record<string, unknown> {
    if (identity !== null) {
      const owner = identity.owner === true;
      const rebuildError = owner ? engine.catalogStatus().rebuildError : undefined;
      return { ...engine.catalogStatusFor(tokenSubjects(identity), { includeDown: owner }), ...(rebuildError ? { rebuildError } : {}) };
    }
    const { size, sources, rebuildError } = engine.catalogStatus();
    return { size, sources: sources.map(({ source, toolset, ok, tools }) => ({ source, toolset, ok, tools })), ...(rebuildError ? { rebuildError } : {}) };
  }

  async function runTurn(body: unknown, identity: TokenIdentity | null, req: IncomingMessage, res: ServerResponse): Promise<[number, unknown]> {
    const parsed = parseRunRequest(body);
    const request = identity ? withTokenIdentity(parsed, identity, engine.settings.mode) : loopbackIdentity(parsed, config.gateway.trustLoopbackIdentity);
    const clientToolCalls: Array<{ name: string; args: Record<string, unknown> }> = [];
    let run;
    try {
      run = await engine.prepareRun({
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
    // A caller that hangs up stops its turn: no more provider requests or tool calls for nobody.
    // So does the drain's end at shutdown, with CLOSING as the reason.
    const hangUp = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) hangUp.abort(new CancelledError("The caller closed the connection."));
    };
    res.once("close", onClose);
    const offCut = cut.signal.aborted ? (hangUp.abort(cut.signal.reason), () => {}) : onAbort(cut.signal, () => hangUp.abort(cut.signal.reason));
    try {
      const messages = request.messages ?? [{ role: "user" as const, content: request.input! }];
      const { telemetry: _during, ...turn } = await runAgentTurn({ run, provider, messages, ...turnBudgets(config), signal: hangUp.signal });
      await run.end();
      return [200, { runId: run.runId, sessionId: run.sessionId, mode: run.mode, ...turn, clientToolCalls, telemetry: run.telemetry() }];
    } catch (error) {
      await run.end();
      if (error instanceof ProviderFailedError || error instanceof TurnBudgetError) {
        return [502, { runId: run.runId, error: { code: error.code, message: error.message }, telemetry: run.telemetry() }];
      }
      // Stopped at the drain's end: the telemetry says which tool calls ran, so the caller knows what to retry.
      if (error === cut.signal.reason) return [503, { runId: run.runId, error: (error as HttpError).toJSON(), telemetry: run.telemetry() }];
      // Nobody is left to read an answer.
      if (hangUp.signal.aborted) return [499, { runId: run.runId, error: new HttpError("CLIENT_CLOSED", "The caller closed the connection.").toJSON() }];
      throw error;
    } finally {
      offCut();
      res.off("close", onClose);
    }
  }

  let port: number;
  try {
    port = await http.listen(config.gateway.port, config.gateway.host);
  } catch (error) {
    // A busy port: what started for this gateway (MCP children, the pool) must not outlive it.
    await engine.close();
    await sessionLog?.close();
    await operator.close();
    throw error;
  }
  return {
    url: `http://${config.gateway.host}:${port}`,
    port,
    engine,
    async close(options = {}) {
      const drainMs = options.drainMs ?? 0;
      await http.close({
        drainMs,
        ...(options.signal ? { signal: options.signal } : {}),
        cut: () => cut.abort(closingError(`this turn was still running at the end of the drain (gateway.drainMs ${drainMs} ms) and was stopped.`)),
      });
      await engine.close();
      await sessionLog?.close();
      await operator.close();
    },
  };
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
      ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
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
  return {
    ...(request.mode !== undefined ? { mode: request.mode } : {}),
    ...(request.agentId !== undefined ? { agentId: request.agentId } : {}),
    ...(request.profile !== undefined ? { profile: request.profile } : {}),
    ...(request.channel !== undefined ? { channel: request.channel } : {}),
    ...(request.owner !== undefined ? { owner: request.owner } : {}),
  };
}

function promptOf(request: RunRequest): string {
  if (request.input !== undefined) return request.input;
  const lastUser = request.messages?.findLast((m) => m.role === "user");
  return typeof lastUser?.content === "string" ? lastUser.content : "";
}
