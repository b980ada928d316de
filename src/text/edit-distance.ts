/**
 * Levenshtein distance with one reused row, by UTF-16 code unit (ids are mostly ASCII).
 * Stops early once every cell of a row exceeds `max`, returning `max + 1`: suggestions only
 * care about close strings, and a catalog of 10,000 ids must stay cheap to scan.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let row = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) row[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const next = new Array<number>(b.length + 1);
    next[0] = i;
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + cost);
      next[j] = v;
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    row = next;
  }
  return row[b.length] ?? 0;
}
