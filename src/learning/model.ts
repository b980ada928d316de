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
  /** Each active record's BM25 term frequency part, for one set of bag lengths and parameters. */
  saturated?: { lengths: ReadonlyMap<string, number>; params: LearnedScoreParams; values: Float64Array };
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
  /** Bumped on every change: the cached lengths below are for one version. */
  version = 0;
  /** Bag lengths (sum of active decayed counts) and their mean, cached per version and hour: decay moves them slowly. */
  cache: { version: number; at: number; mean: number; total: number; lengths: Map<string, number> } | undefined;
}

/** Cached bag lengths are recomputed at least this often (decay changes them slowly). */
const LENGTH_CACHE_MS = 3_600_000;
const LENGTH_REFRESH_MS = 5_000;

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
 */
export const LEARNED_BM25: LearnedScoreParams = { k1: 20, b: 1, coverPower: 1.5, evidenceHalf: 15 };

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
    let changed = false;
    for (const term of o.terms) {
      let record = bag.get(term);
      if (record === undefined) {
        if (bag.size >= this.#options.maxTermsPerTool) this.#evictWeakest(scope, o.tool, bag, o.at);
        record = { count: 0, sessions: 0, at: o.at, seen: [] };
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
      changed = true;
    }
    if (changed) scope.version++;
    this.#keepShares(scope, o.tool);
    return changed;
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
    const { total, lengths } = this.#lengths(scope, now);
    const n = Math.max(scope.tools.size, allowed.size);
    const tools = new Map<string, { bm25: number; cover: number; evidence: number }>();
    let mass = 0;
    for (const term of new Set(terms)) {
      const summary = this.#summary(scope, term, now);
      const { sum, df, tools: active, counts } = summary;
      // A total a few seconds stale may not hold this term's latest pairs yet.
      const weight = Math.log(1 + Math.max(total, sum) / (sum + 0.5)) * (catalogWeight?.(term) ?? 1);
      mass += weight;
      if (active.length === 0) continue;
      const idf = Math.log(1 + (n - Math.max(df, active.length) + 0.5) / (Math.max(df, active.length) + 0.5));
      const saturated = this.#saturated(summary, scope, params, lengths);
      for (let i = 0; i < active.length; i++) {
        const tool = active[i]!;
        if (!allowed.has(tool)) continue;
        const tf = counts[i]!;
        let acc = tools.get(tool);
        if (acc === undefined) tools.set(tool, (acc = { bm25: 0, cover: 0, evidence: 0 }));
        acc.bm25 += idf * saturated[i]!;
        acc.cover += weight;
        acc.evidence = Math.max(acc.evidence, tf);
      }
    }
    let top = 0;
    for (const acc of tools.values()) top = Math.max(top, acc.bm25);
    if (!(top > 0) || !(mass > 0)) return out;
    for (const [tool, acc] of tools) {
      out.set(tool, (acc.bm25 / top) * Math.pow(acc.cover / mass, params.coverPower) * (acc.evidence / (acc.evidence + params.evidenceHalf)));
    }
    return out;
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
      scope.version++;
      let bag = scope.tools.get(row.tool);
      if (bag === undefined) scope.tools.set(row.tool, (bag = new Map()));
      const mine = bag.get(row.term);
      if (mine === undefined) {
        if (bag.size >= this.#options.maxTermsPerTool) this.#evictWeakest(scope, row.tool, bag, row.at);
        const record = { count: row.count, sessions: Math.min(MAX_SESSIONS, row.sessions), at: row.at, seen: row.seen.slice(-this.#options.seenPerPair) };
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
    const summary: TermSummary = { at: now, sum: 0, df: 0, tools: [], counts: [] };
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
    }
    scope.summaries.set(term, summary);
    return summary;
  }

  /** tf·(k1 + 1) / (tf + k1·(1 − b + b·length / mean)) of each of the summary's records, kept while the bag lengths and parameters are the same. */
  #saturated(summary: TermSummary, scope: ScopeModel, params: LearnedScoreParams, lengths: ReadonlyMap<string, number>): Float64Array {
    const kept = summary.saturated;
    if (kept !== undefined && kept.lengths === lengths && kept.params === params) return kept.values;
    const mean = scope.cache?.mean ?? 1;
    const values = new Float64Array(summary.tools.length);
    for (let i = 0; i < values.length; i++) {
      const tf = summary.counts[i]!;
      const norm = params.k1 * (1 - params.b + (params.b * (lengths.get(summary.tools[i]!) ?? 0)) / mean);
      values[i] = (tf * (params.k1 + 1)) / (tf + norm);
    }
    summary.saturated = { lengths, params, values };
    return values;
  }

  /** The scope's bag lengths and their mean (over bags with an active record), cached. */
  #lengths(scope: ScopeModel, now: number): { mean: number; total: number; lengths: Map<string, number> } {
    const cached = scope.cache;
    // Recomputed when the scope changed, at most every LENGTH_REFRESH_MS: a busy scope changes on
    // every call, and the lengths are only normalisers (a few seconds stale changes nothing).
    const fresh =
      cached !== undefined && (cached.version === scope.version || now - cached.at < LENGTH_REFRESH_MS) && Math.abs(now - cached.at) < LENGTH_CACHE_MS;
    if (fresh) return cached;
    let total = 0;
    let all = 0;
    let tools = 0;
    const lengths = new Map<string, number>();
    for (const [tool, bag] of scope.tools) {
      let len = 0;
      for (const r of bag.values()) {
        if (r.sessions < scope.totalsFrom) continue;
        const c = this.#decayed(r, now);
        all += c;
        if (this.#active(r)) len += c;
      }
      lengths.set(tool, len);
      if (len > 0) {
        total += len;
        tools++;
      }
    }
    scope.cache = { version: scope.version, at: now, mean: tools === 0 ? 1 : total / tools, total: all, lengths };
    return scope.cache;
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
    scope.summaries.delete(worst);
    this.#counted(scope, -1);
    const tools = scope.byTerm.get(worst);
    tools?.delete(tool);
    if (tools?.size === 0) scope.byTerm.delete(worst);
  }

  #dropTool(scope: ScopeModel, tool: string): void {
    scope.version++;
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
