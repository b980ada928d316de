/** "Did you mean": the candidate closest to a mistyped word, when it is close enough to be the one meant. */
import { editDistance } from "../text/edit-distance.js";

/**
 * Up to one edit for words of 3 letters or fewer, else up to a third of the letters but at least
 * two (a swapped pair, "sevre" for "serve", is two edits); words over 64 letters are never matched.
 */
export function closestWord(word: string, candidates: readonly string[]): string | undefined {
  if (word.length === 0 || word.length > 64) return undefined;
  const max = word.length <= 3 ? 1 : Math.max(2, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase(), max);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}
