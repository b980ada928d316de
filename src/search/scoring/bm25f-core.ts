/**
 * Where a BM25F query is answered: the scoring core compiled to WebAssembly from
 * wasm/assembly/bm25f-core.ts (AssemblyScript, `npm run build`), one instance per index, whose
 * linear memory holds the index's postings, the docs' field lengths and every per-query scratch
 * array. bm25f.ts drives it word by word (query words, expansion and IDF stay in JS, they are
 * string work); the core also selects each list's best docs (final scores, a bounded heap), and
 * JS filters those few by the run's allowed set and orders them.
 *
 * Hand-written because no library scores BM25F over these postings in WebAssembly: FTS5's
 * bm25() saturates once for all columns (bm25f-backend.ts), and the JS engines keep their own
 * index. The core repeats bm25f.ts's f64 operations in the same order, so scores are
 * bit-identical to the JS loop it replaced (test/search/scoring/bm25f-core.property.test.ts runs that
 * loop, test/support/js-kernels.ts, beside it).
 *
 * Layout: the arrays sit one after another past the module's own data, each 8-byte aligned.
 * An array that outgrows its capacity makes the layout move: memory grows, the arrays after it
 * move up (backwards, so that no byte is overwritten before it is moved), the core gets the new
 * offsets, and every view is made again (memory.grow detaches the old buffer's views).
 * Growth happens only between queries (when postings, lengths or the doc count change).
 *
 * A missing or unloadable .wasm throws SearchEngineUnavailableError: nothing falls back to JS.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { errorMessage, SearchEngineUnavailableError } from "../../errors.js";

/** The little of WebAssembly.Memory used here (the repo's lib and @types/node 20 do not declare WebAssembly). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}

/** Node's WebAssembly global, typed by the interface above. */
export const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The core's exports (wasm/assembly/bm25f-core.ts): plain functions over linear memory. */
export interface ScoreKernels {
  readonly memory: WasmMemory;
  /** First free byte of memory past the module's own data. */
  heapBase(): number;
  /** The byte offsets of the arrays, in BLOCKS order. */
  setLayout(...offsets: LayoutOffsets): void;
  /** k1, then weight, b and mean length (floored at EPSILON) of each of the 4 fields. */
  setNorm(...params: NormParams): void;
  /**
   * One variant's posting row into the word's best-per-doc, each posting's packed frequencies
   * ANDed with `mask` first (the fields the variant may score in); returns the word's touched count.
   */
  scoreRow(row: number, scale: number, wordCount: number, mask: number): number;
  /** The word's bests into the scores and counts; returns the query's touched count. */
  endWord(wordCount: number, count: number): number;
  /** searchClauses: a clause's scores into the whole request's; returns the whole's touched count. */
  accumulate(count: number, wholeCount: number): number;
  /** A list's final scores (kept by touched position), its scratch reset, its best `limit` into the heap; returns the heap's size. */
  selectList(count: number, limit: number, whole: number): number;
  /** The best `limit` of a selected list again, from the final scores kept; returns the heap's size. */
  topHeap(count: number, limit: number, whole: number): number;
}

type Nineteen<T> = [T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T];
type LayoutOffsets = Nineteen<number>;
type NormParams = [number, number, number, number, number, number, number, number, number, number, number, number, number];

/** Makes the kernels of one index (the WebAssembly core unless a test passes its JS twin). */
export type KernelFactory = () => ScoreKernels;

/**
 * The arrays in memory, in layout order, with their element size. The first 14 are per-query
 * scratch, one element per doc; the two factor tables (coordination, name precision) are written once.
 */
const BLOCKS = [
  ["scores", 8],
  ["best", 8],
  ["whole", 8],
  ["touched", 4],
  ["wordTouched", 4],
  ["wholeTouched", 4],
  ["matched", 1],
  ["inName", 1],
  ["bestInName", 1],
  ["wholeMatched", 1],
  ["wholeInName", 1],
  ["final", 8],
  ["topDocs", 4],
  ["topScores", 8],
  ["lengths", 4],
  ["start", 4],
  ["data", 4],
  ["coord", 8],
  ["name", 8],
] as const;
type BlockName = (typeof BLOCKS)[number][0];
const SCRATCH_BLOCKS = 14;
const BLOCK = Object.fromEntries(BLOCKS.map(([name], i) => [name, i])) as Record<BlockName, number>;
const PAGE = 65_536;
/** Docs the first layout has room for (the JS scratch arrays also started at 64). */
const FIRST_DOCS = 64;

