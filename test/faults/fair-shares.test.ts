/**
 * Calls to one MCP server are bounded (`maxConcurrentCalls`) and shared by tenant: a tenant that
 * floods a server that runs one call at a time delays another tenant's call by at most the one
 * call of its own in flight, and one tenant's queue is bounded (TOOL_BUSY past it).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createToolSearch, type ToolSearchEngine } from "../../src/index.js";
import { faultSources, waitFor } from "./helpers.js";

const { source } = faultSources();
let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

describe("downstream shares per tenant", () => {
  it("a quiet tenant's call is served before the flooder's queued calls (the tenant comes from the run)", async () => {
    const serial = source("serial", { FAULT_SERIAL: true, FAULT_SLOW_MS: 150 });
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [serial.source] });
    const flooder = await engine.prepareRun({ sessionId: "f", tenant: "token:flooder" });
    const quiet = await engine.prepareRun({ sessionId: "q", tenant: "token:quiet" });
    const order: string[] = [];
    const flood = Array.from({ length: 6 }, (_, i) =>
      flooder.call("mcp:serial:slow", { text: `f${i}` }).then((outcome) => {
        order.push(`f${i}`);
        return outcome;
      }),
    );
    await waitFor(() => serial.source.status().calls.queued === 5, "the flood to queue");
    const quietCall = quiet.call("mcp:serial:echo", { text: "q" }).then((outcome) => {
      order.push("q");
      return outcome;
    });
    expect(await quietCall).toMatchObject({ ok: true, result: "echo:q" });
    for (const outcome of await Promise.all(flood)) expect(outcome).toMatchObject({ ok: true });
    // One slot: the flooder's first call was in flight when the quiet call came; the quiet call went next.
    expect(order).toEqual(["f0", "q", "f1", "f2", "f3", "f4", "f5"]);
    await Promise.all([flooder.end(), quiet.end()]);
  });

  it("runs without a tenant are shared by session; two tenants' floods take turns", async () => {
    const serial = source("serial", { FAULT_SERIAL: true, FAULT_SLOW_MS: 50 });
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [serial.source] });
    const a = await engine.prepareRun({ sessionId: "session-a" });
    const b = await engine.prepareRun({ sessionId: "session-b" });
    const order: string[] = [];
    const call = (run: typeof a, label: string) => run.call("mcp:serial:slow", { text: label }).then(() => order.push(label));
    const first = [call(a, "a0"), call(a, "a1"), call(a, "a2")];
    await waitFor(() => serial.source.status().calls.queued === 2, "a's calls to queue");
    await Promise.all([...first, call(b, "b0"), call(b, "b1")]);
    expect(order).toEqual(["a0", "b0", "a1", "b1", "a2"]);
    await Promise.all([a.end(), b.end()]);
  });

  it("a tenant's queue is bounded: one call past maxQueuedCallsPerTenant is TOOL_BUSY at once, another tenant still queues", async () => {
    const serial = source("serial", { FAULT_SERIAL: true, FAULT_SLOW_MS: 150 }, { maxQueuedCallsPerTenant: 2 });
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [serial.source] });
    const flooder = await engine.prepareRun({ sessionId: "f", tenant: "token:flooder" });
    const other = await engine.prepareRun({ sessionId: "o", tenant: "token:other" });
    const admitted = [0, 1, 2].map((i) => flooder.call("mcp:serial:slow", { text: `f${i}` }));
    await waitFor(() => serial.source.status().calls.queued === 2, "two queued");
    expect(await flooder.call("mcp:serial:slow", { text: "one too many" })).toMatchObject({
      ok: false,
      error: {
        code: "TOOL_BUSY",
        message: expect.stringMatching(
          /^Tool "mcp:serial:slow" was not called: MCP server "serial" has 1 call\(s\) in flight and 2 of yours waiting \(maxQueuedCallsPerTenant\)/,
        ),
      },
    });
    expect(await other.call("mcp:serial:echo", { text: "o" })).toMatchObject({ ok: true, result: "echo:o" });
    for (const outcome of await Promise.all(admitted)) expect(outcome).toMatchObject({ ok: true });
    await Promise.all([flooder.end(), other.end()]);
  });

  it("a waiting call that its run cancels leaves the queue at once", async () => {
    const serial = source("serial", { FAULT_SERIAL: true, FAULT_SLOW_MS: 300 });
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [serial.source] });
    const holder = await engine.prepareRun({ sessionId: "h" });
    const leaver = await engine.prepareRun({ sessionId: "l" });
    const held = holder.call("mcp:serial:slow", {});
    await waitFor(() => serial.source.status().calls.running === 1, "a call in flight");
    const waiting = leaver.call("mcp:serial:echo", {});
    await waitFor(() => serial.source.status().calls.queued === 1, "a call waiting");
    await leaver.end();
    expect(await waiting).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
    expect(serial.source.status().calls.queued).toBe(0);
    expect(await held).toMatchObject({ ok: true });
    await holder.end();
  });
});
