/**
 * What the index worker (src/search/storage/index-worker.ts) can build: a backend whose factory declares a
 * `worker` name found here. The cache and the worker share the task types below; src/search
 * never imports the worker. A new worker-capable backend is one entry in this table.
 */
import type { Bm25fSnapshot } from "../scoring/bm25f.js";
import { Bm25fBackend, bm25fBackend, bm25fFromParts } from "../backends/bm25f-backend.js";
import { minisearchBackend } from "../backends/minisearch-backend.js";
import type { SearchBackend, SearchBackendFactory, SearchDoc } from "../types.js";
import { InternalError } from "../../errors.js";

export interface WorkerBackend {
  factory: SearchBackendFactory;
  /**
   * The built index handed to the main thread as it is, with the buffers to move rather than
   * copy: no snapshot is written and read back for it, so the main thread's SQLite heap never
   * grows to hold a whole catalog (≈ 50 MiB at 100k tools, and a WASM heap never shrinks).
   * Without it, the main thread loads the snapshot (`factory.load`).
   */
  parts?(backend: SearchBackend): { parts: Bm25fSnapshot; transfer: ArrayBuffer[] };
  /** The main thread's backend over what `parts` gave. */
  adopt?(parts: Bm25fSnapshot): Promise<SearchBackend>;
}

const WORKER_BACKENDS: ReadonlyMap<string, WorkerBackend> = new Map<string, WorkerBackend>([
  ["bm25f", { factory: bm25fBackend, parts: bm25fParts, adopt: bm25fFromParts }],
  ["minisearch", { factory: minisearchBackend }],
]);

/** The entry the worker builds for a `worker` name (undefined when it has none by that name). */
export function workerBackend(name: string): WorkerBackend | undefined {
  return WORKER_BACKENDS.get(name);
}

function bm25fParts(backend: SearchBackend): { parts: Bm25fSnapshot; transfer: ArrayBuffer[] } {
  if (!(backend instanceof Bm25fBackend)) throw new InternalError("bm25f worker entry: not a Bm25fBackend");
  const parts = backend.parts();
  // Each numeric part is a fresh copy (bm25f.ts toSnapshot), never a view of the core's memory.
  return { parts, transfer: [parts.lengths.buffer, parts.start.buffer, parts.data.buffer].filter((b): b is ArrayBuffer => b instanceof ArrayBuffer) };
}

export interface BuildTask {
  /** The factory's `worker` name. */
  kind: string;
  docs: SearchDoc[];
  /** Also return the serialised snapshot (the caller writes it to a snapshot folder). */
  snapshot: boolean;
}

export interface BuildResult {
  signature: string;
  /** The serialised snapshot: when asked for, or when the backend has no `parts`. */
  snapshot?: Uint8Array;
  /** The index as it is (WorkerBackend.parts), when the backend has them. */
  parts?: Bm25fSnapshot;
  ms: number;
}
