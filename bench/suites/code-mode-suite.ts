/**
 * Code-mode sandbox latency and throughput, from bench/code-mode: spawn→ready, warm
 * search→describe→call, sustained bodies/s with a pre-forked pool, with a child forked per body
 * (no pool) and for a bare `node -e 0` spawn (the floor), with the ratios the summary shows.
 */
import type { Progress } from "../harness/progress.js";
import { median, ratio, round } from "../harness/stats.js";
import { runForeignBench } from "./foreign.js";
import type { PublicApiCost } from "../code-mode/public-api.js";

export interface Percentiles {
  p50: number;
  /** Not measured by bench/code-mode yet (see bench/README.md). */
  p90?: number;
  p99: number;
  n: number;
}

export interface Rate {
  perSecond: number;
  cpuMsPer: number;
}

/** What bench/code-mode/main.ts writes to bench/results/code-mode.json. */
export interface CodeModeBenchOutput {
  date: string;
  quick: boolean;
  layers: Record<string, boolean>;
  spawnToReadyMs: Percentiles;
  spawnToReadyMsgpackrMs?: Percentiles;
  bareSpawnMs: Percentiles;
  warmSearchDescribeCallMs: Percentiles;
  /** A body run on a child forked for it (no prefork), if measured. */
  spawnPerCallMs?: Percentiles;
  /** Warm p50 ÷ fresh-child p50 per block, when the two were measured in alternating blocks. */
  warmVsPerCallBlocks?: number[];
  /** `rounds`: bodies/s of each round (the rounds alternate modes), when bench/code-mode reports them. */
  throughput: Array<{
    size: number;
    pool: Rate;
    noPrefork: Rate;
    bare: Rate;
    /** This process's CPU per body on the pre-forked pool (process.cpuUsage). */
    parentCpuMsPerBody?: number;
    /** The spawner's own CPU per body (pool/spawner.ts), when the pool had one. */
    spawnerCpuMsPerBody?: number;
    rounds?: Array<{ pool: number; noPrefork: number; bare: number; parentVsChildCpu?: number }>;
  }>;
  /** node's USS/PSS per ready child and the wrappers' USS beside it (MiB). */
  readyChildMemoryMiB?: { nodeUss: number; nodePss: number; wrapperUss: number; children: number };
  /** This process's CPU per body through run.handleToolCall beside the direct operations (issue 34), when measured. */
  publicApi?: PublicApiCost;
  /** The in-process sandbox measured in the same run (quickjs-emscripten), when installed. */
  inProcessReference?: { name: string; version: string; warmP50Ms: number; perSecond: number; cpuMsPerBody: number; n: number };
}

export interface CodeModeSuiteResult {
  command: string;
  ms: number;
  output: CodeModeBenchOutput;
  /** Per pool size: the pool's and the fork-per-body rate as shares of the bare-spawn floor, and pool over fork-per-body. */
  ratios: Array<{
    size: number;
    /** Pool rate ÷ floor rate: the median of the per-round ratios when bench/code-mode reports rounds, else of the sums. */
    poolVsFloor: number;
    noPreforkVsFloor: number;
    poolVsNoPrefork: number;
    /** Lowest and highest per-round pool ÷ floor, and how many rounds, when bench/code-mode reports rounds. */
    poolVsFloorRange?: [number, number];
    rounds?: number;
    /**
     * This process's CPU per body ÷ the CPU per body of the children that ran them (median of the
     * rounds): the parent's share, as a ratio that load moves less than either alone.
     */
    parentVsChildCpu?: number;
    parentVsChildCpuRange?: [number, number];
  }>;
  /** Warm-pool p50 ÷ fresh-child p50 (the per-call cost a pool removes). */
  warmVsFreshChild?: { value: number; range?: [number, number]; repeats?: number };
  /** Pool sizes the brief asks for that bench/code-mode did not measure. */
  missingSizes: number[];
}

const WANTED_POOL_SIZES = [1, 2, 4, 8];

export async function runCodeModeSuite(options: { root: string; quick: boolean; log: Progress }): Promise<CodeModeSuiteResult> {
  const run = await runForeignBench<CodeModeBenchOutput>({
    root: options.root,
    script: "dist/bench/code-mode/main.js",
    args: options.quick ? ["--quick"] : [],
    output: "bench/results/code-mode.json",
    restore: options.quick,
    timeoutMs: options.quick ? 180_000 : 1_200_000,
    log: options.log,
  });
  const out = run.result;
  if (!out.warmSearchDescribeCallMs || !(out.warmSearchDescribeCallMs.p50 > 0)) throw new Error("bench/code-mode wrote no warm latency");
  if (!Array.isArray(out.throughput) || out.throughput.length === 0) throw new Error("bench/code-mode wrote no throughput");
  const ratios = out.throughput.map((t) => {
    // With rounds, pool ÷ floor is the median of the per-round ratios (each round runs the floor
    // and the pool back to back, so a burst of load from elsewhere falls on one round only).
    const perRound = (t.rounds ?? []).map((r) => r.pool / r.bare).filter((x) => Number.isFinite(x) && x > 0);
    const cpuRounds = (t.rounds ?? []).map((r) => r.parentVsChildCpu).filter((x): x is number => typeof x === "number" && Number.isFinite(x) && x > 0);
    const cpu =
      cpuRounds.length > 0
        ? {
            parentVsChildCpu: round(median(cpuRounds), 4),
            ...(cpuRounds.length > 1
              ? { parentVsChildCpuRange: [round(Math.min(...cpuRounds), 4), round(Math.max(...cpuRounds), 4)] as [number, number] }
              : {}),
          }
        : {};
    return {
      size: t.size,
      ...cpu,
      poolVsFloor: perRound.length > 1 ? round(median(perRound), 3) : ratio(t.pool.perSecond, t.bare.perSecond, 3),
      noPreforkVsFloor: ratio(t.noPrefork.perSecond, t.bare.perSecond, 3),
      poolVsNoPrefork: ratio(t.pool.perSecond, t.noPrefork.perSecond, 3),
      ...(perRound.length > 1
        ? { poolVsFloorRange: [round(Math.min(...perRound), 3), round(Math.max(...perRound), 3)] as [number, number], rounds: perRound.length }
        : {}),
    };
  });
  const measured = new Set(out.throughput.map((t) => t.size));
  const blocks = (out.warmVsPerCallBlocks ?? []).filter((x) => Number.isFinite(x) && x > 0);
  const warmVsFreshChild = out.spawnPerCallMs
    ? {
        value: ratio(out.warmSearchDescribeCallMs.p50, out.spawnPerCallMs.p50, 4),
        ...(blocks.length > 1 ? { range: [round(Math.min(...blocks), 4), round(Math.max(...blocks), 4)] as [number, number], repeats: blocks.length } : {}),
      }
    : undefined;
  return {
    command: run.command,
    ms: run.ms,
    output: out,
    ratios,
    ...(warmVsFreshChild ? { warmVsFreshChild } : {}),
    missingSizes: WANTED_POOL_SIZES.filter((s) => !measured.has(s)),
  };
}
