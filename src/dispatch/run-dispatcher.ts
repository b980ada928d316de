/**
 * Search, describe and call over one run's effective catalog. Whatever is outside it does
 * not exist here: search never returns it, describe and call answer TOOL_NOT_FOUND exactly as
 * for an id that never existed.
 */
import type { EffectiveCatalog } from "../catalog/effective-catalog.js";
import type { CatalogEntry } from "../catalog/types.js";
import { InvalidArgsError, MAX_ID_CHARS, ToolNotFoundError, toErrorPayload } from "../errors.js";
import type { RunRecorder } from "../telemetry/run-recorder.js";
import { answerPayload } from "../error-channel.js";
import type { RunTrace, TraceScope } from "../telemetry/otel.js";
import type { CallVia } from "../telemetry/types.js";
import { traceDispatched } from "../telemetry/dispatched.js";
import { runCallPath, type CallEnvironment } from "./call-path.js";
import { clip } from "../text/prompt-text.js";
import { toDescription, toHit } from "./present.js";
import { checkSearchArgs, checkToolId, MAX_QUERY_CHARS } from "../validation/search-args.js";
import type { BatchSearchResult, CallOutcome, DetailedHit, ExplainedHit, SearchHit, SearchOptions, ToolDescription } from "./types.js";
import { rankRequest, type RunScope } from "./rank-request.js";
import { RankTrace } from "./explain-detail.js";
import type { TenantTurns } from "./fair-turns.js";

/** A run's scope as the dispatcher holds it: ranking's, with the whole effective catalog (entries to present). */
export type DispatchScope = RunScope<EffectiveCatalog>;

export interface SearchLimits {
  searchDefaultLimit: number;
  maxSearchLimit: number;
}

const MAX_SUGGESTIONS = 3;

export class RunDispatcher {
  constructor(
    private readonly scope: DispatchScope,
    private readonly limits: SearchLimits,
    private readonly env: CallEnvironment,
    private readonly recorder: RunRecorder,
    /** The run's OpenTelemetry span: searches and calls become its children (no-op without an SDK). */
    readonly trace: RunTrace,
    /** Its tenant's turns on the control path, shared with every other run of the engine. */
    private readonly turns: TenantTurns,
  ) {}

  get catalog(): EffectiveCatalog {
    return this.scope.catalog;
  }

  /**
   * One query → its hits; a list of queries → one answer per query inside one hit budget. Each
   * query is ranked in a turn of this run's tenant (fair-turns.ts): a batch, or another tenant's
   * flood, never holds the main thread every session shares for more than one query at a time.
   * `signal` (default: the run's) drops the queries still waiting when it aborts.
   */
  search(query: string, options?: SearchOptions, via?: CallVia, signal?: AbortSignal, scope?: TraceScope): Promise<SearchHit[]>;
  search(query: readonly string[], options?: SearchOptions, via?: CallVia, signal?: AbortSignal, scope?: TraceScope): Promise<BatchSearchResult[]>;
  search(
    query: string | readonly string[],
    options?: SearchOptions,
    via?: CallVia,
    signal?: AbortSignal,
    scope?: TraceScope,
  ): Promise<SearchHit[] | BatchSearchResult[]>;
  async search(
    query: string | readonly string[],
    options: SearchOptions = {},
    via: CallVia = "api",
    signal: AbortSignal = this.env.signal,
    scope?: TraceScope,
  ): Promise<SearchHit[] | BatchSearchResult[]> {
    const started = performance.now();
    const { queries, limit } = this.checked(query, options);
    const answers: BatchSearchResult[] = [];
    for (const q of queries) answers.push({ query: q, hits: await this.turns.take(() => this.rank(q, limit), signal) });
    return this.recordSearch(query, answers, via, started, scope);
  }

  /** `work` in this run's tenant's next turn on the control path (explain, for operators). */
  inTurn<T>(work: () => T, signal: AbortSignal = this.env.signal): Promise<T> {
    return this.turns.take(work, signal);
  }

