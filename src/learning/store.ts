/**
 * Where learned rows live between processes. A store is small on purpose, so that a fleet can
 * plug its own (Redis: a hash per scope, `update` under WATCH/MULTI): `load` reads every row,
 * `update` hands the rows it holds now to `merge` and writes what `merge` returns, atomically
 * with respect to every other writer of the same store (a lock, a transaction). The learner
 * merges its own observations into what others wrote, so several processes (`serve --workers`,
 * replicas sharing a folder) never lose each other's learning.
 */
import type { LearnedRow } from "./model.js";

export interface LearningStore {
  readonly kind: string;
  load(): Promise<readonly LearnedRow[]>;
  /** Replaces the rows with `merge(current rows)`; false when it could not (the caller keeps its changes and retries later). */
  update(merge: (current: readonly LearnedRow[]) => LearnedRow[]): Promise<boolean>;
  close?(): Promise<void>;
}

/** A store in this process's memory: what the engine uses when learning is on and no folder or store is given. */
export function memoryLearningStore(): LearningStore {
  let rows: LearnedRow[] = [];
  return {
    kind: "memory",
    load: async () => rows,
    update: async (merge) => {
      rows = merge(rows);
      return true;
    },
  };
}

/** The exchange format of export/import (replicas, backups): every row, versioned. */
export interface LearnedExport {
  format: 1;
  rows: LearnedRow[];
}

const MAX_ROW_TEXT = 1_024;

/** Rows from outside (a file, an import) checked field by field: anything malformed is dropped, never trusted. */
export function checkedRows(rows: unknown): LearnedRow[] {
  if (!Array.isArray(rows)) return [];
  const out: LearnedRow[] = [];
  for (const r of rows as unknown[]) {
    if (typeof r !== "object" || r === null) continue;
    const { scope, tool, term, count, sessions, at, seen } = r as Record<string, unknown>;
    const text = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= MAX_ROW_TEXT;
    if (!text(scope) || !text(tool) || !text(term)) continue;
    if (typeof count !== "number" || !Number.isFinite(count) || count < 0 || count > 1e9) continue;
    if (!Number.isSafeInteger(sessions) || (sessions as number) < 0) continue;
    if (typeof at !== "number" || !Number.isFinite(at) || at < 0) continue;
    const hashes = Array.isArray(seen) ? seen.filter((s): s is string => typeof s === "string" && s.length <= 64).slice(-64) : [];
    out.push({ scope, tool, term, count, sessions: Math.min(255, sessions as number), at, seen: hashes });
  }
  return out;
}
