/**
 * The checks a snapshot from disk passes (bm25f-verify.ts, minisearch-verify.ts, the FTS5
 * schema guard) never refuse an honest one: any catalog, built and serialised by a backend,
 * loads with every posting checked, and answers as the built index does; and the same snapshot
 * offered for another catalog (one doc changed) is refused.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bm25fBackend } from "../../../src/search/backends/bm25f-backend.js";
import { minisearchBackend } from "../../../src/search/backends/minisearch-backend.js";
import type { SearchBackendFactory, SearchDoc } from "../../../src/search/types.js";
import { CATALOG } from "../../contract/backend-contract.js";

const WORDS = ["read", "file", "files", "Reading", "send", "email", "東京", "naïve", "getHTTPResponse", "a", "the", "x_y_z", "v2", "2024-01-01", "", " "];
const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 12 }).map((w) => w.join(" "));
/** A word repeated past the 127 a packed frequency holds. */
const repeated = fc.integer({ min: 0, max: 300 }).map((n) => "file ".repeat(n));
const catalog = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom("read_file", "sendEmail", "get-weather", "x", "東京_tool", "HTTPGet"),
      toolset: fc.constantFrom("core", "github", "Café Owner", ""),
      description: fc.oneof(text, repeated),
      params: fc.array(fc.record({ name: fc.constantFrom("path", "to", "cityName", ""), description: text }), { maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 25, selector: (d) => `${d.toolset}:${d.name}:${d.description.length}` },
  )
  .map((docs) => docs.map((d, i): SearchDoc => ({ ...d, id: `plugin:${d.toolset || "o"}:${d.name}_${i}`, source: "plugin" })));

describe.each([
  ["bm25f", bm25fBackend],
  ["minisearch", minisearchBackend],
] as Array<[string, SearchBackendFactory]>)("%s snapshots", (_name, factory) => {
  async function snapshotOf(docs: readonly SearchDoc[]): Promise<Uint8Array> {
    const backend = await factory.create();
    backend.add(docs);
    const bytes = await backend.serialize!();
    backend.close?.();
    return bytes;
  }

  it("an honest snapshot of any catalog passes every check and answers as the build does", async () => {
    await fc.assert(
      fc.asyncProperty(catalog, async (docs) => {
        const built = await factory.create();
        built.add(docs);
        const loaded = await factory.load!(await built.serialize!(), { docs, postings: true });
        for (const q of ["read a file", "send email 東京", "file"]) expect(loaded.search(q, { limit: 5 })).toEqual(built.search(q, { limit: 5 }));
        built.close?.();
        loaded.close?.();
      }),
      { numRuns: 25 },
    );
  });

  it("the whole contract catalog too, and a snapshot offered for a changed catalog is refused", async () => {
    const bytes = await snapshotOf(CATALOG);
    (await factory.load!(bytes, { docs: CATALOG })).close?.();
    const changed = CATALOG.map((d, i) => (i === 4 ? { ...d, description: `${d.description} and delete it` } : d));
    await expect(factory.load!(bytes, { docs: changed })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringMatching(/core:read_file|doc 4/),
    });
    // Bounds only (an authenticated snapshot): a changed description is not seen, a missing doc is.
    (await factory.load!(bytes, { docs: changed, postings: false })).close?.();
    await expect(factory.load!(bytes, { docs: CATALOG.slice(1), postings: false })).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });
});
