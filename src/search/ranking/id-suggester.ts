/**
 * "Did you mean" for an unknown tool id or name, bounded whatever the input: the caller caps
 * the text (ids over 256 characters get no suggestions), candidates come from an inverted
 * index of id words and name trigrams instead of a scan of every tool, posting lists too
 * common to discriminate are skipped, and only the best few candidates are compared by edit
 * distance, on lengths capped at MAX_COMPARED_CHARS. At 10,000 tools one suggestion costs a
 * fraction of a millisecond.
 */
import { splitIdentifier } from "../analysis/analyze.js";
import { editDistance } from "../../text/edit-distance.js";
import type { SearchDoc } from "../types.js";

/** Longer ids and names get no suggestions (and the caller answers TOOL_NOT_FOUND at once). */
export const MAX_SUGGESTIBLE_CHARS = 256;
/** Posting entries tallied per suggestion, rarest features first: bounds the work at any catalog size. */
const POSTINGS_BUDGET = 6_000;
/** Candidates compared by edit distance. */
const MAX_COMPARED = 24;
const MAX_COMPARED_CHARS = 128;
const MAX_WANTED_WORDS = 32;
/** Below this a suggestion is noise ("did you mean" a random tool helps nobody). */
const MIN_SIMILARITY = 0.45;

interface Indexed {
  id: string;
  lowerId: string;
  lowerName: string;
  /** Words of the id; split on first use (only candidates ever need them). */
  words?: ReadonlySet<string>;
}

export class IdSuggester {
  readonly #tools: Indexed[] = [];
  /** Trigram of a lowercase name (three UTF-16 units packed in a number) → tool indexes. */
  readonly #byTrigram = new Map<number, number[]>();

  constructor(docs: Iterable<SearchDoc>) {
    for (const doc of docs) {
      const index = this.#tools.length;
      const lowerName = doc.name.toLowerCase();
      this.#tools.push({ id: doc.id, lowerId: doc.id.toLowerCase(), lowerName });
      for (const gram of trigrams(lowerName)) {
        const list = this.#byTrigram.get(gram);
        if (list === undefined) this.#byTrigram.set(gram, [index]);
        else if (list[list.length - 1] !== index) list.push(index);
      }
    }
  }

  /** Up to `n` allowed ids close to `idOrName`, best first. */
  suggest(idOrName: string, allowed: ReadonlySet<string> | undefined, n: number): string[] {
    const wanted = idOrName.trim().toLowerCase();
    if (wanted === "" || wanted.length > MAX_SUGGESTIBLE_CHARS || n <= 0) return [];
    const wantedWords = new Set(splitIdentifier(idOrName).slice(0, MAX_WANTED_WORDS));
    const wantedName = wanted.slice(wanted.lastIndexOf(":") + 1);
    const postings = [...new Set(trigrams(wantedName))]
      .map((gram) => this.#byTrigram.get(gram))
      .filter((list): list is number[] => list !== undefined)
      .sort((a, b) => a.length - b.length);
    const tally = new Tally(this.#tools.length);
    const admit = (index: number) => allowed === undefined || allowed.has(this.#tools[index]!.id);
    let budget = POSTINGS_BUDGET;
    for (const list of postings) {
      if (list.length > budget) break;
      budget -= list.length;
      tally.add(list, admit);
    }
    return tally
      .top(MAX_COMPARED)
      .map((index) => ({ id: this.#tools[index]!.id, score: similarity(wanted, wantedWords, this.#tools[index]!) }))
      .filter((s) => s.score >= MIN_SIMILARITY)
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
      .slice(0, n)
      .map((s) => s.id);
  }
}

/** Shared-trigram counts per candidate, in a typed array (a Map costs several times more here). */
class Tally {
  readonly #counts: Uint16Array;
  readonly #touched: number[] = [];

  constructor(size: number) {
    this.#counts = new Uint16Array(size);
  }

  add(postings: readonly number[], admit: (index: number) => boolean): void {
    for (const index of postings) {
      const count = this.#counts[index]!;
      if (count > 0) this.#counts[index] = count + 1;
      else if (admit(index)) {
        this.#counts[index] = 1;
        this.#touched.push(index);
      }
    }
  }

  /** The `k` candidates with the most shared trigrams (ties: first tallied), by counting sort: linear. */
  top(k: number): number[] {
    const buckets: number[][] = [];
    for (const index of this.#touched) (buckets[this.#counts[index]!] ??= []).push(index);
    const best: number[] = [];
    for (let count = buckets.length - 1; count > 0 && best.length < k; count--) {
      for (const index of buckets[count] ?? []) {
        if (best.length === k) break;
        best.push(index);
      }
    }
    return best;
  }
}

/** Trigrams of a (capped) string, each packed into one number; a string under 3 units is one "gram". */
function trigrams(text: string): number[] {
  const capped = text.slice(0, MAX_SUGGESTIBLE_CHARS);
  if (capped.length < 3) return capped.length === 0 ? [] : [pack(capped, 0, capped.length)];
  const grams: number[] = [];
  for (let i = 0; i + 3 <= capped.length; i++) grams.push(pack(capped, i, 3));
  return grams;
}

function pack(text: string, from: number, length: number): number {
  let key = length;
  for (let i = from; i < from + length; i++) key = key * 65_536 + text.charCodeAt(i);
  return key;
}

const CHARS_WEIGHT = 0.7;
const WORDS_WEIGHT = 0.3;

/**
 * 0..1: the best of id and name string similarity, plus a share for overlapping words. The
 * words are counted first: they say how close the characters must be for the candidate to reach
 * MIN_SIMILARITY, and the edit distance stops as soon as it cannot (a long made-up id against
 * short real ones costs a length check, not a full table).
 */
function similarity(wanted: string, wantedWords: ReadonlySet<string>, tool: Indexed): number {
  tool.words ??= new Set(splitIdentifier(tool.id));
  let shared = 0;
  for (const w of wantedWords) if (tool.words.has(w)) shared++;
  const words = wantedWords.size === 0 ? 0 : shared / Math.max(wantedWords.size, tool.words.size);
  const needed = (MIN_SIMILARITY - WORDS_WEIGHT * words) / CHARS_WEIGHT;
  const chars = Math.max(ratio(wanted, tool.lowerId, needed), ratio(wanted, tool.lowerName, needed));
  return CHARS_WEIGHT * chars + WORDS_WEIGHT * words;
}

/** 1 − edit distance ÷ length; 0 for a pair below `needed` (it could not be suggested anyway). */
function ratio(a: string, b: string, needed: number): number {
  const x = a.slice(0, MAX_COMPARED_CHARS);
  const y = b.slice(0, MAX_COMPARED_CHARS);
  const longest = Math.max(x.length, y.length);
  if (longest === 0) return 0;
  const max = Math.floor((1 - needed) * longest);
  if (max < 0) return 0;
  const distance = editDistance(x, y, max);
  return distance > max ? 0 : 1 - distance / longest;
}
