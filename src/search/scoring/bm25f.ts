/**
 * BM25F over tool-aware fields, scored in WebAssembly (bm25f-core.ts), from compact postings
 * built with the shared analyzer.
 *
 * Why not FTS5's bm25(): it takes a weight per column but one shared length normalisation and
 * saturation, so a long description drowns a one-word name match and a term repeated across
 * columns saturates as if it were one field. BM25F (Robertson & Zaragoza) normalises each
 * field by its own mean length first, weighs and sums the field frequencies, and saturates
 * once per term. Fields and parameters come from an offline study on Seal-Tools dev (name 3
 * b 0.5, toolset 1 b 0.5, description 1 b 0.75, parameters 0.3 b 0.75, k1 1.2), retuned over
 * the three development sets of the relevance bench (LiveMCPBench's 60, Seal-Tools dev,
 * MetaTool tune): name 2.5 and description b 0.5 raise mean top-1 0.757 → 0.764 and lose no
 * set anything, held-out ones included (k1 0.9 / 1.6, name 2 / 4, description b 0.35 each
 * lost a set).
 *
 * Query words may expand (thesaurus, typo correction, see query-expansion.ts): each variant is
 * scored with its own weight and, per doc, only a word's best variant counts, so a word never
 * adds up over its synonyms. A variant, and a word only a vocabulary rewrite made
 * (query-words.ts), scores only in the fields where it means what was typed: the name and the
 * description (expansionFields). In parameter names and their text "list", "array" and "map"
 * are types: "list everything in the knowledge graph" once ranked `delete_relations` first
 * through its parameter's "An array of relations".
 *
 * Cost per query: one pass over the postings of the (at most MAX_QUERY_TERMS) query words and
 * their bounded expansions, then a heap select of k: linear in the postings touched.
 */
import { analyzeIdentifier, analyzeParams, analyzeText, MAX_QUERY_TERMS, type AnalyzableDoc } from "../analysis/analyze.js";
import type { BackendHit, BackendSearchOptions, CorpusStats, FieldName, ScoreDetail, Vocabulary, WordScore } from "../types.js";
import { expandWord, MAX_QUERY_SYNONYMS, MAX_TYPO_WORDS, type Expander, type Variant } from "../query/query-expansion.js";
import { PostingStore } from "./postings.js";
import { LruMap } from "../../validation/lru.js";
import { Bm25fCore, wasmKernels, type KernelFactory } from "./bm25f-core.js";
import { queryWordsOf } from "../query/query-words.js";
import { TypoIndex } from "../query/typo.js";
import { ConfigInvalidError, InternalError } from "../../errors.js";

export const FIELD_NAMES = ["name", "toolset", "description", "params"] as const satisfies readonly FieldName[];
const FIELDS = FIELD_NAMES.length;

export interface FieldParams {
  weight: number;
  /** Length normalisation: 0 ignores the field's length, 1 divides by it in full. */
  b: number;
}

export interface Bm25fParams {
  k1: number;
  fields: readonly FieldParams[];
  /**
   * Coordination: a doc's score is multiplied by (query words it matches) ^ coord, 0 = off.
   * BM25 adds words up, so one rare word a tool mentions in passing ("today", "meeting")
   * outranks a tool that matches every other word of the request; coordination rewards
   * matching more of what was asked. 0.5 from the study on the development sets (0.25–0.6
   * all gain; 1 over-rewards tools that match many common words).
   */
  coord?: number;
  /**
   * Name precision: a doc's score is also multiplied by ((request words found in its name + 1)
   * ÷ (its name's terms + 1)) ^ namePrecision, 0 = off. Of two tools that match the request
   * alike, the one whose name holds less that was not asked wins: `getHumidity` over
   * `getBuildingHumidity` for "the humidity level". It only breaks near-ties: 0.05–0.15 gain
   * on both Seal-Tools splits, 0.25 already costs the written requests.
   */
  namePrecision?: number;
  /**
   * Rewrite words the catalog lacks into words it has: plurals of identifier parts, closed
   * compounds split or joined (query-words.ts). Default on; false for the ablation.
   */
  vocabulary?: boolean;
  /**
   * The fields where a word's expansions (thesaurus, typo) and a rewritten word score: where
   * they mean what was typed. Default EXPANSION_FIELDS (name and description); every field
   * for the ablation.
   */
  expansionFields?: readonly FieldName[];
}

/** Where expansions mean what was typed: a tool's name and its description, not its toolset's name nor its parameters. */
const EXPANSION_FIELDS: readonly FieldName[] = ["name", "description"];

export const DEFAULT_BM25F: Bm25fParams = {
  k1: 1.2,
  fields: [
    { weight: 2.5, b: 0.5 },
    { weight: 1, b: 0.5 },
    { weight: 1, b: 0.5 },
    { weight: 0.3, b: 0.75 },
  ],
  coord: 0.5,
  namePrecision: 0.1,
  vocabulary: true,
  expansionFields: EXPANSION_FIELDS,
};

