/**
 * Checks a BM25F snapshot (bm25f.ts Bm25fSnapshot) read from disk against the catalog it
 * claims to index, before Bm25fIndex.fromSnapshot trusts it. Two levels:
 * - bounds (always, linear in the snapshot): the ids are exactly the catalog's, each once; every
 *   row offset is in range and even, every row non-empty with docs ascending and in range, every
 *   packed frequency within the 4 fields' 28 bits and no field's frequency over that field's
 *   length; terms unique. A snapshot that passes cannot make a query read outside its arrays or
 *   loop past its postings, whatever else it holds.
 * - postings (unless the snapshot is authenticated): every doc's pairs and field lengths are
 *   exactly what the analyzer makes of that doc, so a snapshot with two ids' postings swapped,
 *   a term added or dropped, or a frequency changed is refused. This costs one analysis of the
 *   catalog (no SQLite inserts, no posting build): about a tenth of a fresh build.
 * Each throws an Error saying what is wrong; the caller rejects the snapshot.
 */
import { FIELD_NAMES, fieldTerms, packTermFrequencies, TF_BITS, TF_MAX, type Bm25fSnapshot } from "./bm25f.js";
import type { SearchDoc } from "../types.js";
import { ConfigInvalidError } from "../../errors.js";

const FIELDS = FIELD_NAMES.length;
/** Packed frequencies use 7 bits per field: nothing above bit 28. */
const TFS_LIMIT = 2 ** (TF_BITS * FIELDS);

/** Docs analysed between two yields of the postings check: as many as a build slice (tool-index.ts BUILD_SLICE). */
const CHECK_SLICE = 200;

interface Layout {
  ids: string[];
  terms: string[];
  lengths: Int32Array;
  start: Int32Array;
  data: Int32Array;
}

/** The bounds: throws unless the snapshot is safe to search and names exactly these docs. */
export function checkBm25fBounds(snapshot: Bm25fSnapshot, docs: readonly SearchDoc[]): void {
  layout(snapshot, docs);
}

/**
 * The bounds, then every doc's postings against its analysis: throws (rejects) unless the
 * snapshot is what a build of these docs makes. The event loop is given back between slices of
 * docs, as a build on the calling thread does.
 */
export async function checkBm25fPostings(snapshot: Bm25fSnapshot, docs: readonly SearchDoc[]): Promise<void> {
  await verifyPostings(layout(snapshot, docs), docs);
}

function layout(snapshot: Bm25fSnapshot, docs: readonly SearchDoc[]): Layout {
  const ids = parseIds(snapshot.ids, docs);
  const n = ids.length;
  const lengths = int32s(snapshot.lengths, "lengths");
  if (lengths.length !== n * FIELDS) fail(`${lengths.length} field lengths for ${n} docs`);
  for (const len of lengths) if (len < 0) fail("a negative field length");
  const terms = snapshot.terms === "" ? [] : snapshot.terms.split("\n");
  if (new Set(terms).size !== terms.length) fail("a term listed twice");
  const start = int32s(snapshot.start, "row offsets");
  const data = int32s(snapshot.data, "postings");
  if (start.length !== terms.length + 1 || start[0] !== 0 || start[terms.length] !== data.length) fail("row offsets that do not span the postings");
  for (let row = 0; row < terms.length; row++) {
    const from = start[row]!;
    const to = start[row + 1]!;
    if (terms[row] === "" || to <= from || (to - from) % 2 !== 0) fail(`row ${row}: empty, odd or out of order`);
    let previous = -1;
    for (let i = from; i < to; i += 2) {
      const doc = data[i]!;
      const tfs = data[i + 1]!;
      if (doc <= previous || doc >= n) fail(`row ${row}: doc ${doc} out of order or range`);
      previous = doc;
      if (tfs <= 0 || tfs >= TFS_LIMIT) fail(`row ${row}: frequencies ${tfs} out of range`);
      for (let f = 0, packed = tfs; f < FIELDS; f++, packed >>>= TF_BITS) {
        if ((packed & TF_MAX) > lengths[doc * FIELDS + f]!) fail(`row ${row}: a frequency over doc ${doc}'s field length`);
      }
    }
  }
  return { ids, terms, lengths, start, data };
}

