/**
 * The plain baseline the tuned backends are measured against: minisearch's default tokenizer
 * (split on spaces and punctuation, lowercase; no identifier splitting, stemming, stopwords
 * or synonyms) over name + description, equal weights, no fuzzy or prefix matching.
 */
import MiniSearch from "minisearch";
import type { SearchDoc } from "../../src/search/types.js";

export interface Baseline {
  search(query: string, limit: number): string[];
}

export function plainBm25(docs: readonly SearchDoc[]): Baseline {
  const index = new MiniSearch<{ id: string; name: string; description: string }>({ fields: ["name", "description"] });
  index.addAll(docs.map((d) => ({ id: d.id, name: d.name, description: d.description })));
  return {
    search: (query, limit) =>
      index
        .search(query, { combineWith: "OR" })
        .slice(0, limit)
        .map((r) => String(r.id)),
  };
}
