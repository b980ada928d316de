/**
 * The ranking rules every backend shares, on top of one backend and the docs it indexes. A
 * search ranks one list:
 * - `select:<id or name>[,<id or name>...]` returns exactly those tools (the allowed ones);
 * - a query that is exactly a tool's name or id (case-insensitive) puts those tools first
 *   (one name may belong to several toolsets: all of them, ids before names);
 * - then the backend's ranking; a query with no usable terms returns [], never an arbitrary slice;
 * - a query with content words over a non-empty allowed catalog never returns []: when no tool
 *   matches, the best partial matches, marked `weak` (partial-match.ts), unless `weak: false`;
 * - `limit` allowed hits whenever that many allowed tools match (backends over-fetch).
 * `allowed` is the run's effective catalog: nothing outside it is ever returned or suggested.
 *
 * A request of several steps is not this file's: dispatch/rank-request.ts (rankRequest, the one
 * path that ranks a request) splits it into clauses, fuses their lists and adds linked siblings
 * (intents.ts), using searchClauses, siblings and weakHits here. Benches and tests rank a bare
 * index through it too (bench/lib/rank-over-index.ts), so their figures are the product's.
 */
import { IndexClosedError } from "../errors.js";
import { IdSuggester } from "./ranking/id-suggester.js";
import { ownVocabulary, PartialMatcher } from "./ranking/partial-match.js";
import { linkToolset, toolsetKey } from "./ranking/siblings.js";
import { profileCatalog, type CatalogProfile } from "./ranking/catalog-profile.js";
import type { BackendHit, BackendSearchOptions, CorpusStats, SearchBackend, SearchDoc } from "./types.js";

export interface ToolIndexSearchOptions {
  limit: number;
  allowed?: ReadonlySet<string>;
  /** Passed to the backend: rank with another index's statistics (see BackendSearchOptions). */
  stats?: CorpusStats;
  /** Explain mode, passed to the backend: each backend search's score detail (BackendSearchOptions.explain). */
  explain?: BackendSearchOptions["explain"];
  /** Plain field BM25, passed to the backend (BackendSearchOptions.plain): the catalog guard's ranking. */
  plain?: boolean;
  /**
   * When nothing matches a request with content words, return the best partial matches marked
   * `weak` (default true). False for a caller that merges several indexes and falls back itself
   * (rankRequest): one index's weak hits must not sit beside another's real ones.
   */
  weak?: boolean;
}

const SELECT_PREFIX = "select:";
/** Docs indexed between two yields of a build on the calling thread: a slice short enough not to hold other work up. */
const BUILD_SLICE = 200;
/** Score given to exact and selected hits: above anything a backend returns. */
export const EXACT_SCORE = Number.MAX_SAFE_INTEGER;

/**
 * What the index looks docs up by: id, lowercase id and lowercase name. Made from the docs alone,
 * so a build in a worker thread makes it here while the worker analyses (index-cache.ts).
 */
export interface DocLookup {
  readonly docs: ReadonlyMap<string, SearchDoc>;
  /** lowercase id → id */
  readonly byLowerId: ReadonlyMap<string, string>;
  /** lowercase name → its id, or its ids in catalog order when several tools share the name (a string, not an array of one, for the usual unique name). */
  readonly byLowerName: ReadonlyMap<string, string | readonly string[]>;
}

export function docLookup(docs: readonly SearchDoc[]): DocLookup {
  const byId = new Map<string, SearchDoc>();
  const byLowerId = new Map<string, string>();
  const byLowerName = new Map<string, string | string[]>();
  for (const doc of docs) {
    byId.set(doc.id, doc);
    byLowerId.set(doc.id.toLowerCase(), doc.id);
    const key = doc.name.toLowerCase();
    const ids = byLowerName.get(key);
    if (ids === undefined) byLowerName.set(key, doc.id);
    else if (typeof ids === "string") byLowerName.set(key, [ids, doc.id]);
    else ids.push(doc.id);
  }
  return { docs: byId, byLowerId, byLowerName };
}

export class ToolIndex {
  readonly backend: SearchBackend;
  readonly #docs: ReadonlyMap<string, SearchDoc>;
  readonly #byLowerId: ReadonlyMap<string, string>;
  readonly #byLowerName: ReadonlyMap<string, string | readonly string[]>;
  #closed = false;
  #suggester: IdSuggester | undefined;
  #partial: PartialMatcher | undefined;
  /** toolsetKey → that toolset's docs (made at the first siblings() call), and its sibling links once made (siblings.ts). */
  #byToolset: Map<string, SearchDoc[]> | undefined;
  readonly #links = new Map<string, Map<string, string[]>>();
  /** The catalog's profile once made (null: the backend has no BM25F statistics). */
  #profile: CatalogProfile | null | undefined;

