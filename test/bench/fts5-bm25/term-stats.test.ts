/** TermStatsTable against counting by hand: docs per term in any field and in name/ident, through adds, removes and JSON. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AnalyzedDoc } from "../../../src/search/analysis/analyze.js";
import { TermStatsTable } from "../../../bench/lib/fts5-bm25/term-stats.js";

const field = fc.array(fc.constantFrom("get", "issue", "stock", "syn__1"), { maxLength: 4 });
const doc: fc.Arbitrary<AnalyzedDoc> = fc.record({ name: field, ident: field, description: field, params: field, synonyms: field });

function count(docs: readonly AnalyzedDoc[], term: string): { all: number; named: number } {
  const named = docs.filter((d) => d.name.includes(term) || d.ident.includes(term)).length;
  const all = docs.filter((d) => Object.values(d).some((terms: readonly string[]) => terms.includes(term))).length;
  return { all, named };
}

describe("TermStatsTable", () => {
  it("counts docs (not occurrences) per term; removing a doc undoes its add; JSON keeps the counts (property)", () => {
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 12 }), fc.array(fc.boolean(), { maxLength: 12 }), (docs, removed) => {
        const table = new TermStatsTable();
        for (const d of docs) table.add(d);
        docs.forEach((d, i) => removed[i] && table.remove(d));
        const kept = docs.filter((_, i) => !removed[i]);
        const restored = TermStatsTable.fromJSON(table.toJSON());
        for (const term of ["get", "issue", "stock", "syn__1", "absent"]) {
          expect(table.get(term)).toEqual(count(kept, term));
          expect(restored.get(term)).toEqual(count(kept, term));
        }
      }),
    );
  });

  it("refuses JSON that is not its rows", () => {
    expect(() => TermStatsTable.fromJSON("{}")).toThrow(/expected an array/);
    expect(() => TermStatsTable.fromJSON("[[1, 2, 3]]")).toThrow(/bad row/);
  });
});
