/**
 * Code mode's sandbox: a pool of pre-forked, single-use, permission-restricted Node children that
 * run model-written bodies against a bridge the engine supplies. See docs/sandbox.md.
 */
import { startCodePool, type SandboxPool } from "./pool/pool.js";
import type { PoolOptions, SandboxReport } from "./types.js";

export type { PoolOptions, SandboxReport } from "./types.js";
export type { SandboxPool } from "./pool/pool.js";
export { findSandboxProcesses } from "./pool/processes.js";

/**
 * Starts the pool: probes which isolation layers this host gives a child, then keeps `prefork`
 * children ready. When no sandbox can start, resolves anyway with `report().available === false`
 * and a reason; run() then answers SANDBOX_UNAVAILABLE. Throws ConfigInvalidError for bad options.
 */
export function createSandboxPool(options?: PoolOptions): Promise<SandboxPool> {
  return startCodePool(options);
}

/** Probes the sandbox layers once (starts one child, reports, kills it) without keeping a pool. */
export async function probeSandbox(options?: PoolOptions): Promise<SandboxReport> {
  const pool = await startCodePool({ ...options, prefork: 0 });
  try {
    return pool.report();
  } finally {
    await pool.close();
  }
}
