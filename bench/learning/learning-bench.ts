/**
 * The learning suite: replays past requests through the real run API (replay.ts) and scores
 * held-out requests at 0, 100, 1,000, 10,000 sessions and the whole past split; the poisoning
 * case; and what learning costs (memory, search latency, and latency at catalog scale: latency.ts).
 *
 *   node dist/bench/learning/main.js [--quick]     (or npm run bench -- --only learning)
 *
 * The learned ranking's parameters were chosen by replaying 80% of MetaTool's tune split and
 * scoring the other 20%, and on Seal-Tools' replay (bench/learning/probe-set.ts): MetaTool's
 * validate figure is held out, Seal-Tools' is not.
 * Measures the ceiling at learning's default evidence rule on purpose: imports src/learning/options.ts directly.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { lineChart } from "../charts/svg.js";
import type { Progress } from "../harness/progress.js";
import type { JudgedQuery } from "../lib/relevance.js";
import { liveMcpSet, metaToolSet, sealSet, shuffled, type ReplaySet } from "./sets.js";
import { replayCurve, replayEngine, replaySession, score, type CurvePoint } from "./replay.js";
import { measureLatency, type LatencyRow } from "./latency.js";
import { learningCeiling, type CeilingResult } from "./ceiling.js";
import { DEFAULT_LEARNING } from "../../src/learning/options.js";

export interface SetCurve {
  set: string;
  tools: number;
  past: number;
  heldOut: number;
  points: CurvePoint[];
}

export interface PoisoningResult {
  /** Poison sessions replayed: one tenant tying every held-out request of a tool to a wrong tool. */
  sessions: number;
  scope: string;
  /** Top-1 on the held-out requests for another agent or tenant, before and after. */
  othersBefore: number;
  othersAfter: number;
  /** Hit lists of the others that changed at all (agent scope: must be 0). */
  othersChanged: number;
  /** The others' requests whose first hit is the poisoner's false tool, before and after (must not grow). */
  othersFalseTop1Before: number;
  othersFalseTop1After: number;
  /** The poisoner's own top-1 after (its scope moved, or not). */
  poisonerAfter: number;
}

export interface CostResult {
  set: string;
  records: number;
  /** Heap growth after learning (forced GC before and after), bytes. */
  heapBytes: number;
  /** explain() p50 over the held-out requests, µs, learning off and on (after the whole replay). */
  p50OffUs: number;
  p50OnUs: number;
}

export interface LearningResult {
  curves: SetCurve[];
  poisoning: PoisoningResult[];
  cost: CostResult;
  /** Search latency with learning on at catalog scale (latency.ts). */
  latency: LatencyRow[];
  /** What a bag-of-words learner reaches on MetaTool with and without the minSessions rule (ceiling.ts). */
  ceiling: CeilingResult;
  quick: boolean;
}

const gc = (globalThis as { gc?: () => void }).gc;

export async function runLearningBench(options: { dataDir: string; quick: boolean; log: Progress }): Promise<LearningResult> {
  const { dataDir, quick, log } = options;
  const meta = metaToolSet(dataDir);
  const metaPast = shuffled(meta.past);
  // Held-out requests in a fixed shuffle: the files list them tool by tool, and a quick run scores a sample.
  const sets: ReplaySet[] = [{ ...meta, past: metaPast, heldOut: shuffled(meta.heldOut, "held-out") }, sealSet(dataDir), liveMcpSet(dataDir)].map((s) => ({
    ...s,
    heldOut: shuffled(s.heldOut, "held-out"),
  }));
  const curves: SetCurve[] = [];
  for (const set of sets) {
    const all = set.past.length;
    const checkpoints = quick
      ? set.name === "metatool"
        ? [0, 100, 1_000, 3_000]
        : [0, all]
      : [...new Set([0, 100, 1_000, 10_000, all].filter((n) => n <= all))];
    const evalLimit = quick ? (set.name === "metatool" ? 400 : 300) : undefined;
    log(
      `${set.name}: replaying up to ${Math.max(...checkpoints)} sessions, scoring ${evalLimit ?? set.heldOut.length} held-out requests at ${checkpoints.join(", ")}`,
    );
    const points = await replayCurve(set, { checkpoints, ...(evalLimit !== undefined ? { evalLimit } : {}) });
    curves.push({
      set: set.name,
      tools: [...set.plugins.values()].reduce((n, d) => n + d.length, 0),
      past: all,
      heldOut: evalLimit ?? set.heldOut.length,
      points,
    });
    log(`${set.name}: ${points.map((p) => `${p.sessions}→${p.top1.toFixed(3)}`).join("  ")}`);
  }
  const poisoning = [await poison(meta, "agent", quick), await poison(meta, "shared", quick)];
  const cost = await measureCost({ ...meta, past: metaPast }, quick);
  const latency: LatencyRow[] = [];
  for (const [workload, tools] of quick
    ? ([["registry", 10_000]] as const)
    : ([
        ["seal", 4_076],
        ["registry", 100_000],
      ] as const)) {
    const row = await measureLatency(dataDir, workload, tools);
    log(
      `latency, ${workload} × ${tools}: p50 ${row.p50OffMs.toFixed(2)} ms learning off, ${row.p50OnMs.toFixed(2)} ms on, ${row.onVsMemoryBm25.toFixed(2)}× memory BM25`,
    );
    latency.push(row);
  }
  const ceiling = await learningCeiling({ ...meta, past: metaPast }, DEFAULT_LEARNING.minSessions);
  log(
    `ceiling, metatool: top-1 ${ceiling.allPairs.top1.toFixed(3)} with every pair, ${ceiling.countedPairs.top1.toFixed(3)} with pairs from ≥ ${ceiling.minSessions} requests, ${ceiling.linear.top1.toFixed(3)} for a linear classifier over those, ${ceiling.linearFused.top1.toFixed(3)} fused with the catalog; ${ceiling.linearWithoutRule.top1.toFixed(3)} for the classifier without the per-pair rule`,
  );
  return { curves, poisoning, cost, latency, ceiling, quick };
}

