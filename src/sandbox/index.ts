/**
 * Code mode's sandbox: a pool of pre-forked, single-use, permission-restricted Node children that
 * run model-written bodies against a bridge the engine supplies. See docs/sandbox.md.
 */
import { createCodePool } from "./pool/pool.js";
import type { PoolOptions, SandboxReport } from "./types.js";

export type { PoolOptions, SandboxReport } from "./types.js";
export type { SandboxPool } from "./pool/pool.js";
export { createCodePool } from "./pool/pool.js";
export { findSandboxProcesses } from "./pool/processes.js";

/** Probes the sandbox layers once (starts one child, reports, kills it) without keeping a pool. */
export async function probeSandbox(options?: PoolOptions): Promise<SandboxReport> {
  const pool = await createCodePool({ ...options, prefork: 0 });
  try {
    return pool.report();
  } finally {
    await pool.close();
  }
}
