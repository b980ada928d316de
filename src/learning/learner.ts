/**
 * Learning from use: the engine's one Learner holds the model (model.ts), takes observations
 * from runs (RunLearning, below), writes them to its store every `flushMs` and when the engine
 * closes, and answers each run's learned scores.
 *
 * Attribution (what a run teaches). A gateway sees the model search, maybe search again with
 * other words, then call. When a call of a catalog tool succeeds, the run's latest search
 * whose hits listed that tool taught it, and so did the searches just before it (at most
 * MAX_REPHRASINGS) that did not list it and were credited to nothing: those are the same
 * request, rephrased because the first words did not find the tool — exactly the vocabulary
 * the catalog lacks. A search is credited to a tool once, and to MAX_TOOLS_PER_SEARCH tools
 * at most (a code body may call several hits of one search); a call with no search before it
 * (a known id, direct mode), a failed call, and client tools teach nothing. `run.feedback(request, id)` is the same signal
 * from a library caller who knows better.
 *
 * Scope and contributors. Observations go to the run's scope (scope-keys.ts): the agent's
 * within its tenant (default), the tenant's (`token`) or everyone's (`shared`); each tenant holds
 * a bounded share of scopes and records (model.ts). A pair counts once per contributor and only after
 * `minSessions` distinct ones (model.ts); the contributor is the session, except in the shared
 * scope, where it is the tenant (a token's label in the gateway): sessions cost nothing to
 * mint, so one tenant must never count as several there. Contributors are stored as hashes.
 * One contributor teaches at most `maxToolsPerSession` tools.
 */
import { createHash } from "node:crypto";
import { agentScopeKey, tenantOfScope, tokenScopeKey } from "./scope-keys.js";
import { SessionCaps } from "./session-caps.js";
import { PendingObservations } from "./pending.js";
import { LearnedModel, SHARED_SCOPE, type IdFilter, type LearnedRow, type Observation, type TermWeight } from "./model.js";
import type { ResolvedLearningOptions } from "./options.js";
import { checkedRows, type LearnedExport, type LearningStore } from "./store.js";
import { learnedTerms } from "./terms.js";
import { DEFAULT_FUSE, fuseLearned, type FusedHit } from "./fuse.js";
import type { BackendHit, CorpusStats } from "../search/types.js";

/** Searches before the one that found the tool that are credited with it (rephrasings). */
const MAX_REPHRASINGS = 2;
/** Searches a run remembers while it waits for a call. */
const MAX_PENDING_SEARCHES = 8;
/** Observations held between two writes; past it the oldest of the tenant holding the most are dropped (pending.ts). */
const MAX_PENDING_OBSERVATIONS = 50_000;

/** Who a run is, as learning sees it. */
export interface LearningSubject {
  sessionId: string;
  agentId?: string;
  tenant?: string;
}

export interface LearningStats {
  records: number;
  active: number;
  tools: number;
  scopes: number;
  pending: number;
  store: string;
}

/** One learning scope's size (`engine.learning.scopes()`): `scope` is its key (agent:<id>, tenant:<t>:agent:<id>, token:<t>, shared). */
export interface LearningScopeStats {
  scope: string;
  /** The tenant whose share its records count against ("" for runs with no tenant, "shared" for the shared scope). */
  tenant: string;
  records: number;
  /** Records past `minSessions`: the ones ranking uses. */
  active: number;
  tools: number;
}

export class Learner {
  #model: LearnedModel;
  readonly options: ResolvedLearningOptions;
  readonly #store: LearningStore;
  readonly #pending = new PendingObservations(MAX_PENDING_OBSERVATIONS);
  #imports: LearnedRow[] = [];
  /** Rows were dropped (a tool left the catalog): the store must be rewritten even with nothing new. */
  #dirty = false;
  #catalogIds: IdFilter | undefined;
  /** contributor → tools it taught (the per-session cap), bounded per tenant. */
  readonly #taught: SessionCaps;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #closed = false;
  /** The clock: injectable so that the decay can be tested without waiting. */
  readonly now: () => number;

  constructor(options: ResolvedLearningOptions, store: LearningStore, now: () => number = Date.now) {
    this.options = options;
    this.#store = store;
    this.#model = new LearnedModel(options);
    this.#taught = new SessionCaps(options.maxTrackedSessions);
    this.now = now;
  }

