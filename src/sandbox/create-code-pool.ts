/** The public `createCodePool`: the pool's code (spawner, codec, child source) loads when a pool is first created, not with the package. */
import type { CodePool, PoolOptions } from "./types.js";

/**
 * Starts a code-mode pool (sandbox/pool/pool.ts createCodePool, less its test seams): one pool of
 * children several engines can share (`createToolSearch({ codePool })`). Throws ConfigInvalidError
 * for bad options.
 */
export async function createCodePool(options?: PoolOptions): Promise<CodePool> {
  const sandbox = await import("./index.js");
  return sandbox.createCodePool(options);
}
