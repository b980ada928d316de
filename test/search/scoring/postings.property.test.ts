/** PostingStore against a plain Map model: appends (flat pairs, as Bm25fIndex adds docs), rebuilds that renumber or drop docs, snapshots. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PostingStore } from "../../../src/search/scoring/postings.js";

type Model = Map<string, number[]>;
const TERMS = ["a", "b", "c", "d", "e"];

/** Pairs for docs numbered from `first` up, as the callers hand them: flat [doc, tfs, ...] per term. */
function batch(first: number, docs: ReadonlyArray<ReadonlyArray<readonly [string, number]>>): Map<string, number[]> {
  const added = new Map<string, number[]>();
  docs.forEach((terms, i) => {
    for (const [term, tfs] of terms) {
      const run = added.get(term) ?? [];
      if (!added.has(term)) added.set(term, run);
      run.push(first + i, tfs);
    }
  });
  return added;
}

/** The same docs appended as Bm25fIndex does: pair by pair in doc order, each with its term's row (new terms after the store's). */
function appendDocs(store: PostingStore, first: number, docs: ReadonlyArray<ReadonlyArray<readonly [string, number]>>): void {
  const newTerms: string[] = [];
  const rowOf: number[] = [];
  const pairs: number[] = [];
  docs.forEach((terms, i) => {
    for (const [term, tfs] of terms) {
      let row = store.row(term);
      if (row < 0) {
        if (!newTerms.includes(term)) newTerms.push(term);
        row = store.rows + newTerms.indexOf(term);
      }
      rowOf.push(row);
      pairs.push(first + i, tfs);
    }
  });
  store.appendPairs(newTerms, Int32Array.from(rowOf), Int32Array.from(pairs), rowOf.length);
}

function merge(model: Model, added: ReadonlyMap<string, readonly number[]>): void {
  for (const [term, pairs] of added) model.set(term, [...(model.get(term) ?? []), ...pairs]);
}

function contents(store: PostingStore): Model {
  return new Map([...store.entries()].map(([term, pairs]) => [term, [...pairs]]));
}

const docTerms = fc.uniqueArray(fc.tuple(fc.constantFrom(...TERMS), fc.integer({ min: 1, max: 1000 })), { maxLength: 4, selector: ([t]) => t });
const op = fc.oneof(
  fc.record({ kind: fc.constant("append" as const), docs: fc.array(docTerms, { maxLength: 5 }) }),
  fc.record({ kind: fc.constant("rebuild" as const), docs: fc.array(docTerms, { maxLength: 5 }), keep: fc.array(fc.boolean(), { maxLength: 40 }) }),
  fc.record({ kind: fc.constant("snapshot" as const) }),
);

describe("PostingStore (property)", () => {
  it("holds what a Map of arrays would, through appends, renumbering rebuilds and snapshots", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 12 }), (ops) => {
        let store = new PostingStore();
        const model: Model = new Map();
        let docs = 0;
        for (const o of ops) {
          if (o.kind === "append") {
            const added = batch(docs, o.docs);
            appendDocs(store, docs, o.docs);
            docs += o.docs.length;
            merge(model, added);
          } else if (o.kind === "rebuild") {
            // Drop the docs whose `keep` bit is false, close the gaps, then add new docs at the end.
            const numbering: number[] = [];
            let next = 0;
            for (let d = 0; d < docs; d++) numbering.push(o.keep[d] === false ? -1 : next++);
            const added = batch(next, o.docs);
            store.rebuild(added, (doc) => numbering[doc]!);
            for (const [term, pairs] of [...model]) {
              const kept: number[] = [];
              for (let i = 0; i < pairs.length; i += 2) if (numbering[pairs[i]!]! >= 0) kept.push(numbering[pairs[i]!]!, pairs[i + 1]!);
              if (kept.length > 0) model.set(term, kept);
              else model.delete(term);
            }
            merge(model, added);
            docs = next + o.docs.length;
          } else {
            const { terms, start, data } = store.export();
            store = PostingStore.import(terms, start, data);
          }
          expect(contents(store)).toEqual(model);
          for (const term of [...TERMS, "absent"]) {
            expect(store.df(term)).toBe((model.get(term)?.length ?? 0) / 2);
            expect(store.row(term) >= 0).toBe(model.has(term));
          }
          for (const pairs of model.values()) for (let i = 2; i < pairs.length; i += 2) expect(pairs[i]!).toBeGreaterThan(pairs[i - 2]!);
        }
      }),
    );
  });

  it("refuses a malformed snapshot", () => {
    expect(() => PostingStore.import(["a"], new Int32Array([0, 2]), new Int32Array(4))).toThrow(/malformed/);
    expect(() => PostingStore.import(["a"], new Int32Array([0, 1]), new Int32Array(1))).toThrow(/malformed/);
  });
});
