/**
 * The one entry point that ranks a request for a run, every step in the order it runs:
 * - the whole request over the run's two indexes (the shared catalog's and the run's client
 *   tools', merged by score: merge-hits.ts), exact names and ids first (search/tool-index.ts),
 *   each index's BM25F with its typo and thesaurus expansions (search/scoring/bm25f.ts);
 * - a request of several steps: each clause ranked the same way and fused with the whole
 *   request's list, then linked siblings of the first hits (search/ranking/intents.ts);
 * - on a catalog of long, specific descriptions, the catalog guard: plain field BM25's clear
 *   first hit is not overridden by the engine's own signals (search/ranking/catalog-guard.ts);
 * - learning from use fused with that ranking (learning/fuse.ts), never over an exact name;
 * - nothing matched: the best partial matches, marked weak (search/ranking/partial-match.ts);
 * - a request that only asks to read: destructive tools below the non-destructive ones that
 *   match it comparably (search/ranking/read-safety.ts), whatever the steps before put first.
 * "Why is this tool 3rd?" is this file plus the one a step names. Explain mode (RankTrace,
 * explain-detail.ts) is told what each step made as it runs, on this same path. Benches and
 * tests rank a bare index through it too (bench/lib/rank-over-index.ts): their figures are a run's.
 */
import type { FusedHit } from "../learning/fuse.js";
import { spellsName } from "../learning/fuse.js";
import type { RunLearning } from "../learning/learner.js";
import { FUSION_DEPTH, searchIntents, type IntentOptions } from "../search/ranking/intents.js";
import { guardPlainFirst } from "../search/ranking/catalog-guard.js";
import { isDestructive, isReadRequest, safeOrder } from "../search/ranking/read-safety.js";
import type { ToolIndex, ToolIndexSearchOptions } from "../search/tool-index.js";
import type { BackendHit, ScoreDetail } from "../search/types.js";
import type { RankTrace } from "./explain-detail.js";
import { mergeHits } from "./merge-hits.js";

/**
 * What ranking reads of a run's catalog: which ids each index may return, and a tool's name.
 * EffectiveCatalog is one; a bench or test ranks a bare index with a set of its ids.
 */
export interface RankCatalog {
  /** The shared catalog's tools this run may see. */
  readonly catalogIds: ReadonlySet<string>;
  /** This run's client tools it may see. */
  readonly clientIds: ReadonlySet<string>;
  get(id: string): { readonly name: string } | undefined;
}

/** A run as ranking sees it; `C` is the catalog the caller holds (RunDispatcher: EffectiveCatalog). */
export interface RunScope<C extends RankCatalog = RankCatalog> {
  /** Every tool this run may see: admitted catalog tools and admitted client tools. */
  catalog: C;
  /** The shared catalog's index, filtered by `catalog.catalogIds` instead of re-indexed. */
  index: ToolIndex;
  /** A small index of this run's client tools, when there are any. */
  clientIndex?: ToolIndex;
  /** Learning from use (learning/): this run's learned scores, and where its searches and calls are reported. */
  learning?: RunLearning;
  /**
   * Multi-step handling (search/ranking/intents.ts): clause fusion and linked siblings, both on unless
   * switched off here; a run never sets it, the relevance bench's ablations do (`{ clauses: false }`).
   */
  intents?: IntentOptions;
  /** false: no read-request safety order (search/ranking/read-safety.ts); a run never sets it, the relevance bench's ablation does. */
  readSafety?: false;
  /**
   * The catalog guard (search/ranking/catalog-guard.ts): on by the catalog's profile (ToolIndex.profile);
   * false: off, "on": on whatever the profile. A run never sets it; the relevance bench does.
   */
  catalogGuard?: false | "on";
}

/**
 * Catalog hits fused with learned scores: enough that a tool the learned field ranks high is
 * among them with its catalog score. 20 in place of 30 moved the learning bench's replays by
 * no more than their noise and made a taught search faster; 10 cost relevance (`node
 * --expose-gc dist/bench/learning/main.js`, `node dist/bench/learning/latency-main.js seal 4076`).
 */
const LEARNED_POOL = 20;

/**
 * How deep a read request is ranked before the safety order (read-safety.ts) and cut to the
 * limit: the non-destructive tool a destructive one falls below must be in the list, and the
 * first k hits must not depend on the limit (as FUSION_DEPTH keeps them for clause fusion).
 */
const SAFETY_DEPTH = FUSION_DEPTH;

/**
 * The run's ranking of one request: `limit` hits, best first, scores relative (1 for an exact
 * match), each saying whether learning moved it up. `trace` (explain mode) hears every step.
 */
