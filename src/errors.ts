/**
 * Every failure the engine or the gateway reports is a ToolSearchError with a stable `code`.
 * Callers match on `code` (or `instanceof`), never on message text; the message says what was
 * wrong and, for model-facing errors, what to do next. ERROR_CODES is the one table of codes:
 * docs/configuration.md's table is generated from it and docs/library.md's list is checked against it
 * (test/error-codes.test.ts).
 */
import { clip } from "./text/prompt-text.js";

interface CodeRow {
  /** The class that carries the code. */
  readonly class: string;
  /** The HTTP status the gateway (`serve`, `mcp --http`) answers it with, where it answers one. */
  readonly status?: number;
  readonly meaning: string;
}

export const ERROR_CODES = {
  CONFIG_INVALID: {
    class: "ConfigInvalidError",
    status: 400,
    meaning:
      "a bad option, config or API value (`createToolSearch`, `prepareRun`, `createCodePool` and `pool.run`, `runAgentTurn`, `run.toolsFor`, a command-line flag), a duplicate tool id, or a missing `${VAR}`; the CLI exits 2",
  },
  TOOL_NOT_FOUND: { class: "ToolNotFoundError", meaning: "no such tool in this run, hidden by policy included; up to three suggestions" },
  TOOL_UNAVAILABLE: {
    class: "ToolUnavailableError",
    meaning:
      "the tool's MCP server is down, still connecting, closed or went away, or its calls keep timing out (its circuit breaker is open); the message says why and when it is tried again",
  },
  TOOL_BUSY: {
    class: "ToolBusyError",
    meaning:
      "the tool's MCP server has `maxConcurrentCalls` calls in flight and this tenant already has `maxQueuedCallsPerTenant` calls waiting for it; the call was not sent",
  },
  AMBIGUOUS_TOOL_NAME: { class: "AmbiguousToolNameError", meaning: "directory mode: a bare name matches several tools; call one by id" },
  NAME_COLLISION: { class: "NameCollisionError", status: 400, meaning: "directory mode: a client tool has the name of a visible catalog tool" },
  INVALID_ARGS: {
    class: "InvalidArgsError",
    meaning:
      "the arguments of a search, describe or tool call (a model's, or `run.search` / `describe` / `call`'s) fail the schema or the size and depth caps; `mcp`: a request whose params fail its method's schema (`tools/call` without `name`), as JSON-RPC -32602; the message names the field",
  },
  APPROVAL_DENIED: { class: "ApprovalDeniedError", meaning: "the `approve` hook said no (or threw)" },
  HOOK_BLOCKED: { class: "HookBlockedError", meaning: "a `beforeToolCall` hook blocked the call (or threw)" },
  TOOL_FAILED: { class: "ToolFailedError", meaning: "the tool threw, an MCP server answered `isError`, or the answer was over the message limit" },
  TOOL_TIMEOUT: {
    class: "ToolTimeoutError",
    meaning: "the call ran past its deadline (`callTimeoutMs`, 60 s by default, or the MCP server's call timeout) and was cancelled",
  },
  CANCELLED: { class: "CancelledError", meaning: "the caller cancelled the call or the code run, or the run ended while it was in flight" },
  CODE_SYNTAX: { class: "CodeError", meaning: "a code-mode body did not parse" },
  CODE_THREW: { class: "CodeError", meaning: "a code-mode body threw" },
  CODE_TIMEOUT: { class: "CodeError", meaning: "a code-mode body ran past `codeTimeoutMs`" },
  CODE_LIMIT: { class: "CodeError", meaning: "a code-mode body went past a pool limit (result, log, bridge calls, memory, frame)" },
  SANDBOX_UNAVAILABLE: { class: "SandboxUnavailableError", meaning: "the code sandbox could not start" },
  SEARCH_ENGINE_UNAVAILABLE: {
    class: "SearchEngineUnavailableError",
    meaning: "the WebAssembly search engine (`dist/wasm/bm25f-core.wasm`, built by `npm run build`) is missing or does not load; nothing falls back to JS",
  },
  POOL_SATURATED: { class: "PoolSaturatedError", meaning: "every sandbox child is busy and the queue, or the caller's share of it, is full" },
  ENGINE_CLOSED: { class: "EngineClosedError", meaning: "the engine, the run or the MCP session has ended" },
  INDEX_CLOSED: { class: "IndexClosedError", meaning: "a search index was used after it was closed (an `EngineClosedError`)" },
  PROVIDER_FAILED: {
    class: "ProviderFailedError",
    status: 502,
    meaning:
      "the model provider failed, answered something that is not a model answer, or did not finish its answer (headers and body) within `provider.timeoutMs`",
  },
  TURN_BUDGET: {
    class: "TurnBudgetError",
    status: 502,
    meaning:
      "an agent turn went past its budget: the next provider request would be over `provider.maxRequestBytes` (it is not sent), or the turn ran past `gateway.turnTimeoutMs`",
  },
  BAD_REQUEST: {
    class: "HttpError",
    status: 400,
    meaning:
      "a request body that fails its schema; `mcp --http`: no session and not an initialize request; `mcp` over stdio: a line that is JSON but no JSON-RPC message (JSON-RPC -32600, id null)",
  },
  PARSE_ERROR: {
    class: "HttpError",
    status: 400,
    meaning: "`mcp`: a body (HTTP) or a line (stdio) that is not JSON, answered as JSON-RPC -32700 (id null); over stdio the next line is served",
  },
  UNAUTHORIZED: { class: "HttpError", status: 401, meaning: "no valid bearer token (`www-authenticate: Bearer`)" },
  FORBIDDEN: {
    class: "HttpError",
    status: 403,
    meaning:
      "the body asks for more than the token allows; without auth: `owner: true` unless `gateway.trustLoopbackIdentity`, or a Host, Origin or Sec-Fetch-Site that is not loopback's",
  },
  NOT_FOUND: { class: "HttpError", status: 404, meaning: "no such route" },
  MODEL_NOT_FOUND: {
    class: "HttpError",
    status: 404,
    meaning: "the OpenAI- and Anthropic-compatible routes: a `model` that `provider.models` does not list for this caller (`GET /v1/models` lists them)",
  },
  SESSION_NOT_FOUND: { class: "HttpError", status: 404, meaning: "`mcp --http`: an unknown session, or another token's" },
  BODY_TOO_LARGE: {
    class: "HttpError",
    status: 413,
    meaning: "a body over `gateway.maxBodyBytes`; `mcp` over stdio: a line over it, answered as a JSON-RPC error (the next line is served)",
  },
  UNSUPPORTED_MEDIA_TYPE: { class: "HttpError", status: 415, meaning: "a POST whose Content-Type is not `application/json`, refused before its body is read" },
  CLIENT_CLOSED: { class: "HttpError", status: 499, meaning: "the caller closed the connection before the answer" },
  INTERNAL: {
    class: "InternalError",
    status: 500,
    meaning:
      "a fault of toolsearch's own, not of the call, the tool or the caller: a tool call answers it in-band on every face, the gateway and `mcp --http` answer 500; the detail goes to stderr or the `toolsearch:error` channel (origin `internal`), never to the model or the client",
  },
  TOO_MANY_SESSIONS: {
    class: "HttpError",
    status: 503,
    meaning:
      "`mcp --http`: `mcp.maxSessions` sessions are open and none of another tenant's is idle (503), or this token or address holds `mcp.maxSessionsPerTenant` (429)",
  },
  TOO_MANY_REQUESTS: {
    class: "HttpError",
    status: 429,
    meaning:
      "`mcp`: the session has `mcp.maxInFlightPerSession` requests in flight; a batch's excess messages get it as their JSON-RPC error. Any face: the tenant has 1,024 searches, describes or unknown-id lookups waiting for their turn on the control path (16,384 all tenants together). The admin API and `/metrics` (both faces): the caller has 4 requests in flight, or all callers 16",
  },
  CLIENT_NOT_READING: {
    class: "ClientNotReadingError",
    meaning: "`mcp`: the client left more than `mcp.maxUnreadBytes` of answers unread; its connection is dropped (stdio: the process exits 1)",
  },
  CLOSING: {
    class: "HttpError",
    status: 503,
    meaning:
      "`serve`, `mcp`: the server is shutting down: a request that arrives during the drain, or one still running at its end (`gateway.drainMs`); `serve` answers a cut turn with its telemetry (which tool calls ran), `mcp` as the request's JSON-RPC error; the admin API, while a face starts or stops",
  },
} as const satisfies Record<string, CodeRow>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorPayload {
  code: ErrorCode;
  message: string;
}

