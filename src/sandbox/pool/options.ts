/**
 * PoolOptions, checked once at the entry against their schema (ranges and defaults), so the rest
 * of the pool reads plain numbers; limits that depend on others are defaulted and checked after.
 */
import { compileOptions, int } from "../../validation/ajv.js";
import { ConfigInvalidError } from "../../errors.js";
import type { PoolOptions } from "../types.js";

export interface ResolvedPoolOptions {
  prefork: number;
  maxConcurrent: number;
  maxQueue: number;
  maxQueuePerTenant: number;
  maxRunningPerTenant: number;
  maxOldSpaceSizeMb: number;
  maxMemoryMb: number;
  maxResultBytes: number;
  maxLogBytes: number;
  maxBridgeCalls: number;
  maxConcurrentBridgeCalls: number;
  maxFrameBytes: number;
  namespaces: boolean;
  guardParentInspector: boolean;
  startTimeoutMs: number;
}

const KIB = 1024;
const MIB = 1024 * KIB;

/** Bytes a frame needs beyond its payload (envelope, keys, length prefix). */
const FRAME_OVERHEAD = 64 * KIB;

const poolSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    prefork: int(0, 64, 2),
    /** Default: prefork, at least 1. */
    maxConcurrent: int(1, 256),
    maxQueue: int(0, 100_000, 64),
    /** Default: a quarter of maxQueue, rounded up. */
    maxQueuePerTenant: int(0, 100_000),
    /** Default: maxConcurrent − 1, at least 1. */
    maxRunningPerTenant: int(1, 256),
    maxOldSpaceSizeMb: int(16, 16_384, 64),
    maxMemoryMb: int(128, 65_536, 512),
    maxResultBytes: int(1, 256 * MIB, 1 * MIB),
    maxLogBytes: int(0, 64 * MIB, 64 * KIB),
    maxBridgeCalls: int(0, 1_000_000, 256),
    maxConcurrentBridgeCalls: int(1, 10_000, 16),
    /** Default: what the largest result or log line needs, at least 4 MiB. */
    maxFrameBytes: int(1 * KIB, 1024 * MIB),
    startTimeoutMs: int(100, 600_000, 15_000),
    /** Default: on Linux (defaulted in resolvePoolOptions, so that the schema is the same on every platform). */
    namespaces: { type: "boolean" },
    guardParentInspector: { type: "boolean", default: true },
  },
};
type DerivedOption = "maxConcurrent" | "maxFrameBytes" | "maxQueuePerTenant" | "maxRunningPerTenant" | "namespaces";
const check = compileOptions<Omit<ResolvedPoolOptions, DerivedOption> & Partial<ResolvedPoolOptions>>("poolOptions", poolSchema);

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
