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
 * - the parent's own CPU per body (process.cpuUsage of this process: framing, bridge calls, and
 *   spawning where no spawner runs), the part of the cost that grows with concurrency on one
 *   event loop; the spawner's own CPU per body (its utime+stime: the forks moved there); the
 *   children's CPU per body (reaped by the spawner: its cutime+cstime), and per round the
 *   parent's ÷ the children's (the CI figure);
 * - memory per ready child: USS and PSS of node (from /proc/PID/smaps_rollup) and of the wrapper
 *   that stays beside it (unshare);
 * - the parent's CPU per body through the public API (run.handleToolCall at concurrency 2: the
 *   search → describe → call body and `return 1`), beside the same three operations called
 *   directly on the run and the bodies on the pool alone (public-api.ts);
 * - an in-process reference: quickjs-emscripten (a devDependency, never imported by src/), a fresh
 *   context per body, the same body against the same bridge: warm p50, bodies/s, CPU per body.
 * Pool sizes: 1, 2, 4, … up to os.availableParallelism() (and it), or `--sizes 1,2,4`.
 * Prints a table and writes bench/results/code-mode.json. Targets: warm p50 ≤ 5 ms; pool
 * throughput ≥ 80% of the bare-spawn rate; ≥ 90% of the launch floor.
 * Measures the pool's internals (child source, launch plan, one child, resolved options) on purpose: imports src/sandbox/child/, src/sandbox/pool/ directly.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { childSource } from "../../src/sandbox/child/source.js";
import { msgpackrCodecExpression } from "./msgpackr-child-codec.js";
import type { LaunchPlan } from "../../src/sandbox/pool/launch.js";
import { createCodePool, type SandboxPool } from "../../src/sandbox/pool/pool.js";
import { resolvePoolOptions } from "../../src/sandbox/pool/options.js";
import { SandboxChild } from "../../src/sandbox/pool/sandbox-child.js";
import { percentile } from "../harness/stats.js";
import { quickjsReference } from "./quickjs-reference.js";
import { measurePublicApi, publicApiTable } from "./public-api.js";
import { BODY, bridge, BODY_RESULT } from "./fixture.js";
import { CLK_TCK, concurrently, reapedChildrenCpuMs } from "./measure.js";

const QUICK = process.argv.includes("--quick");
function sizes(): number[] {
  const i = process.argv.indexOf("--sizes");
  if (i >= 0)
    return process.argv[i + 1]!.split(",")
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0);
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

/** CPU ms of a live process: its own (utime+stime) and its reaped children's (cutime+cstime); undefined once gone. */
function procCpuMs(pid: number | undefined): { self: number; reaped: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return { self: ((Number(f[11]) + Number(f[12])) / CLK_TCK) * 1000, reaped: ((Number(f[13]) + Number(f[14])) / CLK_TCK) * 1000 };
  } catch {
    return undefined;
  }
}

/** CPU of the children that ran bodies, wherever they were reaped: by this process, or by the pool's spawner. */
function bodyChildrenCpuMs(pool: SandboxPool): number {
  return reapedChildrenCpuMs() + pool.spawnerPids().reduce((sum, pid) => sum + (procCpuMs(pid)?.reaped ?? 0), 0);
}

/** The spawners' own CPU (utime+stime), all of them. */
function spawnersCpuMs(pool: SandboxPool): number {
  return pool.spawnerPids().reduce((sum, pid) => sum + (procCpuMs(pid)?.self ?? 0), 0);
}

function childrenOfPid(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** USS (private clean + dirty) and PSS of a process in MiB, from /proc/PID/smaps_rollup. */
function memoryMiB(pid: number): { uss: number; pss: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0);
    return { uss: (kb("Private_Clean") + kb("Private_Dirty")) / 1024, pss: kb("Pss") / 1024 };
  } catch {
    return undefined;
  }
}

interface ReadyMemory {
  /** node itself, mean over the ready children. */
  nodeUss: number;
  nodePss: number;
  /** The wrappers that stay alive beside node (unshare waits for it), per child. */
  wrapperUss: number;
  children: number;
}

