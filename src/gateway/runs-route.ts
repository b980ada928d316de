/**
 * POST /v1/runs, the gateway's own route: one agent turn (runAgentTurn) per request, against the
 * configured provider, with the engine's tools behind the run's surface. The body (run-request.ts)
 * holds the conversation (`input` or `messages`), the session, and may bring client tools, whose
 * calls are not run here but handed back in the answer's `clientToolCalls`. The run's identity is
 * the token's, a body field asking for more being a 403; without gateway.auth it is the body's,
 * except `owner: true`, which needs `gateway.trustLoopbackIdentity`.
 *
 * The answer: 200 with the turn, the client tool calls and the run's telemetry; 400 for a body or
 * a run the engine refuses; 502 when the provider failed or a turn budget was spent; 503 CLOSING
 * when the gateway's drain ended with the turn still running; 499 when the caller hung up, which
 * stops its turn. The gateway's router (gateway-server.ts) has made the checks every route shares
 * (the browser guard, the drain, the token) before it hands a request here.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { runAgentTurn, type AgentProvider, type AgentTurnInput } from "../agent/agent-turn.js";
import { identityFromToken, loopbackIdentity, tokenTenant, type TokenIdentity } from "../auth/token-auth.js";
import type { ServerConfig } from "../config/server-config.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import type { ToolSearchRun } from "../engine/run.js";
import { CancelledError, HttpError, ProviderFailedError, ToolSearchError, TurnBudgetError } from "../errors.js";
import { clientAddressKey } from "../http/client-address.js";
import { sendJson } from "../http/json-http.js";
import type { RequestGuard } from "../http/request-guard.js";
import type { ToolSearchMode } from "../settings/tool-search-config.js";
import { onAbort } from "../abort-listeners.js";
import { parseRunRequest, type RunRequest } from "./run-request.js";
import { clientToolOf, type ClientToolCall } from "./client-tool.js";
import { definedProps } from "../defined.js";

/** What the route needs from the gateway that serves it. */
export interface RunsRouteContext {
  engine: ToolSearchEngine;
  provider: AgentProvider;
  /** `gateway.maxBodyBytes` bounds the body read. */
  config: ServerConfig;
  guard: RequestGuard;
  /** `gateway.trustLoopbackIdentity`. */
  trustLoopbackIdentity: boolean;
  /** The gateway's turn budgets (maxTurns, deadlines, byte caps). */
  budgets: Pick<AgentTurnInput, "maxTurns" | "timeoutMs" | "turnTimeoutMs" | "maxTurnResultBytes" | "maxRequestBytes">;
  /** Whether requests are logged (`--verbose`): the answer then names its session (x-toolsearch-session). */
  logged: boolean;
  /** The gateway's shutdown: at the drain's end, `cut` stops the turns still running (its reason, CLOSING, is their answer). */
  shutdown: { cut: AbortSignal };
}

export const RUNS_PATH = "/v1/runs";

export class RunsRoute {
  constructor(private readonly context: RunsRouteContext) {}

  /** POST /v1/runs for a caller the router admitted (`null`: the gateway has no auth): the body read (bounded), one turn run, its answer sent. */
  async answer(identity: TokenIdentity | null, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await this.context.guard.readJson(req, this.context.config.gateway.maxBodyBytes, "BAD_REQUEST");
    const [status, answer] = await this.#runTurn(body, identity, req, res);
    const session = (answer as { sessionId?: unknown }).sessionId;
    if (this.context.logged && typeof session === "string") res.setHeader("x-toolsearch-session", encodeURIComponent(session.slice(0, 64)));
    return sendJson(res, status, answer);
  }

  async #runTurn(body: unknown, identity: TokenIdentity | null, req: IncomingMessage, res: ServerResponse): Promise<[number, unknown]> {
    const { engine, provider, budgets, trustLoopbackIdentity } = this.context;
    const parsed = parseRunRequest(body);
    const request = identity ? withTokenIdentity(parsed, identity, engine.settings.mode) : loopbackIdentity(parsed, trustLoopbackIdentity);
    const clientToolCalls: ClientToolCall[] = [];
    const run = await this.#prepareRun(request, identity, req, clientToolCalls);
    // A caller that hangs up stops its turn: no more provider requests or tool calls for nobody.
    // So does the drain's end at shutdown, with CLOSING as the reason.
    const stop = this.#turnSignal(res);
    try {
      const messages = request.messages ?? [{ role: "user" as const, content: request.input! }];
      const { telemetry: _during, ...turn } = await runAgentTurn({ run, provider, messages, ...budgets, signal: stop.signal });
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
      return await this.context.engine.prepareRun({
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
    const { cut } = this.context.shutdown;
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
    if (error === this.context.shutdown.cut.reason) return [503, { runId: run.runId, error: (error as HttpError).toJSON(), telemetry: run.telemetry() }];
    // Nobody is left to read an answer.
    if (signal.aborted) return [499, { runId: run.runId, error: new HttpError("CLIENT_CLOSED", "The caller closed the connection.").toJSON() }];
    throw error;
  }
}

/** The request with the token's identity in place of the body's; a body field asking for more is a 403. */
function withTokenIdentity(request: RunRequest, identity: TokenIdentity, defaultMode: ToolSearchMode): RunRequest {
  const { agentId, owner, channel, mode, ...rest } = request;
  return { ...rest, ...identityFromToken(request, identity, defaultMode) };
}

/** The run context's fields the body gave. */
function pick(request: RunRequest): Pick<RunRequest, "agentId" | "profile" | "channel" | "owner" | "mode"> {
  return definedProps({ mode: request.mode, agentId: request.agentId, profile: request.profile, channel: request.channel, owner: request.owner });
}

/** The run's prompt (the directory surface picks likely schemas from it): the input, else the last user message's text. */
function promptOf(request: RunRequest): string {
  if (request.input !== undefined) return request.input;
  const lastUser = request.messages?.findLast((m) => m.role === "user");
  return typeof lastUser?.content === "string" ? lastUser.content : "";
}