export function rankRequest(query: string, limit: number, scope: RunScope, trace?: RankTrace): FusedHit[] {
  const plan = planRequest(query, limit, scope);
  const text = textRanking(plan, scope, trace);
  // An exact name or id stays first and alone decides: no guard, no learning, no safety order.
  const exact = text[0] !== undefined && isExact(query, text[0].id, scope.catalog.get(text[0].id)?.name);
  const ranked = plan.select || exact ? text : catalogGuard(plan, scope, text, trace);
  const fused = exact ? unlearnedHits(ranked, plan.depth) : learningFused(plan, scope, ranked);
  trace?.textRanking(ranked);
  const hits = fused.length > 0 ? fused : weakFallback(plan, scope, trace);
  const safe = plan.reading && !exact ? readSafetyOrder(scope, hits, trace) : hits;
  return safe.slice(0, limit);
}

/** What a request asks of the steps, settled before any is run. */
interface RequestPlan {
  readonly query: string;
  /** A `select:` list of exact ids: no learning, no guard, no safety order. */
  readonly select: boolean;
  /** The request only asks to read: the safety order applies (read-safety.ts). */
  readonly reading: boolean;
  /** How deep each step ranks before the cut to the limit. */
  readonly depth: number;
  /** Learned scores to fuse with the text ranking; undefined when there are none. */
  readonly learned: ReadonlyMap<string, number> | undefined;
}

function planRequest(query: string, limit: number, scope: RunScope): RequestPlan {
  const { catalog, index, learning } = scope;
  const select = query.trim().toLowerCase().startsWith("select:");
  const reading = !select && scope.readSafety !== false && isReadRequest(query);
  // The one hook of learning into ranking: learned scores of the run's allowed catalog tools
  // only (so policy is never widened), fused with the catalog's ranking (learning/fuse.ts).
  const learned = learning && !select ? learning.scores(query, catalog.catalogIds, index.backend.corpusStats?.()) : undefined;
  return {
    query,
    select,
    reading,
    depth: reading ? Math.max(limit, SAFETY_DEPTH) : limit,
    learned: learned !== undefined && learned.size > 0 ? learned : undefined,
  };
}

/** The text ranking over both indexes: the whole request, and a multi-step one's clauses fused with it (intents.ts). */
function textRanking(plan: RequestPlan, scope: RunScope, trace: RankTrace | undefined): BackendHit[] {
  const { catalog, index } = scope;
  return searchIntents({
    query: plan.query,
    // Deep enough that a tool learning ranks high is among the hits it fuses with.
    limit: plan.learned === undefined ? plan.depth : Math.max(plan.depth, LEARNED_POOL),
    search: (q, n) => mergedHits(scope, q, n, trace),
    searchClauses: (q, clauses, n) => mergedClauses(scope, q, clauses, n, trace),
    siblingsOf: (id) => index.siblings(id, catalog.catalogIds),
    options: scope.intents,
    observe: trace?.intents,
  });
}

/** Whether the catalog guard is on for this run's catalog: by its profile, unless the scope says otherwise. */
function guarded(scope: RunScope): boolean {
  if (scope.catalogGuard !== undefined) return scope.catalogGuard === "on";
  return scope.index.profile()?.longAndSpecific === true;
}

/**
 * On a catalog of long, specific descriptions (or where the scope turns it on), the catalog
 * guard: plain field BM25's clear first hit of the catalog first (catalog-guard.ts).
 */
function catalogGuard(plan: RequestPlan, scope: RunScope, ranked: BackendHit[], trace: RankTrace | undefined): BackendHit[] {
  if (!guarded(scope)) return ranked;
  const plain = scope.index.search(plan.query, { limit: FUSION_DEPTH, allowed: scope.catalog.catalogIds, weak: false, plain: true });
  const { hits, move } = guardPlainFirst(ranked, plain, { keep: (id) => scope.catalog.clientIds.has(id) });
  if (move !== undefined) trace?.guard(move);
  return hits;
}

/**
 * Learning from use fused with the text ranking (learning/fuse.ts). A request that spells the
 * first hit's whole name keeps it first; learning reorders the rest.
 */
function learningFused(plan: RequestPlan, scope: RunScope, ranked: readonly BackendHit[]): FusedHit[] {
  const { learned, depth } = plan;
  if (learned === undefined || scope.learning === undefined) return unlearnedHits(ranked, depth);
  const firstName = ranked[0] !== undefined ? scope.catalog.get(ranked[0].id)?.name : undefined;
  const spelled = firstName !== undefined && spellsName(plan.query, firstName);
  return scope.learning.fuse(ranked, learned, depth, spelled);
}

/** The first `depth` hits, none moved by learning. */
function unlearnedHits(ranked: readonly BackendHit[], depth: number): FusedHit[] {
  return ranked.slice(0, depth).map(unlearned);
}

/** A hit learning did not move, built field by field: a spread of hits of several shapes is slow, and every search makes these. */
function unlearned(h: BackendHit): FusedHit {
  return h.weak === true ? { id: h.id, score: h.score, weak: true, learned: false } : { id: h.id, score: h.score, learned: false };
}

/** Never empty: nothing ranked (and nothing learned) gives the best partial matches, marked weak. */
function weakFallback(plan: RequestPlan, scope: RunScope, trace: RankTrace | undefined): FusedHit[] {
  trace?.weak();
  return weakHits(scope, plan.query, plan.depth).map(unlearned);
}