/** Memory per ready child: node (the leaf under the wrappers) and the wrapper processes above it. */
async function readyChildMemory(): Promise<ReadyMemory | undefined> {
  const pool = await createCodePool({ prefork: 4, maxConcurrent: 4 });
  try {
    await pool.whenReady(4);
    // Let the last start's allocations settle (the ready frame goes out before the loop idles).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const rows: Array<{ node: { uss: number; pss: number }; wrappers: number }> = [];
    for (const top of pool.childPids()) {
      let pid = top;
      let wrappers = 0;
      for (let next = childrenOfPid(pid); next.length > 0; next = childrenOfPid(pid)) {
        wrappers += memoryMiB(pid)?.uss ?? 0;
        pid = next[0]!;
      }
      const node = memoryMiB(pid);
      if (node) rows.push({ node, wrappers });
    }
    if (rows.length === 0) return undefined;
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    return {
      nodeUss: mean(rows.map((r) => r.node.uss)),
      nodePss: mean(rows.map((r) => r.node.pss)),
      wrapperUss: mean(rows.map((r) => r.wrappers)),
      children: rows.length,
    };
  } finally {
    await pool.close();
  }
}

/** The launch floor: the pool's own launch plan (wrappers and node flags), running `-e 0`. */
let floorPlan: LaunchPlan | undefined;
function floorSpawn(): Promise<void> {
  const plan = floorPlan!;
  return new Promise((resolve, reject) => {
    const child = spawn(plan.command, [...plan.prefix, ...plan.nodeFlags, "-e", "0"], { stdio: "ignore", env: {} });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`the launch floor exited with ${code}: ${plan.command} ${[...plan.prefix, ...plan.nodeFlags].join(" ")}`)),
    );
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
  const sources = { mini: childSource(pool.tag), msgpackr: childSource(pool.tag, msgpackrCodecExpression()) };
  const cwd = mkdtempSync(join(tmpdir(), "toolsearch-bench-"));
  const out = { bare: { ms: [] as number[], cpu: 0 }, mini: { ms: [] as number[], cpu: 0 }, msgpackr: { ms: [] as number[], cpu: 0 } };
  try {
    for (let i = 0; i < N.spawn; i++) {
      for (const kind of ["bare", "mini", "msgpackr"] as const) {
        const cpu0 = reapedChildrenCpuMs();
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
        out[kind].cpu += reapedChildrenCpuMs() - cpu0;
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
  const warmPool = await createCodePool({ prefork: 1, maxConcurrent: 1 });
  const coldPool = await createCodePool({ prefork: 0, maxConcurrent: 1 });
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
type RoundRates = {
  pool: number;
  noPrefork: number;
  bare: number;
  floor: number;
  /** This process's CPU per body on the pre-forked pool ÷ the CPU per body of the children that ran them. */
  parentVsChildCpu?: number;
};

async function throughput(size: number): Promise<{
  size: number;
  pool: Rate;
  noPrefork: Rate;
  bare: Rate;
  floor: Rate;
  parentCpuMsPerBody: number;
  spawnerCpuMsPerBody: number;
  rounds: RoundRates[];
}> {
  const sums = { pool: { ms: 0, cpu: 0 }, noPrefork: { ms: 0, cpu: 0 }, bare: { ms: 0, cpu: 0 }, floor: { ms: 0, cpu: 0 } };
  let parentCpuUs = 0;
  let spawnerCpuMs = 0;
  const rounds: RoundRates[] = [];
  const runBodies = (pool: SandboxPool) => async () => {
    const result = await pool.run(BODY, bridge, { timeoutMs: 30_000 });
    if (!result.ok) throw new Error(`run failed: ${result.error.code} ${result.error.message}`);
  };
  for (let round = 0; round < N.rounds; round++) {
    const ms: RoundRates = { pool: 0, noPrefork: 0, bare: 0, floor: 0 };
    for (const [mode, task] of [
      ["bare", bareSpawn],
      ["floor", floorSpawn],
    ] as const) {
      const cpu0 = reapedChildrenCpuMs();
      ms[mode] = await concurrently(size, N.bodies, task);
      sums[mode].ms += ms[mode];
      sums[mode].cpu += reapedChildrenCpuMs() - cpu0;
    }
    for (const mode of ["pool", "noPrefork"] as const) {
      const pool = await createCodePool({ prefork: mode === "pool" ? size : 0, maxConcurrent: size, maxQueue: 10_000 });
      await pool.whenReady(mode === "pool" ? size : 0);
      const cpu0 = bodyChildrenCpuMs(pool);
      const spawner0 = spawnersCpuMs(pool);
      const parent0 = process.cpuUsage();
      ms[mode] = await concurrently(size, N.bodies, runBodies(pool));
      let parentUs = 0;
      if (mode === "pool") {
        const used = process.cpuUsage(parent0);
        parentUs = used.user + used.system;
        parentCpuUs += parentUs;
      }
      sums[mode].ms += ms[mode];
      // Count the CPU of the children that ran bodies: wait until they are reaped.
      const deadline = Date.now() + 10_000;
      while (pool.childPids().length > (mode === "pool" ? size : 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 30)); // the spawner reaps on its own turn
      const childCpu = bodyChildrenCpuMs(pool) - cpu0;
      sums[mode].cpu += childCpu;
      if (mode === "pool") {
        spawnerCpuMs += spawnersCpuMs(pool) - spawner0;
        if (childCpu > 0) ms.parentVsChildCpu = parentUs / 1000 / (childCpu / N.bodies) / N.bodies;
      }
      await pool.close();
    }
    rounds.push({
      pool: (N.bodies * 1000) / ms.pool,
      noPrefork: (N.bodies * 1000) / ms.noPrefork,
      bare: (N.bodies * 1000) / ms.bare,
      floor: (N.bodies * 1000) / ms.floor,
      ...(ms.parentVsChildCpu !== undefined ? { parentVsChildCpu: ms.parentVsChildCpu } : {}),
    });
  }
  const rate = (s: { ms: number; cpu: number }): Rate => ({
    perSecond: (N.bodies * N.rounds * 1000) / s.ms,
    cpuMsPer: s.cpu / (N.bodies * N.rounds),
  });
  const bodies = N.bodies * N.rounds;
  return {
    size,
    pool: rate(sums.pool),
    noPrefork: rate(sums.noPrefork),
    bare: rate(sums.bare),
    floor: rate(sums.floor),
    parentCpuMsPerBody: parentCpuUs / 1000 / bodies,
    spawnerCpuMsPerBody: spawnerCpuMs / bodies,
    rounds,
  };
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function main(): Promise<void> {
  const probePool = await createCodePool({ prefork: 0 });
  const report = probePool.report();
  if (!report.available) {
    console.error(`sandbox unavailable: ${report.reason}`);
    await probePool.close();
    process.exitCode = 1;
    return;
  }
  const load = loadavg()[0]!;
  console.log(`code-mode bench${QUICK ? " (quick)" : ""}: node ${process.version}, ${cpus().length} CPUs, load ${fmt(load, 2)}`);
  console.log(
    `layers: ${Object.entries(report.layers)
      .filter(([, on]) => on)
      .map(([name]) => name)
      .join(", ")}\n`,
  );

  floorPlan = probePool.launchPlan();
  console.log(`launch floor: ${floorPlan!.command} ${[...floorPlan!.prefix, ...floorPlan!.nodeFlags].join(" ")} -e 0`);
  console.log(`pool sizes: ${SIZES.join(", ")} (os.availableParallelism() = ${availableParallelism()})\n`);
  const starts = await startups(probePool);
  await probePool.close();
  const { warm, perCall, blockRatios } = await latencies();
  const memory = await readyChildMemory();
  const reference = await quickjsReference(BODY, bridge, BODY_RESULT, N.warm);
  // What a body costs this process through the public API, beside the same operations called directly (issue 34).
  const publicApi = await measurePublicApi(QUICK ? { n: 40, rounds: 6 } : { n: 80, rounds: 8 });
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
    [
      "pool size",
      "pool /s",
      "no prefork /s",
      "bare spawn /s",
      "launch floor /s",
      "pool ÷ bare",
      "pool ÷ floor",
      "parent CPU ms/body",
      "spawner CPU ms/body",
      "child CPU ms/body",
      "CPU ms/bare",
      "CPU bare ÷ body",
    ],
    ...rates.map((r) => [
      String(r.size),
      fmt(r.pool.perSecond),
      fmt(r.noPrefork.perSecond),
      fmt(r.bare.perSecond),
      fmt(r.floor.perSecond),
      `${fmt((100 * r.pool.perSecond) / r.bare.perSecond, 0)}%`,
      `${fmt((100 * r.pool.perSecond) / r.floor.perSecond, 0)}%`,
      fmt(r.parentCpuMsPerBody, 2),
      fmt(r.spawnerCpuMsPerBody, 2),
      fmt(r.pool.cpuMsPer, 1),
      fmt(r.bare.cpuMsPer, 0),
      `${fmt((100 * r.bare.cpuMsPer) / r.pool.cpuMsPer, 0)}%`,
    ]),
  ]);
  console.log(
    "(child CPU: user+sys of the reaped children per body or spawn, wrappers included, reaped by the spawner or by this process; a bare `node -e 0` pays for its own exit, a sandbox child is SIGKILLed; parent CPU: process.cpuUsage of this process; spawner CPU: its utime+stime)",
  );
  if (memory) {
    console.log(
      `\nmemory per ready child (smaps_rollup, mean of ${memory.children}): node USS ${fmt(memory.nodeUss, 2)} MiB, PSS ${fmt(memory.nodePss, 2)} MiB; wrappers beside it (unshare) USS ${fmt(memory.wrapperUss, 2)} MiB`,
    );
  }
  console.log(`\n${publicApiTable(publicApi)}`);
  if (reference) {
    console.log(
      `in-process reference: ${reference.name} ${reference.version}, a fresh context per body: warm p50 ${fmt(reference.warmP50Ms, 2)} ms, ${fmt(reference.perSecond, 0)} bodies/s two at a time, ${fmt(reference.cpuMsPerBody, 2)} ms CPU per body (all of it this process's)`,
    );
  } else {
    console.log("in-process reference: quickjs-emscripten is not installed (a devDependency; npm ci installs it): row skipped");
  }

  const warmP50 = percentile(warm, 50);
  const worstRatio = Math.min(...rates.map((r) => r.pool.perSecond / r.bare.perSecond));
  const worstFloor = Math.min(...rates.map((r) => r.pool.perSecond / r.floor.perSecond));
  const at2 = rates.find((r) => r.size === 2) ?? rates[0]!;
  const worstBare = Math.min(...rates.map((r) => r.pool.perSecond / r.bare.perSecond));
  console.log(
    `issue 21 goals: parent CPU/body at ${at2.size} ≤ 1 ms: ${fmt(at2.parentCpuMsPerBody, 2)} ${at2.parentCpuMsPerBody <= 1 ? "met" : "MISSED"}; ` +
      `child CPU/body ≤ 20 ms: ${fmt(at2.pool.cpuMsPer, 1)} (node -e 0: ${fmt(at2.bare.cpuMsPer, 1)}) ${at2.pool.cpuMsPer <= 20 ? "met" : "MISSED"}; ` +
      (memory ? `ready-child USS ≤ 4 MiB: ${fmt(memory.nodeUss, 2)} ${memory.nodeUss <= 4 ? "met" : "MISSED"}; ` : "") +
      `bodies/s ≥ 0.9× node -e 0 at every size: worst ${fmt(worstBare, 2)}× ${worstBare >= 0.9 ? "met" : "MISSED"}` +
      (reference
        ? `; warm p50 ≤ 1.5× ${reference.name}: ${fmt(warmP50 / reference.warmP50Ms, 2)}× ${warmP50 <= 1.5 * reference.warmP50Ms ? "met" : "MISSED"}`
        : ""),
  );
  console.log(
    `\ntargets: warm p50 ≤ 5 ms: ${fmt(warmP50, 2)} ms ${warmP50 <= 5 ? "met" : "MISSED"}; ` +
      `throughput ≥ 80% of bare spawn: worst ${fmt(100 * worstRatio, 0)}% ${worstRatio >= 0.8 ? "met" : "MISSED"}; ` +
      `≥ 90% of the launch floor: worst ${fmt(100 * worstFloor, 0)}% ${worstFloor >= 0.9 ? "met" : "MISSED"}`,
  );

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
    ...(memory ? { readyChildMemoryMiB: memory } : {}),
    ...(reference ? { inProcessReference: reference } : {}),
    publicApi,
    targets: {
      warmP50Ms: 5,
      warmMet: warmP50 <= 5,
      minThroughputRatio: 0.8,
      worstRatio,
      throughputMet: worstRatio >= 0.8,
      minFloorRatio: 0.9,
      worstFloorRatio: worstFloor,
      floorMet: worstFloor >= 0.9,
    },
  };
  const dir = join(process.cwd(), "bench", "results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "code-mode.json"), JSON.stringify(results, null, 2) + "\n");
  console.log(`wrote ${join("bench", "results", "code-mode.json")}`);
}

await main();
