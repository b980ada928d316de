/** One agent turn: its effective catalog, its surface, and its telemetry. */
import { randomUUID } from "node:crypto";
import { onAbort } from "../abort-listeners.js";
import type { ToolSearchMode } from "../settings/tool-search-config.js";
import type { RunDispatcher } from "../dispatch/run-dispatcher.js";
import type {
  BatchSearchResult,
  CallOutcome,
  DetailedHit,
  ExplainedHit,
  ExplainOptions,
  SearchHit,
  SearchOptions,
  ToolDescription,
} from "../dispatch/types.js";
import { checkExplainArgs } from "../validation/search-args.js";
import {
  CancelledError,
  ConfigInvalidError,
  EngineClosedError,
  errorMessage,
  InvalidArgsError,
  MAX_ID_CHARS,
  ToolNotFoundError,
  type ErrorPayload,
} from "../errors.js";
import { formatTools, isToolFormat, TOOL_FORMATS, type FormatTools, type ToolFormat } from "../surfaces/formats.js";
import type { ProviderTool } from "../surfaces/provider-tool.js";
import { failedWith, toolMessageOf, type Surface, type SurfaceResult } from "../surfaces/surface.js";
import type { RunRecorder } from "../telemetry/run-recorder.js";
import type { RunTelemetry } from "../telemetry/types.js";
import { argsOverLimits, DEFAULT_ARGS_LIMITS, type ArgsLimits } from "../validation/args-limits.js";
import { DEFAULT_MAX_RESULT_BYTES, DEFAULT_SETTINGS } from "../settings/tool-search-config.js";
import { definedProps } from "../defined.js";

/**
 * A tool call as a provider sends it: `arguments` is a JSON string (OpenAI Chat Completions and
 * Responses) or an object (Anthropic `tool_use.input`); `id` is the provider's call id, used
 * for tracing (`gen_ai.tool.call.id`).
 */
export interface ModelToolCall {
  name: string;
  arguments?: string | Record<string, unknown> | null;
  id?: string;
}

/**
 * JSON text may spell a value in up to 6 characters per character (\uXXXX): a string argument
 * longer than this many times the args byte cap is refused unread.
 */
const JSON_TEXT_FACTOR = 6;
/** Provider call ids kept as span attributes are clipped to this. */
const MAX_CALL_ID_CHARS = 256;

/** A model tool call answered: the tool-message text, and whether (and with which code) it failed. */
export interface ToolCallAnswer {
  text: string;
  /** Set when the answer is a failure `{ ok: false, error }`. */
  error?: ErrorPayload;
  /** The text was cut to `maxResultBytes`. */
  truncated: boolean;
}

/** @internal What a run is built from (engine.prepareRun): named, since several are of one type. */
export interface RunParts {
  runId: string;
  sessionId: string;
  mode: ToolSearchMode;
  /** Aborted by end(): cancels in-flight calls and code bodies. */
  controller: AbortController;
  dispatcher: RunDispatcher;
  surface: Surface;
  recorder: RunRecorder;
  onEnd: (run: ToolSearchRun) => void;
  argsLimits?: ArgsLimits;
  /** Tool-message text past this many UTF-8 bytes is cut (not in code mode). */
  maxResultBytes?: number;
  /** The hit count `explain` returns without a limit (searchDefaultLimit). */
  searchDefaultLimit?: number;
}

export function newRunId(): string {
  return randomUUID();
}

export class ToolSearchRun {
  /** The tools in the OpenAI Chat Completions format (`toolsFor("openai-chat")`). */
  readonly tools: ProviderTool[];
  readonly instructions: string;
  private ended = false;
  /** Names a format forbade, as sent → as the surface knows them; filled by toolsFor. */
  private readonly renamed = new Map<string, string>();

  readonly runId: string;
  readonly sessionId: string;
  readonly mode: ToolSearchMode;
  private readonly controller: AbortController;
  private readonly dispatcher: RunDispatcher;
  private readonly surface: Surface;
  private readonly recorder: RunRecorder;
  private readonly onEnd: (run: ToolSearchRun) => void;
  private readonly argsLimits: ArgsLimits;
  private readonly maxResultBytes: number;
  private readonly searchDefaultLimit: number;

  /** @internal engine.prepareRun builds runs */
  constructor(parts: RunParts) {
    this.runId = parts.runId;
    this.sessionId = parts.sessionId;
    this.mode = parts.mode;
    this.controller = parts.controller;
    this.dispatcher = parts.dispatcher;
    this.surface = parts.surface;
    this.recorder = parts.recorder;
    this.onEnd = parts.onEnd;
    this.argsLimits = parts.argsLimits ?? DEFAULT_ARGS_LIMITS;
    this.maxResultBytes = parts.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
    this.searchDefaultLimit = parts.searchDefaultLimit ?? DEFAULT_SETTINGS.searchDefaultLimit;
    this.tools = this.surface.tools;
    this.instructions = this.surface.instructions;
  }

