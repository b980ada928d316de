/**
 * What every mode gives the model, and how a model's tool call is answered. A mode is one
 * SurfaceMode registered in SURFACES (modes.ts); the engine builds whichever the run asks for.
 */
import type { EffectiveCatalog } from "../catalog/effective-catalog.js";
import type { ToolSearchMode, ToolSearchSettings } from "../settings/tool-search-config.js";
import type { RunDispatcher } from "../dispatch/run-dispatcher.js";
import { errorMessage, ToolFailedError, type ErrorPayload } from "../errors.js";
import { answerError, type FailureContext } from "../error-channel.js";
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
  /** Answers one model tool call: `value` becomes the tool message (see toToolMessage); `ok` says whether it failed. */
  handle(name: string, args: Record<string, unknown>, call: SurfaceCall): Promise<SurfaceResult>;
}

/**
 * A model tool call as a surface answered it. Whether it failed is said here, never read off the
 * value: a tool's real result may itself look like `{ ok: false, error: { code } }`. A failure's
 * `value` is what the model reads (the `{ ok: false, error }` body, code mode adds its logs).
 */
export type SurfaceResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: ErrorPayload; readonly value: unknown };

export function succeeded(value: unknown): SurfaceResult {
  return { ok: true, value };
}

/** A failure the model reads as `{ ok: false, error }`, or as `value` when the surface says more. */
export function failed(error: ErrorPayload, value: unknown = { ok: false, error }): SurfaceResult {
  return { ok: false, error, value };
}

/** A failure from anything thrown (errorResult decides its code). */
export function failedWith(error: unknown, context?: FailureContext): SurfaceResult {
  return failed(errorResult(error, context).error);
}

/** What one run's surface is built from. */
export interface SurfaceInput {
  dispatcher: RunDispatcher;
  settings: ToolSearchSettings;
  recorder: RunRecorder;
  /** The code sandbox: given to a mode with `sandboxFallback`, and only when it is available. */
  pool?: CodePool | undefined;
  /** Whose run this is (RunContext.tenant, else the session): the code pool's fair-share key. */
  tenant: string;
  prompt?: string | undefined;
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

/** What the model is shown up front, for telemetry (the engine adds what direct mode would have shown, direct-bytes.ts). */
export function upfrontOf(surface: Surface): Omit<RunTelemetry["upfront"], "directBytes"> {
  let bytes = toolsBytes.get(surface.tools);
  if (bytes === undefined) toolsBytes.set(surface.tools, (bytes = Buffer.byteLength(JSON.stringify(surface.tools))));
  return {
    schemas: surface.upfrontIds.length,
    declaredTools: surface.tools.length,
    toolsBytes: bytes,
    instructionsBytes: Buffer.byteLength(surface.instructions),
  };
}

/**
 * The model reads failures as `{ ok: false, error: { code, message } }`. A tool's own throw is a
 * ToolFailedError by the time it gets here (call-path.ts), so anything that is not a
 * ToolSearchError is a fault of ours: INTERNAL, its detail on the error channel.
 */
export function errorResult(error: unknown, context?: FailureContext): { ok: false; error: ErrorPayload } {
  return { ok: false, error: answerError(error, context).toJSON() };
}

/** Tool-message content: strings as they are, everything else as JSON. */
export function toToolMessage(value: unknown): string {
  return toolMessageOf(succeeded(value)).text;
}

/** A surface's answer as tool-message text, and the error it reports: a result that cannot be serialized is a TOOL_FAILED. */
export function toolMessageOf(result: SurfaceResult): { text: string; error?: ErrorPayload } {
  const { value } = result;
  const error = result.ok ? undefined : result.error;
  if (typeof value === "string") return { text: value, ...(error ? { error } : {}) };
  try {
    const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) ?? "null";
    return { text, ...(error ? { error } : {}) };
  } catch (thrown) {
    const body = errorResult(new ToolFailedError(`The result could not be serialized: ${errorMessage(thrown)}`));
    return { text: JSON.stringify(body), error: body.error };
  }
}
