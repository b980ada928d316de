import { Bm25fCore } from "./bm25f-core.js";
import { ConfigInvalidError } from "../../errors.js";

/**
 * Postings in one flat Int32Array (compressed sparse rows): term → a run of [doc, packed term
 * frequencies] pairs, docs ascending. A JS array per term costs 8 bytes an entry plus growth
 * slack and headers; this costs 4 bytes a number and one Map entry per term. The price: an
 * append copies the whole store once (a flat copy of Int32s), so callers append in batches
 * (Bm25fIndex buffers small adds until they are worth a copy).
 *
 * The arrays live in the linear memory of the index's WebAssembly core (bm25f-core.ts), where
 * queries walk them: a rewrite builds the new arrays in JS and copies them in once.
 */
export class PostingStore {
  /** term → row */
  readonly #rows = new Map<string, number>();
  /** Holds the row offsets (row → offset of its first pair; one more entry than rows) and the pairs. */
  readonly #core: Bm25fCore;

  constructor(core: Bm25fCore = new Bm25fCore()) {
    this.#core = core;
  }

  /** The WebAssembly core whose memory holds these postings (the index scores through it). */
  get core(): Bm25fCore {
    return this.#core;
  }

  /** The row of a term, or -1. */
  row(term: string): number {
    return this.#rows.get(term) ?? -1;
  }

  /** Rows (terms) in the store. */
  get rows(): number {
    return this.#rows.size;
  }

  /** Views into the core's memory: valid until the next write (read them again per use). */
  get start(): Int32Array {
    return this.#core.start;
  }

  get data(): Int32Array {
    return this.#core.data;
  }

  /** Docs holding the term. */
  df(term: string): number {
    const row = this.row(term);
    return row < 0 ? 0 : this.dfOfRow(row);
  }

  /** Docs in a row (row ≥ 0). */
  dfOfRow(row: number): number {
    const start = this.#core.start;
    return (start[row + 1]! - start[row]!) / 2;
  }

  terms(): IterableIterator<string> {
    return this.#rows.keys();
  }

  /** Each term with its flat pairs (views into the store: copy before keeping them). */
  *entries(): IterableIterator<[string, Int32Array]> {
    const { start, data } = this.#core;
    for (const [term, row] of this.#rows) yield [term, data.subarray(start[row]!, start[row + 1]!)];
  }

  /**
   * Rewrites the store: existing pairs with their doc renumbered by `renumber` (-1 drops the
   * pair; it must keep docs in order), then `added` pairs (flat [doc, tfs, ...] per term, for
   * docs numbered above every existing one). Terms left with no pairs are dropped.
   */
  rebuild(added: ReadonlyMap<string, readonly number[]>, renumber: (doc: number) => number = (doc) => doc): void {
    const runs = new Map<string, number[]>();
    for (const [term, pairs] of this.entries()) {
      const kept: number[] = [];
      for (let i = 0; i < pairs.length; i += 2) {
        const doc = renumber(pairs[i]!);
        if (doc >= 0) kept.push(doc, pairs[i + 1]!);
      }
      if (kept.length > 0) runs.set(term, kept);
    }
    for (const [term, pairs] of added) {
      const run = runs.get(term);
      if (run === undefined) runs.set(term, [...pairs]);
      else for (const n of pairs) run.push(n);
    }
    this.#load(runs);
  }

  /**
   * Appends `count` pairs given flat: pair i is [pairs[2i], pairs[2i+1]] (doc, packed frequencies)
   * in row rowOf[i]; rows from the store's count on are `newTerms`, in order. Docs are numbered
   * above every existing one and come in doc order, so each row stays ascending. One counting
   * pass sizes every row, one pass copies the store and places the pairs: no array per term.
   */
  appendPairs(newTerms: readonly string[], rowOf: Int32Array, pairs: Int32Array, count: number): void {
    if (count === 0 && newTerms.length === 0) return;
    const oldRows = this.#rows.size;
    for (const term of newTerms) this.#rows.set(term, this.#rows.size);
    const rows = this.#rows.size;
    const oldStart = this.#core.start;
    const oldData = this.#core.data;
    const start = new Int32Array(rows + 1);
    // Sizes per row (old pairs + new), then offsets.
    for (let row = 0; row < oldRows; row++) start[row + 1] = oldStart[row + 1]! - oldStart[row]!;
    for (let i = 0; i < count; i++) start[rowOf[i]! + 1]! += 2;
    for (let row = 0; row < rows; row++) start[row + 1]! += start[row]!;
    const data = new Int32Array(start[rows]!);
    const fill = start.slice(0, rows);
    for (let row = 0; row < oldRows; row++) {
      const from = oldStart[row]!;
      const length = oldStart[row + 1]! - from;
      data.set(oldData.subarray(from, from + length), fill[row]!);
      fill[row]! += length;
    }
    for (let i = 0; i < count; i++) {
      const at = fill[rowOf[i]!]!;
      data[at] = pairs[2 * i]!;
      data[at + 1] = pairs[2 * i + 1]!;
      fill[rowOf[i]!] = at + 2;
    }
    this.#core.writePostings(start, data);
  }

  /**
   * The whole store as arrays (a snapshot): terms in row order, row offsets, pairs. Copies out
   * of the core's memory: a view would detach when it grows, and could not be transferred.
   */
  export(): { terms: string[]; start: Int32Array; data: Int32Array } {
    return { terms: [...this.#rows.keys()], start: this.#core.start.slice(), data: this.#core.data.slice() };
  }

  /** Restores what export() gave, into `core`'s memory (the index's own, when it reads a snapshot). */
  static import(terms: readonly string[], start: Int32Array, data: Int32Array, core?: Bm25fCore): PostingStore {
    if (start.length !== terms.length + 1 || start[terms.length] !== data.length || data.length % 2 !== 0)
      throw new ConfigInvalidError("postings: malformed snapshot");
    const store = new PostingStore(core);
    terms.forEach((term, row) => store.#rows.set(term, row));
    store.#core.writePostings(start, data);
    return store;
  }

  #load(runs: ReadonlyMap<string, readonly number[]>): void {
    let total = 0;
    for (const run of runs.values()) total += run.length;
    const data = new Int32Array(total);
    const start = new Int32Array(runs.size + 1);
    this.#rows.clear();
    let offset = 0;
    for (const [term, run] of runs) {
      const row = this.#rows.size;
      this.#rows.set(term, row);
      start[row] = offset;
      data.set(run, offset);
      offset += run.length;
    }
    start[runs.size] = offset;
    this.#core.writePostings(start, data);
  }
}
