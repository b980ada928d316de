/**
 * The gateway's OpenAI- and Anthropic-compatible face: any client of those APIs points its
 * `baseURL` at `toolsearch serve` and its API key is the gateway's bearer token.
 *
 *   POST /v1/chat/completions   OpenAI Chat Completions (chat-completions.ts)
 *   POST /v1/responses          OpenAI Responses, stateless (responses.ts)
 *   POST /v1/messages           Anthropic Messages (messages.ts)
 *   GET  /v1/models[/ID]        the model aliases (provider.models) this caller may use, in
 *                               Anthropic's shape when the request carries `anthropic-version`
 *
 * Each request is one turn (compat-turn.ts). The answer is the API's own: whole, or with
 * `stream: true` Server-Sent Events as the provider sends them, the model's text streamed as it
 * arrives; calls that run here happen before the answer and are announced as SSE comments, which
 * clients skip. Errors come in the API's own shape with the toolsearch code inside and the
 * status the gateway's table gives (src/errors.ts), so client SDKs raise their usual exception
 * classes; an error after a stream has begun is the API's in-stream error. The checks are
 * /v1/runs': the browser guard, the token (Authorization: Bearer, or Anthropic's x-api-key)
 * checked before the body is read, the JSON content type, `gateway.maxBodyBytes`; a stream
 * leaves the client at most `provider.maxResponseBytes` unread, and a client that hangs up
 * cancels its turn.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { unauthorized, identityFromToken, type TokenIdentity, type TokenTable } from "../../auth/token-auth.js";
import type { ServerConfig, ModelAlias } from "../../config/server-config.js";
import { CancelledError, ERROR_CODES, errorMessage, HttpError, ToolSearchError, type ErrorCode } from "../../errors.js";
import { sendJson } from "../../http/json-http.js";
import type { RequestGuard } from "../../http/request-guard.js";
import { SseResponse } from "../../http/sse.js";
import { anthropicErrorBody, openAiErrorBody, type WireError } from "../../wire/error-body.js";
import type { ReplyHead } from "../../wire/reply.js";
import { onAbort } from "../../abort-listeners.js";
import { chatCompletionsApi } from "./chat-completions.js";
import type { CompatApi, CompatRequest } from "./compat-api.js";
import { prepareCompatTurn, type CompatTurnContext, type CompatTurnOutcome, type PreparedCompatTurn } from "./compat-turn.js";
import { messagesApi } from "./messages.js";
import { responsesApi } from "./responses.js";
import { definedProps } from "../../defined.js";

export interface CompatRoutesContext extends CompatTurnContext {
  config: ServerConfig;
  /** The gateway's tokens; undefined without gateway.auth. */
  tokens: TokenTable | undefined;
  guard: RequestGuard;
  /** Whether requests are logged (`--verbose`): the log line then names the turn's session. */
  logged: boolean;
  /** The gateway's shutdown: while it drains, a new request is refused; at the drain's end, `cut` stops the turns still running. */
  shutdown?: { draining(): boolean; cut: AbortSignal };
}

