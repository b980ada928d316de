/**
 * Snapshots planted in the index cache folder by whoever can write it (issue 19, rows 2–3): a
 * valid header (SHA-256 recomputed) proves nothing, so each one must be refused, deleted,
 * reported and rebuilt, promptly, and search must then rank as a fresh build does. Real files in
 * temp folders, the real SQLite WASM engine; the planted databases are made with SQL on an
 * honest snapshot, as an attacker would.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ToolIndexCache } from "../../src/search/storage/index-cache.js";
import { fingerprintDocs } from "../../src/search/storage/fingerprint.js";
import { bm25fBackend } from "../../src/search/backends/bm25f-backend.js";
import { minisearchBackend } from "../../src/search/backends/minisearch-backend.js";
import { guardConnection } from "../../src/search/backends/snapshot-guard.js";
import { loadSqlite } from "../../src/search/backends/sqlite-loader.js";
import { SnapshotStore } from "../../src/search/storage/snapshot-store.js";
import type { SearchDoc } from "../../src/search/types.js";
import type { Database } from "@sqlite.org/sqlite-wasm";
import { CATALOG, doc } from "../contract/backend-contract.js";
import { definedProps } from "../../src/defined.js";

/** The catalog of row 3: swapping read_file's postings with big_result's made "read a file" find big_result. */
const DOCS: readonly SearchDoc[] = [...CATALOG, doc("plugin:dump:big_result", "Return a very large blob of data for load testing")];
const FP = fingerprintDocs(DOCS);
const KEY = "k".repeat(32);

const dirs: string[] = [];
const caches: ToolIndexCache[] = [];
afterEach(async () => {
  for (const c of caches.splice(0)) await c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function folder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-planted-"));
  dirs.push(dir);
  return dir;
}
function cache(dir: string, key?: string): { cache: ToolIndexCache; warnings: string[] } {
  const warnings: string[] = [];
  const c = new ToolIndexCache({ snapshots: { dir, ...definedProps({ key }) }, onWarning: (m) => warnings.push(m) });
  caches.push(c);
  return { cache: c, warnings };
}
const top = (c: ToolIndexCache, q: string) => c.get(DOCS, "bm25f").then((i) => i.search(q, { limit: 3 }).map((h) => h.id));
const snapshots = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".tsidx"));

/** SQL that swaps two ids in the BM25F id list: each id then owns the other's postings. */
const swapIds = (a: string, b: string) =>
  `UPDATE tool_meta SET value = replace(replace(replace(value, '"${a}"', '"@@"'), '"${b}"', '"${a}"'), '"@@"', '"${b}"') WHERE key = 'bm25f_ids';`;

/** What any mismatch between a doc and its postings is reported as. */
const NOT_ITS_OWN = /another length than its analysis|terms where its analysis has|postings that are not its own/;

/** An honest snapshot's payload for DOCS, changed by `change` (SQL, or a function of the open database). */
async function planted(change: string | ((db: Database) => void)): Promise<Uint8Array> {
  const backend = await bm25fBackend.create();
  backend.add(DOCS);
  const honest = await backend.serialize!();
  backend.close!();
  const sqlite3 = await loadSqlite();
  const db = new sqlite3.oo1.DB(":memory:");
  try {
    const pointer = sqlite3.wasm.allocFromTypedArray(honest);
    const flags = sqlite3.capi.SQLITE_DESERIALIZE_FREEONCLOSE | sqlite3.capi.SQLITE_DESERIALIZE_RESIZEABLE;
    expect(sqlite3.capi.sqlite3_deserialize(db, "main", pointer, honest.byteLength, honest.byteLength, flags)).toBe(0);
    if (typeof change === "string") db.exec(change);
    else change(db);
    return sqlite3.capi.sqlite3_js_db_export(db);
  } finally {
    db.close();
  }
}

/** Writes a payload as a valid snapshot of DOCS: header, fingerprint, docs digest and SHA-256 all right (and a MAC with a key). */
async function plant(dir: string, payload: Uint8Array, key?: string): Promise<void> {
  const store = new SnapshotStore({ dir, ...definedProps({ key }) }, () => {});
  expect(await store.write("bm25f", FP, { docs: DOCS.length, docsDigest: fingerprintDocs(DOCS) }, payload)).toEqual({ ok: true });
}

