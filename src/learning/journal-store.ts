/**
 * Learned rows in an append-only journal beside the index snapshots
 * (`<indexCacheDir>/learned.journal`, format in journal-format.ts), shared by every process that
 * uses the folder (`serve --workers`, replicas on one volume).
 *
 * Nothing here reads or writes the whole file on the event loop:
 * - `append` writes only the rows that changed, as frames, with one write under the folder's
 *   lock (state/file-lock.ts); frames are encoded one at a time, the loop given back between.
 * - `read` reads from where this process stopped, so an idle read is one stat; what it reads is
 *   handed out a frame's rows at a time, so the caller merges and yields between batches.
 * - compaction (rewriting the file without superseded rows) runs in a worker thread
 *   (compaction-worker.ts) and swaps the file atomically; readers follow it without re-reading
 *   what they had (the new header says where the old file's bytes went).
 *
 * The folder rules of the index cache apply (state/folder-trust.ts): the folder is used only
 * when no one else can write it, the file only when it is a regular file of ours (never a link),
 * and a file over `maxBytes` is not read (its size is checked before a byte is).
 */
import { constants, existsSync, mkdirSync } from "node:fs";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { open, stat, type FileHandle } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import type Tinypool from "tinypool";
import { errorMessage } from "../errors.js";
import { printable } from "../text/printable.js";
import { writeFileAtomic } from "../state/atomic-write.js";
import { acquireLock } from "../state/file-lock.js";
import { errnoCode, fileDistrust, folderDistrust, READ_FLAGS } from "../state/folder-trust.js";
import {
  decodeHeader,
  decodeRows,
  encodeFrames,
  encodeHeader,
  endsWhole,
  newGeneration,
  newWriterId,
  scanFrames,
  TRAILER_BYTES,
  type JournalHeader,
} from "./journal-format.js";
import type { LearnedRow } from "./model.js";
import type { CompactionKeep, CompactionReport, LearningStore } from "./store.js";
import type { CompactionTask } from "./compaction-worker.js";
import { resolveLearning, type LearningConfig, type ResolvedLearningOptions } from "./options.js";
import { compileOptions } from "../validation/ajv.js";
import { declared, int, object, string, withDefault, type TypeOf } from "../validation/typed-schema.js";
import { definedProps } from "../defined.js";

export const JOURNAL_FILE = "learned.journal";
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Read and cut (a torn end) under the lock; appends only ever at the end. Never through a link. */
const APPEND_CHECK_FLAGS = constants.O_RDWR | NOFOLLOW;
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | NOFOLLOW;
/** The store before the journal: not read (a warning says so). */
const LEGACY_FILE = "learned.sqlite";
const READ_CHUNK = 1024 * 1024;
/** A lock held longer than this by a process this host cannot check is a crashed writer's. */
const LOCK_STALE_MS = 60_000;
const LOCK_WAIT_MS = 10_000;
/** The journal is compacted once it is this much larger than after its last compaction (and at least COMPACT_MIN_BYTES). */
const COMPACT_GROWTH = 2;
const COMPACT_MIN_BYTES = 4 * 1024 * 1024;

/** journalLearningStore's options: each with its check and default. */
const journalStoreSchema = object(
  {
    /** The folder (created mode 0700 if missing); not used when others can write it. */
    dir: string({ minLength: 1, description: "a folder path" }),
    /** `indexCacheKey`: the header and every frame carry an HMAC-SHA256; frames without a valid one are skipped. */
    key: string({ minLength: 1 }),
    /**
     * The learning options, as `tools.toolSearch.learning` takes them (a compaction applies the
     * same bounds as the model); on unless `enabled: false`.
     */
    learning: declared<LearningConfig>()({}),
    /** Largest journal read, bytes (default 512 MiB): a larger one is not read, and is replaced at the next compaction. */
    maxBytes: withDefault(int(1, 2 ** 40), 512 * 1024 * 1024),
    /** Where refusals are reported (default process.emitWarning). */
    warn: declared<(message: string) => void>()({ function: true, description: "a function (message) => void" }),
  },
  { required: ["dir"] },
);

/** journalLearningStore's options: journalStoreSchema documents each one. */
export type JournalStoreOptions = TypeOf<typeof journalStoreSchema>;

/** What a JournalStore is built with: the options checked, the learning options resolved, and the tests' seams. */
export type JournalStoreSettings = Omit<JournalStoreOptions, "learning"> & {
  learning: ResolvedLearningOptions;
  now?: () => number;
  /** The compaction worker's file (tests); default: the compiled compaction-worker.js. */
  workerFile?: string;
};

const checkStoreOptions = compileOptions("journalStore", journalStoreSchema);