export interface CompatRoutes {
  /** Answers the request when its path is one of these routes (true), else leaves it (false). */
  serve(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

const TURN_ROUTES: ReadonlyMap<string, CompatApi> = new Map([
  ["/v1/chat/completions", chatCompletionsApi],
  ["/v1/responses", responsesApi],
  ["/v1/messages", messagesApi],
]);
const MODELS = "/v1/models";
/** Paths under these are the APIs' other endpoints (count_tokens, retrieve a response…): a 404 in that API's shape. */
const API_PREFIXES: ReadonlyArray<[string, CompatApi["family"]]> = [
  ["/v1/chat/", "openai"],
  ["/v1/responses/", "openai"],
  ["/v1/messages/", "anthropic"],
];

export const COMPAT_ROUTE_NAMES = "POST /v1/chat/completions, POST /v1/responses, POST /v1/messages, GET /v1/models";

export function compatRoutes(context: CompatRoutesContext): CompatRoutes {
  const { config, guard, tokens } = context;
  const aliases = new Map(config.provider.models.map((alias) => [alias.id, alias]));
  const listedSince = Math.floor(Date.now() / 1000);

  /** The caller's token identity; undefined without a valid token; null when the gateway has no auth. */
  function identityOf(req: IncomingMessage): TokenIdentity | null | undefined {
    if (!tokens) return null;
    const apiKey = req.headers["x-api-key"];
    return tokens.match(req.headers.authorization ?? (typeof apiKey === "string" ? `Bearer ${apiKey}` : undefined));
  }

  /** Whether the caller may run the alias: its mode, if it names one, must be one the token allows. */
  function usable(alias: ModelAlias, identity: TokenIdentity | null): boolean {
    if (identity === null) return true;
    try {
      identityFromToken(definedProps({ mode: alias.mode }), identity, context.engine.settings.mode);
      return true;
    } catch {
      return false;
    }
  }

  function aliasFor(name: string, identity: TokenIdentity | null): ModelAlias {
    const alias = aliases.get(name);
    if (alias && usable(alias, identity)) return alias;
    const listed = config.provider.models.filter((a) => usable(a, identity)).map((a) => `"${a.id}"`);
    throw new HttpError(
      "MODEL_NOT_FOUND",
      `The model ${JSON.stringify(name.slice(0, 256))} is not one this gateway serves${listed.length > 0 ? `; use one of ${listed.slice(0, 20).join(", ")}` : ""} (GET /v1/models lists them; provider.models in the config).`,
    );
  }

  function listModels(res: ServerResponse, path: string, identity: TokenIdentity | null, family: CompatApi["family"]): void {
    const one = path.length > MODELS.length + 1 ? decodedSegment(path.slice(MODELS.length + 1)) : undefined;
    const visible = one !== undefined ? [aliasFor(one, identity)] : config.provider.models.filter((a) => usable(a, identity));
    const entries = visible.map((alias) => modelEntry(alias.id, family, listedSince));
    if (one !== undefined) return sendJson(res, 200, entries[0]);
    if (family === "openai") return sendJson(res, 200, { object: "list", data: entries });
    sendJson(res, 200, { data: entries, has_more: false, first_id: visible[0]?.id ?? null, last_id: visible.at(-1)?.id ?? null });
  }

  async function serveTurn(api: CompatApi, body: unknown, identity: TokenIdentity | null, res: ServerResponse): Promise<void> {
    const request = api.parse(body);
    if (request.messages.length === 0) throw new HttpError("BAD_REQUEST", "body: the conversation holds no message to answer (no text and no tool result)");
    const alias = aliasFor(request.model, identity);
    const turn = await prepareCompatTurn(context, { alias, messages: request.messages, tools: request.tools }, identity);
    const headers = { "x-toolsearch-run": turn.runId };
    if (context.logged) res.setHeader("x-toolsearch-session", turn.sessionId);
    const head: ReplyHead = { id: api.newId(), model: request.model, created: Math.floor(Date.now() / 1000) };
    // A caller that hangs up stops its turn: no more provider requests or tool calls for nobody.
    // So does the end of a shutdown's drain, answered CLOSING in the API's shape.
    const hangUp = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) hangUp.abort(new CancelledError("The caller closed the connection."));
    };
    res.once("close", onClose);
    const cut = context.shutdown?.cut;
    const offCut = cut === undefined ? () => {} : onAbort(cut, () => hangUp.abort(cut.reason));
    try {
      if (request.stream) await streamTurn(api, request, head, headers, turn, hangUp.signal, res);
      else {
        const outcome = await turn.run(hangUp.signal);
        sendJson(res, 200, { ...api.whole({ ...head, ...outcome }), toolsearch: extension(outcome) }, headers);
      }
    } finally {
      offCut();
      res.off("close", onClose);
    }
  }

