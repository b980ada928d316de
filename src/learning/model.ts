/**
 * What the engine learned from use, in memory: per scope, per tool, a bounded bag of request
 * terms with decayed counts (the tool's "learned field"), and a BM25 over those bags.
 *
 * A (term, tool) pair is a record. Each contributor (a session; in the shared scope a tenant,
 * see learner.ts) adds to it at most once: the record keeps the hashes of its last contributors
 * and a count of the distinct ones. The pair is *active* (counted in ranking) only once
 * `minSessions` distinct contributors gave it: one session, however often it repeats a request,
 * can never teach anything alone. Counts decay with a half-life, so what stopped being used
 * fades, and each tool keeps at most `maxTermsPerTool` records (the weakest goes first).
 *
 * Everything is keyed by tool id: a tool that leaves the catalog is dropped (retainTools), and
 * one that comes back under the same id starts from nothing.
 */
import type { ResolvedLearningOptions } from "./options.js";
import { NO_TENANT, SHARED_SCOPE, tenantOfScope } from "./scope-keys.js";

export { SHARED_SCOPE } from "./scope-keys.js";

/** How informative a request term is in the catalog's own text, in [0, 1] (1: no tool's text holds it). */
export type TermWeight = (term: string) => number;

/** One (scope, tool, term) record as stored and exchanged (export/import, the SQLite rows). */
export interface LearnedRow {
  scope: string;
  tool: string;
  term: string;
  /** Decayed count at `at`. */
  count: number;
  /** Distinct contributors seen (capped at 255). */
  sessions: number;
  /** Epoch ms of the last contribution. */
  at: number;
  /** Hashes of the most recent contributors (dedupe). */
  seen: string[];
}

/** The tool ids kept (a Set, or a test that also keeps the tools of a source that is down). */
export interface IdFilter {
  has(id: string): boolean;
}

/** One observation: a contributor's request led to a tool. */
export interface Observation {
  scope: string;
  tool: string;
  terms: readonly string[];
  contributor: string;
  at: number;
}

interface PairRecord {
  count: number;
  sessions: number;
  at: number;
  seen: string[];
  /**
   * The pair's discriminative weight (LearnedModel.#step): moved only while the pair counts, by
   * contributors who give it. Held in memory only, not in the rows: a restart, or another worker,
   * starts it at 0 and ranks by the bags alone until new calls move it again.
   */
  weight: number;
}

/** A tool's learned field in one scope: term → record. */
type ToolBag = Map<string, PairRecord>;

/**
 * What ranking reads of one term in a scope, computed once and kept until one of the term's
 * records changes (or for LENGTH_CACHE_MS, as the bag lengths): its taught total and document
 * frequency, and its active records as two arrays. Every search of a taught scope reads it for
 * each request term, and a word taught to many tools has thousands of records.
 */
interface TermSummary {
  at: number;
  sum: number;
  df: number;
  tools: string[];
  counts: number[];
  /** The active records themselves, whose discriminative weights move with every credited call (#step)... */
  records: PairRecord[];
  /** ...and those weights side by side, as ranking reads them (#step keeps both in step). */
  weights: Float64Array;
  /** Each active record's BM25 term frequency part, for one set of bag lengths and parameters. */
  saturated?: { stamp: number; params: LearnedScoreParams; values: Float64Array };
}

class ScopeModel {
  /**
   * Contributors a pair needs to weigh in a term's totals. In the shared scope, where each
   * tenant is one contributor, 2: what one tenant alone taught moves nobody's ranking, not even
   * through a total. In an agent's or a token's scope (that scope's own traffic) 1: every pair
   * weighs, so a word of many requests ("need", "find") weighs little long before its pairs count.
   */
  readonly totalsFrom: number;
  /** The tenant whose share this scope's records count against (scope-keys.ts). */
  readonly tenant: string;
  constructor(key: string, minSessions: number) {
    this.totalsFrom = key === SHARED_SCOPE ? Math.min(2, minSessions) : 1;
    this.tenant = tenantOfScope(key);
  }
  /** tool → its bag, least recently taught first (the first to go when the tenant is over its share) */
  readonly tools = new Map<string, ToolBag>();
  /** term → the tools whose bag holds it (active or not), each with its record (the same object as in the bag) */
  readonly byTerm = new Map<string, Map<string, PairRecord>>();
  /** term → its summary (TermSummary); a term's entry goes whenever one of its records changes. */
  readonly summaries = new Map<string, TermSummary>();
  /** Tools whose bag changed since the cached lengths were taken: only theirs are taken again. */
  readonly changedTools = new Set<string>();
  /** The cached lengths (BagLengths), taken again in full every LENGTH_CACHE_MS (decay moves them slowly). */
  cache: BagLengths | undefined;
}

