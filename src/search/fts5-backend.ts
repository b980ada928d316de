/**
 * The default backend: SQLite FTS5 (in WASM) holds the analysed terms, and ranking is BM25F
 * (bm25f.ts) over compact JS postings built from the same analysis. FTS5's own bm25() cannot
 * express BM25F (one saturation shared by all columns); the benches keep it as a baseline
 * (bench/lib/fts5-bm25). Nor does FTS5 generate the candidates: on Seal-Tools' long dev requests
 * an OR of the terms matches thousands of rows, and fetching just their rowids from SQLite costs
 * more than the whole BM25F query from the JS postings (`npm run build && node
 * dist/bench/search/main.js --natural` times both). One in-memory database per index; the
 * SQLite module itself is shared by the whole thread (sqlite-loader.ts).
 */
import type { Database, PreparedStatement, Sqlite3Static } from "@sqlite.org/sqlite-wasm";
import { ConfigInvalidError, errorMessage, IndexClosedError } from "../errors.js";
import { loadSqlite } from "./sqlite-loader.js";
import { checkSchema, DEFAULT_LOAD_TIMEOUT_MS, guardConnection, type SqlGuard } from "./fts5-snapshot-guard.js";
import { DOCS_TABLE, FTS5_SCHEMA_SQL, FTS5_TABLE, META_TABLE } from "./fts5-schema.js";
import { analyzeDoc } from "./analyze.js";
import { Bm25fIndex, DEFAULT_BM25F, fieldTerms, type Bm25fParams, type Bm25fSnapshot } from "./bm25f.js";
import { makeExpander, type ExpansionOptions } from "./query-expansion.js";
import { checkBm25fBounds, checkBm25fPostings } from "./bm25f-verify.js";
import type { BackendHit, BackendSearchOptions, CorpusStats, SearchBackend, SearchBackendFactory, SearchDoc, SnapshotExpectation } from "./types.js";

/** BM25F snapshot parts (bm25f.ts Bm25fSnapshot), one row each: text as text, numbers as blobs. */
const BM25F_KEYS = ["ids", "terms", "lengths", "start", "data"] as const;
const bm25fKey = (part: string): string => `bm25f_${part}`;

export interface Fts5Options {
  /** Thesaurus and typo expansion of query words; both on by default. */
  expansion?: ExpansionOptions;
  bm25f?: Bm25fParams;
}

export class Fts5Backend implements SearchBackend {
  readonly kind = "fts5";
  readonly #sqlite3: Sqlite3Static;
  #db: Database | undefined;
  readonly #rowidById = new Map<string, number>();
  readonly #idByRowid = new Map<number, string>();
  readonly #bm25f: Bm25fIndex;
  #nextRowid = 1;
  // Prepared once: compiling SQL costs more than running these small statements.
  readonly #insertFts: PreparedStatement;
  readonly #insertDoc: PreparedStatement;
  readonly #deleteFts: PreparedStatement;
  readonly #deleteDoc: PreparedStatement;

