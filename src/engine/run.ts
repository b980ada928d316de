/** One agent turn: its effective catalog, its surface, and its telemetry. */
import { randomUUID } from "node:crypto";
import type { ToolSearchMode } from "../config/tool-search-config.js";
import type { RunDispatcher } from "../dispatch/run-dispatcher.js";
import type { BatchSearchResult, CallOutcome, SearchHit, SearchOptions, ToolDescription } from "../dispatch/types.js";
import { InvalidArgsError, MAX_ID_CHARS, ToolNotFoundError, ToolSearchError } from "../errors.js";
import type { ProviderTool } from "../surfaces/provider-tool.js";
import { errorResult, toToolMessage, type Surface } from "../surfaces/surface.js";
import type { RunRecorder } from "../telemetry/run-recorder.js";
import type { RunTelemetry } from "../telemetry/types.js";

/** A tool call as a provider sends it: `arguments` is usually a JSON string. */
export interface ModelToolCall {
  name: string;
  arguments?: string | Record<string, unknown> | null;
}

export function newRunId(): string {
  return randomUUID();
}

export class ToolSearchRun {
  readonly tools: ProviderTool[];
  readonly instructions: string;
  private ended = false;

  constructor(
    readonly runId: string,
    readonly sessionId: string,
    readonly mode: ToolSearchMode,
    /** Aborted by end(): cancels in-flight calls and code bodies. */
    private readonly controller: AbortController,
    private readonly dispatcher: RunDispatcher,
    private readonly surface: Surface,
    private readonly recorder: RunRecorder,
    private readonly onEnd: (run: ToolSearchRun) => void,
  ) {
    this.tools = surface.tools;
    this.instructions = surface.instructions;
  }

  async search(query: string, options?: SearchOptions): Promise<SearchHit[]>;
  async search(query: readonly string[], options?: SearchOptions): Promise<BatchSearchResult[]>;
  async search(query: string | readonly string[], options?: SearchOptions): Promise<SearchHit[] | BatchSearchResult[]> {
    this.assertActive();
    return this.dispatcher.search(query, options);
  }

  async describe(id: string): Promise<ToolDescription> {
    this.assertActive();
    return this.dispatcher.describe(id);
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
    try {
      this.assertActive();
      if (typeof call !== "object" || call === null || typeof call.name !== "string") {
        throw new InvalidArgsError("A tool call needs a name (string) and arguments (a JSON object string).");
      }
      // No tool or control tool has a name this long: answered at once, arguments unread.
      if (call.name.length > MAX_ID_CHARS) throw new ToolNotFoundError(call.name);
      return toToolMessage(await this.surface.handle(call.name, parseArguments(call.name, call.arguments), this.controller.signal));
    } catch (error) {
      return toToolMessage(errorResult(error));
    }
  }

  telemetry(): RunTelemetry {
    return this.recorder.snapshot();
  }

  /** Ends the run: in-flight calls and code bodies are cancelled, `run_end` is logged. Idempotent. */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.controller.abort(new ToolSearchError("TOOL_FAILED", "The run ended."));
    this.recorder.end();
    this.onEnd(this);
  }

  private assertActive(): void {
    if (this.ended) throw new ToolSearchError("ENGINE_CLOSED", `Run ${this.runId} has ended; prepare a new run.`);
  }
}

function parseArguments(name: string, raw: ModelToolCall["arguments"]): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === "") return {};
  let value: unknown = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new InvalidArgsError(`Arguments of "${name}" are not valid JSON (${error instanceof Error ? error.message : String(error)}); send a JSON object.`);
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidArgsError(`Arguments of "${name}" must be a JSON object; got ${Array.isArray(value) ? "an array" : typeof value}.`);
  }
  return value as Record<string, unknown>;
}
