/**
 * Learning from use: the engine's one Learner holds the model (model.ts), takes observations
 * from runs (RunLearning, below), writes the records that changed to its store every `flushMs`
 * and when the engine closes (and reads what other processes wrote), and answers each run's
 * learned scores. Request words are kept as keyed hashes unless `recordTerms` (term-keys.ts).
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
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { InvalidArgsError } from "../errors.js";
import { agentScopeKey, tenantOfScope, tokenScopeKey } from "./scope-keys.js";
import { SessionCaps } from "./session-caps.js";
import { LearnedModel, SHARED_SCOPE, type LearnedRow, type Observation, type TermWeight } from "./model.js";
import type { ResolvedLearningOptions } from "./options.js";
import { checkedRows, type LearnedExport, type LearningStore } from "./store.js";
import { learnedTerms } from "./terms.js";
import { idFilter, keepsRow } from "./retention.js";
import { termKeyer, type TermMode } from "./term-keys.js";
import { DEFAULT_FUSE, fuseLearned, type FusedHit } from "./fuse.js";
import type { BackendHit, CorpusStats } from "../search/types.js";
import type { LearnedWord, LearningScopeStats, LearningStats } from "./learning-stats.js";

/** Searches before the one that found the tool that are credited with it (rephrasings). */
const MAX_REPHRASINGS = 2;
/** Searches a run remembers while it waits for a call. */
const MAX_PENDING_SEARCHES = 8;
/**
 * Rows handled between two yields to the event loop (merging a batch read from the store,
 * taking changed records for it, importing, exporting): each slice is a few milliseconds, so
 * neither a store at its bounds nor an import of 400,000 rows holds the loop every session shares.
 */
const SLICE_ROWS = 500;

export type { LearnedWord, LearningScopeStats, LearningStats } from "./learning-stats.js";

/** Who a run is, as learning sees it. */
export interface LearningSubject {
  sessionId: string;
  agentId?: string;
  tenant?: string;
}

/** What a learned rank rests on (Learner.evidence). */
export interface LearnedEvidence {
  sessions: number;
  /** The learned words it matched: only with `recordTerms`. */
  words?: string[];
}

/** What learning keeps (retention.ts): the catalog's tool ids, the prefixes of sources that are down, the tenants that exist. */
export interface LearnedCatalog {
  ids: ReadonlySet<string>;
  downPrefixes: readonly string[];
  /** RunContext.tenant values that exist (a gateway's token tenants); undefined: any. */
  tenants?: ReadonlySet<string>;
}

export class Learner {
  #model: LearnedModel;
  readonly options: ResolvedLearningOptions;
  readonly #store: LearningStore;
  readonly #terms: TermMode;
  readonly #keyOf: (term: string) => string;
  #catalog: LearnedCatalog = { ids: new Set(), downPrefixes: [] };
  #keeps: (row: LearnedRow) => boolean = () => true;
  /** Rows were dropped here (a tool left the catalog): the store should be compacted to drop them too. */
  #dropped = false;
  /** contributor → tools it taught (the per-session cap), bounded per tenant. */
  readonly #taught: SessionCaps;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #nextFlush: Promise<void> | undefined;
  #compacting: Promise<void> | undefined;
  #loaded: Promise<void> | undefined;
  #isLoaded = false;
  #closed = false;
  /** The clock: injectable so that the decay can be tested without waiting. */
  readonly now: () => number;

  constructor(options: ResolvedLearningOptions, store: LearningStore, now: () => number = Date.now, terms: TermMode = { recordTerms: options.recordTerms }) {
    this.options = options;
    this.#store = store;
    this.#model = new LearnedModel(options);
    this.#taught = new SessionCaps(options.maxTrackedSessions);
    this.#terms = terms;
    this.#keyOf = termKeyer(terms);
    this.now = now;
  }

