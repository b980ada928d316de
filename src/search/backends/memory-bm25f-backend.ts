/**
 * A backend over BM25F postings alone (bm25f.ts, scored in WebAssembly), for small per-run
 * indexes: a run's client tools. Given the catalog's statistics (`stats` in the search options) it scores its
 * docs as if they were part of the catalog, so client and catalog hits merge by score.
 * Garbage-collected with the run: nothing to close, no snapshot.
 */
import { IndexClosedError } from "../../errors.js";
import { Bm25fIndex, fieldTerms } from "../scoring/bm25f.js";
import type { BackendHit, BackendSearchOptions, CorpusStats, SearchBackend, SearchBackendFactory, SearchDoc } from "../types.js";

class MemoryBm25fBackend implements SearchBackend {
  readonly kind = "bm25f-memory";
  #index: Bm25fIndex | undefined = new Bm25fIndex();

  get size(): number {
    return this.#open().size;
  }

  add(docs: readonly SearchDoc[]): void {
    this.#open().add(docs.map((doc) => ({ id: doc.id, fields: fieldTerms(doc) })));
  }

  remove(ids: readonly string[]): void {
    this.#open().remove(ids);
  }

  search(query: string, options: BackendSearchOptions): BackendHit[] {
    return this.#open().search(query, options);
  }

  searchClauses(clauses: readonly string[], options: BackendSearchOptions): BackendHit[][] {
    return this.#open().searchClauses(clauses, options);
  }

  corpusStats(): CorpusStats | undefined {
    return this.#open();
  }

  close(): void {
    this.#index = undefined;
  }

  #open(): Bm25fIndex {
    if (this.#index === undefined) throw new IndexClosedError();
    return this.#index;
  }
}

/** Not the default backend `bm25f` (bm25f-backend.ts): the same scoring, without snapshots, options or a worker. */
export const memoryBm25fBackend: SearchBackendFactory = { kind: "bm25f-memory", create: () => Promise.resolve(new MemoryBm25fBackend()) };
