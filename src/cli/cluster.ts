/**
 * `serve --workers N|auto` on node:cluster: the primary forks N workers, which share the port
 * (the primary hands connections round-robin), each with its own engine and a code pool of
 * cores ÷ N slots, so all workers together use the machine's cores. The primary runs no engine.
 *
 * - Ready: the primary prints "listening <url>" once every worker listens. A worker that dies
 *   before that fails the start (exit 1): a config or catalog that kills one kills them all.
 * - Restarts, per slot (`gateway.workers`): a worker that dies is forked again after a backoff
 *   (100 ms, doubling per restart of that slot in the last minute, 10 s at most), up to
 *   `restartsPerMinute` restarts of that slot in a rolling minute. One more death and the slot
 *   cools down: it is forked again after `cooldownMs`, with a fresh budget. One crashing slot
 *   never spends another slot's budget, and no slot is abandoned for good.
 * - No worker left: when every slot is cooling down (no worker process runs and none is about to
 *   be forked), the primary stops and exits 1, so a supervisor that restarts on failure acts;
 *   a service with nobody answering for a whole cool-down is worse than a restart.
 * - Heartbeats: a ready worker sends one every `heartbeatMs` from an unref'd timer in its own
 *   event loop, so a worker that is blocked or stopped (SIGSTOP) falls silent. Three missed beats
 *   mark it "unresponsive" (the /healthz view); a beat marks it ready again. Silent for
 *   `killUnresponsiveMs` (unless 0), it is killed with SIGKILL (a blocked loop would never read a
 *   gentler request) and comes back through the restart path, counted in its slot's budget.
 * - Health: a worker's authenticated /healthz carries every worker's state, asked of the
 *   primary over IPC (bounded: one answer per request, 1 s at most).
 * - SIGTERM/SIGINT to the primary: each worker is told to stop; it stops accepting, drains
 *   in-flight requests (`gateway.drainMs`, then CLOSING for what still runs), then closes its
 *   engine (MCP servers, code pool children). A second signal ends every worker's drain at once
 *   (a second stop message to each). Workers not gone within the drain plus a grace period are killed; the
 *   primary exits last (0), so no child is left.
 */
import cluster, { type Worker } from "node:cluster";
import { createServer, type AddressInfo } from "node:net";
import { availableParallelism } from "node:os";
import type { WorkerSupervisionSettings } from "../config/server-config.js";
import { listenOn } from "../http/listen.js";
import { CUT_GRACE_MS } from "../http/drain.js";
import { UsageError } from "./usage.js";
import { errorMessage } from "../errors.js";

/**
 * `restarting`: forked again after its backoff; `cooling-down`: its restarts are spent, forked
 * again at `retryAt`; `unresponsive`: alive but silent for three heartbeats (not ready).
 */
export type WorkerStateName = "starting" | "ready" | "unresponsive" | "restarting" | "cooling-down" | "stopping" | "exited";

export interface WorkerState {
  index: number;
  pid: number | undefined;
  state: WorkerStateName;
  /** Forks of this slot after the first (crashes, kills). */
  restarts: number;
  since: string;
  /** `cooling-down`: when the slot is forked again. */
  retryAt?: string;
}

/** The cluster as a worker sees it, for /healthz. */
export interface ClusterHealth {
  worker: { index: number; pid: number };
  workers: WorkerState[];
}

type ToPrimary = { type: "toolsearch:ready"; url: string } | { type: "toolsearch:health?"; id: number } | { type: "toolsearch:heartbeat" };
type ToWorker = { type: "toolsearch:stop" } | { type: "toolsearch:health"; id: number; workers: WorkerState[] };

/** Past its drain and cut, a stopping worker gets this long to close its engine before SIGKILL. */
const GRACE_MS = 5_000;
/** The first restart of a slot waits this long; each further one in the budget window twice as long. */
const RESTART_BACKOFF_MS = 100;
const MAX_RESTART_BACKOFF_MS = 10_000;
const RESTART_WINDOW_MS = 60_000;
/** Heartbeats missed before a worker is reported unresponsive. */
const MISSED_BEATS = 3;

/** `--workers`: a count from 1 to 256, or "auto" (the machine's available parallelism). Undefined: no cluster. */
export function parseWorkers(value: string | undefined, usage: string): number | undefined {
  if (value === undefined) return undefined;
  if (value === "auto") return availableParallelism();
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 1 || n > 256)
    throw new UsageError(`--workers must be "auto" or an integer from 1 to 256; got "${value}"`, usage);
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

/**
 * The one port of the whole cluster. When the last live worker dies, node:cluster closes the
 * shared socket and the next worker to listen opens it again: asked for port 0, that would be a
 * new random port, and the announced URL would be dead. So the primary picks a free port once
 * (a tiny window in which another process could take it: port 0 is for tests and development).
 */
