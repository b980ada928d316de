/**
 * What no child-per-body sandbox can beat on this machine (issue 21). Run after `npm run build`:
 *
 *   node dist/bench/code-mode/floors.js [--n 40] [--rounds 5] [--trips 200]
 *
 * 1. The launch ladder: `node -e 0`, then the pool's own layers added one at a time, innermost
 *    first (the permission model, the other node flags, unshare, prlimit, setpriv: the pool's
 *    launch plan as the probe chose it). Per step: starts/s two at a time and CPU per start (user +
 *    sys of the reaped children, wrappers included), in interleaved rounds so that load from
 *    other processes falls on every step alike. Where the machine is CPU-bound (concurrency =
 *    cores), bodies/s ÷ `node -e 0` spawns/s can be at most bare CPU ÷ the step's CPU: the
 *    ceiling each layer leaves, before the bootstrap, the body, the spawner and the parent.
 * 2. The round trip: wall p50 of one small frame from this process to a ready node child and
 *    back, the child reading and writing fd 0/1 with blocking calls as the sandbox child does;
 *    straight, and through a relay process that forwards bytes as the spawner does. A
 *    search → describe → call body needs four (run/result and three bridge calls), so four round
 *    trips are the lowest warm p50 any child per body can reach, whatever runs inside it; next to
 *    it, the in-process reference (quickjs-emscripten) measured in the same run.
 * Measures the pool's launch plan layer by layer on purpose: imports src/sandbox/pool/ directly.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import type { Readable, Writable } from "node:stream";
import { createCodePool } from "../../src/sandbox/pool/pool.js";
import { percentile } from "../harness/stats.js";
import { BODY, BODY_RESULT, bridge } from "./fixture.js";
import { quickjsReference } from "./quickjs-reference.js";
import { ladder, type LadderStep } from "./launch-ladder.js";
import { positiveIntArg } from "../harness/args.js";
import { concurrently, reapedChildrenCpuMs } from "./measure.js";

const N = positiveIntArg("--n", 40);
const ROUNDS = positiveIntArg("--rounds", 5);
const TRIPS = positiveIntArg("--trips", 200);
/** Round trips a search → describe → call body takes: run → result, and three bridge calls. */
const TRIPS_PER_BODY = 4;
/** How long bench/code-mode's warm rows let a ready child sit before a body. */
const IDLE_MS = 20;

