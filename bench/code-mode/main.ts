/**
 * Code-mode sandbox benchmark. Run after `npx tsc -p tsconfig.json`:
 *
 *   node dist/bench/code-mode/main.js [--quick]
 *
 * Measures, on this machine:
 * - spawn → ready of one sandbox child (all layers), and the same child with msgpackr's no-eval
 *   build inlined instead of the small codec (the evidence for child/codec.ts's choice), next to
 *   a bare `node -e 0`, with the CPU each start costs;
 * - latency of a search → describe → call body against an in-memory bridge (p50/p90/p99), on a
 *   warm pool and on a child spawned for the call (no prefork);
 * - sustained bodies per second at pool sizes 1, 2, 4, 8 (quick: 1, 2, 4), against a pool that forks a fresh child
 *   per body (no prefork) and against a bare `node -e 0` spawn (the floor), with the CPU each
 *   costs (user+sys of reaped children, from /proc/self/stat).
 * - the launch floor (issue 12): the exact wrapper chain (prlimit, unshare) and node flags the pool
 *   uses, running `-e 0`, at the same concurrencies: what no pool can beat on this machine;
 * - the parent's own CPU per body (process.cpuUsage of this process: spawning, framing, bridge
 *   calls), the part of the cost that grows with concurrency on one event loop.
 * Pool sizes: 1, 2, 4, … up to os.availableParallelism() (and it), or `--sizes 1,2,4`.
 * Prints a table and writes bench/results/code-mode.json. Targets: warm p50 ≤ 5 ms; pool
 * throughput ≥ 80% of the bare-spawn rate; ≥ 90% of the launch floor.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { childSource } from "../../src/sandbox/child/source.js";
import type { LaunchPlan } from "../../src/sandbox/pool/launch.js";
import { startCodePool, type SandboxPool } from "../../src/sandbox/pool/pool.js";
import { resolvePoolOptions } from "../../src/sandbox/pool/options.js";
import { SandboxChild } from "../../src/sandbox/pool/sandbox-child.js";
import type { BridgeHandler } from "../../src/sandbox/types.js";
import { percentile } from "../harness/stats.js";

const QUICK = process.argv.includes("--quick");
function sizes(): number[] {
  const i = process.argv.indexOf("--sizes");
  if (i >= 0) return process.argv[i + 1]!.split(",").map(Number).filter((n) => Number.isInteger(n) && n > 0);
  const cores = availableParallelism();
  const out: number[] = [];
  for (let n = 1; n < cores; n *= 2) out.push(n);
  out.push(cores);
  return out;
}
const SIZES = sizes();
// Throughput runs `rounds` short rounds per mode, alternating modes, so that load from other
// processes on a shared machine falls on every mode alike.
const N = QUICK
  ? { spawn: 8, warm: 48, perCall: 16, bodies: 8, rounds: 6, latencyBlocks: 4 }
  : { spawn: 20, warm: 80, perCall: 20, bodies: 12, rounds: 6, latencyBlocks: 4 };
const CLK_TCK = 100;

const BODY = `
const hits = await openclaw.tools.search("weather");
const tool = await openclaw.tools.describe(hits[0].id);
return await openclaw.tools.call(tool.id, { city: "Paris" });`;

const TOOLS = [
  { id: "core:weather", description: "Current weather for a city", inputSchema: { type: "object" } },
  { id: "core:news", description: "Headlines", inputSchema: { type: "object" } },
];
const bridge: BridgeHandler = {
  async search(query) {
    const q = String(query);
    return TOOLS.filter((t) => t.description.toLowerCase().includes(q)).map((t) => ({ id: t.id, description: t.description }));
  },
  async describe(id) {
    return TOOLS.find((t) => t.id === id);
  },
  async call(_id, args) {
    return { tempC: 21, args };
  },
};


/** CPU seconds of all reaped descendants (cutime + cstime). */
function childrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  // Fields after "comm)": state is index 0, so cutime (field 16) and cstime (17) are 13 and 14.
  return ((Number(fields[13]) + Number(fields[14])) / CLK_TCK) * 1000;
}

async function loops(concurrency: number, total: number, task: () => Promise<void>): Promise<number> {
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < total) {
        started += 1;
        await task();
      }
    }),
  );
  return performance.now() - t0;
}

