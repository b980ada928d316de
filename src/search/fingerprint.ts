/**
 * A catalog fingerprint for the index cache: a SHA-256 per doc over its indexed content, summed
 * word-wise across docs (a multiset hash), then hashed once more with the doc count. Summing
 * makes the order of docs irrelevant without sorting, and both levels are memoised:
 * - per docs array: a run that passes its catalog's array again pays nothing;
 * - per doc object: a fresh array of the same doc objects costs one addition per doc, where
 *   re-hashing costs a SHA-256 over every description.
 * Hence: treat a SearchDoc (and a docs array) as immutable once it has been passed in.
 */
import { createHash } from "node:crypto";
import type { SearchDoc } from "./types.js";

const byArray = new WeakMap<readonly SearchDoc[], string>();
const byDoc = new WeakMap<SearchDoc, Uint32Array>();

/** Length-prefixed fields: no separator inside a field can make two docs hash alike. */
function canonical(doc: SearchDoc): string {
  let s = `${doc.id.length}:${doc.id}${doc.name.length}:${doc.name}${doc.source}|${doc.toolset.length}:${doc.toolset}`;
  s += `${doc.description.length}:${doc.description}${doc.params.length}|`;
  for (const p of doc.params) s += `${p.name.length}:${p.name}${p.description.length}:${p.description}`;
  return s;
}

function docDigest(doc: SearchDoc): Uint32Array {
  let digest = byDoc.get(doc);
  if (digest === undefined) {
    const bytes = createHash("sha256").update(canonical(doc)).digest();
    digest = new Uint32Array(8);
    for (let i = 0; i < 8; i++) digest[i] = bytes.readUInt32LE(i * 4);
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
    for (let i = 0; i < 8; i++) sum[i] = (sum[i]! + d[i]!) >>> 0;
  }
  const fingerprint = createHash("sha256").update(sum).update(`|${docs.length}`).digest("hex");
  byArray.set(docs, fingerprint);
  return fingerprint;
}
