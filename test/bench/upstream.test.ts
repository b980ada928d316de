/**
 * The upstream benchmark's own checks: with tiny sizes it runs gateway turns with and without a
 * hung server and a quiet tenant's calls alone and under a flood (and unshared), every turn and
 * call answered, and writes its tables (no timing assertions: this machine may be slow or busy).
 */
import { describe, expect, it } from "vitest";
import { silent } from "../../bench/harness/progress.js";
import { summaryMarkdown } from "../../bench/report/summary.js";
import { parseUpstreamArgs } from "../../bench/upstream/main.js";
import { upstreamPlan } from "../../bench/upstream/plan.js";
import { runUpstreamBench, upstreamProblems } from "../../bench/upstream/upstream-bench.js";
import { fakeResults } from "./fake-results.js";

describe("upstream benchmark", () => {
  // Slow on purpose: the upstream bench's rows run for real, a hung server's connect timeout included.
  it("measures turns beside a hung server and a quiet tenant beside a flood, and writes its section", { timeout: 120_000 }, async () => {
    const result = await runUpstreamBench({
      turns: 2,
      connectTimeoutMs: 300,
      slowMs: 150,
      floodCalls: 3,
      quietCalls: 2,
      quietGapMs: 10,
      unshared: true,
      log: silent,
    });
    expect(upstreamProblems(result)).toEqual([]);
    expect(result.hung.rows.map((r) => [r.servers, r.turns, r.failed])).toEqual([
      [2, 2, 0],
      [3, 2, 0],
    ]);
    expect(result.shares.rows.map((r) => [r.maxConcurrentCalls, r.flood, r.calls, r.failed])).toEqual([
      [1, false, 2, 0],
      [1, true, 2, 0],
      [3, true, 2, 0],
    ]);
    expect(Number.isFinite(result.shares.maxInSlowCalls)).toBe(true);
    const markdown = summaryMarkdown(fakeResults({ upstream: { status: "ok", ms: 1, result } }));
    expect(markdown).toContain("## Upstream faults");
    expect(markdown).toContain("| two servers + one hung |");
    expect(markdown).toContain("| the same, unshared (slots = flood) | 3 |");
  });

  it("reads its flags; quick sizes stay below the full ones", () => {
    expect(parseUpstreamArgs(["--quick", "--unshared", "--slow-ms", "250"]).plan).toEqual({ ...upstreamPlan(true), unshared: true, slowMs: 250 });
    expect(() => parseUpstreamArgs(["--turns", "0"])).toThrow(/--turns needs a positive whole number/);
    expect(() => parseUpstreamArgs(["--fast"])).toThrow(/unknown option --fast/);
    const quick = upstreamPlan(true);
    const full = upstreamPlan(false);
    expect(quick.turns).toBeLessThan(full.turns);
    expect(quick.slowMs).toBeLessThan(full.slowMs);
  });
});
