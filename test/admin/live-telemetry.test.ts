/** LiveTelemetry: session events folded into totals and buckets, with every map bounded and the admin's own runs left out. */
import { describe, expect, it } from "vitest";
import { LiveTelemetry } from "../../src/admin/live-telemetry.js";
import type { SessionEvent } from "../../src/telemetry/types.js";
import { definedProps } from "../../src/defined.js";

const base = (runId: string) => ({ sessionId: `s-${runId}`, runId, time: "2026-01-01T00:00:00.000Z" });
const upfront = { schemas: 0, declaredTools: 3, toolsBytes: 1000, instructionsBytes: 100, directBytes: 50_000 };
const start = (runId: string, tenant?: string): SessionEvent => ({
  type: "run_start",
  ...base(runId),
  ...definedProps({ tenant }),
  mode: "tools",
  requestedMode: "tools",
  catalog: { size: 3, bySource: { core: 0, plugin: 3, mcp: 0, client: 0 } },
  upfront,
  upfrontToolIds: [],
});
const call = (runId: string, id: string, ok: boolean, ms: number): SessionEvent => ({
  type: "call",
  ...base(runId),
  id,
  source: id.startsWith("mcp:") ? "mcp" : "plugin",
  ok,
  ...(ok ? {} : { code: "TOOL_FAILED" as const }),
  ms,
  via: "tool_call",
});
const end = (runId: string): SessionEvent => ({ type: "run_end", ...base(runId), telemetry: {} as never });

describe("LiveTelemetry", () => {
  it("totals runs, calls by outcome and source, bytes against direct, and buckets them by time", () => {
    let now = 1_000_000;
    const live = new LiveTelemetry({ bucketMs: 1_000, buckets: 5, now: () => now });
    live.write(start("r1", "token:0"));
    live.write({ type: "search", ...base("r1"), queries: ["weather"], hits: [], via: "tool_call", ms: 2 });
    live.write(call("r1", "mcp:memory:read_graph", true, 10));
    now += 1_000;
    live.write(call("r1", "plugin:acme:x", false, 30));
    live.write(end("r1"));
    const totals = live.snapshot();
    expect(totals.runs).toMatchObject({ total: 1, active: 0, byMode: { tools: 1 } });
    expect(totals.calls).toMatchObject({ ok: 1, failed: 1, byCode: { TOOL_FAILED: 1 }, bySource: { mcp: { ok: 1, failed: 0 }, plugin: { ok: 0, failed: 1 } } });
    expect(totals.calls.latency).toEqual({ count: 2, sumMs: 40, maxMs: 30 });
    expect(totals.bytes).toEqual({ upfront: 1100, direct: 50_000 });
    expect(live.series(3).map((b) => [b.t, b.runs, b.calls, b.callErrors])).toEqual([
      [999_000, 0, 0, 0],
      [1_000_000, 1, 1, 0],
      [1_001_000, 0, 1, 1],
    ]);
    expect(live.serverCalls().get("memory")).toMatchObject({ ok: 1, failed: 0 });
    expect(live.tenantActivities()).toEqual([{ tenant: "token:0", runs: 1, activeRuns: 0, calls: { ok: 1, failed: 1 }, codeRuns: 0, lastSeen: now }]);
    // Five buckets later the ring has come round: the old buckets are gone, not summed into new ones.
    now += 5_000;
    live.write(start("r2"));
    expect(live.series(5).reduce((n, b) => n + b.calls, 0)).toBe(0);
  });

  it("keeps at most maxTenants tenants and maxOpenRuns open runs, and leaves the ignored tenant's runs out", () => {
    const live = new LiveTelemetry({ maxTenants: 2, maxOpenRuns: 3, ignoreTenant: "toolsearch:admin" });
    for (let i = 0; i < 10; i++) live.write(start(`r${i}`));
    expect(live.tenantActivities().map((t) => t.tenant)).toEqual(["session:s-r9", "session:s-r8"]);
    expect(live.snapshot().runs).toMatchObject({ total: 10, active: 3 });
    live.write(start("admin", "toolsearch:admin"));
    live.write(call("admin", "plugin:acme:x", true, 1));
    live.write(end("admin"));
    expect(live.snapshot().runs.total).toBe(10);
    expect(live.snapshot().calls.ok).toBe(0);
  });
});
