/**
 * What the index worker (wasm/index-worker.ts) can build: a backend whose factory declares a
 * `worker` name found here. The cache and the worker share the task types below; src/search
 * never imports the worker. A new worker-capable backend is one line in this table.
 */
import { fts5Backend } from "./fts5-backend.js";
import { minisearchBackend } from "./minisearch-backend.js";
import type { SearchBackendFactory, SearchDoc } from "./types.js";

const WORKER_BACKENDS: ReadonlyMap<string, SearchBackendFactory> = new Map([
  ["fts5", fts5Backend],
  ["minisearch", minisearchBackend],
]);

/** The factory the worker builds for a `worker` name (undefined when it has none by that name). */
export function workerBackend(name: string): SearchBackendFactory | undefined {
  return WORKER_BACKENDS.get(name);
}

export interface BuildTask {
  /** The factory's `worker` name. */
  kind: string;
  docs: SearchDoc[];
}

export interface BuildResult {
  signature: string;
  snapshot: Uint8Array;
  ms: number;
}
