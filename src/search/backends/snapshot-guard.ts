/**
 * Opening a SQLite snapshot from disk so that nothing in it runs: a database file can carry SQL
 * (views, triggers, virtual tables of other modules, CHECK and DEFAULT expressions), and a view
 * with a recursive query hangs whoever reads it. So, before the first statement:
 * - the connection refuses views and triggers outright, treats the schema as untrusted (no
 *   function with side effects from it) and is defensive (no writable schema);
 * - every statement is interrupted past a deadline (a progress handler), so that even SQLite's
 *   own work on a hostile file (a huge schema, a deep b-tree) is bounded in time;
 * and before any table is read, the schema (sqlite_schema: every table, index, view and
 * trigger with its SQL text) must be exactly that of a fresh database with SNAPSHOT_SCHEMA_SQL:
 * one plain table, so no virtual table (FTS5's or another module's) is ever opened. Reading
 * sqlite_schema parses the CREATE statements but runs none of them.
 */
import type { Database, Sqlite3Static } from "@sqlite.org/sqlite-wasm";
import { SNAPSHOT_SCHEMA_SQL } from "./snapshot-schema.js";
import { ConfigInvalidError, InternalError } from "../../errors.js";

export const DEFAULT_LOAD_TIMEOUT_MS = 10_000;
/** VM steps between two deadline checks: a few microseconds of work. */
const PROGRESS_STEPS = 1_000;

const SCHEMA_SQL = "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema ORDER BY name";

export interface SqlGuard {
  /** Removes the deadline (the connection keeps refusing views and triggers). */
  release(): void;
}

export function guardConnection(sqlite3: Sqlite3Static, db: Database, timeoutMs: number): SqlGuard {
  const { capi } = sqlite3;
  const settings = [
    [capi.SQLITE_DBCONFIG_DEFENSIVE, 1, "defensive"],
    [capi.SQLITE_DBCONFIG_ENABLE_VIEW, 0, "views off"],
    [capi.SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, "triggers off"],
    [capi.SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "untrusted schema"],
  ] as const;
  for (const [op, value, what] of settings) {
    // A build without the setting cannot open an untrusted file safely: refuse rather than hope (the SQLite we ship has them all: INTERNAL).
    if (capi.sqlite3_db_config(db, op, value, 0) !== capi.SQLITE_OK) throw new InternalError(`SQLite refused "${what}"`);
  }
  const deadline = performance.now() + timeoutMs;
  capi.sqlite3_progress_handler(db, PROGRESS_STEPS, () => (performance.now() > deadline ? 1 : 0), 0);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      capi.sqlite3_progress_handler(db, 0, 0, 0);
    },
  };
}

let expected: string | undefined;

/** The schema a database made by SNAPSHOT_SCHEMA_SQL has, with this SQLite. */
function expectedSchema(sqlite3: Sqlite3Static): string {
  if (expected === undefined) {
    const db = new sqlite3.oo1.DB(":memory:");
    try {
      db.exec(SNAPSHOT_SCHEMA_SQL);
      expected = JSON.stringify(db.selectArrays(SCHEMA_SQL));
    } finally {
      db.close();
    }
  }
  return expected;
}

/** Throws unless the snapshot's schema is exactly the engine's own. */
export function checkSchema(sqlite3: Sqlite3Static, db: Database): void {
  const rows = db.selectArrays(SCHEMA_SQL);
  if (JSON.stringify(rows) !== expectedSchema(sqlite3)) {
    const found = rows.filter((r) => r[0] === "view" || r[0] === "trigger").map((r) => `${String(r[0])} ${JSON.stringify(String(r[1]).slice(0, 40))}`); // quoted: a name may hold a newline
    throw new ConfigInvalidError(`its schema is not the engine's own${found.length > 0 ? ` (it holds ${found.slice(0, 3).join(", ")})` : ""}`);
  }
}
