/**
 * Checks a minisearch snapshot (MiniSearch's toJSON, serialization version 2) read from disk
 * against the catalog it claims to index, before MiniSearch.loadJSON trusts it: the same two
 * levels as bm25f-verify.ts.
 * - shape and bounds (always): docs numbered 0..n-1 with exactly the catalog's ids, the engine's
 *   own fields, each doc's field lengths, every posting naming a known field and doc with a
 *   positive count, terms unique, nothing stored. The average field lengths are recomputed from
 *   the lengths (as MiniSearch's add computes them), never taken from the file.
 * - postings (unless authenticated): every doc's (term, field, count) triples and field lengths
 *   are exactly what its analysed fields make.
 * Resolves to the index object to load; rejects with an Error saying what is wrong. The event
 * loop is given back between slices of docs.
 */
import type { SearchDoc } from "../types.js";
import { ConfigInvalidError } from "../../errors.js";

export interface MiniSearchCheck {
  docs: readonly SearchDoc[];
  postings: boolean;
  /** The engine's field names, in field-id order. */
  fields: readonly string[];
  /** A doc's indexed field texts (space-separated terms), in field order: what add() indexes. */
  fieldTexts: (doc: SearchDoc) => readonly string[];
}

type Postings = Record<string, Record<string, number>>;

/** Docs checked between two yields of the postings check (as a build slice). */
const CHECK_SLICE = 200;

export async function verifyMiniSearchJson(value: unknown, check: MiniSearchCheck): Promise<Record<string, unknown>> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail("not an object");
  const js = value as Record<string, unknown>;
  const n = check.docs.length;
  const F = check.fields.length;
  if (js.serializationVersion !== 2) fail("another serialization version");
  if (js.documentCount !== n || js.nextId !== n || js.dirtCount !== 0) fail(`counts that are not those of ${n} docs added once`);
  if (JSON.stringify(js.fieldIds) !== JSON.stringify(Object.fromEntries(check.fields.map((f, i) => [f, i])))) fail("other fields");
  if (!isPlainObject(js.storedFields) || Object.keys(js.storedFields).length !== 0) fail("stored fields");
  const ids = js.documentIds;
  const lengths = js.fieldLength;
  if (!isPlainObject(ids) || !isPlainObject(lengths)) fail("no doc table");
  const catalog = new Set(check.docs.map((d) => d.id));
  const shortIdOf = new Map<string, number>();
  const lengthOf = new Int32Array(n * F);
  for (let doc = 0; doc < n; doc++) {
    const id = ids[String(doc)];
    if (typeof id !== "string" || !catalog.has(id) || shortIdOf.has(id)) fail(`doc ${doc}: an id not in the catalog, or twice`);
    shortIdOf.set(id, doc);
    const own = lengths[String(doc)];
    if (!Array.isArray(own) || own.length !== F || !own.every(isCount)) fail(`doc ${doc}: malformed field lengths`);
    own.forEach((len, f) => (lengthOf[doc * F + f] = len as number));
  }
  if (Object.keys(ids).length !== n || Object.keys(lengths).length !== n) fail("docs beyond the catalog");
  js.averageFieldLength = averages(lengthOf, n, F);
  const index = js.index;
  if (!Array.isArray(index)) fail("no postings");
  const terms = new Set<string>();
  let triples = 0;
  for (const entry of index as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== "string" || entry[0] === "" || !isPlainObject(entry[1])) fail("a malformed posting");
    if (terms.has(entry[0])) fail("a term listed twice");
    terms.add(entry[0]);
    for (const [field, docs] of Object.entries(entry[1] as Postings)) {
      const f = Number(field);
      if (!(String(f) === field && f >= 0 && f < F) || !isPlainObject(docs)) fail("a posting of an unknown field");
      for (const [doc, tf] of Object.entries(docs)) {
        const d = Number(doc);
        if (!(String(d) === doc && d >= 0 && d < n) || !isCount(tf) || tf === 0) fail("a posting of an unknown doc, or a count out of range");
        triples++;
      }
    }
  }
  if (check.postings) await verifyPostings(index as Array<[string, Postings]>, triples, shortIdOf, lengthOf, check);
  return js;
}

/** As MiniSearch.add updates them, doc by doc in id order: bit for bit what a build holds. */
function averages(lengths: Int32Array, n: number, F: number): number[] {
  const avg = new Array<number>(F).fill(0);
  for (let doc = 0; doc < n; doc++) for (let f = 0; f < F; f++) avg[f] = (avg[f]! * doc + lengths[doc * F + f]!) / (doc + 1);
  return avg;
}

/** Per doc: its triples against its analysed fields (unique terms per field, count per term). */
async function verifyPostings(
  index: ReadonlyArray<[string, Postings]>,
  triples: number,
  shortIdOf: ReadonlyMap<string, number>,
  lengthOf: Int32Array,
  check: MiniSearchCheck,
): Promise<void> {
  const n = check.docs.length;
  const F = check.fields.length;
  const offsets = new Int32Array(n + 1);
  for (const [, byField] of index) for (const docs of Object.values(byField)) for (const doc of Object.keys(docs)) offsets[Number(doc) + 1]!++;
  for (let doc = 0; doc < n; doc++) offsets[doc + 1]! += offsets[doc]!;
  const fill = offsets.slice(0, n);
  const keyOf = new Array<string>(triples);
  const tfOf = new Int32Array(triples);
  for (const [term, byField] of index) {
    for (const [field, docs] of Object.entries(byField)) {
      for (const [doc, tf] of Object.entries(docs)) {
        const at = fill[Number(doc)]!++;
        keyOf[at] = `${field} ${term}`;
        tfOf[at] = tf;
      }
    }
  }
  for (const [i, source] of check.docs.entries()) {
    if (i > 0 && i % CHECK_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    const doc = shortIdOf.get(source.id)!;
    const expected = new Map<string, number>();
    check.fieldTexts(source).forEach((text, f) => {
      const tokens = text === "" ? [] : text.split(" ");
      if (lengthOf[doc * F + f] !== new Set(tokens).size) fail(`doc ${doc}: field ${check.fields[f]} has another length than its analysis`);
      for (const term of tokens) {
        if (term === "") continue;
        const key = `${f} ${term}`;
        expected.set(key, (expected.get(key) ?? 0) + 1);
      }
    });
    if (offsets[doc + 1]! - offsets[doc]! !== expected.size) fail(`doc ${doc}: another number of terms than its analysis`);
    for (let k = offsets[doc]!; k < offsets[doc + 1]!; k++) if (expected.get(keyOf[k]!) !== tfOf[k]) fail(`doc ${doc}: postings that are not its own`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function fail(why: string): never {
  // A bad snapshot on disk: the loader reports it as CONFIG_INVALID (rebuild the index) either way.
  throw new ConfigInvalidError(`minisearch snapshot: ${why}`);
}
