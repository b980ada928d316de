/**
 * The FTS5 schema of the bm25() baseline (backend.ts). Columns hold pre-analysed terms
 * (src/search/analysis/analyze.ts), space-separated, so the FTS5 tokenizer only has to split on spaces:
 * `tokenchars '_'` keeps the whole-identifier terms (`get_weather_forecast`) in one token. The
 * same tokenizer reads the quoted query terms, so index and query always agree.
 * Weighs columns with the engine's own field weights on purpose: imports src/search/backends/ directly.
 */
import { FIELD_WEIGHTS } from "../../../src/search/backends/minisearch-backend.js";

/** Column order matters: the weights and the INSERT bind by position. */
export const FTS5_COLUMNS = ["name", "ident", "descr", "params", "syn"] as const;

export const FTS5_TABLE = "tool_fts";

/**
 * bm25() weighs each column as minisearch weighs its fields (FIELD_WEIGHTS, tuned on Seal-Tools
 * dev when this was the default ranking). Contentless (`content=''`): the analysed text is never
 * read back; `contentless_delete=1` still allows DELETE by rowid.
 */
export const FTS5_SCHEMA_SQL = `
CREATE VIRTUAL TABLE ${FTS5_TABLE} USING fts5(
  ${FTS5_COLUMNS.join(", ")},
  content='', contentless_delete=1,
  tokenize="unicode61 remove_diacritics 0 tokenchars '_'"
);
INSERT INTO ${FTS5_TABLE}(${FTS5_TABLE}, rank) VALUES('rank', 'bm25(${FTS5_COLUMNS.map((c) => FIELD_WEIGHTS[c].toFixed(1)).join(", ")})');
`;

/** Quotes one term as an FTS5 string: the only FTS5 syntax a term can carry is a doubled quote. */
export function quoteFtsTerm(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}
