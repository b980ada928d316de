/**
 * The JS reference of the WebAssembly scoring core (wasm/assembly/bm25f-core.ts): the loops
 * bm25f.ts ran in JS before the core moved to WebAssembly, kept line for line (the field loop
 * over packed frequencies, the norm objects, `+=` on typed arrays), over the same layout in a
 * WebAssembly.Memory of its own. Tests hand it to Bm25fIndex to check that the WebAssembly
 * core's scores are bit-identical to it (test/search/scoring/bm25f-core.property.test.ts).
 */
import { wasmApi, type KernelFactory, type ScoreKernels, type WasmMemory } from "../../src/search/scoring/bm25f-core.js";
import { TF_BITS, TF_MAX } from "../../src/search/scoring/bm25f.js";

const FIELDS = 4;

interface Views {
  scores: Float64Array;
  best: Float64Array;
  whole: Float64Array;
  touched: Int32Array;
  wordTouched: Int32Array;
  wholeTouched: Int32Array;
  matched: Uint8Array;
  inName: Uint8Array;
  bestInName: Uint8Array;
  wholeMatched: Uint8Array;
  wholeInName: Uint8Array;
  final: Float64Array;
  topDocs: Int32Array;
  topScores: Float64Array;
  lengths: Int32Array;
  start: Int32Array;
  data: Int32Array;
  coord: Float64Array;
  name: Float64Array;
}

/** Name lengths beyond this share one name-precision factor (bm25f.ts). */
const MAX_NAME_TERMS = 31;

class JsKernels implements ScoreKernels {
  readonly memory: WasmMemory = new wasmApi.Memory({ initial: 0 });
  #offsets: number[] = [];
  #buffer: ArrayBuffer | undefined;
  #views: Views | undefined;
  #k1 = 0;
  #norm: Array<{ weight: number; b: number; avg: number }> = [];

  heapBase(): number {
    return 1024;
  }

  setLayout(...offsets: number[]): void {
    this.#offsets = offsets;
    this.#views = undefined;
  }

  setNorm(k1: number, ...fields: number[]): void {
    this.#k1 = k1;
    this.#norm = Array.from({ length: FIELDS }, (_, f) => ({ weight: fields[3 * f]!, b: fields[3 * f + 1]!, avg: fields[3 * f + 2]! }));
  }

  scoreRow(row: number, scale: number, wordCount: number, mask: number): number {
    const { start, data, lengths, best, wordTouched, bestInName } = this.#v();
    const k1 = this.#k1;
    const norm = this.#norm;
    const end = start[row + 1]!;
    for (let i = start[row]!; i < end; i += 2) {
      const doc = data[i]!;
      const tfs = data[i + 1]! & mask;
      let packed = tfs;
      let tf = 0;
      for (let f = 0; packed !== 0; f++, packed >>>= TF_BITS) {
        const n = packed & TF_MAX;
        if (n === 0) continue;
        const p = norm[f]!;
        tf += (p.weight * n) / (1 - p.b + (p.b * lengths[doc * FIELDS + f]!) / p.avg);
      }
      const s = (scale * tf) / (k1 + tf);
      if (s > best[doc]!) {
        if (best[doc] === 0) wordTouched[wordCount++] = doc;
        best[doc] = s;
        bestInName[doc] = (tfs & TF_MAX) === 0 ? 0 : 1;
      }
    }
    return wordCount;
  }

  endWord(wordCount: number, count: number): number {
    const { scores, best, touched, wordTouched, matched, inName, bestInName } = this.#v();
    for (let i = 0; i < wordCount; i++) {
      const doc = wordTouched[i]!;
      if (scores[doc] === 0) touched[count++] = doc;
      scores[doc]! += best[doc]!;
      matched[doc]!++;
      inName[doc]! += bestInName[doc]!;
      best[doc] = 0;
    }
    return count;
  }

  accumulate(count: number, wholeCount: number): number {
    const { scores, whole, touched, wholeTouched, matched, inName, wholeMatched, wholeInName } = this.#v();
    for (let i = 0; i < count; i++) {
      const doc = touched[i]!;
      if (whole[doc] === 0) wholeTouched[wholeCount++] = doc;
      whole[doc]! += scores[doc]!;
      wholeMatched[doc]! += matched[doc]!;
      wholeInName[doc]! += inName[doc]!;
    }
    return wholeCount;
  }

  /** The select bm25f.ts ran in JS: final score, reset, then the heap (topHeap). */
  selectList(count: number, limit: number, whole: number): number {
    const v = this.#v();
    const scores = whole ? v.whole : v.scores;
    const touched = whole ? v.wholeTouched : v.touched;
    const matched = whole ? v.wholeMatched : v.matched;
    const inName = whole ? v.wholeInName : v.inName;
    for (let i = 0; i < count; i++) {
      const doc = touched[i]!;
      const nameTerms = Math.min(v.lengths[doc * FIELDS]!, MAX_NAME_TERMS);
      v.final[i] = scores[doc]! * v.coord[matched[doc]!]! * v.name[inName[doc]! * (MAX_NAME_TERMS + 1) + nameTerms]!;
      scores[doc] = 0;
      matched[doc] = 0;
      inName[doc] = 0;
    }
    return this.topHeap(count, limit, whole);
  }

  /** The best `limit` by (score desc, doc asc): a sort, where the core keeps a heap; the same set either way. */
  topHeap(count: number, limit: number, whole: number): number {
    const v = this.#v();
    const touched = whole ? v.wholeTouched : v.touched;
    const best = Array.from({ length: count }, (_, i) => ({ doc: touched[i]!, score: v.final[i]! }))
      .sort((a, b) => b.score - a.score || a.doc - b.doc)
      .slice(0, limit);
    best.forEach(({ doc, score }, i) => {
      v.topDocs[i] = doc;
      v.topScores[i] = score;
    });
    return best.length;
  }

  /** Views from each offset to the end of memory (the layout's capacities are the core's business). */
  #v(): Views {
    const buffer = this.memory.buffer;
    if (this.#views !== undefined && this.#buffer === buffer) return this.#views;
    const o = this.#offsets;
    const f64 = (i: number) => new Float64Array(buffer, o[i]!, (buffer.byteLength - o[i]!) >> 3);
    const i32 = (i: number) => new Int32Array(buffer, o[i]!, (buffer.byteLength - o[i]!) >> 2);
    const u8 = (i: number) => new Uint8Array(buffer, o[i]!);
    this.#buffer = buffer;
    return (this.#views = {
      scores: f64(0),
      best: f64(1),
      whole: f64(2),
      touched: i32(3),
      wordTouched: i32(4),
      wholeTouched: i32(5),
      matched: u8(6),
      inName: u8(7),
      bestInName: u8(8),
      wholeMatched: u8(9),
      wholeInName: u8(10),
      final: f64(11),
      topDocs: i32(12),
      topScores: f64(13),
      lengths: i32(14),
      start: i32(15),
      data: i32(16),
      coord: f64(17),
      name: f64(18),
    });
  }
}

export const jsKernels: KernelFactory = () => new JsKernels();
