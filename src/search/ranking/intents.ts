/**
 * Requests that name several actions ("find the ticket, then submit a new one, and finally
 * email the team"), and tools that work together.
 *
 * One ranked list serves one intent: the words of the most specific action take the first
 * hits and the other actions' tools fall below the limit. So a request is split into clauses
 * at sentence ends, commas and semicolons, and before words that start a new step ("then",
 * "also", "finally", "after that"...); each clause is ranked on its own and the lists are
 * fused with the whole request's (see fuse), which lets each clause's best tools through. A
 * request with one clause is ranked as it always was: single-intent requests cost and rank
 * the same.
 *
 * The rules are general English clause markers, not tuned to any query set. Work stays
 * linear: clauses partition the request's words, so all the clause searches together touch
 * about as many postings as the whole request's search, and at most MAX_CLAUSES run.
 */
import { analyzeQuery } from "../analysis/analyze.js";
import type { BackendHit } from "../types.js";

export interface IntentOptions {
  /** Split multi-step requests into clauses and fuse their rankings (default true). */
  clauses?: boolean;
  /** Fill the tail of the hits with linked tools of the top hits' servers (default true). */
  siblings?: boolean;
}

/** Clauses ranked at most (the rest join the last one): bounds the searches per request. */
const MAX_CLAUSES = 6;
/**
 * A clause needs this many content words to be ranked on its own: "please", "if so" or
 * "thanks" alone would rank noise. Shorter pieces join the clause before them.
 */
const MIN_CLAUSE_TERMS = 2;
/**
 * What counts as a content word of a clause: letters only. "I was born 1990-05-01 at 8am" is
 * the arguments of the step before it, not a step: its dates and numbers would rank noise.
 */
const PLAIN_WORD = /^\p{L}+$/u;
/** Weight of the whole request's list in the fusion (see fuse). */
const WHOLE_WEIGHT = 1.5;

// Sentence ends (a dot before a space or the end, not the dot of "v1.2" or "example.com"),
// semicolons, commas and line breaks end a clause.
const CLAUSE_END = /[.!?]+(?=\s|$)|[;,\n]+/u;
// Words that start a new step. Bare "and" is not one: it joins objects ("tables and charts")
// as often as actions; nor is "next" ("next weekend", "next.js").
const STEP_WORDS =
  /(?<!\band)\s+(?=(?:and\s+)?(?:then|also|additionally|furthermore|moreover|finally|lastly|afterwards|after\s+that|besides|as\s+well\s+as)\b)/iu;

/** The request's clauses, each with enough content words to rank on its own; [query] when it holds one. */
export function splitClauses(query: string): string[] {
  // A `select:` list is exact (tool-index.ts): its commas separate ids, not steps.
  if (query.trim().toLowerCase().startsWith("select:")) return [query];
  const pieces = query
    .split(CLAUSE_END)
    .flatMap((p) => p.split(STEP_WORDS))
    .map((p) => p.trim())
    .filter((p) => p !== "");
  const clauses: Array<{ text: string; terms: number }> = [];
  for (const piece of pieces) {
    const terms = analyzeQuery(piece).filter((t) => PLAIN_WORD.test(t.term)).length;
    const last = clauses[clauses.length - 1];
    if (last !== undefined && (terms < MIN_CLAUSE_TERMS || last.terms < MIN_CLAUSE_TERMS || clauses.length >= MAX_CLAUSES)) {
      last.text += ` ${piece}`;
      last.terms += terms;
    } else {
      clauses.push({ text: piece, terms });
    }
  }
  const ranked = clauses.filter((c) => c.terms >= MIN_CLAUSE_TERMS);
  return ranked.length > 1 ? ranked.map((c) => c.text) : [query];
}

export type Searcher = (query: string, limit: number) => BackendHit[];

/**
 * What explain mode hears of a ranking's steps (RunDispatcher's rankRequest): each is called
 * as the step runs, with what it made; undefined (the default) costs nothing.
 */
