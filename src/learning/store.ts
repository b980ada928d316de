/**
 * Where learned rows live between processes: small, async and batch-shaped, so that a fleet can
 * plug its own (Redis: a stream per deployment, `append` as XADD, `read` as XREAD from the last id).
 *
 * - `append(rows)` adds the current state of records that changed. Merging a row is idempotent
 *   (model.ts merge), so a row appended twice, or the same record appended by two processes,
 *   changes nothing: no store needs a read-modify-write or a transaction.
 * - `read()` gives what others appended since this store's last read (everything, the first
 *   time), a batch at a time, so the caller can merge a batch and give the event loop back
 *   before the next. An idle read costs one check.
 * - `compact(keep)`, when the store can, rewrites what it holds without superseded rows and
 *   without what `keep` refuses (tools that left the catalog, tenants that no longer exist),
 *   away from the caller's event loop.
 */
import type { LearnedRow } from "./model.js";
import { checkedRow } from "./journal-format.js";
import type { TermMode } from "./term-keys.js";

/** What a compaction keeps: tool ids (and the prefixes of sources that are down), and tenants. */
export interface CompactionKeep {
  tools: readonly string[];
  /** Ids starting with one of these are kept too (`mcp:<server>:` of a server that is down). */
  toolPrefixes: readonly string[];
  /** When set, scopes of any other tenant go (scope-keys.ts); runs without a tenant and the shared scope always stay. */
  tenants?: readonly string[];
  /** How terms are kept: with hashing on, rows still in clear (an older store) are hashed. */
  terms: TermMode;
}

export interface CompactionReport {
  rowsRead: number;
  rowsKept: number;
  bytesBefore: number;
  bytesAfter: number;
  ms: number;
}

export interface LearningStore {
  readonly kind: string;
  /** Adds rows; false when it could not (the caller keeps them for the next try). */
  append(rows: readonly LearnedRow[]): Promise<boolean>;
  /** What others appended since the last read (all rows the first time), in batches. */
  read(): AsyncIterable<readonly LearnedRow[]>;
  /** Whether a compaction would pay (the store holds far more than its live rows). */
  wantsCompaction?(): boolean;
  compact?(keep: CompactionKeep): Promise<CompactionReport | undefined>;
  close?(): Promise<void>;
}

/**
 * A store in this process's memory: what the engine uses when learning is on and no folder or
 * store is given. Nothing else writes it, so a read has nothing new; it keeps what was appended
 * so that a test or a caller can look at it.
 */
export function memoryLearningStore(): LearningStore & { rows(): readonly LearnedRow[] } {
  const rows: LearnedRow[] = [];
  return {
    kind: "memory",
    append: async (more) => {
      for (const row of more) rows.push(row);
      return true;
    },
    read: async function* () {},
    rows: () => rows,
  };
}

/** The exchange format of export/import (replicas, backups): every row, versioned. */
export interface LearnedExport {
  format: 1;
  rows: LearnedRow[];
}

/** Rows from outside (an import) checked field by field: anything malformed is dropped, never trusted; dates after `now` become `now`. */
export function checkedRows(rows: readonly unknown[], now: number): LearnedRow[] {
  const out: LearnedRow[] = [];
  for (const r of rows) {
    if (typeof r !== "object" || r === null) continue;
    const { scope, tool, term, count, sessions, at, seen } = r as Record<string, unknown>;
    const row = checkedRow(scope, tool, term, count, sessions, at, seen, now);
    if (row !== undefined) out.push(row);
  }
  return out;
}
