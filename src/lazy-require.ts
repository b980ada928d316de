/**
 * A CommonJS dependency loaded at its first use, synchronously. `import("toolsearch")` loads
 * the engine and nothing it may never use: a dependency only some paths need (ajv for option
 * checks that have no precompiled validator, RE2 for schema patterns, msgpackr for the learned
 * journal) is required where it is first needed, and the import stays cheap. A path that is
 * already asynchronous uses `import()` instead.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** `load()` returns the module, requiring it the first time. */
export function lazyRequire<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(specifier) as T);
}