/** The planted snapshot was refused, deleted, reported, and the index rebuilt and written anew. */
async function expectRejected(dir: string, reason: RegExp, key?: string): Promise<void> {
  const { cache: c, warnings } = cache(dir, key);
  expect((await top(c, "read a file"))[0]).toBe("core:read_file");
  expect(c.lastBuild).toMatchObject({ via: "thread", reason: expect.stringMatching(reason) });
  expect(warnings.join("\n")).toMatch(reason);
  // The rebuilt snapshot replaced it: the next process loads that one.
  const { cache: next } = cache(dir, key);
  expect((await top(next, "read a file"))[0]).toBe("core:read_file");
  expect(next.lastBuild?.via).toBe("snapshot");
}

describe("planted snapshots (row 2: SQL in the file)", () => {
  const RECURSIVE = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT 'bm25f_ids' AS key, x AS value FROM c";
  it.each([
    [
      "tool_meta a recursive view",
      `DROP TABLE tool_meta; CREATE VIEW tool_meta(key, value) AS ${RECURSIVE};`,
      /schema is not the engine's own \(it holds view "tool_meta"\)/,
    ],
    ["a trigger on tool_meta", "CREATE TRIGGER t AFTER INSERT ON tool_meta BEGIN DELETE FROM tool_meta; END;", /trigger "t"/],
    [
      "tool_meta another module's virtual table",
      "DROP TABLE tool_meta; CREATE VIRTUAL TABLE tool_meta USING fts5(key, value);",
      /schema is not the engine's own/,
    ],
    ["an extra view beside the engine's tables", `CREATE VIEW spin AS ${RECURSIVE};`, /view "spin"/],
    // The layout before issue 23 (an FTS5 table and an id map beside the postings), under a header forged to pass.
    [
      "an older build's FTS5 table and id map",
      "CREATE VIRTUAL TABLE tool_fts USING fts5(name, content=''); CREATE TABLE tool_docs(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE);",
      /schema is not the engine's own/,
    ],
  ])("%s: refused before any table is read, promptly, and rebuilt", async (_name, sql, reason) => {
    const dir = folder();
    await plant(dir, await planted(sql));
    // No timed assertion: a hang fails on the test's timeout.
    await expectRejected(dir, reason);
  });

  it("a name with a newline in the planted schema cannot forge a log line", async () => {
    const dir = folder();
    await plant(dir, await planted(`CREATE VIEW "x\nWarning: toolsearch: all good" AS SELECT 1;`));
    const { cache: c, warnings } = cache(dir);
    await top(c, "read a file");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toMatch(/\n/);
    expect(warnings[0]).toContain("\\n");
  });

  it("the connection refuses views outright and interrupts SQL past its deadline", async () => {
    const sqlite3 = await loadSqlite();
    const db = new sqlite3.oo1.DB(":memory:");
    try {
      const guard = guardConnection(sqlite3, db, 200);
      expect(() => db.selectValue("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")).toThrow(/interrupt/i);
      guard.release();
      db.exec("CREATE TABLE t(x); CREATE VIEW v AS SELECT x FROM t;");
      expect(() => db.selectValue("SELECT * FROM v")).toThrow();
      expect(db.selectValue("SELECT 1")).toBe(1);
    } finally {
      db.close();
    }
  });
});

