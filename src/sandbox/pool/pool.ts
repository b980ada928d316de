/**
 * The code-mode pool: keeps `prefork` sandbox children started and handshaken, hands each one
 * exactly one body, kills it with SIGKILL when that body settles and forks a replacement in the
 * background. Concurrency is bounded (`maxConcurrent`) and so is the wait queue (`maxQueue`;
 * past it, run() answers POOL_SATURATED at once). Both are shared fairly among tenants (the
 * caller's `tenant`: a token, a session): each has at most `maxQueuePerTenant` bodies waiting
 * and `maxRunningPerTenant` running, and the tenants' queues take turns (fair-queue.ts).
 *
 * Why not tinypool, the pool first planned for this: tinypool 2.2's child-process runtime
 * (`runtime: "child_process"`, ProcessWorker in node_modules/tinypool/dist/index.js) does not fit
 * this child:
 * - it `fork()`s its own entry file (dist/entry/process.js), which then `import()`s the task
 *   file: the child would need an fs read grant on node_modules and our code, where ours reads
 *   nothing and gets its whole bootstrap through `--eval`;
 * - fork() opens a Node IPC channel (announced to the child through the NODE_CHANNEL_FD
 *   environment variable) and the worker merges TINYPOOL_WORKER_ID into the child's env; ours
 *   runs with `env: {}`, and its only channel is length-prefixed msgpack over stdin/stdout that
 *   the parent caps and validates frame by frame;
 * - its fork() takes node's path and flags (execPath/execArgv) with no slot for a wrapper in
 *   front of node, where ours starts as `prlimit … unshare … node` (memory cap, namespaces);
 * - terminate() sends SIGTERM and waits SIGKILL_TIMEOUT = 1000 ms before SIGKILL, where a body
 *   that hits its deadline must die at once, and it pipes the child's stdout/stderr into the
 *   parent's own;
 * - `isolateWorkers` replaces a worker after each task, but only between tasks it schedules
 *   itself; prefork-then-hand-over-one-body with a handshake frame is not its model.
 * What is left once those are replaced is a queue and a counter, which is what this file is.
 * tinypool stays the right tool for CPU work in worker threads (e.g. building large indexes).
 */
import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { onAbort } from "../../abort-listeners.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigInvalidError, SandboxUnavailableError } from "../../errors.js";
import { childSource } from "../child/source.js";
import { FairQueue, type RunTenantKey } from "./fair-queue.js";
import {
  MAX_LOAD_TENANTS,
  type BridgeHandler,
  type CodePool,
  type CodeResult,
  type CodeRunOptions,
  type PoolLoad,
  type PoolOptions,
  type SandboxReport,
} from "../types.js";
import { guardParentInspector } from "./inspector-guard.js";
import { detectPermissionFlag, launchPlans, type LaunchPlan } from "./launch.js";
import { resolvePoolOptions, type ResolvedPoolOptions } from "./options.js";
import { probeFirstChild, type Layers } from "./probe.js";
import { ChildState, SandboxChild } from "./sandbox-child.js";
import { Spawner } from "./spawner.js";

/** After this many children in a row fail to start, the pool reports itself unavailable. */
const MAX_START_FAILURES = 3;

const NO_LAYERS: Layers = {
  permissionModel: false,
  networkNamespace: false,
  pidNamespace: false,
  permissionNet: false,
  noCodeGenFromStrings: false,
  vmContext: false,
  parentInspectorGuard: false,
  memoryLimit: false,
  orphanKill: false,
};

interface Waiter {
  tenant: RunTenantKey;
  code: string;
  bridge: BridgeHandler;
  options: CodeRunOptions;
  resolve: (result: CodeResult | Promise<CodeResult>) => void;
  onAbort: () => void;
  /** Unregisters onAbort from the caller's signal. */
  offAbort: () => void;
}