/**
 * A scope's bag lengths as BM25 reads them, kept exact as bags change: a ranking depends only on
 * what was taught, never on how long ago a cache was filled (a few seconds are thousands of calls
 * to a busy gateway).
 */
interface BagLengths {
  /** When the lengths were taken in full (decay applied as of then). */
  at: number;
  /** Bumped on every change: a summary's saturation (TermSummary.saturated) is for one stamp. */
  stamp: number;
  /** Per tool, the sum of its active records' decayed counts. */
  lengths: Map<string, number>;
  /** Per tool, the sum of its records that weigh in totals (ScopeModel.totalsFrom). */
  taught: Map<string, number>;
  /** Sum of `taught`: the scope's taught total. */
  total: number;
  /** Sum of `lengths`, and the tools with a length: their mean is BM25's average length. */
  sum: number;
  tools: number;
  mean: number;
}

/** Cached bag lengths are recomputed at least this often (decay changes them slowly). */
const LENGTH_CACHE_MS = 3_600_000;
/** Distinguishes the lengths of every scope and every change (BagLengths.stamp). */
let lengthStamps = 0;

const MAX_SESSIONS = 255;
const LN2 = Math.LN2;
/** Decay advances in steps of this age. */
const DECAY_STEP_MS = 3_600_000;

export interface LearnedScoreParams {
  /** BM25 over the bags (count as tf). */
  k1: number;
  b: number;
  /** The coverage (share of the request's information whose words the tool's bag holds) counts to this power. */
  coverPower: number;
  /** The count at which a tool's evidence counts half (its strongest matched record's count n gives n / (n + this)). */
  evidenceHalf: number;
  /** Weight of the discriminative part (the tool's softmax probability over its pairs' weights, times its evidence), added to the bag score. */
  softmaxWeight: number;
  /** The count at which the discriminative part's evidence counts half. */
  softmaxHalf: number;
}

/**
 * How learned bags are scored, chosen on MetaTool's tune split (replay 80% of it, score the
 * other 20%) and Seal-Tools together, never on MetaTool's validate split
 * (`K1=… POW=… EVID=… node dist/bench/learning/probe-set.js metatool 20 dev`, and `seal-tools 20`):
 * - BM25 alone lets a few weak pairs lead (Seal-Tools 0.961 → 0.103);
 * - BM25 (k1 20, b 0.3) times the share of the request's information pointing to the tool
 *   (the default before this one): MetaTool 0.728, Seal-Tools 0.961 → 0.950;
 * - BM25 (k1 5, b 0.5) times coverage^1.5 times evidence (half 15): MetaTool 0.762,
 *   Seal-Tools 0.961 → 0.959. Power 1 with half 10: 0.769 / 0.939; half 30: 0.752 / 0.960.
 *   The share's concentration (a word taught to many tools) is already in BM25's IDF, so the
 *   trust needs only what BM25 lacks: whether the tool's bag covers the request, and on how many
 *   sessions it rests, so a pair that just reached minSessions breaks ties and one taught by
 *   dozens leads.
 * - The same with k1 20 and b 1, the default: a bag's counts saturate later and its length is
 *   normalised in full, so a tool taught many requests no longer takes the words of a tool taught
 *   few (MetaTool's tune replay 0.758 → 0.775, Seal-Tools and LiveMCPBench unchanged). Tried and
 *   left: k1 40 (0.770), b 0.75 (0.769), power 1 (0.776, but Seal-Tools 0.961 → 0.956); and, in
 *   code since removed, a factor for the share of a word's taught count a tool holds, adjacent
 *   word pairs as terms (their records crowd single words out of the bags), a naive Bayes
 *   posterior in place of BM25: each scored lower on the tune replay.
 * - Plus a discriminative part (softmaxWeight 0.2, half 10; LearnedModel.#step, rate 4): bags
 *   alone cannot tell that a word taught to a tool with a long bag names another tool when the
 *   request's other words say so (tune replay 0.775 → 0.793; Seal-Tools and LiveMCPBench
 *   unchanged with fuse.ts's untaughtFirst, which it needs: without it, traffic that arrives one
 *   tool at a time gives the tools taught so far a bonus on any request sharing their words, and
 *   the learning bench's honest traffic before poisoning fell from 0.375 to 0.222 top-1). Half 8
 *   to 15 and weight 0.2 to 0.3 score within 0.003 of it; half 30 (0.789), half 60 (0.784),
 *   weight 0.1 (0.782), rate 2 (0.783) or 8 (0.788) less; the discriminative part times the
 *   bags' coverage^1.5 keeps only 0.780.
 */
