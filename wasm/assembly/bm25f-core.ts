/**
 * The BM25F scoring core in WebAssembly (AssemblyScript, compiled by `npm run build` into
 * dist/wasm/bm25f-core.wasm): the posting walk of a query word's variants with per-field length
 * normalisation and saturation, each word's best variant per doc, the per-word sums into
 * the scores, matched-word and name-match counts, and the select of a list's best docs (final
 * score, reset, a bounded heap). src/search/scoring/bm25f.ts drives it and keeps the rest (query words,
 * expansion, IDF, the allowed-set filter and the order of the few docs selected);
 * src/search/scoring/bm25f-core.ts owns the memory layout.
 *
 * Hand-written because no library scores BM25F over these postings: FTS5's bm25() has one
 * saturation for all columns (src/search/backends/bm25f-backend.ts says why that ranks worse), and the JS engines
 * bring their own index. Every f64 operation is the one bm25f.ts did in JS, in the same order,
 * so scores are bit-identical (test/search/scoring/bm25f-core.property.test.ts).
 *
 * Plain exports over linear memory, no runtime, no allocation: the arrays are laid out by the
 * JS side, which passes their byte offsets to setLayout after each move. Not part of the
 * TypeScript program (tsconfig.json excludes wasm/assembly): AssemblyScript's types (i32, f64,
 * load<T>) are its own.
 */

// Byte offsets of the arrays (see Bm25fCore in src/search/scoring/bm25f-core.ts for what each holds).
let scoresAt: usize = 0;
let bestAt: usize = 0;
let wholeAt: usize = 0;
let touchedAt: usize = 0;
let wordTouchedAt: usize = 0;
let wholeTouchedAt: usize = 0;
let matchedAt: usize = 0;
let inNameAt: usize = 0;
let bestInNameAt: usize = 0;
let wholeMatchedAt: usize = 0;
let wholeInNameAt: usize = 0;
let finalAt: usize = 0;
let topDocsAt: usize = 0;
let topScoresAt: usize = 0;
let lengthsAt: usize = 0;
let startAt: usize = 0;
let dataAt: usize = 0;
let coordAt: usize = 0;
let nameAt: usize = 0;

// The query's BM25F parameters: k1, and per field weight, b and mean length.
let k1: f64 = 0;
let w0: f64 = 0;
let b0: f64 = 0;
let a0: f64 = 0;
let w1: f64 = 0;
let b1: f64 = 0;
let a1: f64 = 0;
let w2: f64 = 0;
let b2: f64 = 0;
let a2: f64 = 0;
let w3: f64 = 0;
let b3: f64 = 0;
let a3: f64 = 0;

/** Term frequencies are packed 7 bits a field (bm25f.ts TF_BITS, TF_MAX). */
const TF_BITS = 7;
const TF_MAX = 127;

/** Where linear memory is free for the JS side's arrays (past this module's own data). */
export function heapBase(): usize {
  return __heap_base;
}

export function setLayout(
  scores: usize,
  best: usize,
  whole: usize,
  touched: usize,
  wordTouched: usize,
  wholeTouched: usize,
  matched: usize,
  inName: usize,
  bestInName: usize,
  wholeMatched: usize,
  wholeInName: usize,
  final: usize,
  topDocs: usize,
  topScores: usize,
  lengths: usize,
  start: usize,
  data: usize,
  coord: usize,
  name: usize,
): void {
  scoresAt = scores;
  bestAt = best;
  wholeAt = whole;
  touchedAt = touched;
  wordTouchedAt = wordTouched;
  wholeTouchedAt = wholeTouched;
  matchedAt = matched;
  inNameAt = inName;
  bestInNameAt = bestInName;
  wholeMatchedAt = wholeMatched;
  wholeInNameAt = wholeInName;
  finalAt = final;
  topDocsAt = topDocs;
  topScoresAt = topScores;
  lengthsAt = lengths;
  startAt = start;
  dataAt = data;
  coordAt = coord;
  nameAt = name;
}

/** The query's parameters; `a*`: the field's mean length, already floored at EPSILON. */
export function setNorm(k: f64, fw0: f64, fb0: f64, fa0: f64, fw1: f64, fb1: f64, fa1: f64, fw2: f64, fb2: f64, fa2: f64, fw3: f64, fb3: f64, fa3: f64): void {
  k1 = k;
  w0 = fw0;
  b0 = fb0;
  a0 = fa0;
  w1 = fw1;
  b1 = fb1;
  a1 = fa1;
  w2 = fw2;
  b2 = fb2;
  a2 = fa2;
  w3 = fw3;
  b3 = fb3;
  a3 = fa3;
}

/**
 * One field's length-normalised, weighted frequency: (w·n) / (1 − b + b·len / avg), as
 * bm25f.ts wrote it (same operations, same order; `c` is 1 − b, the same f64 whether computed
 * once or per posting).
 */
function fieldTf(w: f64, c: f64, b: f64, a: f64, n: i32, len: i32): f64 {
  return (w * <f64>n) / (c + (b * <f64>len) / a);
}

