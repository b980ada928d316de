/**
 * OpenTelemetry spans through `@opentelemetry/api` only: without a registered SDK every call
 * here is the API's no-op, and nothing is emitted. With one:
 *
 *   toolsearch.run                     one per run, from prepareRun to run.end()
 *   ├─ toolsearch.search               a search (hit count, query length; text only when configured)
 *   ├─ execute_tool <name>             a catalog or client tool call (GenAI semantic conventions)
 *   └─ toolsearch.code_run             a code-mode body
 *      ├─ toolsearch.search            its bridged searches
 *      └─ execute_tool <name>          its bridged calls
 *
 * Parents are passed explicitly (not through the active context), so the tree is right with or
 * without a context manager; the run span's own parent is the context active at prepareRun.
 *
 * Until a tracer provider is registered (by any copy of the API: they share one global), a run
 * does not even load the API: its spans are one shared no-op, and no attributes are built for
 * them. A run started after a provider is registered traces.
 */
import type { Attributes, Context, Span, SpanContext } from "@opentelemetry/api";
import type { ToolSource } from "../catalog/types.js";
import { lazyRequire } from "../lazy-require.js";
import { escapeControl } from "../text/prompt-text.js";
import type { CallVia, RunStartInfo, RunTelemetry } from "./types.js";
import { boolean, object, withDefault, type TypeOf } from "../validation/typed-schema.js";

const TRACER_NAME = "toolsearch";
/** Query text on search spans is clipped to this when recording it is enabled. */
const MAX_QUERY_ATTRIBUTE_CHARS = 256;

/** Where a span's parent is, and the model tool call that led to it. */
export interface TraceScope {
  parent?: Context;
  /** The provider's tool call id (`gen_ai.tool.call.id`), when the call came from a model. */
  callId?: string;
}

/** createToolSearch's `tracing` option: what spans may carry. */
export const tracingSchema = object({
  /** Put search query text on `toolsearch.search` spans (default false: only its length). */
  recordQueryText: withDefault(boolean(), false),
});

/** What spans may carry, each optional: tracingSchema documents each option and its default. */
export type TracingOptions = TypeOf<typeof tracingSchema>;

export interface RunTraceInit extends RunStartInfo {
  recordQueryText?: boolean;
}

type OtelApi = typeof import("@opentelemetry/api");
const otelApi = lazyRequire<OtelApi>("@opentelemetry/api");

/** Where every 1.x copy of @opentelemetry/api keeps what is registered (its `trace` once a tracer provider is). */
const API_GLOBAL = Symbol.for("opentelemetry.js.api.1");

/** The API when a tracer provider is registered; undefined when no span could record anything. */
function tracingApi(): OtelApi | undefined {
  const registered = (globalThis as { [API_GLOBAL]?: { trace?: unknown } })[API_GLOBAL];
  return registered?.trace === undefined ? undefined : otelApi();
}

/** Context of a run that does not trace: it parents only no-op spans. */
const NO_CONTEXT: Context = {
  getValue: () => undefined,
  setValue: () => NO_CONTEXT,
  deleteValue: () => NO_CONTEXT,
};

const INVALID_SPAN_CONTEXT: SpanContext = { traceId: "00000000000000000000000000000000", spanId: "0000000000000000", traceFlags: 0 };

/** The span of a run that does not trace: what the API's non-recording span does, without the API. */
const NO_SPAN: Span = {
  spanContext: () => INVALID_SPAN_CONTEXT,
  setAttribute: () => NO_SPAN,
  setAttributes: () => NO_SPAN,
  addEvent: () => NO_SPAN,
  addLink: () => NO_SPAN,
  addLinks: () => NO_SPAN,
  setStatus: () => NO_SPAN,
  updateName: () => NO_SPAN,
  end: () => {},
  isRecording: () => false,
  recordException: () => {},
};

export function outcomeAttributes(span: Span, code: string | undefined): void {
  // A span that records was made by the API, which is loaded then.
  if (!span.isRecording()) return;
  span.setAttribute("toolsearch.outcome", code ?? "ok");
  if (code !== undefined) {
    span.setAttribute("error.type", code);
    span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: code });
  }
}

/** One run's span and the children it parents. */
export class RunTrace {
  readonly context: Context;
  private readonly span: Span;
  private readonly recordQueryText: boolean;
  /** The API when this run traces (a tracer provider was registered when it started). */
  private readonly api: OtelApi | undefined;
  private ended = false;

