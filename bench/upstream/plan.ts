/** The upstream benchmark's sizes: the full run repeats the measurement (16 calls of a slow server queued); quick (CI) uses short ones. */
import type { UpstreamOptions } from "./upstream-bench.js";

export type UpstreamPlan = Omit<UpstreamOptions, "log">;

export function upstreamPlan(quick: boolean): UpstreamPlan {
  return quick
    ? { turns: 8, connectTimeoutMs: 2_000, slowMs: 400, floodCalls: 16, quietCalls: 5, quietGapMs: 100, unshared: false }
    : { turns: 20, connectTimeoutMs: 10_000, slowMs: 1_500, floodCalls: 16, quietCalls: 10, quietGapMs: 200, unshared: false };
}
