/**
 * A request's words, rewritten against the catalog's own vocabulary where a word as typed is
 * not in it, so that the ways people and tool names spell one thing meet:
 * - a plural or singular of an identifier part: "vms" finds `vm` (and "vm" finds `vms`);
 * - a closed compound split: "cosmosdb" finds `cosmos` + `db` when the catalog has both;
 * - two words joined: "cosmos db" or "key vault" find `cosmosdb`, `keyvault`.
 * Only words the catalog lacks are rewritten and only into words it has, so a request whose
 * words all occur ranks exactly as before; nothing here names a word, a tool or a catalog.
 * (Compounds of two English words, "hackernews", are split at analysis already, see
 * compoundParts; this covers the rest, `db`, `vm`, product names.)
 */
import { analyzeQuery, MAX_QUERY_TERMS, splitIdentifier, stem } from "../analysis/analyze.js";
import { isEnglishWord } from "../analysis/english-words.js";
import { STOPWORDS } from "../analysis/stopwords.js";
import type { CorpusStats } from "../types.js";

/** Parts of a split compound: at least this long each, and one of them at least MIN_LONG_PART. */
const MIN_PART = 2;
const MIN_LONG_PART = 3;
/** Longer words are ids or junk, and the split loop is linear in the length. */
const MAX_SPLIT = 24;
const CHUNK = /[\p{L}\p{N}]+(?:[_\-.:/@]+[\p{L}\p{N}]+)*/gu;
const LETTERS = /^[a-z]+$/;

/** The words of a request to score, and which of them a rewrite made (not typed). */
export interface QueryWords {
  words: string[];
  /**
   * Words only a rewrite gave (a plural's other number, a compound's parts, a joined pair). Like
   * a thesaurus word they score only where they mean what was typed: a tool's name and
   * description (Bm25fParams.expansionFields), never its parameter names.
   */
  rewritten: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();

/** The analysed words of a request (analyzeQuery), with the catalog-vocabulary rewrites above. */
export function queryWords(query: string, stats: CorpusStats, rewrite = true): string[] {
  return queryWordsOf(query, stats, rewrite).words;
}

/** queryWords, saying which words a rewrite made. */
export function queryWordsOf(query: string, stats: CorpusStats, rewrite = true): QueryWords {
  const words = analyzeQuery(query).map((t) => t.term);
  if (!rewrite || stats.docCount === 0) return { words, rewritten: NONE };
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (w: string) => {
    if (!seen.has(w) && out.length < MAX_QUERY_TERMS) {
      seen.add(w);
      out.push(w);
    }
  };
  let unknown = false;
  for (const word of words) {
    if (stats.df(word) > 0 || !LETTERS.test(word)) {
      push(word);
      continue;
    }
    unknown = true;
    const number = otherNumber(word, stats);
    if (number !== undefined) {
      push(number);
      continue;
    }
    // Kept as typed too: typo correction (query-expansion.ts) may still know better.
    push(word);
    // A split of an English word the catalog lacks ("recall" → re + call) is noise; so is one
    // the analyzer split already ("codebase" → code, base).
    if (!isEnglishWord(word) && !words.some((w) => w !== word && word.startsWith(w))) for (const p of splitCompound(word, stats) ?? []) push(p);
  }
  // A join needs a word the catalog lacks: a request whose words it all has (most) skips the pass.
  if (unknown) for (const joined of joinedPairs(query, stats)) push(joined);
  if (!unknown) return { words: out, rewritten: NONE };
  const typed = new Set(words);
  return { words: out, rewritten: new Set(out.filter((w) => !typed.has(w))) };
}

/** "vms" → `vm`, "vm" → `vms`: the other number of a non-English word the catalog lacks, if the catalog has it. */
function otherNumber(word: string, stats: CorpusStats): string | undefined {
  // An English word the catalog lacks ("menu", "abs") is a word, not an identifier part's number.
  if (isEnglishWord(word)) return undefined;
  if (word.endsWith("s") && word.length > MIN_PART && stats.df(word.slice(0, -1)) > 0) return word.slice(0, -1);
  if (stats.df(`${word}s`) > 0) return `${word}s`;
  return undefined;
}

/** The most even split of a word into two catalog words ("cosmosdb" → cosmo(s), db), or undefined. */
function splitCompound(word: string, stats: CorpusStats): string[] | undefined {
  if (word.length < MIN_PART + MIN_LONG_PART || word.length > MAX_SPLIT) return undefined;
  let best: string[] | undefined;
  let bestShortest = 0;
  for (let cut = MIN_PART; cut <= word.length - MIN_PART; cut++) {
    const shortest = Math.min(cut, word.length - cut);
    if (shortest <= bestShortest || Math.max(cut, word.length - cut) < MIN_LONG_PART) continue;
    const head = known(word.slice(0, cut), stats);
    const tail = known(word.slice(cut), stats);
    if (head !== undefined && tail !== undefined) {
      best = [head, tail];
      bestShortest = shortest;
    }
  }
  return best;
}

/** The part as the catalog indexes it (as typed, or stemmed), or undefined when it has neither. */
function known(part: string, stats: CorpusStats): string | undefined {
  if (STOPWORDS.has(part)) return undefined;
  if (stats.df(part) > 0) return part;
  const stemmed = stem(part);
  return stats.df(stemmed) > 0 ? stemmed : undefined;
}

/** Adjacent words of the request joined ("cosmos db" → cosmosdb) where the catalog has the joined word but lacks one of the two. */
function joinedPairs(query: string, stats: CorpusStats): string[] {
  const raw: string[] = [];
  for (const match of query.matchAll(CHUNK)) for (const w of splitIdentifier(match[0])) if (LETTERS.test(w)) raw.push(w);
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i++) {
    const a = raw[i]!;
    const b = raw[i + 1]!;
    if (STOPWORDS.has(a) || STOPWORDS.has(b)) continue;
    // Only where the request's own words miss: two words the catalog has already match as typed.
    if (known(a, stats) !== undefined && known(b, stats) !== undefined) continue;
    const joined = known(a + b, stats);
    if (joined !== undefined) out.push(joined);
  }
  return out;
}