/**
 * Walks one variant's posting row: each doc's saturated score `scale`·tf / (k1 + tf), kept
 * where it beats the word's best variant so far for that doc. `mask` keeps the packed
 * frequencies of the fields the variant may score in (an expansion: name and description only);
 * a doc with none of them scores 0 and is not touched. Returns how many docs the word has
 * touched (`wordCount` on entry: those touched by its earlier variants).
 */
export function scoreRow(row: i32, scale: f64, wordCount: i32, mask: i32): i32 {
  // Globals copied into locals once a row: the loop then touches memory only for the postings.
  const data = dataAt;
  const lengths = lengthsAt;
  const bests = bestAt;
  const inName = bestInNameAt;
  const wordTouched = wordTouchedAt;
  const k = k1;
  const fw0 = w0,
    fb0 = b0,
    fa0 = a0,
    fc0 = 1 - b0;
  const fw1 = w1,
    fb1 = b1,
    fa1 = a1,
    fc1 = 1 - b1;
  const fw2 = w2,
    fb2 = b2,
    fa2 = a2,
    fc2 = 1 - b2;
  const fw3 = w3,
    fb3 = b3,
    fa3 = a3,
    fc3 = 1 - b3;
  const rowAt = startAt + ((<usize>row) << 2);
  const end = load<i32>(rowAt, 4);
  for (let i = load<i32>(rowAt); i < end; i += 2) {
    const pairAt = data + ((<usize>i) << 2);
    const doc = load<i32>(pairAt);
    const tfs = load<i32>(pairAt, 4) & mask;
    const lenAt = lengths + ((<usize>doc) << 4);
    // Fields in ascending order, a zero frequency skipped: the order JS added them in.
    let tf: f64 = 0;
    const n0 = tfs & TF_MAX;
    if (n0 != 0) tf += fieldTf(fw0, fc0, fb0, fa0, n0, load<i32>(lenAt));
    const n1 = (tfs >>> TF_BITS) & TF_MAX;
    if (n1 != 0) tf += fieldTf(fw1, fc1, fb1, fa1, n1, load<i32>(lenAt, 4));
    const n2 = (tfs >>> (2 * TF_BITS)) & TF_MAX;
    if (n2 != 0) tf += fieldTf(fw2, fc2, fb2, fa2, n2, load<i32>(lenAt, 8));
    const n3 = (tfs >>> (3 * TF_BITS)) & TF_MAX;
    if (n3 != 0) tf += fieldTf(fw3, fc3, fb3, fa3, n3, load<i32>(lenAt, 12));
    const s = (scale * tf) / (k + tf);
    const bestOf = bests + ((<usize>doc) << 3);
    const best = load<f64>(bestOf);
    if (s > best) {
      if (best == 0) {
        store<i32>(wordTouched + ((<usize>wordCount) << 2), doc);
        wordCount++;
      }
      store<f64>(bestOf, s);
      store<u8>(inName + <usize>doc, n0 == 0 ? 0 : 1);
    }
  }
  return wordCount;
}

/**
 * Adds the word's best variant per doc into the scores, counts the word as matched (and as
 * found in the name where its best variant was), resets the word's bests. Returns how many docs
 * the scores list (`count` on entry: those listed before this word).
 */
export function endWord(wordCount: i32, count: i32): i32 {
  for (let i = 0; i < wordCount; i++) {
    const doc = load<i32>(wordTouchedAt + ((<usize>i) << 2));
    const scoreOf = scoresAt + ((<usize>doc) << 3);
    const bestOf = bestAt + ((<usize>doc) << 3);
    const score = load<f64>(scoreOf);
    if (score == 0) {
      store<i32>(touchedAt + ((<usize>count) << 2), doc);
      count++;
    }
    store<f64>(scoreOf, score + load<f64>(bestOf));
    store<u8>(matchedAt + <usize>doc, load<u8>(matchedAt + <usize>doc) + 1);
    store<u8>(inNameAt + <usize>doc, load<u8>(inNameAt + <usize>doc) + load<u8>(bestInNameAt + <usize>doc));
    store<f64>(bestOf, 0);
  }
  return count;
}

/**
 * searchClauses: adds one clause's scores and counts (its first `count` touched docs) into the
 * whole request's. Returns how many docs the whole request lists (`wholeCount` on entry).
 */
export function accumulate(count: i32, wholeCount: i32): i32 {
  for (let i = 0; i < count; i++) {
    const doc = load<i32>(touchedAt + ((<usize>i) << 2));
    const wholeOf = wholeAt + ((<usize>doc) << 3);
    const whole = load<f64>(wholeOf);
    if (whole == 0) {
      store<i32>(wholeTouchedAt + ((<usize>wholeCount) << 2), doc);
      wholeCount++;
    }
    store<f64>(wholeOf, whole + load<f64>(scoresAt + ((<usize>doc) << 3)));
    store<u8>(wholeMatchedAt + <usize>doc, load<u8>(wholeMatchedAt + <usize>doc) + load<u8>(matchedAt + <usize>doc));
    store<u8>(wholeInNameAt + <usize>doc, load<u8>(wholeInNameAt + <usize>doc) + load<u8>(inNameAt + <usize>doc));
  }
  return wholeCount;
}