/** Views of the per-query arrays, valid until the layout next moves (ask the core again per query). */
export interface Scratch {
  scores: Float64Array;
  whole: Float64Array;
  touched: Int32Array;
  wholeTouched: Int32Array;
  matched: Uint8Array;
  inName: Uint8Array;
  wholeMatched: Uint8Array;
  wholeInName: Uint8Array;
  /** A select's heap: docs and their final scores, unsorted (selectList, topHeap). */
  topDocs: Int32Array;
  topScores: Float64Array;
}

let compiled: object | undefined;

/**
 * The compiled core, once per thread. From dist/src/search/scoring/ it sits in dist/wasm/; from the
 * TypeScript sources (vitest) in ../../../dist/wasm/, built by `npm run build` (`pretest`), as the
 * index worker is.
 */
export function coreModule(): object {
  compiled ??= compileCore(
    ["../../../wasm/bm25f-core.wasm", "../../../dist/wasm/bm25f-core.wasm"].map((relative) => fileURLToPath(new URL(relative, import.meta.url))),
  );
  return compiled;
}

/** The first of `files` that exists, compiled; SearchEngineUnavailableError when none does or it is not WebAssembly. */
export function compileCore(files: readonly string[]): object {
  const file = files.find((f) => existsSync(f));
  if (file === undefined) {
    throw new SearchEngineUnavailableError(`The WebAssembly search engine is not built: none of ${files.join(", ")} exists; run \`npm run build\`.`);
  }
  try {
    return new wasmApi.Module(readFileSync(file));
  } catch (error) {
    throw new SearchEngineUnavailableError(`The WebAssembly search engine ${file} does not load: ${errorMessage(error)}`, { cause: error });
  }
}

/** A fresh instance of the WebAssembly core: its own memory, for one index. */
export function wasmKernels(): ScoreKernels {
  let exports: Record<string, unknown>;
  try {
    exports = new wasmApi.Instance(coreModule(), {}).exports;
  } catch (error) {
    if (error instanceof SearchEngineUnavailableError) throw error;
    throw new SearchEngineUnavailableError(`The WebAssembly search engine does not start: ${errorMessage(error)}`, { cause: error });
  }
  const names = ["heapBase", "setLayout", "setNorm", "scoreRow", "endWord", "accumulate", "selectList", "topHeap"] as const;
  if (!(exports["memory"] instanceof wasmApi.Memory) || names.some((name) => typeof exports[name] !== "function")) {
    throw new SearchEngineUnavailableError("The WebAssembly search engine lacks an export bm25f-core.ts needs: rebuild it with `npm run build`.");
  }
  // Checked just above: the exports are the functions and memory ScoreKernels names.
  return exports as unknown as ScoreKernels;
}

/**
 * One index's memory and kernels. The kernels start on first use: an index that never holds a
 * doc (a run with no client tools) never instantiates one.
 */
export class Bm25fCore {
  readonly #factory: KernelFactory;
  #kernels: ScoreKernels | undefined;
  /** Per block: byte offset, capacity and elements in use (what a move must keep). */
  #offsets: number[] = BLOCKS.map(() => 0);
  #caps: number[] = BLOCKS.map(() => 0);
  #used: number[] = BLOCKS.map(() => 0);
  /** Bumped on every move and write: views made before it are stale. */
  #version = 0;
  #viewsVersion = -1;
  #scratch: Scratch | undefined;
  #start: Int32Array = new Int32Array(1);
  #data: Int32Array = new Int32Array(0);
  /** The lengths array last copied in, and how much of it (Bm25fIndex only ever pushes onto it, or replaces it). */
  #lengthsSource: readonly number[] | undefined;

  constructor(factory: KernelFactory = wasmKernels) {
    this.#factory = factory;
  }

  /** The postings' row offsets (a view: re-read it after any write). */
  get start(): Int32Array {
    this.#refresh();
    return this.#start;
  }

