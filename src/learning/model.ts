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

class ScopeModel {
  /**
   * Contributors a pair needs to weigh in a term's totals. In the shared scope, where each
   * tenant is one contributor, 2: what one tenant alone taught moves nobody's ranking, not even
   * through a total. In an agent's or a token's scope (that scope's own traffic) 1: every pair
   * weighs, so a word of many requests ("need", "find") weighs little long before its pairs count.
   */
  readonly totalsFrom: number;
  constructor(shared: boolean, minSessions: number) {
    this.totalsFrom = shared ? Math.min(2, minSessions) : 1;
  }
  /** tool → its bag */
  readonly tools = new Map<string, ToolBag>();
  /** term → the tools whose bag holds it (active or not), each with its record (the same object as in the bag) */
  readonly byTerm = new Map<string, Map<string, PairRecord>>();
  /** Bumped on every change: the cached lengths below are for one version. */
  version = 0;
  /** Bag lengths (sum of active decayed counts) and their mean, cached per version and hour: decay moves them slowly. */
  cache: { version: number; at: number; mean: number; total: number; lengths: Map<string, number> } | undefined;
}

/** Cached bag lengths are recomputed at least this often (decay changes them slowly). */
const LENGTH_CACHE_MS = 3_600_000;
const LENGTH_REFRESH_MS = 5_000;

const MAX_SESSIONS = 255;
/** The key of the scope everyone shares (learner.ts scopeOf). */
export const SHARED_SCOPE = "shared";
const LN2 = Math.LN2;
/** Decay advances in steps of this age. */
const DECAY_STEP_MS = 3_600_000;

export interface LearnedScoreParams {
  k1: number;
  b: number;
  /** "share": the share of the request's information that points to the tool (see score); "bm25": BM25 over the bags. */
  kind: "share" | "bm25" | "hybrid";
  /** share: pseudo-count added to a term's total, so that a term seen three times is weaker evidence than one seen thirty. */
  alpha: number;
}

/**
 * How learned bags are scored, chosen on MetaTool's tune split alone (replay 80% of it, score
 * the other 20%; `node dist/bench/learning/probe.js`), top-1 at 100 / 1,000 / 13,140 sessions,
 * 0.453 without learning:
 * - "bm25" (k1 20, b 0.3; k1 1.2 gave 0.60 at the end): ... / 0.427 / 0.765: best with much
 *   traffic, but a few weak pairs early push generic words' tools to the top;
 * - "share" (weight 8): ... / 0.537 / 0.694: never hurts, learns slowly;
 * - "hybrid" (weight 20): 0.455 / 0.505 / 0.743 (at the commit that chose it; weight 50: 0.451 / 0.475 / 0.759,
 *   but Seal-Tools dev replayed half on half 0.974 → 0.960, against 0.969 at 20): BM25 orders the learned tools, the share of
 *   the request's information they cover says how far to trust them. The default.
 */
export const LEARNED_BM25: LearnedScoreParams = { k1: 20, b: 0.3, kind: "hybrid", alpha: 2 };

export class LearnedModel {
  readonly #scopes = new Map<string, ScopeModel>();
  readonly #options: ResolvedLearningOptions;

  constructor(options: ResolvedLearningOptions) {
    this.#options = options;
  }

