/**
 * Where the parent's CPU per body goes (issue 21). Run after `npm run build`:
 *
 *   node dist/bench/code-mode/breakdown.js [--n 40] [--rounds 3]
 *
 * Each row is this process's CPU time (process.cpuUsage, user+sys) per item, for `n` items run
 * two at a time, in `rounds` interleaved rounds (the median is printed, with the range), so that
 * load from other processes on a shared machine falls on every row alike. CPU time, not wall
 * time: what it costs this event loop, whatever else runs on the machine.
 *
 * - spawn rows: what a fork+exec from this process costs, alone (`/bin/true`), with the three
 *   pipes a sandbox child gets, and with the pool's own wrapper chain and node flags (the
 *   wrappers' execs run in the child, after the fork, so they are not the parent's);
 * - kill row: SIGKILL of a running child under the pool's plan, and its reaping;
 * - warm rows: wall-clock p50 of one body on a ready child, forked here and through the spawner,
 *   in alternating blocks (the one wall-clock figure here: what the spawner's extra hop costs);
 * - with `--ballast MiB`: the /bin/true spawn again after this process has touched that much more
 *   memory (a parent holding big indexes);
 * - pool rows: one search → describe → call body on a pool of 2 (whatever the pool does per body),
 *   with the children forked by this process (no spawner, as before issue 21) and through the
 *   spawner (pool/spawner.ts); then a body with no bridge call and one with 30, which split the
 *   pool's share into a fixed part per body and a part per bridge call;
 * - spawner pipe: writes to the spawner and reads from it per body (each one wakes a process).
 * Measures the pool's internals (its launch plan, forks with and without the spawner) on purpose: imports src/sandbox/pool/ directly.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createCodePool, type SandboxPool } from "../../src/sandbox/pool/pool.js";
import type { LaunchPlan } from "../../src/sandbox/pool/launch.js";
import { BODY, bridge } from "./fixture.js";
import { positiveIntArg } from "../harness/args.js";
import { concurrently } from "./measure.js";

const N = positiveIntArg("--n", 40);
const ROUNDS = positiveIntArg("--rounds", 3);
/** MiB this process allocates and touches before the last row, to show the fork's cost grow with the parent's RSS (0: skip). */
const BALLAST_MIB = process.argv.includes("--ballast") ? positiveIntArg("--ballast", 500) : 0;

const CALLS_30 = 'for (let i = 0; i < 30; i++) await openclaw.tools.describe("core:weather"); return 1;';

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

const spawnAndWait = (command: string, args: string[], stdio: "ignore" | "pipe") => () =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio, env: {} });
    child.on("error", reject);
    child.on("close", () => resolve());
  });

/** CPU of the SIGKILL and the reaping only: the child is started (and idle) before the clock starts. */
function killRow(plan: LaunchPlan): () => Promise<number> {
  return async () => {
    const child: ChildProcess = spawn(plan.command, [...plan.prefix, ...plan.nodeFlags, "-e", "setInterval(() => {}, 1000); process.stdout.write('up')"], {
      stdio: ["pipe", "pipe", "pipe"],
      env: {},
    });
    await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
    const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
    const c0 = cpuUs();
    child.kill("SIGKILL");
    await closed;
    return cpuUs() - c0;
  };
}