/** Where this process reads: the file it has open, its generation, and the offset of the next frame. */
interface Cursor {
  handle: FileHandle;
  ino: number;
  generation: string;
  offset: number;
}

export class JournalStore implements LearningStore {
  readonly kind = "journal";
  readonly file: string;
  readonly #dir: string;
  readonly #key: Buffer | undefined;
  readonly #writer = newWriterId();
  readonly #options: Omit<JournalStoreSettings, "now">;
  readonly #maxBytes: number;
  readonly #reported = new Set<string>();
  readonly #now: () => number;
  #cursor: Cursor | undefined;
  /** The file's size after the last compaction (or when first read): growth past it asks for a compaction. */
  #compactedBytes = 0;
  #lastSize = 0;
  #pool: Tinypool | undefined;
  #closed = false;

  constructor(settings: JournalStoreSettings) {
    const { learning, now, workerFile, ...given } = settings;
    const options = { ...checkStoreOptions(given, "journalLearningStore"), learning, ...definedProps({ workerFile }) };
    this.#options = options;
    this.#dir = options.dir;
    this.file = path.join(options.dir, JOURNAL_FILE);
    this.#key = options.key === undefined ? undefined : Buffer.from(options.key, "utf8");
    this.#maxBytes = options.maxBytes;
    this.#now = now ?? Date.now;
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    if (existsSync(path.join(options.dir, LEGACY_FILE)))
      this.#warnOnce(`${path.join(options.dir, LEGACY_FILE)} (the learned store of an older toolsearch) is not read; delete it`);
  }

  // ── appending ───────────────────────────────────────────────────────────────────────────

