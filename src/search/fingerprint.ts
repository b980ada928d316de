/**
 * A catalog fingerprint: sha256 over every doc's indexed content, in id order, so the same
 * catalog gives the same fingerprint whatever order its sources listed the tools in.
 * Memoised per docs array (callers treat a docs array as immutable once passed): a run that
 * reuses its catalog's array pays nothing; a fresh array of 10k docs costs a few ms.
 */
import { createHash } from "node:crypto";
import type { SearchDoc } from "./types.js";

const memo = new WeakMap<readonly SearchDoc[], string>();

export function fingerprintDocs(docs: readonly SearchDoc[]): string {
  const known = memo.get(docs);
  if (known !== undefined) return known;
  const sorted = isSortedById(docs) ? docs : [...docs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const hash = createHash("sha256");
  // One JSON line per doc, batched: a hash.update per doc costs more than the hashing itself.
  let batch = "";
  for (const doc of sorted) {
    batch += JSON.stringify([doc.id, doc.name, doc.source, doc.owner, doc.description, doc.params.map((p) => [p.name, p.description])]);
    batch += "\n";
    if (batch.length > 1 << 16) {
      hash.update(batch);
      batch = "";
    }
  }
  hash.update(batch);
  const fingerprint = hash.digest("hex");
  memo.set(docs, fingerprint);
  return fingerprint;
}

function isSortedById(docs: readonly SearchDoc[]): boolean {
  for (let i = 1; i < docs.length; i++) {
    const prev = docs[i - 1];
    const cur = docs[i];
    if (prev !== undefined && cur !== undefined && prev.id > cur.id) return false;
  }
  return true;
}
