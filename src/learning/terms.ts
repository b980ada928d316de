/**
 * A request as learned terms: the analyzer's own terms (analyze.ts: identifiers split, stopwords
 * dropped, words stemmed), each once, at most `max` of them. The same function turns a request
 * into terms when learning and when ranking, so the two always agree.
 */
import { analyzeText } from "../search/analysis/analyze.js";

/** Longer terms are ids, hashes or junk: nothing worth learning, and they would bloat a bag. */
const MAX_TERM_CHARS = 40;

export function learnedTerms(request: string, max: number): string[] {
  const out = new Set<string>();
  for (const term of analyzeText(request.slice(0, 2_000).toLowerCase())) {
    if (term.length > MAX_TERM_CHARS || /^\d+$/.test(term)) continue;
    out.add(term);
    if (out.size >= max) break;
  }
  return [...out];
}