/** A CodePool with the extras tests and the bench use. */
export interface SandboxPool extends CodePool {
  load(): PoolLoad;
  /** Appears in every child's command line (`toolsearch-sandbox:<tag>`); see pool/processes.ts. */
  readonly tag: string;
  /** Live child processes (waiting or running). */
  childPids(): number[];
  /** Children started, handshaken and waiting for a body. */
  readyCount(): number;
  /** Resolves when at least `count` children are ready (or the pool is closed/unavailable). */
  whenReady(count?: number): Promise<void>;
  /** How this pool starts children (undefined when unavailable); the bench reuses it. */
  launchPlan(): LaunchPlan | undefined;
  /** The spawners that fork this pool's children (pool/spawner.ts); empty when this process forks them. */
  spawnerPids(): number[];
  /** Writes to the spawners and reads from them so far, over every spawner this pool started (zero without one). */
  spawnerIo(): { writes: number; reads: number };
}

/** Options only the bench and the tests use. */
export interface InternalPoolOptions {
  /** Rewrites the launch plans the probe tries (tests use it to simulate a host that refuses them). */
  launchPlans?: (plans: LaunchPlan[]) => LaunchPlan[];
  /** false: this process forks every child itself, as before the spawner (the bench compares both). */
  spawner?: boolean;
  /** How many spawners share the forking (default: one per 8 cores, at least 1). */
  spawners?: number;
}

function failure(code: "SANDBOX_UNAVAILABLE" | "POOL_SATURATED" | "CANCELLED", message: string): CodeResult {
  return { ok: false, error: { code, message }, logs: [], stats: { ms: 0, bridgeCalls: 0 } };
}

class Pool implements SandboxPool {
  readonly tag = randomBytes(6).toString("hex");
  private readonly source: string;
  private cwd = "";
  private plan: LaunchPlan | undefined;
  private reportValue: SandboxReport;
  private closing: Promise<void> | undefined;
  private readonly idle: SandboxChild[] = [];
  private readonly starting = new Set<SandboxChild>();
  /** Children running a body → whose body. */
  private readonly running = new Map<SandboxChild, RunTenantKey>();
  private readonly runningByTenant = new Map<RunTenantKey, number>();
  /** Every child not yet reaped. */
  private readonly live = new Set<SandboxChild>();
  private readonly queue = new FairQueue<Waiter>();
  private startFailures = 0;
  private refillScheduled = false;
  private readyWaiters: Array<{ count: number; resolve: () => void }> = [];
  /**
   * The spawners that fork the children (pool/spawner.ts), one per slot, taken in turn; empty
   * when this process forks them itself. A spawner spends about an eighth of the CPU a child
   * spends starting (docs/sandbox.md, "Cost per body"), so one keeps about 8 cores of children busy.
   */
  private readonly spawners: Array<Spawner | undefined> = [];
  private readonly spawnerCount: number;
  private nextSpawner = 0;
  private readonly restartingSpawners = new Set<number>();
  /** Every spawner started, ready or not, until it has exited: close() waits for them. */
  private readonly everySpawner = new Set<Spawner>();
  /** The I/O counts of spawners that have exited, so that spawnerIo() keeps them. */
  private readonly pastSpawnerIo = { writes: 0, reads: 0 };
  private useSpawner: boolean;

  constructor(
    private readonly options: ResolvedPoolOptions,
    private readonly internal: InternalPoolOptions,
  ) {
    this.source = childSource(this.tag);
    this.reportValue = { available: false, reason: "starting", nodeVersion: process.version, layers: { ...NO_LAYERS } };
    this.useSpawner = internal.spawner !== false;
    this.spawnerCount = Math.max(1, internal.spawners ?? Math.ceil(availableParallelism() / 8));
  }