/** The ids must be exactly the catalog's, each once (their order is the snapshot's doc numbering). */
function parseIds(text: string, docs: readonly SearchDoc[]): string[] {
  let ids: unknown;
  try {
    ids = JSON.parse(text);
  } catch {
    fail("unreadable ids");
  }
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) fail("ids are not a list of strings");
  const list = ids as string[];
  if (list.length !== docs.length) fail(`${list.length} ids for a catalog of ${docs.length}`);
  const catalog = new Set(docs.map((d) => d.id));
  const seen = new Set<string>();
  for (const id of list) {
    if (!catalog.has(id)) fail(`an id that is not in the catalog`);
    if (seen.has(id)) fail(`an id listed twice`);
    seen.add(id);
  }
  return list;
}

/**
 * Each doc's pairs, turned around (doc → its rows) in one pass, against the analyzer's output
 * for that doc: same field lengths, same number of distinct terms, and each pair's term with
 * the same packed frequencies. Rows are unique terms and a doc appears once per row, so equal
 * counts and every pair found means equal sets.
 */
async function verifyPostings({ ids, terms, lengths, start, data }: Layout, docs: readonly SearchDoc[]): Promise<void> {
  const n = ids.length;
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < data.length; i += 2) offsets[data[i]! + 1]!++;
  for (let doc = 0; doc < n; doc++) offsets[doc + 1]! += offsets[doc]!;
  const fill = offsets.slice(0, n);
  const rowOf = new Int32Array(data.length / 2);
  const tfsOf = new Int32Array(data.length / 2);
  for (let row = 0; row < terms.length; row++) {
    for (let i = start[row]!, end = start[row + 1]!; i < end; i += 2) {
      const at = fill[data[i]!]!++;
      rowOf[at] = row;
      tfsOf[at] = data[i + 1]!;
    }
  }
  const numberOf = new Map<string, number>();
  ids.forEach((id, doc) => numberOf.set(id, doc));
  for (const [i, source] of docs.entries()) {
    if (i > 0 && i % CHECK_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    const doc = numberOf.get(source.id);
    if (doc === undefined) fail(`${quote(source.id)}: not in the snapshot's ids`);
    const fields = fieldTerms(source);
    for (let f = 0; f < FIELDS; f++) {
      if (lengths[doc * FIELDS + f] !== fields[f]!.length) fail(`${quote(source.id)}: field ${FIELD_NAMES[f]} has another length than its analysis`);
    }
    const packed = packTermFrequencies(fields);
    const from = offsets[doc]!;
    const to = offsets[doc + 1]!;
    if (to - from !== packed.size) fail(`${quote(source.id)}: ${to - from} terms where its analysis has ${packed.size}`);
    for (let k = from; k < to; k++) {
      if (packed.get(terms[rowOf[k]!]!) !== tfsOf[k]) fail(`${quote(source.id)}: postings that are not its own`);
    }
  }
}

/** A copy, so that the Int32 view is aligned whatever buffer the bytes came in. */
function int32s(raw: Uint8Array, what: string): Int32Array {
  if (raw.byteLength % 4 !== 0) fail(`${what}: not whole 32-bit numbers`);
  const out = new Int32Array(raw.byteLength / 4);
  new Uint8Array(out.buffer).set(raw);
  return out;
}

/** Ids in messages are the catalog's (checked above), clipped: a message stays one short line. */
function quote(id: string): string {
  return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
}

function fail(why: string): never {
  // A bad snapshot on disk: the loader reports it as CONFIG_INVALID (rebuild the index) either way.
  throw new ConfigInvalidError(`bm25f postings: ${why}`);
}
