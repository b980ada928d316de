/**
 * OpenTelemetry through @opentelemetry/api only: nothing without an SDK; with sdk-trace-base's
 * in-memory exporter, a code-mode run makes toolsearch.run → toolsearch.code_run → bridged
 * toolsearch.search and execute_tool spans, and a denied call's span carries its code.
 */
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodePool, type CodePool, type ToolSearchEngine } from "../../src/index.js";
import { startOtlpExport } from "../../src/telemetry/otlp-export.js";
import { fixtureEngine, parse } from "../engine/helpers.js";

let pool: CodePool;
let engine: ToolSearchEngine;
const exporter = new InMemorySpanExporter();

beforeAll(async () => {
  pool = await createCodePool({ prefork: 1 });
  engine = await fixtureEngine({
    codePool: pool,
    hooks: { approve: (call) => (call.id === "plugin:github:create_issue" ? { approved: false, reason: "not today" } : true) },
  });
});
afterAll(async () => {
  trace.disable();
  await engine.close();
  await pool.close();
});

const CODE = `
  const [hit] = await openclaw.tools.search("weather forecast for a city");
  const weather = await openclaw.tools.call(hit.id, { city: "Paris" });
  let denied;
  try { await openclaw.tools.call("plugin:github:create_issue", { repo: "a/b", title: "t" }); } catch (e) { denied = e.code; }
  return { weather, denied };
`;

async function codeRun(sessionId: string) {
  const run = await engine.prepareRun({ sessionId, mode: "code" });
  const content = parse(await run.handleToolCall({ id: "call_42", name: "tool_search_code", arguments: JSON.stringify({ code: CODE }) }));
  await run.end();
  return { run, content };
}