  /**
   * Use `fts5Backend.create()` / `.load()`; the constructor takes an open database with the
   * schema. `expect`: the database is a snapshot from disk, checked against these docs.
   */
  constructor(sqlite3: Sqlite3Static, db: Database, options: Fts5Options = {}, expect?: SnapshotExpectation) {
    this.#sqlite3 = sqlite3;
    this.#db = db;
    this.#insertFts = db.prepare(`INSERT INTO ${FTS5_TABLE}(rowid, name, ident, descr, params, syn) VALUES (?, ?, ?, ?, ?, ?)`);
    this.#insertDoc = db.prepare(`INSERT INTO ${DOCS_TABLE}(rowid, id) VALUES (?, ?)`);
    this.#deleteFts = db.prepare(`DELETE FROM ${FTS5_TABLE} WHERE rowid = ?`);
    this.#deleteDoc = db.prepare(`DELETE FROM ${DOCS_TABLE} WHERE rowid = ?`);
    for (const row of db.selectArrays(`SELECT rowid, id FROM ${DOCS_TABLE}`)) {
      const rowid = Number(row[0]);
      const id = String(row[1]);
      this.#rowidById.set(id, rowid);
      this.#idByRowid.set(rowid, id);
      if (rowid >= this.#nextRowid) this.#nextRowid = rowid + 1;
    }
    if (expect !== undefined) checkDocIds(this.#rowidById, expect.docs);
    this.#bm25f = loadBm25f(db, this.size, options, expect);
  }

  get size(): number {
    return this.#rowidById.size;
  }

  /** Adds docs in one transaction; a doc whose id is already indexed replaces it. */
  add(docs: readonly SearchDoc[]): void {
    const db = this.#open();
    const fields: Array<{ id: string; fields: ReturnType<typeof fieldTerms> }> = [];
    db.transaction(() => {
      for (const doc of docs) {
        this.#removeOne(doc.id);
        const a = analyzeDoc(doc);
        fields.push({ id: doc.id, fields: fieldTerms(doc, a) });
        const rowid = this.#nextRowid++;
        this.#insertFts
          .bind([rowid, a.name.join(" "), a.ident.join(" "), a.description.join(" "), a.params.join(" "), a.synonyms.join(" ")])
          .stepReset();
        this.#insertDoc.bind([rowid, doc.id]).stepReset();
        this.#rowidById.set(doc.id, rowid);
        this.#idByRowid.set(rowid, doc.id);
      }
    });
    this.#bm25f.add(fields);
  }

  /** Removes docs by id; unknown ids are ignored. */
  remove(ids: readonly string[]): void {
    const db = this.#open();
    db.transaction(() => {
      for (const id of ids) this.#removeOne(id);
    });
    this.#bm25f.remove(ids);
  }

  #removeOne(id: string): void {
    const rowid = this.#rowidById.get(id);
    if (rowid === undefined) return;
    this.#deleteFts.bind([rowid]).stepReset();
    this.#deleteDoc.bind([rowid]).stepReset();
    this.#rowidById.delete(id);
    this.#idByRowid.delete(rowid);
  }

  search(query: string, options: BackendSearchOptions): BackendHit[] {
    this.#open();
    return this.#bm25f.search(query, options);
  }

  /** All clauses in one pass: BM25F sums word scores, so the whole request is the sum of its clauses. */
  searchClauses(clauses: readonly string[], options: BackendSearchOptions): BackendHit[][] {
    this.#open();
    return this.#bm25f.searchClauses(clauses, options);
  }

  corpusStats(): CorpusStats | undefined {
    this.#open();
    return this.#bm25f;
  }

  /** The whole database (index, id map, BM25F postings) in SQLite's serialization format. */
  serialize(): Uint8Array {
    const db = this.#open();
    const save = (key: string, value: string | Uint8Array): void => {
      db.exec({ sql: `INSERT OR REPLACE INTO ${META_TABLE}(key, value) VALUES (?, ?)`, bind: [key, value] });
    };
    const snapshot = this.#bm25f.toSnapshot();
    for (const part of BM25F_KEYS) save(bm25fKey(part), snapshot[part]);
    return this.#sqlite3.capi.sqlite3_js_db_export(db);
  }

  close(): void {
    const db = this.#db;
    if (db === undefined) return;
    this.#db = undefined;
    for (const stmt of [this.#insertFts, this.#insertDoc, this.#deleteFts, this.#deleteDoc]) stmt.finalize();
    db.close();
  }

  #open(): Database {
    if (this.#db === undefined) throw new IndexClosedError();
    return this.#db;
  }
}

/**
 * The BM25F postings of a snapshot (or empty ones for a new database). A snapshot with docs
 * but no postings comes from an older build: its text cannot be read back (contentless), so
 * it must be rebuilt.
 */
function loadBm25f(db: Database, size: number, options: Fts5Options, expect: SnapshotExpectation | undefined): Bm25fIndex {
  const params = options.bm25f ?? DEFAULT_BM25F;
  const expander = makeExpander(options.expansion);
  const snapshot = readBm25f(db);
  if (snapshot !== undefined) {
    // The postings themselves are checked by load(), after the SQL (and off the deadline).
    if (expect !== undefined) checkBm25fBounds(snapshot, expect.docs);
    return Bm25fIndex.fromSnapshot(snapshot, params, expander);
  }
  if (size > 0) throw new Error("the snapshot has no BM25F postings");
  return new Bm25fIndex(params, expander);
}

/** The BM25F parts of a database, when it has all of them. */
function readBm25f(db: Database): Bm25fSnapshot | undefined {
  const part = (name: string): unknown => db.selectValue(`SELECT value FROM ${META_TABLE} WHERE key = ?`, [bm25fKey(name)]);
  const [ids, terms, lengths, start, data] = BM25F_KEYS.map(part);
  if (typeof ids === "string" && typeof terms === "string" && lengths instanceof Uint8Array && start instanceof Uint8Array && data instanceof Uint8Array) {
    return { ids, terms, lengths, start, data };
  }
  return undefined;
}

async function create(options: Fts5Options = {}): Promise<Fts5Backend> {
  const sqlite3 = await loadSqlite();
  const db = new sqlite3.oo1.DB(":memory:");
  try {
    db.exec(FTS5_SCHEMA_SQL);
    return new Fts5Backend(sqlite3, db, options);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The id map must name exactly the catalog's docs, each once. */
function checkDocIds(rowidById: ReadonlyMap<string, number>, docs: readonly SearchDoc[]): void {
  if (rowidById.size !== docs.length) throw new Error(`${DOCS_TABLE} holds ${rowidById.size} ids for a catalog of ${docs.length}`);
  for (const doc of docs) if (!rowidById.has(doc.id)) throw new Error(`${DOCS_TABLE} lacks an id of the catalog`);
  for (const rowid of rowidById.values()) if (!Number.isSafeInteger(rowid) || rowid <= 0) throw new Error(`${DOCS_TABLE}: a rowid out of range`);
}

async function load(snapshot: Uint8Array, options: Fts5Options = {}, expect?: SnapshotExpectation): Promise<Fts5Backend> {
  const sqlite3 = await loadSqlite();
  const { capi, wasm } = sqlite3;
  const db = new sqlite3.oo1.DB(":memory:");
  let guard: SqlGuard | undefined;
  let backend: Fts5Backend | undefined;
  try {
    if (snapshot.byteLength === 0) throw new Error("the snapshot is empty");
    // Before a byte of the snapshot is read: no view or trigger can run, no schema is trusted.
    if (expect !== undefined) guard = guardConnection(sqlite3, db, expect.timeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS);
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
    if (expect !== undefined) checkSchema(sqlite3, db);
    backend = new Fts5Backend(sqlite3, db, options, expect);
    // Deep check: what the ranking reads (the BM25F postings) is what the analyzer makes of these docs.
    const postings = expect !== undefined && expect.postings !== false ? readBm25f(db) : undefined;
    guard?.release();
    if (postings !== undefined && expect !== undefined) await checkBm25fPostings(postings, expect.docs);
    return backend;
  } catch (error) {
    guard?.release();
    if (backend !== undefined) backend.close();
    else db.close();
    throw new ConfigInvalidError(
      `backend "fts5": the index snapshot could not be loaded (${errorMessage(error)}); rebuild the index.`,
      { cause: error },
    );
  }
}

/** An FTS5 backend factory with non-default BM25F or expansion options (the relevance bench's ablations). */
export function fts5BackendWith(options: Fts5Options): SearchBackendFactory {
  return { kind: "fts5", create: () => create(options), load: (snapshot, expect) => load(snapshot, options, expect) };
}

/** The default backend: SQLite FTS5 in WASM, ranked by BM25F. */
export const fts5Backend: SearchBackendFactory = { kind: "fts5", create: () => create(), load: (snapshot, expect) => load(snapshot, {}, expect), worker: "fts5" };
