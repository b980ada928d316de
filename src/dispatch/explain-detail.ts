/**
 * Explain mode's record of one ranking (rank-request.ts): each step tells the trace what it
 * made as it runs (the merged lists with the scorer's own BM25F detail, the clauses, the fused
 * list, the siblings carried, the text ranking learning started from, the weak fallback), and
 * `detail` then says for each final hit which steps placed it. Nothing here ranks: a search
 * without a trace runs the same code and never builds one.
 */
import type { FusedHit } from "../learning/fuse.js";
import type { LearnedEvidence } from "../learning/learner.js";
import type { IntentObserver } from "../search/ranking/intents.js";
import type { SafetyMove } from "../search/ranking/read-safety.js";
import type { GuardMove } from "../search/ranking/catalog-guard.js";
import { EXACT_SCORE } from "../search/tool-index.js";
import type { BackendHit, ScoreDetail } from "../search/types.js";
import type { ExplainDetail, ListStep, RankStep } from "./types.js";
import { definedProps } from "../defined.js";

/** One hit of an index's list before the merge: its raw score, which index, and the scorer's detail. */
export interface SourcedHit extends BackendHit {
  index: "catalog" | "client";
  bm25f: ScoreDetail | undefined;
}

/** A merged list: by id, the hit's 1-based rank and relative score there, and where it came from. */
type ListRecord = Map<string, { rank: number; score: number; source: SourcedHit }>;

/** Clause texts are shown cut to this many characters: a label, not a copy of the request. */
const MAX_LABEL_TEXT = 80;

export class RankTrace {
  readonly #query: string;
  /** Each merged list by the array the ranking got: the intents step hands the same arrays back. */
  readonly #merged = new Map<readonly BackendHit[], ListRecord>();
  /** The lists ranked, in order: [whole, ...clauses], with their texts. */
  #lists: Array<{ text: string; record: ListRecord | undefined }> = [];
  /** The fused list (a request of several clauses): by id, 1-based rank and fusion score. */
  #fused = new Map<string, { rank: number; score: number }>();
  readonly #siblings = new Map<string, string>();
  #textRanks = new Map<string, number>();
  /** Destructive hits the safety order moved down for a read request: id → 1-based ranks before and after. */
  readonly #safety = new Map<string, SafetyMove>();
  /** Plain field BM25's first hit, moved up by the catalog guard. */
  #guard: GuardMove | undefined;
  #weak = false;
  /** What searchIntents tells (search/ranking/intents.ts IntentObserver). */
  readonly intents: IntentObserver;