/** Name lengths beyond this share one name-precision factor (bm25f.ts MAX_NAME_TERMS). */
const MAX_NAME_TERMS = 31;

/**
 * Selects a list (`whole` 0: the query's or clause's scores; 1: the whole request's): each of its
 * `count` touched docs gets its final score, sum × coordination × name precision (the factors
 * from the tables bm25f.ts wrote), kept in `final` by touched position; its scratch is reset;
 * then the best `limit` go to the heap (topHeap). Returns the heap's size.
 */
export function selectList(count: i32, limit: i32, whole: i32): i32 {
  const scores = whole != 0 ? wholeAt : scoresAt;
  const touched = whole != 0 ? wholeTouchedAt : touchedAt;
  const matched = whole != 0 ? wholeMatchedAt : matchedAt;
  const inName = whole != 0 ? wholeInNameAt : inNameAt;
  const lengths = lengthsAt;
  const coord = coordAt;
  const name = nameAt;
  const final = finalAt;
  for (let i = 0; i < count; i++) {
    const doc = load<i32>(touched + ((<usize>i) << 2));
    let nameTerms = load<i32>(lengths + ((<usize>doc) << 4));
    if (nameTerms > MAX_NAME_TERMS) nameTerms = MAX_NAME_TERMS;
    const scoreOf = scores + ((<usize>doc) << 3);
    const sum = load<f64>(scoreOf);
    const coordination = load<f64>(coord + ((<usize>load<u8>(matched + <usize>doc)) << 3));
    const precision = load<f64>(name + ((<usize>(<i32>load<u8>(inName + <usize>doc) * (MAX_NAME_TERMS + 1) + nameTerms)) << 3));
    store<f64>(final + ((<usize>i) << 3), sum * coordination * precision);
    store<f64>(scoreOf, 0);
    store<u8>(matched + <usize>doc, 0);
    store<u8>(inName + <usize>doc, 0);
  }
  return topHeap(count, limit, whole);
}

/** Whether (docA, a) ranks below (docB, b): lower score, or the same score and a later doc. */
function worse(docA: i32, a: f64, docB: i32, b: f64): bool {
  return a < b || (a == b && docA > docB);
}

/**
 * The best `limit` of the list's `count` touched docs by their final scores (selectList), as a
 * min-heap of (score, doc) in topScores/topDocs, unsorted. Called again with a larger limit when
 * the allowed-set filter (in JS) left fewer than asked: the final scores stay until the next query.
 */
export function topHeap(count: i32, limit: i32, whole: i32): i32 {
  const touched = whole != 0 ? wholeTouchedAt : touchedAt;
  const final = finalAt;
  const docs = topDocsAt;
  const scores = topScoresAt;
  let size = 0;
  for (let i = 0; i < count; i++) {
    const doc = load<i32>(touched + ((<usize>i) << 2));
    const score = load<f64>(final + ((<usize>i) << 3));
    let at: i32;
    if (size < limit) {
      // Sift up from the free slot.
      at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        const pDoc = load<i32>(docs + ((<usize>parent) << 2));
        const pScore = load<f64>(scores + ((<usize>parent) << 3));
        if (!worse(doc, score, pDoc, pScore)) break;
        store<i32>(docs + ((<usize>at) << 2), pDoc);
        store<f64>(scores + ((<usize>at) << 3), pScore);
        at = parent;
      }
    } else {
      if (limit == 0 || !worse(load<i32>(docs), load<f64>(scores), doc, score)) continue;
      // Replace the worst (the root) and sift down.
      at = 0;
      for (;;) {
        const left = 2 * at + 1;
        const right = left + 1;
        let next = at;
        let nDoc = doc;
        let nScore = score;
        if (left < size) {
          const lDoc = load<i32>(docs + ((<usize>left) << 2));
          const lScore = load<f64>(scores + ((<usize>left) << 3));
          if (worse(lDoc, lScore, nDoc, nScore)) {
            next = left;
            nDoc = lDoc;
            nScore = lScore;
          }
        }
        if (right < size) {
          const rDoc = load<i32>(docs + ((<usize>right) << 2));
          const rScore = load<f64>(scores + ((<usize>right) << 3));
          if (worse(rDoc, rScore, nDoc, nScore)) {
            next = right;
            nDoc = rDoc;
            nScore = rScore;
          }
        }
        if (next == at) break;
        store<i32>(docs + ((<usize>at) << 2), nDoc);
        store<f64>(scores + ((<usize>at) << 3), nScore);
        at = next;
      }
    }
    store<i32>(docs + ((<usize>at) << 2), doc);
    store<f64>(scores + ((<usize>at) << 3), score);
  }
  return size;
}