export const LEARNED_BM25: LearnedScoreParams = { k1: 20, b: 1, coverPower: 1.5, evidenceHalf: 15, softmaxWeight: 0.2, softmaxHalf: 10 };

/** The discriminative step's rate (LearnedModel.#step); 0 turns the steps off. */
export const LEARNED_STEP = { rate: 4 };

/** Where a changed record sits, so that its row can be written (Learner.flush). */
interface DirtyPlace {
  scope: string;
  tool: string;
  term: string;
}

export class LearnedModel {
  readonly #scopes = new Map<string, ScopeModel>();
  /** Records changed here (taught, imported) since they were last taken for the store, in change order. */
  readonly #dirty = new Map<PairRecord, DirtyPlace>();
  /** Per owning tenant (scope-keys.ts): the scopes and records it holds. */
  readonly #tenants = new Map<string, { scopes: number; records: number }>();
  /** Records held in all. */
  #records = 0;
  /** Scoring's accumulators (#accumulators). */
  #scratch = new Float64Array(0);
  readonly #options: ResolvedLearningOptions;

  constructor(options: ResolvedLearningOptions) {
    this.#options = options;
  }

  /** Applies one observation; returns whether it changed anything (a repeat from a contributor does not). */
  observe(o: Observation): boolean {
    let scope = this.#scopes.get(o.scope);
    if (scope === undefined) scope = this.#openScope(o.scope);
    else {
      // Least recently used scope goes first when there are too many: keep this one fresh.
      this.#scopes.delete(o.scope);
      this.#scopes.set(o.scope, scope);
    }
    // Likewise the tool's bag within its scope.
    let bag = scope.tools.get(o.tool);
    if (bag === undefined) bag = new Map();
    else scope.tools.delete(o.tool);
    scope.tools.set(o.tool, bag);
    const fresh = new Set<string>();
    for (const term of o.terms) {
      let record = bag.get(term);
      if (record === undefined) {
        if (bag.size >= this.#options.maxTermsPerTool) this.#evictWeakest(scope, o.tool, bag, o.at);
        record = { count: 0, sessions: 0, at: o.at, seen: [], weight: 0 };
        this.#addRecord(scope, o.tool, bag, term, record);
      }
      if (record.seen.includes(o.contributor)) continue;
      record.seen.push(o.contributor);
      if (record.seen.length > this.#options.seenPerPair) record.seen.shift();
      record.sessions = Math.min(MAX_SESSIONS, record.sessions + 1);
      record.count = this.#decayed(record, o.at) + 1;
      record.at = Math.max(record.at, o.at);
      scope.summaries.delete(term);
      this.#dirty.set(record, { scope: o.scope, tool: o.tool, term });
      fresh.add(term);
    }
    if (fresh.size === 0) return false;
    scope.changedTools.add(o.tool);
    this.#keepShares(scope, o.tool);
    this.#step(scope, o.tool, o.terms, fresh, o.at);
    return true;
  }

  /**
   * The discriminative step of one credited call: a softmax regression step over the weights of
   * the counted pairs of the request's words (PairRecord.weight), toward the tool called. Bags
   * say which tools a word was taught for; the weights learn which of them it tells apart, given
   * the other words of the request ("website" with "company" is not the website tool).
   *
   * Within the minSessions rule: only the words this contributor newly gave the tool move, and
   * only where the (word, tool) pair counts, so neither a pair under minSessions nor a repeat of
   * a contributor moves any weight (a contributor moves a counted pair once, as it adds to its
   * count once). Linear in the request words' counted records, as a search of the scope is.
   */
  #step(scope: ScopeModel, tool: string, terms: readonly string[], fresh: ReadonlySet<string>, now: number): void {
    const rate = LEARNED_STEP.rate;
    const bag = scope.tools.get(tool);
    if (!(rate > 0) || bag === undefined) return;
    const features = this.#features(scope, terms, now);
    const moving = features.filter((f) => {
      const record = fresh.has(f.term) ? bag.get(f.term) : undefined;
      return record !== undefined && this.#active(record);
    });
    if (moving.length === 0) return;
    const logits = new Map<string, number>();
    for (const { summary, x } of features) {
      for (let i = 0; i < summary.tools.length; i++) logits.set(summary.tools[i]!, (logits.get(summary.tools[i]!) ?? 0) + x * summary.weights[i]!);
    }
    const p = softmax(logits);
    for (const { summary, x } of moving) {
      for (let i = 0; i < summary.tools.length; i++) {
        const other = summary.tools[i]!;
        summary.records[i]!.weight = summary.weights[i]! += rate * x * ((other === tool ? 1 : 0) - (p.get(other) ?? 0));
      }
    }
  }

  /**
   * A request's features for the discriminative weights: each word with counted pairs, weighted
   * by its IDF over what the scope was taught and L2-normalised (a long request must not weigh more).
   */
  #features(scope: ScopeModel, terms: readonly string[], now: number): Array<{ term: string; summary: TermSummary; x: number }> {
    const { total } = this.#lengths(scope, now);
    const out: Array<{ term: string; summary: TermSummary; x: number }> = [];
    let norm = 0;
    for (const term of new Set(terms)) {
      const summary = this.#summary(scope, term, now);
      if (summary.tools.length === 0) continue;
      const x = taughtIdf(total, summary.sum);
      norm += x * x;
      out.push({ term, summary, x });
    }
    norm = Math.sqrt(norm);
    for (const f of out) f.x /= norm;
    return out;
  }

