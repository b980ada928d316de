import type { ToolSearchMode } from "../settings/modes.js";
import type { ErrorCode } from "../errors.js";
import type { ToolSource } from "../catalog/types.js";

export interface CallRecord {
  id: string;
  source: ToolSource | "unknown";
  ok: boolean;
  code?: ErrorCode;
  ms: number;
  /** Which surface made the call: a direct schema, `tool_call`, the code-mode bridge, or a library caller. */
  via: CallVia;
}

export type CallVia = "direct" | "tool_call" | "bridge" | "hidden_name" | "api";

export interface RunTelemetry {
  runId: string;
  sessionId: string;
  mode: ToolSearchMode;
  requestedMode: ToolSearchMode;
  fallbackReason?: string;
  catalog: { size: number; bySource: Record<ToolSource, number> };
  upfront: {
    /** Catalog tool schemas the model sees up front (control tools not counted). */
    schemas: number;
    /** Entries in `run.tools`, control tools included. */
    declaredTools: number;
    /** Byte length of JSON.stringify(run.tools). */
    toolsBytes: number;
    instructionsBytes: number;
    /**
     * What direct mode would have declared for this run's catalog (bytes of its tools JSON):
     * the baseline the bytes above save against. Equal to `toolsBytes` in direct mode.
     */
    directBytes: number;
  };
  counts: { search: number; describe: number; call: number; codeRuns: number };
  calls: CallRecord[];
}

/** One line of the session log; `type` says which event. */
export type SessionEvent =
  | ({ type: "run_start" } & EventBase & {
        tenant?: string;
        mode: ToolSearchMode;
        requestedMode: ToolSearchMode;
        fallbackReason?: string;
        catalog: RunTelemetry["catalog"];
        upfront: RunTelemetry["upfront"];
        upfrontToolIds: string[];
      })
  | ({ type: "search" } & EventBase & { queries: string[]; hits: string[]; via: CallVia; ms: number })
  | ({ type: "describe" } & EventBase & { id: string; ok: boolean; code?: ErrorCode; via: CallVia })
  | ({ type: "call" } & EventBase & CallRecord)
  | ({ type: "code_run" } & EventBase & { ok: boolean; code?: string; ms: number; bridgeCalls: number })
  | ({ type: "run_end" } & EventBase & { telemetry: RunTelemetry });

/** What every per-run telemetry consumer (recorder, tracer) is told when a run starts. */
export interface RunStartInfo {
  runId: string;
  sessionId: string;
  /** Whose run it is for fair shares (RunContext.tenant: a token's label), when the caller named one. */
  tenant?: string;
  mode: ToolSearchMode;
  requestedMode: ToolSearchMode;
  fallbackReason?: string;
  bySource: Record<ToolSource, number>;
}

export interface EventBase {
  sessionId: string;
  runId: string;
  /** ISO time of the event. */
  time: string;
}

/** Where session events go (for example `jsonlSessionLog(file)`). Must not throw. */
export interface SessionLogSink {
  write(event: SessionEvent): void;
  close?(): Promise<void>;
}
