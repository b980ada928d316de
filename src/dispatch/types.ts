import type { JsonSchema, ToolIdentity, ToolSource } from "../catalog/types.js";
import type { ErrorPayload } from "../errors.js";
import type { ScoreDetail } from "../search/types.js";

/** A compact, prompt-safe search result. */
export interface SearchHit extends ToolIdentity {
  /** One line, at most 200 characters, control characters stripped. */
  summary: string;
  score: number;
  /** A bounded TypeScript-like parameter hint, e.g. `(city: string, days?: integer)`. */
  signature?: string;
  /**
   * No tool matched the request's words: this is one of the best partial matches (a shared
   * word prefix, or only one of the allowed tools). A model should rephrase, not conclude.
   */
  weak?: true;
}

/** A catalog tool as `engine.listTools` lists it: what a hit shows, without a score. */
export interface ToolListing extends Omit<SearchHit, "score" | "weak"> {
  /** Only an owner's runs see it (the definition's `ownerOnly`, or a policy glob). */
  ownerOnly: boolean;
}

/** A hit as `run.explain` gives it: whether learning from use ranked it higher than the catalog's text alone. */
export interface ExplainedHit extends SearchHit {
  learned: boolean;
}

/** `run.explain` options: `detail: true` adds, to each hit, the steps that placed it (`ExplainDetail`). */
export interface ExplainOptions extends SearchOptions {
  detail?: boolean;
}

/** A hit of `run.explain(query, { detail: true })`. */
export interface DetailedHit extends ExplainedHit {
  detail: ExplainDetail;
}

/** Why a hit is where it is: the ranking steps that placed it, in the order they ran. */
export interface ExplainDetail {
  steps: RankStep[];
}

/**
 * One ranking step that placed a hit. `label` says it in words ("clause 2: \"submit a
 * ticket\"", "sibling of core:x"); the other fields give the figures.
 */
export type RankStep =
  | { step: "select"; label: string }
  | { step: "exact"; label: string }
  | ListStep
  | { step: "fusion"; label: string; rank: number; score: number }
  | { step: "sibling"; label: string; of: string }
  | { step: "expansion"; label: string; word: string; term: string; via: "typo" | "thesaurus" | "expansion" }
  | { step: "client"; label: string }
  | { step: "learned"; label: string; rank: number; textRank: number | undefined; sessions: number; words?: string[] }
  | GuardStep
  | SafetyStep
  | { step: "weak"; label: string };

/**
 * The catalog guard (search/ranking/catalog-guard.ts): on a catalog of long, specific descriptions, plain
 * field BM25's first hit, which the engine's own signals had ranked below hits plain field BM25
 * scores well under it, moved up: its 1-based rank before (undefined: the ranking did not hold it) and after.
 */
export interface GuardStep {
  step: "guard";
  label: string;
  from: number | undefined;
  to: number;
}

/**
 * A destructive tool (search/ranking/read-safety.ts) that a request asking only to read ranked high,
 * moved below the non-destructive tools that match it comparably: its 1-based rank before the
 * move and after it (in the list ranked at least SAFETY_DEPTH deep, so `to` may be past the limit).
 */
export interface SafetyStep {
  step: "safety";
  label: string;
  from: number;
  to: number;
}

/**
 * The hit's place in one ranked list: the whole request's, or one clause's (a request of
 * several steps, each ranked on its own and fused). `score` is the list's relative score (the
 * hit's over the list's best, what fusion reads); `bm25f`, where the index ranks by BM25F, is
 * how the scorer made the hit's raw score: per word, its contribution and each field's share.
 */
export interface ListStep {
  step: "whole" | "clause";
  label: string;
  /** 1-based clause number (clause steps only). */
  clause?: number;
  /** The text ranked: the request, or the clause. */
  text: string;
  /** 1-based rank in that list. */
  rank: number;
  score: number;
  /** Which index ranked it: the shared catalog's, or the run's client tools' (scored with the catalog's statistics). */
  index: "catalog" | "client";
  bm25f?: ScoreDetail;
}

/** The answer to a batch search: one entry per query, in order. */
export interface BatchSearchResult {
  query: string;
  hits: SearchHit[];
}

export interface SearchOptions {
  limit?: number;
}

export interface ToolDescription extends ToolIdentity {
  description: string;
  /** The tool's input schema exactly as registered. */
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

export type CallOutcome = { ok: true; id: string; source: ToolSource; result: unknown } | { ok: false; id: string; source?: ToolSource; error: ErrorPayload };
