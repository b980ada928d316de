/**
 * The default backend: SQLite FTS5 (in WASM), BM25 with per-column weights over terms the
 * shared analyzer produced. One in-memory database per index; the SQLite module itself is
 * shared by the whole thread (wasm/sqlite-loader.ts).
 */
import type { Database, PreparedStatement, Sqlite3Static } from "@sqlite.org/sqlite-wasm";
import { ConfigInvalidError, EngineClosedError } from "../errors.js";
import { loadSqlite } from "../../wasm/sqlite-loader.js";
import { DOCS_TABLE, FTS5_SCHEMA_SQL, FTS5_TABLE, META_TABLE } from "../../wasm/fts5-schema.js";
import { analyzeDoc, analyzeQuery } from "./analyze.js";
import { collectAllowed } from "./collect-allowed.js";
import { planQuery } from "./fts5-query-plan.js";
import { TermStatsTable } from "./term-stats.js";
import type { BackendHit, BackendSearchOptions, SearchBackend, SearchBackendFactory, SearchDoc } from "./types.js";

const TERM_STATS_KEY = "term_stats";

export class Fts5Backend implements SearchBackend {
  readonly kind = "fts5";
  readonly #sqlite3: Sqlite3Static;
  #db: Database | undefined;
  readonly #rowidById = new Map<string, number>();
  readonly #idByRowid = new Map<number, string>();
  /** Docs added through this instance, so remove() can un-count their terms. */
  readonly #docs = new Map<string, SearchDoc>();
  readonly #stats: TermStatsTable;
  #nextRowid = 1;
  // Prepared once: compiling SQL costs more than running these small statements.
  readonly #insertFts: PreparedStatement;
  readonly #insertDoc: PreparedStatement;
  readonly #deleteFts: PreparedStatement;
  readonly #deleteDoc: PreparedStatement;
  readonly #search: PreparedStatement;

