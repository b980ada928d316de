/**
 * Collects one run's telemetry and forwards every event to the session log and to
 * `node:diagnostics_channel` ("toolsearch:event"), where tracers can attach at no cost when unused.
 * A sink that throws is published on "toolsearch:error" (error-channel.ts).
 */
import diagnostics from "node:diagnostics_channel";
import { clip } from "../text/prompt-text.js";
import { publishFailure } from "../error-channel.js";
import type { CallRecord, EventBase, RunStartInfo, RunTelemetry, SessionEvent, SessionLogSink } from "./types.js";
import { definedProps } from "../defined.js";

export const EVENT_CHANNEL = "toolsearch:event";
/** Ids and queries in telemetry and the session log are clipped to this, with a marker. */
const LOGGED_TEXT_CHARS = 256;
/** Call records kept in a run's telemetry (every call still counts and is logged). */
const MAX_CALL_RECORDS = 1_000;
const channel = diagnostics.channel(EVENT_CHANNEL);

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type EventInput = DistributiveOmit<SessionEvent, keyof EventBase>;

export interface RecorderInit extends RunStartInfo {
  sink?: SessionLogSink;
}

export class RunRecorder {
  private readonly data: RunTelemetry;
  private readonly sink: SessionLogSink | undefined;
  private readonly tenant: string | undefined;

  constructor(init: RecorderInit) {
    this.tenant = init.tenant;
    const size = Object.values(init.bySource).reduce((a, b) => a + b, 0);
    this.sink = init.sink;
    this.data = {
      runId: init.runId,
      sessionId: init.sessionId,
      mode: init.mode,
      requestedMode: init.requestedMode,
      ...(init.fallbackReason ? { fallbackReason: init.fallbackReason } : {}),
      catalog: { size, bySource: { ...init.bySource } },
      upfront: { schemas: 0, declaredTools: 0, toolsBytes: 0, instructionsBytes: 0, directBytes: 0 },
      counts: { search: 0, describe: 0, call: 0, codeRuns: 0 },
      calls: [],
    };
  }

  setUpfront(upfront: RunTelemetry["upfront"], upfrontToolIds: string[]): void {
    this.data.upfront = upfront;
    this.emit({
      type: "run_start",
      ...definedProps({ tenant: this.tenant }),
      mode: this.data.mode,
      requestedMode: this.data.requestedMode,
      ...(this.data.fallbackReason ? { fallbackReason: this.data.fallbackReason } : {}),
      catalog: this.data.catalog,
      upfront,
      upfrontToolIds,
    });
  }

  search(event: Extract<EventInput, { type: "search" }>): void {
    this.data.counts.search += 1;
    if (this.listened()) this.emit({ ...event, queries: event.queries.map((q) => clip(q, LOGGED_TEXT_CHARS)) });
  }

  describe(event: Extract<EventInput, { type: "describe" }>): void {
    this.data.counts.describe += 1;
    if (this.listened()) this.emit({ ...event, id: clip(event.id, LOGGED_TEXT_CHARS) });
  }

  call(input: CallRecord): void {
    const record = { ...input, id: clip(input.id, LOGGED_TEXT_CHARS) };
    this.data.counts.call += 1;
    // Telemetry is kept for the run's life: its call list is bounded like everything else.
    if (this.data.calls.length < MAX_CALL_RECORDS) this.data.calls.push(record);
    if (this.listened()) this.emit({ type: "call", ...record });
  }

  codeRun(event: Extract<EventInput, { type: "code_run" }>): void {
    this.data.counts.codeRuns += 1;
    if (this.listened()) this.emit(event);
  }

  end(): void {
    this.emit({ type: "run_end", telemetry: this.snapshot() });
  }

  snapshot(): RunTelemetry {
    return structuredClone(this.data);
  }

  /**
   * Whether an event would reach anyone: a session log, or a subscriber of the channel. Without
   * either, a search, describe or call (four of them per code body) builds no event at all.
   */
  private listened(): boolean {
    return this.sink !== undefined || channel.hasSubscribers;
  }

  private emit(input: EventInput): void {
    const base: EventBase = { sessionId: this.data.sessionId, runId: this.data.runId, time: new Date().toISOString() };
    const event = { ...base, ...input } as SessionEvent;
    try {
      this.sink?.write(event);
    } catch (error) {
      // A failing log sink must never fail the run.
      publishFailure("session_log", error, { sessionId: event.sessionId, runId: event.runId });
    }
    if (channel.hasSubscribers) channel.publish(event);
  }
}
