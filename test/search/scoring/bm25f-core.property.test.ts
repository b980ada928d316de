/**
 * The WebAssembly scoring core against its JS reference (test/support/js-kernels.ts: the loops
 * bm25f.ts ran in JS before), bit for bit: the same random catalogs (several add batches,
 * removals, a snapshot read back), the same requests (thesaurus and typo expansion on, random
 * BM25F parameters, limits, allowed sets, another index's statistics, clauses), and every hit's
 * id, order and score must be the same, scores compared with Object.is. Plus a catalog large
 * enough to grow and move the core's memory several times between queries, and the typed error
 * when the .wasm is missing or is not WebAssembly.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SearchEngineUnavailableError } from "../../../src/errors.js";
import { Bm25fIndex, DEFAULT_BM25F, fieldTerms, type Bm25fParams } from "../../../src/search/scoring/bm25f.js";
import { compileCore, coreModule, wasmApi } from "../../../src/search/scoring/bm25f-core.js";
import { makeExpander } from "../../../src/search/query/query-expansion.js";
import type { BackendHit, BackendSearchOptions } from "../../../src/search/types.js";
import { jsKernels } from "../../support/js-kernels.js";
import { definedProps } from "../../../src/defined.js";

/** Words with thesaurus neighbours among them (get/fetch, delete/remove, …), so expansion has variants to pick from. */
const WORDS = [
  "create",
  "make",
  "add",
  "delete",
  "remove",
  "get",
  "fetch",
  "retrieve",
  "list",
  "search",
  "find",
  "send",
  "email",
  "message",
  "mail",
  "weather",
  "forecast",
  "calendar",
  "event",
  "meeting",
  "file",
  "document",
  "read",
  "write",
  "update",
  "user",
  "account",
  "order",
  "ticket",
  "status",
  "price",
  "stock",
  "image",
  "photo",
  "translate",
  "text",
  "city",
  "temperature",
  "humidity",
  "building",
];
/** Misspellings and words no doc holds: typo correction and misses. */
const ODD = ["wether", "calender", "emial", "documnet", "xylophone", "zzz"];

const word = fc.constantFrom(...WORDS);
const docArb = fc.record({
  name: fc.array(word, { minLength: 1, maxLength: 3 }),
  toolset: fc.constantFrom("acme", "weather-co", "mail", "files"),
  description: fc.array(word, { maxLength: 14 }),
  params: fc.array(fc.record({ name: word, description: fc.array(word, { maxLength: 4 }) }), { maxLength: 3 }),
});
type DocSpec = typeof docArb extends fc.Arbitrary<infer T> ? T : never;
const requestArb = fc.array(fc.constantFrom(...WORDS, ...ODD), { minLength: 1, maxLength: 9 });
const paramsArb: fc.Arbitrary<Bm25fParams> = fc.oneof(
  fc.constant(DEFAULT_BM25F),
  fc.record({
    k1: fc.double({ min: 0.2, max: 3, noNaN: true }),
    fields: fc.array(fc.record({ weight: fc.double({ min: 0.1, max: 4, noNaN: true }), b: fc.double({ min: 0, max: 1, noNaN: true }) }), {
      minLength: 4,
      maxLength: 4,
    }),
    coord: fc.constantFrom(0, 0.5, 1),
    namePrecision: fc.constantFrom(0, 0.1),
    vocabulary: fc.boolean(),
  }),
);

function entry(spec: DocSpec, i: number) {
  const doc = {
    id: `t${i}`,
    name: spec.name.join("_"),
    toolset: spec.toolset,
    description: spec.description.join(" "),
    params: spec.params.map((p) => ({ name: p.name, description: p.description.join(" ") })),
  };
  return { id: doc.id, fields: fieldTerms(doc) };
}

/** Both indexes, built the same way: batches, then removals, then (maybe) a snapshot read back. */
function pair(docs: readonly DocSpec[], batches: number, removed: readonly number[], snapshot: boolean, params: Bm25fParams): [Bm25fIndex, Bm25fIndex] {
  const expander = makeExpander();
  const build = (kernels?: typeof jsKernels): Bm25fIndex => {
    const index = new Bm25fIndex(params, expander, kernels);
    const size = Math.max(1, Math.ceil(docs.length / batches));
    for (let i = 0; i < docs.length; i += size) index.add(docs.slice(i, i + size).map((d, j) => entry(d, i + j)));
    index.remove(removed.map((i) => `t${i}`));
    return snapshot ? Bm25fIndex.fromSnapshot(index.toSnapshot(), params, expander, kernels) : index;
  };
  return [build(), build(jsKernels)];
}

