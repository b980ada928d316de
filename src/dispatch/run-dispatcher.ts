/**
 * Search, describe and call over one run's effective catalog. Whatever is outside it does
 * not exist here: search never returns it, describe and call answer TOOL_NOT_FOUND exactly as
 * for an id that never existed.
 */
import type { EffectiveCatalog } from "../catalog/effective-catalog.js";
import type { CatalogEntry } from "../catalog/types.js";
import { InvalidArgsError, MAX_ID_CHARS, ToolNotFoundError, toErrorPayload } from "../errors.js";
import type { ToolIndex } from "../search/tool-index.js";
import type { RunRecorder } from "../telemetry/run-recorder.js";
import { answerPayload } from "../error-channel.js";
import type { RunTrace, TraceScope } from "../telemetry/otel.js";
import type { CallVia } from "../telemetry/types.js";
import { traceDispatched } from "../telemetry/dispatched.js";
import { runCallPath, type CallEnvironment } from "./call-path.js";
import { mergeHits } from "./merge-hits.js";
import { searchIntents } from "../search/intents.js";
import type { BackendHit } from "../search/types.js";
import { clip } from "../text/prompt-text.js";
import { toDescription, toHit } from "./present.js";
import { checkSearchArgs, checkToolId, MAX_QUERY_CHARS } from "../validation/search-args.js";
import type { BatchSearchResult, CallOutcome, ExplainedHit, SearchHit, SearchOptions, ToolDescription } from "./types.js";
import type { RunLearning } from "../learning/learner.js";
import { spellsName } from "../learning/fuse.js";

export interface RunScope {
  /** Every tool this run may see: admitted catalog tools and admitted client tools. */
  catalog: EffectiveCatalog;
  /** The shared catalog's index, filtered by `catalog.catalogIds` instead of re-indexed. */
  index: ToolIndex;
  /** A small index of this run's client tools, when there are any. */
  clientIndex?: ToolIndex;
  /** Learning from use (learning/): this run's learned scores, and where its searches and calls are reported. */
  learning?: RunLearning;
}

export interface SearchLimits {
  searchDefaultLimit: number;
  maxSearchLimit: number;
}

const MAX_SUGGESTIONS = 3;
/**
 * Catalog hits fused with learned scores: enough that a tool the learned field ranks high is
 * among them with its catalog score. 20 in place of 30: MetaTool's tune replay 0.762 → 0.759,
 * validate and Seal-Tools unchanged, and a taught search at 4,076 tools about 0.3 ms faster
 * (`node dist/bench/learning/latency-main.js seal 4076`); 10 cost 0.005 on the tune replay.
 */
const LEARNED_POOL = 20;

export class RunDispatcher {
  constructor(
    private readonly scope: RunScope,
    private readonly limits: SearchLimits,
    private readonly env: CallEnvironment,
    private readonly recorder: RunRecorder,
    /** The run's OpenTelemetry span: searches and calls become its children (no-op without an SDK). */
    readonly trace: RunTrace,
  ) {}

  get catalog(): EffectiveCatalog {
    return this.scope.catalog;
  }

  /** One query → its hits; a list of queries → one answer per query inside one hit budget. */
  search(query: string, options?: SearchOptions, via?: CallVia, scope?: TraceScope): SearchHit[];
  search(query: readonly string[], options?: SearchOptions, via?: CallVia, scope?: TraceScope): BatchSearchResult[];
  search(query: string | readonly string[], options?: SearchOptions, via?: CallVia, scope?: TraceScope): SearchHit[] | BatchSearchResult[];
  search(query: string | readonly string[], options: SearchOptions = {}, via: CallVia = "api", scope?: TraceScope): SearchHit[] | BatchSearchResult[] {
    const started = performance.now();
    const { queries, limit } = this.checked(query, options);
    const answers = queries.map((q) => ({ query: q, hits: this.rank(q, limit) }));
    return this.recordSearch(query, answers, via, started, scope);
  }