/** A read request: destructive tools below the non-destructive ones that match it comparably (read-safety.ts). */
function readSafetyOrder(scope: RunScope, hits: readonly FusedHit[], trace: RankTrace | undefined): FusedHit[] {
  return safeOrder(hits, { destructive: (id) => destructive(scope, id), moved: trace?.safety });
}

/** Whether a tool of the run (catalog or client) deletes, overwrites or stops something for good (read-safety.ts). */
function destructive(scope: RunScope, id: string): boolean {
  const doc = scope.index.get(id) ?? scope.clientIndex?.get(id);
  return doc !== undefined && isDestructive(doc);
}

/**
 * Nothing in the run matched a request: the best partial matches of both indexes, marked
 * weak (search/ranking/partial-match.ts), client tools first on equal scores; only allowed tools.
 */
function weakHits(scope: RunScope, query: string, limit: number): BackendHit[] {
  const { catalog, index, clientIndex } = scope;
  const hits = [...(clientIndex?.weakHits(query, limit, catalog.clientIds) ?? []), ...index.weakHits(query, limit, catalog.catalogIds)];
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}

/**
 * One list ranked over both indexes; `score` is the relative score the model sees (mergeHits).
 * Client tools are scored with the catalog's corpus statistics (IDF, mean field lengths), so
 * their scores compare with catalog hits and a better-matching client tool ranks first.
 */
function mergedHits(scope: RunScope, query: string, limit: number, trace: RankTrace | undefined): BackendHit[] {
  const { catalog, index, clientIndex } = scope;
  const stats = index.backend.corpusStats?.();
  const details = new ListDetails(trace);
  const hits = index.search(query, { limit, allowed: catalog.catalogIds, weak: false, ...details.catalog });
  const options: ToolIndexSearchOptions = { limit, allowed: catalog.clientIds, weak: false, ...(stats ? { stats } : {}), ...details.client };
  const clientHits = clientIndex?.search(query, options) ?? [];
  return details.merged(0, hits, clientHits, merge(scope, hits, clientHits, limit, stats !== undefined));
}

/** mergedHits for a request and its clauses, each index ranking them all in one pass. */
function mergedClauses(scope: RunScope, query: string, clauses: readonly string[], limit: number, trace: RankTrace | undefined): BackendHit[][] {
  const { catalog, index, clientIndex } = scope;
  const stats = index.backend.corpusStats?.();
  const details = new ListDetails(trace);
  const lists = index.searchClauses(query, clauses, { limit, allowed: catalog.catalogIds, ...details.catalog });
  const clientLists = clientIndex?.searchClauses(query, clauses, { limit, allowed: catalog.clientIds, ...(stats ? { stats } : {}), ...details.client });
  return lists.map((hits, i) => {
    const clientHits = clientLists?.[i] ?? [];
    return details.merged(i, hits, clientHits, merge(scope, hits, clientHits, limit, stats !== undefined));
  });
}

function merge(scope: RunScope, hits: readonly BackendHit[], clientHits: readonly BackendHit[], limit: number, catalogStats: boolean): BackendHit[] {
  const comparable = catalogStats && scope.clientIndex?.backend.corpusStats !== undefined;
  return mergeHits(hits, clientHits, limit, comparable).map((hit) => ({ id: hit.id, score: hit.relative }));
}

/**
 * Explain mode's side of one merged search: the explain options each index's search gets (none
 * without a trace), and the merged list handed to the trace with each hit's raw score, index
 * and BM25F detail.
 */
class ListDetails {
  readonly #trace: RankTrace | undefined;
  #catalog: ReadonlyArray<ReadonlyMap<string, ScoreDetail>> = [];
  #client: ReadonlyArray<ReadonlyMap<string, ScoreDetail>> = [];
  readonly catalog: Pick<ToolIndexSearchOptions, "explain">;
  readonly client: Pick<ToolIndexSearchOptions, "explain">;

  constructor(trace: RankTrace | undefined) {
    this.#trace = trace;
    this.catalog = trace === undefined ? {} : { explain: (lists) => (this.#catalog = lists) };
    this.client = trace === undefined ? {} : { explain: (lists) => (this.#client = lists) };
  }

  /** The merged list `i` (0: the whole request; i: clause i), told to the trace; returned as is. */
  merged(i: number, hits: readonly BackendHit[], clientHits: readonly BackendHit[], list: BackendHit[]): BackendHit[] {
    this.#trace?.list(list, [
      ...hits.map((h) => ({ ...h, index: "catalog" as const, bm25f: this.#catalog[i]?.get(h.id) })),
      ...clientHits.map((h) => ({ ...h, index: "client" as const, bm25f: this.#client[i]?.get(h.id) })),
    ]);
    return list;
  }
}

/** The request is exactly this tool's id or name (case-insensitive). */
function isExact(query: string, id: string, name: string | undefined): boolean {
  const q = query.trim().toLowerCase();
  return q === id.toLowerCase() || (name !== undefined && q === name.toLowerCase());
}
