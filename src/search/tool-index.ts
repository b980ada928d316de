/**
 * The ranking rules every backend shares, on top of one backend and the docs it indexes:
 * - `select:<id or name>[,<id or name>...]` returns exactly those tools (the allowed ones);
 * - a query that is exactly a tool's name or id (case-insensitive) puts those tools first
 *   (one name may belong to several owners: all of them, ids before names);
 * - a query with no usable terms returns [], never an arbitrary slice;
 * - `limit` allowed hits whenever that many allowed tools match (backends over-fetch).
 * `allowed` is the run's effective catalog: nothing outside it is ever returned or suggested.
 */
import { EngineClosedError } from "../errors.js";
import { splitIdentifier } from "./analyze.js";
import { editDistance } from "./edit-distance.js";
import type { BackendHit, CorpusStats, SearchBackend, SearchDoc } from "./types.js";

export interface ToolIndexSearchOptions {
  limit: number;
  allowed?: ReadonlySet<string>;
  /** Passed to the backend: rank with another index's statistics (see BackendSearchOptions). */
  stats?: CorpusStats;
}

const SELECT_PREFIX = "select:";
/** Score given to exact and selected hits: above anything a backend returns. */
export const EXACT_SCORE = Number.MAX_SAFE_INTEGER;

export class ToolIndex {
  readonly backend: SearchBackend;
  readonly #docs = new Map<string, SearchDoc>();
  /** lowercase id → id */
  readonly #byLowerId = new Map<string, string>();
  /** lowercase name → ids, in catalog order */
  readonly #byLowerName = new Map<string, string[]>();
  #closed = false;

  /** `docs` must be what the backend indexes (ToolIndex.build adds them for you). */
  constructor(backend: SearchBackend, docs: readonly SearchDoc[]) {
    this.backend = backend;
    for (const doc of docs) {
      this.#docs.set(doc.id, doc);
      this.#byLowerId.set(doc.id.toLowerCase(), doc.id);
      const key = doc.name.toLowerCase();
      const ids = this.#byLowerName.get(key);
      if (ids === undefined) this.#byLowerName.set(key, [doc.id]);
      else ids.push(doc.id);
    }
  }

  /** Indexes `docs` in a new backend created by `create`. */
  static async build(create: () => Promise<SearchBackend>, docs: readonly SearchDoc[]): Promise<ToolIndex> {
    const backend = await create();
    backend.add(docs);
    return new ToolIndex(backend, docs);
  }

  get size(): number {
    return this.#docs.size;
  }

  get kind(): string {
    return this.backend.kind;
  }

  /** The indexed doc for an id, or undefined (also when `allowed` is given and lacks it). */
  get(id: string, allowed?: ReadonlySet<string>): SearchDoc | undefined {
    if (allowed !== undefined && !allowed.has(id)) return undefined;
    return this.#docs.get(id);
  }

  docs(): IterableIterator<SearchDoc> {
    return this.#docs.values();
  }

  search(query: string, options: ToolIndexSearchOptions): BackendHit[] {
    this.#assertOpen();
    const limit = Math.floor(options.limit);
    if (!(limit > 0)) return [];
    const allowed = options.allowed;
    const trimmed = query.trim();

    if (trimmed.toLowerCase().startsWith(SELECT_PREFIX)) {
      const wanted = trimmed.slice(SELECT_PREFIX.length).split(",");
      const ids = dedupe(wanted.flatMap((w) => this.#exact(w.trim(), allowed)));
      return ids.slice(0, limit).map((id) => ({ id, score: EXACT_SCORE }));
    }

    const exact = this.#exact(trimmed, allowed);
    const exactSet = new Set(exact);
    const hits: BackendHit[] = exact.slice(0, limit).map((id) => ({ id, score: EXACT_SCORE }));
    if (hits.length === limit) return hits;
    // Ask for enough that dropping the exact ids (already listed) still leaves `limit`.
    const extra = { ...(allowed ? { allowed } : {}), ...(options.stats ? { stats: options.stats } : {}) };
    for (const hit of this.backend.search(query, { limit: limit + exactSet.size, ...extra })) {
      if (exactSet.has(hit.id) || !this.#docs.has(hit.id)) continue;
      hits.push(hit);
      if (hits.length === limit) break;
    }
    return hits;
  }

  /** Tools whose id or name is exactly `text` (case-insensitive): the id match first, then name matches. */
  #exact(text: string, allowed: ReadonlySet<string> | undefined): string[] {
    if (text === "") return [];
    const key = text.toLowerCase();
    const out: string[] = [];
    const byId = this.#byLowerId.get(key);
    if (byId !== undefined) out.push(byId);
    for (const id of this.#byLowerName.get(key) ?? []) if (id !== byId) out.push(id);
    return allowed === undefined ? out : out.filter((id) => allowed.has(id));
  }

  /**
   * "Did you mean" ids for an unknown id or name: the closest allowed ids, by edit distance
   * on the id and on the name, helped by shared words (`create-issue` vs `create_issue`).
   */
  suggest(idOrName: string, allowed?: ReadonlySet<string>, n = 3): string[] {
    this.#assertOpen();
    const wanted = idOrName.trim().toLowerCase();
    if (wanted === "" || n <= 0) return [];
    const wantedWords = new Set(splitIdentifier(idOrName));
    const scored: Array<{ id: string; score: number }> = [];
    for (const doc of this.#docs.values()) {
      if (allowed !== undefined && !allowed.has(doc.id)) continue;
      const score = similarity(wanted, wantedWords, doc);
      if (score > 0) scored.push({ id: doc.id, score });
    }
    scored.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
    return scored.slice(0, n).map((s) => s.id);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.backend.close?.();
  }

  get closed(): boolean {
    return this.#closed;
  }

  #assertOpen(): void {
    if (this.#closed) throw new EngineClosedError();
  }
}

/** 0..1: the best of id and name string similarity, plus a share for overlapping words. */
function similarity(wanted: string, wantedWords: ReadonlySet<string>, doc: SearchDoc): number {
  const id = doc.id.toLowerCase();
  const name = doc.name.toLowerCase();
  const chars = Math.max(ratio(wanted, id), ratio(wanted, name));
  let shared = 0;
  const docWords = new Set(splitIdentifier(doc.id));
  for (const w of wantedWords) if (docWords.has(w)) shared++;
  const words = wantedWords.size === 0 ? 0 : shared / Math.max(wantedWords.size, docWords.size);
  const score = 0.7 * chars + 0.3 * words;
  // Below this a suggestion is noise ("did you mean" a random tool helps nobody).
  return score >= 0.45 ? score : 0;
}

function ratio(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return 0;
  return 1 - editDistance(a, b, longest) / longest;
}

function dedupe(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
