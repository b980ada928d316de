/**
 * Plans the FTS5 MATCH expression for a query's terms so that its cost stays bounded.
 *
 * Ranking with bm25() costs time for every matching row (`dist/bench/search/main.js --natural`), and an
 * OR query matches every doc holding any of its words: "get stock price" touches ~5,000 of
 * 10,000 tools for the sake of "get". So a term found in more than COMMON_TERM_DOCS docs is
 * only matched in names and ids (where a common word still says something: `create_issue`
 * for "create github issue"), or left out when it is common even there. Rare terms always go
 * in whole, and a query made only of common terms still keeps its rarest one.
 *
 * The full expression is kept beside the planned one: when the planned one finds fewer rows
 * than asked for, the backend runs the full one, so a query never returns fewer than k hits
 * when k tools match. The price: a common word's description hits no longer add to the rank
 * (on Seal-Tools dev: Recall@5 0.87 → 0.86; long queries 2–3× faster).
 */
import { quoteFtsTerm } from "./schema.js";

/** A term in more docs than this is "common" (see above). */
const COMMON_TERM_DOCS = 400;
/**
 * A common term is still matched in names and ids while it is in at most this share of the
 * catalog's names: in a 10,000-tool catalog "create" names ~1,250 tools and still tells
 * `crm_create_contact` from `crm_list_contact`; a word in a quarter of all names says little.
 * (An absolute cap alone dropped such verbs as catalogs grew.)
 */
const NAMED_SHARE = 0.25;

export interface TermStats {
  /** Docs holding the term in any column. */
  all: number;
  /** Docs holding it in the name or id columns. */
  named: number;
}

export interface QueryPlan {
  /** The bounded expression, run first. */
  planned: string;
  /** Every term in every column: run when the planned one matches too few rows. */
  full: string;
  /** Whether planned differs from full. */
  pruned: boolean;
}

/** Columns a common word is still matched in. */
const NAMED_COLUMNS = "{name ident}";

/** Synonym-group keys only live in the `syn` column: no column filter can make them cheaper. */
function isSynonymKey(term: string): boolean {
  return term.startsWith("syn__");
}

export function planQuery(terms: readonly string[], stats: (term: string) => TermStats, docCount = 0, commonTermDocs = COMMON_TERM_DOCS): QueryPlan {
  const namedLimit = Math.max(commonTermDocs, Math.floor(docCount * NAMED_SHARE));
  const unique = [...new Set(terms)];
  const full = unique.map(quoteFtsTerm).join(" OR ");
  const ranked = unique.map((term) => ({ term, ...stats(term) })).sort((a, b) => a.all - b.all);
  const parts: string[] = [];
  let pruned = false;
  for (const { term, all, named } of ranked) {
    if (all === 0) continue; // in no doc: matches nothing either way
    if (all <= commonTermDocs) {
      parts.push(quoteFtsTerm(term));
      continue;
    }
    const filterable = !isSynonymKey(term) && named > 0 && named < all;
    const onlyNamed = !isSynonymKey(term) && named === all;
    if (parts.length === 0) {
      // Only common terms: keep the rarest, in its cheapest form.
      parts.push(filterable ? `${NAMED_COLUMNS} : ${quoteFtsTerm(term)}` : quoteFtsTerm(term));
      pruned ||= filterable;
      continue;
    }
    pruned = true;
    if (named > namedLimit) continue;
    if (filterable) parts.push(`${NAMED_COLUMNS} : ${quoteFtsTerm(term)}`);
    else if (onlyNamed) parts.push(quoteFtsTerm(term));
  }
  if (!pruned || parts.length === 0) return { planned: full, full, pruned: false };
  return { planned: parts.join(" OR "), full, pruned: true };
}