  private recordSearch(
    query: string | readonly string[],
    answers: BatchSearchResult[],
    via: CallVia,
    started: number,
    scope: TraceScope | undefined,
  ): SearchHit[] | BatchSearchResult[] {
    const queries = answers.map((a) => a.query);
    const hits = answers.flatMap((a) => a.hits.map((h) => h.id));
    const learning = this.scope.learning;
    // Weak hits (partial matches when nothing matched) are guesses, not what the words found: for
    // learning such a search listed nothing, so it is a rephrasing of the search that finds the tool.
    if (learning) {
      for (const a of answers)
        learning.searched(
          a.query,
          a.hits.filter((h) => h.source !== "client" && h.weak !== true).map((h) => h.id),
        );
    }
    this.recorder.search({ type: "search", queries, hits, via, ms: performance.now() - started });
    this.trace.searchSpan(queries, hits.length, via, started, scope);
    return typeof query === "string" ? answers[0]!.hits : answers;
  }

  /** The queries and the per-query hit limit: a batch shares one response budget of maxSearchLimit hits. */
  private checked(query: unknown, options: unknown): { queries: string[]; limit: number } {
    const { queries, limit: requested } = checkSearchArgs(query, options);
    const limit = Math.min(this.limits.maxSearchLimit, requested ?? this.limits.searchDefaultLimit);
    return { queries, limit: queries.length === 1 ? limit : Math.max(1, Math.min(limit, Math.floor(this.limits.maxSearchLimit / queries.length))) };
  }

  /**
   * Ranked hits for one query, neither counted nor traced: search and searchYielding are this
   * plus the record; a surface picking tools on its own (directory's likely schemas) uses it bare.
   */
  rank(query: string, limit: number): SearchHit[] {
    const { q, n } = this.bounded(query, limit);
    // explain's path without its `learned` flag: each hit built once (every search of every run passes here).
    const hits: SearchHit[] = [];
    for (const hit of rankRequest(q, n, this.scope)) {
      const entry = this.scope.catalog.get(hit.id);
      if (entry !== undefined) hits.push(toHit(entry, hit.score, hit.weak));
    }
    return hits;
  }

  /** The query as ranked (at most MAX_QUERY_CHARS) and the hit count (1 to maxSearchLimit). */
  private bounded(query: string, limit: number): { q: string; n: number } {
    return { q: query.slice(0, MAX_QUERY_CHARS), n: Math.max(1, Math.min(limit, this.limits.maxSearchLimit)) };
  }

  /**
   * rank, each hit saying whether learning from use moved it up (`learned`); with `detail`, also
   * the steps that placed it (explain-detail.ts), recorded on the same ranking path. Not
   * recorded and never shown to a model: for `run.explain`, benchmarks and operators.
   */
  explain(query: string, limit: number): ExplainedHit[];
  explain(query: string, limit: number, detail: true): DetailedHit[];
  explain(query: string, limit: number, detail?: boolean): ExplainedHit[] | DetailedHit[];
  explain(query: string, limit: number, detail = false): ExplainedHit[] | DetailedHit[] {
    const { q, n } = this.bounded(query, limit);
    const trace = detail ? new RankTrace(q) : undefined;
    const ranked = rankRequest(q, n, this.scope, trace);
    const learning = this.scope.learning;
    const details = trace?.detail(ranked, learning === undefined ? undefined : (id) => learning.evidence(q, id));
    return ranked.flatMap((hit, i) => {
      const entry = this.scope.catalog.get(hit.id);
      if (entry === undefined) return [];
      const explained = { ...toHit(entry, hit.score, hit.weak), learned: hit.learned };
      const more = details?.[i];
      return [more === undefined ? explained : { ...explained, detail: more }];
    });
  }

  /**
   * Explicit learning feedback: `request` led to tool `id`. The id must be a catalog tool of
   * this run (TOOL_NOT_FOUND otherwise, exactly as for describe: a denied tool is no tool);
   * false when learning is off.
   */
  async feedback(request: unknown, id: unknown): Promise<boolean> {
    if (typeof request !== "string" || request.trim() === "")
      throw new InvalidArgsError("feedback needs the request (a non-empty string) that led to the tool.");
    if (request.length > MAX_QUERY_CHARS) throw new InvalidArgsError(`feedback: the request is ${request.length} characters, over ${MAX_QUERY_CHARS}.`);
    const entry = await this.lookup(id);
    if (entry.source === "client") throw new InvalidArgsError(`feedback: ${entry.id} is a client tool; only catalog tools are learned.`);
    return this.scope.learning?.feedback(request, entry.id) ?? false;
  }