  /** The stream opens before the turn runs: the client's SDK has its stream at once, and server-side rounds come before the answer. */
  async function streamTurn(
    api: CompatApi,
    request: CompatRequest,
    head: ReplyHead,
    headers: Record<string, string>,
    turn: PreparedCompatTurn,
    signal: AbortSignal,
    res: ServerResponse,
  ): Promise<void> {
    const sse = new SseResponse(res, config.provider.maxResponseBytes);
    const writer = api.writer(head, request);
    sse.open(headers);
    sse.write(writer.open());
    try {
      const outcome = await turn.run(signal, {
        onText: (delta) => sse.write(writer.text(delta)),
        onServerCall: (name) => sse.comment(`toolsearch: ran ${name}`),
      });
      for (const call of outcome.calls) sse.write(writer.toolCall(call));
      sse.end(writer.close(outcome.usage));
    } catch (error) {
      sse.end(writer.fail(wireError(error).error));
    }
  }

  return {
    async serve(req, res) {
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      const api = TURN_ROUTES.get(path);
      const models = path === MODELS || path.startsWith(`${MODELS}/`);
      const other = API_PREFIXES.find(([prefix]) => path.startsWith(prefix))?.[1];
      if (!api && !models && !other) return false;
      const family = api?.family ?? other ?? (req.headers["anthropic-version"] !== undefined ? "anthropic" : "openai");
      try {
        // Before anything, as for every route: a rebound page must not even learn that this port answers.
        guard.admit(req);
        if (context.shutdown?.draining())
          throw new HttpError(
            "CLOSING",
            "The gateway is shutting down: this instance takes no new request; send it to another instance, or again once this one is back.",
          );
        const identity = identityOf(req);
        // Before the body is read: a caller without a token costs a header check, not a body's parse.
        if (identity === undefined) throw unauthorized(req.headers.authorization ?? (req.headers["x-api-key"] as string | undefined), "gateway");
        if (api && req.method === "POST") await serveTurn(api, await guard.readJson(req, config.gateway.maxBodyBytes, "BAD_REQUEST"), identity, res);
        else if (models && req.method === "GET") listModels(res, path, identity, family);
        else throw new HttpError("NOT_FOUND", `No route ${req.method} ${path}; this gateway serves ${COMPAT_ROUTE_NAMES}.`);
      } catch (error) {
        sendError(res, family, error);
      }
      return true;
    },
  };
}

/** A path segment as the client meant it; one that is not valid percent-encoding is taken as written (and is then no model's name). */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** What a whole answer says of the turn beside the API's fields (clients ignore unknown fields). */
function extension(outcome: CompatTurnOutcome): Record<string, unknown> {
  return { runId: outcome.runId, mode: outcome.mode, toolCalls: outcome.serverToolCalls };
}

function modelEntry(id: string, family: CompatApi["family"], created: number): Record<string, unknown> {
  if (family === "openai") return { id, object: "model", created, owned_by: "toolsearch" };
  return { type: "model", id, display_name: id, created_at: new Date(created * 1000).toISOString() };
}

/**
 * Anything thrown, as the status, code and message a client is told, and the headers that go
 * with them. A failure that is not the caller's, the provider's or a budget's is ours: its
 * detail (paths, hosts, secrets) goes to the operator's stderr, the client hears "internal error".
 */
function wireError(error: unknown): { error: WireError; headers: Record<string, string> } {
  if (error instanceof HttpError) return { error: { status: error.status, code: error.code, message: error.message }, headers: error.headers };
  if (error instanceof CancelledError) return { error: { status: 499, code: "CLIENT_CLOSED", message: error.message }, headers: {} };
  if (error instanceof ToolSearchError && (error.code === "PROVIDER_FAILED" || error.code === "TURN_BUDGET")) {
    // A budget is spent whatever the client tries again; a provider may come back.
    const headers: Record<string, string> = error.code === "TURN_BUDGET" ? { "x-should-retry": "false" } : {};
    return { error: { status: ERROR_CODES[error.code].status, code: error.code, message: error.message }, headers };
  }
  console.error(`toolsearch gateway: internal error on a compatible route: ${errorMessage(error).replace(/\s+/g, " ")}`);
  return { error: { status: 500, code: "INTERNAL" satisfies ErrorCode, message: "internal error" }, headers: {} };
}

function sendError(res: ServerResponse, family: CompatApi["family"], thrown: unknown): void {
  const { error, headers } = wireError(thrown);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, family === "openai" ? openAiErrorBody(error) : anthropicErrorBody(error), headers);
}