/** Same ids, same order, scores equal as bits. */
function same(actual: readonly BackendHit[], expected: readonly BackendHit[]): void {
  expect(actual.map((h) => h.id)).toEqual(expected.map((h) => h.id));
  // Object.is: equal as bits, -0 and NaN included.
  const differing = actual.filter((hit, i) => !Object.is(hit.score, expected[i]!.score)).map((hit) => `${hit.id}: ${hit.score} (WebAssembly)`);
  expect(differing, `JS scores: ${expected.map((h) => h.score).join(", ")}`).toEqual([]);
}

describe("the WebAssembly scoring core (property)", () => {
  it("scores every request bit for bit as the JS reference does", () => {
    fc.assert(
      fc.property(
        fc.array(docArb, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 4 }),
        fc.uniqueArray(fc.nat({ max: 59 }), { maxLength: 8 }),
        fc.boolean(),
        paramsArb,
        fc.array(fc.record({ words: requestArb, clauses: fc.integer({ min: 1, max: 3 }), limit: fc.integer({ min: 1, max: 70 }), filter: fc.boolean() }), {
          minLength: 1,
          maxLength: 6,
        }),
        (docs, batches, removed, snapshot, params, requests) => {
          const [wasm, js] = pair(docs, batches, removed, snapshot, params);
          // Another index's statistics (a run's client tools scored as part of the catalog).
          const [catalog] = pair(docs.slice(0, Math.ceil(docs.length / 2)), 1, [], false, params);
          for (const { words, clauses, limit, filter } of requests) {
            const allowed = filter ? new Set(docs.map((_, i) => `t${i}`).filter((_, i) => i % 3 !== 0)) : undefined;
            const options: BackendSearchOptions = { limit, ...definedProps({ allowed }) };
            const text = words.join(" ");
            same(wasm.search(text, options), js.search(text, options));
            same(wasm.search(text, { ...options, stats: catalog }), js.search(text, { ...options, stats: catalog }));
            const size = Math.ceil(words.length / clauses);
            const parts = Array.from({ length: clauses }, (_, c) => words.slice(c * size, (c + 1) * size).join(" "));
            const [w, j] = [wasm.searchClauses(parts, options), js.searchClauses(parts, options)];
            expect(w.length).toBe(j.length);
            w.forEach((hits, c) => same(hits, j[c]!));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("stays identical while a large catalog grows and moves the core's memory between queries", () => {
    const random = fc.sample(fc.array(docArb, { minLength: 4000, maxLength: 4000 }), { numRuns: 1, seed: 23 })[0]!;
    const requests = fc.sample(requestArb, { numRuns: 40, seed: 7 }).map((w) => w.join(" "));
    const expander = makeExpander();
    const [wasm, js] = [new Bm25fIndex(DEFAULT_BM25F, expander), new Bm25fIndex(DEFAULT_BM25F, expander, jsKernels)];
    // Growing slices: the scratch arrays, the lengths and the postings each outgrow their room several times.
    for (let from = 0, size = 10; from < random.length; from += size, size *= 2) {
      const batch = random.slice(from, from + size).map((d, j) => entry(d, from + j));
      wasm.add(batch);
      js.add(batch);
      for (const text of requests) same(wasm.search(text, { limit: 20 }), js.search(text, { limit: 20 }));
    }
    const removed = random.map((_, i) => `t${i}`).filter((_, i) => i % 7 === 0);
    wasm.remove(removed);
    js.remove(removed);
    const restored = Bm25fIndex.fromSnapshot(wasm.toSnapshot(), DEFAULT_BM25F, expander);
    const reference = Bm25fIndex.fromSnapshot(js.toSnapshot(), DEFAULT_BM25F, expander, jsKernels);
    for (const text of requests) {
      same(wasm.search(text, { limit: 50 }), js.search(text, { limit: 50 }));
      same(restored.search(text, { limit: 50 }), reference.search(text, { limit: 50 }));
    }
  });

  it("is the default: an index scores through the built .wasm", () => {
    expect(coreModule()).toBeInstanceOf(wasmApi.Module);
  });

  it("fails loudly with SEARCH_ENGINE_UNAVAILABLE when the .wasm is missing or is not WebAssembly", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "bm25f-core-"));
    const garbage = path.join(dir, "bm25f-core.wasm");
    writeFileSync(garbage, "not wasm");
    for (const files of [[path.join(dir, "missing.wasm")], [garbage]]) {
      let thrown: unknown;
      try {
        compileCore(files);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(SearchEngineUnavailableError);
      expect((thrown as SearchEngineUnavailableError).code).toBe("SEARCH_ENGINE_UNAVAILABLE");
    }
  });
});