  /**
   * The run's tools in a provider's format: "openai-chat" (`run.tools`), "openai-responses"
   * (flat function tools) or "anthropic" (`{ name, description, input_schema }`). The same
   * tools and instructions in every format; a name the format forbids is mapped once and
   * mapped back when the model calls it.
   */
  toolsFor<F extends ToolFormat>(format: F): FormatTools[F] {
    if (!isToolFormat(format))
      throw new ConfigInvalidError(`Unknown tool format ${JSON.stringify(format)?.slice(0, 64)}; use one of ${TOOL_FORMATS.join(", ")}.`);
    const { tools, renamed } = formatTools(this.surface.tools, format);
    for (const [sent, name] of renamed) this.renamed.set(sent, name);
    return tools;
  }

  async search(query: string, options?: SearchOptions): Promise<SearchHit[]>;
  async search(query: readonly string[], options?: SearchOptions): Promise<BatchSearchResult[]>;
  async search(query: string | readonly string[], options?: SearchOptions): Promise<SearchHit[] | BatchSearchResult[]> {
    this.assertActive();
    return this.dispatcher.search(query, options, "api", this.controller.signal);
  }

  /**
   * The hits `search` would return, each saying whether learning from use ranked it higher
   * (`learned`); with `{ detail: true }`, also the ranking steps that placed it (`detail.steps`:
   * exact name, the whole request's and each clause's list with the BM25F score per word and
   * field, fusion, siblings, expansions, client merge, learning, weak match). Not recorded as a
   * search, and teaches nothing: for operators and benchmarks.
   */
  async explain(query: string, options?: SearchOptions & { detail?: false }): Promise<ExplainedHit[]>;
  async explain(query: string, options: SearchOptions & { detail: true }): Promise<DetailedHit[]>;
  async explain(query: string, options?: ExplainOptions): Promise<ExplainedHit[] | DetailedHit[]>;
  async explain(query: string, options?: ExplainOptions): Promise<ExplainedHit[] | DetailedHit[]> {
    this.assertActive();
    const { query: q, limit, detail } = checkExplainArgs(query, options);
    return this.dispatcher.inTurn(() => this.dispatcher.explain(q, limit ?? this.searchDefaultLimit, detail), this.controller.signal);
  }

  /**
   * Learning from use, told directly: `request` led to the catalog tool `id` (as a search
   * followed by a successful call of it would). Counted like one: once per session, after
   * `minSessions` sessions. TOOL_NOT_FOUND for an id this run cannot see; INVALID_ARGS for an
   * empty request or a client tool. Resolves to false when learning is off.
   */
  async feedback(request: string, id: string): Promise<boolean> {
    this.assertActive();
    return this.dispatcher.feedback(request, id);
  }

  async describe(id: string): Promise<ToolDescription> {
    this.assertActive();
    return this.dispatcher.describe(id, "api", this.controller.signal);
  }

  async call(id: string, args: Record<string, unknown> = {}): Promise<CallOutcome> {
    this.assertActive();
    return this.dispatcher.call(id, args, "api", this.controller.signal);
  }

  /**
   * Answers one model tool call on this run's surface and returns the tool-message content.
   * Never throws: malformed arguments, unknown names and failures come back as
   * `{ ok: false, error: { code, message } }` text the model can read.
   */
  async handleToolCall(call: ModelToolCall): Promise<string> {
    return (await this.answerToolCall(call)).text;
  }

  /**
   * handleToolCall with the outcome spelled out (for MCP's `isError`). Never throws. Unless the
   * surface bounds its own results (code mode's sandbox does), the text is cut to `maxResultBytes` with a marker.
   */
  async answerToolCall(call: ModelToolCall, signal?: AbortSignal): Promise<ToolCallAnswer> {
    let answer: SurfaceResult;
    const cancel = signal ? this.callCanceller(signal) : undefined;
    try {
      this.assertActive();
      if (typeof call !== "object" || call === null || typeof call.name !== "string") {
        throw new InvalidArgsError("A tool call needs a name (string) and arguments (a JSON object string, or an object).");
      }
      // No tool or control tool has a name this long: answered at once, arguments unread.
      if (call.name.length > MAX_ID_CHARS) throw new ToolNotFoundError(call.name);
      const name = this.renamed.get(call.name) ?? call.name;
      const args = parseArguments(name, call.arguments, this.argsLimits);
      const callId = typeof call.id === "string" && call.id.length > 0 ? call.id.slice(0, MAX_CALL_ID_CHARS) : undefined;
      const trace = { parent: this.dispatcher.trace.context, ...definedProps({ callId }) };
      answer = await this.surface.handle(name, args, { signal: cancel?.signal ?? this.controller.signal, trace });
    } catch (error) {
      answer = failedWith(error, { sessionId: this.sessionId, runId: this.runId });
    } finally {
      cancel?.release();
    }
    const { text: full, error } = toolMessageOf(answer);
    const { text, truncated } = this.surface.selfBounded ? { text: full, truncated: false } : boundResult(full, this.maxResultBytes);
    return { text, truncated, ...(error ? { error } : {}) };
  }

