/** The stall benchmark's sizes: the full run uses the hostile sizes of the hardening issue; quick (CI) uses small ones. */
import { FULL_TARGETS, QUICK_TARGETS } from "./hostile.js";
import type { StallOptions } from "./stall-bench.js";

export type StallPlan = Omit<StallOptions, "log">;

export function stallPlan(quick: boolean): StallPlan {
  return quick
    ? {
        tools: 1_000,
        targets: { ...QUICK_TARGETS },
        windowMs: 1_000,
        stepDeadlineMs: 500,
        maxIterations: 200,
        memoryRuns: 1_000,
        // Small, but on in CI: the quick run is where a flood's stall is gated (stall/mcp-flood/loop-p99÷idle).
        flood: { tools: 2_000, intervalMs: 50, windowMs: 1_000 },
        tenantFlood: { floodBodies: 24, busyMs: 1_000, victimCalls: 20, victimGapMs: 50, retryMs: 250, hold: "cpu", shares: true },
        amplify: { turns: 2, calls: 32, resultBytes: 1024 * 1024 },
        code: true,
      }
    : {
        tools: 1_000,
        targets: { ...FULL_TARGETS },
        windowMs: 5_000,
        stepDeadlineMs: 5_000,
        maxIterations: 1_000,
        memoryRuns: 10_000,
        flood: { tools: 10_000, intervalMs: 50, windowMs: 10_000 },
        tenantFlood: { floodBodies: 100, busyMs: 2_000, victimCalls: 200, victimGapMs: 50, retryMs: 250, hold: "cpu", shares: true },
        amplify: { turns: 8, calls: 32, resultBytes: 1024 * 1024 },
        code: true,
      };
}