async function main(): Promise<void> {
  const rssMiB = process.memoryUsage().rss / 1048576;
  const pool: SandboxPool = await createCodePool({ prefork: 2, maxConcurrent: 2, maxQueue: 1000 });
  if (!pool.report().available) throw new Error(`sandbox unavailable: ${pool.report().reason}`);
  // The same pool without the spawner: this process forks and kills every child (before issue 21).
  const direct: SandboxPool = await createCodePool({ prefork: 2, maxConcurrent: 2, maxQueue: 1000 }, { spawner: false });
  const plan = pool.launchPlan()!;
  const chain = [...plan.prefix, ...plan.nodeFlags, "-e", "0"];
  const rows: Array<[string, () => Promise<number>]> = [];
  const perItem = (task: () => Promise<void>, before?: () => Promise<void>) => async () => {
    if (before) await before();
    const c0 = cpuUs();
    await concurrently(2, N, task);
    return (cpuUs() - c0) / N;
  };
  rows.push(["spawn /bin/true, stdio ignored", perItem(spawnAndWait("/bin/true", [], "ignore"))]);
  rows.push(["spawn node -e 0, 3 pipes", perItem(spawnAndWait(process.execPath, ["-e", "0"], "pipe"))]);
  rows.push([`spawn the pool's chain -e 0, 3 pipes`, perItem(spawnAndWait(plan.command, chain, "pipe"))]);
  const kill = killRow(plan);
  rows.push([
    "SIGKILL + reap of a running child",
    async () => {
      let sum = 0;
      const k = Math.max(4, Math.floor(N / 4));
      for (let i = 0; i < k; i++) sum += await kill();
      return sum / k;
    },
  ]);
  const runBody = (on: SandboxPool, body: string) => async () => {
    const result = await on.run(body, bridge, { timeoutMs: 10_000 });
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  };
  rows.push(["pool body, this process forks (no spawner)", perItem(runBody(direct, BODY), () => direct.whenReady(2))]);
  rows.push(["pool body (pool of 2)", perItem(runBody(pool, BODY), () => pool.whenReady(2))]);
  rows.push(["pool body `return 1` (no bridge call)", perItem(runBody(pool, "return 1;"), () => pool.whenReady(2))]);
  rows.push(["pool body with 30 bridge calls", perItem(runBody(pool, CALLS_30), () => pool.whenReady(2))]);
  // Warm every path once, uncounted.
  for (const [, row] of rows) await row();
  const samples = new Map<string, number[]>(rows.map(([name]) => [name, []]));
  for (let r = 0; r < ROUNDS; r++) for (const [name, row] of rows) samples.get(name)!.push((await row()) / 1000);
  // Warm latency: one body at a time on a ready child, the two pools in alternating blocks.
  const warmPools = {
    "forks here": await createCodePool({ prefork: 1, maxConcurrent: 1 }, { spawner: false }),
    spawner: await createCodePool({ prefork: 1, maxConcurrent: 1 }),
  };
  const warm = new Map<string, number[]>(Object.keys(warmPools).map((name) => [name, []]));
  for (let block = -1; block < 6; block++) {
    for (const [name, on] of Object.entries(warmPools)) {
      for (let i = 0; i < 8; i++) {
        await on.whenReady(1);
        await new Promise((resolve) => setTimeout(resolve, 20));
        const t0 = performance.now();
        await runBody(on, BODY)();
        if (block >= 0) warm.get(name)!.push(performance.now() - t0); // block -1 warms up
      }
    }
  }
  for (const on of Object.values(warmPools)) await on.close();
  let ballast: { rssMiB: number; spawnMs: number } | undefined;
  if (BALLAST_MIB > 0) {
    const held: Buffer[] = [];
    for (let i = 0; i < BALLAST_MIB; i++) held.push(Buffer.alloc(1 << 20, 1));
    const spawnTrue = perItem(spawnAndWait("/bin/true", [], "ignore"));
    await spawnTrue();
    ballast = { rssMiB: process.memoryUsage().rss / 1048576, spawnMs: (await spawnTrue()) / 1000 };
    held.length = 0;
  }
  // Wake-ups per body on the spawner's pipe: each write wakes the spawner, each read is one of this process's.
  await pool.whenReady(2);
  const io0 = pool.spawnerIo();
  await concurrently(2, N, runBody(pool, BODY));
  await pool.whenReady(2);
  const io1 = pool.spawnerIo();
  const pipe = { writes: (io1.writes - io0.writes) / N, reads: (io1.reads - io0.reads) / N };
  await pool.close();
  await direct.close();

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`parent CPU per item (ms, median of ${ROUNDS} rounds of ${N}, two at a time; node ${process.version}; rss ${rssMiB.toFixed(0)} MiB at start)`);
  console.log(`plan: ${plan.command} ${plan.prefix.join(" ")}`);
  const width = Math.max(...rows.map(([name]) => name.length));
  for (const [name, xs] of samples)
    console.log(`${name.padEnd(width)}  ${median(xs).toFixed(2).padStart(6)}  [${Math.min(...xs).toFixed(2)}…${Math.max(...xs).toFixed(2)}]`);
  console.log(`spawner pipe per pool body (search → describe → call): ${pipe.writes.toFixed(2)} writes to it, ${pipe.reads.toFixed(2)} reads from it`);
  if (ballast) console.log(`spawn /bin/true at ${ballast.rssMiB.toFixed(0)} MiB RSS: ${ballast.spawnMs.toFixed(2)} ms parent CPU`);
  for (const [name, xs] of warm) console.log(`warm p50 (wall clock), ${name}: ${median(xs).toFixed(2)} ms (n ${xs.length})`);
}

await main();