  /** Applies one observation; returns whether it changed anything (a repeat from a contributor does not). */
  observe(o: Observation): boolean {
    let scope = this.#scopes.get(o.scope);
    if (scope === undefined) {
      if (this.#scopes.size >= this.#options.maxScopes) this.#dropOldestScope();
      scope = new ScopeModel(o.scope === SHARED_SCOPE, this.#options.minSessions);
      this.#scopes.set(o.scope, scope);
    } else {
      // Least recently used scope goes first when there are too many: keep this one fresh.
      this.#scopes.delete(o.scope);
      this.#scopes.set(o.scope, scope);
    }
    let bag = scope.tools.get(o.tool);
    if (bag === undefined) {
      bag = new Map();
      scope.tools.set(o.tool, bag);
    }
    let changed = false;
    for (const term of o.terms) {
      let record = bag.get(term);
      if (record === undefined) {
        if (bag.size >= this.#options.maxTermsPerTool) this.#evictWeakest(scope, o.tool, bag, o.at);
        record = { count: 0, sessions: 0, at: o.at, seen: [] };
        bag.set(term, record);
        let tools = scope.byTerm.get(term);
        if (tools === undefined) scope.byTerm.set(term, (tools = new Map()));
        tools.set(o.tool, record);
      }
      if (record.seen.includes(o.contributor)) continue;
      record.seen.push(o.contributor);
      if (record.seen.length > this.#options.seenPerPair) record.seen.shift();
      record.sessions = Math.min(MAX_SESSIONS, record.sessions + 1);
      record.count = this.#decayed(record, o.at) + 1;
      record.at = Math.max(record.at, o.at);
      changed = true;
    }
    if (changed) scope.version++;
    return changed;
  }

  /**
   * Learned scores of the tools in `allowed` for these request terms, in one scope (see
   * LEARNED_BM25): by default each tool's BM25 over the active records (count as tf, an IDF
   * over the catalog, length-normalised by each bag's total count) relative to the best, times
   * the trust the request earns (#shareScore's best), so in [0, 1). Tools outside `allowed` are
   * never scored, so nothing here can make a tool visible that policy hides.
   */
  score(scopeKey: string, terms: readonly string[], allowed: ReadonlySet<string>, now: number, params: LearnedScoreParams = LEARNED_BM25, catalogWeight?: TermWeight): Map<string, number> {
    const out = new Map<string, number>();
    const scope = this.#scopes.get(scopeKey);
    if (scope === undefined || terms.length === 0) return out;
    if (params.kind === "share") return this.#shareScore(scope, terms, allowed, now, params.alpha, catalogWeight);
    if (params.kind === "hybrid") {
      const share = this.#shareScore(scope, terms, allowed, now, params.alpha, catalogWeight);
      const bm25 = this.score(scopeKey, terms, allowed, now, { ...params, kind: "bm25" });
      let trust = 0;
      for (const v of share.values()) trust = Math.max(trust, v);
      let top = 0;
      for (const v of bm25.values()) top = Math.max(top, v);
      for (const [tool, v] of bm25) out.set(tool, top > 0 ? (v / top) * trust : 0);
      return out;
    }
    const n = scope.tools.size;
    let avg = 0;
    const lengthOf = (tool: string): number => this.#lengthOf(scope, tool, now);
    for (const term of new Set(terms)) {
      const tools = scope.byTerm.get(term);
      if (tools === undefined) continue;
      const hits: Array<[string, number]> = [];
      for (const [tool, record] of tools) {
        if (!this.#active(record)) continue;
        hits.push([tool, this.#decayed(record, now)]);
      }
      if (hits.length === 0) continue;
      if (avg === 0) avg = this.#lengths(scope, now).mean;
      // The IDF is over the whole catalog and counted pairs only (a pair not yet counted moves nothing).
      // Tools whose bag holds the term (pending pairs too, but as totals do: see ScopeModel.totalsFrom).
      let df = 0;
      for (const record of tools.values()) if (record.sessions >= scope.totalsFrom) df++;
      df = Math.max(df, hits.length);
      const idf = Math.log(1 + (Math.max(n, allowed.size) - df + 0.5) / (df + 0.5));
      for (const [tool, tf] of hits) {
        if (!allowed.has(tool)) continue;
        const norm = params.k1 * (1 - params.b + (params.b * lengthOf(tool)) / avg);
        out.set(tool, (out.get(tool) ?? 0) + (idf * tf * (params.k1 + 1)) / (tf + norm));
      }
    }
    return out;
  }

  /**
   * The share of the request's information that points to each tool: every request term weighs
   * its IDF over what the scope was taught (a term in most taught requests weighs little, one
   * never taught weighs most), and gives each tool the share of the term's taught count that
   * is that tool's (active records only; the total counts pending pairs too, see ScopeModel.totalsFrom, plus `alpha`).
   * The sum over the request's terms, over the request's whole IDF mass, is in [0, 1): a
   * request whose words were mostly taught for one tool scores near 1 for it; one with a
   * single taught word among new ones scores low, so the catalog's text leads.
   */
  #shareScore(scope: ScopeModel, terms: readonly string[], allowed: ReadonlySet<string>, now: number, alpha: number, catalogWeight?: TermWeight): Map<string, number> {
    const out = new Map<string, number>();
    const total = this.#lengths(scope, now).total;
    let mass = 0;
    for (const term of new Set(terms)) {
      const tools = scope.byTerm.get(term);
      let sum = 0;
      const active: Array<[string, number]> = [];
      for (const [tool, record] of tools ?? []) {
        // A term's total counts its pairs, counted or not yet (see ScopeModel.totalsFrom).
        if (record.sessions < scope.totalsFrom) continue;
        const c = this.#decayed(record, now);
        sum += c;
        if (this.#active(record) && allowed.has(tool)) active.push([tool, c]);
      }
      // A total a few seconds stale may not hold this term's latest pairs yet.
      // A word common in the catalog's own text (catalogWeight near 0) says little of which tool is
      // meant, whatever the taught requests say: without this, a shared word like "create", taught
      // to one tool before the others, outweighed the catalog's clear first hit.
      const idf = Math.log(1 + Math.max(total, sum) / (sum + 0.5)) * (catalogWeight?.(term) ?? 1);
      mass += idf;
      for (const [tool, c] of active) out.set(tool, (out.get(tool) ?? 0) + (idf * c) / (sum + alpha));
    }
    if (mass > 0) for (const [tool, v] of out) out.set(tool, v / mass);
    return out;
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

  /**
   * Merges rows from elsewhere (a store written by another worker, a replica's export): a pair
   * known on both sides keeps the union of its recent contributors and gains what the other
   * side's new contributors gave, so that merging the same rows twice changes nothing.
   */
  merge(rows: Iterable<LearnedRow>): void {
    for (const row of rows) {
      let scope = this.#scopes.get(row.scope);
      if (scope === undefined) {
        if (this.#scopes.size >= this.#options.maxScopes) this.#dropOldestScope();
        this.#scopes.set(row.scope, (scope = new ScopeModel(row.scope === SHARED_SCOPE, this.#options.minSessions)));
      }
      scope.version++;
      let bag = scope.tools.get(row.tool);
      if (bag === undefined) scope.tools.set(row.tool, (bag = new Map()));
      const mine = bag.get(row.term);
      if (mine === undefined) {
        if (bag.size >= this.#options.maxTermsPerTool) this.#evictWeakest(scope, row.tool, bag, row.at);
        const record = { count: row.count, sessions: Math.min(MAX_SESSIONS, row.sessions), at: row.at, seen: row.seen.slice(-this.#options.seenPerPair) };
        bag.set(row.term, record);
        let tools = scope.byTerm.get(row.term);
        if (tools === undefined) scope.byTerm.set(row.term, (tools = new Map()));
        tools.set(row.tool, record);
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
    }
  }

  clear(): void {
    this.#scopes.clear();
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

  /** The scope's bag lengths and their mean (over bags with an active record), cached. */
  #lengths(scope: ScopeModel, now: number): { mean: number; total: number; lengths: Map<string, number> } {
    const cached = scope.cache;
    // Recomputed when the scope changed, at most every LENGTH_REFRESH_MS: a busy scope changes on
    // every call, and the lengths are only normalisers (a few seconds stale changes nothing).
    const fresh = cached !== undefined && (cached.version === scope.version || now - cached.at < LENGTH_REFRESH_MS) && Math.abs(now - cached.at) < LENGTH_CACHE_MS;
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

  #lengthOf(scope: ScopeModel, tool: string, now: number): number {
    return this.#lengths(scope, now).lengths.get(tool) ?? 0;
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
    bag.delete(worst);
    const tools = scope.byTerm.get(worst);
    tools?.delete(tool);
    if (tools?.size === 0) scope.byTerm.delete(worst);
  }

  #dropTool(scope: ScopeModel, tool: string): void {
    scope.version++;
    for (const term of scope.tools.get(tool)?.keys() ?? []) {
      const tools = scope.byTerm.get(term);
      tools?.delete(tool);
      if (tools?.size === 0) scope.byTerm.delete(term);
    }
    scope.tools.delete(tool);
  }

  #dropOldestScope(): void {
    const oldest = this.#scopes.keys().next().value;
    if (oldest !== undefined) this.#scopes.delete(oldest);
  }
}
