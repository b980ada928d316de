/**
 * Expansions stay in their field (issue 35): a thesaurus word, a typo's correction and a word
 * only a vocabulary rewrite made score in a tool's name and description, never in its
 * parameters (names and text) nor its toolset's name; the word as typed scores everywhere.
 * "list everything in the knowledge graph" once ranked the memory server's `delete_relations`
 * first: "list" expanded to "array", which its parameter's text says. Over a real catalog too
 * (LiveMCPBench's 527 MCP tools and their real schemas, when the shared data is there): no
 * expanded word of any hit of its 80 written requests scores in parameters or toolset.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadLiveMcpQueries, loadLiveMcpTools, sharedDataDir } from "../../../bench/lib/shared-data.js";
import { Bm25fIndex, DEFAULT_BM25F, fieldTerms } from "../../../src/search/scoring/bm25f.js";
import type { ScoreDetail, SearchDoc } from "../../../src/search/types.js";
import { mcpDoc } from "../../support/search-docs.js";

function index(docs: readonly SearchDoc[], params = DEFAULT_BM25F): Bm25fIndex {
  const out = new Bm25fIndex(params);
  out.add(docs.map((doc) => ({ id: doc.id, fields: fieldTerms(doc) })));
  return out;
}

const MEMORY = [
  {
    ...mcpDoc("memory", "delete_relations", "Delete multiple relations from the knowledge graph"),
    params: [{ name: "relations", description: "An array of relations to delete" }],
  },
  mcpDoc("memory", "read_graph", "Read the entire knowledge graph"),
  mcpDoc("memory", "search_nodes", "Search for nodes in the knowledge graph based on a query", ["query"]),
];
/** Filler so that IDF looks like a catalog's. */
const FILLER = Array.from({ length: 20 }, (_, i) => mcpDoc("misc", `tool_${i}`, `lorem ipsum ${i}`));

describe("expansions in the name and description only", () => {
  it("a thesaurus word does not score in a parameter's text: 'list' → 'array' no longer finds delete_relations", () => {
    const scorer = index([...MEMORY, ...FILLER]);
    expect(scorer.search("list", { limit: 5 }).map((h) => h.id)).not.toContain("mcp:memory:delete_relations");
    // The word typed still scores in parameters.
    expect(scorer.search("array", { limit: 5 }).map((h) => h.id)).toEqual(["mcp:memory:delete_relations"]);
    expect(scorer.search("list everything in the knowledge graph", { limit: 3 })[0]?.id).toBe("mcp:memory:read_graph");
    // Every field, as before: the parameter's "array" is matched again.
    const everywhere = index([...MEMORY, ...FILLER], { ...DEFAULT_BM25F, expansionFields: ["name", "toolset", "description", "params"] });
    expect(everywhere.search("list", { limit: 5 }).map((h) => h.id)).toContain("mcp:memory:delete_relations");
  });

  it("a typo's correction and a rewritten plural score in the name and description, not in parameter names", () => {
    const docs = [mcpDoc("cloud", "vm_list", "Lists virtual machines"), mcpDoc("cloud", "disk_attach", "Attaches a disk", ["vm"]), ...FILLER];
    const scorer = index(docs);
    // "vms" is no word of the catalog; its rewrite "vm" is, in a name and in a parameter name.
    expect(scorer.search("vms", { limit: 5 }).map((h) => h.id)).toEqual(["mcp:cloud:vm_list"]);
    expect(scorer.search("vm", { limit: 5 }).map((h) => h.id)).toEqual(["mcp:cloud:vm_list", "mcp:cloud:disk_attach"]);
    const weather = index([mcpDoc("wx", "city_report", "Report for a city", ["weather"]), mcpDoc("wx", "weather_now", "Current conditions"), ...FILLER]);
    expect(weather.search("wether", { limit: 5 }).map((h) => h.id)).toEqual(["mcp:wx:weather_now"]);
  });
});

const dataDir = sharedDataDir();
describe.skipIf(dataDir === undefined)("over LiveMCPBench's 527 real MCP tools", () => {
  let scorer: Bm25fIndex;
  beforeAll(() => {
    scorer = index(loadLiveMcpTools(dataDir!));
  });

  it("no expanded word of a hit scores in its parameters or toolset", () => {
    let expanded = 0;
    for (const { query } of loadLiveMcpQueries(dataDir!)) {
      let lists: ReadonlyArray<ReadonlyMap<string, ScoreDetail>> = [];
      scorer.search(query, { limit: 10, explain: (l) => (lists = l) });
      for (const detail of lists[0]?.values() ?? []) {
        for (const word of detail.words) {
          if (word.via === "word") continue;
          expanded++;
          expect(word.fields.params, `${query}: ${word.word} → ${word.term}`).toBe(0);
          expect(word.fields.toolset, `${query}: ${word.word} → ${word.term}`).toBe(0);
        }
      }
    }
    // The requests do expand: the check is not empty.
    expect(expanded).toBeGreaterThan(20);
  });
});