function startAndWait(step: LadderStep): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(step.command, step.args, { stdio: "ignore", env: {} });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${step.name} exited with ${code}: ${step.command} ${step.args.join(" ")}`))));
  });
}

/** Wall ms and reaped CPU ms for `n` starts, `concurrency` at a time. */
async function starts(step: LadderStep, n: number, concurrency: number): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu0 = reapedChildrenCpuMs();
  const wallMs = await concurrently(concurrency, n, () => startAndWait(step));
  return { wallMs, cpuMs: reapedChildrenCpuMs() - cpu0 };
}

/** The sandbox child's way with its pipes: blocking reads of fd 0, blocking writes to fd 1. */
const ECHO = `const fs = require("node:fs"); const b = Buffer.allocUnsafe(65536);
for (;;) { const n = fs.readSync(0, b, 0, 65536, null); if (n === 0) process.exit(0); fs.writeSync(1, b, 0, n); }`;
/** The spawner's way: stream reads on both sides, each chunk written on as it comes. */
const RELAY = `const c = require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(ECHO)}], { stdio: ["pipe", "pipe", "inherit"], env: {} });
process.stdin.on("data", (d) => c.stdin.write(d)); c.stdout.on("data", (d) => process.stdout.write(d));
process.stdin.on("end", () => c.kill("SIGKILL"));`;

/** Wall ms per round trip of a 64-byte frame, p50 over `trips`, after 50 uncounted. */
async function roundTrips(source: string, trips: number, idleMs = 0): Promise<number> {
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn(process.execPath, ["-e", source], { stdio: ["pipe", "pipe", "inherit"], env: {} });
  const frame = Buffer.alloc(64, 7);
  let waiting: (() => void) | undefined;
  let received = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received >= frame.length && waiting) {
      received -= frame.length;
      const done = waiting;
      waiting = undefined;
      done();
    }
  });
  const once = () =>
    new Promise<number>((resolve) => {
      const t0 = performance.now();
      waiting = () => resolve(performance.now() - t0);
      child.stdin.write(frame);
    });
  const ms: number[] = [];
  for (let i = 0; i < trips + 50; i++) {
    if (idleMs > 0 && i % TRIPS_PER_BODY === 0) await new Promise((resolve) => setTimeout(resolve, idleMs));
    const t = await once();
    if (i >= 50) ms.push(t);
  }
  const closed = new Promise((resolve) => child.on("close", resolve));
  child.stdin.end();
  child.kill("SIGKILL");
  await closed;
  return percentile(ms, 50);
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);

async function main(): Promise<void> {
  const pool = await createCodePool({ prefork: 0 });
  const report = pool.report();
  const plan = pool.launchPlan();
  await pool.close();
  if (!report.available || plan === undefined) throw new Error(`sandbox unavailable: ${report.reason ?? "no launch plan"}`);
  const concurrency = Math.min(2, availableParallelism());
  console.log(`launch ladder: ${N} starts × ${ROUNDS} interleaved rounds, ${concurrency} at a time; node ${process.version}, load ${fmt(loadavg()[0]!)}`);
  const steps = ladder(plan, process.execPath);
  for (const step of steps) await starts(step, 4, concurrency); // warm the page cache, uncounted
  const totals = steps.map(() => ({ wallMs: [] as number[], cpuMs: 0 }));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, step] of steps.entries()) {
      const { wallMs, cpuMs } = await starts(step, N, concurrency);
      totals[i]!.wallMs.push(wallMs);
      totals[i]!.cpuMs += cpuMs;
    }
  }
  const cpuPerStart = totals.map((t) => t.cpuMs / (N * ROUNDS));
  const perSecond = totals.map((t) => (N * 1000) / percentile(t.wallMs, 50));
  const width = Math.max(...steps.map((s) => s.name.length));
  console.log(`${"step".padEnd(width)}  starts/s  CPU ms/start  starts/s ÷ bare  ceiling (bare CPU ÷ CPU)`);
  for (const [i, step] of steps.entries()) {
    const cells = [fmt(perSecond[i]!, 1).padStart(8), fmt(cpuPerStart[i]!).padStart(12), fmt(perSecond[i]! / perSecond[0]!).padStart(15)];
    console.log(`${step.name.padEnd(width)}  ${cells.join("  ")}  ${fmt(cpuPerStart[0]! / cpuPerStart[i]!).padStart(24)}`);
  }
  console.log(`the full step is the pool's launch plan: ${plan.command} ${[...plan.prefix, ...plan.nodeFlags].join(" ")} -e 0`);

  const straight = await roundTrips(ECHO, TRIPS);
  const relayed = await roundTrips(RELAY, TRIPS);
  // As in the warm bench: the child has sat idle (20 ms) before each body's first trip.
  const straightIdle = await roundTrips(ECHO, TRIPS, IDLE_MS);
  const relayedIdle = await roundTrips(RELAY, TRIPS, IDLE_MS);
  const reference = await quickjsReference(BODY, bridge, BODY_RESULT, 48);
  console.log(`\nround trip of a 64-byte frame, wall p50 of ${TRIPS} (straight to a node child / through a relay process):`);
  console.log(
    `  back to back: ${fmt(straight, 3)} / ${fmt(relayed, 3)} ms; after ${IDLE_MS} ms idle every ${TRIPS_PER_BODY} trips: ${fmt(straightIdle, 3)} / ${fmt(relayedIdle, 3)} ms`,
  );
  const bound = TRIPS_PER_BODY * relayedIdle;
  console.log(`lowest warm p50 of a search → describe → call body (${TRIPS_PER_BODY} round trips through a relay, idle before): ${fmt(bound)} ms`);
  if (reference) {
    const goal = 1.5 * reference.warmP50Ms;
    console.log(
      `in-process reference: ${reference.name} ${reference.version} warm p50 ${fmt(reference.warmP50Ms)} ms; 1.5× it = ${fmt(goal)} ms, ` +
        `${fmt(bound / goal)}× of that in round trips alone`,
    );
  } else console.log("in-process reference: quickjs-emscripten is not installed (a devDependency; npm ci installs it)");
}

await main();
