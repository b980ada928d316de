/**
 * The code-mode pool's options as a schema: each limit, its range and its default. Apart from
 * options.ts (which checks them with ajv, and re-exports the schema), so that the types built
 * from it (sandbox/types.ts PoolOptions, beside the pool's report and load) need nothing of Node:
 * the admin API's wire types (src/admin/admin-wire-types.ts), which the web console compiles
 * without Node's types, carry those.
 */
import { boolean, int, object, withDefault } from "../../validation/typed-schema.js";

export const KIB = 1024;
export const MIB = 1024 * KIB;

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