/** The launch floor: the pool's own launch plan (wrappers and node flags), running `-e 0`. */
let floorPlan: LaunchPlan | undefined;
function floorSpawn(): Promise<void> {
  const plan = floorPlan!;
  return new Promise((resolve, reject) => {
    const child = spawn(plan.command, [...plan.prefix, ...plan.nodeFlags, "-e", "0"], { stdio: "ignore", env: {} });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`the launch floor exited with ${code}: ${plan.command} ${[...plan.prefix, ...plan.nodeFlags].join(" ")}`))));
  });
}

function bareSpawn(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore", env: {} });
    child.on("error", reject);
    child.on("close", () => resolve());
  });
}

interface Startup {
  /** Wall time per start (spawn → exit for bare node, spawn → ready frame for a sandbox child). */
  ms: number[];
  /** Mean CPU per start of the reaped processes (user+sys), including a bare node's own exit. */
  cpuMs: number;
}

/**
 * Spawn → ready of a sandbox child, with the small codec and with msgpackr inlined, and bare
 * `node -e 0` spawn → exit, interleaved one start at a time so load drift hits all three alike.
 */
async function startups(pool: SandboxPool): Promise<Record<"bare" | "mini" | "msgpackr", Startup>> {
  const plan = pool.launchPlan()!;
  const options = resolvePoolOptions({});
  const sources = { mini: childSource(pool.tag, "mini"), msgpackr: childSource(pool.tag, "msgpackr") };
  const cwd = mkdtempSync(join(tmpdir(), "toolsearch-bench-"));
  const out = { bare: { ms: [] as number[], cpu: 0 }, mini: { ms: [] as number[], cpu: 0 }, msgpackr: { ms: [] as number[], cpu: 0 } };
  try {
    for (let i = 0; i < N.spawn; i++) {
      for (const kind of ["bare", "mini", "msgpackr"] as const) {
        const cpu0 = childrenCpuMs();
        const t0 = performance.now();
        if (kind === "bare") {
          await bareSpawn();
          out.bare.ms.push(performance.now() - t0);
        } else {
          const child = new SandboxChild({ plan, source: sources[kind], cwd, options });
          await child.ready;
          out[kind].ms.push(performance.now() - t0);
          child.kill();
          await child.closed;
        }
        out[kind].cpu += childrenCpuMs() - cpu0;
      }
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  const summary = (s: { ms: number[]; cpu: number }): Startup => ({ ms: s.ms, cpuMs: s.cpu / s.ms.length });
  return { bare: summary(out.bare), mini: summary(out.mini), msgpackr: summary(out.msgpackr) };
}

/**
 * Latency of one body on a warm pool (a child pre-forked and ready) and on a pool that keeps no
 * child ready (every call pays for a spawn), in `N.latencyBlocks` alternating blocks so that load
 * from elsewhere falls on both alike; per block, warm p50 ÷ fresh-child p50 (the spread of that ratio).
 */
async function latencies(): Promise<{ warm: number[]; perCall: number[]; blockRatios: number[] }> {
  const warmPool = await startCodePool({ prefork: 1, maxConcurrent: 1 });
  const coldPool = await startCodePool({ prefork: 0, maxConcurrent: 1 });
  const warm: number[] = [];
  const perCall: number[] = [];
  const blockRatios: number[] = [];
  try {
    // The first runs also warm the parent's own code paths: not counted.
    for (let i = 0; i < 5; i++) await warmRun(warmPool);
    for (let b = 0; b < N.latencyBlocks; b++) {
      const w: number[] = [];
      const c: number[] = [];
      for (let i = 0; i < Math.ceil(N.warm / N.latencyBlocks); i++) w.push(await warmRun(warmPool));
      for (let i = 0; i < Math.ceil(N.perCall / N.latencyBlocks); i++) c.push(await coldRun(coldPool));
      warm.push(...w);
      perCall.push(...c);
      blockRatios.push(percentile(w, 50) / percentile(c, 50));
    }
  } finally {
    await warmPool.close();
    await coldPool.close();
  }
  return { warm, perCall, blockRatios };
}

async function warmRun(pool: SandboxPool): Promise<number> {
  await pool.whenReady(1);
  // Let the previous child's reaping and the new one's last startup work settle.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const t0 = performance.now();
  const result = await pool.run(BODY, bridge, { timeoutMs: 10_000 });
  const ms = performance.now() - t0;
  if (!result.ok) throw new Error(`warm run failed: ${result.error.code} ${result.error.message}`);
  return ms;
}

/** One body on a pool that keeps no child ready: the call pays for a spawn. */
async function coldRun(pool: SandboxPool): Promise<number> {
  const t0 = performance.now();
  const result = await pool.run(BODY, bridge, { timeoutMs: 10_000 });
  const ms = performance.now() - t0;
  if (!result.ok) throw new Error(`spawn-per-call run failed: ${result.error.code} ${result.error.message}`);
  return ms;
}

const latency = (samples: number[]) => ({ p50: percentile(samples, 50), p90: percentile(samples, 90), p99: percentile(samples, 99), n: samples.length });

interface Rate {
  perSecond: number;
  cpuMsPer: number;
}

/** Bodies (or spawns) per second in one round, per mode: the per-round ratios a CI comparison takes the median of. */
type RoundRates = { pool: number; noPrefork: number; bare: number; floor: number };

async function throughput(size: number): Promise<{ size: number; pool: Rate; noPrefork: Rate; bare: Rate; floor: Rate; parentCpuMsPerBody: number; rounds: RoundRates[] }> {
  const sums = { pool: { ms: 0, cpu: 0 }, noPrefork: { ms: 0, cpu: 0 }, bare: { ms: 0, cpu: 0 }, floor: { ms: 0, cpu: 0 } };
  let parentCpuUs = 0;
  const rounds: RoundRates[] = [];
  const runBodies = (pool: SandboxPool) => async () => {
    const result = await pool.run(BODY, bridge, { timeoutMs: 30_000 });
    if (!result.ok) throw new Error(`run failed: ${result.error.code} ${result.error.message}`);
  };
  for (let round = 0; round < N.rounds; round++) {
    const ms: RoundRates = { pool: 0, noPrefork: 0, bare: 0, floor: 0 };
    for (const [mode, task] of [["bare", bareSpawn], ["floor", floorSpawn]] as const) {
      const cpu0 = childrenCpuMs();
      ms[mode] = await loops(size, N.bodies, task);
      sums[mode].ms += ms[mode];
      sums[mode].cpu += childrenCpuMs() - cpu0;
    }
    for (const mode of ["pool", "noPrefork"] as const) {
      const pool = await startCodePool({ prefork: mode === "pool" ? size : 0, maxConcurrent: size, maxQueue: 10_000 });
      await pool.whenReady(mode === "pool" ? size : 0);
      const cpu0 = childrenCpuMs();
      const parent0 = process.cpuUsage();
      ms[mode] = await loops(size, N.bodies, runBodies(pool));
      if (mode === "pool") {
        const used = process.cpuUsage(parent0);
        parentCpuUs += used.user + used.system;
      }
      sums[mode].ms += ms[mode];
      // Count the CPU of the children that ran bodies: wait until they are reaped.
      const deadline = Date.now() + 10_000;
      while (pool.childPids().length > (mode === "pool" ? size : 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      sums[mode].cpu += childrenCpuMs() - cpu0;
      await pool.close();
    }
    rounds.push({ pool: (N.bodies * 1000) / ms.pool, noPrefork: (N.bodies * 1000) / ms.noPrefork, bare: (N.bodies * 1000) / ms.bare, floor: (N.bodies * 1000) / ms.floor });
  }
  const rate = (s: { ms: number; cpu: number }): Rate => ({
    perSecond: (N.bodies * N.rounds * 1000) / s.ms,
    cpuMsPer: s.cpu / (N.bodies * N.rounds),
  });
  return { size, pool: rate(sums.pool), noPrefork: rate(sums.noPrefork), bare: rate(sums.bare), floor: rate(sums.floor), parentCpuMsPerBody: parentCpuUs / 1000 / (N.bodies * N.rounds), rounds };
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function main(): Promise<void> {
  const probePool = await startCodePool({ prefork: 0 });
  const report = probePool.report();
  if (!report.available) {
    console.error(`sandbox unavailable: ${report.reason}`);
    await probePool.close();
    process.exitCode = 1;
    return;
  }
  const load = loadavg()[0]!;
  console.log(`code-mode bench${QUICK ? " (quick)" : ""}: node ${process.version}, ${cpus().length} CPUs, load ${fmt(load, 2)}`);
  console.log(`layers: ${Object.entries(report.layers).filter(([, on]) => on).map(([name]) => name).join(", ")}\n`);

  floorPlan = probePool.launchPlan();
  console.log(`launch floor: ${floorPlan!.command} ${[...floorPlan!.prefix, ...floorPlan!.nodeFlags].join(" ")} -e 0`);
  console.log(`pool sizes: ${SIZES.join(", ")} (os.availableParallelism() = ${availableParallelism()})\n`);
  const starts = await startups(probePool);
  await probePool.close();
  const { warm, perCall, blockRatios } = await latencies();
  const rates = [];
  for (const size of SIZES) rates.push(await throughput(size));

  const row = (name: string, samples: number[], cpu: string, digits = 1) => {
    const d = latency(samples);
    return [name, fmt(d.p50, digits), fmt(d.p90, digits), fmt(d.p99, digits), cpu, String(d.n)];
  };
  const startRow = (name: string, s: Startup) => row(name, s.ms, fmt(s.cpuMs));
  const rows: string[][] = [
    ["measure", "p50 ms", "p90 ms", "p99 ms", "CPU ms", "n"],
    startRow("bare `node -e 0` spawn → exit", starts.bare),
    startRow("sandbox child spawn → ready", starts.mini),
    startRow("  … with msgpackr inlined", starts.msgpackr),
    row("warm search→describe→call", warm, "", 2),
    row("spawn-per-call search→describe→call", perCall, "", 2),
  ];
  const table = (data: string[][]) => {
    const widths = data[0]!.map((_, i) => Math.max(...data.map((r) => r[i]!.length)));
    for (const [i, row] of data.entries()) {
      console.log(row.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]!) : cell.padStart(widths[j]!))).join("  "));
      if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
    }
  };
  table(rows);
  console.log("");
  table([
    ["pool size", "pool /s", "no prefork /s", "bare spawn /s", "launch floor /s", "pool ÷ bare", "pool ÷ floor", "parent CPU ms/body", "CPU ms/body", "CPU ms/bare", "CPU bare ÷ body"],
    ...rates.map((r) => [
      String(r.size),
      fmt(r.pool.perSecond),
      fmt(r.noPrefork.perSecond),
      fmt(r.bare.perSecond),
      fmt(r.floor.perSecond),
      `${fmt((100 * r.pool.perSecond) / r.bare.perSecond, 0)}%`,
      `${fmt((100 * r.pool.perSecond) / r.floor.perSecond, 0)}%`,
      fmt(r.parentCpuMsPerBody, 2),
      fmt(r.pool.cpuMsPer, 0),
      fmt(r.bare.cpuMsPer, 0),
      `${fmt((100 * r.bare.cpuMsPer) / r.pool.cpuMsPer, 0)}%`,
    ]),
  ]);
  console.log("(CPU: user+sys of the reaped children per body or spawn; a bare `node -e 0` pays for its own exit, a sandbox child is SIGKILLed)");

  const warmP50 = percentile(warm, 50);
  const worstRatio = Math.min(...rates.map((r) => r.pool.perSecond / r.bare.perSecond));
  const worstFloor = Math.min(...rates.map((r) => r.pool.perSecond / r.floor.perSecond));
  console.log(`\ntargets: warm p50 ≤ 5 ms: ${fmt(warmP50, 2)} ms ${warmP50 <= 5 ? "met" : "MISSED"}; ` +
    `throughput ≥ 80% of bare spawn: worst ${fmt(100 * worstRatio, 0)}% ${worstRatio >= 0.8 ? "met" : "MISSED"}; ` +
    `≥ 90% of the launch floor: worst ${fmt(100 * worstFloor, 0)}% ${worstFloor >= 0.9 ? "met" : "MISSED"}`);

  const results = {
    date: new Date().toISOString(),
    quick: QUICK,
    machine: { node: process.version, cpus: cpus().length, loadavg1: load },
    layers: report.layers,
    spawnToReadyMs: { ...latency(starts.mini.ms), cpuMs: starts.mini.cpuMs },
    spawnToReadyMsgpackrMs: { ...latency(starts.msgpackr.ms), cpuMs: starts.msgpackr.cpuMs },
    bareSpawnMs: { ...latency(starts.bare.ms), cpuMs: starts.bare.cpuMs },
    warmSearchDescribeCallMs: latency(warm),
    spawnPerCallMs: latency(perCall),
    /** Per alternating block: warm p50 ÷ fresh-child p50. */
    warmVsPerCallBlocks: blockRatios,
    throughput: rates,
    targets: { warmP50Ms: 5, warmMet: warmP50 <= 5, minThroughputRatio: 0.8, worstRatio, throughputMet: worstRatio >= 0.8, minFloorRatio: 0.9, worstFloorRatio: worstFloor, floorMet: worstFloor >= 0.9 },
  };
  const dir = join(process.cwd(), "bench", "results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "code-mode.json"), JSON.stringify(results, null, 2) + "\n");
  console.log(`wrote ${join("bench", "results", "code-mode.json")}`);
}

await main();
