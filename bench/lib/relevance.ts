/**
 * Retrieval metrics over ranked id lists, for the relevance test and the benchmarks.
 * Every metric is averaged over queries; a query may have several relevant tools.
 */

export interface JudgedQuery {
  id: string;
  query: string;
  /** Ids of the tools that answer the query (at least one). */
  relevant: readonly string[];
}

export interface RelevanceReport {
  queries: number;
  recallAt1: number;
  recallAt5: number;
  recallAt10: number;
  mrr: number;
  ndcgAt10: number;
  /** Share of queries whose first hit is relevant. */
  top1: number;
  /** Share of queries with a relevant hit among the first five. */
  top5: number;
  /** Mean wall time of one `search` call, ms. */
  queryMs: number;
}

/** Share of the relevant ids found in the first k results. */
export function recallAtK(ranked: readonly string[], relevant: readonly string[], k: number): number {
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  let found = 0;
  for (const id of new Set(relevant)) if (top.has(id)) found++;
  return found / new Set(relevant).size;
}

/** 1 / rank of the first relevant result, 0 when none is returned. */
export function reciprocalRank(ranked: readonly string[], relevant: readonly string[]): number {
  const wanted = new Set(relevant);
  const index = ranked.findIndex((id) => wanted.has(id));
  return index === -1 ? 0 : 1 / (index + 1);
}

/** Binary-relevance nDCG@k: DCG of the ranking over the DCG of a perfect one. */
export function ndcgAtK(ranked: readonly string[], relevant: readonly string[], k: number): number {
  const wanted = new Set(relevant);
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (wanted.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, wanted.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** Runs `search` (best first, at least 10 ids wanted) over every query and averages the metrics. */
export function evaluate(queries: readonly JudgedQuery[], search: (query: string) => readonly string[]): RelevanceReport {
  let r1 = 0;
  let r5 = 0;
  let r10 = 0;
  let mrr = 0;
  let ndcg = 0;
  let top1 = 0;
  let top5 = 0;
  let ms = 0;
  for (const q of queries) {
    const t0 = performance.now();
    const ranked = search(q.query);
    ms += performance.now() - t0;
    r1 += recallAtK(ranked, q.relevant, 1);
    r5 += recallAtK(ranked, q.relevant, 5);
    r10 += recallAtK(ranked, q.relevant, 10);
    mrr += reciprocalRank(ranked, q.relevant);
    ndcg += ndcgAtK(ranked, q.relevant, 10);
    if (ranked.length > 0 && q.relevant.includes(ranked[0] ?? "")) top1++;
    if (ranked.slice(0, 5).some((id) => q.relevant.includes(id))) top5++;
  }
  const n = Math.max(1, queries.length);
  return {
    queries: queries.length,
    recallAt1: r1 / n,
    recallAt5: r5 / n,
    recallAt10: r10 / n,
    mrr: mrr / n,
    ndcgAt10: ndcg / n,
    top1: top1 / n,
    top5: top5 / n,
    queryMs: ms / n,
  };
}

export function formatReport(name: string, r: RelevanceReport): string {
  const f = (x: number): string => x.toFixed(3);
  return `${name.padEnd(22)} R@5 ${f(r.recallAt5)}  R@10 ${f(r.recallAt10)}  MRR ${f(r.mrr)}  nDCG@10 ${f(r.ndcgAt10)}  top-1 ${f(r.top1)}  top-5 ${f(r.top5)}  (${r.queries} queries)`;
}
