/**
 * What the two BM25F backends share (the default one, bm25f-backend.ts, and the per-run
 * in-memory one, memory-bm25f-backend.ts): a backend over BM25F postings (bm25f.ts, scored in
 * WebAssembly), which replaces a re-added id, ignores unknown ids on remove and filters by the
 * allowed set itself. Each subclass adds only its kind and, for the default, its snapshots.
 */
import { Bm25fIndex, fieldTerms } from "../scoring/bm25f.js";
import type { BackendHit, BackendSearchOptions, CorpusStats, SearchBackend, SearchDoc } from "../types.js";
import { IndexedBackend } from "./indexed-backend.js";

export abstract class Bm25fPostingsBackend extends IndexedBackend<Bm25fIndex> implements SearchBackend {
  get size(): number {
    return this.open().size;
  }

  /** Adds docs; a doc whose id is already indexed replaces it. */
  add(docs: readonly SearchDoc[]): void {
    this.open().add(docs.map((doc) => ({ id: doc.id, fields: fieldTerms(doc) })));
  }

  /** Removes docs by id; unknown ids are ignored. */
  remove(ids: readonly string[]): void {
    this.open().remove(ids);
  }

  search(query: string, options: BackendSearchOptions): BackendHit[] {
    return this.open().search(query, options);
  }

  /** All clauses in one pass: BM25F sums word scores, so the whole request is the sum of its clauses. */
  searchClauses(clauses: readonly string[], options: BackendSearchOptions): BackendHit[][] {
    return this.open().searchClauses(clauses, options);
  }

  corpusStats(): CorpusStats | undefined {
    return this.open();
  }
}