  constructor(query: string) {
    this.#query = query;
    this.intents = {
      lists: (clauses, lists) => {
        const texts = lists.length === 1 ? [query] : [query, ...clauses];
        this.#lists = lists.map((list, i) => ({ text: texts[i] ?? query, record: this.#merged.get(list) }));
      },
      fused: (hits) => {
        this.#fused = new Map(hits.map((h, i) => [h.id, { rank: i + 1, score: h.score }]));
      },
      sibling: (id, of) => {
        if (!this.#siblings.has(id)) this.#siblings.set(id, of);
      },
    };
  }

  /** A merged list (what the ranking reads) and the per-index hits it was merged from. */
  list(merged: readonly BackendHit[], sources: readonly SourcedHit[]): void {
    const byId = new Map(sources.map((s) => [s.id, s]));
    const record: ListRecord = new Map();
    merged.forEach((hit, i) => {
      const source = byId.get(hit.id);
      if (source !== undefined) record.set(hit.id, { rank: i + 1, score: hit.score, source });
    });
    this.#merged.set(merged, record);
  }

  /** The text ranking learning fused with (or that stood alone). */
  textRanking(ranked: readonly BackendHit[]): void {
    this.#textRanks = new Map(ranked.map((h, i) => [h.id, i + 1]));
  }

  /** The safety order moved a destructive hit down (search/ranking/read-safety.ts). An arrow function: rankRequest passes it on as is. */
  readonly safety = (move: SafetyMove): void => {
    this.#safety.set(move.id, move);
  };

  /** The catalog guard moved plain field BM25's first hit up (search/ranking/catalog-guard.ts). */
  guard(move: GuardMove): void {
    this.#guard = move;
  }

  /** Nothing ranked: the hits are the weak fallback's. */
  weak(): void {
    this.#weak = true;
  }

  /** The steps that placed each hit, in the order of `hits` (the ranking's final list); `evidence` says what a learned rank rests on. */
  detail(hits: readonly FusedHit[], evidence?: (id: string) => LearnedEvidence | undefined): ExplainDetail[] {
    return hits.map((hit, i) => ({ steps: this.#steps(hit, i + 1, evidence) }));
  }

  #steps(hit: FusedHit, rank: number, evidence?: (id: string) => LearnedEvidence | undefined): RankStep[] {
    const safety = this.#safetyStep(hit.id);
    if (this.#weak) return [{ step: "weak", label: "weak partial match: no tool matched the request's words" }, ...safety];
    if (this.#query.trim().toLowerCase().startsWith("select:")) return [{ step: "select", label: "named by the select: list" }];
    const steps: RankStep[] = [];
    const lists = this.#listSteps(hit.id);
    if (lists.some((s) => s.exact)) steps.push({ step: "exact", label: "exact name or id" });
    steps.push(...lists.map((s) => s.step));
    steps.push(...expansions(lists.map((s) => s.step)));
    if (lists.some((s) => s.step.index === "client"))
      steps.push({ step: "client", label: "client tool merge: the run's client index, scored with the catalog's statistics" });
    const fused = this.#fused.get(hit.id);
    if (fused !== undefined) steps.push({ step: "fusion", label: `fusion of the whole request with its clauses: ${fused.rank}`, ...fused });
    const of = this.#siblings.get(hit.id);
    if (of !== undefined) steps.push({ step: "sibling", label: `sibling of ${of}`, of });
    const guard = this.#guard?.id === hit.id ? this.#guard : undefined;
    if (guard !== undefined) {
      const was = guard.from === undefined ? "not ranked" : `ranked ${guard.from}`;
      const label = `guard: plain field BM25's clear first on a catalog of long, specific descriptions, moved up to ${guard.to} (the engine's signals ${was} it)`;
      steps.push({ step: "guard", label, from: guard.from, to: guard.to });
    }
    if (hit.learned) {
      const textRank = this.#textRanks.get(hit.id);
      const was = textRank === undefined ? "not ranked by text" : `text alone ranked it ${textRank}`;
      const { sessions = 0, words } = evidence?.(hit.id) ?? {};
      // The words only where the operator keeps them (learning.recordTerms); otherwise how many sessions taught it.
      const from = `learned from ${sessions} session${sessions === 1 ? "" : "s"}${words !== undefined && words.length > 0 ? `: ${words.map((w) => JSON.stringify(w)).join(", ")}` : ""}`;
      steps.push({
        step: "learned",
        label: `learned: moved up to ${rank} by learning from use (${was}; ${from})`,
        rank,
        textRank,
        sessions,
        ...definedProps({ words }),
      });
    }
    steps.push(...safety);
    return steps;
  }

  #safetyStep(id: string): RankStep[] {
    const move = this.#safety.get(id);
    if (move === undefined) return [];
    const label = `safety: a destructive tool for a request that only asks to read, moved down from ${move.from} to ${move.to}`;
    return [{ step: "safety", label, from: move.from, to: move.to }];
  }

  /** The hit's place in each list ranked that holds it; `exact` when that list put it first as an exact name. */
  #listSteps(id: string): Array<{ step: ListStep; exact: boolean }> {
    return this.#lists.flatMap(({ text, record }, i) => {
      const entry = record?.get(id);
      if (entry === undefined) return [];
      const exact = entry.source.score >= EXACT_SCORE;
      const where = i === 0 ? "whole request" : `clause ${i}: ${JSON.stringify(clipped(text))}`;
      const step: ListStep = {
        step: i === 0 ? "whole" : "clause",
        label: `${where}: ${entry.rank}`,
        ...(i === 0 ? {} : { clause: i }),
        text,
        rank: entry.rank,
        score: entry.score,
        index: entry.source.index,
        // An exact hit's score is EXACT_SCORE, not the scorer's: its BM25F detail would not add up to it.
        ...(entry.source.bm25f !== undefined && !exact ? { bm25f: entry.source.bm25f } : {}),
      };
      return [{ step, exact }];
    });
  }
}

/** A step for each word that scored through another term (a typo's correction, a thesaurus word), once each. */
function expansions(lists: readonly ListStep[]): RankStep[] {
  const seen = new Set<string>();
  const out: RankStep[] = [];
  for (const word of lists.flatMap((s) => s.bm25f?.words ?? [])) {
    if (word.via === "word" || seen.has(`${word.word}\u0000${word.term}`)) continue;
    seen.add(`${word.word}\u0000${word.term}`);
    out.push({ step: "expansion", label: `${word.via} expansion of "${word.word}" → ${word.term}`, word: word.word, term: word.term, via: word.via });
  }
  return out;
}

function clipped(text: string): string {
  return text.length <= MAX_LABEL_TEXT ? text : `${text.slice(0, MAX_LABEL_TEXT - 1)}…`;
}
