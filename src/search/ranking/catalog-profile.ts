/**
 * What kind of text a catalog's descriptions are, for the catalog guard of rankRequest
 * (dispatch/rank-request.ts): a catalog whose descriptions are long and specific (a vendor's
 * server whose every tool says at length what it does, in words few other tools use) is one
 * where plain field BM25 is already a strong ranking, and the engine's own signals
 * (coordination, name precision, expansions) may only break its near-ties. The signals earn their
 * keep on short descriptions (one line, a name), where a request's words are often not the
 * tool's: there the guard stays off.
 *
 * Measured over an evenly spaced sample of at most PROFILE_SAMPLE descriptions, so a catalog of
 * 100,000 tools costs what one of 512 does, once per index (ToolIndex caches it).
 */
import { analyzeText } from "../analysis/analyze.js";
import type { CorpusStats, SearchDoc } from "../types.js";

export interface CatalogProfile {
  /** Tools in the catalog, and how many descriptions the profile read. */
  tools: number;
  sampled: number;
  /** The median description's length in index terms (analyzeText: stopwords out, identifiers split and whole). */
  medianDescriptionTerms: number;
  /**
   * How specific the median description's words are: the mean over its distinct terms of
   * ln(N / df) ÷ ln N, 1 for words no other tool uses, 0 for words every tool uses.
   */
  specificity: number;
  /** Both above their thresholds: the catalog guard is on. */
  longAndSpecific: boolean;
}

/** Descriptions read at most. */
const PROFILE_SAMPLE = 512;
/**
 * A long description: the median has at least this many terms. The benchmark sets' catalogs have
 * medians of 5 (Seal-Tools), 7 (toolsdk-registry), 8 (LiveMCPBench) and 10 (MetaTool); servers
 * that document each tool at length have 28 (filesystem) to 102 (an OpenStreetMap server).
 */
const LONG_DESCRIPTION_TERMS = 20;
/** A specific description: its words' normalised IDF averages at least this (boilerplate repeated on every tool scores low). */
const SPECIFIC = 0.5;

/** The profile of `docs` (the index's), with document frequencies from `stats` (the index's own). */
export function profileCatalog(docs: readonly SearchDoc[], stats: Pick<CorpusStats, "df" | "docCount">): CatalogProfile {
  const n = docs.length;
  const step = Math.max(1, n / PROFILE_SAMPLE);
  const lengths: number[] = [];
  const specificities: number[] = [];
  const logN = Math.log(Math.max(2, stats.docCount));
  for (let k = 0; k < Math.min(n, PROFILE_SAMPLE); k++) {
    const terms = analyzeText(docs[Math.floor(k * step)]!.description);
    lengths.push(terms.length);
    const distinct = [...new Set(terms)];
    if (distinct.length === 0) continue;
    const sum = distinct.reduce((s, term) => s + Math.log(Math.max(1, stats.docCount) / Math.max(1, stats.df(term))), 0);
    specificities.push(sum / distinct.length / logN);
  }
  const medianDescriptionTerms = median(lengths);
  const specificity = median(specificities);
  return {
    tools: n,
    sampled: lengths.length,
    medianDescriptionTerms,
    specificity: Math.round(specificity * 1000) / 1000,
    longAndSpecific: n > 1 && medianDescriptionTerms >= LONG_DESCRIPTION_TERMS && specificity >= SPECIFIC,
  };
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