describe("OpenTelemetry spans", () => {
  it("emits nothing without a registered SDK (the API is a no-op)", async () => {
    const { content } = await codeRun("otel-none");
    expect(content).toMatchObject({ ok: true, value: { weather: { forecast: "sunny" }, denied: "APPROVAL_DENIED" } });
    expect(trace.getTracer("toolsearch").startSpan("probe").isRecording()).toBe(false);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("serve starts no OTLP export unless OTEL_EXPORTER_OTLP_ENDPOINT is set (and the SDK is not disabled)", async () => {
    expect(await startOtlpExport({})).toBeUndefined();
    expect(await startOtlpExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1", OTEL_SDK_DISABLED: "true" })).toBeUndefined();
    expect(trace.getTracer("toolsearch").startSpan("probe").isRecording()).toBe(false);
  });

  describe("with sdk-trace-base registered", () => {
    let spans: ReadableSpan[];
    const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
    const named = (name: string) => spans.filter((s) => s.name === name);

    beforeAll(async () => {
      trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
      await codeRun("otel-code");
      spans = exporter.getFinishedSpans();
    });

    it("a code-mode run produces the span tree", () => {
      const [run] = named("toolsearch.run");
      const [code] = named("toolsearch.code_run");
      const [search] = named("toolsearch.search");
      const [weather] = named("execute_tool get_weather_forecast");
      const [denied] = named("execute_tool create_issue");
      for (const span of [run, code, search, weather, denied]) expect(span).toBeDefined();
      expect(parentOf(run!)).toBeUndefined();
      expect(parentOf(code!)).toBe(run!.spanContext().spanId);
      // Bridged calls are children of the code run.
      expect(parentOf(search!)).toBe(code!.spanContext().spanId);
      expect(parentOf(weather!)).toBe(code!.spanContext().spanId);
      expect(parentOf(denied!)).toBe(code!.spanContext().spanId);
      expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    });

    it("carries the named attributes", () => {
      const [run] = named("toolsearch.run");
      expect(run!.attributes).toMatchObject({
        "toolsearch.mode": "code",
        "toolsearch.requested_mode": "code",
        "toolsearch.catalog.size": 5,
        "toolsearch.catalog.core": 2,
        "toolsearch.catalog.plugin": 3,
        "toolsearch.upfront.declared_tools": 1,
        "toolsearch.upfront.schemas": 0,
        "toolsearch.calls": 2,
        "toolsearch.code_runs": 1,
      });
      expect(run!.attributes["toolsearch.upfront.bytes"]).toBeGreaterThan(0);
      const [code] = named("toolsearch.code_run");
      expect(code!.attributes).toMatchObject({ "toolsearch.outcome": "ok", "toolsearch.code.bridge_calls": 3, "gen_ai.tool.call.id": "call_42" });
      expect(code!.attributes["toolsearch.code.duration_ms"]).toBeGreaterThan(0);
      const [search] = named("toolsearch.search");
      expect(search!.attributes).toMatchObject({
        "toolsearch.search.queries": 1,
        "toolsearch.search.query_length": "weather forecast for a city".length,
        "toolsearch.via": "bridge",
      });
      expect(search!.attributes["toolsearch.search.hits"]).toBeGreaterThan(0);
      expect(search!.attributes).not.toHaveProperty("toolsearch.search.query");
      const [weather] = named("execute_tool get_weather_forecast");
      expect(weather!.attributes).toEqual({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather_forecast",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.id": "call_42",
        "toolsearch.tool.id": "core:get_weather_forecast",
        "toolsearch.source": "core",
        "toolsearch.via": "bridge",
        "toolsearch.outcome": "ok",
      });
    });

    it("a denied call's span carries its code", () => {
      const [denied] = named("execute_tool create_issue");
      expect(denied!.attributes).toMatchObject({
        "toolsearch.outcome": "APPROVAL_DENIED",
        "error.type": "APPROVAL_DENIED",
        "toolsearch.tool.id": "plugin:github:create_issue",
        "toolsearch.source": "plugin",
      });
      expect(denied!.status).toMatchObject({ code: 2, message: "APPROVAL_DENIED" });
    });

    it("tools mode: search and execute_tool are children of the run, with the model's call id", async () => {
      exporter.reset();
      const run = await engine.prepareRun({ sessionId: "otel-tools", mode: "tools" });
      await run.handleToolCall({ id: "c1", name: "tool_search", arguments: { query: "weather" } });
      await run.handleToolCall({ id: "c2", name: "tool_call", arguments: { id: "core:get_weather_forecast", args: { city: "Oslo" } } });
      await run.handleToolCall({ id: "c3", name: "tool_call", arguments: { id: "core:no_such_tool" } });
      await run.end();
      const tools = exporter.getFinishedSpans();
      const runSpan = tools.find((s) => s.name === "toolsearch.run")!;
      const children = tools.filter((s) => s !== runSpan);
      expect(children.map((s) => s.name)).toEqual(["toolsearch.search", "execute_tool get_weather_forecast", "execute_tool core:no_such_tool"]);
      expect(children.every((s) => parentOf(s) === runSpan.spanContext().spanId)).toBe(true);
      expect(children[1]!.attributes).toMatchObject({ "gen_ai.tool.call.id": "c2", "toolsearch.via": "tool_call" });
      expect(children[2]!.attributes).toMatchObject({ "toolsearch.outcome": "TOOL_NOT_FOUND", "toolsearch.source": "unknown" });
    });

    it("puts query text on search spans only when tracing.recordQueryText is set", async () => {
      await expect(fixtureEngine({ tracing: { recordQueries: true } as never })).rejects.toMatchObject({ code: "CONFIG_INVALID" });
      const recording = await fixtureEngine({ tracing: { recordQueryText: true } });
      try {
        exporter.reset();
        const run = await recording.prepareRun({ sessionId: "otel-query" });
        await run.search(["weather forecast", "open a pull request"]);
        await run.end();
        const search = exporter.getFinishedSpans().find((s) => s.name === "toolsearch.search")!;
        expect(search.attributes).toMatchObject({
          "toolsearch.search.query": "weather forecast\nopen a pull request",
          "toolsearch.search.queries": 2,
          "toolsearch.via": "api",
        });
      } finally {
        await recording.close();
      }
    });
  });
});
