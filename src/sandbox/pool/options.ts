/**
 * PoolOptions, checked once at the entry against their schema (ranges and defaults), so the rest
 * of the pool reads plain numbers; limits that depend on others are defaulted and checked after.
 */
import { compileOptions } from "../../validation/ajv.js";
import { boolean, int, object, withDefault, type Filled } from "../../validation/typed-schema.js";
import { ConfigInvalidError } from "../../errors.js";
import type { PoolOptions } from "../types.js";

const KIB = 1024;
const MIB = 1024 * KIB;

/** Bytes a frame needs beyond its payload (envelope, keys, length prefix). */
const FRAME_OVERHEAD = 64 * KIB;

/** Code-mode pool limits (`createToolSearch({ pool })`, `createCodePool(...)`): each optional, each with its range and default. */
export const poolSchema = object({
  /** Children kept started and handshaken (default 2). */
  prefork: withDefault(int(0, 64), 2),
  /** Bodies running at once (default: prefork, at least 1). */
  maxConcurrent: int(1, 256),
  /** Bodies waiting for a child; past it run() answers POOL_SATURATED (default 64). */
  maxQueue: withDefault(int(0, 100_000), 64),
  /** Bodies one tenant may have waiting; past it that tenant gets POOL_SATURATED while others still queue (default ceil(maxQueue / 4)). */
  maxQueuePerTenant: int(0, 100_000),
  /**
   * Slots one tenant's bodies may hold at once (default maxConcurrent − 1, at least 1): a slot is
   * kept for the other tenants, so that long bodies of one do not make another's wait for them.
   */
  maxRunningPerTenant: int(1, 256),
  /** V8 old-space cap for a child (default 64). */
  maxOldSpaceSizeMb: withDefault(int(16, 16_384), 64),
  /** Whole-child memory cap, RLIMIT_DATA, where prlimit exists (default 512; at least maxOldSpaceSizeMb + 128). */
  maxMemoryMb: withDefault(int(128, 65_536), 512),
  /** UTF-8 bytes of the return value's JSON (default 1 MiB). */
  maxResultBytes: withDefault(int(1, 256 * MIB), 1 * MIB),
  /** UTF-8 bytes of console output per run (default 64 KiB). */
  maxLogBytes: withDefault(int(0, 64 * MIB), 64 * KIB),
  /** openclaw.tools.* calls per run (default 256). */
  maxBridgeCalls: withDefault(int(0, 1_000_000), 256),
  /** openclaw.tools.* calls in flight at once (default 16). */
  maxConcurrentBridgeCalls: withDefault(int(1, 10_000), 16),
  /** Largest bridge frame either way (default max(4 MiB, what the result and log limits need)). */
  maxFrameBytes: int(1 * KIB, 1024 * MIB),
  /** How long a child may take to start and handshake before it is killed (default 15000). */
  startTimeoutMs: withDefault(int(100, 600_000), 15_000),
  /** Try user+net+pid namespaces with `unshare` (default true on Linux; defaulted in resolvePoolOptions, so that the schema is the same on every platform). */
  namespaces: boolean(),
  /**
   * Own SIGUSR1 in this process so a signal cannot open its inspector (default true). Process-wide
   * and permanent once installed; see src/sandbox/pool/inspector-guard.ts.
   */
  guardParentInspector: withDefault(boolean(), true),
});

/** The pool options resolved: every option present (those whose defaults follow other options, or the platform, filled in by resolvePoolOptions). */
export type ResolvedPoolOptions = Required<Filled<typeof poolSchema>>;

const check = compileOptions("poolOptions", poolSchema);

export function resolvePoolOptions(options: PoolOptions | undefined): ResolvedPoolOptions {
  const o = check(options ?? {}, "pool");
  // A frame must hold the largest result, and a log line cut at the log budget (UTF-8: ≤ 3 bytes a char).
  const needed = Math.max(o.maxResultBytes, 3 * (o.maxLogBytes + 1)) + FRAME_OVERHEAD;
  const maxFrameBytes = o.maxFrameBytes ?? Math.max(4 * MIB, needed);
  if (maxFrameBytes < needed) {
    throw new ConfigInvalidError(
      `pool.maxFrameBytes (${maxFrameBytes}) must be at least ${needed}: the largest result (maxResultBytes ${o.maxResultBytes}) or log line (3 × maxLogBytes ${o.maxLogBytes}) plus ${FRAME_OVERHEAD} bytes of envelope.`,
    );
  }
  if (o.maxMemoryMb < o.maxOldSpaceSizeMb + 128) {
    throw new ConfigInvalidError(
      `pool.maxMemoryMb (${o.maxMemoryMb}) must be at least maxOldSpaceSizeMb (${o.maxOldSpaceSizeMb}) + 128: Node needs that much beyond its old space to start.`,
    );
  }
  const maxConcurrent = o.maxConcurrent ?? Math.max(o.prefork, 1);
  return { ...o, maxConcurrent, maxFrameBytes, namespaces: o.namespaces ?? process.platform === "linux", ...tenantShares(o, maxConcurrent) };
}

/**
 * Each tenant's share of the queue and of the running slots. The running share defaults to one
 * slot less than the pool has, so that a tenant whose bodies run long cannot hold every slot:
 * another tenant's body finds the slot kept free instead of waiting for one of those to end.
 */
function tenantShares(
  o: Partial<ResolvedPoolOptions> & { maxQueue: number },
  maxConcurrent: number,
): Pick<ResolvedPoolOptions, "maxQueuePerTenant" | "maxRunningPerTenant"> {
  const maxQueuePerTenant = o.maxQueuePerTenant ?? Math.ceil(o.maxQueue / 4);
  const maxRunningPerTenant = o.maxRunningPerTenant ?? Math.max(1, maxConcurrent - 1);
  if (maxQueuePerTenant > o.maxQueue) {
    throw new ConfigInvalidError(
      `pool.maxQueuePerTenant (${maxQueuePerTenant}) must be at most maxQueue (${o.maxQueue}): it is one tenant's share of that queue.`,
    );
  }
  if (maxRunningPerTenant > maxConcurrent) {
    throw new ConfigInvalidError(
      `pool.maxRunningPerTenant (${maxRunningPerTenant}) must be at most maxConcurrent (${maxConcurrent}): it is one tenant's share of those slots.`,
    );
  }
  return { maxQueuePerTenant, maxRunningPerTenant };
}