export async function clusterPort(port: number, host: string): Promise<number> {
  // Bound once here even when the port is given: a busy port is refused (exit 2, naming it)
  // before any worker is forked and spawns MCP servers only to fail.
  const probe = createServer();
  await listenOn(probe, port, host);
  const picked = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return picked;
}

/** In a worker: the port the primary chose for every worker, restarted ones included. */
export function workerPort(): number | undefined {
  const port = Number(process.env.TOOLSEARCH_LISTEN_PORT);
  return isClusterWorker() && process.env.TOOLSEARCH_LISTEN_PORT && Number.isInteger(port) ? port : undefined;
}

/**
 * In a worker whose start failed: main reports the error and sets the exit code (microtasks, all
 * done before this runs); then the worker must go, or its IPC channel (or a half-started engine)
 * would keep it "starting" forever instead of letting the primary restart it.
 */
export function leaveClusterAfterFailure(): void {
  setImmediate(() => process.exit(process.exitCode ?? 1));
}

export function workerCount(): number {
  return Number(process.env.TOOLSEARCH_WORKERS ?? 1);
}

/** One slot's supervision state; `state` is what /healthz shows. */
interface Slot {
  state: WorkerState;
  worker: Worker | undefined;
  /** When this slot was restarted within the last minute (its budget). */
  restartTimes: number[];
  /** The pending backoff fork or cool-down retry. */
  timer: NodeJS.Timeout | undefined;
  lastBeat: number;
  killed: boolean;
}

type Io = { out(line: string): void; err(line: string): void };

/**
 * The primary: forks `workers` copies of this command, prints "listening <url>" once all are
 * ready, keeps them alive (see the header), and stops them all on SIGTERM/SIGINT.
 * Resolves with the exit code: 0 after a signal, 1 when the start failed or no worker is left.
 */
export function runPrimary(
  workers: number,
  command: string,
  io: Io,
  supervision: WorkerSupervisionSettings,
  listen: { port: number },
  drainMs: number,
): Promise<number> {
  return new Primary(workers, `toolsearch ${command}:`, io, supervision, listen.port, drainMs).run();
}

/** How the start ended: every worker ready, or one dead first (the worker has said its own error). */
type StartOutcome = { ok: true } | { ok: false; why: string };

/** A promise and the function that settles it. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** The primary's state: its slots, where the start and the stop stand, and what it waits for. */
class Primary {
  readonly #slots: Slot[];
  #stopping = false;
  #announced = false;
  #url: string | undefined;
  /** A failed start is an outcome `run` prints, not an error to throw. */
  readonly #started = deferred<StartOutcome>();
  readonly #noWorkerLeft = deferred<void>();
  /** The first SIGTERM/SIGINT: until the workers are up, it stops them too. */
  readonly #signalled = deferred<void>();

