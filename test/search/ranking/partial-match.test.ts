/**
 * Never empty (issue 22 item 2): a request with content words over a non-empty allowed catalog
 * gets hits; when no tool holds any of its words, the best partial matches, marked weak; the
 * allowed set still filters them; a request of stopwords only still gets [].
 */
import { describe, expect, it } from "vitest";
import { memoryBm25fBackend } from "../../../src/search/backends/memory-bm25f-backend.js";
import { bm25fBackend } from "../../../src/search/backends/bm25f-backend.js";
import { minisearchBackend } from "../../../src/search/backends/minisearch-backend.js";
import { ToolIndex } from "../../../src/search/tool-index.js";
import { mcpDoc } from "../../support/search-docs.js";

const doc = mcpDoc;

/** The shape of the memory server's tools (a knowledge graph of entities, relations, observations). */
const memory = [
  doc("memory", "create_entities", "Create multiple new entities in the knowledge graph", ["entities"]),
  doc("memory", "create_relations", "Create multiple new relations between entities in the knowledge graph. Relations should be in active voice", [
    "relations",
  ]),
  doc("memory", "add_observations", "Add new observations to existing entities in the knowledge graph", ["observations"]),
  doc("memory", "delete_entities", "Delete multiple entities and their associated relations from the knowledge graph", ["entityNames"]),
  doc("memory", "read_graph", "Read the entire knowledge graph"),
  doc("memory", "search_nodes", "Search for nodes in the knowledge graph based on a query", ["query"]),
];
const weather = [doc("weather", "get_forecast", "Weather forecast for a city", ["city"])];

describe("never empty", () => {
  // bm25f and bm25f-memory read their own postings; minisearch has none, so a vocabulary is built from the docs.
  for (const factory of [bm25fBackend, memoryBm25fBackend, minisearchBackend]) {
    it(`${factory.kind}: a request no tool matches gets weak partial matches, prefix matches first`, async () => {
      const index = await ToolIndex.build(() => factory.create(), [...weather, ...memory]);
      try {
        // No tool holds "know" or "alice"; "know" begins "knowledge".
        const hits = index.search("what do you know about Alice", { limit: 5 });
        expect(hits.length).toBe(5);
        expect(hits.every((h) => h.weak === true)).toBe(true);
        expect(hits.every((h) => h.id.startsWith("mcp:memory:"))).toBe(true);
        // Nothing shares even a prefix: the allowed tools in catalog order, weak.
        const none = index.search("forget everything about Bob", { limit: 3 });
        expect(none.map((h) => h.id)).toEqual(["mcp:weather:get_forecast", "mcp:memory:create_entities", "mcp:memory:create_relations"]);
        expect(none.every((h) => h.weak === true)).toBe(true);
        // A request that matches is not marked, and is ranked as always.
        const real = index.search("weather forecast in Oslo", { limit: 3 });
        expect(real[0]).toEqual({ id: "mcp:weather:get_forecast", score: expect.any(Number) });
        expect(real.some((h) => h.weak)).toBe(false);
      } finally {
        index.close();
      }
    });
  }

  it("only returns allowed tools, and nothing for an empty allowed set or a request of stopwords", async () => {
    const index = await ToolIndex.build(() => bm25fBackend.create(), [...weather, ...memory]);
    try {
      const allowed = new Set(["mcp:memory:read_graph", "mcp:weather:get_forecast"]);
      const hits = index.search("what do you know about Alice", { limit: 10, allowed });
      // read_graph shares the "know…" prefix; get_forecast is the only other allowed tool.
      expect(hits.map((h) => h.id)).toEqual(["mcp:memory:read_graph", "mcp:weather:get_forecast"]);
      expect(index.search("forget everything about Bob", { limit: 10, allowed: new Set() })).toEqual([]);
      expect(index.search("what is the", { limit: 10 })).toEqual([]);
      expect(index.search("?!", { limit: 10 })).toEqual([]);
      // select: stays exact.
      expect(index.search("select:nothing_here", { limit: 10 })).toEqual([]);
      // A caller that falls back itself asks for no weak hits.
      expect(index.search("forget everything about Bob", { limit: 10, weak: false })).toEqual([]);
    } finally {
      index.close();
    }
  });

  it("gives the same first hits whatever the limit", async () => {
    const index = await ToolIndex.build(() => bm25fBackend.create(), [...weather, ...memory]);
    try {
      for (const q of ["what do you know about Alice", "forget everything about Bob", "link Alice to Acme as employee"]) {
        const all = index.search(q, { limit: 20 }).map((h) => h.id);
        for (let k = 1; k <= all.length; k++) expect(index.search(q, { limit: k }).map((h) => h.id)).toEqual(all.slice(0, k));
      }
    } finally {
      index.close();
    }
  });
});
