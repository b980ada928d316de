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
 */
import { context as otelContext, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from "@opentelemetry/api";
import type { ToolSource } from "../catalog/types.js";
import { escapeControl } from "../text/prompt-text.js";
import type { CallVia, RunStartInfo, RunTelemetry } from "./types.js";

export const TRACER_NAME = "toolsearch";
/** Query text on search spans is clipped to this when recording it is enabled. */
const MAX_QUERY_ATTRIBUTE_CHARS = 256;

/** Where a span's parent is, and the model tool call that led to it. */
export interface TraceScope {
  parent?: Context;
  /** The provider's tool call id (`gen_ai.tool.call.id`), when the call came from a model. */
  callId?: string;
}

export interface TracingOptions {
  /** Put search query text on `toolsearch.search` spans (default false: only its length). */
  recordQueryText?: boolean;
}

export interface RunTraceInit extends RunStartInfo {
  recordQueryText?: boolean;
}

function tracer() {
  return trace.getTracer(TRACER_NAME);
}

export function outcomeAttributes(span: Span, code: string | undefined): void {
  span.setAttribute("toolsearch.outcome", code ?? "ok");
  if (code !== undefined) {
    span.setAttribute("error.type", code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: code });
  }
}

/** One run's span and the children it parents. */
export class RunTrace {
  readonly context: Context;
  private readonly span: Span;
  private readonly recordQueryText: boolean;
  private ended = false;

  constructor(init: RunTraceInit) {
    this.recordQueryText = init.recordQueryText === true;
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
    this.span = tracer().startSpan("toolsearch.run", { kind: SpanKind.INTERNAL, attributes }, parent);
    this.context = trace.setSpan(parent, this.span);
  }

  get recording(): boolean {
    return this.span.isRecording();
  }

  setUpfront(upfront: RunTelemetry["upfront"]): void {
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
    const attributes: Attributes = {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool.name,
      "gen_ai.tool.type": "function",
      "toolsearch.tool.id": tool.id,
      "toolsearch.source": tool.source,
      "toolsearch.via": via,
    };
    if (scope.callId !== undefined) attributes["gen_ai.tool.call.id"] = scope.callId;
    return tracer().startSpan(`execute_tool ${escapeControl(tool.name)}`, { kind: SpanKind.INTERNAL, attributes }, scope.parent ?? this.context);
  }

  /** A finished search as a span (searches are synchronous: its start time is given). */
  searchSpan(queries: readonly string[], hits: number, via: CallVia, startTime: number, scope: TraceScope = {}): void {
    const attributes: Attributes = {
      "toolsearch.search.queries": queries.length,
      "toolsearch.search.query_length": queries.reduce((sum, q) => sum + q.length, 0),
      "toolsearch.search.hits": hits,
      "toolsearch.via": via,
    };
    if (this.recordQueryText) attributes["toolsearch.search.query"] = queries.map((q) => q.slice(0, MAX_QUERY_ATTRIBUTE_CHARS)).join("\n");
    tracer()
      .startSpan("toolsearch.search", { kind: SpanKind.INTERNAL, attributes, startTime: performance.timeOrigin + startTime }, scope.parent ?? this.context)
      .end();
  }

  /** `toolsearch.code_run`; its context parents the body's bridged searches and calls. */
  codeRunSpan(scope: TraceScope = {}): { span: Span; context: Context } {
    const parent = scope.parent ?? this.context;
    const span = tracer().startSpan(
      "toolsearch.code_run",
      { kind: SpanKind.INTERNAL, ...(scope.callId !== undefined ? { attributes: { "gen_ai.tool.call.id": scope.callId } } : {}) },
      parent,
    );
    return { span, context: trace.setSpan(parent, span) };
  }
}
