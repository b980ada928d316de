/**
 * English words, as analysed stems, kept as Bloom filters generated offline from WordNet 3.1
 * (scripts/generate-english-words.ts writes them to src/generated/english-words-data.ts): ~170 KB instead of a ~10 MB Set or a 34 MB dependency
 * parsed at startup.
 * - All single-word lemmas (isEnglishWord): what compound splitting (analyze.ts) checks, both
 *   that a word is not English and that its parts are.
 * - Lemmas the SemCor corpus shows in use (isCommonWord): the guard that keeps typo correction
 *   off real words the catalog merely lacks ("paris" is not a misspelt "parse", "hiking" not
 *   "hiring"), while a rare lemma ("wether") is still read as the typo it usually is.
 * A false positive (~1%) leaves a typo uncorrected or a compound whole, the safe side.
 */
import { BloomFilter } from "./bloom.js";
import { COMMON_WORD_BITS, COMMON_WORD_COUNT, ENGLISH_WORD_BITS, ENGLISH_WORD_COUNT } from "../../generated/english-words-data.js";

let filters: { all: BloomFilter; common: BloomFilter } | undefined;

function decode(base64: string, count: number): BloomFilter {
  const bytes = Buffer.from(base64, "base64");
  const bits = new Uint32Array(bytes.byteLength / 4);
  new Uint8Array(bits.buffer).set(bytes);
  return new BloomFilter(count, bits);
}

/** Decodes the filters now (engine start) rather than during the first query that needs them. */
export function loadEnglishWords(): { all: BloomFilter; common: BloomFilter } {
  filters ??= { all: decode(ENGLISH_WORD_BITS, ENGLISH_WORD_COUNT), common: decode(COMMON_WORD_BITS, COMMON_WORD_COUNT) };
  return filters;
}

/** Whether an analysed word is (the stem of) an English word. */
export function isEnglishWord(word: string): boolean {
  return loadEnglishWords().all.has(word);
}

/** Whether an analysed word is (the stem of) an English word seen in use: tagged in SemCor. */
export function isCommonWord(word: string): boolean {
  return loadEnglishWords().common.has(word);
}