export interface IntentObserver {
  /** The lists ranked: [the whole request's] or [whole, ...one per clause], with the clauses' texts. */
  lists?(clauses: readonly string[], lists: ReadonlyArray<readonly BackendHit[]>): void;
  /** The whole request's list fused with the clauses' (a request of several clauses only), before siblings. */
  fused?(hits: readonly BackendHit[]): void;
  /** `id` was carried as a linked sibling of the hit `of`. */
  sibling?(id: string, of: string): void;
}
/** [hits of the whole request, ...hits of each clause]: one pass where the backend can (see SearchBackend.searchClauses). */
export type ClauseSearcher = (query: string, clauses: readonly string[], limit: number) => BackendHit[][];

/**
 * Depth of each list fused: the fused order of the first hits must not depend on how many hits
 * were asked for (a tool third in a clause's list at depth 20 is cut at depth 2), so lists are
 * ranked at least this deep and the fused list cut to the limit afterwards. Limits up to this
 * give the same first k hits; the backends' top-k selection is cheap at this size.
 */
export const FUSION_DEPTH = 20;

/** What searchIntents ranks, and with what. */
export interface IntentSearch {
  query: string;
  /** Hits returned at most. */
  limit: number;
  /** One text ranked on its own (the whole request, or a clause without `searchClauses`). */
  search: Searcher;
  /** The whole request and its clauses ranked at once, where the backend can (SearchBackend.searchClauses). */
  searchClauses?: ClauseSearcher | undefined;
  /** A tool's linked siblings (ToolIndex.siblings); without it, no siblings are carried. */
  siblingsOf?: ((id: string) => readonly string[]) | undefined;
  /** Clause fusion and linked siblings, each on unless switched off here. */
  options?: IntentOptions | undefined;
  /** Explain mode: told what each step made. */
  observe?: IntentObserver | undefined;
}

/**
 * The hits for a request: the whole request's ranking fused with each clause's, then linked
 * siblings of the first hits after SIBLING_POSITION (see withSiblings). Scores of a fused list
 * are fusion scores from 0 to 1 (see fuse). `searchClauses`, when given, ranks the whole and
 * the clauses at once; otherwise each is a `search`. The first k hits are the same whatever
 * limit ≥ k is asked (up to FUSION_DEPTH).
 */
export function searchIntents({ query, limit, search, searchClauses, siblingsOf, options = {}, observe }: IntentSearch): BackendHit[] {
  const clauses = splitClauses(query);
  if (clauses.length === 1) return observed(search(query, limit), [query], observe);
  const depth = Math.max(limit, FUSION_DEPTH);
  let hits: BackendHit[];
  if (options.clauses === false) hits = observed(search(query, depth), [query], observe);
  else {
    const lists = searchClauses?.(query, clauses, depth) ?? [search(query, depth), ...clauses.map((c) => search(c, depth))];
    observe?.lists?.(clauses, lists);
    hits = fuse(lists, depth);
    observe?.fused?.(hits);
  }
  // Only for tasks of several steps: a one-action request wants alternatives in its tail, not
  // the next steps (siblings there cost dev-queries 0.01–0.05 of R@10).
  const out = options.siblings === false || siblingsOf === undefined ? hits : withSiblings(hits, depth, { siblingsOf, onSibling: observe?.sibling });
  return out.slice(0, limit);
}

/** A request ranked as one list, told to the observer as the whole request's. */
function observed(hits: BackendHit[], texts: readonly string[], observe: IntentObserver | undefined): BackendHit[] {
  observe?.lists?.(texts, [hits]);
  return hits;
}

