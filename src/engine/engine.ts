/**
 * The engine: built once per process (or per gateway config) by createToolSearch. It owns the
 * catalog, the index cache and the code-mode pool; prepareRun builds one turn's effective
 * catalog, surface and telemetry.
 */
import { Catalog, type RebuildError, type SourceStatus } from "../catalog/catalog.js";
import { admittedCatalog, EffectiveCatalog, type AdmittedCatalog } from "../catalog/effective-catalog.js";
import { toSearchDoc } from "../catalog/search-doc.js";
import type { CatalogEntry, ToolSource } from "../catalog/types.js";
import { toListing } from "../dispatch/present.js";
import type { ToolListing } from "../dispatch/types.js";
import type { Ajv } from "ajv";
import { createToolAjv } from "../validation/ajv.js";
import type { ToolSearchMode } from "../settings/tool-search-config.js";
import type { CallEnvironment } from "../dispatch/call-path.js";
import { RunDispatcher } from "../dispatch/run-dispatcher.js";
import { FairTurns, type TenantTurns } from "../dispatch/fair-turns.js";
import { EngineClosedError } from "../errors.js";
import { Policy } from "../policy/policy.js";
import type { PolicySubject } from "../policy/types.js";
import type { CodePool, PoolLoad, SandboxReport } from "../sandbox/types.js";
import { ToolIndexCache, type IndexHold } from "../search/storage/index-cache.js";
import { memoryBm25fBackend } from "../search/backends/memory-bm25f-backend.js";
import { loadEnglishWords } from "../search/analysis/english-words.js";
import { ToolIndex } from "../search/tool-index.js";
import { SURFACES } from "../surfaces/modes.js";
import { upfrontOf } from "../surfaces/surface.js";
import { directBytesOf, measureDirectBytes } from "../surfaces/direct-bytes.js";
import { publishFailure } from "../error-channel.js";
import { RunTrace } from "../telemetry/otel.js";
import { RunRecorder } from "../telemetry/run-recorder.js";
import { ValidatorCache } from "../validation/validator-cache.js";
import { LruMap } from "../validation/lru.js";
import { checkRunContext, resolveOptions, type ResolvedOptions, type RunContext, type CreateToolSearchOptions } from "./options.js";
import { newRunId, ToolSearchRun } from "./run.js";
import type { LearnedCatalog, LearnedWord, Learner, LearningScopeStats, LearningStats } from "../learning/learner.js";
import type { LearnedExport } from "../learning/store.js";
import { definedProps } from "../defined.js";

/** `engine.learning`: what learning from use holds, for operators (never for a model). */
export interface LearningControl {
  /** Every learned row (scopes, tool ids, terms as the store keeps them, counts, contributor hashes): for a replica or a backup. */
  export(): Promise<LearnedExport>;
  /**
   * Merges an export, all or nothing: a value that is not an export, or holds more rows than
   * `maxRecords`, is refused (INVALID_ARGS) and nothing is taken; malformed rows and rows of tools
   * not in the catalog are dropped. Returns the rows taken; they are written at the next flush.
   */
  import(data: LearnedExport): Promise<number>;
  /** Writes what was learned to the store now (it is also written every `flushMs` and at close). */
  flush(): Promise<void>;
  /** Resolves once what the store held at start is merged in (it loads in the background; runs meanwhile rank with what is in). */
  ready(): Promise<void>;
  stats(): LearningStats;
  /** stats() scope by scope (counts only, never a learned word), for operators. */
  scopes(): LearningScopeStats[];
  /** A tool's learned words in a scope, strongest first: only with `learning.recordTerms` (otherwise none: words are kept as keyed hashes). */
  words(scope: string, tool: string, limit: number): LearnedWord[];
}

/** One source in a subject's view of the catalog status: no error text. */
export type VisibleSourceStatus = Pick<SourceStatus, "source" | "toolset" | "ok" | "tools">;

