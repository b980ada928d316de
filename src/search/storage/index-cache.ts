/**
 * Indexes cached by catalog fingerprint, so consecutive runs over the same catalog share one
 * index and narrow it with `allowed` (the run's policy) instead of re-indexing.
 * Big catalogs (≥ workerThreshold docs) are built in a tinypool worker thread, which returns
 * a snapshot the main thread loads: the event loop stays free while 100k tools are analysed.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type Tinypool from "tinypool";
import { ConfigInvalidError, errorMessage, IndexClosedError } from "../../errors.js";
import { analyzerSignature } from "./analyzer-signature.js";
import { fingerprintDocs } from "./fingerprint.js";
import { bm25fBackend } from "../backends/bm25f-backend.js";
import { minisearchBackend } from "../backends/minisearch-backend.js";
import { SnapshotStore, type IndexSnapshotOptions } from "./snapshot-store.js";
import { printable } from "../../text/printable.js";
import { docLookup, ToolIndex, type DocLookup } from "../tool-index.js";
import type { BackendChoice, SearchBackend, SearchBackendFactory, SearchDoc } from "../types.js";
import { workerBackend, type BuildResult, type BuildTask, type WorkerBackend } from "./worker-backends.js";
import { definedProps } from "../../defined.js";

export { fingerprintDocs };

export interface GetToolIndexOptions {
  /** Catalogs with at least this many docs are indexed in a worker thread. Default 10,000. */
  workerThreshold?: number;
  /** A fingerprint the caller already knows (e.g. a catalog version); skips hashing the docs. */
  fingerprint?: string;
}

/** How the last index of a cache was obtained: for telemetry, benchmarks and tests. */
export interface IndexBuildInfo {
  fingerprint: string;
  kind: string;
  size: number;
  /** "cache": reused; "snapshot": loaded from the snapshot folder; "worker": built in a worker thread; "thread": built on the calling thread. */
  via: "cache" | "snapshot" | "worker" | "thread";
  /**
   * Why a big catalog was built on the calling thread after all (no worker file, stale worker,
   * custom backend, worker error), or why no snapshot was used or written.
   */
  reason?: string;
  ms: number;
}

export interface ToolIndexCacheOptions {
  /** Indexes kept (least recently used dropped first). Default 4. */
  maxEntries?: number;
  /** Override the worker file (tests); default: the compiled index-worker.js beside this module in dist/. */
  workerFile?: string | null;
  /** Index snapshots on disk by catalog fingerprint (snapshot-store.ts); none by default. */
  snapshots?: IndexSnapshotOptions;
  /** Where snapshot problems are reported (a rejected snapshot, an untrusted folder, a broken lock); default: process.emitWarning. */
  onWarning?: (message: string) => void;
}

const DEFAULT_WORKER_THRESHOLD = 10_000;
const DEFAULT_MAX_ENTRIES = 4;

/** The built-in factories by name; a custom factory is used as given (createToolSearch checked the choice). */
export function resolveBackend(choice: BackendChoice | undefined): SearchBackendFactory {
  return choice === "minisearch" ? minisearchBackend : typeof choice === "object" ? choice : bm25fBackend;
}

/**
 * The compiled worker entry: beside this module in dist/src/search/storage/, or, when this module
 * runs from the TypeScript sources (vitest), in ../../../dist/src/search/storage/ — built by
 * `npm run build` (`pretest`). A stale build is caught by the analyzer signature.
 */
function defaultWorkerFile(): string | undefined {
  for (const relative of ["./index-worker.js", "../../../dist/src/search/storage/index-worker.js"]) {
    const file = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(file)) return file;
  }
  return undefined;
}

interface Entry {
  promise: Promise<ToolIndex>;
  settled: ToolIndex | undefined;
  /** Holds taken by acquire() and not released yet. */
  holders: number;
  /** Still in the cache; once evicted, the index closes when its last holder releases it. */
  cached: boolean;
}

/** One holder's claim on an index (a run's): the index stays open until every claim is released. */
export interface IndexHold {
  readonly index: ToolIndex;
  /** Idempotent. */
  release(): void;
}