  /**
   * The same answers as `search`, giving the event loop back between the queries of a batch:
   * a code body's batch of ten natural-language queries over a big catalog must not hold the
   * parent that every other session shares.
   */
  async searchYielding(
    query: string | readonly string[],
    options: SearchOptions = {},
    via: CallVia = "api",
    signal?: AbortSignal,
    scope?: TraceScope,
  ): Promise<SearchHit[] | BatchSearchResult[]> {
    const started = performance.now();
    const { queries, limit } = this.checked(query, options);
    const answers: BatchSearchResult[] = [];
    for (const [i, q] of queries.entries()) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      answers.push({ query: q, hits: this.rank(q, limit) });
    }
    return this.recordSearch(query, answers, via, started, scope);
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
      for (const a of answers) learning.searched(a.query, a.hits.filter((h) => h.source !== "client" && h.weak !== true).map((h) => h.id));
    }
    this.recorder.search({ type: "search", queries, hits, via });
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
    return this.explain(query, limit).map(({ learned: _learned, ...hit }) => hit);
  }

  /**
   * rank, each hit saying whether learning from use moved it up (`learned`). Not recorded and
   * never shown to a model: for `run.explain`, benchmarks and operators.
   */
  explain(query: string, limit: number): ExplainedHit[] {
    return this.searchOne(query.slice(0, MAX_QUERY_CHARS), Math.max(1, Math.min(limit, this.limits.maxSearchLimit)));
  }

  /**
   * The catalog's index and the run's client index, as one ranking: client tools are scored
   * with the catalog's corpus statistics (IDF, mean field lengths), so their scores compare
   * with catalog hits and a better-matching client tool ranks first. A request of several
   * steps is ranked clause by clause over that merged ranking and fused (search/intents.ts),
   * so a client tool can answer one step and catalog tools the others.
   */
  private searchOne(query: string, limit: number): ExplainedHit[] {
    const { catalog, index, learning } = this.scope;
    // The one hook of learning into ranking: learned scores of the run's allowed catalog tools
    // only (so policy is never widened), fused with the catalog's ranking (learning/fuse.ts).
    const learned =
      learning && !query.trim().toLowerCase().startsWith("select:") ? learning.scores(query, catalog.catalogIds, index.backend.corpusStats?.()) : undefined;
    const fusing = learned !== undefined && learned.size > 0;
    const ranked = searchIntents(
      query,
      fusing ? Math.max(limit, LEARNED_POOL) : limit,
      (q, n) => this.mergedHits(q, n),
      (id) => index.siblings(id, catalog.catalogIds),
      {},
      (q, clauses, n) => this.mergedClauses(q, clauses, n),
    );
    // An exact name or id stays first and alone decides: learning reorders only what text ranked.
    // A request that spells the first hit's whole name keeps it first; learning reorders the rest.
    const firstName = ranked[0] !== undefined ? catalog.get(ranked[0].id)?.name : undefined;
    const exact = fusing && ranked[0] !== undefined && isExact(query, ranked[0].id, firstName);
    const spelled = fusing && !exact && firstName !== undefined && spellsName(query, firstName);
    const fused = fusing && !exact && learning ? learning.fuse(ranked, learned, limit, spelled) : ranked.slice(0, limit).map((h) => ({ ...h, learned: false }));
    // Never empty: nothing ranked (and nothing learned) gives the best partial matches, marked weak.
    const hits: Array<BackendHit & { learned: boolean }> = fused.length > 0 ? fused : this.weakHits(query, limit).map((h) => ({ ...h, learned: false }));
    return hits.flatMap((hit) => {
      const entry = catalog.get(hit.id);
      return entry ? [{ ...toHit(entry, hit.score, hit.weak), learned: hit.learned }] : [];
    });
  }

  /**
   * Nothing in the run matched a request: the best partial matches of both indexes, marked
   * weak (search/partial-match.ts), client tools first on equal scores; only allowed tools.
   */
  private weakHits(query: string, limit: number): BackendHit[] {
    const { catalog, index, clientIndex } = this.scope;
    const hits = [...(clientIndex?.weakHits(query, limit, catalog.clientIds) ?? []), ...index.weakHits(query, limit, catalog.catalogIds)];
    return hits.sort((a, b) => b.score - a.score).slice(0, limit);
  }

  /** One list ranked over both indexes; `score` is the relative score the model sees (mergeHits). */
  private mergedHits(query: string, limit: number): BackendHit[] {
    const { catalog, index, clientIndex } = this.scope;
    const stats = index.backend.corpusStats?.();
    const hits = index.search(query, { limit, allowed: catalog.catalogIds, intents: false, weak: false });
    const clientHits = clientIndex?.search(query, { limit, allowed: catalog.clientIds, intents: false, weak: false, ...(stats ? { stats } : {}) }) ?? [];
    return this.merge(hits, clientHits, limit, stats !== undefined);
  }

  /** mergedHits for a request and its clauses, each index ranking them all in one pass. */
  private mergedClauses(query: string, clauses: readonly string[], limit: number): BackendHit[][] {
    const { catalog, index, clientIndex } = this.scope;
    const stats = index.backend.corpusStats?.();
    const lists = index.searchClauses(query, clauses, { limit, allowed: catalog.catalogIds });
    const clientLists = clientIndex?.searchClauses(query, clauses, { limit, allowed: catalog.clientIds, ...(stats ? { stats } : {}) });
    return lists.map((hits, i) => this.merge(hits, clientLists?.[i] ?? [], limit, stats !== undefined));
  }

  private merge(hits: readonly BackendHit[], clientHits: readonly BackendHit[], limit: number, catalogStats: boolean): BackendHit[] {
    const comparable = catalogStats && this.scope.clientIndex?.backend.corpusStats !== undefined;
    return mergeHits(hits, clientHits, limit, comparable).map((hit) => ({ id: hit.id, score: hit.relative }));
  }

  /**
   * Explicit learning feedback: `request` led to tool `id`. The id must be a catalog tool of
   * this run (TOOL_NOT_FOUND otherwise, exactly as for describe: a denied tool is no tool);
   * false when learning is off.
   */
  feedback(request: unknown, id: unknown): boolean {
    if (typeof request !== "string" || request.trim() === "")
      throw new InvalidArgsError("feedback needs the request (a non-empty string) that led to the tool.");
    if (request.length > MAX_QUERY_CHARS) throw new InvalidArgsError(`feedback: the request is ${request.length} characters, over ${MAX_QUERY_CHARS}.`);
    const entry = this.lookup(id);
    if (entry.source === "client") throw new InvalidArgsError(`feedback: ${entry.id} is a client tool; only catalog tools are learned.`);
    return this.scope.learning?.feedback(request, entry.id) ?? false;
  }

  describe(id: unknown, via: CallVia = "api"): ToolDescription {
    try {
      const description = toDescription(this.lookup(id));
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
      entry = this.lookup(id);
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

  /** The entry for an id in this run, or TOOL_NOT_FOUND with up to three ids it may have meant. */
  lookup(raw: unknown): CatalogEntry {
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

/** The request is exactly this tool's id or name (case-insensitive). */
function isExact(query: string, id: string, name: string | undefined): boolean {
  const q = query.trim().toLowerCase();
  return q === id.toLowerCase() || (name !== undefined && q === name.toLowerCase());
}

/** An id as it may be shown back or logged: a string, clipped with a marker. */
function shownId(id: unknown): string {
  return clip(typeof id === "string" ? id : typeof id, MAX_ID_CHARS);
}