/** What `engine.listTools` lists: one toolset's tools (or all), a page of them. */
export interface ToolListFilter {
  /** Only tools of this kind of source. */
  source?: ToolSource;
  /** Only this source's tools: "core", a plugin id or an MCP server name (CatalogSource.toolset). */
  toolset?: string;
  /** Tools to skip first (default 0). */
  offset?: number;
  /** Tools to list at most (default: all). */
  limit?: number;
}

/** Admitted sets are cached per policy subject; this bounds how many subjects are remembered. */
const MAX_CACHED_SUBJECTS = 512;

export class ToolSearchEngine {
  private readonly policy: Policy;
  private readonly indexes: ToolIndexCache;
  private readonly admittedCache = new LruMap<string, AdmittedCatalog>(MAX_CACHED_SUBJECTS);
  private pool: Promise<CodePool> | undefined;
  private readonly runs = new Set<ToolSearchRun>();
  private closed = false;
  private learner: Learner | undefined;
  /** learner.js, loaded at start when learning is on (its code is not loaded otherwise). */
  private learnerModule: typeof import("../learning/learner.js") | undefined;
  /** Searches, describes and unknown-id lookups of every run, served in per-tenant turns. */
  private readonly turns = new FairTurns();

  /** @internal use createToolSearch */
  constructor(
    private readonly options: ResolvedOptions,
    private readonly catalog: Catalog,
  ) {
    this.policy = new Policy(options.policy);
    this.indexes = new ToolIndexCache(definedProps({ snapshots: options.indexCache }));
    catalog.onChange(() => this.admittedCache.clear());
  }

  /** Learning from use, when it is on: its code is loaded here, so an engine without it never loads it. */
  private async startLearning(): Promise<void> {
    const learning = this.options.settings.learning;
    if (!learning.enabled) return;
    const { dir, key } = this.options.indexCache ?? {};
    const [learner, stores, journal] = await Promise.all([
      import("../learning/learner.js"),
      import("../learning/store.js"),
      dir !== undefined && this.options.learningStore === undefined ? import("../learning/journal-store.js") : undefined,
    ]);
    const store =
      this.options.learningStore ??
      (journal !== undefined && dir !== undefined ? new journal.JournalStore({ dir, learning, ...definedProps({ key }) }) : stores.memoryLearningStore());
    this.learnerModule = learner;
    this.learner = new learner.Learner(learning, store, Date.now, { recordTerms: learning.recordTerms, ...definedProps({ key }) });
    this.catalog.onChange(() => this.learner?.retain(this.learnedCatalog()));
  }

  /**
   * What learning keeps: the catalog's ids, and any of a source that is down now (its tools are
   * not listed while it is, and a restart must not forget them); the tenants that exist, when known.
   */
  private learnedCatalog(): LearnedCatalog {
    const ids = new Set(this.catalog.all().map((e) => e.id));
    const downPrefixes = this.catalog
      .sourceStatus()
      .filter((s) => !s.ok)
      .map((s) => `${s.source}:${s.toolset}:`);
    return { ids, downPrefixes, ...(this.options.tenants !== undefined ? { tenants: new Set(this.options.tenants) } : {}) };
  }

  /** Learning from use, when it is on (`toolSearch.learning`): export, import, flush, ready, stats. */
  get learning(): LearningControl | undefined {
    const learner = this.learner;
    if (learner === undefined) return undefined;
    return {
      export: () => learner.export(),
      import: (data) => learner.import(data),
      flush: () => learner.flush(),
      ready: () => learner.ready(),
      stats: () => learner.stats(),
      scopes: () => learner.scopeStats(),
      words: (scope, tool, limit) => learner.words(scope, tool, limit),
    };
  }

