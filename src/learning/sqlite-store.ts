/**
 * Learned rows in a SQLite file beside the index snapshots (`<indexCacheDir>/learned.sqlite`),
 * with the folder rules of the index cache (cache-folder.ts): the folder is used only when no
 * one else can write it, the file only when it is a regular file of ours (not a link), and it
 * is written atomically (a temp file in the same folder, then rename), so a reader sees a whole
 * database or the previous one.
 *
 * SQLite runs in WASM without a file system, so the database is built in memory and serialised
 * (sqlite3_js_db_export) to the file, and a file is read by sqlite3_deserialize on a connection
 * that runs nothing from it (views, triggers off, a deadline: fts5-snapshot-guard.ts) and whose
 * schema must be exactly ours. Several processes: `update` takes a lock file naming its holder
 * (broken at once when the holder is gone), reads the file, merges, writes, releases.
 */
import { constants, mkdirSync } from "node:fs";
import { open, readFile, rename, stat, unlink, writeFile, type FileHandle } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileDistrust, folderDistrust, holderState, parseHolder, thisHolder } from "../search/cache-folder.js";
import { guardConnection } from "../search/fts5-snapshot-guard.js";
import { loadSqlite, type Sqlite3Static } from "../search/sqlite-loader.js";
import { printable } from "../search/snapshot-store.js";
import type { LearnedRow } from "./model.js";
import { checkedRows, type LearningStore } from "./store.js";
import { ConfigInvalidError, errorMessage } from "../errors.js";

export const LEARNED_FILE = "learned.sqlite";
const TABLE = "learned";
const SCHEMA_SQL = `CREATE TABLE ${TABLE}(scope TEXT NOT NULL, tool TEXT NOT NULL, term TEXT NOT NULL, count REAL NOT NULL, sessions INTEGER NOT NULL, at REAL NOT NULL, seen TEXT NOT NULL, PRIMARY KEY(scope, tool, term)) WITHOUT ROWID`;
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);
const MAX_FILE_BYTES = 256 * 1024 * 1024;
const LOCK_WAIT_MS = 5_000;
const LOAD_TIMEOUT_MS = 10_000;

export interface SqliteLearningStoreOptions {
  /** The folder (created mode 0700 if missing); not used when others can write it. */
  dir: string;
  /** Where refusals are reported (default process.emitWarning). */
  warn?: (message: string) => void;
}

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

export function sqliteLearningStore(options: SqliteLearningStoreOptions): LearningStore {
  const dir = options.dir;
  const file = path.join(dir, LEARNED_FILE);
  const warn = (message: string) =>
    (options.warn ?? ((m: string) => process.emitWarning(`toolsearch: ${m}`, { code: "TOOLSEARCH_LEARNING" })))(printable(message));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const reported = new Set<string>();

  const distrust = async (): Promise<string | undefined> => {
    const why = await stat(dir).then(
      (info) => folderDistrust(dir, info),
      (error: unknown) => `${dir} cannot be read (${codeOf(error) ?? String(error)})`,
    );
    if (why !== undefined && !reported.has(why)) {
      reported.add(why);
      warn(`learning folder not used: ${why}; what is learned stays in memory`);
    }
    return why;
  };

  const read = async (): Promise<LearnedRow[]> => {
    if ((await distrust()) !== undefined) return [];
    let handle: FileHandle;
    try {
      handle = await open(file, READ_FLAGS);
    } catch (error) {
      if (codeOf(error) !== "ENOENT")
        warn(`learned store ${file} not read: ${codeOf(error) === "ELOOP" ? "a symbolic link" : (codeOf(error) ?? String(error))}`);
      return [];
    }
    let bytes: Buffer;
    try {
      const info = await handle.stat();
      const foreign = fileDistrust(info) ?? (info.size > MAX_FILE_BYTES ? `${info.size} bytes, over ${MAX_FILE_BYTES}` : undefined);
      if (foreign !== undefined) {
        warn(`learned store ${file} not read: ${foreign}`);
        return [];
      }
      bytes = Buffer.alloc(info.size);
      const { bytesRead } = await handle.read(bytes, 0, info.size, 0);
      bytes = bytes.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    if (bytes.length === 0) return [];
    try {
      return decode(await loadSqlite(), bytes);
    } catch (error) {
      // A torn or foreign file: what it held is lost, learning goes on from what this process knows.
      warn(`learned store ${file} not usable (${errorMessage(error)}); starting from memory`);
      return [];
    }
  };

  const write = async (rows: readonly LearnedRow[]): Promise<boolean> => {
    const bytes = encode(await loadSqlite(), rows);
    const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      await writeFile(temp, bytes, { flag: "wx", mode: 0o600 });
      await rename(temp, file);
      return true;
    } catch (error) {
      await unlink(temp).catch(() => {});
      warn(`learned store ${file} not written: ${errorMessage(error)}`);
      return false;
    }
  };

  return {
    kind: "sqlite",
    load: read,
    async update(merge) {
      if ((await distrust()) !== undefined) return false;
      const release = await lock(`${file}.lock`, warn);
      if (release === undefined) return false;
      try {
        return await write(merge(await read()));
      } finally {
        await release();
      }
    },
  };
}