/**
 * One tenant repeats a false association: held-out requests called as one wrong tool, in many
 * sessions, under the victim's own agent id. Agent scope: the victim's traffic is one tenant's
 * ("good"), the poisoner another tenant naming the same agent, so the victim's hit lists must
 * not change at all (an agent's scope is keyed within its tenant). Shared scope: 50 honest
 * tenants and the poisoner; the contributor is the tenant, so one tenant counts once and never
 * reaches minSessions: the false tool must never rise (lists may still move a little where the
 * poisoner adds to pairs an honest tenant gave, which then weigh in term totals).
 */
async function poison(set: ReplaySet, scope: "agent" | "shared", quick: boolean): Promise<PoisoningResult> {
  const engine = await replayEngine(set, { scope });
  const eval_ = shuffled(set.heldOut, "held-out").slice(0, quick ? 200 : 1_000);
  const sessions = quick ? 200 : 2_000;
  const honestTenant = (i: number) => (scope === "agent" ? "good" : `good-${i % 50}`);
  try {
    // Honest traffic first, so that the others have something learned to lose.
    for (let i = 0; i < (quick ? 600 : 4_000); i++)
      await replaySession(engine, `good-${i}`, "victim", [set.past[i % set.past.length]!], (q) => q.relevant[0]!, honestTenant(i));
    await engine.learning?.flush();
    const before = await rankLists(engine, eval_, "victim", honestTenant(0));
    const wrong = "plugin:metatool:" + [...set.plugins.get("metatool")!].map((d) => d.name).sort()[0]!;
    for (let i = 0; i < sessions; i++) {
      const q = eval_[i % eval_.length]!;
      await replaySession(engine, `evil-${i}`, "victim", [q], () => wrong, "evil");
    }
    await engine.learning?.flush();
    const after = await rankLists(engine, eval_, "victim", honestTenant(0));
    const poisoner = await score(engine, eval_, "victim", "evil");
    return {
      sessions,
      scope,
      othersBefore: top1(before, eval_),
      othersAfter: top1(after, eval_),
      othersChanged: before.filter((list, i) => list.join() !== after[i]!.join()).length,
      othersFalseTop1Before: before.filter((l) => l[0] === wrong).length,
      othersFalseTop1After: after.filter((l) => l[0] === wrong).length,
      poisonerAfter: poisoner.top1,
    };
  } finally {
    await engine.close();
  }
}

async function rankLists(
  engine: Awaited<ReturnType<typeof replayEngine>>,
  queries: readonly JudgedQuery[],
  agentId: string,
  tenant: string,
): Promise<string[][]> {
  const run = await engine.prepareRun({ sessionId: `probe-${Math.random()}`, agentId, tenant });
  try {
    const out: string[][] = [];
    for (const q of queries) out.push((await run.explain(q.query, { limit: 10 })).map((h) => h.id));
    return out;
  } finally {
    await run.end();
  }
}

function top1(lists: readonly string[][], queries: readonly JudgedQuery[]): number {
  return lists.filter((l, i) => queries[i]!.relevant.includes(l[0] ?? "")).length / Math.max(1, lists.length);
}

async function measureCost(set: ReplaySet, quick: boolean): Promise<CostResult> {
  const queries = shuffled(set.heldOut, "held-out").slice(0, quick ? 300 : 2_000);
  const timeOf = async (engine: Awaited<ReturnType<typeof replayEngine>>): Promise<number> => {
    const run = await engine.prepareRun({ sessionId: "cost", agentId: "replay" });
    const times: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (const q of queries) {
        const t = performance.now();
        await run.explain(q.query);
        if (round === 1) times.push(performance.now() - t);
      }
    }
    await run.end();
    times.sort((a, b) => a - b);
    return Math.round(times[Math.floor(times.length / 2)]! * 1000);
  };
  const off = await replayEngine(set, false);
  const p50OffUs = await timeOf(off);
  await off.close();
  const on = await replayEngine(set, {});
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const replayed = quick ? 2_000 : set.past.length;
  for (let i = 0; i < replayed; i++) await replaySession(on, `c-${i}`, "replay", [set.past[i]!], (q) => q.relevant[0]!);
  await on.learning?.flush();
  gc?.();
  const heapBytes = Math.max(0, process.memoryUsage().heapUsed - heapBefore);
  const p50OnUs = await timeOf(on);
  const records = on.learning?.stats().records ?? 0;
  await on.close();
  return { set: set.name, records, heapBytes, p50OffUs, p50OnUs };
}

/** The replay curve as an SVG line chart (top-1 against sessions replayed, log x; 0 drawn at 10). */
export function learningChart(result: LearningResult): string {
  return lineChart({
    title: "Learning from use: held-out top-1 after N replayed sessions",
    subtitle: "real run API (search → call), k = 3 sessions per pair, agent scope",
    xLabel: "sessions replayed (0 drawn at 10)",
    yLabel: "top-1",
    xLog: true,
    series: result.curves.map((c) => ({ name: `${c.set} (${c.tools} tools)`, points: c.points.map((p) => [Math.max(10, p.sessions), p.top1] as const) })),
    formatY: (y) => y.toFixed(2),
  });
}

export function writeLearningChart(result: LearningResult, dir: string): string {
  const file = path.join(dir, "learning-replay.svg");
  writeFileSync(file, learningChart(result));
  return file;
}