/**
 * Fusion of the whole request's list (first) with each clause's: a tool scores its whole-list
 * score plus its best clause score, each over its own list's best (CombMAX). Tried on Seal-Tools
 * dev's multi-tool requests: reciprocal rank fusion (k 4 to 60) lost 0.02–0.07 of R@5 there,
 * as it ranks a clause's weak fifth hit like the whole list's strong fifth; summing the clause
 * scores favoured tools that match every clause a little. The whole list weighs WHOLE_WEIGHT
 * (1 to 2 all gained; 1.5 best on dev): it sees the words that span clauses ("it", "the file").
 */
export function fuse(lists: ReadonlyArray<readonly BackendHit[]>, limit: number): BackendHit[] {
  const whole = new Map<string, number>();
  const clause = new Map<string, number>();
  lists.forEach((list, l) => {
    const top = Math.max(list[0]?.score ?? 0, Number.MIN_VALUE);
    for (const hit of list) {
      const s = hit.score / top;
      if (l === 0) whole.set(hit.id, WHOLE_WEIGHT * s);
      else clause.set(hit.id, Math.max(clause.get(hit.id) ?? 0, s));
    }
  });
  const scores = new Map(whole);
  for (const [id, s] of clause) scores.set(id, (scores.get(id) ?? 0) + s);
  // Over the most a tool can score (first in the whole list and in a clause's): from 0 to 1,
  // like the relative scores of one list that callers show.
  for (const [id, s] of scores) scores.set(id, s / (WHOLE_WEIGHT + 1));
  // Stable sort: ties keep the whole list's order, then the clauses'.
  return [...scores]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([id, score]) => ({ id, score }));
}

/**
 * Where linked siblings go: after this many of the ranking's own hits (the first 8 of 10, as
 * the quarter of a limit of 10 they took before), whatever the limit, so that a small limit
 * keeps the ranking's best hits and a bigger one shows the same first hits.
 */
export const SIBLING_POSITION = 8;
/** Siblings carried at most. */
const SIBLING_SLOTS = 2;
/** Whose siblings are carried: the first hits only. */
const SIBLING_ANCHORS = 3;

/** Where withSiblings finds a hit's siblings, and who hears of each it carries. */
export interface SiblingOptions {
  /** A tool's linked siblings (ToolIndex.siblings). */
  siblingsOf: (id: string) => readonly string[];
  /** Told `id` was carried as a sibling of the hit `of` (explain mode). */
  onSibling?: ((id: string, of: string) => void) | undefined;
}

/**
 * A task's steps are often implied, not stated: "a PDF report with a word cloud" needs
 * create-document, add-paragraph, add-picture and convert-to-pdf of one server. The linked
 * siblings (ToolIndex.siblings) of the first hits that the first SIBLING_POSITION hits left out
 * come next, then the rest of the ranking (without them): the hits they push down are the
 * ranking's weaker ones, and no limit changes the order of the first hits.
 */
export function withSiblings(hits: readonly BackendHit[], limit: number, { siblingsOf, onSibling }: SiblingOptions): BackendHit[] {
  if (hits.length <= SIBLING_POSITION || limit <= SIBLING_POSITION) return hits.slice(0, limit);
  const head = hits.slice(0, SIBLING_POSITION);
  const present = new Set(head.map((h) => h.id));
  const extra: string[] = [];
  for (const hit of hits.slice(0, SIBLING_ANCHORS)) {
    for (const id of siblingsOf(hit.id)) {
      if (extra.length >= SIBLING_SLOTS) break;
      if (!present.has(id)) {
        present.add(id);
        extra.push(id);
        onSibling?.(id, hit.id);
      }
    }
  }
  if (extra.length === 0) return hits.slice(0, limit);
  const floor = head[head.length - 1]?.score ?? 0;
  // Just below the last hit before them: siblings never outrank what the ranking put first.
  const siblings = extra.map((id, i) => ({ id, score: floor * (1 - (i + 1) * 1e-6) }));
  const rest = hits.slice(SIBLING_POSITION).filter((h) => !present.has(h.id));
  return [...head, ...siblings, ...rest].slice(0, limit);
}