  /**
   * The running spawner of `slot`, started at the pool's start and again after one exited (its
   * children went with it). Undefined when it cannot start: then this process forks the children
   * itself, and the report's notes say so once.
   */
  private async startSpawner(slot: number, plan: LaunchPlan): Promise<Spawner | undefined> {
    if (!this.useSpawner) return undefined;
    const current = this.spawners[slot];
    if (current?.alive) return current;
    const spawner = new Spawner(plan, this.cwd, this.tag, this.options.startTimeoutMs);
    this.everySpawner.add(spawner);
    void spawner.closed.then(() => {
      this.everySpawner.delete(spawner);
      this.pastSpawnerIo.writes += spawner.io.writes;
      this.pastSpawnerIo.reads += spawner.io.reads;
    });
    try {
      await spawner.ready;
      // SANDBOX_UNAVAILABLE, as run() answers on a closed pool.
      if (this.closing) throw new SandboxUnavailableError("the pool closed");
    } catch (error) {
      if (!this.closing && this.useSpawner) {
        this.useSpawner = false;
        this.spawnerNote = `the spawner did not start (${(error as Error).message}); this process forks each child itself`;
      }
      await spawner.close();
      return undefined;
    }
    this.spawners[slot] = spawner;
    return spawner;
  }

  /** The next live spawner in turn; a dead one met on the way is restarted in the background. */
  private pickSpawner(): Spawner | undefined {
    for (let k = 0; k < this.spawnerCount; k++) {
      const slot = (this.nextSpawner + k) % this.spawnerCount;
      const spawner = this.spawners[slot];
      if (spawner?.alive) {
        this.nextSpawner = slot + 1;
        return spawner;
      }
      this.restartSpawner(slot);
    }
    return undefined;
  }

  private spawnerNote: string | undefined;

  async start(): Promise<void> {
    const permissionFlag = detectPermissionFlag();
    if (!permissionFlag) {
      this.markUnavailable(`Node ${process.version} has no permission model (--permission / --experimental-permission)`);
      return;
    }
    this.reportValue.permissionFlag = permissionFlag;
    try {
      this.cwd = mkdtempSync(join(tmpdir(), "toolsearch-sandbox-"));
    } catch (error) {
      this.markUnavailable(`cannot create the children's empty working directory: ${(error as Error).message}`);
      return;
    }
    const guard = this.options.guardParentInspector ? guardParentInspector() : false;
    const plans = this.internal.launchPlans?.(launchPlans(this.options, permissionFlag)) ?? launchPlans(this.options, permissionFlag);
    // The spawners run whichever plan the probe settles on; they need only setpriv's path from it.
    const started = plans[0] ? await Promise.all(Array.from({ length: this.spawnerCount }, (_, slot) => this.startSpawner(slot, plans[0]!))) : [];
    const spawner = this.useSpawner ? started[0] : undefined;
    const probe = await probeFirstChild(plans, { source: this.source, cwd: this.cwd, options: this.options, ...(spawner ? { spawner } : {}) }, guard);
    if (this.closing) {
      if (probe.ok) probe.child.kill();
      return;
    }
    if (!probe.ok) {
      this.markUnavailable(probe.reason);
      return;
    }
    this.plan = probe.plan;
    this.reportValue = {
      available: true,
      nodeVersion: process.version,
      permissionFlag,
      layers: probe.layers,
      ...(probe.notes.length > 0 || this.spawnerNote ? { notes: [...probe.notes, ...(this.spawnerNote ? [this.spawnerNote] : [])] } : {}),
    };
    this.adopt(probe.child);
    this.onChildReady(probe.child);
    this.refill();
  }

  report(): SandboxReport {
    return { ...this.reportValue, layers: { ...this.reportValue.layers } };
  }

  load(): PoolLoad {
    const byTenant = new Map<RunTenantKey, { running: number; queued: number }>();
    for (const [tenant, running] of this.runningByTenant) byTenant.set(tenant, { running, queued: 0 });
    for (const [tenant, queued] of this.queue.sizes()) byTenant.set(tenant, { running: byTenant.get(tenant)?.running ?? 0, queued });
    const tenants = [...byTenant]
      .map(([tenant, counts]) => ({ tenant: typeof tenant === "string" ? tenant : undefined, ...counts }))
      .sort((a, b) => b.running + b.queued - (a.running + a.queued))
      .slice(0, MAX_LOAD_TENANTS);
    const { maxConcurrent, maxQueue } = this.options;
    return { ready: this.idle.length, running: this.running.size, queued: this.queue.size, maxConcurrent, maxQueue, tenants };
  }

