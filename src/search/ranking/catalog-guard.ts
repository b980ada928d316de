/**
 * The catalog guard: on a catalog whose descriptions are long and specific (catalog-profile.ts),
 * the engine's own signals (coordination, name precision, expansions) may not override plain
 * field BM25 (BackendSearchOptions.plain) where they disagree. There a request's words are
 * mostly the right tool's own words, plain BM25 ranks it well, and a synonym or a breadth bonus
 * picked up in another tool's long text is noise: "kill the process that's hanging" once ranked
 * a server's `read_process_output` (which "stops" reading) above `kill_process` through "kill"
 * → stop and the extra word coordination counted.
 *
 * So plain field BM25's first hit ranks above every hit of the engine's that plain field BM25
 * scores below GUARD_MARGIN of it; hits it scores within that margin are near-ties, which the
 * signals still break. Client tools are never passed: plain field BM25 here reads the catalog's
 * index only, so it has no score of theirs to compare.
 */
import type { BackendHit } from "../types.js";

/**
 * A hit of the engine's stays above plain field BM25's first when plain field BM25 scores it at
 * least this share of that first. On single servers with long descriptions (LiveMCPBench's
 * requests over each such server alone, and the filesystem server's written read requests),
 * 0.8–0.9 kept every request the engine got right and restored one it lost; 1 (plain BM25's
 * order whenever they differ) lost two of the filesystem server's eleven.
 */
export const GUARD_MARGIN = 0.8;

/** Plain field BM25's first hit, moved up by the guard: 1-based rank before (undefined: the ranking did not hold it) and after. */
export interface GuardMove {
  id: string;
  from: number | undefined;
  to: number;
}

/** What the guard asks of the run. */
export interface CatalogGuardOptions {
  /** Hits the guard never passes (a run's client tools: plain field BM25 ranks the catalog only). */
  keep: (id: string) => boolean;
}

/**
 * `ranked` (the engine's hits, best first) with plain field BM25's first hit (`plain[0]`) above
 * every hit that `plain` scores below GUARD_MARGIN of it (a hit `plain` does not hold scores 0;
 * `keep` names hits never passed). The moved hit takes the score of the hit it passes, so
 * scores stay in order. Unchanged when both rank the same first or the rest are near-ties.
 */
export function guardPlainFirst(
  ranked: readonly BackendHit[],
  plain: readonly BackendHit[],
  { keep }: CatalogGuardOptions,
): { hits: BackendHit[]; move?: GuardMove } {
  const first = plain[0];
  if (first === undefined || ranked[0]?.id === first.id) return { hits: [...ranked] };
  const plainScore = new Map(plain.map((h) => [h.id, h.score]));
  const bar = GUARD_MARGIN * first.score;
  const at = ranked.findIndex((h) => h.id === first.id || (!keep(h.id) && (plainScore.get(h.id) ?? 0) < bar));
  const to = at === -1 ? ranked.length : at;
  if (ranked[to]?.id === first.id || to === ranked.length) return { hits: [...ranked] };
  const from = ranked.findIndex((h) => h.id === first.id);
  const moved = from === -1 ? { id: first.id, score: ranked[to]!.score } : { ...ranked[from]!, score: ranked[to]!.score };
  const hits = ranked.filter((h) => h.id !== first.id);
  hits.splice(to, 0, moved);
  return { hits, move: { id: first.id, from: from === -1 ? undefined : from + 1, to: to + 1 } };
}