describe("planted snapshots (row 3: postings that are not the catalog's)", () => {
  it("two ids' postings swapped, header SHA-256 recomputed: refused, rebuilt, and 'read a file' finds read_file again", async () => {
    const dir = folder();
    const payload = await planted(swapIds("core:read_file", "plugin:dump:big_result"));
    // What the attack did before: loaded without checks, the swapped snapshot ranks big_result first.
    const trusted = await bm25fBackend.load!(payload);
    expect(trusted.search("read a file", { limit: 1 })[0]?.id).toBe("plugin:dump:big_result");
    trusted.close!();
    await plant(dir, payload);
    await expectRejected(dir, NOT_ITS_OWN);
  });

  it("a snapshot of other docs under this catalog's fingerprint: refused by the docs digest", async () => {
    const dir = folder();
    const other = DOCS.map((d) => (d.id === "core:read_file" ? { ...d, description: "Delete every file" } : d));
    const backend = await bm25fBackend.create();
    backend.add(other);
    const store = new SnapshotStore({ dir }, () => {});
    await store.write("bm25f", FP, { docs: other.length, docsDigest: fingerprintDocs(other) }, await backend.serialize!());
    backend.close!();
    await expectRejected(dir, /docs digest mismatch/);
  });

  it("the same, with the digest in its header forged to this catalog's: refused by its postings", async () => {
    const dir = folder();
    const other = DOCS.map((d) => (d.id === "core:read_file" ? { ...d, description: "Delete every file" } : d));
    const backend = await bm25fBackend.create();
    backend.add(other);
    await plant(dir, await backend.serialize!());
    backend.close!();
    await expectRejected(dir, new RegExp(`"core:read_file": .*(${NOT_ITS_OWN.source})`));
  });

  it("an id dropped or added: refused", async () => {
    const dir = folder();
    await plant(dir, await planted(`UPDATE tool_meta SET value = replace(value, '"plugin:dump:big_result"', '"plugin:evil:x"') WHERE key = 'bm25f_ids';`));
    await expectRejected(dir, /not in the catalog/);
  });

  it("a part of the postings deleted: refused", async () => {
    const dir = folder();
    await plant(dir, await planted("DELETE FROM tool_meta WHERE key = 'bm25f_data';"));
    await expectRejected(dir, /no BM25F postings/);
  });

  it("with a key, an authenticated snapshot is not re-analysed, but its postings' bounds still are", async () => {
    const dir = folder();
    // A doc number past the end of the ids: what a query would read out of range.
    const outOfRange = (db: Database): void => {
      const data = db.selectValue("SELECT value FROM tool_meta WHERE key = 'bm25f_data'") as Uint8Array;
      const pairs = new Int32Array(data.slice().buffer);
      pairs[0] = DOCS.length + 1_000;
      db.exec({ sql: "UPDATE tool_meta SET value = ? WHERE key = 'bm25f_data'", bind: [new Uint8Array(pairs.buffer)] });
    };
    await plant(dir, await planted(outOfRange), KEY);
    await expectRejected(dir, /out of order or range/, KEY);
  });

  it("with a key, an honest snapshot written with it loads", async () => {
    const dir = folder();
    const { cache: first } = cache(dir, KEY);
    const expected = await top(first, "send an email");
    const { cache: second, warnings } = cache(dir, KEY);
    expect(await top(second, "send an email")).toEqual(expected);
    expect(second.lastBuild?.via).toBe("snapshot");
    expect(warnings).toEqual([]);
    expect(snapshots(dir)).toHaveLength(1);
  });
});

describe("planted snapshots (minisearch)", () => {
  async function minisearchSnapshot(edit: (index: Record<string, unknown>) => void): Promise<Uint8Array> {
    const backend = await minisearchBackend.create();
    backend.add(DOCS);
    const json = JSON.parse(new TextDecoder().decode(await backend.serialize!())) as { index: Record<string, unknown> };
    edit(json.index);
    return new TextEncoder().encode(JSON.stringify(json));
  }
  const write = (dir: string, payload: Uint8Array) =>
    new SnapshotStore({ dir }, () => {}).write("minisearch", FP, { docs: DOCS.length, docsDigest: fingerprintDocs(DOCS) }, payload);
  const first = (c: ToolIndexCache) => c.get(DOCS, "minisearch").then((i) => i.search("read a file", { limit: 1 })[0]?.id);

  it("an honest one loads; one with two docs' ids swapped is refused and rebuilt", async () => {
    const dir = folder();
    await write(dir, await minisearchSnapshot(() => {}));
    const { cache: honest, warnings } = cache(dir);
    expect(await first(honest)).toBe("core:read_file");
    expect(honest.lastBuild?.via).toBe("snapshot");
    expect(warnings).toEqual([]);
    await write(
      dir,
      await minisearchSnapshot((index) => {
        const ids = index.documentIds as Record<string, string>;
        const a = Object.keys(ids).find((k) => ids[k] === "core:read_file")!;
        const b = Object.keys(ids).find((k) => ids[k] === "plugin:dump:big_result")!;
        [ids[a], ids[b]] = [ids[b]!, ids[a]!];
      }),
    );
    const { cache: next, warnings: reported } = cache(dir);
    expect(await first(next)).toBe("core:read_file");
    expect(next.lastBuild).toMatchObject({
      via: "thread",
      reason: expect.stringMatching(/another length than its analysis|another number of terms|postings that are not its own/),
    });
    expect(reported).toHaveLength(1);
  });

  it("a posting of a doc that does not exist is refused", async () => {
    const dir = folder();
    await write(dir, await minisearchSnapshot((index) => (index.index as unknown[]).push(["zzz", { 0: { 999: 1 } }])));
    const { cache: c } = cache(dir);
    await first(c);
    expect(c.lastBuild?.reason).toMatch(/unknown doc/);
  });
});