  /**
   * Starts reading the store (a restart, a new worker) in the background and the periodic
   * writes. Runs rank with what is merged so far; `ready()` resolves once the store's rows are in.
   */
  start(catalog: LearnedCatalog): void {
    this.#setCatalog(catalog);
    this.#loaded = this.flush().finally(() => {
      this.#isLoaded = true;
    });
    this.#timer = setInterval(() => void this.flush(), this.options.flushMs);
    this.#timer.unref();
  }

  /** Resolves once what the store held at start is merged in. */
  ready(): Promise<void> {
    return this.#loaded ?? Promise.resolve();
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
    const observation: Observation = { scope, tool, terms: terms.map(this.#keyOf), contributor, at: this.now() };
    this.#model.observe(observation);
    return true;
  }

  /** Learned scores of allowed tools for a request in a scope (empty when nothing learned applies). */
  scores(scope: string, request: string, allowed: ReadonlySet<string>, catalog?: CorpusStats): Map<string, number> {
    if (this.options.weight === 0 || !this.#model.hasScope(scope)) return new Map();
    const terms = learnedTerms(request, this.options.maxTermsPerRequest);
    const keys = terms.map(this.#keyOf);
    // The catalog weighs the words themselves; the model holds their keys.
    let weight: TermWeight | undefined;
    if (catalog !== undefined) {
      const ofTerm = catalogTermWeight(catalog);
      const byKey = new Map(keys.map((key, i) => [key, ofTerm(terms[i]!)]));
      weight = (key) => byKey.get(key) ?? 1;
    }
    const scores = this.#model.score(scope, keys, allowed, this.now(), undefined, weight);
    // Tools the request earns no trust for are left out: an empty map ranks exactly as without learning.
    for (const [tool, s] of scores) if (!(s > 0)) scores.delete(tool);
    return scores;
  }

  /**
   * What a tool's learned rank rests on, for explain: how many sessions (the most behind one
   * matched word) and, only where the operator keeps words (`recordTerms`), which words.
   */
  evidence(scope: string, request: string, tool: string): LearnedEvidence {
    const terms = learnedTerms(request, this.options.maxTermsPerRequest);
    const found = this.#model.evidence(scope, terms.map(this.#keyOf), tool);
    return { sessions: found.sessions, ...(this.#terms.recordTerms ? { words: found.terms } : {}) };
  }

  /** The catalog's hits and the learned scores of a request in `scope` as one list (fuse.ts). */
  fuse(scope: string, ranked: readonly BackendHit[], learned: ReadonlyMap<string, number>, limit: number, keepFirst = false): FusedHit[] {
    const now = this.now();
    return fuseLearned(ranked, learned, limit, { ...DEFAULT_FUSE, weight: this.options.weight }, keepFirst, (id) => this.#model.taught(scope, id, now));
  }

  /** The catalog changed: what was learned about tools that left it is dropped (here and, at the next compaction, in the store). */
  retain(catalog: LearnedCatalog): void {
    this.#setCatalog(catalog);
    if (this.#model.retainTools(idFilter(catalog.ids, catalog.downPrefixes)) > 0) this.#dropped = true;
  }

  #setCatalog(catalog: LearnedCatalog): void {
    this.#catalog = catalog;
    this.#keeps = keepsRow({ tools: idFilter(catalog.ids, catalog.downPrefixes), ...(catalog.tenants ? { tenants: catalog.tenants } : {}) });
  }

  /** Every row (for a replica or a backup), gathered a slice at a time. Holds contributor hashes, never session ids; terms as the store keeps them. */
  async export(): Promise<LearnedExport> {
    const rows: LearnedRow[] = [];
    for (const row of this.#model.rows()) {
      rows.push(row);
      if (rows.length % SLICE_ROWS === 0) await yieldToLoop();
    }
    return { format: 1, rows };
  }

  /**
   * A tool's learned words in a scope, strongest first — only where the operator keeps them in
   * clear (`recordTerms`); otherwise none, since what is kept is a keyed hash of each word.
   */
  words(scope: string, tool: string, limit: number): LearnedWord[] {
    if (!this.#terms.recordTerms) return [];
    return this.#model.toolTerms(scope, tool, limit, this.now());
  }

  /** What each scope holds: records, active records, tools; counts only (what was learned stays in the store). */
  scopeStats(): LearningScopeStats[] {
    return this.#model.scopeSizes();
  }

  /**
   * Merges an export, all or nothing: the whole value is checked first (a value that is not an
   * export, or holds more rows than `maxRecords`, is refused with INVALID_ARGS and nothing is
   * taken); malformed rows and rows of tools not in the catalog are dropped. Merged a slice at a
   * time, and written to the store at the next flush. Returns the rows taken.
   */
  async import(data: unknown): Promise<number> {
    const rows = typeof data === "object" && data !== null && (data as { format?: unknown }).format === 1 ? (data as { rows?: unknown }).rows : undefined;
    if (!Array.isArray(rows)) throw new InvalidArgsError("learning.import: expected an export, { format: 1, rows: [...] }");
    if (rows.length > this.options.maxRecords)
      throw new InvalidArgsError(`learning.import: ${rows.length} rows, over maxRecords (${this.options.maxRecords}); nothing was imported`);
    const kept: LearnedRow[] = [];
    const now = this.now();
    for (let start = 0; start < rows.length; start += SLICE_ROWS) {
      for (const row of checkedRows(rows.slice(start, start + SLICE_ROWS) as unknown[], now)) if (this.#keeps(row)) kept.push(this.#keyed(row));
      await yieldToLoop();
    }
    for (let start = 0; start < kept.length; start += SLICE_ROWS) {
      this.#model.merge(kept.slice(start, start + SLICE_ROWS), true);
      await yieldToLoop();
    }
    return kept.length;
  }

  /** A row with its term as this learner keeps it (a row in clear from an older store is hashed when terms are hashed). */
  #keyed(row: LearnedRow): LearnedRow {
    const term = this.#keyOf(row.term);
    return term === row.term ? row : { ...row, term };
  }

  stats(): LearningStats {
    return { ...this.#model.size(), pending: this.#model.dirtyCount, store: this.#store.kind, loaded: this.#isLoaded, recordTerms: this.#terms.recordTerms };
  }

  /**
   * Writes the records that changed here since the last write to the store, then merges what
   * other processes wrote meanwhile (workers converge). Only changed records are written and only
   * new rows read, a slice at a time: a flush costs what changed, never the whole store.
   */
  flush(): Promise<void> {
    // One at a time; a flush asked for while one runs runs after it (what changed meanwhile is in it), once for all who asked.
    if (this.#flushing !== undefined) {
      this.#nextFlush ??= this.#flushing.then(() => {
        this.#nextFlush = undefined;
        return this.flush();
      });
      return this.#nextFlush;
    }
    this.#flushing = this.#flush().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #flush(): Promise<void> {
    await this.#write();
    await this.#read();
    if (!this.#closed && (this.#dropped || this.#store.wantsCompaction?.() === true)) this.#compact();
  }

  async #write(): Promise<void> {
    if (this.#model.dirtyCount === 0) return;
    const rows: LearnedRow[] = [];
    const putBacks: Array<() => void> = [];
    while (this.#model.dirtyCount > 0) {
      const taken = this.#model.takeDirty(SLICE_ROWS);
      for (const row of taken.rows) rows.push(row);
      putBacks.push(taken.putBack);
      await yieldToLoop();
    }
    const ok = await this.#store.append(rows).catch(() => false);
    // Kept for the next write.
    if (!ok) for (const putBack of putBacks) putBack();
  }

  async #read(): Promise<void> {
    // Closing: what others wrote is theirs to keep; only this process's changes still need writing.
    if (this.#closed) return;
    try {
      for await (const batch of this.#store.read()) {
        if (this.#closed) break;
        const kept: LearnedRow[] = [];
        const changed: LearnedRow[] = [];
        for (const row of batch) {
          if (!this.#keeps(row)) {
            // A tool that left the catalog, a tenant that no longer exists: gone from the store at the next compaction.
            this.#dropped = true;
            continue;
          }
          const keyed = this.#keyed(row);
          // A row in clear, now hashed: written back hashed, so the store holds no words at the next compaction.
          (keyed === row ? kept : changed).push(keyed);
        }
        // A batch is a frame (up to 2,000 rows): merged a slice at a time.
        for (let start = 0; start < kept.length; start += SLICE_ROWS) {
          this.#model.merge(kept.slice(start, start + SLICE_ROWS));
          await yieldToLoop();
        }
        if (changed.length > 0) this.#model.merge(changed, true);
      }
    } catch {
      // A store that cannot be read now is read again at the next flush; what it failed to give is not lost.
    }
  }

  /** Compacts the store in the background (its own worker thread), one at a time. */
  #compact(): void {
    if (this.#compacting !== undefined || this.#store.compact === undefined) return;
    this.#dropped = false;
    const { ids, downPrefixes, tenants } = this.#catalog;
    this.#compacting = this.#store
      .compact({ tools: [...ids], toolPrefixes: downPrefixes, ...(tenants ? { tenants: [...tenants] } : {}), terms: this.#terms })
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        this.#compacting = undefined;
      });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.flush().catch(() => {});
    await this.#compacting;
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

  evidence(request: string, tool: string): LearnedEvidence {
    return this.#learner.evidence(this.#scope, request, tool);
  }

  /** `keepFirst`: the catalog's first hit stays first (fuse.ts, spellsName). */
  fuse(ranked: readonly BackendHit[], learned: ReadonlyMap<string, number>, limit: number, keepFirst = false): FusedHit[] {
    return this.#learner.fuse(this.#scope, ranked, learned, limit, keepFirst);
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
