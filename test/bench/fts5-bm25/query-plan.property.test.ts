/**
 * The FTS5 query plan on random small catalogs, run by real SQLite FTS5 and checked against a
 * brute-force scan of the docs: the full expression matches exactly the docs holding a query
 * term; the planned one matches a subset, never nothing when something matches, and every doc
 * holding a rare term; and the backend's rule (planned first, full when it finds fewer than n)
 * gives min(n, full matches) hits, the full ranking itself whenever nothing was pruned.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@sqlite.org/sqlite-wasm";
import { FTS5_COLUMNS, FTS5_SCHEMA_SQL, FTS5_TABLE } from "../../../bench/lib/fts5-bm25/schema.js";
import { loadSqlite } from "../../../src/search/backends/sqlite-loader.js";
import { planQuery, type TermStats } from "../../../bench/lib/fts5-bm25/query-plan.js";

const WORDS = ["get", "list", "issue", "stock", "price", "weather", "create_issue", 'a"b'];
const SYN = ["syn__1", "syn__2"];
type Doc = Record<(typeof FTS5_COLUMNS)[number], string[]>;

const column = (vocabulary: string[]) => fc.uniqueArray(fc.constantFrom(...vocabulary), { maxLength: 3 });
const doc: fc.Arbitrary<Doc> = fc.record({ name: column(WORDS), ident: column(WORDS), descr: column(WORDS), params: column(WORDS), syn: column(SYN) });
const scenario = fc.record({
  docs: fc.array(doc, { minLength: 1, maxLength: 24 }),
  query: fc.array(fc.constantFrom(...WORDS, ...SYN, "absent"), { minLength: 1, maxLength: 5 }),
  // Small thresholds, so that small catalogs have common terms.
  commonTermDocs: fc.integer({ min: 0, max: 6 }),
  n: fc.integer({ min: 1, max: 10 }),
});

const holds = (d: Doc, term: string, columns: readonly (keyof Doc)[] = FTS5_COLUMNS): boolean => columns.some((c) => d[c].includes(term));

let db: Database;
beforeAll(async () => {
  const sqlite3 = await loadSqlite();
  db = new sqlite3.oo1.DB(":memory:");
  db.exec(FTS5_SCHEMA_SQL);
});
afterAll(() => db?.close());

function load(docs: readonly Doc[]): void {
  db.exec(`DELETE FROM ${FTS5_TABLE}`);
  docs.forEach((d, i) =>
    db.exec({
      sql: `INSERT INTO ${FTS5_TABLE}(rowid, ${FTS5_COLUMNS.join(", ")}) VALUES (?, ?, ?, ?, ?, ?)`,
      bind: [i + 1, ...FTS5_COLUMNS.map((c) => d[c].join(" "))],
    }),
  );
}

/** Rowids (0-based doc indexes) matching `expression`, best first, at most `n` (all when undefined). */
function top(expression: string, n = -1): number[] {
  return db
    .selectArrays(`SELECT rowid FROM ${FTS5_TABLE} WHERE ${FTS5_TABLE} MATCH ? ORDER BY rank, rowid LIMIT ?`, [expression, n])
    .map((row) => Number(row[0]) - 1);
}

describe("planQuery on random catalogs (property, SQLite FTS5)", () => {
  it("planned ⊆ full = brute force; rare terms kept whole; planned-then-full ranks like full when not pruned", () => {
    let prunedRuns = 0;
    fc.assert(
      fc.property(scenario, ({ docs, query, commonTermDocs, n }) => {
        load(docs);
        const stats = (term: string): TermStats => ({
          all: docs.filter((d) => holds(d, term)).length,
          named: docs.filter((d) => holds(d, term, ["name", "ident"])).length,
        });
        const plan = planQuery(query, stats, docs.length, commonTermDocs);
        if (plan.pruned) prunedRuns++;
        const oracle = docs.flatMap((d, i) => (query.some((t) => holds(d, t)) ? [i] : []));
        const full = top(plan.full);
        const planned = top(plan.planned);

        expect([...full].sort((a, b) => a - b)).toEqual(oracle);
        for (const i of planned) expect(oracle).toContain(i);
        expect(planned.length > 0).toBe(oracle.length > 0);
        // Rare terms are kept whole: every doc holding one is in the plan.
        const rare = query.filter((term) => stats(term).all > 0 && stats(term).all <= commonTermDocs);
        const holdingRare = docs.flatMap((d, i) => (rare.some((term) => holds(d, term)) ? [i] : []));
        expect(planned).toEqual(expect.arrayContaining(holdingRare));
        // Not pruned: the plan is the full expression itself.
        expect(plan.pruned || plan.planned === plan.full).toBe(true);

        // The backend's rule (bench/lib/fts5-bm25/backend.ts search): planned first, the full expression when too few.
        const first = top(plan.planned, n);
        const hits = plan.pruned && first.length < n ? top(plan.full, n) : first;
        expect(hits).toHaveLength(Math.min(n, oracle.length));
        expect(new Set(hits).size).toBe(hits.length);
        expect(plan.pruned ? top(plan.full, n) : hits).toEqual(top(plan.full, n));
      }),
      { numRuns: 200 },
    );
    expect(prunedRuns).toBeGreaterThan(20); // the plan was exercised, not just the full expression
  });
});