type Options = { cause?: unknown };

export class ToolSearchError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: Options) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
  toJSON(): ErrorPayload {
    return { code: this.code, message: this.message };
  }
}

export class ConfigInvalidError extends ToolSearchError {
  constructor(message: string, options?: Options) {
    super("CONFIG_INVALID", message, options);
  }
}

/** Ids and names longer than this are never looked up or suggested for, and are clipped in messages. */
export const MAX_ID_CHARS = 256;

export class ToolNotFoundError extends ToolSearchError {
  readonly suggestions: readonly string[];
  constructor(id: string, suggestions: readonly string[] = []) {
    const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(", ")}?` : " Use search to find tool ids.";
    super("TOOL_NOT_FOUND", `No tool with id "${clip(id, MAX_ID_CHARS)}".${hint}`);
    this.suggestions = suggestions;
  }
}

/** A tool (`id` given) or a whole MCP server (`id` undefined: the reason is the message) is unavailable. */
export class ToolUnavailableError extends ToolSearchError {
  constructor(id: string | undefined, reason: string, options?: Options) {
    super("TOOL_UNAVAILABLE", id === undefined ? reason : `Tool "${id}" is unavailable: ${reason}. Try another tool or try again later.`, options);
  }
}

/** An MCP server's calls are all in flight and the caller's queue for it is full: the call was not sent. */
export class ToolBusyError extends ToolSearchError {
  constructor(id: string, reason: string) {
    super("TOOL_BUSY", `Tool "${id}" was not called: ${reason}. Wait for your earlier calls to finish, then try again.`);
  }
}

export class AmbiguousToolNameError extends ToolSearchError {
  constructor(name: string, candidates: readonly string[]) {
    super("AMBIGUOUS_TOOL_NAME", `Tool name "${name}" matches several tools (${candidates.join(", ")}); call one by its id.`);
  }
}

export class NameCollisionError extends ToolSearchError {
  constructor(message: string) {
    super("NAME_COLLISION", message);
  }
}

export class InvalidArgsError extends ToolSearchError {
  constructor(message: string) {
    super("INVALID_ARGS", message);
  }
}

export class ApprovalDeniedError extends ToolSearchError {
  constructor(message: string) {
    super("APPROVAL_DENIED", message);
  }
}

export class HookBlockedError extends ToolSearchError {
  constructor(message: string) {
    super("HOOK_BLOCKED", message);
  }
}

export class ToolFailedError extends ToolSearchError {
  constructor(message: string, options?: Options) {
    super("TOOL_FAILED", message, options);
  }
}

/** A tool call ran past its deadline (`callTimeoutMs`, or the MCP server's `callTimeoutMs`); it was cancelled. */
export class ToolTimeoutError extends ToolSearchError {
  constructor(message: string) {
    super("TOOL_TIMEOUT", message);
  }
}

/** The caller cancelled (an aborted signal, an MCP cancel, a closed connection) or the run ended mid-flight. */
export class CancelledError extends ToolSearchError {
  constructor(message: string) {
    super("CANCELLED", message);
  }
}

/** Code-mode failures: one class, the code says which (syntax, threw, timeout, limit). */
export type CodeErrorCode = "CODE_SYNTAX" | "CODE_THREW" | "CODE_TIMEOUT" | "CODE_LIMIT";
export class CodeError extends ToolSearchError {
  constructor(code: CodeErrorCode, message: string) {
    super(code, message);
  }
}

export class SandboxUnavailableError extends ToolSearchError {
  constructor(message: string, options?: Options) {
    super("SANDBOX_UNAVAILABLE", message, options);
  }
}

/** The WebAssembly scoring core (src/search/scoring/bm25f-core.ts) is missing or does not load: a broken build, never a query's fault. */
export class SearchEngineUnavailableError extends ToolSearchError {
  constructor(message: string, options?: Options) {
    super("SEARCH_ENGINE_UNAVAILABLE", message, options);
  }
}

export class PoolSaturatedError extends ToolSearchError {
  constructor(message: string) {
    super("POOL_SATURATED", message);
  }
}

/** The engine, a run, or an MCP face session has ended. */
export class EngineClosedError extends ToolSearchError {
  constructor(message = "The tool-search engine is closed; create a new one.", code: "ENGINE_CLOSED" | "INDEX_CLOSED" = "ENGINE_CLOSED") {
    super(code, message);
  }
}

/** A search index (or the cache that holds them) used after close; `instanceof EngineClosedError` holds. */
export class IndexClosedError extends EngineClosedError {
  constructor() {
    super("The search index is closed; the engine or run that held it has ended.", "INDEX_CLOSED");
  }
}

/** The model provider failed or answered something that is not a model answer (runAgentTurn). */
export class ProviderFailedError extends ToolSearchError {
  constructor(message: string, options?: Options) {
    super("PROVIDER_FAILED", message, options);
  }
}

/** An agent turn went past one of its budgets (request size, whole-turn deadline): runAgentTurn stops it. */
export class TurnBudgetError extends ToolSearchError {
  constructor(message: string, options?: Options) {
    super("TURN_BUDGET", message, options);
  }
}

/** An MCP client that stopped reading its answers: its unread bytes passed `mcp.maxUnreadBytes`. */
export class ClientNotReadingError extends ToolSearchError {
  constructor(message: string) {
    super("CLIENT_NOT_READING", message);
  }
}

/**
 * A fault of toolsearch's own (a bug), told apart from a tool's failure (TOOL_FAILED) so that it
 * is not blamed on the tool or the model. Its message is generic: the detail may hold paths or
 * secrets, so it goes to the operator (stderr, the `toolsearch:error` channel) as the cause.
 */
export class InternalError extends ToolSearchError {
  constructor(message = "An internal error in toolsearch, not a fault of this call; try again, or go on without this tool.", options?: Options) {
    super("INTERNAL", message, options);
  }
}

/** A gateway answer other than 200: the status comes from ERROR_CODES unless given (a ToolSearchError refused at the door is a 400). */
export class HttpError extends ToolSearchError {
  readonly status: number;
  constructor(
    code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    status?: number,
  ) {
    super(code, message);
    this.status = status ?? (ERROR_CODES[code] as CodeRow).status ?? 400;
  }
}

/**
 * Turns anything thrown into `{ code, message }`: a ToolSearchError keeps its own, anything else
 * gets `fallback`. TOOL_FAILED by default, for callers whose throws come from someone else's
 * code (a code pool's bridge handler); where only our own code ran, the caller says INTERNAL
 * (or uses answerPayload, which also keeps the detail from the model).
 */
export function toErrorPayload(error: unknown, fallback: ErrorCode = "TOOL_FAILED"): ErrorPayload {
  if (error instanceof ToolSearchError) return error.toJSON();
  return { code: fallback, message: errorMessage(error) };
}

/** The message of anything thrown: an Error's message, else the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
