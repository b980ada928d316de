/**
 * The FTS5 schema of the default backend. Columns hold pre-analysed terms (src/search/analyze.ts),
 * space-separated, so the FTS5 tokenizer only has to split on spaces: `tokenchars '_'` keeps the
 * whole-identifier terms (`get_weather_forecast`) in one token. The same tokenizer reads the
 * quoted query terms, so index and query always agree.
 */

/** Column order matters: the weights below and the INSERT bind by position. */
export const FTS5_COLUMNS = ["name", "ident", "descr", "params", "syn"] as const;

/**
 * BM25 weight per column: a word in the name says most about what a tool does, its id/owner
 * (server, plugin) next, then the description; parameter names and descriptions describe the
 * inputs rather than the tool, so they count least. Tuned on Seal-Tools dev (test/search);
 * the optimum is flat (name 6–15, params 0.5–2 move Recall@5 by < 0.01).
 */
export const FTS5_WEIGHTS: Readonly<Record<(typeof FTS5_COLUMNS)[number], number>> = {
  name: 10,
  ident: 4,
  descr: 3,
  params: 1,
  /** Synonym-group keys of name and id words: a synonym counts, but less than the word typed. */
  syn: 3,
};

export const FTS5_TABLE = "tool_fts";
export const DOCS_TABLE = "tool_docs";
/** Snapshot-only data (the planner's term statistics), written by serialize(). */
export const META_TABLE = "tool_meta";

/**
 * Contentless (`content=''`): the analysed text is never read back, so storing it twice would
 * only double the snapshot; `contentless_delete=1` still allows DELETE by rowid.
 * The docs table maps rowids to tool ids, inside the same database so a snapshot carries it.
 */
export const FTS5_SCHEMA_SQL = `
CREATE VIRTUAL TABLE ${FTS5_TABLE} USING fts5(
  ${FTS5_COLUMNS.join(", ")},
  content='', contentless_delete=1,
  tokenize="unicode61 remove_diacritics 0 tokenchars '_'"
);
INSERT INTO ${FTS5_TABLE}(${FTS5_TABLE}, rank) VALUES('rank', 'bm25(${FTS5_COLUMNS.map((c) => FTS5_WEIGHTS[c].toFixed(1)).join(", ")})');
CREATE TABLE ${DOCS_TABLE}(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE);
CREATE TABLE ${META_TABLE}(key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** Quotes one term as an FTS5 string: the only FTS5 syntax a term can carry is a doubled quote. */
export function quoteFtsTerm(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}
