/**
 * The catalog's ranking and the learned one as one list. The catalog's own text always counts:
 * a hit's fused score is its catalog score (relative, 0..1, as the model sees it) plus the
 * learned score scaled to the same range and weighted by how much evidence there is, so that a
 * learned field with a few weak terms only breaks ties and one with many strong terms leads.
 * Only ids the caller allows (the run's effective catalog) ever get a learned score, so fusion
 * can reorder the allowed tools and add allowed ones the catalog text missed, nothing more.
 */
import { analyzeText, splitIdentifier, stem } from "../search/analysis/analyze.js";
import { STOPWORDS } from "../search/analysis/stopwords.js";
import type { BackendHit } from "../search/types.js";

export interface FusedHit extends BackendHit {
  /** The hit ranks higher than the catalog text alone put it (or the catalog text did not find it). */
  learned: boolean;
}

export interface FuseParams {
  /** Weight of the learned part (options.weight). */
  weight: number;
  /** Learned score at which evidence counts half (evidence = s / (s + half)); 0: the learned score is its own evidence (already in [0, 1)). */
  half: number;
  /**
   * Scale the learned part by how unsure the catalog's text is: 1 − (its first hit's relative
   * score − its second's). A catalog whose text clearly picks one tool keeps it.
   */
  margin: boolean;
  /**
   * The share of the learned part kept when the catalog's first hit is a tool nothing was learned
   * about (no counted pair in the scope): learning's silence on a tool is no evidence against it,
   * and a request for a tool this scope never called (its traffic so far went to a few others)
   * looks, to learning, like a request for one of those. The learned score's discriminative part
   * (model.ts) gives tools a bonus on any word they were taught, which is what this keeps from
   * taking requests for the tools traffic has not reached yet.
   */
  untaughtFirst: number;
}

/**
 * The most the catalog's margin takes off the learned part: a lone catalog hit (a typo's
 * correction, one shared word) has the largest margin there is, and must not shut learning out.
 */
const MAX_SURE = 0.5;

export const DEFAULT_FUSE: Omit<FuseParams, "weight"> = { half: 0, margin: true, untaughtFirst: 0.25 };

/** A name of one word is one word the request shares with it, not the request naming the tool. */
const MIN_SPELLED_WORDS = 2;

/**
 * The request spells the tool's whole name: every word of it (stemmed, stopwords aside, as the
 * analyzer reads both), and the name has two or more. "create a marketing campaign named …"
 * spells `createMarketingCampaign`. A request that names a tool that plainly is as strong a
 * sign as the catalog has, short of the exact name (which bypasses fusion): learned terms of a
 * near twin (`createPromotionCampaign`, taught "create … campaign … targeting") must not pass it.
 */
export function spellsName(request: string, name: string): boolean {
  const words = splitIdentifier(name).filter((w) => !STOPWORDS.has(w));
  if (words.length < MIN_SPELLED_WORDS) return false;
  const terms = new Set(analyzeText(request.slice(0, 2_000).toLowerCase()));
  return words.every((w) => terms.has(stem(w)));
}

/** Whether anything was learned about a tool (a counted pair in the scope). */
export type TaughtTool = (id: string) => boolean;

/**
 * `ranked`: the catalog's hits, best first (scores relative, exact matches at 1 and first).
 * `learned`: learned scores of allowed ids. Returns `limit` hits. `keepFirst`: the catalog's
 * first hit stays first (the request spells its name: spellsName) and learning reorders the rest.
 * `taught`: whether anything was learned about a tool (FuseParams.untaughtFirst).
 */
export function fuseLearned(
  ranked: readonly BackendHit[],
  learned: ReadonlyMap<string, number>,
  limit: number,
  params: FuseParams,
  keepFirst = false,
  taught: TaughtTool = () => true,
): FusedHit[] {
  if (learned.size === 0 || params.weight === 0) return ranked.slice(0, limit).map((h) => ({ ...h, learned: false }));
  if (keepFirst && ranked[0] !== undefined) return fuseAfterFirst(ranked[0], ranked.slice(1), learned, limit, params, taught);
  const top = Math.max(...ranked.map((h) => h.score), Number.EPSILON);
  let best = 0;
  for (const s of learned.values()) best = Math.max(best, s);
  // How much to trust the learned list for this request: its best score's evidence, 0..1 (or the score itself, when it is a share).
  const sure = params.margin && ranked.length > 0 ? (ranked[0]!.score - (ranked[1]?.score ?? 0)) / top : 0;
  const untaught = ranked[0] !== undefined && !taught(ranked[0].id) ? params.untaughtFirst : 1;
  const trust = (1 - Math.min(MAX_SURE, Math.max(0, sure))) * untaught;
  const scale = (params.half === 0 ? params.weight : (params.weight * (best / (best + params.half))) / best) * trust;
  const catalogRank = new Map(ranked.map((h, i) => [h.id, i]));
  const fused = new Map<string, number>();
  for (const h of ranked) fused.set(h.id, h.score / top);
  for (const h of ranked) {
    const s = learned.get(h.id);
    if (s !== undefined) fused.set(h.id, fused.get(h.id)! + s * scale);
  }
  // Of the tools text did not rank, only the `limit` best learned can reach the first `limit`:
  // the others are left out before the sort (a taught scope scores thousands of tools).
  for (const [id, s] of bestUnranked(learned, catalogRank, limit)) fused.set(id, s * scale);
  const order = [...fused.entries()].sort((a, b) => b[1] - a[1] || (catalogRank.get(a[0]) ?? Infinity) - (catalogRank.get(b[0]) ?? Infinity));
  const norm = Math.max(order[0]?.[1] ?? 1, Number.EPSILON);
  return order.slice(0, limit).map(([id, score], i) => {
    const before = catalogRank.get(id);
    return { id, score: score / norm, learned: learned.has(id) && (before === undefined || before > i) };
  });
}

function fuseAfterFirst(
  first: BackendHit,
  rest: readonly BackendHit[],
  learned: ReadonlyMap<string, number>,
  limit: number,
  params: FuseParams,
  taught: TaughtTool,
): FusedHit[] {
  const others = new Map(learned);
  others.delete(first.id);
  // The rest keep the catalog's second score as their best, so the list stays in order.
  const scale = (rest[0]?.score ?? 0) / Math.max(first.score, Number.EPSILON);
  const tail = limit > 1 ? fuseLearned(rest, others, limit - 1, params, false, taught) : [];
  return [{ ...first, score: 1, learned: false }, ...tail.map((h) => ({ ...h, score: h.score * scale }))];
}

/** The `limit` best learned scores of ids not in `ranked`, best first; on equal scores the earlier id (as a stable sort keeps it). */
function bestUnranked(learned: ReadonlyMap<string, number>, ranked: ReadonlyMap<string, number>, limit: number): Array<[string, number]> {
  const best: Array<[string, number]> = [];
  for (const [id, s] of learned) {
    if (ranked.has(id) || (best.length >= limit && s <= best[best.length - 1]![1])) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]![1] < s) at--;
    best.splice(at, 0, [id, s]);
    if (best.length > limit) best.pop();
  }
  return best;
}
