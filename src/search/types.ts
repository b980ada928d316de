/**
 * The search contract. A SearchBackend is a small full-text engine over compact tool
 * descriptors; the ToolIndex above it (src/search/tool-index.ts) adds the ranking rules
 * every backend shares (exact name/id first, `select:`, empty-query => []).
 */
import type { SearchDoc } from "../catalog/search-doc.js";

export type { SearchDoc };

export interface BackendSearchOptions {
  /** At most this many hits. */
  limit: number;
  /** When given, only ids in this set may be returned (the run's effective catalog). */
  allowed?: ReadonlySet<string>;
  /**
   * Rank with these corpus statistics instead of the backend's own (a run's client tools scored
   * with the catalog's, so their scores compare with catalog hits). Backends without BM25F
   * statistics ignore it.
   */
  stats?: CorpusStats;
  /**
   * Explain mode: called once per search with each returned list's score detail by id (one
   * list for `search`, [whole, ...clauses] for `searchClauses`), as the scorer computed it.
   * Backends that do not rank by BM25F never call it. Undefined (the default) costs nothing.
   */
  explain?: (lists: ReadonlyArray<ReadonlyMap<string, ScoreDetail>>) => void;
  /**
   * Plain field BM25: the request's words as typed (no vocabulary rewrite, no thesaurus or typo
   * expansion), no coordination, no name precision; the fields still weighted and normalised
   * each on its own. What the catalog guard of rank-request.ts holds the engine's own signals
   * against. Backends that do not rank by BM25F ignore it.
   */
  plain?: boolean;
}

/** A BM25F field (bm25f.ts FIELD_NAMES): the tool's name, its toolset (server or plugin), description, parameter names. */
export type FieldName = "name" | "toolset" | "description" | "params";

/** One request word's part of a tool's BM25F score, as the scorer added it. */
export interface WordScore {
  /** The request word as the scorer read it: analysed (stemmed), vocabulary rewrites applied. */
  word: string;
  /** The index term that scored: the word itself, its typo correction or a thesaurus word of it. */
  term: string;
  /** How `term` came from `word` ("expansion": a custom expander's variant). */
  via: "word" | "typo" | "thesaurus" | "expansion";
  /** What the scorer added to the tool's sum for this word (its best variant only). */
  score: number;
  /** `score` split by field, in proportion to each field's weighted, length-normalised frequency; they sum to `score`. */
  fields: Record<FieldName, number>;
}

/** How a BM25F score was made: the word scores' sum, times coordination, times name precision (bm25f.ts). */
export interface ScoreDetail {
  words: WordScore[];
  /** Σ words[].score. */
  sum: number;
  /** (request words matched) ^ coord. */
  coordination: number;
  /** ((request words in the name + 1) ÷ (name terms + 1)) ^ namePrecision. */
  namePrecision: number;
  /** sum × coordination × namePrecision: the score the hit was ranked by in its list. */
  score: number;
}

/** What BM25F needs to know about a corpus to score a doc as if it belonged to it. */
export interface CorpusStats {
  readonly docCount: number;
  /** Mean length of each BM25F field (src/search/scoring/bm25f.ts FIELD_NAMES). */
  readonly avgLengths: readonly number[];
  /** Docs holding the (analysed) term. */
  df(term: string): number;
  /** Vocabulary terms a misspelt word may have meant, best first (query-expansion.ts). */
  corrections?(word: string): readonly string[];
  /** The indexed terms and the docs holding each, for partial matches (partial-match.ts). */
  termDocs?(): Vocabulary;
}

/** An index's vocabulary as partial matching reads it. */
export interface Vocabulary {
  /** Distinct terms, sorted (code-unit order). */
  readonly terms: readonly string[];
  /** Ids of the docs holding a term in any field, [] for an unknown term. */
  docs(term: string): readonly string[];
  /** Docs indexed. */
  readonly size: number;
}

export interface BackendHit {
  id: string;
  /** Higher is better. Scales differ between backends; only the order is comparable. */
  score: number;
  /** A partial match given because nothing matched the request (partial-match.ts). */
  weak?: true;
}

/**
 * A pluggable full-text backend. Implementations: "bm25f" (default: BM25F over JS postings,
 * its snapshots serialised by SQLite in WASM) and "minisearch". `query` is raw user text; each backend analyses it with the shared analyzer
 * (src/search/analysis/analyze.ts) so that both see the same terms.
 */
export interface SearchBackend {
  readonly kind: string;
  add(docs: readonly SearchDoc[]): void;
  remove(ids: readonly string[]): void;
  search(query: string, options: BackendSearchOptions): BackendHit[];
  /**
   * [hits of the clauses' whole text, ...hits of each clause], for a request split into
   * clauses (intents.ts), where a backend can rank them all in one pass (BM25F sums word
   * scores, so the whole is the sum of its clauses). Without it, each is a `search`.
   */
  readonly searchClauses?: ((clauses: readonly string[], options: BackendSearchOptions) => BackendHit[][]) | undefined;
  readonly size: number;
  /** This backend's BM25F statistics, when it ranks by BM25F (to rank other docs comparably). */
  corpusStats?(): CorpusStats | undefined;
  /** A snapshot that `load` restores (used to build big indexes in a worker thread); it may be made asynchronously. */
  serialize?(): Uint8Array | Promise<Uint8Array>;
  close?(): void;
}

/**
 * What a snapshot read from disk must match before `load` returns it: anyone who can write the
 * snapshot folder could have written it. `load` rejects (throws) a snapshot that does not index
 * exactly these docs, whose postings point outside it, or that would run code (SQL views,
 * triggers) or run past `timeoutMs`. Without an expectation (a snapshot this process's own
 * worker just built), `load` trusts the snapshot.
 */
export interface SnapshotExpectation {
  /** The catalog the snapshot claims to index: its ids and count must match. */
  docs: readonly SearchDoc[];
  /**
   * Also check every posting against the docs' analysis (default true), which costs about one
   * analysis of the catalog. The index cache skips it for a snapshot whose HMAC it checked.
   */
  postings?: boolean;
  /** SQL run on the snapshot while it loads is interrupted after this many ms (default 10000). */
  timeoutMs?: number;
}

/** Creates an empty backend, or one restored from a `serialize()` snapshot. */
export interface SearchBackendFactory {
  readonly kind: string;
  create(): Promise<SearchBackend>;
  load?(snapshot: Uint8Array, expect?: SnapshotExpectation): Promise<SearchBackend>;
  /**
   * The name the index worker builds this backend by (src/search/storage/worker-backends.ts): a big
   * catalog is then indexed off the main thread and loaded here from its snapshot (with
   * `load`). Without one, every build runs on the calling thread.
   */
  readonly worker?: string;
}

export type BackendChoice = "bm25f" | "minisearch" | SearchBackendFactory;
