/**
 * `serve --workers N|auto` on node:cluster: the primary forks N workers, which share the port
 * (the primary hands connections round-robin), each with its own engine and a code pool of
 * cores ÷ N slots, so all workers together use the machine's cores. The primary runs no engine.
 *
 * - Ready: the primary prints "listening <url>" once every worker listens.
 * - Health: a worker's authenticated /healthz carries every worker's state, asked of the
 *   primary over IPC (bounded: one answer per request, 1 s at most).
 * - A worker that dies unexpectedly is forked again (at most 5 times a minute).
 * - SIGTERM/SIGINT to the primary: each worker is told to stop; it stops accepting, drains
 *   in-flight requests, then closes its engine (MCP servers, code pool children). Workers not gone
 *   within the grace period are killed; the primary exits last, so no child is left.
 */
import cluster, { type Worker } from "node:cluster";
import { availableParallelism } from "node:os";
import { UsageError } from "./usage.js";

export type WorkerStateName = "starting" | "ready" | "stopping" | "exited";

export interface WorkerState {
  index: number;
  pid: number | undefined;
  state: WorkerStateName;
  /** Forks of this slot after the first (crashes). */
  restarts: number;
  since: string;
}

/** The cluster as a worker sees it, for /healthz. */
export interface ClusterHealth {
  worker: { index: number; pid: number };
  workers: WorkerState[];
}

type ToPrimary = { type: "toolsearch:ready"; url: string } | { type: "toolsearch:health?"; id: number };
type ToWorker = { type: "toolsearch:stop" } | { type: "toolsearch:health"; id: number; workers: WorkerState[] };

const GRACE_MS = 15_000;
const MAX_RESTARTS_PER_MINUTE = 5;

/** `--workers`: a count from 1 to 256, or "auto" (the machine's available parallelism). Undefined: no cluster. */
export function parseWorkers(value: string | undefined, usage: string): number | undefined {
  if (value === undefined) return undefined;
  if (value === "auto") return availableParallelism();
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 1 || n > 256) throw new UsageError(`--workers must be "auto" or an integer from 1 to 256; got "${value}"`, usage);
  return n;
}

/** Code-pool slots per worker: the cores shared out, at least one each. */
export function poolSlotsPerWorker(workers: number, cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / workers));
}

export function isClusterWorker(): boolean {
  return cluster.isWorker && process.env.TOOLSEARCH_WORKER_INDEX !== undefined;
}

export function workerIndex(): number {
  return Number(process.env.TOOLSEARCH_WORKER_INDEX ?? 0);
}

export function workerCount(): number {
  return Number(process.env.TOOLSEARCH_WORKERS ?? 1);
}

/**
 * The primary: forks `workers` copies of this command, prints "listening <url>" once all are
 * ready, and stops them all on SIGTERM/SIGINT. Resolves with the exit code.
 */
