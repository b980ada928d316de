/**
 * English words, as analysed stems (WordNet 3.1's single-word lemmas): the guard that keeps
 * typo correction off real words the catalog merely lacks ("paris" is not a misspelt "parse",
 * "hiking" not "hiring"). Kept as a Bloom filter generated offline
 * (scripts/generate-english-words.ts): ~150 KB instead of a ~10 MB Set or a 34 MB dependency
 * parsed at startup. A false positive (~1%) only leaves a typo uncorrected, the safe side.
 */
import { BloomFilter } from "./bloom.js";
import { COMMON_WORD_BITS, COMMON_WORD_COUNT, ENGLISH_WORD_BITS, ENGLISH_WORD_COUNT } from "./english-words-data.js";

let words: BloomFilter | undefined;
let common: BloomFilter | undefined;

function decode(base64: string, count: number): BloomFilter {
  const bytes = Buffer.from(base64, "base64");
  const bits = new Uint32Array(bytes.byteLength / 4);
  new Uint8Array(bits.buffer).set(bytes);
  return new BloomFilter(count, bits);
}

/** Decodes the filter now (engine start, ~1 ms) rather than during the first query that needs it. */
export function loadEnglishWords(): BloomFilter {
  words ??= decode(ENGLISH_WORD_BITS, ENGLISH_WORD_COUNT);
  common ??= decode(COMMON_WORD_BITS, COMMON_WORD_COUNT);
  return words;
}

/** Whether an analysed word is (the stem of) an English word. */
export function isEnglishWord(word: string): boolean {
  return loadEnglishWords().has(word);
}

/** Whether an analysed word is (the stem of) an English word seen in use: tagged in SemCor. */
export function isCommonWord(word: string): boolean {
  loadEnglishWords();
  return common!.has(word);
}