/** Corrections remembered per index (least recently used dropped first). */
const MAX_CORRECTED = 4_096;
/** Longer words are never corrected (typo.ts): nothing to remember. */
const MAX_CORRECTED_CHARS = 32;

/** Name lengths beyond this share one name-precision factor (a name of 31+ terms is an oddity). */
const MAX_NAME_TERMS = 31;

/** Term frequencies are packed 7 bits a field into one Int32 of the postings (4 fields: 28 bits). */
export const TF_BITS = 7;
export const TF_MAX = (1 << TF_BITS) - 1;
/** The packed-frequency mask of every field: a typed word scores wherever it occurs. */
const ALL_FIELDS_MASK = (1 << (TF_BITS * FIELDS)) - 1;

/** The packed-frequency mask that keeps only these fields' frequencies (the scoring core ANDs a posting's with it). */
function fieldMask(fields: readonly FieldName[]): number {
  return fields.reduce((mask, name) => mask | (TF_MAX << (TF_BITS * FIELD_NAMES.indexOf(name))), 0);
}

/** The analysed fields BM25F reads, in FIELD_NAMES order. */
export type FieldTerms = readonly [readonly string[], readonly string[], readonly string[], readonly string[]];

export function fieldTerms(doc: AnalyzableDoc): FieldTerms {
  // The toolset alone, not the id: the id repeats the name, which would count name words twice.
  // Not analyzeDoc: its id and synonym-key fields (minisearch's) would cost a quarter more.
  return [analyzeIdentifier(doc.name), analyzeIdentifier(doc.toolset), analyzeText(doc.description), analyzeParams(doc.params)];
}

/**
 * A doc's postings: term → its frequency in each field, 7 bits a field (field f at bit 7f).
 * What a posting pair stores, and what a snapshot's pairs are checked against (bm25f-verify.ts).
 */
export function packTermFrequencies(fields: FieldTerms, into?: Map<string, number>): Map<string, number> {
  // `into`: a map to reuse (emptied first), so that adding 100k docs does not make 100k maps.
  const packed = into ?? new Map<string, number>();
  packed.clear();
  for (let f = 0; f < fields.length; f++) {
    const shift = 1 << (TF_BITS * f);
    for (const term of fields[f]!) {
      const tfs = packed.get(term) ?? 0;
      // Saturated long before 127; capping keeps the packing exact.
      if (Math.floor(tfs / shift) % (TF_MAX + 1) < TF_MAX) packed.set(term, tfs + shift);
    }
  }
  return packed;
}

/** Bumped whenever Bm25fSnapshot's layout changes (part of the analyzer signature). */
export const BM25F_SNAPSHOT_FORMAT = 2;

/**
 * Snapshot form: the text parts as text, the numbers as raw Int32 bytes (parsing ~30 MB of
 * JSON postings on the main thread at 100k tools is what the worker build is meant to avoid).
 */
export interface Bm25fSnapshot {
  /** JSON array of ids, by doc number. */
  ids: string;
  /** Terms in posting-row order, one per line (analysed terms never hold a newline). */
  terms: string;
  lengths: Uint8Array;
  start: Uint8Array;
  data: Uint8Array;
}

export class Bm25fIndex implements CorpusStats {
  readonly #params: Bm25fParams;
  readonly #expander: Expander;
  /** fieldMask of the params' expansionFields. */
  readonly #expansionMask: number;
  /** docIdx → id; undefined once removed (until the next compaction renumbers). */
  #ids: Array<string | undefined> = [];
  readonly #byId = new Map<string, number>();
  /** docIdx * FIELDS + field → length in terms. */
  #lengths: number[] = [];
  readonly #totals = new Array<number>(FIELDS).fill(0);
  /** In the linear memory of the index's WebAssembly core, which also holds the scratch arrays (bm25f-core.ts). */
  #postings: PostingStore;
  /**
   * Pairs added since the store was last rewritten, flat (12 bytes a pair). Appending rewrites
   * the whole store, so adds (a build comes in slices of 200 docs) are kept here until the next
   * read: a build writes the core's memory once, sized for what it holds (that memory never
   * shrinks), and the rewrites cost O(n) in all, not O(n²).
   */
  #pending = new PendingPairs();
  #pendingNumbers = 0;
  /** The map #addOne packs each doc's frequencies into, reused doc after doc. */
  readonly #packing = new Map<string, number>();
  #live = 0;
  #typos: TypoIndex | undefined;
  /** Corrections found, by word (as #typos answers them until the vocabulary changes). */
  readonly #corrected = new LruMap<string, readonly string[]>(MAX_CORRECTED);
  /** Sorted terms for termDocs(), made on first use. */
  #sortedTerms: string[] | undefined;
  // Scratch buffers reused by every query (search is synchronous), in the core's memory: scores,
  // per touched doc the query words it matches (coordination) and of them the words found in its
  // name (name precision), each ≤ MAX_QUERY_TERMS, and the whole request's while clauses are
  // scored one by one (searchClauses). Reset by #select.
  /** The top-k heap explain mode's select reuses (search is synchronous). */
  #heap: TopK | undefined;
  /** Whether the core holds the factor tables below (written at the first select). */
  #factorsInCore = false;
  /** (words matched) ^ coord, by words matched: no Math.pow per doc. */
  readonly #coordFactors: Float64Array;
  /** Name-precision factors by [words in name][name terms]: no Math.pow per doc. */
  readonly #nameFactors: Float64Array;

