/**
 * The fallback backend: minisearch (pure JS, no WASM), over the shared analysed fields, each
 * boosted by FIELD_WEIGHTS, and matching long terms fuzzily (one typo).
 */
import type MiniSearch from "minisearch";
import type { Options, Query, SearchOptions } from "minisearch";
import { lazyRequire } from "../../lazy-require.js";
import { ConfigInvalidError } from "../../errors.js";
import { analyzeDoc, analyzeQuery } from "../analysis/analyze.js";
import type { BackendHit, BackendSearchOptions, SearchBackend, SearchBackendFactory, SearchDoc, SnapshotExpectation } from "../types.js";
import { IndexedBackend, loadedSnapshot } from "./indexed-backend.js";

interface IndexedFields {
  id: string;
  name: string;
  ident: string;
  descr: string;
  params: string;
  syn: string;
}

const FIELDS = ["name", "ident", "descr", "params", "syn"] as const;

/**
 * Boost per field: a word in the name says most about what a tool does, its id/toolset (server,
 * plugin) next, then the description; parameter names and descriptions describe the inputs
 * rather than the tool, so they count least. Tuned on Seal-Tools dev; the optimum is flat (name
 * 6–15, params 0.5–2 move Recall@5 by < 0.01). The bm25() baseline of the benches weighs its
 * FTS5 columns by the same table.
 */
export const FIELD_WEIGHTS: Readonly<Record<(typeof FIELDS)[number], number>> = {
  name: 10,
  ident: 4,
  descr: 3,
  params: 1,
  /** Synonym-group keys of name and id words: a synonym counts, but less than the word typed. */
  syn: 3,
};
const BOOST: Record<(typeof FIELDS)[number], number> = { ...FIELD_WEIGHTS };
const SNAPSHOT_FORMAT = "toolsearch-minisearch@1";
/** minisearch itself loads when this backend is first used, not with the package. */
const miniSearch = lazyRequire<typeof MiniSearch>("minisearch");

// Fields hold terms the shared analyzer already produced: minisearch must not re-tokenize them.
const OPTIONS: Options<IndexedFields> = {
  fields: [...FIELDS],
  idField: "id",
  tokenize: (text) => (text === "" ? [] : text.split(" ")),
  processTerm: (term) => term,
  searchOptions: { tokenize: (text) => [text], processTerm: (term) => term },
};

/** One typo for words of 6–24 letters; longer "words" are identifiers or junk, and fuzzy-matching them is slow. */
const FUZZY: NonNullable<SearchOptions["fuzzy"]> = (term) => (term.length >= 6 && term.length <= 24 ? 1 : false);

/** What add() indexes for a doc: the analysed fields as space-separated terms. */
function indexedFields(doc: SearchDoc): IndexedFields {
  const a = analyzeDoc(doc);
  return {
    id: doc.id,
    name: a.name.join(" "),
    ident: a.ident.join(" "),
    descr: a.description.join(" "),
    params: a.params.join(" "),
    syn: a.synonyms.join(" "),
  };
}

class MiniSearchBackend extends IndexedBackend<MiniSearch<IndexedFields>> implements SearchBackend {
  readonly kind = "minisearch";

  get size(): number {
    return this.open().documentCount;
  }

  /** A doc whose id is already indexed replaces it. */
  add(docs: readonly SearchDoc[]): void {
    const index = this.open();
    for (const doc of docs) {
      if (index.has(doc.id)) index.discard(doc.id);
      index.add(indexedFields(doc));
    }
  }

  remove(ids: readonly string[]): void {
    const index = this.open();
    for (const id of ids) if (index.has(id)) index.discard(id);
  }

  search(query: string, options: BackendSearchOptions): BackendHit[] {
    const index = this.open();
    const limit = Math.floor(options.limit);
    if (!(limit > 0) || index.documentCount === 0) return [];
    const terms = analyzeQuery(query);
    if (terms.length === 0) return [];
    // Synonym keys are matched exactly (never fuzzily) and only exist in the syn field.
    const keys = [...new Set(terms.flatMap((t) => t.synonymKeys))];
    const tree: Query = {
      combineWith: "OR",
      queries: [...terms.map((t) => t.term), ...(keys.length === 0 ? [] : [{ combineWith: "OR" as const, queries: keys, fuzzy: false }])],
    };
    const allowed = options.allowed;
    // minisearch scores every match before sorting, so filtering here never loses hits to truncation.
    const results = index.search(tree, {
      boost: BOOST,
      fuzzy: FUZZY,
      ...(allowed === undefined ? {} : { filter: (r) => allowed.has(String(r.id)) }),
    });
    return results.slice(0, limit).map((r) => ({ id: String(r.id), score: r.score }));
  }

  serialize(): Uint8Array {
    const json = JSON.stringify({ format: SNAPSHOT_FORMAT, index: this.open() });
    return new TextEncoder().encode(json);
  }
}

const fieldTexts = (doc: SearchDoc): string[] => {
  const fields = indexedFields(doc);
  return FIELDS.map((f) => fields[f]);
};

/** `expect`: a snapshot from disk, checked against these docs first (minisearch-verify.ts). */
function load(snapshot: Uint8Array, expect?: SnapshotExpectation): Promise<MiniSearchBackend> {
  return loadedSnapshot("minisearch", async () => {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(snapshot);
    const parsed = JSON.parse(text) as { format?: unknown; index?: unknown };
    if (parsed.format !== SNAPSHOT_FORMAT || typeof parsed.index !== "object" || parsed.index === null) {
      throw new ConfigInvalidError(`not a ${SNAPSHOT_FORMAT} snapshot`);
    }
    const index =
      expect === undefined
        ? parsed.index
        : await (
            await import("./minisearch-verify.js")
          ).verifyMiniSearchJson(parsed.index, { docs: expect.docs, postings: expect.postings !== false, fields: FIELDS, fieldTexts });
    // loadJSON takes the index's JSON text; re-stringifying the inner object costs a little
    // at load and keeps the snapshot one self-describing JSON document.
    return new MiniSearchBackend(miniSearch().loadJSON<IndexedFields>(JSON.stringify(index), OPTIONS));
  });
}

/** The pure-JS fallback backend (minisearch). */
export const minisearchBackend: SearchBackendFactory = {
  kind: "minisearch",
  create: () => Promise.resolve(new MiniSearchBackend(new (miniSearch())(OPTIONS))),
  load,
  worker: "minisearch",
};
