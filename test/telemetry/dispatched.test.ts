/** traceDispatched: the one place a dispatched call's span is ended with its outcome and its entry recorded. */
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolTimeoutError } from "../../src/errors.js";
import { traceDispatched } from "../../src/telemetry/dispatched.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => trace.setGlobalTracerProvider(provider));
afterAll(() => trace.disable());

const open = (name: string) => () => ({ span: trace.getTracer("test").startSpan(name) });

describe("traceDispatched", () => {
  it("a settled value: attributes, outcome, span ended, then one record", async () => {
    const recorded: string[] = [];
    const value = await traceDispatched({
      open: open("settled"),
      run: async () => "TOOL_FAILED",
      settle: (code) => ({ code, attributes: { "test.n": 1 } }),
      record: (code) => recorded.push(code),
    });
    expect(value).toBe("TOOL_FAILED");
    expect(recorded).toEqual(["TOOL_FAILED"]);
    const span = exporter.getFinishedSpans().find((s) => s.name === "settled")!;
    expect(span.attributes).toMatchObject({ "test.n": 1, "toolsearch.outcome": "TOOL_FAILED", "error.type": "TOOL_FAILED" });
  });

  it("a throw: the span ends with the error's own code (INTERNAL for a fault of ours), nothing is recorded, the error goes on", async () => {
    const recorded: unknown[] = [];
    const work = (error: unknown, name: string) =>
      traceDispatched({ open: open(name), run: async () => Promise.reject(error), settle: () => ({ code: undefined }), record: (v) => recorded.push(v) });
    await expect(work(new ToolTimeoutError("late"), "coded")).rejects.toBeInstanceOf(ToolTimeoutError);
    await expect(work(new TypeError("bug"), "ours")).rejects.toBeInstanceOf(TypeError);
    expect(recorded).toEqual([]);
    const outcome = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name)?.attributes["toolsearch.outcome"];
    expect([outcome("coded"), outcome("ours")]).toEqual(["TOOL_TIMEOUT", "INTERNAL"]);
  });
});