  /** Use `fts5Backend.create()` / `.load()`; the constructor takes an open database with the schema. */
  constructor(sqlite3: Sqlite3Static, db: Database) {
    this.#sqlite3 = sqlite3;
    this.#db = db;
    this.#insertFts = db.prepare(`INSERT INTO ${FTS5_TABLE}(rowid, name, ident, descr, params, syn) VALUES (?, ?, ?, ?, ?, ?)`);
    this.#insertDoc = db.prepare(`INSERT INTO ${DOCS_TABLE}(rowid, id) VALUES (?, ?)`);
    this.#deleteFts = db.prepare(`DELETE FROM ${FTS5_TABLE} WHERE rowid = ?`);
    this.#deleteDoc = db.prepare(`DELETE FROM ${DOCS_TABLE} WHERE rowid = ?`);
    this.#search = db.prepare(`SELECT rowid, rank FROM ${FTS5_TABLE} WHERE ${FTS5_TABLE} MATCH ? ORDER BY rank, rowid LIMIT ?`);
    for (const row of db.selectArrays(`SELECT rowid, id FROM ${DOCS_TABLE}`)) {
      const rowid = Number(row[0]);
      const id = String(row[1]);
      this.#rowidById.set(id, rowid);
      this.#idByRowid.set(rowid, id);
      if (rowid >= this.#nextRowid) this.#nextRowid = rowid + 1;
    }
    const saved = db.selectValue(`SELECT value FROM ${META_TABLE} WHERE key = ?`, [TERM_STATS_KEY]);
    this.#stats = typeof saved === "string" ? TermStatsTable.fromJSON(saved) : new TermStatsTable();
  }

  get size(): number {
    return this.#rowidById.size;
  }

  /** Adds docs in one transaction; a doc whose id is already indexed replaces it. */
  add(docs: readonly SearchDoc[]): void {
    const db = this.#open();
    db.transaction(() => {
      for (const doc of docs) {
        this.#removeOne(doc.id);
        const a = analyzeDoc(doc);
        const rowid = this.#nextRowid++;
        this.#insertFts
          .bind([rowid, a.name.join(" "), a.ident.join(" "), a.description.join(" "), a.params.join(" "), a.synonyms.join(" ")])
          .stepReset();
        this.#insertDoc.bind([rowid, doc.id]).stepReset();
        this.#rowidById.set(doc.id, rowid);
        this.#idByRowid.set(rowid, doc.id);
        this.#docs.set(doc.id, doc);
        this.#stats.add(a);
      }
    });
  }

  /** Removes docs by id; unknown ids are ignored. */
  remove(ids: readonly string[]): void {
    const db = this.#open();
    db.transaction(() => {
      for (const id of ids) this.#removeOne(id);
    });
  }

  #removeOne(id: string): void {
    const rowid = this.#rowidById.get(id);
    if (rowid === undefined) return;
    this.#deleteFts.bind([rowid]).stepReset();
    this.#deleteDoc.bind([rowid]).stepReset();
    this.#rowidById.delete(id);
    this.#idByRowid.delete(rowid);
    const doc = this.#docs.get(id);
    if (doc !== undefined) {
      this.#docs.delete(id);
      this.#stats.remove(analyzeDoc(doc));
    }
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
      // Too few rows from the bounded expression: the full one decides (see fts5-query-plan.ts).
      return plan.pruned && hits.length < n ? this.#topN(plan.full, n) : hits;
    });
  }

  /** The best n matches, best first. Scores are negated FTS5 ranks, so higher is better. */
  #topN(match: string, n: number): BackendHit[] {
    const hits: BackendHit[] = [];
    const stmt = this.#search;
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

  /** The whole database (index, id map and term statistics) in SQLite's serialization format. */
  serialize(): Uint8Array {
    const db = this.#open();
    db.exec({ sql: `INSERT OR REPLACE INTO ${META_TABLE}(key, value) VALUES (?, ?)`, bind: [TERM_STATS_KEY, this.#stats.toJSON()] });
    return this.#sqlite3.capi.sqlite3_js_db_export(db);
  }

  close(): void {
    const db = this.#db;
    if (db === undefined) return;
    this.#db = undefined;
    for (const stmt of [this.#insertFts, this.#insertDoc, this.#deleteFts, this.#deleteDoc, this.#search]) stmt.finalize();
    db.close();
  }

  #open(): Database {
    if (this.#db === undefined) throw new EngineClosedError();
    return this.#db;
  }
}

async function create(): Promise<Fts5Backend> {
  const sqlite3 = await loadSqlite();
  const db = new sqlite3.oo1.DB(":memory:");
  try {
    db.exec(FTS5_SCHEMA_SQL);
    return new Fts5Backend(sqlite3, db);
  } catch (error) {
    db.close();
    throw error;
  }
}

async function load(snapshot: Uint8Array): Promise<Fts5Backend> {
  const sqlite3 = await loadSqlite();
  const { capi, wasm } = sqlite3;
  const db = new sqlite3.oo1.DB(":memory:");
  try {
    if (snapshot.byteLength === 0) throw new Error("the snapshot is empty");
    // The buffer must come from sqlite3_malloc (wasm.alloc is that here) because FREEONCLOSE
    // hands it to SQLite, which frees it with the database and may grow it (RESIZEABLE).
    const pointer = wasm.allocFromTypedArray(snapshot);
    const rc = capi.sqlite3_deserialize(
      db,
      "main",
      pointer,
      snapshot.byteLength,
      snapshot.byteLength,
      capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_RESIZEABLE,
    );
    // On failure SQLite has already freed the buffer (FREEONCLOSE), so no dealloc here.
    if (rc !== capi.SQLITE_OK) throw new Error(`sqlite3_deserialize failed: ${capi.sqlite3_js_rc_str(rc)}`);
    return new Fts5Backend(sqlite3, db);
  } catch (error) {
    db.close();
    throw new ConfigInvalidError(
      `backend "fts5": the index snapshot could not be loaded (${error instanceof Error ? error.message : String(error)}); rebuild the index.`,
      { cause: error },
    );
  }
}

/** The default backend: SQLite FTS5 in WASM. */
export const fts5Backend: SearchBackendFactory = { kind: "fts5", create, load };
