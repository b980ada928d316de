/**
 * The product's ranking (src/dispatch/rank-request.ts rankRequest: clauses and fusion, linked
 * siblings, weak fallback) over a bare ToolIndex, for benches and tests: what they measure is
 * then what a run returns, not a second path of their own. No client tools, no learning.
 * Measures the product's ranking over a bare index on purpose: imports src/dispatch/rank-request.ts, src/search/, src/learning/fuse.ts directly.
 */
import { rankRequest, type RankCatalog, type RunScope } from "../../src/dispatch/rank-request.js";
import type { FusedHit } from "../../src/learning/fuse.js";
import type { IntentOptions } from "../../src/search/ranking/intents.js";
import type { ToolIndex } from "../../src/search/tool-index.js";

export interface IndexScopeOptions {
  /** Multi-step handling (default: all on, as in a run); `{ clauses: false }` etc. for an ablation. */
  intents?: IntentOptions;
  /** The tools the run may see (default: every doc of the index), as a run's policy filter would. */
  allowed?: ReadonlySet<string>;
  /** false: no read-request safety order (the relevance bench's ablation; a run always has it). */
  readSafety?: false;
  /** The catalog guard off, or on whatever the catalog's profile (RunScope.catalogGuard; default: by the profile). */
  catalogGuard?: false | "on";
}

const NO_CLIENT_TOOLS: ReadonlySet<string> = new Set();

/**
 * A run's scope over `index` alone. Build it once per index and ranking setup: it holds the
 * allowed ids, a set as big as the catalog. Every id is passed as a set, never as "no filter",
 * as a run passes its admitted ids: a backend that over-fetches under a filter (the bench's
 * bm25() backend, fts5-bm25/collect-allowed.ts) then ranks here as it would in a run.
 */
export function indexScope(index: ToolIndex, options: IndexScopeOptions = {}): RunScope {
  const catalogIds = options.allowed ?? new Set([...index.docs()].map((d) => d.id));
  const catalog: RankCatalog = { catalogIds, clientIds: NO_CLIENT_TOOLS, get: (id) => index.get(id, catalogIds) };
  return {
    catalog,
    index,
    ...(options.intents ? { intents: options.intents } : {}),
    ...(options.readSafety === false ? { readSafety: false } : {}),
    ...(options.catalogGuard !== undefined ? { catalogGuard: options.catalogGuard } : {}),
  };
}

/** rankRequest over a bare index, every doc allowed: one call, for a test or a few queries (a bench keeps its indexScope). */
export function rankOverIndex(index: ToolIndex, query: string, limit: number, intents?: IntentOptions): FusedHit[] {
  return rankRequest(query, limit, indexScope(index, intents ? { intents } : {}));
}

/** A ranker of ids over a scope: what the relevance benches and tests score. */
export function rankIds(scope: RunScope, limit: number): (query: string) => string[] {
  return (query) => rankRequest(query, limit, scope).map((h) => h.id);
}
