/**
 * The memory row: many runs, each declaring a client tool with a schema no other run has and
 * calling it once with valid arguments, as a gateway serving many different clients does. A
 * compiled validator kept in a cache shared by every run (ajv's, keyed by schema) is never
 * reused by another run, so a cache without bound grows with every run. The heap is read after
 * forced full GCs, at the start and after each quarter of the runs, so the curve shows whether
 * it levels off.
 */
import type { ToolSearchEngine } from "../../src/index.js";
import type { Progress } from "../harness/progress.js";
import { distribution, round, roundDistribution, type Distribution } from "../harness/stats.js";
import { memory } from "../lib/stats.js";
import { clientTool, outcomeOf } from "./hostile.js";

/** Megabytes as the target states them (10^6 bytes). */
const MB = 1e6;

export interface MemoryResult {
  runs: number;
  /** Heap used after forced GC, MB: before the runs, and after each quarter. */
  heapBeforeMB: number;
  heapAfterMB: number;
  growthMB: number;
  /** Growth per run, KB (10^3 bytes). */
  perRunKB: number;
  curve: Array<{ runs: number; heapMB: number }>;
  /** prepareRun + the call + end, ms. */
  runMs: Distribution;
  outcomes: Record<string, number>;
  /** Valid calls that did not come back ok (a broken benchmark unless zero). */
  failed: number;
}

/** A small schema of its own for run `i`: its property name, pattern and bound all differ. */
function distinctSchema(i: number): { schema: Record<string, unknown>; args: Record<string, unknown> } {
  const field = `value_${i}`;
  return {
    schema: {
      type: "object",
      properties: { [field]: { type: "string", pattern: `^r${i}-[a-z]+$` }, count: { type: "integer", minimum: 0, maximum: i + 1 } },
      required: [field],
      additionalProperties: false,
    },
    args: { [field]: `r${i}-ok`, count: 0 },
  };
}

async function oneRun(engine: ToolSearchEngine, i: number): Promise<string> {
  const { schema, args } = distinctSchema(i);
  const run = await engine.prepareRun({ sessionId: `stall-mem-${i % 64}`, mode: "tools", clientTools: [clientTool("form", schema)] });
  try {
    return outcomeOf(await run.handleToolCall({ name: "tool_call", arguments: JSON.stringify({ id: "client:form", args }) }));
  } finally {
    await run.end();
  }
}

export async function runMemoryRow(engine: ToolSearchEngine, runs: number, log: Progress): Promise<MemoryResult> {
  // Warm-up runs (numbered apart from the measured ones) so that lazily built state is in "before".
  for (let i = 0; i < Math.min(200, Math.ceil(runs / 10)); i += 1) await oneRun(engine, 10_000_000 + i);
  const before = memory().heapUsed;
  const curve: MemoryResult["curve"] = [{ runs: 0, heapMB: round(before / MB, 1) }];
  const times: number[] = [];
  const outcomes: Record<string, number> = {};
  const quarter = Math.max(1, Math.ceil(runs / 4));
  let after = before;
  for (let i = 0; i < runs; i += 1) {
    const t0 = performance.now();
    const outcome = await oneRun(engine, i);
    times.push(performance.now() - t0);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    if ((i + 1) % quarter === 0 || i + 1 === runs) {
      after = memory().heapUsed;
      curve.push({ runs: i + 1, heapMB: round(after / MB, 1) });
      log(`memory: ${i + 1} runs, heap ${curve.at(-1)!.heapMB} MB after GC`);
    }
  }
  return {
    runs,
    heapBeforeMB: round(before / MB, 1),
    heapAfterMB: round(after / MB, 1),
    growthMB: round((after - before) / MB, 1),
    perRunKB: round((after - before) / 1e3 / runs, 2),
    curve,
    runMs: roundDistribution(distribution(times), 3),
    outcomes,
    failed: runs - (outcomes["ok"] ?? 0),
  };
}
