/**
 * The learned journal's compaction, in a worker thread (Tinypool, journal-store.ts): reads the
 * journal, merges every row into a model with the same bounds as the engine's (one row per
 * record; superseded rows, tools that left the catalog and tenants that no longer exist go),
 * writes the result as the base of a new generation, copies the frames appended meanwhile after
 * it, and swaps the file atomically under the journal's lock. Everything heavy happens here, so
 * the engine's event loop never holds a compaction.
 */
import { open, type FileHandle } from "node:fs/promises";
import { writeFileAtomic } from "../state/atomic-write.js";
import { acquireLock } from "../state/file-lock.js";
import { errnoCode, fileDistrust, READ_FLAGS } from "../state/folder-trust.js";
import { decodeHeader, decodeRows, encodeFrames, encodeHeader, newGeneration, newWriterId, scanFrames } from "./journal-format.js";
import { LearnedModel } from "./model.js";
import type { ResolvedLearningOptions } from "./options.js";
import { idFilter, keepsRow } from "./retention.js";
import type { CompactionReport } from "./store.js";
import { termKeyer, type TermMode } from "./term-keys.js";

export interface CompactionTask {
  file: string;
  key?: string;
  learning: ResolvedLearningOptions;
  keep: { tools: string[]; toolPrefixes: string[]; tenants?: string[] };
  /** How terms are kept: rows still in clear are hashed when the mode says so. */
  terms: TermMode;
  now: number;
  maxBytes: number;
  lockWaitMs: number;
  lockStaleMs: number;
}

export interface CompactionResult {
  report?: CompactionReport;
  warnings: string[];
}

const READ_CHUNK = 1024 * 1024;

export default async function compact(task: CompactionTask): Promise<CompactionResult> {
  const warnings: string[] = [];
  const started = performance.now();
  const lockOptions = { waitMs: 0, staleMs: task.lockStaleMs, warn: (m: string) => warnings.push(`learned journal ${m}`), reportHeld: false };
  // One compaction at a time across every process on the folder; a second one is not needed.
  const compacting = await acquireLock(`${task.file}.compact.lock`, lockOptions);
  if (!compacting.taken) return { warnings };
  try {
    return await compactHeld(task, warnings, started);
  } finally {
    await compacting.release();
  }
}

async function compactHeld(task: CompactionTask, warnings: string[], started: number): Promise<CompactionResult> {
  const key = task.key === undefined ? undefined : Buffer.from(task.key, "utf8");
  let handle: FileHandle;
  try {
    handle = await open(task.file, READ_FLAGS);
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") warnings.push(`learned journal not compacted: ${errnoCode(error) ?? String(error)}`);
    return { warnings };
  }
  let ino: number;
  let generation: string;
  let upTo: number;
  let bytesBefore: number;
  const model = new LearnedModel(task.learning);
  const tools = idFilter(new Set(task.keep.tools), task.keep.toolPrefixes);
  const keeps = keepsRow({ tools, ...(task.keep.tenants ? { tenants: new Set(task.keep.tenants) } : {}) });
  const keyOf = termKeyer(task.terms);
  let rowsRead = 0;
  try {
    const info = await handle.stat();
    ino = info.ino;
    bytesBefore = info.size;
    const foreign = fileDistrust(info) ?? (info.size > task.maxBytes ? `${info.size} bytes, over ${task.maxBytes}` : undefined);
    const head = Buffer.alloc(Math.min(info.size, 8_192));
    if (foreign === undefined) await handle.read(head, 0, head.length, 0);
    const header = foreign ?? decodeHeader(head, key);
    if (typeof header === "string") {
      // Unreadable as it is: nothing of it can rank, so it starts anew (appenders would replace it too).
      warnings.push(`learned journal ${task.file} started anew: ${header}`);
      generation = "";
      upTo = info.size;
    } else {
      generation = header.header.generation;
      upTo = header.end;
      let carry = Buffer.alloc(0);
      for (let at = header.end; at < info.size;) {
        const chunk = Buffer.alloc(Math.min(READ_CHUNK, info.size - at));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, at);
        if (bytesRead === 0) break;
        at += bytesRead;
        const buffer = carry.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
        const scan = scanFrames(buffer, 0, key);
        upTo += scan.next;
        carry = buffer.subarray(scan.next);
        for (const frame of scan.frames) {
          const rows = decodeRows(frame.payload, task.now);
          rowsRead += rows.length;
          model.merge(rows.filter(keeps).map((row) => ({ ...row, term: keyOf(row.term) })));
        }
      }
    }
  } finally {
    await handle.close();
  }

  const base = encodeFrames([...model.rows()], newWriterId(), key);
  const baseBytes = base.reduce((n, b) => n + b.length, 0);
  const headerBytes = encodeHeader({ format: 1, generation: newGeneration(), ...(generation !== "" ? { from: generation, upTo } : {}), baseBytes }, key);

  return swap(task, { ino, generation, upTo, headerBytes, base, baseBytes, bytesBefore, rowsRead, rowsKept: model.size().records, started, warnings });
}

interface Compacted {
  ino: number;
  generation: string;
  upTo: number;
  headerBytes: Buffer;
  base: Buffer[];
  baseBytes: number;
  bytesBefore: number;
  rowsRead: number;
  rowsKept: number;
  started: number;
  warnings: string[];
}

/** Under the journal's lock: the frames appended since the read go after the base, and the new file replaces the old. */
async function swap(task: CompactionTask, c: Compacted): Promise<CompactionResult> {
  const { warnings } = c;
  const lock = await acquireLock(`${task.file}.lock`, {
    waitMs: task.lockWaitMs,
    staleMs: task.lockStaleMs,
    warn: (m) => warnings.push(`learned journal ${m}`),
  });
  if (!lock.taken) return { warnings };
  try {
    let tail = Buffer.alloc(0);
    let handle: FileHandle | undefined;
    try {
      handle = await open(task.file, READ_FLAGS);
    } catch (error) {
      if (errnoCode(error) !== "ENOENT") throw error;
    }
    if (handle !== undefined) {
      try {
        const info = await handle.stat();
        // Another compaction, or a writer that started the file anew, came first: this one is stale.
        if (info.ino !== c.ino) return { warnings };
        const rest = Buffer.alloc(Math.max(0, info.size - c.upTo));
        if (rest.length > 0) await handle.read(rest, 0, rest.length, c.upTo);
        // Whole frames only: no one appends while the lock is held, so an unfinished frame is a dead writer's.
        tail =
          c.generation === ""
            ? Buffer.alloc(0)
            : rest.subarray(0, scanFrames(rest, 0, task.key === undefined ? undefined : Buffer.from(task.key, "utf8")).next);
      } finally {
        await handle.close();
      }
    }
    await writeFileAtomic(task.file, [c.headerBytes, ...c.base, tail]);
    const bytesAfter = c.headerBytes.length + c.baseBytes + tail.length;
    return {
      report: { rowsRead: c.rowsRead, rowsKept: c.rowsKept, bytesBefore: c.bytesBefore, bytesAfter, ms: Math.round(performance.now() - c.started) },
      warnings,
    };
  } finally {
    await lock.release();
  }
}
