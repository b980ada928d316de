/**
 * How far learning from past requests can go on a set, whatever the ranking's tuning: every
 * past request put in its tool's bag at once (no replay, no decay, no trust, no catalog text),
 * bags ranked by plain BM25 (k1 1.2, b 0.75, the engine's own request terms: learning/terms.ts),
 * held-out requests scored by top-1 — once with every (term, tool) pair, once with only the
 * pairs at least `minSessions` requests gave (the rule learning must keep: one request is one
 * session in the replay). The second is about what any bag-of-words learner reaches under that
 * rule; the first, what it would reach without it.
 */
import { learnedTerms } from "../../src/learning/terms.js";
import type { ReplaySet } from "./sets.js";

export interface CeilingResult {
  set: string;
  minSessions: number;
  /** Top-1 and top-5 with every pair, and with pairs from at least minSessions requests only. */
  allPairs: { top1: number; top5: number };
  countedPairs: { top1: number; top5: number };
}

type Bags = Map<string, Map<string, number>>;

function bagsOf(set: ReplaySet, minSessions: number): Bags {
  const bags: Bags = new Map();
  for (const q of set.past) {
    for (const tool of q.relevant) {
      const bag = bags.get(tool) ?? new Map<string, number>();
      for (const term of learnedTerms(q.query, 64)) bag.set(term, (bag.get(term) ?? 0) + 1);
      bags.set(tool, bag);
    }
  }
  for (const bag of bags.values()) for (const [term, n] of bag) if (n < minSessions) bag.delete(term);
  return bags;
}

/** Plain BM25 over the bags, its statistics computed once. */
function ranker(bags: Bags, k1 = 1.2, b = 0.75): (request: string) => string[] {
  const byTerm = new Map<string, Array<[string, number]>>();
  const lengths = new Map<string, number>();
  for (const [tool, bag] of bags) {
    let len = 0;
    for (const [term, n] of bag) {
      len += n;
      const list = byTerm.get(term) ?? [];
      list.push([tool, n]);
      byTerm.set(term, list);
    }
    lengths.set(tool, len);
  }
  let total = 0;
  for (const len of lengths.values()) total += len;
  const avg = total / Math.max(1, bags.size);
  return (request) => {
    const scores = new Map<string, number>();
    for (const term of new Set(learnedTerms(request, 64))) {
      const list = byTerm.get(term);
      if (list === undefined) continue;
      const idf = Math.log(1 + (bags.size - list.length + 0.5) / (list.length + 0.5));
      for (const [tool, tf] of list) {
        const norm = k1 * (1 - b + (b * lengths.get(tool)!) / avg);
        scores.set(tool, (scores.get(tool) ?? 0) + (idf * tf * (k1 + 1)) / (tf + norm));
      }
    }
    return [...scores].sort((x, y) => y[1] - x[1]).map(([tool]) => tool);
  };
}

function scoreBags(bags: Bags, set: ReplaySet): { top1: number; top5: number } {
  const rank = ranker(bags);
  let top1 = 0;
  let top5 = 0;
  for (const q of set.heldOut) {
    const hits = rank(q.query);
    if (q.relevant.includes(hits[0] ?? "")) top1++;
    if (hits.slice(0, 5).some((h) => q.relevant.includes(h))) top5++;
  }
  const n = Math.max(1, set.heldOut.length);
  return { top1: top1 / n, top5: top5 / n };
}

export function learningCeiling(set: ReplaySet, minSessions = 3): CeilingResult {
  return { set: set.name, minSessions, allPairs: scoreBags(bagsOf(set, 1), set), countedPairs: scoreBags(bagsOf(set, minSessions), set) };
}