  childPids(): number[] {
    return [...this.live].filter((c) => c.alive && c.pid !== undefined).map((c) => c.pid as number);
  }

  launchPlan(): LaunchPlan | undefined {
    return this.plan;
  }

  spawnerPids(): number[] {
    return this.useSpawner ? this.spawners.filter((s): s is Spawner => s !== undefined && s.alive && s.pid !== undefined).map((s) => s.pid as number) : [];
  }

  spawnerIo(): { writes: number; reads: number } {
    const io = { ...this.pastSpawnerIo };
    for (const spawner of this.everySpawner) {
      io.writes += spawner.io.writes;
      io.reads += spawner.io.reads;
    }
    return io;
  }

  readyCount(): number {
    return this.idle.length;
  }

  whenReady(count = 1): Promise<void> {
    if (this.idle.length >= count || this.closing || !this.reportValue.available) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push({ count, resolve }));
  }

  async run(code: string, bridge: BridgeHandler, options: CodeRunOptions): Promise<CodeResult> {
    if (typeof code !== "string") throw new ConfigInvalidError(`pool.run: code must be a string; got ${typeof code}.`);
    if (!bridge || typeof bridge.search !== "function" || typeof bridge.describe !== "function" || typeof bridge.call !== "function") {
      throw new ConfigInvalidError("pool.run: bridge must have search, describe and call methods.");
    }
    const timeoutMs = options?.timeoutMs;
    if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new ConfigInvalidError(`pool.run: options.timeoutMs must be a positive number; got ${String(timeoutMs)} (${typeof timeoutMs}).`);
    }
    const tenantName = options.tenant;
    if (tenantName !== undefined && (typeof tenantName !== "string" || tenantName.length === 0)) {
      throw new ConfigInvalidError(
        `pool.run: options.tenant must be a non-empty string when given; got ${typeof tenantName === "string" ? "an empty string" : typeof tenantName}.`,
      );
    }
    if (this.closing) return failure("SANDBOX_UNAVAILABLE", "The code pool is closed.");
    if (!this.reportValue.available) return failure("SANDBOX_UNAVAILABLE", `The code sandbox is unavailable: ${this.reportValue.reason ?? "unknown reason"}.`);
    if (options.signal?.aborted) return failure("CANCELLED", "The run was cancelled by the caller before it started.");

    // A run that names no tenant is a tenant of its own: it competes with each tenant as one body.
    const tenant: RunTenantKey = tenantName ?? Symbol("untenanted run");
    if (this.mayStart(tenant) && this.idle.length > 0) {
      return this.startOn(this.idle.shift() as SandboxChild, tenant, code, bridge, options);
    }
    const refusal = this.saturation(tenant);
    if (refusal) return refusal;
    return new Promise<CodeResult>((resolve) => {
      const waiter: Waiter = {
        tenant,
        code,
        bridge,
        options,
        resolve,
        offAbort: () => {},
        onAbort: () => {
          this.queue.remove(tenant, waiter);
          resolve(failure("CANCELLED", "The run was cancelled by the caller while it waited for a sandbox child."));
        },
      };
      if (options.signal !== undefined) waiter.offAbort = onAbort(options.signal, waiter.onAbort);
      this.queue.push(tenant, waiter);
      this.refill();
    });
  }

  /** A body of `tenant` may take a slot now: one is free and the tenant is below its running share. */
  private mayStart(tenant: RunTenantKey): boolean {
    return this.running.size < this.options.maxConcurrent && this.runningOf(tenant) < this.options.maxRunningPerTenant;
  }

  private runningOf(tenant: RunTenantKey): number {
    return this.runningByTenant.get(tenant) ?? 0;
  }

  /** POOL_SATURATED when the tenant's share of the queue, or the whole queue, is full. */
  private saturation(tenant: RunTenantKey): CodeResult | undefined {
    const { maxConcurrent, maxQueue, maxQueuePerTenant, maxRunningPerTenant } = this.options;
    const waiting = this.queue.sizeOf(tenant);
    if (waiting >= maxQueuePerTenant) {
      return failure(
        "POOL_SATURATED",
        `The code pool's share for this caller is full: ${waiting} of its bodies waiting and ${this.runningOf(tenant)} running (maxQueuePerTenant ${maxQueuePerTenant}, maxRunningPerTenant ${maxRunningPerTenant}); other callers' bodies still queue. Try again when one of yours has finished.`,
      );
    }
    if (this.queue.size >= maxQueue) {
      return failure(
        "POOL_SATURATED",
        `The code pool is saturated: ${this.running.size} bodies running and ${this.queue.size} waiting (maxConcurrent ${maxConcurrent}, maxQueue ${maxQueue}). Try again shortly.`,
      );
    }
    return undefined;
  }

  /** The next body in turn whose tenant is below its running share. */
  private nextWaiter(): Waiter | undefined {
    return this.queue.take((tenant) => this.runningOf(tenant) < this.options.maxRunningPerTenant);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    for (const waiter of this.queue.drain()) {
      waiter.offAbort();
      waiter.resolve(failure("SANDBOX_UNAVAILABLE", "The code pool was closed before the code could run."));
    }
    for (const child of [...this.live]) child.abort("SANDBOX_UNAVAILABLE", "The code pool was closed while the code ran.");
    this.flushReadyWaiters(true);
    await Promise.all([...this.live].map((child) => child.closed));
    await Promise.all([...this.everySpawner].map((spawner) => spawner.close()));
    if (this.cwd) rmSync(this.cwd, { recursive: true, force: true });
  }

  private markUnavailable(reason: string): void {
    this.reportValue = { ...this.reportValue, available: false, reason };
    for (const spawner of this.everySpawner) void spawner.close();
    for (const waiter of this.queue.drain()) {
      waiter.offAbort();
      waiter.resolve(failure("SANDBOX_UNAVAILABLE", `The code sandbox is unavailable: ${reason}.`));
    }
    this.flushReadyWaiters(true);
  }

  private startOn(child: SandboxChild, tenant: RunTenantKey, code: string, bridge: BridgeHandler, options: CodeRunOptions): Promise<CodeResult> {
    this.running.set(child, tenant);
    this.runningByTenant.set(tenant, this.runningOf(tenant) + 1);
    // The replacement is forked when this child dies, not now: forking blocks the event loop for
    // a few ms and a starting child competes for CPU with the body that is running.
    return child.run(code, bridge, options.timeoutMs, options.signal);
  }

  /** Tracks a spawned child until it is reaped. */
  private adopt(child: SandboxChild): void {
    this.live.add(child);
    child.onDead = (c) => this.onChildDead(c);
    void child.closed.then(() => this.live.delete(child));
  }

  /** Starts one child; false when none could be started now (the spawner is restarting, or spawn threw). */
  private spawnChild(): boolean {
    if (!this.plan) return false;
    const spawner = this.useSpawner ? this.pickSpawner() : undefined;
    if (this.useSpawner && !spawner) return false;
    let child: SandboxChild;
    try {
      child = new SandboxChild({ plan: this.plan, source: this.source, cwd: this.cwd, options: this.options, ...(spawner ? { spawner } : {}) });
    } catch (error) {
      // spawn() throws synchronously for some errno values; count it like any failed start.
      this.onStartFailure(error as Error);
      return false;
    }
    this.adopt(child);
    this.starting.add(child);
    child.ready.then(
      () => {
        this.starting.delete(child);
        if (child.state !== ChildState.Ready) return;
        this.startFailures = 0;
        if (this.closing) {
          child.kill();
          return;
        }
        this.onChildReady(child);
      },
      (error: Error) => {
        this.starting.delete(child);
        this.onStartFailure(error);
      },
    );
    return true;
  }

  /** A spawner that exited took its children with it; its slot's next one starts in the background. */
  private restartSpawner(slot: number): void {
    if (this.restartingSpawners.has(slot) || this.closing || !this.plan) return;
    this.restartingSpawners.add(slot);
    void this.startSpawner(slot, this.plan).then(() => {
      this.restartingSpawners.delete(slot);
      this.refill();
    });
  }

  private onStartFailure(error: Error): void {
    if (this.closing) return;
    this.startFailures += 1;
    if (this.startFailures >= MAX_START_FAILURES) {
      this.markUnavailable(`${MAX_START_FAILURES} sandbox children in a row failed to start; last: ${error.message}`);
      return;
    }
    this.scheduleRefill();
  }

  private onChildReady(child: SandboxChild): void {
    const waiter = this.running.size < this.options.maxConcurrent ? this.nextWaiter() : undefined;
    if (waiter) {
      waiter.offAbort();
      waiter.resolve(this.startOn(child, waiter.tenant, waiter.code, waiter.bridge, waiter.options));
      return;
    }
    this.idle.push(child);
    this.flushReadyWaiters(false);
  }

  private onChildDead(child: SandboxChild): void {
    const at = this.idle.indexOf(child);
    if (at >= 0) this.idle.splice(at, 1);
    this.starting.delete(child);
    if (this.running.has(child)) {
      this.releaseSlot(child);
      this.pump();
    }
    // Through the spawner a start is one queued message, sent with this child's kill in one
    // write; only this process's own fork blocks the loop and waits for the next turn.
    if (this.useSpawner) this.refill();
    else this.scheduleRefill();
  }

  private releaseSlot(child: SandboxChild): void {
    const tenant = this.running.get(child) as RunTenantKey;
    this.running.delete(child);
    const left = this.runningOf(tenant) - 1;
    if (left > 0) this.runningByTenant.set(tenant, left);
    else this.runningByTenant.delete(tenant);
  }

  /**
   * Refills on the next turn of the event loop: a child dies inside the run's settlement, and
   * spawn() blocks the loop until the new process has exec'd, which would otherwise delay the
   * caller's continuation by that much.
   */
  private scheduleRefill(): void {
    if (this.refillScheduled || this.closing) return;
    this.refillScheduled = true;
    setImmediate(() => {
      this.refillScheduled = false;
      this.refill();
    });
  }

  /** Hands ready children to waiting bodies, tenants in turn, while concurrency and their shares allow. */
  private pump(): void {
    while (this.idle.length > 0 && this.running.size < this.options.maxConcurrent) {
      const waiter = this.nextWaiter();
      if (!waiter) return;
      waiter.offAbort();
      waiter.resolve(this.startOn(this.idle.shift() as SandboxChild, waiter.tenant, waiter.code, waiter.bridge, waiter.options));
    }
  }

  /** Keeps `prefork` children ready or starting, plus one per waiting body that could run now (its tenant below its share). */
  private refill(): void {
    if (this.closing || !this.reportValue.available || !this.plan) return;
    const eligible = this.queue.countEligible((tenant) => this.options.maxRunningPerTenant - this.runningOf(tenant));
    const runnable = Math.min(eligible, this.options.maxConcurrent - this.running.size);
    const wanted = Math.max(this.options.prefork, runnable);
    while (this.idle.length + this.starting.size < wanted) {
      if (!this.spawnChild()) break;
    }
  }

  private flushReadyWaiters(all: boolean): void {
    this.readyWaiters = this.readyWaiters.filter((w) => {
      if (all || this.idle.length >= w.count) {
        w.resolve();
        return false;
      }
      return true;
    });
  }
}

/**
 * Starts a code-mode pool: probes which isolation layers this host gives a child, then keeps
 * `prefork` children ready. Never rejects for an unusable host: `report().available` is false with
 * a reason, and run() answers SANDBOX_UNAVAILABLE. Throws ConfigInvalidError for bad options.
 */
export async function createCodePool(options?: PoolOptions, internal: InternalPoolOptions = {}): Promise<SandboxPool> {
  const pool = new Pool(resolvePoolOptions(options), internal);
  try {
    await pool.start();
  } catch (error) {
    await pool.close();
    throw error;
  }
  return pool;
}