  constructor(init: RunTraceInit) {
    this.recordQueryText = init.recordQueryText === true;
    this.api = tracingApi();
    if (this.api === undefined) {
      this.span = NO_SPAN;
      this.context = NO_CONTEXT;
      return;
    }
    const { context: otelContext, SpanKind, trace } = this.api;
    const attributes: Attributes = {
      "toolsearch.run.id": init.runId,
      "toolsearch.session.id": init.sessionId,
      "toolsearch.mode": init.mode,
      "toolsearch.requested_mode": init.requestedMode,
      "toolsearch.catalog.size": Object.values(init.bySource).reduce((a, b) => a + b, 0),
    };
    for (const [source, count] of Object.entries(init.bySource)) attributes[`toolsearch.catalog.${source}`] = count;
    if (init.fallbackReason) attributes["toolsearch.fallback_reason"] = init.fallbackReason;
    const parent = otelContext.active();
    this.span = trace.getTracer(TRACER_NAME).startSpan("toolsearch.run", { kind: SpanKind.INTERNAL, attributes }, parent);
    this.context = trace.setSpan(parent, this.span);
  }

  get recording(): boolean {
    return this.span.isRecording();
  }

  setUpfront(upfront: RunTelemetry["upfront"]): void {
    if (this.api === undefined) return;
    this.span.setAttributes({
      "toolsearch.upfront.schemas": upfront.schemas,
      "toolsearch.upfront.declared_tools": upfront.declaredTools,
      "toolsearch.upfront.tools_bytes": upfront.toolsBytes,
      "toolsearch.upfront.instructions_bytes": upfront.instructionsBytes,
      "toolsearch.upfront.bytes": upfront.toolsBytes + upfront.instructionsBytes,
      "toolsearch.upfront.direct_bytes": upfront.directBytes,
    });
  }

  end(counts: RunTelemetry["counts"]): void {
    if (this.ended) return;
    this.ended = true;
    this.span.setAttributes({
      "toolsearch.searches": counts.search,
      "toolsearch.describes": counts.describe,
      "toolsearch.calls": counts.call,
      "toolsearch.code_runs": counts.codeRuns,
    });
    this.span.end();
  }

  /**
   * `execute_tool <name>`, following the GenAI semantic conventions for tool execution. The name
   * of a call that found no tool is the caller's text: escaped in the span name, which backends
   * show as one line (the attributes keep it as sent, as structured values).
   */
  toolSpan(tool: { id: string; name: string; source: ToolSource | "unknown" }, via: CallVia, scope: TraceScope = {}): Span {
    if (this.api === undefined) return NO_SPAN;
    const attributes: Attributes = {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool.name,
      "gen_ai.tool.type": "function",
      "toolsearch.tool.id": tool.id,
      "toolsearch.source": tool.source,
      "toolsearch.via": via,
    };
    if (scope.callId !== undefined) attributes["gen_ai.tool.call.id"] = scope.callId;
    return this.api.trace
      .getTracer(TRACER_NAME)
      .startSpan(`execute_tool ${escapeControl(tool.name)}`, { kind: this.api.SpanKind.INTERNAL, attributes }, scope.parent ?? this.context);
  }

  /** A finished search as a span (searches are synchronous: its start time is given). */
  searchSpan(queries: readonly string[], hits: number, via: CallVia, startTime: number, scope: TraceScope = {}): void {
    if (this.api === undefined) return;
    const attributes: Attributes = {
      "toolsearch.search.queries": queries.length,
      "toolsearch.search.query_length": queries.reduce((sum, q) => sum + q.length, 0),
      "toolsearch.search.hits": hits,
      "toolsearch.via": via,
    };
    if (this.recordQueryText) attributes["toolsearch.search.query"] = queries.map((q) => q.slice(0, MAX_QUERY_ATTRIBUTE_CHARS)).join("\n");
    this.api.trace
      .getTracer(TRACER_NAME)
      .startSpan(
        "toolsearch.search",
        { kind: this.api.SpanKind.INTERNAL, attributes, startTime: performance.timeOrigin + startTime },
        scope.parent ?? this.context,
      )
      .end();
  }

  /** `toolsearch.code_run`; its context parents the body's bridged searches and calls. */
  codeRunSpan(scope: TraceScope = {}): { span: Span; context: Context } {
    if (this.api === undefined) return { span: NO_SPAN, context: NO_CONTEXT };
    const { trace, SpanKind } = this.api;
    const parent = scope.parent ?? this.context;
    const span = trace
      .getTracer(TRACER_NAME)
      .startSpan(
        "toolsearch.code_run",
        { kind: SpanKind.INTERNAL, ...(scope.callId !== undefined ? { attributes: { "gen_ai.tool.call.id": scope.callId } } : {}) },
        parent,
      );
    return { span, context: trace.setSpan(parent, span) };
  }
}