  /** `docs` must be what the backend indexes (ToolIndex.build adds them for you); `lookup`, when given, docLookup(docs). */
  constructor(backend: SearchBackend, docs: readonly SearchDoc[], lookup: DocLookup = docLookup(docs)) {
    this.backend = backend;
    this.#docs = lookup.docs;
    this.#byLowerId = lookup.byLowerId;
    this.#byLowerName = lookup.byLowerName;
  }

  #toolsets(): Map<string, SearchDoc[]> {
    if (this.#byToolset === undefined) {
      this.#byToolset = new Map();
      for (const doc of this.#docs.values()) {
        const group = this.#byToolset.get(toolsetKey(doc));
        if (group === undefined) this.#byToolset.set(toolsetKey(doc), [doc]);
        else group.push(doc);
      }
    }
    return this.#byToolset;
  }

  /**
   * Indexes `docs` in a new backend created by `create`, a slice at a time with the event loop
   * given back between slices: a catalog that an MCP server changes at run time is re-indexed
   * on the thread every session shares, and must not hold it for the whole build.
   */
  static async build(create: () => Promise<SearchBackend>, docs: readonly SearchDoc[]): Promise<ToolIndex> {
    const backend = await create();
    try {
      for (let start = 0; start < docs.length; start += BUILD_SLICE) {
        if (start > 0) await new Promise((resolve) => setImmediate(resolve));
        backend.add(docs.slice(start, start + BUILD_SLICE));
      }
    } catch (error) {
      backend.close?.();
      throw error;
    }
    return new ToolIndex(backend, docs);
  }

  get size(): number {
    return this.#docs.size;
  }

  get kind(): string {
    return this.backend.kind;
  }

  /** The indexed doc for an id, or undefined (also when `allowed` is given and lacks it). */
  get(id: string, allowed?: ReadonlySet<string>): SearchDoc | undefined {
    if (allowed !== undefined && !allowed.has(id)) return undefined;
    return this.#docs.get(id);
  }

  docs(): IterableIterator<SearchDoc> {
    return this.#docs.values();
  }

  /** One list by the rules above; a request of several steps is ranked by rankRequest (dispatch/rank-request.ts). */
  search(query: string, options: ToolIndexSearchOptions): BackendHit[] {
    this.#assertOpen();
    const limit = Math.floor(options.limit);
    if (!(limit > 0)) return [];
    const hits = this.#searchOne(query, limit, options);
    if (hits.length > 0 || options.weak === false) return hits;
    return this.weakHits(query, limit, options.allowed);
  }

  /**
   * The best partial matches of a request that no tool matched, each marked `weak`: prefix
   * matches of its words, then the other allowed tools in catalog order (partial-match.ts).
   * [] for a request without content words, a `select:` list (exact: what it names or
   * nothing) or an empty allowed catalog.
   */
  weakHits(query: string, limit: number, allowed?: ReadonlySet<string>): BackendHit[] {
    this.#assertOpen();
    if (query.trim().toLowerCase().startsWith(SELECT_PREFIX) || !PartialMatcher.hasContent(query)) return [];
    // Built on the first miss: most indexes never need it.
    this.#partial ??= new PartialMatcher(this.backend.corpusStats?.()?.termDocs?.() ?? ownVocabulary(this.#docs.values()), () => this.#docs.keys());
    return this.#partial.match(query, Math.floor(limit), allowed);
  }

  /**
   * [hits of `query`, ...hits of each clause] for a request split into clauses (intents.ts),
   * each list with the same rules as a search of that text (exact names first). One pass over
   * the backend's postings where it can (SearchBackend.searchClauses).
   */
  searchClauses(query: string, clauses: readonly string[], options: ToolIndexSearchOptions): BackendHit[][] {
    this.#assertOpen();
    const limit = Math.floor(options.limit);
    const texts = [query, ...clauses];
    if (!(limit > 0)) return texts.map(() => []);
    if (this.backend.searchClauses === undefined) return texts.map((t) => this.#searchOne(t, limit, options));
    const exact = texts.map((t) => this.#exact(t.trim(), options.allowed));
    const lists = this.backend.searchClauses(clauses, { limit: limit + Math.max(...exact.map((e) => e.length)), ...backendOptions(options) });
    return texts.map((_, i) => this.#withExact(exact[i]!, lists[i] ?? [], limit));
  }

  /**
   * Tools of the same server or plugin that its own text links to this one (siblings.ts),
   * strongest first, allowed ones only. A toolset's links are made when first asked for.
   */
  siblings(id: string, allowed?: ReadonlySet<string>): readonly string[] {
    this.#assertOpen();
    const doc = this.#docs.get(id);
    if (doc === undefined) return [];
    const key = toolsetKey(doc);
    let links = this.#links.get(key);
    if (links === undefined) {
      links = linkToolset(this.#toolsets().get(key) ?? []);
      this.#links.set(key, links);
    }
    const linked = links.get(id) ?? [];
    return allowed === undefined ? linked : linked.filter((s) => allowed.has(s));
  }

  /**
   * What kind of text the catalog's descriptions are (catalog-profile.ts), made on first use
   * from a bounded sample; undefined for a backend without BM25F statistics.
   */
  profile(): CatalogProfile | undefined {
    this.#assertOpen();
    if (this.#profile === undefined) {
      const stats = this.backend.corpusStats?.();
      this.#profile = stats === undefined ? null : profileCatalog([...this.#docs.values()], stats);
    }
    return this.#profile ?? undefined;
  }

  /** One request ranked as one list: `select:`, exact names and ids, then the backend's ranking. */
  #searchOne(query: string, limit: number, options: ToolIndexSearchOptions): BackendHit[] {
    const allowed = options.allowed;
    const trimmed = query.trim();

    if (trimmed.toLowerCase().startsWith(SELECT_PREFIX)) {
      const wanted = trimmed.slice(SELECT_PREFIX.length).split(",");
      const ids = dedupe(wanted.flatMap((w) => this.#exact(w.trim(), allowed)));
      return ids.slice(0, limit).map((id) => ({ id, score: EXACT_SCORE }));
    }

    const exact = this.#exact(trimmed, allowed);
    if (exact.length >= limit) return this.#withExact(exact, [], limit);
    // Ask for enough that dropping the exact ids (already listed) still leaves `limit`.
    return this.#withExact(exact, this.backend.search(query, { limit: limit + exact.length, ...backendOptions(options) }), limit);
  }

  /** Exact matches first, then the backend's hits without them, `limit` in all. */
  #withExact(exact: readonly string[], ranked: readonly BackendHit[], limit: number): BackendHit[] {
    if (exact.length === 0) {
      // The usual case (no tool is named exactly): the backend's hits as they are, `limit` of them.
      const hits: BackendHit[] = [];
      for (const hit of ranked) {
        if (hits.length >= limit) break;
        if (this.#docs.has(hit.id)) hits.push(hit);
      }
      return hits;
    }
    const exactSet = new Set(exact);
    const hits: BackendHit[] = exact.slice(0, limit).map((id) => ({ id, score: EXACT_SCORE }));
    for (const hit of ranked) {
      if (hits.length >= limit) break;
      if (exactSet.has(hit.id) || !this.#docs.has(hit.id)) continue;
      hits.push(hit);
    }
    return hits;
  }

  /** Tools whose id or name is exactly `text` (case-insensitive): the id match first, then name matches. */
  #exact(text: string, allowed: ReadonlySet<string> | undefined): string[] {
    if (text === "") return [];
    const key = text.toLowerCase();
    const out: string[] = [];
    const byId = this.#byLowerId.get(key);
    if (byId !== undefined) out.push(byId);
    const named = this.#byLowerName.get(key);
    if (typeof named === "string") {
      if (named !== byId) out.push(named);
    } else for (const id of named ?? []) if (id !== byId) out.push(id);
    return allowed === undefined ? out : out.filter((id) => allowed.has(id));
  }

  /** "Did you mean" ids for an unknown id or name: the closest allowed ids (see IdSuggester). */
  suggest(idOrName: string, allowed?: ReadonlySet<string>, n = 3): string[] {
    this.#assertOpen();
    // Built on first use: most indexes never see an unknown id.
    this.#suggester ??= new IdSuggester(this.#docs.values());
    return this.#suggester.suggest(idOrName, allowed, n);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.backend.close?.();
  }

  get closed(): boolean {
    return this.#closed;
  }

  #assertOpen(): void {
    if (this.#closed) throw new IndexClosedError();
  }
}

/** What a backend search takes from the index's options besides its limit. */
function backendOptions(options: ToolIndexSearchOptions): Omit<BackendSearchOptions, "limit"> {
  const { allowed, stats, explain, plain } = options;
  return { ...(allowed ? { allowed } : {}), ...(stats ? { stats } : {}), ...(explain ? { explain } : {}), ...(plain ? { plain } : {}) };
}

function dedupe(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