  /** The postings' [doc, packed tfs] pairs (a view: re-read it after any write). */
  get data(): Int32Array {
    this.#refresh();
    return this.#data;
  }

  /** Copies postings in (PostingStore builds them, then writes them here once per rewrite). */
  writePostings(start: Int32Array, data: Int32Array): void {
    this.#reserve([
      [BLOCK.start, start.length],
      [BLOCK.data, data.length],
    ]);
    this.#used[BLOCK.start] = start.length;
    this.#used[BLOCK.data] = data.length;
    this.#int32s(BLOCK.start, start.length).set(start);
    this.#int32s(BLOCK.data, data.length).set(data);
    this.#version++;
  }

  /**
   * The docs' field lengths (docIdx * 4 + field), copied in as far as they are new: the tail
   * when the same array grew, all of it when it was replaced (a compaction, a snapshot).
   */
  syncLengths(lengths: readonly number[]): void {
    const used = this.#used[BLOCK.lengths]!;
    if (lengths === this.#lengthsSource && lengths.length === used) return;
    const from = lengths === this.#lengthsSource && lengths.length > used ? used : 0;
    this.#reserve([[BLOCK.lengths, lengths.length]]);
    const view = this.#int32s(BLOCK.lengths, lengths.length);
    for (let i = from; i < lengths.length; i++) view[i] = lengths[i]!;
    this.#used[BLOCK.lengths] = lengths.length;
    this.#lengthsSource = lengths;
  }

  /** Scratch room for `docs` docs (doubling, as the JS arrays did, so that adds do not move memory each time). */
  ensureDocs(docs: number): void {
    const cap = this.#caps[0]!;
    if (cap >= docs && this.#kernels !== undefined) return;
    const size = Math.max(docs, cap * 2, 64);
    this.#reserve(BLOCKS.slice(0, SCRATCH_BLOCKS).map((_, i) => [i, size]));
  }

  /** Views of the per-query arrays. */
  scratch(): Scratch {
    this.#refresh();
    return this.#scratch!;
  }

  /** The query's k1 and per-field weight, b and mean length (`avg`, floored at EPSILON as bm25f.ts did). */
  setNorm(k1: number, fields: readonly { weight: number; b: number }[], avg: readonly number[]): void {
    const w = (f: number): number => fields[f]?.weight ?? 0;
    const b = (f: number): number => fields[f]?.b ?? 0;
    const a = (f: number): number => Math.max(avg[f] ?? 0, Number.EPSILON);
    this.#core().setNorm(k1, w(0), b(0), a(0), w(1), b(1), a(1), w(2), b(2), a(2), w(3), b(3), a(3));
  }

  scoreRow(row: number, scale: number, wordCount: number, mask: number): number {
    return this.#core().scoreRow(row, scale, wordCount, mask);
  }

  endWord(wordCount: number, count: number): number {
    return this.#core().endWord(wordCount, count);
  }

  accumulate(count: number, wholeCount: number): number {
    return this.#core().accumulate(count, wholeCount);
  }

  /** The factor tables select reads: coordination by words matched, name precision by [words in name][name terms]. */
  setFactors(coord: Float64Array, name: Float64Array): void {
    this.#reserve([
      [BLOCK.coord, coord.length],
      [BLOCK.name, name.length],
    ]);
    this.#used[BLOCK.coord] = coord.length;
    this.#used[BLOCK.name] = name.length;
    const buffer = this.#kernels!.memory.buffer;
    new Float64Array(buffer, this.#offsets[BLOCK.coord]!, coord.length).set(coord);
    new Float64Array(buffer, this.#offsets[BLOCK.name]!, name.length).set(name);
  }

  /** See ScoreKernels.selectList: `whole` selects the whole request's list of searchClauses. */
  selectList(count: number, limit: number, whole: boolean): number {
    return this.#core().selectList(count, limit, whole ? 1 : 0);
  }

  topHeap(count: number, limit: number, whole: boolean): number {
    return this.#core().topHeap(count, limit, whole ? 1 : 0);
  }

  #core(): ScoreKernels {
    if (this.#kernels === undefined) this.#reserve([]);
    return this.#kernels!;
  }

  /**
   * Makes room for each [block, elements]: when one does not fit, every block gets its new
   * capacity (at least ×1.5, so that a growing store moves O(log n) times), memory grows, and
   * the blocks move up from the last one down. Offsets only ever increase, so a block's new
   * place never covers bytes of a block below it that have not moved yet.
   */
  #reserve(needs: ReadonlyArray<readonly [number, number]>): void {
    const first = this.#kernels === undefined;
    const kernels = (this.#kernels ??= this.#factory());
    // The first layout has room for a small index's docs and lengths: a run's few client tools
    // then cost one instance and one page, not a move per array as each fills up.
    const caps = first ? BLOCKS.map((_, i) => (i < SCRATCH_BLOCKS ? FIRST_DOCS : i === BLOCK.lengths ? FIRST_DOCS * 4 : 0)) : [...this.#caps];
    for (const [block, need] of needs) if (need > caps[block]!) caps[block] = block < SCRATCH_BLOCKS ? need : Math.max(need, Math.ceil(caps[block]! * 1.5));
    if (!first && caps.every((cap, i) => cap === this.#caps[i])) return;
    const offsets: number[] = [];
    let cursor = align8(kernels.heapBase());
    BLOCKS.forEach(([, size], i) => {
      offsets.push(cursor);
      cursor += align8(caps[i]! * size);
    });
    const memory = kernels.memory;
    if (cursor > memory.buffer.byteLength) memory.grow(Math.ceil((cursor - memory.buffer.byteLength) / PAGE));
    const bytes = new Uint8Array(memory.buffer);
    for (let i = BLOCKS.length - 1; i >= 0; i--) {
      const size = BLOCKS[i]![1];
      const from = this.#offsets[i]!;
      const keep = (i < SCRATCH_BLOCKS ? this.#caps[i]! : this.#used[i]!) * size;
      if (keep > 0 && from !== offsets[i]) bytes.copyWithin(offsets[i]!, from, from + keep);
    }
    // Scratch is all zeros between queries: its new room must be too (it may hold moved bytes).
    for (let i = 0; i < SCRATCH_BLOCKS; i++) bytes.fill(0, offsets[i]! + this.#caps[i]! * BLOCKS[i]![1], offsets[i]! + caps[i]! * BLOCKS[i]![1]);
    this.#offsets = offsets;
    this.#caps = caps;
    this.#version++;
    kernels.setLayout(...(offsets as LayoutOffsets));
  }

  #int32s(block: number, length: number): Int32Array {
    return new Int32Array(this.#kernels!.memory.buffer, this.#offsets[block]!, length);
  }

  /**
   * Views made again after a move or a write. Only #reserve grows memory (the core allocates
   * nothing), and it bumps #version, so the version alone says when views are stale: no read of
   * memory.buffer (a call into the engine) on every df().
   */
  #refresh(): void {
    if (this.#viewsVersion === this.#version) return;
    const kernels = this.#kernels;
    if (kernels === undefined) return;
    const buffer = kernels.memory.buffer;
    const f64s = (block: number): Float64Array => new Float64Array(buffer, this.#offsets[block]!, this.#caps[block]!);
    const u8s = (block: number): Uint8Array => new Uint8Array(buffer, this.#offsets[block]!, this.#caps[block]!);
    const i32s = (block: number, length = this.#caps[block]!): Int32Array => new Int32Array(buffer, this.#offsets[block]!, length);
    this.#scratch = {
      scores: f64s(BLOCK.scores),
      whole: f64s(BLOCK.whole),
      touched: i32s(BLOCK.touched),
      wholeTouched: i32s(BLOCK.wholeTouched),
      matched: u8s(BLOCK.matched),
      inName: u8s(BLOCK.inName),
      wholeMatched: u8s(BLOCK.wholeMatched),
      wholeInName: u8s(BLOCK.wholeInName),
      topDocs: i32s(BLOCK.topDocs),
      topScores: f64s(BLOCK.topScores),
    };
    if (this.#used[BLOCK.start]! > 0) {
      this.#start = i32s(BLOCK.start, this.#used[BLOCK.start]);
      this.#data = i32s(BLOCK.data, this.#used[BLOCK.data]);
    }
    this.#viewsVersion = this.#version;
  }
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}
