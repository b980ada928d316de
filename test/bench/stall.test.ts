/**
 * The stall benchmark's own checks: on a tiny catalog with tiny inputs it measures every window
 * with both instruments and writes its tables (no timing assertions: this machine may be slow
 * or busy), and the ladder stops at the per-step deadline instead of sending a request that
 * would block for long.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { silent } from "../../bench/harness/progress.js";
import type { BenchResults } from "../../bench/harness/results.js";
import { summaryMarkdown, summaryTable } from "../../bench/report/summary.js";
import { doublingLadder, linearLadder, type HostileKind } from "../../bench/stall/hostile.js";
import { stallPlan } from "../../bench/stall/plan.js";
import { fakeResults as fakeResultsOf } from "./fake-results.js";
import { Probes } from "../../bench/stall/probes.js";
import { climb, predictMs, runStallBench, stallProblems, STALL_TARGETS, type StallResult } from "../../bench/stall/stall-bench.js";
import type { FloodOptions } from "../../bench/stall/mcp-flood.js";
import { runTenantFloodRow, type TenantFloodOptions } from "../../bench/stall/tenant-flood.js";
import { stallMarkdown, stallSummaryRows } from "../../bench/report/stall.js";

function fakeResults(stall: StallResult): BenchResults {
  return fakeResultsOf({ stall: { status: "ok", ms: 1, result: stall } });
}

/** A kind whose request busy-waits `size` ms: a synchronous block of known length. */
function blockingKind(ladder: number[], growth: HostileKind["growth"] = "power"): HostileKind {
  return {
    name: "long-id-describe",
    what: "busy wait",
    unit: "ms",
    ladder,
    growth,
    mode: "tools",
    async iterate(_engine, size) {
      const until = performance.now() + size;
      while (performance.now() < until);
      return "ok";
    },
  };
}