export async function runPrimary(workers: number, command: string, io: { out(line: string): void; err(line: string): void }): Promise<number> {
  const slots: WorkerState[] = Array.from({ length: workers }, (_, index) => ({ index, pid: undefined, state: "starting", restarts: 0, since: new Date().toISOString() }));
  const live = new Map<number, Worker>();
  const recentRestarts: number[] = [];
  let stopping = false;
  let announced = false;
  let url: string | undefined;
  let failed: ((error: Error) => void) | undefined;
  let allReady: (() => void) | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    allReady = resolve;
    failed = reject;
  });

  const set = (index: number, state: WorkerStateName, pid?: number): void => {
    const slot = slots[index]!;
    slot.state = state;
    if (pid !== undefined) slot.pid = pid;
    slot.since = new Date().toISOString();
  };

  const fork = (index: number): void => {
    const worker = cluster.fork({ TOOLSEARCH_WORKER_INDEX: String(index), TOOLSEARCH_WORKERS: String(workers) });
    live.set(index, worker);
    set(index, "starting", worker.process.pid);
    worker.on("message", (message: ToPrimary) => {
      if (message?.type === "toolsearch:ready") {
        url ??= message.url;
        set(index, "ready");
        if (!announced && slots.every((s) => s.state === "ready")) {
          announced = true;
          allReady?.();
        }
      } else if (message?.type === "toolsearch:health?") {
        const answer: ToWorker = { type: "toolsearch:health", id: message.id, workers: slots.map((s) => ({ ...s })) };
        if (worker.isConnected()) worker.send(answer);
      }
    });
    worker.once("exit", (code, signal) => {
      if (live.get(index) === worker) live.delete(index);
      set(index, "exited");
      if (stopping) return;
      if (!announced) {
        failed?.(new Error(`toolsearch ${command}: worker ${index} exited (${signal ?? code}) before it was ready`));
        return;
      }
      const now = Date.now();
      while (recentRestarts.length > 0 && now - recentRestarts[0]! > 60_000) recentRestarts.shift();
      if (recentRestarts.length >= MAX_RESTARTS_PER_MINUTE) {
        io.err(`toolsearch ${command}: worker ${index} exited (${signal ?? code}); ${MAX_RESTARTS_PER_MINUTE} restarts in a minute, not restarting it`);
        return;
      }
      recentRestarts.push(now);
      slots[index]!.restarts += 1;
      io.err(`toolsearch ${command}: worker ${index} (pid ${slots[index]!.pid}) exited (${signal ?? code}); starting another`);
      fork(index);
    });
  };

  const stopAll = async (): Promise<void> => {
    stopping = true;
    const exits = [...live.entries()].map(
      ([index, worker]) =>
        new Promise<void>((resolve) => {
          if (worker.isDead()) return resolve();
          const kill = setTimeout(() => worker.process.kill("SIGKILL"), GRACE_MS);
          worker.once("exit", () => {
            clearTimeout(kill);
            resolve();
          });
          set(index, "stopping");
          const stop: ToWorker = { type: "toolsearch:stop" };
          if (worker.isConnected()) worker.send(stop);
          else worker.process.kill("SIGTERM");
        }),
    );
    await Promise.all(exits);
  };

  // Until the workers are up, a signal stops them too.
  let signalled: (() => void) | undefined;
  const signal = new Promise<void>((resolve) => (signalled = resolve));
  const onSignal = (): void => signalled?.();
  // A worker of a terminal's process group gets the SIGINT too; the primary's message decides.
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    for (let i = 0; i < workers; i++) fork(i);
    const started = await Promise.race([ready.then(() => true), signal.then(() => false)]);
    if (started) {
      io.out(`listening ${url ?? "?"}`);
      await signal;
    }
    return 0;
  } catch (error) {
    io.err(error instanceof Error ? error.message : String(error));
    return 1;
  } finally {
    await stopAll();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * In a worker: resolves when the primary says stop, the worker itself gets SIGTERM, or the
 * primary is gone. A terminal's Ctrl-C (SIGINT to the whole process group) is left to the
 * primary, which then asks every worker to drain: the worker must not die on it first.
 */
export function untilStopped(): Promise<void> {
  const ignore = (): void => {};
  process.on("SIGINT", ignore);
  return new Promise((resolve) => {
    const done = (): void => {
      process.off("message", onMessage);
      process.off("SIGTERM", done);
      process.off("disconnect", done);
      resolve();
    };
    const onMessage = (message: ToWorker): void => {
      if (message?.type === "toolsearch:stop") done();
    };
    process.on("message", onMessage);
    process.on("SIGTERM", done);
    process.on("disconnect", done);
  });
}

/** In a worker, after its cleanup: leaves (the IPC channel would keep it alive). */
export function leaveCluster(): never {
  process.exit(0);
}

export function announceReady(url: string): void {
  const message: ToPrimary = { type: "toolsearch:ready", url };
  process.send?.(message);
}

let nextHealthId = 0;
/** Every worker's state, from the primary; bounded by a 1 s wait. */
export function clusterHealth(): Promise<ClusterHealth> {
  const self = { index: workerIndex(), pid: process.pid };
  return new Promise((resolve) => {
    const id = nextHealthId++;
    const finish = (workers: WorkerState[]): void => {
      clearTimeout(timer);
      process.off("message", onMessage);
      resolve({ worker: self, workers });
    };
    const onMessage = (message: ToWorker): void => {
      if (message?.type === "toolsearch:health" && message.id === id) finish(message.workers);
    };
    const timer = setTimeout(() => finish([]), 1_000);
    process.on("message", onMessage);
    const ask: ToPrimary = { type: "toolsearch:health?", id };
    if (process.send === undefined || !process.connected) finish([]);
    else process.send(ask);
  });
}
