/**
 * Top-k under a filter without filtering a truncated top-k: asks the backend for the best n
 * matches, keeps the allowed ones, and asks again for more (n × 4) until it has `limit`
 * allowed hits or the backend has no more matches. So a run that may see 10 of 10,000 tools
 * still gets its k hits when k of its tools match.
 */
import type { BackendHit } from "../../../src/index.js";

export function collectAllowed(limit: number, size: number, allowed: ReadonlySet<string> | undefined, topN: (n: number) => BackendHit[]): BackendHit[] {
  if (allowed === undefined) return topN(limit);
  if (allowed.size === 0) return [];
  // First guess: enough to expect `limit` allowed hits if allowed tools match as often as others.
  let n = Math.min(size, Math.max(limit * 2, Math.ceil((limit * size) / allowed.size) + limit));
  for (;;) {
    const hits = topN(n);
    const kept: BackendHit[] = [];
    for (const hit of hits) {
      if (allowed.has(hit.id)) {
        kept.push(hit);
        if (kept.length === limit) return kept;
      }
    }
    if (hits.length < n || n >= size) return kept;
    n = Math.min(size, n * 4);
  }
}