describe("stall benchmark", () => {
  it("measures idle and every hostile kind through a real gateway, and writes its tables", async () => {
    const result = await runStallBench({
      tools: 50,
      targets: { idChars: 500, regexChars: 17, schemaProperties: 100, uniqueItems: 1_250 },
      windowMs: 150,
      stepDeadlineMs: 2_000,
      maxIterations: 20,
      memoryRuns: 40,
      flood: false,
      tenantFlood: false,
      amplify: { turns: 2, calls: 4, resultBytes: 256 * 1024 },
      code: false,
      log: silent,
    });
    expect(stallProblems(result)).toEqual([]);
    expect(result.idle.healthzN).toBeGreaterThan(0);
    expect(result.kinds.map((k) => k.kind)).toEqual([
      "long-id-describe",
      "long-id-call",
      "long-tool-name",
      "suggest-cap-id",
      "regex-backtrack",
      "schema-compile",
      "unique-items",
    ]);
    for (const k of result.kinds) {
      expect(k.iterations).toBeGreaterThan(0);
      expect(Object.values(k.outcomes).reduce((a, b) => a + b, 0)).toBe(k.iterations);
      expect(k.window.loopMaxMs).toBeGreaterThan(0);
      expect(k.window.loopMaxMs).toBeGreaterThanOrEqual(k.window.loopP99Ms);
      expect(k.ramp.length).toBeGreaterThan(0);
      // Each ramp reaches its target unless the bench capped it.
      expect(k.capped || k.size === k.target, `${JSON.stringify({ size: k.size, target: k.target })}`).toBe(true);
    }
    expect(result.memory).toMatchObject({ runs: 40, failed: 0, outcomes: { ok: 40 } });
    expect(result.memory!.curve.map((c) => c.runs)).toEqual([0, 10, 20, 30, 40]);
    // The amplified turns run out of round trips (the provider never answers), 8 requests each, none past the cap.
    const amplify = result.amplify!;
    expect(amplify.outcomes).toEqual({ max_turns: 2 });
    expect(amplify.requests).toBe(2 * amplify.budgets.maxTurns);
    expect(amplify.requestMaxBytes).toBeLessThanOrEqual(amplify.budgets.maxRequestBytes);
    expect(amplify.turnResults.map((t) => t.rssPeakMB >= t.rssBeforeMB)).toEqual([true, true]);
    expect(amplify.window.healthzN).toBeGreaterThan(0);

    const summary = summaryMarkdown(fakeResults(result));
    expect(summary).toContain("## Event-loop stalls");
    expect(summary).toContain("| idle (baseline) |");
    expect(summary).toContain("| long-id-describe: tool_describe of an unknown id |");
    expect(summary).toContain("Memory: 40 runs");
    expect(summary).toContain("Amplifying provider: a gateway (direct mode) whose provider answers every trip with 4 calls");
    expect(summaryTable(fakeResults(result))).toContain("RSS growth per turn, provider answering 4 calls");
    expect(summaryTable(fakeResults(result))).toContain("max event-loop stall, unique-items");
  }, 60_000);

  it("tenant row: one token floods the pool through mcp --http, the other's calls all run and are measured", { timeout: 120_000 }, async () => {
    const probes = new Probes("http://127.0.0.1:9/");
    try {
      const row = await runTenantFloodRow(
        probes,
        { floodBodies: 20, busyMs: 300, hold: "cpu", shares: true, victimCalls: 4, victimGapMs: 10, retryMs: 100 },
        silent,
      );
      if ("skipped" in row) throw new Error(`the row was skipped: ${row.skipped}`);
      expect(row.pool).toEqual({ maxConcurrent: 2, maxQueue: 64, maxQueuePerTenant: 16, maxRunningPerTenant: 1 });
      // The flooder sent more than its share holds and was refused; the quiet tenant never was.
      // Refused by the pool's queue share or, first, by the face's in-flight cap per session.
      expect((row.flooder.outcomes["POOL_SATURATED"] ?? 0) + (row.flooder.outcomes["TOO_MANY_REQUESTS"] ?? 0)).toBeGreaterThan(0);
      expect(Object.keys(row.flooder.outcomes).filter((o) => o.startsWith("error:"))).toEqual([]);
      expect(row.idle).toMatchObject({ calls: 4, outcomes: { ok: 4 } });
      expect(row.flood).toMatchObject({ calls: 4, outcomes: { ok: 4 } });
      expect(row.flood.window.healthzN).toBeGreaterThan(0);
      expect(Number.isFinite(row.p99Ratio)).toBe(true);
      const result = {
        catalogTools: 0,
        targets: stallPlan(true).targets,
        settings: { windowMs: 0, stepDeadlineMs: 0, maxIterations: 0 },
        goals: STALL_TARGETS,
        sandbox: { available: true },
        idle: row.idle.window,
        kinds: [],
        tenantFlood: row,
      } satisfies StallResult;
      expect(stallProblems(result)).toEqual([]);
      expect(stallMarkdown(result, "##").join("\n")).toMatch(/Tenant flood: `mcp --http`[\s\S]*\| flooding tenant: 20 busy bodies in flight \| 4 \|/);
      expect(stallSummaryRows(result).at(-1)![0]).toContain("quiet tenant's code call p99");
    } finally {
      await probes.close();
    }
  });

  it("sees a block that starts at once, in the loop histogram and from the poller thread", async () => {
    const server = createServer((_req, res) => res.end("{}"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const probes = new Probes(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    try {
      const { figures } = await probes.measure(async () => {
        const until = performance.now() + 150;
        while (performance.now() < until);
      });
      expect(figures.loopMaxMs).toBeGreaterThanOrEqual(140);
      expect(figures.healthzMaxMs).toBeGreaterThanOrEqual(100);
      expect(figures.healthzErrors).toBe(0);
    } finally {
      await probes.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("stops climbing where one request would pass the per-step deadline", async () => {
    const engine = undefined as never;
    // 40, 80, 160 ms run; 320 is predicted at ≥ 320 ms > 300 and never sent. A busy machine
    // stretches each step's wall time, so the climb may stop a step earlier (its prediction for
    // 160 already past 300): what must hold is that it never sends a step predicted past the
    // deadline, so it ends within 40, 80, 160 and says why.
    const capped = await climb(engine, blockingKind(doublingLadder(40, 640)), 300);
    const sizes = capped.steps.map((s) => s.size);
    expect([[40], [40, 80], [40, 80, 160]]).toContainEqual(sizes);
    expect(capped.cappedReason).toMatch(/at (80|160|320) predicted|at (40|80|160) took/);
    const done = await climb(engine, blockingKind([1, 2, 3]), 1_000);
    expect(done.steps.map((s) => s.size)).toEqual([1, 2, 3]);
    expect(done.cappedReason).toBeUndefined();
  });

  it("extrapolates with the kind's growth model", () => {
    const steps = [
      { size: 100, ms: 10, outcome: "ok" },
      { size: 200, ms: 40, outcome: "ok" },
    ];
    expect(predictMs(blockingKind([]), steps, 400)).toBeCloseTo(160);
    const regex = [
      { size: 20, ms: 10, outcome: "ok" },
      { size: 21, ms: 20, outcome: "ok" },
    ];
    expect(predictMs(blockingKind([], "exponential"), regex, 24)).toBeCloseTo(160);
    // One noisy step neither makes growth explode (bounded to quadratic) nor predicts a bigger input cheaper.
    expect(
      predictMs(
        blockingKind([]),
        [
          { size: 100, ms: 10, outcome: "ok" },
          { size: 200, ms: 100, outcome: "ok" },
        ],
        400,
      ),
    ).toBeCloseTo(400);
    expect(
      predictMs(
        blockingKind([]),
        [
          { size: 100, ms: 10, outcome: "ok" },
          { size: 200, ms: 5, outcome: "ok" },
        ],
        400,
      ),
    ).toBeCloseTo(10);
  });

  it("ladders end at the target and quick sizes stay below the full ones", () => {
    expect(doublingLadder(250, 20_000)).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 20_000]);
    expect(linearLadder(16, 18)).toEqual([16, 17, 18]);
    const [quick, full] = [stallPlan(true), stallPlan(false)];
    expect(full.targets).toEqual({ idChars: 400_000, regexChars: 30, schemaProperties: 6_000, uniqueItems: 20_000 });
    expect(full.memoryRuns).toBe(10_000);
    expect(full.flood).toMatchObject({ tools: 10_000 });
    const [quickFlood, fullFlood] = [quick.flood as FloodOptions, full.flood as FloodOptions];
    expect(quickFlood).toMatchObject({ tools: expect.any(Number) });
    expect(quickFlood.tools * quickFlood.windowMs).toBeLessThan(fullFlood.tools * fullFlood.windowMs);
    expect(full.tenantFlood).toMatchObject({ floodBodies: 100 });
    const [quickTenants, fullTenants] = [quick.tenantFlood as TenantFloodOptions, full.tenantFlood as TenantFloodOptions];
    expect(quickTenants).toMatchObject({ floodBodies: expect.any(Number) });
    expect(quickTenants.floodBodies * quickTenants.busyMs).toBeLessThan(fullTenants.floodBodies * fullTenants.busyMs);
    expect(full.amplify).toMatchObject({ calls: 32, resultBytes: 1024 * 1024 });
    expect((quick.amplify as { turns: number }).turns).toBeLessThan((full.amplify as { turns: number }).turns);
    for (const key of Object.keys(full.targets) as Array<keyof typeof full.targets>) expect(quick.targets[key]).toBeLessThan(full.targets[key]);
  });
});