export class ToolIndexCache {
  readonly #maxEntries: number;
  readonly #workerFile: string | undefined;
  /** Map order is recency order: the first key is the least recently used. */
  readonly #entries = new Map<string, Entry>();
  readonly #factoryKeys = new WeakMap<SearchBackendFactory, string>();
  #pool: Tinypool | undefined;
  /** Builds running in #pool; the last one to finish ends the worker thread (#releasePool). */
  #poolBuilds = 0;
  /** Evicted entries whose index someone still holds. */
  readonly #retired = new Set<Entry>();
  #closed = false;
  #lastBuild: IndexBuildInfo | undefined;
  readonly #store: SnapshotStore | undefined;

  constructor(options: ToolIndexCacheOptions = {}) {
    this.#maxEntries = Math.max(1, Math.floor(options.maxEntries ?? DEFAULT_MAX_ENTRIES));
    this.#workerFile = options.workerFile === null ? undefined : (options.workerFile ?? defaultWorkerFile());
    this.#store = options.snapshots === undefined ? undefined : new SnapshotStore(options.snapshots, options.onWarning);
  }

  get lastBuild(): IndexBuildInfo | undefined {
    return this.#lastBuild;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The index for these docs and backend: from the cache when the catalog's fingerprint is
   * known, else built (and cached). Concurrent calls for one catalog share one build.
   * Unheld, an index is usable until it is evicted (after `maxEntries` newer catalogs) or the
   * cache is closed; then its search throws INDEX_CLOSED. Use acquire() to keep it longer.
   */
  async get(docs: readonly SearchDoc[], choice: BackendChoice | undefined, options: GetToolIndexOptions = {}): Promise<ToolIndex> {
    const { index, release } = await this.acquire(docs, choice, options);
    release();
    return index;
  }

  /**
   * get() plus a hold, taken before this returns a promise: an evicted index stays open for
   * its holders (a run prepared before the catalog changed) and its backend closes when the
   * last one releases it, or at close().
   */
  async acquire(docs: readonly SearchDoc[], choice: BackendChoice | undefined, options: GetToolIndexOptions = {}): Promise<IndexHold> {
    if (this.#closed) throw new IndexClosedError();
    const started = performance.now();
    const factory = resolveBackend(choice);
    const fingerprint = options.fingerprint ?? fingerprintDocs(docs);
    const key = `${this.#factoryKey(factory)}:${fingerprint}`;
    const hit = this.#entries.get(key);
    const entry = hit ?? { promise: this.#build(docs, factory, options, fingerprint, started), settled: undefined, holders: 0, cached: true };
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (hit === undefined) {
      entry.promise.then(
        (index) => {
          entry.settled = index;
          // Closed while building: nobody else will close it.
          if (this.#closed) index.close();
        },
        () => {
          if (this.#entries.get(key) === entry) this.#entries.delete(key);
        },
      );
      this.#evict();
    }
    entry.holders += 1;
    let index: ToolIndex;
    try {
      index = await entry.promise;
    } catch (error) {
      entry.holders -= 1;
      throw error;
    }
    if (hit) this.#lastBuild = { fingerprint, kind: factory.kind, size: index.size, via: "cache", ms: performance.now() - started };
    let held = true;
    return {
      index,
      release: () => {
        if (!held) return;
        held = false;
        entry.holders -= 1;
        this.#closeIfUnused(entry);
      },
    };
  }

  async #build(
    docs: readonly SearchDoc[],
    factory: SearchBackendFactory,
    options: GetToolIndexOptions,
    fingerprint: string,
    started: number,
  ): Promise<ToolIndex> {
    const store = this.#store !== undefined && factory.load !== undefined && this.#isBuiltIn(factory) ? this.#store : undefined;
    if (store === undefined) return (await this.#buildFresh(docs, factory, options, fingerprint, started, undefined, false)).index;
    // A folder others can write may hold anything: not read, not written (reported by the store).
    const distrust = await store.distrust();
    if (distrust !== undefined)
      return (await this.#buildFresh(docs, factory, options, fingerprint, started, `index cache folder not used: ${distrust}`, false)).index;
    const first = await this.#fromSnapshot(store, docs, factory, fingerprint, started);
    if (first.index !== undefined) return first.index;
    // Another process (a worker, a replica) may be building this catalog: wait for its snapshot.
    const lock = await store.lock(factory.kind, fingerprint);
    try {
      if (!lock.build) {
        const second = await this.#fromSnapshot(store, docs, factory, fingerprint, started);
        if (second.index !== undefined) return second.index;
      }
      const built = await this.#buildFresh(docs, factory, options, fingerprint, started, first.reason, true);
      const payload = built.snapshot ?? (await built.index.backend.serialize?.());
      const meta = { docs: docs.length, docsDigest: fingerprintDocs(docs) };
      const written =
        payload === undefined ? { ok: false as const, reason: "the backend cannot serialize" } : await store.write(factory.kind, fingerprint, meta, payload);
      if (!written.ok && this.#lastBuild !== undefined)
        this.#lastBuild = { ...this.#lastBuild, reason: [this.#lastBuild.reason, written.reason].filter(Boolean).join("; ") };
      return built.index;
    } finally {
      await lock.release();
    }
  }

  /**
   * A valid snapshot loaded, or why not. Valid: the store's checks (header, checksum, the MAC
   * with a key), then the docs it claims (count, digest), then the backend's checks of its
   * content against these docs (SnapshotExpectation): every posting too, unless the MAC proved
   * that a holder of the key wrote it. A bad one is deleted and reported: never trusted twice.
   * The postings check runs on this thread in slices, the event loop given back between them
   * (in the worker thread it was slower: a cold thread, a second SQLite load, bench/snapshot).
   */
  async #fromSnapshot(
    store: SnapshotStore,
    docs: readonly SearchDoc[],
    factory: SearchBackendFactory,
    fingerprint: string,
    started: number,
  ): Promise<{ index?: ToolIndex; reason: string }> {
    const load = factory.load;
    if (load === undefined) return { reason: `backend "${factory.kind}" has no load()` };
    const read = await store.read(factory.kind, fingerprint);
    if (!read.ok) return { reason: read.reason };
    const reject = async (why: string): Promise<{ reason: string }> => {
      await store.discard(factory.kind, fingerprint, why);
      return { reason: `snapshot rejected: ${printable(why)}` };
    };
    if (read.docs !== docs.length) return reject(`${read.docs} docs, not ${docs.length}`);
    if (read.docsDigest !== fingerprintDocs(docs)) return reject("built from other docs than this catalog's (docs digest mismatch)");
    try {
      const backend = await load(read.payload, { docs, postings: !read.authenticated, timeoutMs: store.options.loadTimeoutMs });
      if (backend.size !== docs.length) {
        backend.close?.();
        throw new ConfigInvalidError(`it holds ${backend.size} docs, not ${docs.length}`);
      }
      const index = new ToolIndex(backend, docs);
      this.#record(fingerprint, factory.kind, docs.length, "snapshot", undefined, started);
      return { index, reason: "" };
    } catch (error) {
      return reject(errorMessage(error));
    }
  }

  async #buildFresh(
    docs: readonly SearchDoc[],
    factory: SearchBackendFactory,
    options: GetToolIndexOptions,
    fingerprint: string,
    started: number,
    why: string | undefined,
    wantSnapshot: boolean,
  ): Promise<{ index: ToolIndex; snapshot?: Uint8Array }> {
    const threshold = options.workerThreshold ?? DEFAULT_WORKER_THRESHOLD;
    let reason: string | undefined;
    if (docs.length >= threshold) {
      const attempt = await this.#buildInWorker(docs, factory, wantSnapshot);
      if (attempt.index !== undefined) {
        this.#record(fingerprint, factory.kind, docs.length, "worker", why, started);
        return { index: attempt.index, ...definedProps({ snapshot: attempt.snapshot }) };
      }
      reason = attempt.reason;
    }
    const index = await ToolIndex.build(() => factory.create(), docs);
    this.#record(fingerprint, factory.kind, docs.length, "thread", [why, reason].filter(Boolean).join("; ") || undefined, started);
    return { index };
  }

  async #buildInWorker(
    docs: readonly SearchDoc[],
    factory: SearchBackendFactory,
    wantSnapshot: boolean,
  ): Promise<{ index?: ToolIndex; snapshot?: Uint8Array; reason?: string }> {
    if (factory.worker === undefined) return { reason: `backend "${factory.kind}" declares no worker kind, so it cannot be built in a worker thread` };
    const entry = workerBackend(factory.worker);
    if (entry?.adopt === undefined && factory.load === undefined) return { reason: `backend "${factory.kind}" has no load()` };
    if (this.#workerFile === undefined) {
      return { reason: "worker file dist/src/search/storage/index-worker.js not found (run `npm run build`)" };
    }
    let result: BuildResult;
    let lookup: DocLookup;
    // The thread pool's code loads with the first big catalog, not with the package.
    const { default: Pool } = await import("tinypool");
    this.#pool ??= new Pool({ filename: this.#workerFile, minThreads: 0, maxThreads: 1 });
    this.#poolBuilds += 1;
    try {
      const task: BuildTask = { kind: factory.worker, docs: [...docs], snapshot: wantSnapshot };
      const building = this.#pool.run(task);
      // The index's own maps, made here while the worker analyses: off the build's critical path.
      lookup = docLookup(docs);
      result = (await building) as BuildResult;
    } catch (error) {
      return { reason: `worker failed: ${errorMessage(error)}` };
    } finally {
      // Before the index is taken in here: the worker's heap is gone by then, not held beside it.
      await this.#releasePool();
    }
    if (result.signature !== analyzerSignature()) {
      return { reason: "worker build is stale (its analyzer differs from this one; run `npm run build`)" };
    }
    const backend = await this.#takeIn(result, entry, factory);
    if (backend === undefined) return { reason: "worker returned neither postings nor a snapshot" };
    return { index: new ToolIndex(backend, docs, lookup), ...definedProps({ snapshot: result.snapshot }) };
  }

  /** The worker's index on this thread: adopted as it is when the backend can, else loaded from its snapshot. */
  async #takeIn(result: BuildResult, entry: WorkerBackend | undefined, factory: SearchBackendFactory): Promise<SearchBackend | undefined> {
    if (result.parts !== undefined && entry?.adopt !== undefined) return entry.adopt(result.parts);
    if (result.snapshot !== undefined && factory.load !== undefined) return factory.load(result.snapshot);
    return undefined;
  }

  /**
   * Ends the worker thread when no build needs it: a build at 100k tools leaves a few hundred
   * MiB in the worker's heap, which an idle thread would hold until its idle timeout, and builds
   * are rare (a catalog change) and seconds long, so a thread started per build costs little.
   */
  async #releasePool(): Promise<void> {
    this.#poolBuilds -= 1;
    if (this.#poolBuilds > 0) return;
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.destroy();
  }

  #record(fingerprint: string, kind: string, size: number, via: "snapshot" | "worker" | "thread", reason: string | undefined, started: number): void {
    this.#lastBuild = { fingerprint, kind, size, via, ms: performance.now() - started, ...definedProps({ reason }) };
  }

  /** Only the built-in factories' snapshots are shared on disk: a custom factory's kind is free-form. */
  #isBuiltIn(factory: SearchBackendFactory): boolean {
    return factory.worker !== undefined && workerBackend(factory.worker)?.factory === factory;
  }

  /** The worker's own factories are keyed by kind; others are told apart by identity, not by their (free-form) kind. */
  #factoryKey(factory: SearchBackendFactory): string {
    if (factory.worker !== undefined && workerBackend(factory.worker)?.factory === factory) return factory.kind;
    let key = this.#factoryKeys.get(factory);
    if (key === undefined) {
      key = `custom#${customCounter++}:${factory.kind}`;
      this.#factoryKeys.set(factory, key);
    }
    return key;
  }

  /** Drops least recently used indexes beyond maxEntries; ones still building are skipped. */
  #evict(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries) return;
      if (entry.settled === undefined) continue;
      this.#entries.delete(key);
      entry.cached = false;
      this.#retired.add(entry);
      this.#closeIfUnused(entry);
    }
  }

  /** An evicted index closes as soon as nothing holds it. */
  #closeIfUnused(entry: Entry): void {
    if (entry.cached || entry.holders > 0) return;
    this.#retired.delete(entry);
    entry.settled?.close();
  }

  /** Index worker threads alive now: one while a big catalog builds, none once it is done. */
  get workerThreads(): number {
    return this.#pool?.threads.length ?? 0;
  }

  /** Closes every cached or still-held index and the worker pool. The cache cannot be used afterwards. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const entry of [...this.#entries.values(), ...this.#retired]) entry.settled?.close();
    this.#retired.clear();
    this.#entries.clear();
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.destroy();
  }
}

let customCounter = 0;
