/**
 * A backend over BM25F postings alone (bm25f.ts, scored in WebAssembly), for small per-run
 * indexes: a run's client tools. Given the catalog's statistics (`stats` in the search options) it scores its
 * docs as if they were part of the catalog, so client and catalog hits merge by score.
 * Garbage-collected with the run: nothing to close, no snapshot.
 */
import { Bm25fIndex } from "../scoring/bm25f.js";
import type { SearchBackendFactory } from "../types.js";
import { Bm25fPostingsBackend } from "./bm25f-postings-backend.js";

class MemoryBm25fBackend extends Bm25fPostingsBackend {
  readonly kind = "bm25f-memory";
}

/** Not the default backend `bm25f` (bm25f-backend.ts): the same scoring, without snapshots, options or a worker. */
export const memoryBm25fBackend: SearchBackendFactory = { kind: "bm25f-memory", create: () => Promise.resolve(new MemoryBm25fBackend(new Bm25fIndex())) };