  /** @internal */
  async start(): Promise<void> {
    await this.startLearning();
    await this.catalog.start();
    this.reportDownSources();
    // The first index is built here, on this thread in slices that yield to the loop: no run is
    // served yet, and a worker's copy of 100k docs, its start and its hand-back cost more than the
    // loop it would keep free. A catalog that changes later is re-indexed in the worker (index-cache.ts).
    const firstBuild = { workerThreshold: Number.POSITIVE_INFINITY };
    const warmups: Promise<unknown>[] = [this.indexes.get(this.catalog.docs(), this.options.backend, firstBuild)];
    loadEnglishWords(); // typo and compound guards: decoded here, not during a first query
    measureDirectBytes(this.catalog.all()); // what direct mode would send (telemetry's directBytes): measured here, not during a first run
    if (SURFACES[this.options.settings.mode].sandboxFallback !== undefined) warmups.push(this.codePool());
    await Promise.all(warmups);
    // Then the learned store, in the background: a full store must neither hold the start nor
    // compete with it, and its slices leave the event loop to the runs.
    this.learner?.start(this.learnedCatalog());
  }

  /** A throwing callback is the caller's bug, not a reason to refuse the engine: it goes to the error channel. */
  private reportDownSources(): void {
    const report = this.options.onSourceDown;
    if (!report) return;
    for (const status of this.catalog.sourceStatus()) {
      if (status.ok) continue;
      try {
        report(status);
      } catch (error) {
        publishFailure("on_source_down", error, {}, "CONFIG_INVALID");
      }
    }
  }

  get settings(): ResolvedOptions["settings"] {
    return this.options.settings;
  }

  /** Builds one agent turn: effective catalog (policy first), index view, surface, telemetry. */
  async prepareRun(context: RunContext): Promise<ToolSearchRun> {
    if (this.closed) throw new EngineClosedError();
    const ctx = checkRunContext(context);
    // The catalog as it is: a source that is down is tried again in the background, never on a run's time.
    const admitted = this.admitted(ctx);
    const effective = new EffectiveCatalog(admitted, this.catalog.clientEntries(ctx.clientTools).filter(this.policy.admitter(ctx)));
    // The run holds the catalog's index until it ends: a catalog change mid-run does not close it.
    const hold = this.indexes.acquire(this.catalog.docs(), this.options.backend);
    try {
      return await this.prepareWith(ctx, effective, hold);
    } catch (error) {
      void hold.then(
        (h) => h.release(),
        () => {},
      );
      throw error;
    }
  }

  private async prepareWith(ctx: RunContext, effective: EffectiveCatalog, hold: Promise<IndexHold>): Promise<ToolSearchRun> {
    const [{ index, release }, clientIndex] = await Promise.all([hold, clientIndexFor([...effective.clientEntries()])]);
    const requestedMode = ctx.mode ?? this.options.settings.mode;
    const { mode, fallbackReason, pool } = await this.effectiveMode(requestedMode);
    SURFACES[mode].check?.(effective);

    const runId = newRunId();
    const controller = new AbortController();
    const init = {
      runId,
      sessionId: ctx.sessionId,
      ...definedProps({ tenant: ctx.tenant }),
      mode,
      requestedMode,
      ...(fallbackReason ? { fallbackReason } : {}),
      bySource: effective.bySource(),
    };
    const recorder = new RunRecorder({ ...init, ...(this.options.sessionLog ? { sink: this.options.sessionLog } : {}) });
    const trace = new RunTrace({ ...init, recordQueryText: this.options.tracing.recordQueryText });
    const { settings } = this.options;
    const dispatcher = new RunDispatcher(
      {
        catalog: effective,
        index,
        ...(clientIndex ? { clientIndex } : {}),
        ...(this.learner && this.learnerModule
          ? {
              learning: new this.learnerModule.RunLearning(this.learner, {
                sessionId: ctx.sessionId,
                ...definedProps({ agentId: ctx.agentId, tenant: ctx.tenant }),
              }),
            }
          : {}),
      },
      settings,
      this.callEnvironment(ctx, runId, controller.signal),
      recorder,
      trace,
      this.turns.for(ctx.shareKey ?? ctx.tenant ?? ctx.sessionId),
    );
    const surface = SURFACES[mode].build({ dispatcher, settings, recorder, pool, tenant: ctx.tenant ?? ctx.sessionId, prompt: ctx.prompt });
    const shown = upfrontOf(surface);
    const upfront = { ...shown, directBytes: mode === "direct" ? shown.toolsBytes : directBytesOf(effective) };
    recorder.setUpfront(upfront, [...surface.upfrontIds]);
    trace.setUpfront(upfront);
    const onEnd = (r: ToolSearchRun) => {
      this.runs.delete(r);
      release();
    };
    const run = new ToolSearchRun({
      runId,
      sessionId: ctx.sessionId,
      mode,
      controller,
      dispatcher,
      surface,
      recorder,
      onEnd,
      argsLimits: this.options.argsLimits,
      maxResultBytes: settings.maxResultBytes,
      searchDefaultLimit: settings.searchDefaultLimit,
    });
    this.runs.add(run);
    return run;
  }

