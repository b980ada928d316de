/**
 * The default backend, "bm25f" (called "fts5" until it stopped ranking with an SQLite FTS5
 * table; that name is refused, engine/options.ts): BM25F (bm25f.ts) over compact postings,
 * scored inside WebAssembly (bm25f-core.ts), in a snapshot that SQLite (in WASM) serialises. FTS5's own bm25() cannot express BM25F (one saturation
 * shared by all columns), and FTS5 generating
 * the candidates cost more than the whole BM25F query (on Seal-Tools' long dev requests an OR
 * of the terms matches thousands of rows); the benches keep it as their baseline
 * (bench/lib/fts5-bm25, `npm run build && node dist/bench/search/main.js --natural`). So no
 * FTS5 row is written: an add is an analysis and a postings update, and SQLite only holds the
 * postings while a snapshot is written or read. The SQLite module itself is shared by the
 * whole thread (sqlite-loader.ts).
 */
import type { Database, Sqlite3Static } from "@sqlite.org/sqlite-wasm";
import { ConfigInvalidError } from "../../errors.js";
import { Bm25fPostingsBackend } from "./bm25f-postings-backend.js";
import { loadedSnapshot } from "./indexed-backend.js";
import { loadSqlite } from "./sqlite-loader.js";
import type { SqlGuard } from "./snapshot-guard.js";
import { META_TABLE, SNAPSHOT_SCHEMA_SQL } from "./snapshot-schema.js";
import { Bm25fIndex, DEFAULT_BM25F, type Bm25fParams, type Bm25fSnapshot } from "../scoring/bm25f.js";
import { makeExpander, type ExpansionOptions } from "../query/query-expansion.js";
import type { SearchBackendFactory, SnapshotExpectation } from "../types.js";

/** BM25F snapshot parts (bm25f.ts Bm25fSnapshot), one row each: text as text, numbers as blobs. */
const BM25F_KEYS = ["ids", "terms", "lengths", "start", "data"] as const;
const bm25fKey = (part: string): string => `bm25f_${part}`;

export interface Bm25fBackendOptions {
  /** Thesaurus and typo expansion of query words; both on by default. */
  expansion?: ExpansionOptions;
  bm25f?: Bm25fParams;
}

/** Made by `bm25fBackend.create()` / `.load()`: the shared BM25F backend, with snapshots. */
export class Bm25fBackend extends Bm25fPostingsBackend {
  readonly kind = "bm25f";

  /**
   * The postings as they are, without SQLite: what the index worker hands back to the main
   * thread (bm25fFromParts), whose SQLite heap then never grows to hold a whole snapshot.
   */
  parts(): Bm25fSnapshot {
    return this.open().toSnapshot();
  }

  /**
   * The BM25F postings in a fresh database, in SQLite's serialization format. SQLite is loaded
   * here, at the first snapshot: an index that is never written to disk never loads it.
   */
  async serialize(): Promise<Uint8Array> {
    const snapshot = this.open().toSnapshot();
    const sqlite3 = await loadSqlite();
    const db = new sqlite3.oo1.DB(":memory:");
    try {
      db.exec(SNAPSHOT_SCHEMA_SQL);
      db.transaction(() => {
        for (const part of BM25F_KEYS) db.exec({ sql: `INSERT INTO ${META_TABLE}(key, value) VALUES (?, ?)`, bind: [bm25fKey(part), snapshot[part]] });
      });
      return sqlite3.capi.sqlite3_js_db_export(db);
    } finally {
      db.close();
    }
  }
}

/** The BM25F parts of a database; throws unless it has all of them. */
function readBm25f(db: Database): Bm25fSnapshot {
  const part = (name: string): unknown => db.selectValue(`SELECT value FROM ${META_TABLE} WHERE key = ?`, [bm25fKey(name)]);
  const [ids, terms, lengths, start, data] = BM25F_KEYS.map(part);
  if (typeof ids === "string" && typeof terms === "string" && lengths instanceof Uint8Array && start instanceof Uint8Array && data instanceof Uint8Array) {
    return { ids, terms, lengths, start, data };
  }
  throw new ConfigInvalidError("the snapshot has no BM25F postings");
}

