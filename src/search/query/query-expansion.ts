/**
 * What one query word may also match, with a weight below the word itself:
 * - thesaurus words (thesaurus.ts) at THESAURUS_WEIGHT: "picture" also finds `take_screenshot`;
 * - for a word in neither the catalog nor common English (english-words.ts), its likely
 *   spellings among the catalog's words (typo.ts): "transcipt" → transcript, "wether" → weather.
 * BM25F (bm25f.ts) counts only a word's best variant per doc and never gives a variant more
 * IDF than the typed word, so an exact match of what was typed always ranks above a match of
 * its synonym in the same field.
 */
import { stem } from "../analysis/analyze.js";
import { isCommonWord } from "../analysis/english-words.js";
import { THESAURUS_GROUPS } from "./thesaurus.js";
import type { CorpusStats } from "../types.js";

export interface Variant {
  term: string;
  weight: number;
  /** Where a variant other than the word itself came from (explain mode reports it). */
  origin?: "typo" | "thesaurus";
}

/** Per-query state: how many more words may be typo-corrected, and how many more synonyms added. */
export interface ExpansionBudget {
  typos: number;
  synonyms: number;
}

export type Expander = (word: string, stats: CorpusStats, budget: ExpansionBudget) => readonly Variant[];

/**
 * Words corrected per query: each costs a vocabulary lookup, and a request with more unknown
 * words than this is full of names and ids, not typos.
 */
export const MAX_TYPO_WORDS = 4;
/**
 * Thesaurus variants per query: each is one more posting list to scan, so this bounds a query
 * of 48 common words to a few hundred lists, not thousands. Earlier words expand first.
 */
export const MAX_QUERY_SYNONYMS = 64;

export interface ExpansionOptions {
  thesaurus?: boolean;
  typos?: boolean;
}

/** Study on held-out requests: 0.2–0.4 all gain; higher lets synonyms crowd out typed words. */
export const THESAURUS_WEIGHT = 0.3;
/** A corrected word is probably what was meant, but not surely. */
const TYPO_WEIGHT = 0.8;
/** Bounds the postings one word can pull in. */
const MAX_SYNONYMS = 12;

const SYNONYMS: ReadonlyMap<string, readonly string[]> = buildSynonyms(THESAURUS_GROUPS);

function buildSynonyms(groups: ReadonlyArray<readonly string[]>): Map<string, string[]> {
  const sets = new Map<string, Set<string>>();
  for (const group of groups) {
    const stems = [...new Set(group.map((w) => stem(w.toLowerCase())))];
    for (const word of stems) {
      const set = sets.get(word) ?? new Set<string>();
      for (const other of stems) if (other !== word) set.add(other);
      sets.set(word, set);
    }
  }
  return new Map([...sets].map(([w, s]) => [w, [...s].slice(0, MAX_SYNONYMS)]));
}

/** The thesaurus words of an analysed (stemmed) term, itself excluded. */
export function thesaurusOf(term: string): readonly string[] {
  return SYNONYMS.get(term) ?? [];
}

export function makeExpander(options: ExpansionOptions = {}): Expander {
  const thesaurus = options.thesaurus ?? true;
  const typos = options.typos ?? true;
  return (word, stats, budget) => {
    const variants: Variant[] = [{ term: word, weight: 1 }];
    // Only words in neither the catalog nor common English: a real word the catalog lacks is
    // not a typo ("paris" is not a misspelt "parse"), but a rare one ("wether") usually is.
    if (typos && budget.typos > 0 && stats.df(word) === 0 && !isCommonWord(word)) {
      budget.typos--;
      for (const term of stats.corrections?.(word) ?? []) variants.push({ term, weight: TYPO_WEIGHT, origin: "typo" });
    }
    if (thesaurus) {
      // Synonyms of what was meant: of the corrected word when the typed one is unknown.
      const base = variants.length > 1 ? variants.map((v) => v.term) : [word];
      for (const b of base) {
        for (const term of thesaurusOf(b)) {
          if (budget.synonyms <= 0) break;
          budget.synonyms--;
          variants.push({ term, weight: THESAURUS_WEIGHT, origin: "thesaurus" });
        }
      }
    }
    return variants;
  };
}

export const expandWord: Expander = makeExpander();