  private callEnvironment(ctx: RunContext, runId: string, signal: AbortSignal): CallEnvironment {
    return {
      hooks: this.options.hooks,
      sessionId: ctx.sessionId,
      ...definedProps({ agentId: ctx.agentId }),
      runId,
      tenant: ctx.tenant ?? ctx.sessionId,
      owner: ctx.owner === true,
      signal,
      timeoutMs: this.options.callTimeoutMs,
      argsLimits: this.options.argsLimits,
    };
  }

  /** A sandboxed mode needs a working sandbox; without one it takes its fallback mode, and telemetry says why. */
  private async effectiveMode(requested: ToolSearchMode): Promise<{ mode: ToolSearchMode; fallbackReason?: string; pool?: CodePool }> {
    const fallback = SURFACES[requested].sandboxFallback;
    if (fallback === undefined) return { mode: requested };
    const pool = await this.codePool();
    const report = pool.report();
    if (report.available) return { mode: requested, pool };
    return { mode: fallback, fallbackReason: `code sandbox unavailable: ${report.reason ?? "unknown reason"}` };
  }

  /** The catalog tools this subject may see; computed once per subject and catalog version. */
  private admitted(subject: PolicySubject): AdmittedCatalog {
    const key = `${this.catalog.version}|${this.policy.subjectKey(subject)}`;
    const cached = this.admittedCache.get(key);
    if (cached) return cached;
    const admit = this.policy.admitter(subject);
    const all = this.catalog.all();
    const entries = all.filter(admit);
    // A subject that policy lets see every tool shares the catalog's own set and map of them.
    const admitted = entries.length === all.length ? admittedCatalog(all, this.catalog.everything()) : admittedCatalog(entries);
    this.admittedCache.set(key, admitted);
    return admitted;
  }

  private codePool(): Promise<CodePool> {
    // The sandbox's code loads with the first code-mode run (or a start in code mode), not with the engine.
    this.pool ??= this.options.codePool
      ? Promise.resolve(this.options.codePool)
      : import("../sandbox/index.js").then((s) => s.createCodePool(this.options.pool));
    return this.pool;
  }

  /**
   * The sandbox as it is now, without starting it: its layers and its load (children ready,
   * bodies running and waiting, by tenant); undefined while no run has needed it yet.
   */
  async sandboxState(): Promise<{ report: SandboxReport; load?: PoolLoad } | undefined> {
    if (this.pool === undefined) return undefined;
    const pool = await this.pool;
    const load = pool.load?.();
    return { report: pool.report(), ...definedProps({ load }) };
  }

  /**
   * Which sandbox layers are active, probed when the pool starts: resolves once it has (starting
   * it if no run has needed it yet). `sandboxState()` looks without starting anything.
   */
  async sandboxReport(): Promise<SandboxReport> {
    return (await this.codePool()).report();
  }

  /**
   * @internal The control path's turns of `shareKey`, shared with its runs' searches and
   * describes: the MCP face takes one per request, before the protocol's own work on it.
   */
  controlTurns(shareKey: string): TenantTurns {
    return this.turns.for(shareKey);
  }

  /** Listens for catalog changes (an MCP server's list changed, went away, came back); returns a function that stops listening. */
  onCatalogChange(listener: () => void): () => void {
    return this.catalog.onChange(listener);
  }

