/**
 * Typo candidates from a catalog's vocabulary: a trigram index over its plain-letter terms,
 * then edit distance on the few best-overlapping ones. Built once per index, lazily (the
 * first query with an unknown word pays for it), and only ever consulted for words the
 * catalog does not hold: a correct word is never "corrected".
 */
import { editDistance } from "../../text/edit-distance.js";

const LETTERS = /^[a-z]+$/;
/** Shorter words have too many neighbours at distance 1 to guess which one was meant. */
const MIN_TYPO_LENGTH = 4;
/** Longer "words" are identifiers or junk: not worth the scan. */
const MAX_TYPO_LENGTH = 24;
/** Overlap-ranked candidates checked by edit distance, per word: bounds the work per query. */
const MAX_CHECKED = 64;

function trigrams(word: string): string[] {
  const padded = `^${word}$`;
  const grams: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) grams.push(padded.slice(i, i + 3));
  return grams;
}

/** Edit distance allowed for a word: one typo up to five letters, two beyond. */
export function maxTypoDistance(word: string): number {
  return word.length <= 5 ? 1 : 2;
}

/**
 * Words are filed under (trigram, length): a word within distance d of an n-letter word has
 * n−d to n+d letters, so a lookup only reads those few lists, not every word sharing a common
 * trigram like "ion" (most of the cost of the plain trigram index).
 */
export class TypoIndex {
  readonly #byGram = new Map<string, string[]>();

  constructor(vocabulary: Iterable<string>) {
    for (const word of vocabulary) {
      if (word.length < MIN_TYPO_LENGTH - 1 || word.length > MAX_TYPO_LENGTH + 2 || !LETTERS.test(word)) continue;
      for (const gram of new Set(trigrams(word))) {
        const key = `${gram}|${word.length}`;
        const words = this.#byGram.get(key);
        if (words === undefined) this.#byGram.set(key, [word]);
        else words.push(word);
      }
    }
  }

  /**
   * Vocabulary words within the allowed edit distance of `word`, closest first, then by
   * `rank` (higher first: the caller passes document frequency, so the common reading wins).
   */
  corrections(word: string, rank: (w: string) => number, limit = 2): string[] {
    if (word.length < MIN_TYPO_LENGTH || word.length > MAX_TYPO_LENGTH || !LETTERS.test(word)) return [];
    const max = maxTypoDistance(word);
    const overlap = new Map<string, number>();
    for (const gram of new Set(trigrams(word))) {
      for (let length = word.length - max; length <= word.length + max; length++) {
        for (const candidate of this.#byGram.get(`${gram}|${length}`) ?? []) overlap.set(candidate, (overlap.get(candidate) ?? 0) + 1);
      }
    }
    const checked = [...overlap].sort((a, b) => b[1] - a[1]).slice(0, MAX_CHECKED);
    const found: Array<{ word: string; distance: number; rank: number }> = [];
    for (const [candidate] of checked) {
      const distance = editDistance(word, candidate, max);
      if (distance <= max && distance > 0) found.push({ word: candidate, distance, rank: rank(candidate) });
    }
    found.sort((a, b) => a.distance - b.distance || b.rank - a.rank || a.word.localeCompare(b.word));
    return found.slice(0, limit).map((f) => f.word);
  }
}
