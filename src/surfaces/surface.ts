/** What every mode gives the model, and how a model's tool call is answered. */
import { ToolFailedError, ToolSearchError, toErrorPayload, type ErrorPayload } from "../errors.js";
import type { TraceScope } from "../telemetry/otel.js";
import type { ProviderTool } from "./provider-tool.js";

/** One model tool call as a surface answers it. */
export interface SurfaceCall {
  /** Aborted when the run ends. */
  signal: AbortSignal;
  /** The span parent and the provider's call id, for the spans the call makes. */
  trace: TraceScope;
}

export interface Surface {
  readonly tools: ProviderTool[];
  readonly instructions: string;
  /** Catalog tool ids whose schemas the model sees up front. */
  readonly upfrontIds: readonly string[];
  /** Answers one model tool call; the value becomes the tool message (see toToolMessage). */
  handle(name: string, args: Record<string, unknown>, call: SurfaceCall): Promise<unknown>;
}

/** The model reads failures as `{ ok: false, error: { code, message } }`. */
export function errorResult(error: unknown): { ok: false; error: ErrorPayload } {
  if (error instanceof ToolSearchError) return { ok: false, error: error.toJSON() };
  // Anything else is a fault of ours or of a tool, not of the model's call.
  return { ok: false, error: toErrorPayload(error, "TOOL_FAILED") };
}

/** Tool-message content: strings as they are, everything else as JSON. */
export function toToolMessage(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) ?? "null";
  } catch (error) {
    return JSON.stringify(errorResult(new ToolFailedError(`The result could not be serialized: ${error instanceof Error ? error.message : String(error)}`)));
  }
}
