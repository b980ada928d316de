/**
 * What every mode gives the model, and how a model's tool call is answered. A mode is one
 * SurfaceMode registered in SURFACES (modes.ts); the engine builds whichever the run asks for.
 */
import type { EffectiveCatalog } from "../catalog/effective-catalog.js";
import type { ToolSearchMode, ToolSearchSettings } from "../settings/tool-search-config.js";
import type { RunDispatcher } from "../dispatch/run-dispatcher.js";
import { ToolFailedError, ToolSearchError, toErrorPayload, type ErrorPayload } from "../errors.js";
import type { CodePool } from "../sandbox/types.js";
import type { TraceScope } from "../telemetry/otel.js";
import type { RunRecorder } from "../telemetry/run-recorder.js";
import type { RunTelemetry } from "../telemetry/types.js";
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
  /** The surface bounds its own results (code mode's sandbox does): the run does not cut them to maxResultBytes. */
  readonly selfBounded?: boolean;
  /** Answers one model tool call; the value becomes the tool message (see toToolMessage). */
  handle(name: string, args: Record<string, unknown>, call: SurfaceCall): Promise<unknown>;
}

/** What one run's surface is built from. */
export interface SurfaceInput {
  dispatcher: RunDispatcher;
  settings: ToolSearchSettings;
  recorder: RunRecorder;
  /** The code sandbox: given to a mode with `sandboxFallback`, and only when it is available. */
  pool?: CodePool;
  /** Whose run this is (RunContext.tenant, else the session): the code pool's fair-share key. */
  tenant: string;
  prompt?: string;
}

/** One mode. Per-catalog work a mode reuses across runs goes in `dispatcher.catalog.shared`. */
export interface SurfaceMode {
  /** This mode runs code in the sandbox; without a working one the run takes this mode instead, and telemetry says why. */
  readonly sandboxFallback?: ToolSearchMode;
  /** Refuses a run this mode cannot show, before anything of the run is started. */
  check?(catalog: EffectiveCatalog): void;
  build(input: SurfaceInput): Surface;
}

/** Tool-list sizes as JSON, once per list: direct mode's declaration is shared by runs, so is its size. */
const toolsBytes = new WeakMap<readonly ProviderTool[], number>();

/** What the model is shown up front, for telemetry. */
export function upfrontOf(surface: Surface): RunTelemetry["upfront"] {
  let bytes = toolsBytes.get(surface.tools);
  if (bytes === undefined) toolsBytes.set(surface.tools, (bytes = Buffer.byteLength(JSON.stringify(surface.tools))));
  return { schemas: surface.upfrontIds.length, declaredTools: surface.tools.length, toolsBytes: bytes, instructionsBytes: Buffer.byteLength(surface.instructions) };
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
