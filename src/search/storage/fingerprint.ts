/**
 * A catalog fingerprint for the index cache: a SHA-256 per doc over its indexed content, summed
 * word-wise across docs (a multiset hash), then hashed once more with the doc count. Summing
 * makes the order of docs irrelevant without sorting, and both levels are memoised:
 * - per docs array: a run that passes its catalog's array again pays nothing;
 * - per doc object: a fresh array of the same doc objects costs one addition per doc, where
 *   re-hashing costs a SHA-256 over every description.
 * Hence: treat a SearchDoc (and a docs array) as immutable once it has been passed in.
 */
import { createHash, hash } from "node:crypto";
import type { SearchDoc } from "../types.js";

const byArray = new WeakMap<readonly SearchDoc[], string>();
/** Each doc's SHA-256 as a 32-character binary (latin1) string: a typed array per doc cost four times the memory at 100k tools. */
const byDoc = new WeakMap<SearchDoc, string>();

/** Length-prefixed fields: no separator inside a field can make two docs hash alike. */
function canonical(doc: SearchDoc): string {
  let s = `${doc.id.length}:${doc.id}${doc.name.length}:${doc.name}${doc.source}|${doc.toolset.length}:${doc.toolset}`;
  s += `${doc.description.length}:${doc.description}${doc.params.length}|`;
  for (const p of doc.params) s += `${p.name.length}:${p.name}${p.description.length}:${p.description}`;
  return s;
}

function docDigest(doc: SearchDoc): string {
  let digest = byDoc.get(doc);
  if (digest === undefined) {
    // One-shot: no Hash object per doc (a third of a 100k-tool catalog's fingerprint).
    digest = hash("sha256", canonical(doc), "binary");
    byDoc.set(doc, digest);
  }
  return digest;
}

export function fingerprintDocs(docs: readonly SearchDoc[]): string {
  const known = byArray.get(docs);
  if (known !== undefined) return known;
  const sum = new Uint32Array(8);
  for (const doc of docs) {
    const d = docDigest(doc);
    // The digest's bytes as 8 little-endian words, added word-wise.
    for (let i = 0; i < 8; i++) {
      const at = 4 * i;
      const word = d.charCodeAt(at) | (d.charCodeAt(at + 1) << 8) | (d.charCodeAt(at + 2) << 16) | (d.charCodeAt(at + 3) << 24);
      sum[i] = (sum[i]! + (word >>> 0)) >>> 0;
    }
  }
  const fingerprint = createHash("sha256").update(sum).update(`|${docs.length}`).digest("hex");
  byArray.set(docs, fingerprint);
  return fingerprint;
}
