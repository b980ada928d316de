/**
 * The SQLite schema of the default backend's snapshot (bm25f-backend.ts serialize/load): one
 * key → value table holding the BM25F postings (bm25f.ts Bm25fSnapshot), text parts as text,
 * numbers as blobs. Nothing else: the postings answer every query and carry the ids, so a
 * snapshot needs no FTS5 table and no id map. snapshot-guard.ts refuses any file whose
 * schema is not exactly this one.
 */
export const META_TABLE = "tool_meta";

export const SNAPSHOT_SCHEMA_SQL = `CREATE TABLE ${META_TABLE}(key TEXT PRIMARY KEY, value TEXT NOT NULL);`;