  /** The tool's description, looked up (and, for an unknown id, its suggestions found) in a turn of this run's tenant. */
  async describe(id: unknown, via: CallVia = "api", signal: AbortSignal = this.env.signal): Promise<ToolDescription> {
    try {
      const description = await this.turns.take(() => toDescription(this.lookupNow(id)), signal);
      this.recorder.describe({ type: "describe", id: shownId(id), ok: true, via });
      return description;
    } catch (error) {
      this.recorder.describe({ type: "describe", id: shownId(id), ok: false, code: toErrorPayload(error, "INTERNAL").code, via });
      throw error;
    }
  }

  /** Runs a call through the one call path; never throws, the outcome says what happened. */
  async call(id: unknown, args: unknown, via: CallVia = "api", signal?: AbortSignal, scope?: TraceScope): Promise<CallOutcome> {
    let entry: CatalogEntry | undefined;
    let refused: CallOutcome | undefined;
    try {
      entry = await this.lookup(id, signal);
    } catch (error) {
      refused = { ok: false, id: shownId(id), error: answerPayload(error, { sessionId: this.env.sessionId, runId: this.env.runId }) };
    }
    // A refused id is traced and recorded like a call, with source "unknown" and no duration.
    const target = entry ?? { id: refused!.id, name: refused!.id, source: "unknown" as const };
    const { outcome } = await traceDispatched({
      open: () => ({ span: this.trace.toolSpan(target, via, scope) }),
      run: async () => (entry ? runCallPath(entry, args, this.env, signal) : { outcome: refused!, ms: 0 }),
      settle: ({ outcome }) => ({ code: outcome.ok ? undefined : outcome.error.code }),
      record: ({ outcome, ms }) => {
        if (outcome.ok && entry && entry.source !== "client") this.scope.learning?.called(entry.id);
        this.recorder.call({
          id: target.id,
          source: target.source,
          ok: outcome.ok,
          ...(outcome.ok ? {} : { code: outcome.error.code }),
          ms: Math.round(ms * 100) / 100,
          via,
        });
      },
    });
    return outcome;
  }

  /**
   * The entry for an id in this run, or TOOL_NOT_FOUND with up to three ids it may have meant.
   * A known id costs a map lookup, answered at once; the suggestions for an unknown one are
   * looked for in a turn of this run's tenant.
   */
  async lookup(raw: unknown, signal: AbortSignal = this.env.signal): Promise<CatalogEntry> {
    const id = checkToolId(raw);
    // No tool has an id this long: answered at once, without a turn or suggestions.
    if (id.length > MAX_ID_CHARS) throw new ToolNotFoundError(id);
    return this.scope.catalog.get(id) ?? this.turns.take(() => this.lookupNow(id), signal);
  }

  private lookupNow(raw: unknown): CatalogEntry {
    const id = checkToolId(raw);
    // No tool has an id this long: answered at once, without looking for suggestions.
    if (id.length > MAX_ID_CHARS) throw new ToolNotFoundError(id);
    const entry = this.scope.catalog.get(id);
    if (entry) return entry;
    throw new ToolNotFoundError(id, this.suggest(id));
  }

  private suggest(id: string): string[] {
    const { catalog } = this.scope;
    const fromCatalog = this.scope.index.suggest(id, catalog.catalogIds, MAX_SUGGESTIONS);
    const fromClient = this.scope.clientIndex?.suggest(id, catalog.clientIds, MAX_SUGGESTIONS) ?? [];
    return [...fromClient, ...fromCatalog].slice(0, MAX_SUGGESTIONS);
  }
}

/** An id as it may be shown back or logged: a string, clipped with a marker. */
function shownId(id: unknown): string {
  return clip(typeof id === "string" ? id : typeof id, MAX_ID_CHARS);
}