/** rows → a serialised database. */
function encode(sqlite3: Sqlite3Static, rows: readonly LearnedRow[]): Uint8Array {
  const db = new sqlite3.oo1.DB(":memory:");
  try {
    db.exec(SCHEMA_SQL);
    db.exec("BEGIN");
    const insert = db.prepare(`INSERT OR REPLACE INTO ${TABLE}(scope, tool, term, count, sessions, at, seen) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    try {
      for (const r of rows) insert.bind([r.scope, r.tool, r.term, r.count, r.sessions, r.at, JSON.stringify(r.seen)]).stepReset();
    } finally {
      insert.finalize();
    }
    db.exec("COMMIT");
    return sqlite3.capi.sqlite3_js_db_export(db);
  } finally {
    db.close();
  }
}

/** A serialised database → rows, reading nothing but our one table, each row checked. */
function decode(sqlite3: Sqlite3Static, bytes: Uint8Array): LearnedRow[] {
  const { capi, wasm } = sqlite3;
  const db = new sqlite3.oo1.DB(":memory:");
  try {
    const guard = guardConnection(sqlite3, db, LOAD_TIMEOUT_MS);
    // A plain Uint8Array copy: the WASM heap helpers do not take a Buffer.
    const pointer = wasm.allocFromTypedArray(new Uint8Array(bytes));
    const rc = capi.sqlite3_deserialize(
      db,
      "main",
      pointer,
      bytes.byteLength,
      bytes.byteLength,
      capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_RESIZEABLE,
    );
    if (rc !== capi.SQLITE_OK) throw new ConfigInvalidError(`sqlite3_deserialize failed: ${capi.sqlite3_js_rc_str(rc)}`);
    const schema = db.selectArrays("SELECT type, name, sql FROM sqlite_schema ORDER BY name") as unknown[][];
    const ours =
      schema.length >= 1 &&
      schema.every(
        (s) => (s[0] === "table" && s[1] === TABLE && s[2] === SCHEMA_SQL) || (s[0] === "index" && s[1] === `sqlite_autoindex_${TABLE}_1` && s[2] === null),
      );
    if (!ours) throw new ConfigInvalidError("not a toolsearch learned store (another schema)");
    const raw = db.selectObjects(`SELECT scope, tool, term, count, sessions, at, seen FROM ${TABLE}`) as Array<Record<string, unknown>>;
    guard.release();
    return checkedRows(raw.map((r) => ({ ...r, seen: parseSeen(r.seen) })));
  } finally {
    db.close();
  }
}

function parseSeen(value: unknown): unknown {
  if (typeof value !== "string" || value.length > 8_192) return [];
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return [];
  }
}

/** The lock file, taken with our holder in it; undefined when another live process kept it past LOCK_WAIT_MS. */
async function lock(lockFile: string, warn: (message: string) => void): Promise<(() => Promise<void>) | undefined> {
  const me = await thisHolder();
  const text = JSON.stringify(me);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await writeFile(lockFile, text, { flag: "wx", mode: 0o600 });
      return async () => {
        const holder = await readFile(lockFile, "utf8").then(parseHolder, () => undefined);
        if (holder !== undefined && holder.pid === me.pid && holder.host === me.host) await unlink(lockFile).catch(() => {});
      };
    } catch (error) {
      if (codeOf(error) !== "EEXIST") {
        warn(`learned store lock ${lockFile} not taken: ${codeOf(error) ?? String(error)}`);
        return undefined;
      }
    }
    const held = await readFile(lockFile, "utf8").catch(() => undefined);
    const holder = held === undefined ? undefined : parseHolder(held);
    // A lock being written names no holder for a moment; one that never does is broken at the deadline.
    const state = holder === undefined ? undefined : (await holderState(holder)).state;
    if (state === "gone" || (Date.now() >= deadline && state !== "alive")) {
      await unlink(lockFile).catch(() => {});
      continue;
    }
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
