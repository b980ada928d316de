/**
 * PoolOptions, checked once at the entry against their schema (ranges and defaults), so the rest
 * of the pool reads plain numbers; limits that depend on others are defaulted and checked after.
 */
import { compileOptions } from "../../validation/ajv.js";
import type { Filled } from "../../validation/typed-schema.js";
import { ConfigInvalidError } from "../../errors.js";
import type { PoolOptions } from "../types.js";
import { KIB, MIB, poolSchema } from "./pool-schema.js";

export { poolSchema } from "./pool-schema.js";

/** Bytes a frame needs beyond its payload (envelope, keys, length prefix). */
const FRAME_OVERHEAD = 64 * KIB;

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