  /** The catalog's size, each source's state, and the last refused rebuild (until one succeeds). */
  catalogStatus(): { size: number; sources: SourceStatus[]; rebuildError?: RebuildError } {
    const rebuildError = this.catalog.rebuildError;
    return { size: this.catalog.size, sources: this.catalog.sourceStatus(), ...(rebuildError ? { rebuildError } : {}) };
  }

  /**
   * The catalog status as these policy subjects may see it (least disclosure, `/healthz` for a
   * token): a source is listed only with the tools they admit, counted as admitted, and only if
   * they admit one; `includeDown` also lists the sources that are down (by name and state; whose
   * tools nobody can know while they are). No entry carries the source's error text: for an MCP
   * server it ends with its stderr, which may hold anything (a connection string, a password).
   */
  catalogStatusFor(subjects: readonly PolicySubject[], options: { includeDown?: boolean } = {}): { size: number; sources: VisibleSourceStatus[] } {
    const admitted = new Map<string, number>();
    const seen = new Set<string>();
    for (const subject of subjects) {
      for (const entry of this.admitted(subject).entries) {
        if (seen.has(entry.id)) continue;
        seen.add(entry.id);
        const key = `${entry.source}:${entry.toolset}`;
        admitted.set(key, (admitted.get(key) ?? 0) + 1);
      }
    }
    const sources = this.catalog.sourceStatus().flatMap(({ source, toolset, ok }): VisibleSourceStatus[] => {
      const tools = admitted.get(`${source}:${toolset}`) ?? 0;
      return tools > 0 || (!ok && options.includeDown === true) ? [{ source, toolset, ok, tools }] : [];
    });
    return { size: seen.size, sources };
  }

  /**
   * The catalog's tools, for operators (`toolsearch tools`, the admin API): without a subject
   * every tool the catalog holds, policy not applied; with one, exactly the tools its runs may
   * see. `total` counts the filtered tools; only the page asked for is built.
   */
  listTools(subject?: PolicySubject, filter: ToolListFilter = {}): { total: number; tools: ToolListing[] } {
    const entries = subject === undefined ? this.catalog.all() : this.admitted(subject).entries;
    const { source, toolset } = filter;
    const matching =
      source === undefined && toolset === undefined
        ? entries
        : entries.filter((entry) => (source === undefined || entry.source === source) && (toolset === undefined || entry.toolset === toolset));
    const offset = Math.max(0, filter.offset ?? 0);
    const page = matching.slice(offset, filter.limit === undefined ? undefined : offset + Math.max(0, filter.limit));
    return { total: matching.length, tools: page.map((entry) => ({ ...toListing(entry), ownerOnly: this.policy.isOwnerOnly(entry) })) };
  }

  /** Ends every open run, kills every sandbox child, closes sources and indexes. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.runs].map((run) => run.end()));
    // A pool handed in by the caller is the caller's to close.
    const ownPool = this.options.codePool ? undefined : this.pool;
    await Promise.allSettled([ownPool?.then((p) => p.close()), this.catalog.close(), this.learner?.close()]);
    await this.indexes.close();
  }
}

/**
 * Client tools differ per run and are few, so each run indexes its own in BM25F postings: pure
 * JS, garbage-collected with the run, nothing to close if a caller never ends the run; and
 * ranked with the catalog's statistics, so a client tool competes with catalog tools on
 * equal terms (run-dispatcher.ts). The catalog is never re-indexed for a run.
 */
async function clientIndexFor(entries: readonly CatalogEntry[]): Promise<ToolIndex | undefined> {
  if (entries.length === 0) return undefined;
  return ToolIndex.build(() => memoryBm25fBackend.create(), entries.map(toSearchDoc));
}

export async function createToolSearch(options: CreateToolSearchOptions = {}): Promise<ToolSearchEngine> {
  const resolved = resolveOptions(options);
  let toolAjv: Ajv | undefined;
  const catalog = new Catalog(resolved.sources, () => (toolAjv ??= createToolAjv()), { limits: resolved.schemaLimits, validators: new ValidatorCache() });
  const engine = new ToolSearchEngine(resolved, catalog);
  try {
    await engine.start();
  } catch (error) {
    await engine.close();
    throw error;
  }
  return engine;
}
