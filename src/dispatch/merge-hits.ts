/**
 * One ranked list from a run's two indexes: the shared catalog's and the run's client tools'.
 * Exact name/id matches (EXACT_SCORE) of either come first.
 */
import { EXACT_SCORE } from "../search/tool-index.js";
import type { BackendHit } from "../search/types.js";

export type RankedHit = BackendHit & { relative: number };

/**
 * `comparable`: both lists were scored by one formula with one set of corpus statistics (the
 * client index ranked with the catalog's, see rank-request.ts mergedHits), so raw scores merge
 * directly and a better-matching client tool outranks catalog tools. Otherwise (a catalog
 * backend without BM25F statistics) each list can only be scaled by its own best score.
 * `relative` is what the model sees: 1 for an exact match, else score over the best score.
 */
export function mergeHits(catalog: readonly BackendHit[], client: readonly BackendHit[], limit: number, comparable: boolean): RankedHit[] {
  if (!comparable) return mergeByOwnBest(catalog, client, limit);
  // Stable sort: on equal scores the catalog's hits, then the client's, each in its own order.
  const merged = [...catalog, ...client].sort((x, y) => y.score - x.score).slice(0, limit);
  const best = Math.max(...merged.filter((h) => h.score < EXACT_SCORE).map((h) => h.score), Number.EPSILON);
  return merged.map((h) => ({ ...h, relative: h.score >= EXACT_SCORE ? 1 : h.score / best }));
}

/** Each list scaled by its own best score: a fallback that cannot say which list matches better. */
function mergeByOwnBest(a: readonly BackendHit[], b: readonly BackendHit[], limit: number): RankedHit[] {
  // Every list of every search passes here (a run without client tools merges with nothing): plain loops, one object per hit.
  const merged = ownBest(a);
  if (b.length > 0) merged.push(...ownBest(b));
  return merged.sort((x, y) => y.relative - x.relative).slice(0, limit);
}

function ownBest(hits: readonly BackendHit[]): RankedHit[] {
  // The largest magnitude of a scored (not exact) hit, at least EPSILON.
  let top = Number.EPSILON;
  for (const h of hits) if (h.score < EXACT_SCORE && Math.abs(h.score) > top) top = Math.abs(h.score);
  // Exact matches sort above every scored hit; the rank term keeps each list's own order on ties.
  const out: RankedHit[] = [];
  for (let rank = 0; rank < hits.length; rank++) {
    const h = hits[rank]!;
    // Built field by field, not spread: hits come in several shapes, and a spread of many shapes is slow.
    const relative = (h.score >= EXACT_SCORE ? 2 : h.score / top) - rank * 1e-9;
    out.push(h.weak === true ? { id: h.id, score: h.score, weak: true, relative } : { id: h.id, score: h.score, relative });
  }
  return out;
}