  /**
   * Learned scores of the tools in `allowed` for these request terms, in one scope (see
   * LEARNED_BM25): each tool's BM25 over its active records (count as tf, an IDF over the
   * catalog, length-normalised by each bag's total count) relative to the best, times its
   * coverage of the request to `coverPower` and its evidence, so in [0, 1).
   *
   * Coverage: every request term weighs its IDF over what the scope was taught (a term in most
   * taught requests weighs little, one never taught weighs most) times its weight in the
   * catalog's own text (catalogWeight: a word common there says little of which tool is meant,
   * whatever the taught requests say; without it, a shared word like "create" taught to one
   * tool first outweighed the catalog's clear first hit); a tool's coverage is the share of the
   * request's weight whose terms its bag holds. Evidence: its strongest matched record's count
   * n, as n / (n + evidenceHalf). Tools outside `allowed` are never scored, so nothing here can
   * make a tool visible that policy hides.
   *
   * One pass over each term's records (this runs on every search of a taught scope).
   */
  /** Whether anything is learned for this scope: a search in one with nothing learned skips the request's terms entirely. */
  hasScope(scopeKey: string): boolean {
    return this.#scopes.has(scopeKey);
  }

  score(
    scopeKey: string,
    terms: readonly string[],
    allowed: ReadonlySet<string>,
    now: number,
    params: LearnedScoreParams = LEARNED_BM25,
    catalogWeight?: TermWeight,
  ): Map<string, number> {
    const out = new Map<string, number>();
    const scope = this.#scopes.get(scopeKey);
    if (scope === undefined || terms.length === 0) return out;
    const bags = this.#lengths(scope, now);
    const { total } = bags;
    const n = Math.max(scope.tools.size, allowed.size);
    // Per tool, in arrays side by side (a word taught to many tools makes thousands of them): its
    // index in `tools`, its BM25, coverage, evidence and logit.
    const index = new Map<string, number>();
    const tools: string[] = [];
    const summaries = [...new Set(terms)].map((term) => ({ term, summary: this.#summary(scope, term, now) }));
    const acc = this.#accumulators(summaries.reduce((most, { summary }) => most + summary.tools.length, 0));
    let mass = 0;
    // The discriminative features' norm (#features): the squared IDFs of the words with counted pairs.
    let norm = 0;
    for (const { term, summary } of summaries) {
      const { sum, df, tools: active, counts, weights } = summary;
      const taught = taughtIdf(total, sum);
      const weight = taught * (catalogWeight?.(term) ?? 1);
      mass += weight;
      if (active.length === 0) continue;
      norm += taught * taught;
      const idf = Math.log(1 + (n - Math.max(df, active.length) + 0.5) / (Math.max(df, active.length) + 0.5));
      const saturated = this.#saturated(summary, params, bags);
      for (let i = 0; i < active.length; i++) {
        const tool = active[i]!;
        if (!allowed.has(tool)) continue;
        let at = index.get(tool);
        if (at === undefined) {
          at = tools.length;
          index.set(tool, at);
          tools.push(tool);
        }
        acc.bm25[at]! += idf * saturated[i]!;
        acc.cover[at]! += weight;
        acc.evidence[at] = Math.max(acc.evidence[at]!, counts[i]!);
        acc.logit[at]! += taught * weights[i]!;
      }
    }
    let top = 0;
    for (let at = 0; at < tools.length; at++) top = Math.max(top, acc.bm25[at]!);
    if (!(top > 0) || !(mass > 0)) return out;
    // The softmax of the tools' logits (#step) against "none of them" at 0.
    norm = Math.sqrt(norm);
    let max = 0;
    for (let at = 0; at < tools.length; at++) max = Math.max(max, (acc.logit[at]! /= norm));
    let sum = Math.exp(-max);
    for (let at = 0; at < tools.length; at++) sum += acc.logit[at] = Math.exp(acc.logit[at]! - max);
    for (let at = 0; at < tools.length; at++) {
      const evidence = acc.evidence[at]!;
      const bagScore = (acc.bm25[at]! / top) * Math.pow(acc.cover[at]! / mass, params.coverPower) * (evidence / (evidence + params.evidenceHalf));
      const discriminative = (params.softmaxWeight * (acc.logit[at]! / sum) * evidence) / (evidence + params.softmaxHalf);
      out.set(tools[at]!, bagScore + discriminative);
    }
    return out;
  }

  /** Zeroed accumulators for `size` tools, reused from one search to the next (ranking is synchronous). */
  #accumulators(size: number): { bm25: Float64Array; cover: Float64Array; evidence: Float64Array; logit: Float64Array } {
    if (this.#scratch.length < size * 4) this.#scratch = new Float64Array(Math.max(size * 4, this.#scratch.length * 2));
    const all = this.#scratch.subarray(0, size * 4);
    all.fill(0);
    return { bm25: all.subarray(0, size), cover: all.subarray(size, size * 2), evidence: all.subarray(size * 2, size * 3), logit: all.subarray(size * 3) };
  }

  /** Whether the scope holds a counted pair of the tool (anything learned about it that ranking uses). */
  taught(scopeKey: string, tool: string, now: number): boolean {
    const scope = this.#scopes.get(scopeKey);
    return scope !== undefined && this.#lengths(scope, now).lengths.has(tool);
  }

  /**
   * What a tool's learned score rests on for these terms, for an operator's explain: the most
   * distinct contributors behind one of its matched active records, and the matched terms.
   */
  evidence(scopeKey: string, terms: readonly string[], tool: string): { sessions: number; terms: string[] } {
    const bag = this.#scopes.get(scopeKey)?.tools.get(tool);
    const matched: string[] = [];
    let sessions = 0;
    for (const term of new Set(terms)) {
      const record = bag?.get(term);
      if (record === undefined || !this.#active(record)) continue;
      matched.push(term);
      sessions = Math.max(sessions, record.sessions);
    }
    return { sessions, terms: matched };
  }

  /** A tool's learned records in a scope, strongest first: for an operator (the words are shown only where they are kept in clear). */
  toolTerms(scopeKey: string, tool: string, limit: number, now: number): Array<{ term: string; count: number; sessions: number }> {
    const bag = this.#scopes.get(scopeKey)?.tools.get(tool);
    if (bag === undefined) return [];
    return [...bag]
      .map(([term, r]) => ({ term, count: this.#decayed(r, now), sessions: r.sessions }))
      .sort((a, b) => b.count - a.count)
      .slice(0, limit);
  }

  /** Drops every record of a tool that is not in `ids` (the catalog changed). */
  retainTools(ids: IdFilter): number {
    let dropped = 0;
    for (const scope of this.#scopes.values()) {
      for (const tool of [...scope.tools.keys()]) {
        if (ids.has(tool)) continue;
        this.#dropTool(scope, tool);
        dropped++;
      }
    }
    return dropped;
  }

  /** Every record, for a store or an export. */
  *rows(): IterableIterator<LearnedRow> {
    for (const [scope, model] of this.#scopes) {
      for (const [tool, bag] of model.tools) {
        for (const [term, r] of bag) yield { scope, tool, term, count: r.count, sessions: r.sessions, at: r.at, seen: [...r.seen] };
      }
    }
  }

  /** Records changed since they were last taken (what the store does not hold yet). */
  get dirtyCount(): number {
    return this.#dirty.size;
  }

  /**
   * Up to `max` changed records as rows, oldest change first, no longer counted as changed. A
   * record that changes again later is taken again. `putBack` marks them changed again (the
   * store refused them).
   */
  takeDirty(max: number): { rows: LearnedRow[]; putBack: () => void } {
    const rows: LearnedRow[] = [];
    const taken: Array<[PairRecord, DirtyPlace]> = [];
    for (const [record, place] of this.#dirty) {
      if (rows.length >= max) break;
      taken.push([record, place]);
      rows.push({ ...place, count: record.count, sessions: record.sessions, at: record.at, seen: [...record.seen] });
    }
    for (const [record] of taken) this.#dirty.delete(record);
    return {
      rows,
      putBack: () => {
        for (const [record, place] of taken) if (!this.#dirty.has(record)) this.#dirty.set(record, place);
      },
    };
  }

  /**
   * Merges rows from elsewhere (a store written by another worker, a replica's export): a pair
   * known on both sides keeps the union of its recent contributors and gains what the other
   * side's new contributors gave, so that merging the same rows twice changes nothing.
   * `changed`: the rows are new to the store too (an import), so they are written at the next flush.
   */
  merge(rows: Iterable<LearnedRow>, changed = false): void {
    for (const row of rows) {
      const scope = this.#scopes.get(row.scope) ?? this.#openScope(row.scope);
      scope.changedTools.add(row.tool);
      let bag = scope.tools.get(row.tool);
      if (bag === undefined) scope.tools.set(row.tool, (bag = new Map()));
      const mine = bag.get(row.term);
      if (mine === undefined) {
        if (bag.size >= this.#options.maxTermsPerTool) this.#evictWeakest(scope, row.tool, bag, row.at);
        const seen = row.seen.slice(-this.#options.seenPerPair);
        const record = { count: row.count, sessions: Math.min(MAX_SESSIONS, row.sessions), at: row.at, seen, weight: 0 };
        this.#addRecord(scope, row.tool, bag, row.term, record);
        if (changed) this.#dirty.set(record, { scope: row.scope, tool: row.tool, term: row.term });
        this.#keepShares(scope, row.tool);
        continue;
      }
      // Contributors they saw and this side did not: each adds what one contribution adds. The
      // same rows merged again add nothing (their contributors are in `seen` now).
      const fresh = row.seen.filter((h) => !mine.seen.includes(h)).length;
      const at = Math.max(mine.at, row.at);
      const theirs = row.count * Math.pow(2, -(at - row.at) / this.#halfLifeMs());
      mine.count = Math.max(this.#decayed(mine, at) + fresh, theirs);
      mine.at = at;
      mine.sessions = Math.min(MAX_SESSIONS, Math.max(mine.sessions + fresh, row.sessions));
      mine.seen = [...new Set([...mine.seen, ...row.seen])].slice(-this.#options.seenPerPair);
      scope.summaries.delete(row.term);
      if (changed) this.#dirty.set(mine, { scope: row.scope, tool: row.tool, term: row.term });
    }
  }

  clear(): void {
    this.#dirty.clear();
    this.#scopes.clear();
    this.#tenants.clear();
    this.#records = 0;
  }

  /** Records held, and the active ones (what ranking uses). */
  size(): { records: number; active: number; tools: number; scopes: number } {
    let records = 0;
    let active = 0;
    let tools = 0;
    for (const scope of this.#scopes.values()) {
      tools += scope.tools.size;
      for (const bag of scope.tools.values()) {
        records += bag.size;
        for (const r of bag.values()) if (this.#active(r)) active++;
      }
    }
    return { records, active, tools, scopes: this.#scopes.size };
  }

  /** size() scope by scope, with the tenant each counts against (scope-keys.ts): counts only, never a term. */
  scopeSizes(): Array<{ scope: string; tenant: string; records: number; active: number; tools: number }> {
    return [...this.#scopes].map(([key, scope]) => {
      let records = 0;
      let active = 0;
      for (const bag of scope.tools.values()) {
        records += bag.size;
        for (const r of bag.values()) if (this.#active(r)) active++;
      }
      return { scope: key, tenant: tenantOfScope(key), records, active, tools: scope.tools.size };
    });
  }

  #active(r: PairRecord): boolean {
    return r.sessions >= this.#options.minSessions;
  }

  #halfLifeMs(): number {
    return this.#options.halfLifeDays * 86_400_000;
  }

  /**
   * A count decayed by its age in whole hours: within an hour nothing moves, so that rankings
   * are stable from one request to the next (a near tie must not flip with the clock) and one
   * scope's traffic, which makes another's cached lengths be recomputed, cannot shift it.
   */
  #decayed(r: PairRecord, now: number): number {
    const age = Math.floor((now - r.at) / DECAY_STEP_MS) * DECAY_STEP_MS;
    if (age <= 0) return r.count;
    return r.count * Math.exp((-LN2 * age) / this.#halfLifeMs());
  }

  /** A term's summary in a scope (TermSummary), cached. Its taught total and document frequency count its pairs, counted or not yet (ScopeModel.totalsFrom). */
  #summary(scope: ScopeModel, term: string, now: number): TermSummary {
    const cached = scope.summaries.get(term);
    if (cached !== undefined && Math.abs(now - cached.at) < LENGTH_CACHE_MS) return cached;
    const summary: TermSummary = { at: now, sum: 0, df: 0, tools: [], counts: [], records: [], weights: new Float64Array(0) };
    const records = scope.byTerm.get(term);
    if (records === undefined) return summary;
    for (const [tool, record] of records) {
      if (record.sessions < scope.totalsFrom) continue;
      const c = this.#decayed(record, now);
      summary.sum += c;
      summary.df++;
      if (!this.#active(record)) continue;
      summary.tools.push(tool);
      summary.counts.push(c);
      summary.records.push(record);
    }
    summary.weights = Float64Array.from(summary.records, (r) => r.weight);
    scope.summaries.set(term, summary);
    return summary;
  }

  /** tf·(k1 + 1) / (tf + k1·(1 − b + b·length / mean)) of each of the summary's records, kept while the bag lengths and parameters are the same. */
  #saturated(summary: TermSummary, params: LearnedScoreParams, bags: BagLengths): Float64Array {
    const kept = summary.saturated;
    if (kept !== undefined && kept.stamp === bags.stamp && kept.params === params) return kept.values;
    const values = new Float64Array(summary.tools.length);
    for (let i = 0; i < values.length; i++) {
      const tf = summary.counts[i]!;
      const norm = params.k1 * (1 - params.b + (params.b * (bags.lengths.get(summary.tools[i]!) ?? 0)) / bags.mean);
      values[i] = (tf * (params.k1 + 1)) / (tf + norm);
    }
    summary.saturated = { stamp: bags.stamp, params, values };
    return values;
  }

  /**
   * The scope's bag lengths (BagLengths): taken in full at most every LENGTH_CACHE_MS, and in
   * between only those of the tools whose bag changed (at most maxTermsPerTool records each),
   * so a busy scope, which changes on every call, never walks all its records per search.
   */
  #lengths(scope: ScopeModel, now: number): BagLengths {
    let bags = scope.cache;
    if (bags === undefined || Math.abs(now - bags.at) >= LENGTH_CACHE_MS) {
      bags = { at: now, stamp: 0, lengths: new Map(), taught: new Map(), total: 0, sum: 0, tools: 0, mean: 1 };
      scope.cache = bags;
      scope.changedTools.clear();
      for (const tool of scope.tools.keys()) this.#measureBag(scope, bags, tool, now);
    } else if (scope.changedTools.size > 0) {
      for (const tool of scope.changedTools) this.#measureBag(scope, bags, tool, now);
      scope.changedTools.clear();
    } else return bags;
    bags.stamp = ++lengthStamps;
    bags.mean = bags.tools === 0 ? 1 : bags.sum / bags.tools;
    return bags;
  }

  /** Takes one tool's bag length and taught count again (a tool no longer in the scope has neither). */
  #measureBag(scope: ScopeModel, bags: BagLengths, tool: string, now: number): void {
    let length = 0;
    let taught = 0;
    for (const r of scope.tools.get(tool)?.values() ?? []) {
      if (r.sessions < scope.totalsFrom) continue;
      const c = this.#decayed(r, now);
      taught += c;
      if (this.#active(r)) length += c;
    }
    const before = bags.lengths.get(tool) ?? 0;
    bags.total += taught - (bags.taught.get(tool) ?? 0);
    bags.sum += length - before;
    bags.tools += (length > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
    if (taught > 0) bags.taught.set(tool, taught);
    else bags.taught.delete(tool);
    if (length > 0) bags.lengths.set(tool, length);
    else bags.lengths.delete(tool);
  }

  /** The weakest record of a full bag goes: inactive before active, then the lowest decayed count, then the oldest. */
  #evictWeakest(scope: ScopeModel, tool: string, bag: ToolBag, now: number): void {
    let worst: string | undefined;
    let worstKey = Infinity;
    for (const [term, r] of bag) {
      const key = (this.#active(r) ? 1e9 : 0) + this.#decayed(r, now) + r.at / 1e16;
      if (key < worstKey) {
        worstKey = key;
        worst = term;
      }
    }
    if (worst === undefined) return;
    const record = bag.get(worst);
    if (record !== undefined) this.#dirty.delete(record);
    bag.delete(worst);
    scope.changedTools.add(tool);
    scope.summaries.delete(worst);
    this.#counted(scope, -1);
    const tools = scope.byTerm.get(worst);
    tools?.delete(tool);
    if (tools?.size === 0) scope.byTerm.delete(worst);
  }

  #dropTool(scope: ScopeModel, tool: string): void {
    scope.changedTools.add(tool);
    this.#counted(scope, -(scope.tools.get(tool)?.size ?? 0));
    for (const [term, record] of scope.tools.get(tool) ?? []) {
      this.#dirty.delete(record);
      scope.summaries.delete(term);
      const tools = scope.byTerm.get(term);
      tools?.delete(tool);
      if (tools?.size === 0) scope.byTerm.delete(term);
    }
    scope.tools.delete(tool);
  }

  #addRecord(scope: ScopeModel, tool: string, bag: ToolBag, term: string, record: PairRecord): void {
    bag.set(term, record);
    scope.summaries.delete(term);
    let tools = scope.byTerm.get(term);
    if (tools === undefined) scope.byTerm.set(term, (tools = new Map()));
    tools.set(tool, record);
    this.#counted(scope, 1);
  }

  #counted(scope: ScopeModel, delta: number): void {
    this.#records += delta;
    const share = this.#tenants.get(scope.tenant);
    if (share !== undefined) share.records += delta;
  }

  /**
   * A new scope, within its tenant's share of scopes: past `maxScopesPerTenant` a tenant's own
   * least recently taught scope goes; past `maxScopes` in all, that of the tenant holding the
   * most scopes. A tenant that mints agent ids (or sessions, in the token scope without auth)
   * so evicts its own learning, never another tenant's while it holds more than they do. Where no
   * tenant is known (the library, a local server without tokens) there is nobody to be fair
   * between: only the totals apply.
   */
  #openScope(key: string): ScopeModel {
    const scope = new ScopeModel(key, this.#options.minSessions);
    if (scope.tenant !== NO_TENANT && (this.#tenants.get(scope.tenant)?.scopes ?? 0) >= this.#options.maxScopesPerTenant) this.#dropOldestScopeOf(scope.tenant);
    if (this.#scopes.size >= this.#options.maxScopes) this.#dropOldestScopeOf(this.#largestTenant("scopes"));
    const share = this.#tenants.get(scope.tenant) ?? { scopes: 0, records: 0 };
    this.#tenants.set(scope.tenant, share);
    this.#scopes.set(key, scope);
    share.scopes++;
    return scope;
  }

  /**
   * Records within shares, after `scope` was taught `tool`: past `maxRecordsPerTenant` the
   * tenant's least recently taught tool bags go (never the one just taught); past `maxRecords`
   * in all, those of the tenant holding the most records. Whole bags go, least recently taught
   * first, so the check is cheap and what a tenant still uses stays.
   */
  #keepShares(scope: ScopeModel, tool: string): void {
    const mine = this.#tenants.get(scope.tenant);
    while (scope.tenant !== NO_TENANT && mine !== undefined && mine.records > this.#options.maxRecordsPerTenant) {
      if (!this.#dropOldestBagOf(scope.tenant, scope, tool)) break;
    }
    while (this.#records > this.#options.maxRecords) {
      if (!this.#dropOldestBagOf(this.#largestTenant("records"), scope, tool)) break;
    }
  }

  #largestTenant(by: "scopes" | "records"): string {
    let largest = "";
    let most = -1;
    for (const [tenant, share] of this.#tenants) {
      if (share[by] > most) {
        most = share[by];
        largest = tenant;
      }
    }
    return largest;
  }

  /** The tenant's least recently taught tool bag goes (not `keep` in `current`); false when there is none. */
  #dropOldestBagOf(tenant: string, current: ScopeModel, keep: string): boolean {
    for (const [key, scope] of this.#scopes) {
      if (scope.tenant !== tenant) continue;
      for (const tool of scope.tools.keys()) {
        if (scope === current && tool === keep) continue;
        this.#dropTool(scope, tool);
        if (scope.tools.size === 0 && scope !== current) this.#dropScope(key);
        return true;
      }
    }
    return false;
  }

  #dropOldestScopeOf(tenant: string): void {
    for (const [key, scope] of this.#scopes) {
      if (scope.tenant !== tenant) continue;
      this.#dropScope(key);
      return;
    }
  }

  #dropScope(key: string): void {
    const scope = this.#scopes.get(key);
    if (scope === undefined) return;
    let records = 0;
    for (const bag of scope.tools.values()) {
      records += bag.size;
      for (const record of bag.values()) this.#dirty.delete(record);
    }
    this.#counted(scope, -records);
    this.#scopes.delete(key);
    const share = this.#tenants.get(scope.tenant);
    if (share === undefined) return;
    share.scopes--;
    if (share.scopes <= 0) this.#tenants.delete(scope.tenant);
  }
}

/** A word's IDF over what a scope was taught: its taught count `sum` against the scope's `total`. */
function taughtIdf(total: number, sum: number): number {
  return Math.log(1 + Math.max(total, sum) / (sum + 0.5));
}

/**
 * Softmax of tool logits against a "none of them" logit of 0: a tool's probability nears 1 only
 * where its weights say so, not merely for being the one tool a word was taught for.
 */
function softmax(logits: ReadonlyMap<string, number>): Map<string, number> {
  let max = 0;
  for (const l of logits.values()) max = Math.max(max, l);
  let sum = Math.exp(-max);
  for (const l of logits.values()) sum += Math.exp(l - max);
  const out = new Map<string, number>();
  for (const [tool, l] of logits) out.set(tool, Math.exp(l - max) / sum);
  return out;
}
