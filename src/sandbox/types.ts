/**
 * The code-mode contract between the engine and the sandbox pool. The pool knows nothing of
 * catalogs or policy: every bridged call is handed to a BridgeHandler that the engine builds
 * per run over its dispatcher (so policy, hooks, approval and telemetry always apply).
 */
import type { CodeErrorCode } from "../errors.js";
import type { TypeOf } from "../validation/typed-schema.js";
import type { poolSchema } from "./pool/pool-schema.js";

export interface BridgeCallOptions {
  /** Aborted when the body is killed (deadline, limit, protocol breach) or the engine closes. */
  signal: AbortSignal;
}

/**
 * What `openclaw.tools.*` does in the parent. Return values must be plain data
 * (msgpack-encodable). `call` resolves to the tool's result on success and rejects with a
 * ToolSearchError on failure; the child turns that rejection into an Error (created inside the
 * body's context) that carries `code` and `message`.
 */
export interface BridgeHandler {
  search(query: string | string[], options: { limit?: number } | undefined, call: BridgeCallOptions): Promise<unknown>;
  describe(id: string, call: BridgeCallOptions): Promise<unknown>;
  call(id: string, args: unknown, call: BridgeCallOptions): Promise<unknown>;
}

export interface LogEntry {
  level: "log" | "warn" | "error";
  message: string;
}

export interface CodeRunStats {
  /** Wall time from handing the body to the child until its result (or kill). */
  ms: number;
  bridgeCalls: number;
}

export type CodeResult =
  | { ok: true; value: unknown; logs: LogEntry[]; stats: CodeRunStats }
  | {
      ok: false;
      error: {
        code: CodeErrorCode | "CANCELLED" | "SANDBOX_UNAVAILABLE" | "POOL_SATURATED";
        message: string;
        /** CODE_THREW only: the body's own stack frames (`at … (code.js:LINE:COL)`), no sandbox internals. */
        stack?: string;
      };
      logs: LogEntry[];
      stats: CodeRunStats;
    };

export interface CodeRunOptions {
  /** Wall-clock deadline (1000–60000 in the engine's config). */
  timeoutMs: number;
  /** Caller-side cancel (e.g. run.end()); kills the child like a deadline. */
  signal?: AbortSignal;
  /**
   * Whose body this is (the engine passes the run's tenant: a token's label, else the session):
   * the pool shares its queue and slots fairly among tenants (`maxQueuePerTenant`,
   * `maxRunningPerTenant`, round-robin). A run without one is a tenant of its own.
   */
  tenant?: string;
}

/** Which isolation layers are in force, probed at pool start. */
export interface SandboxReport {
  available: boolean;
  /** Why not, when `available` is false. */
  reason?: string;
  nodeVersion: string;
  /** "--permission" or "--experimental-permission". */
  permissionFlag?: string;
  /** Why stronger launch plans were skipped at the probe (e.g. unshare refused by the host). */
  notes?: string[];
  layers: {
    permissionModel: boolean;
    networkNamespace: boolean;
    pidNamespace: boolean;
    /** Network blocked by the permission model itself (Node >= 25). */
    permissionNet: boolean;
    noCodeGenFromStrings: boolean;
    vmContext: boolean;
    parentInspectorGuard: boolean;
    /** The child's data segment is capped (RLIMIT_DATA via prlimit, `maxMemoryMb`), which also bounds ArrayBuffers. */
    memoryLimit: boolean;
    /**
     * A body cannot outlive a parent killed without warning: setpriv's parent-death SIGKILL, and
     * (or) prlimit's CPU cap (RLIMIT_CPU, 130 s) on the child.
     */
    orphanKill: boolean;
  };
}

/** Code-mode pool limits, each optional: poolSchema (pool/pool-schema.ts) documents each one, its range and default. */
export type PoolOptions = TypeOf<typeof poolSchema>;

export interface CodePool {
  run(code: string, bridge: BridgeHandler, options: CodeRunOptions): Promise<CodeResult>;
  report(): SandboxReport;
  /** What the pool holds now: children ready, bodies running and waiting, by tenant (optional: a pool of one's own may leave it out). */
  load?(): PoolLoad;
  close(): Promise<void>;
}

/** The pool's occupancy at one moment (`pool.load()`, the admin API and the metrics). */
export interface PoolLoad {
  /** Children started and waiting for a body. */
  ready: number;
  running: number;
  queued: number;
  /** Slots (bodies running at once) and queue places in all. */
  maxConcurrent: number;
  maxQueue: number;
  /** Per tenant with a body running or waiting; `tenant` is undefined for runs that named none. At most `MAX_LOAD_TENANTS`, busiest first. */
  tenants: Array<{ tenant: string | undefined; running: number; queued: number }>;
}

/** Tenants a load report lists at most: it is read by operators, and a pool may serve thousands of sessions. */
export const MAX_LOAD_TENANTS = 256;