  constructor(
    private readonly workers: number,
    private readonly tag: string,
    private readonly io: Io,
    private readonly supervision: WorkerSupervisionSettings,
    private readonly listenPort: number,
    private readonly drainMs: number,
  ) {
    this.#slots = Array.from({ length: workers }, (_, index) => ({
      state: { index, pid: undefined, state: "starting", restarts: 0, since: new Date().toISOString() },
      worker: undefined,
      restartTimes: [],
      timer: undefined,
      lastBeat: 0,
      killed: false,
    }));
  }

  async run(): Promise<number> {
    const { io, tag } = this;
    const onSignal = (): void => this.#onSignal();
    // A worker of a terminal's process group gets the SIGINT too; the primary's message decides.
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    const monitor = setInterval(() => this.#checkHeartbeats(), this.supervision.heartbeatMs);
    const signalled = this.#signalled.promise;
    try {
      for (const slot of this.#slots) this.#fork(slot);
      const started = await Promise.race([this.#started.promise, signalled.then(() => undefined)]);
      if (started === undefined) return 0;
      if (!started.ok) {
        io.err(started.why);
        return 1;
      }
      io.out(`listening ${this.#url ?? "?"}`);
      const gone = await Promise.race([signalled.then(() => false), this.#noWorkerLeft.promise.then(() => true)]);
      if (!gone) return 0;
      io.err(`${tag} no worker left: every slot spent its restarts; exiting 1 so that a supervisor restarts the service`);
      return 1;
    } catch (error) {
      io.err(errorMessage(error));
      return 1;
    } finally {
      clearInterval(monitor);
      await this.#stopAll();
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  }

  #set(slot: Slot, state: WorkerStateName, pid?: number): void {
    slot.state.state = state;
    if (pid !== undefined) slot.state.pid = pid;
    if (state !== "cooling-down") delete slot.state.retryAt;
    slot.state.since = new Date().toISOString();
  }

  #onMessage(slot: Slot, worker: Worker, message: ToPrimary): void {
    if (slot.worker !== worker) return;
    // Any message is a sign of life, not only the heartbeat.
    slot.lastBeat = performance.now();
    if (slot.state.state === "unresponsive") {
      this.#set(slot, "ready");
      this.io.err(`${this.tag} worker ${slot.state.index} (pid ${slot.state.pid}) answers again; ready`);
    }
    if (message?.type === "toolsearch:ready") {
      this.#url ??= message.url;
      this.#set(slot, "ready");
      if (!this.#announced && this.#slots.every((s) => s.state.state === "ready")) {
        this.#announced = true;
        this.#started.resolve({ ok: true });
      }
    } else if (message?.type === "toolsearch:health?") {
      const answer: ToWorker = { type: "toolsearch:health", id: message.id, workers: this.#slots.map((s) => ({ ...s.state })) };
      if (worker.isConnected()) worker.send(answer);
    }
  }

  #fork(slot: Slot): void {
    slot.timer = undefined;
    slot.killed = false;
    const env = {
      TOOLSEARCH_WORKER_INDEX: String(slot.state.index),
      TOOLSEARCH_WORKERS: String(this.workers),
      TOOLSEARCH_HEARTBEAT_MS: String(this.supervision.heartbeatMs),
      TOOLSEARCH_LISTEN_PORT: String(this.listenPort),
    };
    const worker = cluster.fork(env);
    slot.worker = worker;
    this.#set(slot, "starting", worker.process.pid);
    worker.on("message", (message: ToPrimary) => this.#onMessage(slot, worker, message));
    worker.once("exit", (code, signal) => {
      if (slot.worker !== worker) return;
      slot.worker = undefined;
      this.#set(slot, "exited");
      if (this.#stopping) return;
      const why = signal ?? code;
      if (!this.#announced) return this.#started.resolve({ ok: false, why: `${this.tag} worker ${slot.state.index} exited (${why}) before it was ready` });
      this.#restartLater(slot, `worker ${slot.state.index} (pid ${slot.state.pid}) exited (${why})`);
    });
  }

  /** The backoff fork while the slot's budget lasts, else the cool-down; exits when no worker is left. */
  #restartLater(slot: Slot, what: string): void {
    const { supervision, tag, io } = this;
    const now = performance.now();
    slot.restartTimes = slot.restartTimes.filter((t) => now - t < RESTART_WINDOW_MS);
    const spent = slot.restartTimes.length;
    if (spent >= supervision.restartsPerMinute) {
      this.#set(slot, "cooling-down");
      slot.state.retryAt = new Date(Date.now() + supervision.cooldownMs).toISOString();
      io.err(
        `${tag} ${what}; slot ${slot.state.index} spent its ${supervision.restartsPerMinute} restart${supervision.restartsPerMinute === 1 ? "" : "s"} this minute, cooling down: it is retried in ${seconds(supervision.cooldownMs)}`,
      );
      slot.timer = setTimeout(() => {
        slot.restartTimes = [];
        slot.state.restarts += 1;
        io.err(`${tag} slot ${slot.state.index} cooled down; starting a worker again`);
        this.#fork(slot);
      }, supervision.cooldownMs);
      if (this.#slots.every((s) => s.state.state === "cooling-down")) this.#noWorkerLeft.resolve();
      return;
    }
    const delay = Math.min(MAX_RESTART_BACKOFF_MS, RESTART_BACKOFF_MS * 2 ** spent);
    slot.restartTimes.push(now);
    slot.state.restarts += 1;
    this.#set(slot, "restarting");
    io.err(
      `${tag} ${what}; starting another in ${delay} ms (restart ${spent + 1} of ${supervision.restartsPerMinute} this minute for slot ${slot.state.index})`,
    );
    slot.timer = setTimeout(() => this.#fork(slot), delay);
  }

  /** Marks silent workers unresponsive, and kills those silent past the limit. */
  #checkHeartbeats(): void {
    const { supervision, tag, io } = this;
    const now = performance.now();
    for (const slot of this.#slots) {
      const { state } = slot.state;
      if ((state !== "ready" && state !== "unresponsive") || slot.worker === undefined || slot.killed) continue;
      const silent = now - slot.lastBeat;
      if (state === "ready" && silent > MISSED_BEATS * supervision.heartbeatMs) {
        this.#set(slot, "unresponsive");
        io.err(`${tag} worker ${slot.state.index} (pid ${slot.state.pid}) sent no heartbeat for ${seconds(silent)}; unresponsive (not ready)`);
      }
      if (supervision.killUnresponsiveMs > 0 && silent > supervision.killUnresponsiveMs) {
        slot.killed = true;
        io.err(`${tag} worker ${slot.state.index} (pid ${slot.state.pid}) silent for ${seconds(silent)}; killing it (SIGKILL)`);
        slot.worker.process.kill("SIGKILL");
      }
    }
  }

  async #stopAll(): Promise<void> {
    const { drainMs } = this;
    this.#stopping = true;
    this.io.err(`${this.tag} stopping: each worker drains its requests in flight (gateway.drainMs ${drainMs} ms); a second signal stops at once`);
    for (const slot of this.#slots) clearTimeout(slot.timer);
    const exits = this.#slots.map(
      (slot) =>
        new Promise<void>((resolve) => {
          const worker = slot.worker;
          if (worker === undefined || worker.isDead()) return resolve();
          const kill = setTimeout(() => worker.process.kill("SIGKILL"), drainMs + CUT_GRACE_MS + GRACE_MS);
          worker.once("exit", () => {
            clearTimeout(kill);
            resolve();
          });
          this.#set(slot, "stopping");
          tellToStop(worker);
        }),
    );
    await Promise.all(exits);
  }

  /** A signal while stopping is the operator insisting: every worker's drain ends at once. */
  #onSignal(): void {
    if (!this.#stopping) return this.#signalled.resolve();
    this.io.err(`${this.tag} stopping at once`);
    for (const slot of this.#slots) {
      const worker = slot.worker;
      if (worker !== undefined && !worker.isDead()) tellToStop(worker);
    }
  }
}

/** The stop message, or SIGTERM to a worker whose IPC channel is gone. */
function tellToStop(worker: Worker): void {
  const stop: ToWorker = { type: "toolsearch:stop" };
  if (worker.isConnected()) worker.send(stop);
  else worker.process.kill("SIGTERM");
}

function seconds(ms: number): string {
  return `${(ms / 1_000).toFixed(1)} s`;
}

/** A worker's stops: the first begins its drain, any later one ends the drain at once. */
export interface WorkerStops {
  /** Resolves at the first stop: the primary's stop message, SIGTERM, or the primary gone. */
  readonly first: Promise<void>;
  /** Aborted by a stop after the first (a second message from the primary, SIGTERM or SIGINT). */
  readonly signal: AbortSignal;
  /** Stops listening (after the drain). */
  release(): void;
}

/**
 * In a worker: listens for stops from its start and counts them, so that two stop messages that
 * reach the worker in one read of its IPC channel (Node emits both before any promise callback
 * runs) are the first and the second, not one stop and one lost. A terminal's Ctrl-C (SIGINT to
 * the whole process group) is left to the primary, which then asks every worker to drain: before
 * the first stop the worker must not die on it, after it SIGINT insists like a second stop.
 */
export function workerStops(): WorkerStops {
  const insisted = new AbortController();
  let stops = 0;
  let resolveFirst!: () => void;
  const first = new Promise<void>((resolve) => (resolveFirst = resolve));
  const stop = (): void => {
    stops += 1;
    if (stops === 1) resolveFirst();
    else insisted.abort();
  };
  const onMessage = (message: ToWorker): void => {
    if (message?.type === "toolsearch:stop") stop();
  };
  const onInterrupt = (): void => {
    if (stops > 0) stop();
  };
  const onDisconnect = (): void => {
    if (stops === 0) stop();
  };
  process.on("message", onMessage);
  process.on("SIGTERM", stop);
  process.on("SIGINT", onInterrupt);
  process.on("disconnect", onDisconnect);
  return {
    first,
    signal: insisted.signal,
    release: () => {
      process.off("message", onMessage);
      process.off("SIGTERM", stop);
      process.off("SIGINT", onInterrupt);
      process.off("disconnect", onDisconnect);
    },
  };
}

/** In a worker, after its cleanup: leaves (the IPC channel would keep it alive). */
export function leaveCluster(): never {
  process.exit(0);
}

/** In a worker: tells the primary it listens, then beats every TOOLSEARCH_HEARTBEAT_MS (set by the primary). */
export function announceReady(url: string): void {
  const message: ToPrimary = { type: "toolsearch:ready", url };
  send(message);
  const every = Number(process.env.TOOLSEARCH_HEARTBEAT_MS);
  if (!Number.isFinite(every) || every <= 0) return;
  // Unref'd: the beat never keeps a stopping worker alive. In the worker's own loop on purpose:
  // a loop that is blocked (or a process that is stopped) must fall silent.
  const beat: ToPrimary = { type: "toolsearch:heartbeat" };
  setInterval(() => send(beat), every).unref();
}

/** A message to the primary; a closed channel is no error (the primary is gone, `disconnect` stops us). */
function send(message: ToPrimary): void {
  if (process.send === undefined || !process.connected) return;
  process.send(message, undefined, undefined, () => {});
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