  /** `kernels`: the scoring core's (the WebAssembly one; tests pass the JS reference). */
  constructor(params: Bm25fParams = DEFAULT_BM25F, expander: Expander = expandWord, kernels: KernelFactory = wasmKernels) {
    this.#params = params;
    this.#expander = expander;
    this.#expansionMask = fieldMask(params.expansionFields ?? EXPANSION_FIELDS);
    this.#postings = new PostingStore(new Bm25fCore(kernels));
    const coord = params.coord ?? 0;
    this.#coordFactors = Float64Array.from({ length: MAX_QUERY_TERMS + 1 }, (_, m) => (coord === 0 ? 1 : Math.pow(m, coord)));
    const precision = params.namePrecision ?? 0;
    const width = MAX_NAME_TERMS + 1;
    this.#nameFactors = Float64Array.from({ length: (MAX_QUERY_TERMS + 1) * width }, (_, i) =>
      precision === 0 ? 1 : Math.pow((Math.floor(i / width) + 1) / ((i % width) + 1), precision),
    );
  }

  get size(): number {
    return this.#live;
  }

  get docCount(): number {
    return this.#live;
  }

  get avgLengths(): readonly number[] {
    return this.#totals.map((t) => (this.#live === 0 ? 0 : t / this.#live));
  }

  df(term: string): number {
    return this.#read().df(term);
  }

  /** Terms of the index vocabulary (typo correction builds its trigram index from these). */
  vocabulary(): IterableIterator<string> {
    return this.#read().terms();
  }

  /**
   * The vocabulary for partial matches (partial-match.ts): the postings' terms sorted once (as
   * the typo index reads them once), and each term's docs from its posting row.
   */
  termDocs(): Vocabulary {
    const postings = this.#read();
    this.#sortedTerms ??= [...postings.terms()].sort();
    return {
      terms: this.#sortedTerms,
      size: this.#live,
      docs: (term) => {
        const row = postings.row(term);
        if (row < 0) return [];
        const out: string[] = [];
        for (let i = postings.start[row]!; i < postings.start[row + 1]!; i += 2) {
          const id = this.#ids[postings.data[i]!];
          if (id !== undefined) out.push(id);
        }
        return out;
      },
    };
  }

  /** Likely spellings of a word this index does not hold (built on first use). */
  corrections(word: string): readonly string[] {
    let found = this.#corrected.get(word);
    if (found === undefined) {
      this.#typos ??= new TypoIndex(this.#read().terms());
      found = this.#typos.corrections(word, (w) => this.df(w));
      // The same misspellings recur across requests, and a correction reads many candidates: remembered, bounded, until the index changes.
      if (word.length <= MAX_CORRECTED_CHARS) this.#corrected.set(word, found);
    }
    return found;
  }

  /** Adds docs (a known id is replaced). */
  add(entries: ReadonlyArray<{ id: string; fields: FieldTerms }>): void {
    const replaced = entries.filter((e) => this.#byId.has(e.id)).map((e) => e.id);
    if (replaced.length > 0) this.remove(replaced);
    this.#typos = undefined;
    this.#corrected.clear();
    this.#sortedTerms = undefined;
    for (const { id, fields } of entries) this.#addOne(id, fields);
  }

  #addOne(id: string, fields: FieldTerms): void {
    const doc = this.#ids.length;
    this.#ids.push(id);
    this.#byId.set(id, doc);
    this.#live++;
    fields.forEach((terms, f) => {
      this.#lengths.push(terms.length);
      this.#totals[f] = (this.#totals[f] ?? 0) + terms.length;
    });
    const packed = packTermFrequencies(fields, this.#packing);
    const postings = this.#postings;
    for (const [term, tfs] of packed) this.#pending.add(postings.row(term), term, postings.rows, doc, tfs);
    this.#pendingNumbers += 2 * packed.size;
  }

  /**
   * Removes docs by id. One pass over all postings per call, whatever the batch size: the
   * index keeps no forward lists (they would double its memory), and removal is rare (a
   * changed catalog gets a new index, see index-cache.ts).
   */
  remove(ids: readonly string[]): void {
    const dead = new Set<number>();
    for (const id of ids) {
      const doc = this.#byId.get(id);
      if (doc === undefined) continue;
      dead.add(doc);
      this.#byId.delete(id);
      this.#ids[doc] = undefined;
      this.#live--;
      for (let f = 0; f < FIELDS; f++) this.#totals[f] = (this.#totals[f] ?? 0) - (this.#lengths[doc * FIELDS + f] ?? 0);
    }
    if (dead.size === 0) return;
    this.#typos = undefined;
    this.#corrected.clear();
    this.#sortedTerms = undefined;
    this.#read().rebuild(new Map(), (doc) => (dead.has(doc) ? -1 : doc));
  }

  /**
   * The best `limit` allowed docs for a query. `stats` (another index's statistics) makes the
   * scores comparable with that index's: a run's few client tools ranked as if they were part
   * of the catalog.
   */
  search(query: string, options: BackendSearchOptions): BackendHit[] {
    const limit = Math.floor(options.limit);
    if (!(limit > 0) || this.#live === 0) return [];
    const stats = options.stats === undefined ? this : combineStats(this, options.stats);
    const plain = options.plain === true;
    const { words, rewritten } = queryWordsOf(query, stats, !plain && (this.#params.vocabulary ?? true));
    if (words.length === 0) return [];
    const trace = options.explain === undefined ? undefined : new ScoreTrace();
    const hits = this.#select(this.#score(words, rewritten, stats, 0, trace, plain), limit, options.allowed, false, trace, plain);
    if (trace !== undefined) options.explain?.([trace.details]);
    return hits;
  }

  /**
   * The hits of a request's whole text and of each of its clauses (intents.ts) in one pass
   * over the postings: the clauses partition the request's words, so the whole request's score
   * of a doc is the sum of its clause scores, and scoring the clauses is all the work. Returns
   * [whole, ...one list per clause]. Ranking the whole request and then each clause would read
   * every posting twice.
   */
  searchClauses(clauses: readonly string[], options: BackendSearchOptions): BackendHit[][] {
    const limit = Math.floor(options.limit);
    if (!(limit > 0) || this.#live === 0) return [[], ...clauses.map(() => [])];
    const stats = options.stats === undefined ? this : combineStats(this, options.stats);
    const core = this.#postings.core;
    // The whole request counts each distinct word once, as search() does, and no more than
    // MAX_QUERY_TERMS of them: "retrieve" in every clause must not weigh three times.
    const seen = new Set<string>();
    let wholeCount = 0;
    const lists: BackendHit[][] = [];
    // Explain mode: the whole request's word scores are its clauses' fresh ones, copied as scored.
    const wholeTrace = options.explain === undefined ? undefined : new ScoreTrace();
    const clauseTraces: ScoreTrace[] = [];
    for (const clause of clauses) {
      const { words, rewritten } = queryWordsOf(clause, stats, this.#params.vocabulary ?? true);
      const fresh = words.filter((w) => seen.size < MAX_QUERY_TERMS && !seen.has(w) && seen.add(w));
      const trace = wholeTrace === undefined ? undefined : new ScoreTrace();
      const count = this.#score(fresh, rewritten, stats, 0, trace);
      if (trace !== undefined) {
        wholeTrace?.absorb(trace);
        clauseTraces.push(trace);
      }
      wholeCount = core.accumulate(count, wholeCount);
      const again = words.filter((w) => !fresh.includes(w));
      lists.push(this.#select(this.#score(again, rewritten, stats, count, trace), limit, options.allowed, false, trace));
    }
    const all = [this.#select(wholeCount, limit, options.allowed, true, wholeTrace), ...lists];
    if (wholeTrace !== undefined) options.explain?.([wholeTrace.details, ...clauseTraces.map((t) => t.details)]);
    return all;
  }

  /**
   * Accumulates each word's best variant per doc into #scores; returns how many docs #touched
   * lists. `count`: docs #touched already lists (a second call adding words to the same scores).
   * `trace` (explain mode only) records each word's best variant per doc as it is added.
   * `rewritten`: words a vocabulary rewrite made, scored like expansions (expansionFields only).
   * `plain`: each word as typed only, no expansion (BackendSearchOptions.plain).
   */
  #score(words: readonly string[], rewritten: ReadonlySet<string>, stats: CorpusStats, count = 0, trace?: ScoreTrace, plain = false): number {
    this.#ensureScratch();
    const { k1, fields } = this.#params;
    const postings = this.#read();
    // The posting walk, per-field normalisation, best variant per doc and the per-word sums run
    // in the WebAssembly core (bm25f-core.ts), over the postings and lengths in its memory.
    const core = postings.core;
    core.syncLengths(this.#lengths);
    core.setNorm(k1, fields, stats.avgLengths);
    const budget = { typos: MAX_TYPO_WORDS, synonyms: MAX_QUERY_SYNONYMS };
    // Explain mode: each word's best variant per doc, found again in JS by the same formula (the
    // core keeps no record of which variant won; the identity test holds the two to the same bits).
    const traced = new Map<number, number>();
    const norm: NormParams[] =
      trace === undefined ? [] : fields.map((p, f) => ({ weight: p.weight, b: p.b, avg: Math.max(stats.avgLengths[f] ?? 0, Number.EPSILON) }));
    const own = stats === this;
    for (const word of words) {
      let wordCount = 0;
      // A variant never carries more specificity than the word typed, nor more than its own: a
      // rare synonym of a common word must not outrank the word itself (query-expansion.ts).
      // Each df looked up once: a variant's from the row just found (this index's own
      // statistics), the word's once for all its variants.
      let wordIdf: number | undefined;
      const typed = !rewritten.has(word);
      for (const variant of plain ? [{ term: word, weight: 1 }] : this.#expander(word, stats, budget)) {
        const row = postings.row(variant.term);
        if (row < 0) continue;
        const variantIdf = idf(own ? postings.dfOfRow(row) : stats.df(variant.term), stats.docCount);
        const scale = variant.weight * (variant.term === word ? variantIdf : Math.min(variantIdf, (wordIdf ??= idf(stats.df(word), stats.docCount))));
        const mask = typed && variant.term === word ? ALL_FIELDS_MASK : this.#expansionMask;
        wordCount = core.scoreRow(row, scale, wordCount, mask);
        if (trace !== undefined) this.#traceRow(trace, traced, row, scale, mask, word, variant, norm, k1);
      }
      if (trace !== undefined) {
        for (const [doc, best] of traced) trace.commit(doc, best);
        traced.clear();
      }
      count = core.endWord(wordCount, count);
    }
    return count;
  }

  /** Explain mode: the row's docs whose score for this variant beats the word's best so far, recorded in `trace`. */
  #traceRow(
    trace: ScoreTrace,
    traced: Map<number, number>,
    row: number,
    scale: number,
    mask: number,
    word: string,
    variant: Variant,
    norm: NormParams[],
    k1: number,
  ): void {
    const { start, data } = this.#postings.core;
    const lengths = this.#lengths;
    for (let i = start[row]!, end = start[row + 1]!; i < end; i += 2) {
      const doc = data[i]!;
      const tfs = data[i + 1]! & mask;
      let tf = 0;
      for (let f = 0, packed = tfs; packed !== 0; f++, packed >>>= TF_BITS) {
        const n = packed & TF_MAX;
        if (n !== 0) tf += fieldTf(norm[f]!, n, lengths[doc * FIELDS + f]!);
      }
      const s = (scale * tf) / (k1 + tf);
      if (s > (traced.get(doc) ?? 0)) {
        traced.set(doc, s);
        trace.best.set(doc, { word, variant, tfs, scale, norm, score: 0 });
      }
    }
  }

  /**
   * Top `limit` allowed docs of a list (`whole`: the whole request's of searchClauses, else the
   * query's or clause's), by score × coordination × name precision, then insertion order; resets
   * the list's scratch. The pass over every touched doc (thousands for a request of many words)
   * runs in the core, which keeps the best `limit` in a heap; here those few are ordered and
   * filtered by the allowed set, and when the filter leaves fewer than `limit`, the core's heap is
   * taken again four times larger from the final scores it kept. With `trace`, or `plain` (the
   * score alone, for the catalog guard's plain ranking), the same in JS (#selectInJs).
   */
  #select(count: number, limit: number, allowed: ReadonlySet<string> | undefined, whole: boolean, trace: ScoreTrace | undefined, plain = false): BackendHit[] {
    if (trace !== undefined || plain) return this.#selectInJs(count, limit, allowed, whole, trace, plain);
    const core = this.#postings.core;
    if (!this.#factorsInCore) {
      core.setFactors(this.#coordFactors, this.#nameFactors);
      this.#factorsInCore = true;
    }
    const ids = this.#ids;
    let want = limit;
    let size = core.selectList(count, want, whole);
    for (;;) {
      const { topDocs, topScores } = core.scratch();
      const picked: Array<{ doc: number; score: number }> = [];
      for (let i = 0; i < size; i++) picked.push({ doc: topDocs[i]!, score: topScores[i]! });
      picked.sort(byRank);
      const hits: BackendHit[] = [];
      for (const { doc, score } of picked) {
        const id = ids[doc];
        if (id === undefined || (allowed !== undefined && !allowed.has(id))) continue;
        hits.push({ id, score });
        if (hits.length === limit) return hits;
      }
      if (want >= count) return hits;
      want = Math.min(count, want * 4);
      size = core.topHeap(count, want, whole);
    }
  }

  /**
   * #select in JS, for explain mode (each doc that would enter the top k gets its factors
   * recorded, each hit its detail) and for plain rankings (no coordination, no name precision).
   */
  #selectInJs(
    count: number,
    limit: number,
    allowed: ReadonlySet<string> | undefined,
    whole: boolean,
    trace: ScoreTrace | undefined,
    plain: boolean,
  ): BackendHit[] {
    const scratch = this.#postings.core.scratch();
    const scores = whole ? scratch.whole : scratch.scores;
    const touched = whole ? scratch.wholeTouched : scratch.touched;
    const matched = whole ? scratch.wholeMatched : scratch.matched;
    const inName = whole ? scratch.wholeInName : scratch.inName;
    const heap = (this.#heap ??= new TopK()).reset(limit);
    const coordFactors = this.#coordFactors;
    const nameFactors = this.#nameFactors;
    const lengths = this.#lengths;
    const ids = this.#ids;
    for (let i = 0; i < count; i++) {
      const doc = touched[i]!;
      const nameTerms = Math.min(lengths[doc * FIELDS]!, MAX_NAME_TERMS);
      const sum = scores[doc]!;
      const coordination = plain ? 1 : coordFactors[matched[doc]!]!;
      const precision = plain ? 1 : nameFactors[inName[doc]! * (MAX_NAME_TERMS + 1) + nameTerms]!;
      const score = sum * coordination * precision;
      scores[doc] = 0;
      matched[doc] = 0;
      inName[doc] = 0;
      // The heap test first: the allowed-set lookup (a string hash) then runs for the few docs
      // that would enter the top k, not for every match (most of the cost of filtered queries).
      if (!heap.accepts(doc, score)) continue;
      trace?.factors(doc, sum, coordination, precision, score);
      const id = ids[doc];
      if (id === undefined || (allowed !== undefined && !allowed.has(id))) continue;
      heap.push(doc, score);
    }
    // Only docs with an id enter the heap (checked above).
    return heap.sorted().flatMap(({ doc, score }) => {
      const id = ids[doc];
      if (id === undefined) return [];
      trace?.keep(doc, id, this.#params.k1, (f) => lengths[doc * FIELDS + f]!);
      return [{ id, score }];
    });
  }

  #ensureScratch(): void {
    this.#postings.core.ensureDocs(this.#ids.length);
  }

  /** The postings with every pending add in them. */
  #read(): PostingStore {
    if (this.#pendingNumbers > 0) {
      this.#postings.appendPairs(this.#pending.newTerms, this.#pending.rowOf, this.#pending.pairs, this.#pending.count);
      this.#pending = new PendingPairs();
      this.#pendingNumbers = 0;
    }
    return this.#postings;
  }

  /** Docs renumbered densely (removed ones dropped), so that a snapshot carries no holes. */
  #compact(): void {
    if (this.#live === this.#ids.length) return;
    const renumber = new Int32Array(this.#ids.length).fill(-1);
    const ids: string[] = [];
    const lengths: number[] = [];
    this.#ids.forEach((id, doc) => {
      if (id === undefined) return;
      renumber[doc] = ids.length;
      this.#byId.set(id, ids.length);
      ids.push(id);
      for (let f = 0; f < FIELDS; f++) lengths.push(this.#lengths[doc * FIELDS + f] ?? 0);
    });
    this.#read().rebuild(new Map(), (doc) => renumber[doc] ?? -1); // -1: a doc outside the table is dropped
    this.#ids = ids;
    this.#lengths = lengths;
  }

  toSnapshot(): Bm25fSnapshot {
    this.#compact();
    const { terms, start, data } = this.#read().export();
    return { ids: JSON.stringify(this.#ids), terms: terms.join("\n"), lengths: bytes(Int32Array.from(this.#lengths)), start: bytes(start), data: bytes(data) };
  }

  static fromSnapshot(snapshot: Bm25fSnapshot, params?: Bm25fParams, expander?: Expander, kernels?: KernelFactory): Bm25fIndex {
    const ids = JSON.parse(snapshot.ids) as unknown;
    const lengths = int32s(snapshot.lengths);
    if (!Array.isArray(ids) || lengths.length !== ids.length * FIELDS) throw new ConfigInvalidError("bm25f: malformed snapshot");
    const index = new Bm25fIndex(params, expander, kernels);
    const restored = ids.map(String);
    restored.forEach((id, doc) => index.#byId.set(id, doc));
    index.#ids = restored;
    index.#live = ids.length;
    index.#lengths = Array.from(lengths);
    index.#lengths.forEach((len, i) => (index.#totals[i % FIELDS] = (index.#totals[i % FIELDS] ?? 0) + len));
    const terms = snapshot.terms === "" ? [] : snapshot.terms.split("\n");
    index.#postings = PostingStore.import(terms, int32s(snapshot.start), int32s(snapshot.data), index.#postings.core);
    return index;
  }
}

function bytes(array: Int32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** A copy, so that the Int32 view is aligned whatever buffer the bytes came in. */
function int32s(raw: Uint8Array): Int32Array {
  if (raw.byteLength % 4 !== 0) throw new ConfigInvalidError("bm25f: malformed snapshot");
  const out = new Int32Array(raw.byteLength / 4);
  new Uint8Array(out.buffer).set(raw);
  return out;
}

/** A field's weighted, length-normalised term frequency: what BM25F sums over fields before it saturates. */
function fieldTf(p: NormParams, n: number, length: number): number {
  return (p.weight * n) / (1 - p.b + (p.b * length) / p.avg);
}

interface NormParams {
  weight: number;
  b: number;
  /** The field's mean length (never 0). */
  avg: number;
}

/** A word's best variant in a doc, as #score found it: enough to split its score by field later. */
interface Scored {
  word: string;
  variant: Variant;
  /** The doc's packed term frequencies of the variant. */
  tfs: number;
  /** The variant's weight × IDF. */
  scale: number;
  /** The field parameters and mean lengths of the search. */
  norm: readonly NormParams[];
  /** What #score added to the doc's sum (set when the word is done). */
  score: number;
}

/**
 * Explain mode's record of one scored list, filled by the scoring pass itself (so its figures
 * are the ones the ranking used, not a second derivation): per doc, each word's best variant
 * and what it added, then the factors #select multiplied the sum by. Only the hits returned
 * get their words split by field (keep): a search touches thousands of docs and returns ten.
 * Only made when a search asks for it: the default path passes undefined.
 */
class ScoreTrace {
  /** doc → the best variant so far of the word being scored (reset as each word is added). */
  readonly best = new Map<number, Scored>();
  /** doc → its word scores, in the order they were added to its sum. */
  readonly #words = new Map<number, Scored[]>();
  readonly #factors = new Map<number, Omit<ScoreDetail, "words">>();
  /** id → detail, for the hits the list returned. */
  readonly details = new Map<string, ScoreDetail>();

  /** The word just scored added `score` to `doc` (its best variant's). */
  commit(doc: number, score: number): void {
    const best = this.best.get(doc);
    if (best === undefined) return;
    this.best.delete(doc);
    best.score = score;
    const list = this.#words.get(doc);
    if (list === undefined) this.#words.set(doc, [best]);
    else list.push(best);
  }

  /** Adds another trace's word scores as they stand now (a clause's fresh words, to the whole request's). */
  absorb(other: ScoreTrace): void {
    for (const [doc, words] of other.#words) {
      const list = this.#words.get(doc);
      if (list === undefined) this.#words.set(doc, [...words]);
      else list.push(...words);
    }
  }

  /** #select's factors for a doc that may enter the list. */
  factors(doc: number, sum: number, coordination: number, namePrecision: number, score: number): void {
    this.#factors.set(doc, { sum, coordination, namePrecision, score });
  }

  /** The doc is a hit of the list, as `id`; `length(f)`: its length in field f. */
  keep(doc: number, id: string, k1: number, length: (f: number) => number): void {
    const factors = this.#factors.get(doc);
    if (factors === undefined) return;
    const words = (this.#words.get(doc) ?? []).map((w) => wordScore(w, k1, length));
    this.details.set(id, { words, ...factors });
  }
}

/** A word's score split by field in proportion to each field's part of the tf it saturated. */
function wordScore(scored: Scored, k1: number, length: (f: number) => number): WordScore {
  const { word, variant, score } = scored;
  const parts: number[] = [];
  let tf = 0;
  let packed = scored.tfs;
  // The same terms in the same order as #score's loop: tf comes out bit for bit the same.
  for (let f = 0; f < FIELDS; f++, packed >>>= TF_BITS) {
    const n = packed & TF_MAX;
    const part = n === 0 ? 0 : fieldTf(scored.norm[f]!, n, length(f));
    parts.push(part);
    tf += part;
  }
  // The split must be the scorer's own weighing: the same tf saturates to the very score it added.
  if ((scored.scale * tf) / (k1 + tf) !== score) throw new InternalError("bm25f explain: the field split no longer follows the scorer's formula (see #score).");
  const fields = Object.fromEntries(FIELD_NAMES.map((name, f) => [name, tf === 0 ? 0 : (score * parts[f]!) / tf])) as Record<FieldName, number>;
  const via = variant.term === word ? "word" : (variant.origin ?? "expansion");
  return { word, term: variant.term, via, score, fields };
}

/** Robertson–Sparck Jones IDF, floored above 0 so that a term in every doc still counts a little. */
function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * Statistics of a small index (a run's client tools) merged into a big one's (the catalog):
 * counts add up, and the big one's mean field lengths stand, as a few docs barely move them.
 */
function combineStats(own: CorpusStats, shared: CorpusStats): CorpusStats {
  return {
    docCount: own.docCount + shared.docCount,
    avgLengths: shared.docCount > 0 ? shared.avgLengths : own.avgLengths,
    df: (term) => own.df(term) + shared.df(term),
    // The catalog's vocabulary first: a client tool's own words are few.
    corrections: (word) => [...new Set([...(shared.corrections?.(word) ?? []), ...(own.corrections?.(word) ?? [])])].slice(0, 2),
  };
}

/**
 * Pairs added since the postings were last rewritten, flat: per pair its row (a new term gets the
 * next row after the store's), doc and packed frequencies, in typed arrays that double as they
 * fill. No array per term: a build of 100k tools adds a term per tool name at least.
 */
class PendingPairs {
  /** Terms the store lacks, in the order their rows follow the store's. */
  readonly newTerms: string[] = [];
  readonly #newRows = new Map<string, number>();
  rowOf = new Int32Array(1_024);
  /** [doc, tfs] per pair. */
  pairs = new Int32Array(2_048);
  count = 0;

  /** `row`: the term's row in the store, or -1 for a term it lacks (then it gets row `rows` + its place among the new). */
  add(row: number, term: string, rows: number, doc: number, tfs: number): void {
    if (row < 0) {
      const known = this.#newRows.get(term);
      if (known === undefined) {
        row = rows + this.newTerms.length;
        this.#newRows.set(term, row);
        this.newTerms.push(term);
      } else row = known;
    }
    if (this.count === this.rowOf.length) {
      const rowOf = new Int32Array(this.rowOf.length * 2);
      rowOf.set(this.rowOf);
      this.rowOf = rowOf;
      const pairs = new Int32Array(this.pairs.length * 2);
      pairs.set(this.pairs);
      this.pairs = pairs;
    }
    this.rowOf[this.count] = row;
    this.pairs[2 * this.count] = doc;
    this.pairs[2 * this.count + 1] = tfs;
    this.count++;
  }
}

/**
 * A bounded min-heap keeping the k best (score desc, doc asc), in typed arrays reused from one
 * select to the next: a select of thousands of touched docs allocates nothing per doc.
 */
class TopK {
  #k = 0;
  #size = 0;
  #docs = new Int32Array(16);
  #scores = new Float64Array(16);

  /** Empties the heap for a select of the best `k`. */
  reset(k: number): this {
    this.#k = k;
    this.#size = 0;
    if (this.#docs.length < k) {
      this.#docs = new Int32Array(k);
      this.#scores = new Float64Array(k);
    }
    return this;
  }

  /** Whether a doc with this score would enter the heap now: it beats the worst kept (lower score, or same score and later doc). */
  accepts(doc: number, score: number): boolean {
    if (this.#size < this.#k) return true;
    const worst = this.#scores[0]!;
    return worst < score || (worst === score && this.#docs[0]! > doc);
  }

  /** Adds a doc that accepts() let in. */
  push(doc: number, score: number): void {
    if (this.#size < this.#k) {
      this.#up(this.#size++, doc, score);
    } else if (this.accepts(doc, score)) {
      this.#down(doc, score);
    }
  }

  sorted(): Array<{ doc: number; score: number }> {
    const out: Array<{ doc: number; score: number }> = [];
    for (let i = 0; i < this.#size; i++) out.push({ doc: this.#docs[i]!, score: this.#scores[i]! });
    return out.sort(byRank);
  }

  /** Sifts a new item up from the free slot `i`. */
  #up(i: number, doc: number, score: number): void {
    const docs = this.#docs;
    const scores = this.#scores;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!worse(doc, score, docs[parent]!, scores[parent]!)) break;
      docs[i] = docs[parent]!;
      scores[i] = scores[parent]!;
      i = parent;
    }
    docs[i] = doc;
    scores[i] = score;
  }

  /** Puts an item in place of the worst (the root) and sifts it down. */
  #down(doc: number, score: number): void {
    const docs = this.#docs;
    const scores = this.#scores;
    const size = this.#size;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let at = i;
      let atDoc = doc;
      let atScore = score;
      if (left < size && worse(docs[left]!, scores[left]!, atDoc, atScore)) {
        at = left;
        atDoc = docs[left]!;
        atScore = scores[left]!;
      }
      if (right < size && worse(docs[right]!, scores[right]!, atDoc, atScore)) {
        at = right;
        atDoc = docs[right]!;
        atScore = scores[right]!;
      }
      if (at === i) break;
      docs[i] = atDoc;
      scores[i] = atScore;
      i = at;
    }
    docs[i] = doc;
    scores[i] = score;
  }
}

/** Best first: higher score, then earlier doc (the order of a select's hits). */
function byRank(a: { doc: number; score: number }, b: { doc: number; score: number }): number {
  return worse(a.doc, a.score, b.doc, b.score) ? 1 : worse(b.doc, b.score, a.doc, a.score) ? -1 : 0;
}

/** Whether (docA, scoreA) ranks below (docB, scoreB): lower score, or same score and later doc. */
function worse(docA: number, scoreA: number, docB: number, scoreB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && docA > docB);
}