  /**
   * A signal aborted when the run ends or the caller's `signal` aborts (an MCP client cancelled
   * the request). Both are listened to directly and released after the call: `AbortSignal.any`
   * keeps combined signals alive on Node 20 (see call-path.ts).
   */
  private callCanceller(signal: AbortSignal): { signal: AbortSignal; release(): void } {
    const controller = new AbortController();
    const sources = [this.controller.signal, signal];
    const abort = () =>
      controller.abort(this.controller.signal.aborted ? this.controller.signal.reason : new CancelledError("The call was cancelled by the client."));
    if (sources.some((s) => s.aborted)) abort();
    const offs = sources.some((s) => s.aborted) ? [] : sources.map((s) => onAbort(s, abort));
    return {
      signal: controller.signal,
      release: () => {
        for (const off of offs) off();
      },
    };
  }

  /** @internal The catalog tools this run declares by name (direct mode, directory's up-front schemas): name → id. */
  declaredTools(): Map<string, string> {
    const ids = this.surface.upfrontIds;
    const declared = this.tools.slice(this.tools.length - ids.length);
    return new Map(declared.map((tool, i) => [tool.function.name, ids[i]!]));
  }

  /** @internal Every catalog tool id this run may see. */
  visibleToolIds(): ReadonlySet<string> {
    return this.dispatcher.catalog.catalogIds;
  }

  telemetry(): RunTelemetry {
    return this.recorder.snapshot();
  }

  /** Ends the run: in-flight calls and code bodies are cancelled, `run_end` is logged. Idempotent. */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.controller.abort(new CancelledError("The run ended."));
    this.recorder.end();
    this.dispatcher.trace.end(this.recorder.snapshot().counts);
    this.onEnd(this);
  }

  private assertActive(): void {
    if (this.ended) throw new EngineClosedError(`Run ${this.runId} has ended; prepare a new run.`);
  }
}

function parseArguments(name: string, raw: ModelToolCall["arguments"], limits: ArgsLimits): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === "") return {};
  let value: unknown = raw;
  if (typeof raw === "string") {
    // Bounded before it is parsed: the parse is the work that grows with it.
    if (raw.length > limits.maxBytes * JSON_TEXT_FACTOR)
      throw new InvalidArgsError(`Arguments of "${name}" were refused: ${raw.length} characters of JSON is over the limit. Send smaller arguments.`);
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new InvalidArgsError(`Arguments of "${name}" are not valid JSON (${errorMessage(error)}); send a JSON object.`);
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidArgsError(`Arguments of "${name}" must be a JSON object; got ${Array.isArray(value) ? "an array" : typeof value}.`);
  }
  // An object from the provider's own parse (Anthropic) is bounded the same way, before any surface walks it.
  const over = argsOverLimits(value, { maxBytes: limits.maxBytes * 2, maxDepth: limits.maxDepth + 2 });
  if (over) throw new InvalidArgsError(`Arguments of "${name}" were refused: ${over}. Send smaller arguments.`);
  return value as Record<string, unknown>;
}

/** What the cut marker names by default: the per-call cap. */
const PER_CALL_CUT = { setting: "tools.toolSearch.maxResultBytes", advice: "ask the tool for less" };

/**
 * Text past `maxBytes` UTF-8 bytes is cut at a character boundary and ends with a marker the
 * model can read, so a 5 MB tool result costs the model 1 MiB at most. `why` names the limit in
 * the marker and what the model should do (the agent turn's byte budget reuses this cut).
 */
export function boundResult(text: string, maxBytes: number, why: { setting: string; advice: string } = PER_CALL_CUT): { text: string; truncated: boolean } {
  // A UTF-16 unit is at most 3 UTF-8 bytes: short text needs no counting.
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  const total = Buffer.byteLength(text);
  if (total <= maxBytes) return { text, truncated: false };
  const marker = `\n[toolsearch: result cut to ${maxBytes} of ${total} bytes (${why.setting}); ${why.advice}]`;
  const keep = Math.max(0, maxBytes - Buffer.byteLength(marker));
  const bytes = Buffer.from(text.slice(0, keep), "utf8");
  // Back up to the start of a character: a continuation byte (10xxxxxx) at the cut means one was split.
  let end = Math.min(keep, bytes.length);
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return { text: `${bytes.subarray(0, end).toString("utf8")}${marker}`, truncated: true };
}
