/**
 * FTS5's own ranking, kept as the benches' baseline: SQLite FTS5 (in WASM) ranks with bm25()
 * and the column weights of schema.ts. It was the default ranking before BM25F (src/search/scoring/bm25f.ts),
 * which bm25() cannot express (one saturation shared by all columns); the relevance bench's
 * "fts5 −bm25f (bm25())" row and the search bench's "fts5 bm25()" latency row measure it.
 *
 * FTS5 generates the candidates here, so each query is planned to bound its cost
 * (query-plan.ts, from the document frequencies of term-stats.ts), and a policy filter widens a
 * top-n until it has its k allowed hits (collect-allowed.ts). No snapshot: the benches build it fresh.
 * A baseline backend built from the engine's analysis and SQLite loader on purpose: imports src/search/, src/errors.ts directly.
 */
import type { Database, PreparedStatement } from "@sqlite.org/sqlite-wasm";
import { IndexClosedError } from "../../../src/errors.js";
import { analyzeDoc, analyzeQuery } from "../../../src/search/analysis/analyze.js";
import { loadSqlite } from "../../../src/search/backends/sqlite-loader.js";
import type { BackendHit, BackendSearchOptions, SearchBackend, SearchBackendFactory, SearchDoc } from "../../../src/index.js";
import { collectAllowed } from "./collect-allowed.js";
import { planQuery } from "./query-plan.js";
import { FTS5_SCHEMA_SQL, FTS5_TABLE } from "./schema.js";
import { TermStatsTable } from "./term-stats.js";

interface Statements {
  insert: PreparedStatement;
  delete: PreparedStatement;
  search: PreparedStatement;
}

class Fts5Bm25Backend implements SearchBackend {
  readonly kind = "fts5-bm25";
  #db: Database | undefined;
  readonly #statements: Statements;
  readonly #rowidById = new Map<string, number>();
  readonly #idByRowid = new Map<number, string>();
  /** Docs as added, so that remove() can un-count their terms. */
  readonly #docs = new Map<string, SearchDoc>();
  /** The query planner's document frequencies. */
  readonly #stats = new TermStatsTable();
  #nextRowid = 1;

  /** Takes an open database with the schema; use `fts5Bm25Backend.create()`. */
  constructor(db: Database) {
    this.#db = db;
    // Prepared once: compiling SQL costs more than running these small statements.
    this.#statements = {
      insert: db.prepare(`INSERT INTO ${FTS5_TABLE}(rowid, name, ident, descr, params, syn) VALUES (?, ?, ?, ?, ?, ?)`),
      delete: db.prepare(`DELETE FROM ${FTS5_TABLE} WHERE rowid = ?`),
      search: db.prepare(`SELECT rowid, rank FROM ${FTS5_TABLE} WHERE ${FTS5_TABLE} MATCH ? ORDER BY rank, rowid LIMIT ?`),
    };
  }

  get size(): number {
    return this.#rowidById.size;
  }

  /** Adds docs in one transaction; a doc whose id is already indexed replaces it. */
  add(docs: readonly SearchDoc[]): void {
    this.#open().transaction(() => {
      for (const doc of docs) {
        this.#removeOne(doc.id);
        const a = analyzeDoc(doc);
        const rowid = this.#nextRowid++;
        const columns = [a.name, a.ident, a.description, a.params, a.synonyms].map((terms) => terms.join(" "));
        this.#statements.insert.bind([rowid, ...columns]).stepReset();
        this.#rowidById.set(doc.id, rowid);
        this.#idByRowid.set(rowid, doc.id);
        this.#docs.set(doc.id, doc);
        this.#stats.add(a);
      }
    });
  }

  /** Removes docs by id; unknown ids are ignored. */
  remove(ids: readonly string[]): void {
    this.#open().transaction(() => {
      for (const id of ids) this.#removeOne(id);
    });
  }

  #removeOne(id: string): void {
    const rowid = this.#rowidById.get(id);
    const doc = this.#docs.get(id);
    if (rowid === undefined || doc === undefined) return;
    this.#statements.delete.bind([rowid]).stepReset();
    this.#rowidById.delete(id);
    this.#idByRowid.delete(rowid);
    this.#docs.delete(id);
    this.#stats.remove(analyzeDoc(doc));
  }

  search(query: string, options: BackendSearchOptions): BackendHit[] {
    this.#open();
    const limit = Math.floor(options.limit);
    if (!(limit > 0) || this.size === 0) return [];
    const terms = analyzeQuery(query).flatMap((t) => [t.term, ...t.synonymKeys]);
    if (terms.length === 0) return [];
    const plan = planQuery(terms, (term) => this.#stats.get(term), this.size);
    return collectAllowed(limit, this.size, options.allowed, (n) => {
      const hits = this.#topN(plan.planned, n);
      // Too few rows from the bounded expression: the full one decides (see query-plan.ts).
      return plan.pruned && hits.length < n ? this.#topN(plan.full, n) : hits;
    });
  }

  /** The best n matches, best first. Scores are negated FTS5 ranks, so higher is better. */
  #topN(match: string, n: number): BackendHit[] {
    const hits: BackendHit[] = [];
    const stmt = this.#statements.search;
    try {
      stmt.bind([match, n]);
      while (stmt.step()) {
        const id = this.#idByRowid.get(Number(stmt.get(0)));
        if (id !== undefined) hits.push({ id, score: -Number(stmt.get(1)) });
      }
    } finally {
      stmt.reset(true);
    }
    return hits;
  }

  close(): void {
    const db = this.#db;
    if (db === undefined) return;
    this.#db = undefined;
    for (const stmt of Object.values(this.#statements)) stmt.finalize();
    db.close();
  }

  #open(): Database {
    if (this.#db === undefined) throw new IndexClosedError();
    return this.#db;
  }
}

async function create(): Promise<Fts5Bm25Backend> {
  const sqlite3 = await loadSqlite();
  const db = new sqlite3.oo1.DB(":memory:");
  try {
    db.exec(FTS5_SCHEMA_SQL);
    return new Fts5Bm25Backend(db);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** FTS5's bm25() over the analysed columns: the benches' baseline, not an engine backend. */
export const fts5Bm25Backend: SearchBackendFactory = { kind: "fts5-bm25", create };