  async append(rows: readonly LearnedRow[]): Promise<boolean> {
    if (rows.length === 0) return true;
    if (this.#closed || (await this.#distrust()) !== undefined) return false;
    const frames: Buffer[] = [];
    // Encoded a slice at a time: an import of 100,000 rows must not hold the loop.
    for (let start = 0; start < rows.length; start += SLICE_ROWS) {
      frames.push(...encodeFrames(rows.slice(start, start + SLICE_ROWS), this.#writer, this.#key));
      if (start + SLICE_ROWS < rows.length) await yieldToLoop();
    }
    const lock = await this.#lock();
    if (lock === undefined) return false;
    try {
      const handle = await this.#openForAppend();
      try {
        // writeFile writes a whole buffer (a short write is continued); O_APPEND puts each at the end.
        for (const frame of frames) await handle.writeFile(frame);
      } finally {
        await handle.close();
      }
      return true;
    } catch (error) {
      this.#warn(`learned journal ${this.file} not written: ${errorMessage(error)}`);
      return false;
    } finally {
      await lock();
    }
  }

  /** Opens the journal to append (under the lock): a missing or unusable file is started anew, a torn end is cut. */
  async #openForAppend(): Promise<FileHandle> {
    let handle: FileHandle | undefined = await open(this.file, APPEND_CHECK_FLAGS).catch((error: unknown) => {
      // A link where the journal should be is replaced (the rename below replaces the link, not its target).
      if (errnoCode(error) === "ELOOP") this.#warnOnce(`learned journal ${this.file} replaced: a symbolic link`);
      else if (errnoCode(error) !== "ENOENT") throw error;
      return undefined;
    });
    if (handle !== undefined) {
      const usable = await this.#checkForAppend(handle);
      if (!usable) {
        await handle.close();
        handle = undefined;
      }
    }
    if (handle === undefined) {
      await writeFileAtomic(this.file, encodeHeader({ format: 1, generation: newGeneration(), baseBytes: 0 }, this.#key));
    } else await handle.close();
    return open(this.file, APPEND_FLAGS);
  }

  /** Whether a file can take frames: ours, a journal this key reads, ending in a whole frame (a torn end is cut here, under the lock). */
  async #checkForAppend(handle: FileHandle): Promise<boolean> {
    const info = await handle.stat();
    const foreign = fileDistrust(info);
    if (foreign !== undefined) {
      this.#warnOnce(`learned journal ${this.file} replaced: ${foreign}`);
      return false;
    }
    const head = Buffer.alloc(Math.min(info.size, 8_192));
    await handle.read(head, 0, head.length, 0);
    const header = decodeHeader(head, this.#key);
    if (typeof header === "string") {
      this.#warnOnce(`learned journal ${this.file} replaced: ${header}`);
      return false;
    }
    if (info.size === header.end) return true;
    const tail = Buffer.alloc(TRAILER_BYTES);
    await handle.read(tail, 0, TRAILER_BYTES, info.size - TRAILER_BYTES);
    if (endsWhole(tail)) return true;
    // A writer died mid-frame (appends are under this lock, so none is writing now): cut back to the last whole frame.
    const end = await this.#lastWholeEnd(handle, header.end, info.size);
    await handle.truncate(end);
    this.#warn(`learned journal ${this.file}: ${info.size - end} bytes of a frame a writer did not finish were cut`);
    return true;
  }

  async #lastWholeEnd(handle: FileHandle, from: number, size: number): Promise<number> {
    let end = from;
    let buffer = Buffer.alloc(0);
    let base = from;
    for (let at = from; at < size; at += READ_CHUNK) {
      const chunk = Buffer.alloc(Math.min(READ_CHUNK, size - at));
      await handle.read(chunk, 0, chunk.length, at);
      buffer = Buffer.concat([buffer, chunk]);
      const scan = scanFrames(buffer, 0, this.#key);
      if (scan.frames.length > 0 || scan.skipped > 0) end = base + scan.next;
      buffer = buffer.subarray(scan.next);
      base += scan.next;
    }
    return end;
  }

  // ── reading ─────────────────────────────────────────────────────────────────────────────

  /** Rows others appended since the last read, a frame's rows at a time; this process's own frames are skipped unread. */
  async *read(): AsyncIterable<readonly LearnedRow[]> {
    if (this.#closed || (await this.#distrust()) !== undefined) return;
    const info = await stat(this.file).catch(() => undefined);
    if (info === undefined) return;
    this.#lastSize = info.size;
    let cursor = this.#cursor;
    if (cursor === undefined || cursor.ino !== info.ino) {
      const followed = yield* this.#follow(cursor);
      if (followed === undefined) return;
      cursor = followed;
    }
    yield* this.#readFrom(cursor);
  }

  /** Opens the file now at the path; from an older generation, first reads what is left of it. */
  async *#follow(previous: Cursor | undefined): AsyncGenerator<readonly LearnedRow[], Cursor | undefined> {
    const opened = await this.#openForRead();
    if (opened === undefined) return undefined;
    const { handle, ino, header, end, size } = opened;
    let offset = end;
    if (previous !== undefined && header.from === previous.generation && header.upTo !== undefined) {
      // Compacted from the file this process was reading: what it had read is in the base; what
      // it had not, up to upTo, is read from the old file; what came after upTo was copied after the base.
      if (previous.offset < header.upTo) yield* this.#readFrom({ ...previous }, header.upTo);
      offset = end + header.baseBytes + Math.max(0, previous.offset - header.upTo);
    }
    await previous?.handle.close().catch(() => {});
    if (previous === undefined) this.#compactedBytes = size;
    this.#cursor = { handle, ino, generation: header.generation, offset };
    return this.#cursor;
  }

  async #openForRead(): Promise<{ handle: FileHandle; ino: number; header: JournalHeader; end: number; size: number } | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.file, READ_FLAGS);
    } catch (error) {
      if (errnoCode(error) !== "ENOENT")
        this.#warnOnce(`learned journal ${this.file} not read: ${errnoCode(error) === "ELOOP" ? "a symbolic link" : (errnoCode(error) ?? String(error))}`);
      return undefined;
    }
    const info = await handle.stat();
    const why =
      fileDistrust(info) ?? (info.size > this.#maxBytes ? `${info.size} bytes, over ${this.#maxBytes} (it is replaced at the next write)` : undefined);
    const head = Buffer.alloc(Math.min(info.size, 8_192));
    if (why === undefined) await handle.read(head, 0, head.length, 0);
    const header = why ?? decodeHeader(head, this.#key);
    if (typeof header === "string") {
      await handle.close();
      this.#warnOnce(`learned journal ${this.file} not read: ${header}`);
      return undefined;
    }
    return { handle, ino: info.ino, header: header.header, end: header.end, size: info.size };
  }

  /** Frames from the cursor's offset up to `until` (default: the end of the file as it is now); advances the cursor. */
  async *#readFrom(cursor: Cursor, until?: number): AsyncGenerator<readonly LearnedRow[]> {
    const size = until ?? (await cursor.handle.stat()).size;
    let carry = Buffer.alloc(0);
    let base = cursor.offset;
    let skipped = 0;
    let forged = 0;
    for (let at = cursor.offset; at < size;) {
      const chunk = Buffer.alloc(Math.min(READ_CHUNK, size - at));
      const { bytesRead } = await cursor.handle.read(chunk, 0, chunk.length, at);
      if (bytesRead === 0) break;
      at += bytesRead;
      const buffer = carry.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      const scan = scanFrames(buffer, 0, this.#key);
      skipped += scan.skipped;
      forged += scan.forged;
      carry = buffer.subarray(scan.next);
      base += scan.next;
      cursor.offset = base;
      for (const frame of scan.frames) {
        if (frame.writer.equals(this.#writer)) continue;
        const rows = decodeRows(frame.payload, this.#now());
        if (rows.length > 0) yield rows;
      }
    }
    if (skipped > 0) this.#warn(`learned journal ${this.file}: ${skipped} bytes that were not whole frames skipped`);
    if (forged > 0) this.#warnOnce(`learned journal ${this.file}: frames without a valid MAC skipped (written without indexCacheKey or with another key)`);
  }

  // ── compaction ──────────────────────────────────────────────────────────────────────────

  wantsCompaction(): boolean {
    return this.#lastSize > Math.max(COMPACT_MIN_BYTES, this.#compactedBytes * COMPACT_GROWTH);
  }

  /** Rewrites the journal in a worker thread: one row per record, the model's bounds applied, `keep` applied. */
  async compact(keep: CompactionKeep): Promise<CompactionReport | undefined> {
    if (this.#closed || (await this.#distrust()) !== undefined) return undefined;
    const workerFile = this.#options.workerFile ?? defaultCompactionWorker();
    if (workerFile === undefined) {
      this.#warnOnce("learned journal not compacted: compaction-worker.js not found (run `npm run build`)");
      return undefined;
    }
    // The thread pool's code loads at the first compaction, not with the package.
    const { default: Pool } = await import("tinypool");
    if (this.#closed) return undefined;
    this.#pool ??= new Pool({ filename: workerFile, minThreads: 0, maxThreads: 1, idleTimeout: 1_000 });
    const task: CompactionTask = {
      file: this.file,
      ...definedProps({ key: this.#options.key }),
      learning: this.#options.learning,
      keep: { tools: [...keep.tools], toolPrefixes: [...keep.toolPrefixes], ...(keep.tenants ? { tenants: [...keep.tenants] } : {}) },
      terms: keep.terms,
      now: this.#now(),
      maxBytes: this.#maxBytes,
      lockWaitMs: LOCK_WAIT_MS,
      lockStaleMs: LOCK_STALE_MS,
    };
    try {
      const result = (await this.#pool.run(task)) as { report?: CompactionReport; warnings: string[] };
      for (const warning of result.warnings) this.#warn(warning);
      if (result.report !== undefined) this.#compactedBytes = result.report.bytesAfter;
      return result.report;
    } catch (error) {
      this.#warn(`learned journal not compacted: ${errorMessage(error)}`);
      return undefined;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#cursor?.handle.close().catch(() => {});
    this.#cursor = undefined;
    await this.#pool?.destroy();
  }

  // ── helpers ─────────────────────────────────────────────────────────────────────────────

  async #lock(): Promise<(() => Promise<void>) | undefined> {
    const lock = await acquireLock(`${this.file}.lock`, { waitMs: LOCK_WAIT_MS, staleMs: LOCK_STALE_MS, warn: (m) => this.#warn(`learned journal ${m}`) });
    return lock.taken ? lock.release : undefined;
  }

  async #distrust(): Promise<string | undefined> {
    const why = await stat(this.#dir).then(
      (info) => folderDistrust(this.#dir, info),
      (error: unknown) => `${this.#dir} cannot be read (${errnoCode(error) ?? String(error)})`,
    );
    if (why !== undefined) this.#warnOnce(`learning folder not used: ${why}; what is learned stays in memory`);
    return why;
  }

  #warn(message: string): void {
    (this.#options.warn ?? ((m: string) => process.emitWarning(`toolsearch: ${m}`, { code: "TOOLSEARCH_LEARNING" })))(printable(message));
  }

  #warnOnce(message: string): void {
    if (this.#reported.has(message)) return;
    this.#reported.add(message);
    this.#warn(message);
  }
}

/** Rows encoded between two yields of an append. */
const SLICE_ROWS = 4_000;

/**
 * The compiled worker entry: beside this module in dist/src/learning/, or, when this module runs
 * from the TypeScript sources (vitest), in ../../dist/src/learning/ (built by `npm run build`).
 */
function defaultCompactionWorker(): string | undefined {
  for (const relative of ["./compaction-worker.js", "../../dist/src/learning/compaction-worker.js"]) {
    const file = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** The journal store as a library value (what the engine makes from `indexCacheDir`), e.g. to wrap it. */
/** The journal store a fleet plugs in as createToolSearch's `learningStore`: options checked here, learning resolved as the config's. */
export function journalLearningStore(options: JournalStoreOptions): LearningStore {
  // Checked whole first, so that a test seam (now, workerFile) given here is refused as unknown.
  const { learning, ...checked } = checkStoreOptions(options, "journalLearningStore");
  return new JournalStore({ ...checked, learning: resolveLearning(learning, true, "journalLearningStore.learning") });
}