  /** Reads the store (a restart, a new worker) and starts the periodic writes. */
  async start(catalogIds: IdFilter): Promise<void> {
    this.#catalogIds = catalogIds;
    this.#model.merge(await this.#store.load());
    if (this.#model.retainTools(catalogIds) > 0) this.#dirty = true;
    this.#timer = setInterval(() => void this.flush(), this.options.flushMs);
    this.#timer.unref();
  }

  scopeOf(subject: LearningSubject): string {
    switch (this.options.scope) {
      case "shared":
        return SHARED_SCOPE;
      case "token":
        return tokenScopeKey(subject.tenant ?? subject.sessionId);
      default:
        return agentScopeKey(subject.agentId ?? "", subject.tenant);
    }
  }

  contributorOf(subject: LearningSubject, scope: string): string {
    const who = this.options.scope === "shared" ? `tenant:${subject.tenant ?? subject.sessionId}` : `session:${subject.sessionId}`;
    return createHash("sha256").update(scope).update("\u0000").update(who).digest("base64url").slice(0, 16);
  }

  /** One request led to one tool, for this contributor; false when the per-session cap refused it. */
  teach(scope: string, contributor: string, request: string, tool: string): boolean {
    if (this.#closed) return false;
    const tools = this.#taught.taught(tenantOfScope(scope), `${scope}\u0000${contributor}`);
    if (!tools.has(tool) && tools.size >= this.options.maxToolsPerSession) return false;
    const terms = learnedTerms(request, this.options.maxTermsPerRequest);
    if (terms.length === 0) return false;
    tools.add(tool);
    const observation: Observation = { scope, tool, terms, contributor, at: this.now() };
    if (!this.#model.observe(observation)) return true;
    this.#pending.push(observation);
    return true;
  }

  /** Learned scores of allowed tools for a request in a scope (empty when nothing learned applies). */
  scores(scope: string, request: string, allowed: ReadonlySet<string>, catalog?: CorpusStats): Map<string, number> {
    if (this.options.weight === 0) return new Map();
    const scores = this.#model.score(
      scope,
      learnedTerms(request, this.options.maxTermsPerRequest),
      allowed,
      this.now(),
      undefined,
      catalog ? catalogTermWeight(catalog) : undefined,
    );
    // Tools the request earns no trust for are left out: an empty map ranks exactly as without learning.
    for (const [tool, s] of scores) if (!(s > 0)) scores.delete(tool);
    return scores;
  }

  fuse(ranked: readonly BackendHit[], learned: ReadonlyMap<string, number>, limit: number, keepFirst = false): FusedHit[] {
    return fuseLearned(ranked, learned, limit, { ...DEFAULT_FUSE, weight: this.options.weight }, keepFirst);
  }

  /** The catalog changed: what was learned about tools that left it is dropped (here and, at the next write, in the store). */
  retain(catalogIds: IdFilter): void {
    this.#catalogIds = catalogIds;
    if (this.#model.retainTools(catalogIds) > 0) this.#dirty = true;
  }

  /** Every row (for a replica or a backup). Holds contributor hashes, never session ids or raw requests. */
  export(): LearnedExport {
    return { format: 1, rows: [...this.#model.rows()] };
  }

  /** Merges an export (rows checked one by one; malformed ones are dropped); returns the rows taken. */
  import(data: unknown): number {
    const rows = checkedRows(
      typeof data === "object" && data !== null && (data as { format?: unknown }).format === 1 ? (data as { rows?: unknown }).rows : undefined,
    );
    const catalogIds = this.#catalogIds;
    const kept = catalogIds === undefined ? rows : rows.filter((r) => catalogIds.has(r.tool));
    this.#model.merge(kept);
    this.#imports.push(...kept);
    return kept.length;
  }

  /** What each scope holds: records, active records, tools; counts only (what was learned stays in the store). */
  scopeStats(): LearningScopeStats[] {
    return this.#model.scopeSizes();
  }

  stats(): LearningStats {
    return { ...this.#model.size(), pending: this.#pending.size + this.#imports.length, store: this.#store.kind };
  }

  /**
   * Writes what this process learned since the last write into the store, merged with what other
   * processes wrote meanwhile, and takes the merged rows as its model: workers converge.
   */
  flush(): Promise<void> {
    this.#flushing ??= this.#flush().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #flush(): Promise<void> {
    if (this.#pending.size === 0 && this.#imports.length === 0 && !this.#dirty) {
      // Nothing to write: read what other processes wrote (workers converge without writing).
      const rows = await this.#store.load().catch((): readonly LearnedRow[] => []);
      this.#model.merge(rows);
      if (this.#catalogIds !== undefined) this.#model.retainTools(this.#catalogIds);
      return;
    }
    const pending = this.#pending.drain();
    const imports = this.#imports;
    this.#imports = [];
    this.#dirty = false;
    let merged: LearnedModel | undefined;
    const ok = await this.#store
      .update((current) => {
        merged = new LearnedModel(this.options);
        merged.merge(current);
        merged.merge(imports);
        for (const o of pending) merged.observe(o);
        if (this.#catalogIds !== undefined) merged.retainTools(this.#catalogIds);
        return [...merged.rows()];
      })
      .catch(() => false);
    if (!ok || merged === undefined) {
      // Kept for the next write; what came in meanwhile goes after.
      this.#pending.restore(pending);
      this.#imports = [...imports, ...this.#imports];
      this.#dirty = true;
      return;
    }
    // Observations made while the store was written are not in `merged` yet: applied again (a repeat changes nothing).
    for (const o of this.#pending) merged.observe(o);
    merged.merge(this.#imports);
    if (this.#catalogIds !== undefined) merged.retainTools(this.#catalogIds);
    this.#model = merged;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.flush().catch(() => {});
    await this.#store.close?.();
  }
}

interface PendingSearch {
  request: string;
  hits: ReadonlySet<string>;
  /** Tools this search was credited to (a code body may call several hits of one search). */
  credited: Set<string>;
}

/** Tools one search can be credited to. */
const MAX_TOOLS_PER_SEARCH = 3;

/**
 * One run's side of learning: it remembers the run's recent searches and, when a call succeeds,
 * credits the requests that led to it (see the attribution rule above). It also gives the
 * run's searches their learned scores, in the run's scope only.
 */
export class RunLearning {
  readonly #learner: Learner;
  readonly #scope: string;
  readonly #contributor: string;
  readonly #searches: PendingSearch[] = [];

  constructor(learner: Learner, subject: LearningSubject) {
    this.#learner = learner;
    this.#scope = learner.scopeOf(subject);
    this.#contributor = learner.contributorOf(subject, this.#scope);
  }

  /** `catalog`: the catalog index's statistics, so a word common in its text weighs little (catalogTermWeight). */
  scores(request: string, allowed: ReadonlySet<string>, catalog?: CorpusStats): Map<string, number> {
    return this.#learner.scores(this.#scope, request, allowed, catalog);
  }

  /** `keepFirst`: the catalog's first hit stays first (fuse.ts, spellsName). */
  fuse(ranked: readonly BackendHit[], learned: ReadonlyMap<string, number>, limit: number, keepFirst = false): FusedHit[] {
    return this.#learner.fuse(ranked, learned, limit, keepFirst);
  }

  /** A search answered (catalog hits only). */
  searched(request: string, hits: readonly string[]): void {
    this.#searches.push({ request, hits: new Set(hits), credited: new Set() });
    if (this.#searches.length > MAX_PENDING_SEARCHES) this.#searches.shift();
  }

  /** A call of a catalog tool succeeded: credit the requests that led to it. */
  called(tool: string): void {
    const open = (s: PendingSearch) => !s.credited.has(tool) && s.credited.size < MAX_TOOLS_PER_SEARCH;
    const found = this.#searches.findLastIndex((s) => s.hits.has(tool) && open(s));
    if (found === -1) return;
    const credited = [this.#searches[found]!];
    // The rephrasings: the searches right before it that did not find the tool (and were not credited to another).
    for (let i = found - 1; i >= 0 && credited.length <= MAX_REPHRASINGS; i--) {
      const s = this.#searches[i]!;
      if (s.hits.has(tool) || s.credited.size > 0) break;
      credited.push(s);
    }
    for (const s of credited) {
      s.credited.add(tool);
      this.#learner.teach(this.#scope, this.#contributor, s.request, tool);
    }
  }

  /** Explicit feedback: `request` led to `tool` (already checked to be in the run's catalog). */
  feedback(request: string, tool: string): boolean {
    return this.#learner.teach(this.#scope, this.#contributor, request, tool);
  }
}

/** A term's BM25 IDF in the catalog over the largest possible (a term no doc holds): 1 for a word the catalog lacks. */
export function catalogTermWeight(catalog: CorpusStats): TermWeight {
  const n = Math.max(1, catalog.docCount);
  const max = Math.log(1 + (n + 0.5) / 0.5);
  return (term) => {
    const df = Math.min(n, Math.max(0, catalog.df(term)));
    return Math.log(1 + (n - df + 0.5) / (df + 0.5)) / max;
  };
}