function makeIndex(options: Bm25fBackendOptions, snapshot?: Bm25fSnapshot): Bm25fIndex {
  const params = options.bm25f ?? DEFAULT_BM25F;
  const expander = makeExpander(options.expansion);
  return snapshot === undefined ? new Bm25fIndex(params, expander) : Bm25fIndex.fromSnapshot(snapshot, params, expander);
}

async function create(options: Bm25fBackendOptions = {}): Promise<Bm25fBackend> {
  return new Bm25fBackend(makeIndex(options));
}

/**
 * The postings of a serialised database. `expect`: the bytes come from disk, so nothing in them
 * may run (guardConnection, checkSchema), the postings must stay in bounds and name exactly the
 * catalog's docs, and (unless `expect.postings` is false) be what the analyzer makes of them.
 */
async function readSnapshot(sqlite3: Sqlite3Static, snapshot: Uint8Array, expect: SnapshotExpectation | undefined): Promise<Bm25fSnapshot> {
  const { capi, wasm } = sqlite3;
  // The checks of a snapshot from disk load with the first one read, not with the package.
  const [{ checkSchema, DEFAULT_LOAD_TIMEOUT_MS, guardConnection }, { checkBm25fBounds, checkBm25fPostings }] = await Promise.all([
    import("./snapshot-guard.js"),
    import("../scoring/bm25f-verify.js"),
  ]);
  const db = new sqlite3.oo1.DB(":memory:");
  let guard: SqlGuard | undefined;
  let postings: Bm25fSnapshot;
  try {
    if (snapshot.byteLength === 0) throw new ConfigInvalidError("the snapshot is empty");
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
    if (rc !== capi.SQLITE_OK) throw new ConfigInvalidError(`sqlite3_deserialize failed: ${capi.sqlite3_js_rc_str(rc)}`);
    if (expect !== undefined) checkSchema(sqlite3, db);
    // Copied out of the WASM heap: the database is done with once they are read.
    postings = readBm25f(db);
  } finally {
    guard?.release();
    db.close();
  }
  if (expect !== undefined) {
    // Deep check: what the ranking reads is what the analyzer makes of these docs (off the SQL deadline).
    if (expect.postings === false) checkBm25fBounds(postings, expect.docs);
    else await checkBm25fPostings(postings, expect.docs);
  }
  return postings;
}

async function load(snapshot: Uint8Array, options: Bm25fBackendOptions = {}, expect?: SnapshotExpectation): Promise<Bm25fBackend> {
  const sqlite3 = await loadSqlite();
  return loadedSnapshot("bm25f", async () => new Bm25fBackend(makeIndex(options, await readSnapshot(sqlite3, snapshot, expect))));
}

/** A backend over postings another thread of this build made (Bm25fBackend.parts): trusted, not checked. */
export async function bm25fFromParts(parts: Bm25fSnapshot): Promise<Bm25fBackend> {
  return new Bm25fBackend(makeIndex({}, parts));
}

/** A bm25f backend factory with non-default BM25F or expansion options (the relevance bench's ablations). */
export function bm25fBackendWith(options: Bm25fBackendOptions): SearchBackendFactory {
  return { kind: "bm25f", create: () => create(options), load: (snapshot, expect) => load(snapshot, options, expect) };
}

/** The default backend: BM25F over postings in the WebAssembly core's memory, snapshots serialised by SQLite in WASM. */
export const bm25fBackend: SearchBackendFactory = {
  kind: "bm25f",
  create: () => create(),
  load: (snapshot, expect) => load(snapshot, {}, expect),
  worker: "bm25f",
};

/**
 * @deprecated renamed bm25fBackend: its name while the default backend ranked with an SQLite
 * FTS5 table. Kept so that code still importing it is told the new name rather than only that
 * the export is gone: building an index with it (`createToolSearch({ backend: fts5Backend })`,
 * or its `create()`) throws CONFIG_INVALID naming bm25fBackend, as `backend: "fts5"` is refused
 * naming "bm25f" (engine/options.ts). Not an alias, so that the rename is seen and made.
 */
export const fts5Backend: SearchBackendFactory = {
  kind: "fts5",
  create: () => {
    throw new ConfigInvalidError(
      'fts5Backend was renamed bm25fBackend (import { bm25fBackend } from "toolsearch"): the same default backend, BM25F scoring, SQLite snapshots, no FTS5 table',
    );
  },
};
