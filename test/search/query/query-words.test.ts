/**
 * The general spelling classes of issue 22, on a catalog in a cloud vendor's style (names
 * nobody tuned on): acronym plurals (`VMs` ↔ `vm`), closed compounds in either direction
 * ("cosmosdb" ↔ cosmos + db, "cosmos db" ↔ `cosmosdb`), and placeholders quoted from a
 * command line (`<resource-group-name>`). Each case fails without its rule (the rewrites are
 * switched off with `vocabulary: false`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeQuery, splitIdentifier } from "../../../src/search/analysis/analyze.js";
import { DEFAULT_BM25F } from "../../../src/search/scoring/bm25f.js";
import { bm25fBackend, bm25fBackendWith } from "../../../src/search/backends/bm25f-backend.js";
import { queryWords } from "../../../src/search/query/query-words.js";
import { ToolIndex } from "../../../src/search/tool-index.js";
import { mcpDoc } from "../../support/search-docs.js";
import type { SearchDoc } from "../../../src/search/types.js";

const tool = (name: string, description: string, params: string[] = []): SearchDoc => mcpDoc("cloud", name, description, params);

const catalog = [
  tool("vm_list", "Lists the virtual machines of a subscription.", ["subscription", "resource-group-name"]),
  tool("vm_get", "Gets one virtual machine by name.", ["subscription", "vm-name"]),
  tool("group_list", "Lists the resource groups of a subscription, by name.", ["subscription"]),
  tool("cosmos_account_list", "Lists the Cosmos DB accounts of a subscription.", ["subscription"]),
  tool("storage_account_list", "Lists storage accounts.", ["subscription"]),
  tool("container_app_list", "Lists container apps.", ["subscription"]),
];

/** The other spelling: the vendor writes the product as one word. */
const joined = [
  tool("file_open", "Opens a file.", ["path"]),
  tool("model_list", "Lists the models of a provider.", []),
  tool("openai_chat", "Chat completion.", ["prompt"]),
];

const off = () => bm25fBackendWith({ bm25f: { ...DEFAULT_BM25F, vocabulary: false } }).create();
let index: ToolIndex;
let plain: ToolIndex;
let joinedIndex: ToolIndex;
let joinedPlain: ToolIndex;
beforeAll(async () => {
  index = await ToolIndex.build(() => bm25fBackend.create(), catalog);
  plain = await ToolIndex.build(off, catalog);
  joinedIndex = await ToolIndex.build(() => bm25fBackend.create(), joined);
  joinedPlain = await ToolIndex.build(off, joined);
});
afterAll(() => {
  for (const i of [index, plain, joinedIndex, joinedPlain]) i?.close();
});

const first = (i: ToolIndex, q: string) => i.search(q, { limit: 3 })[0]?.id;

describe("spelling classes", () => {
  it("splits an acronym's plural as one word", () => {
    expect(splitIdentifier("listVMs")).toEqual(["list", "vm"]);
    expect(splitIdentifier("getURLs")).toEqual(["get", "url"]);
    expect(splitIdentifier("IDsList")).toEqual(["id", "list"]);
    expect(splitIdentifier("getHTTPResponse")).toEqual(["get", "http", "response"]);
    expect(first(index, "list my VMs")).toBe("mcp:cloud:vm_list");
  });

  it("finds an identifier part from its plural typed in lower case", () => {
    expect(queryWords("show all vms", index.backend.corpusStats!()!)).toEqual(["show", "all", "vm"]);
    expect(first(index, "show all vms")).toBe("mcp:cloud:vm_list");
  });

  it("splits a closed compound the catalog writes apart", () => {
    expect(queryWords("cosmosdb accounts", index.backend.corpusStats!()!)).toEqual(["cosmosdb", "cosmo", "db", "account"]);
    expect(first(index, "my cosmosdb accounts")).toBe("mcp:cloud:cosmos_account_list");
    expect(first(plain, "my cosmosdb accounts")).not.toBe("mcp:cloud:cosmos_account_list");
  });

  it("joins words the catalog writes as one", () => {
    // "ai" is no word of the catalog; "openai" is.
    const ids = (i: ToolIndex) => i.search("ask open ai", { limit: 5 }).map((h) => h.id);
    expect(ids(joinedIndex)).toContain("mcp:cloud:openai_chat");
    expect(ids(joinedPlain)).not.toContain("mcp:cloud:openai_chat");
  });

  it("counts a placeholder as the parameter it names, not as its words", () => {
    expect(analyzeQuery("list VMs in <resource-group-name>").map((t) => t.term)).toEqual(["list", "vm", "resource_group_name"]);
    expect(analyzeQuery("weather in <city>").map((t) => t.term)).toEqual(["weather", "city"]);
    expect(first(index, "list the machines in <resource-group-name>")).toBe("mcp:cloud:vm_list");
  });

  it("leaves a request whose words the catalog has as it was", () => {
    for (const q of ["lists storage accounts", "virtual machine by name", "container apps of a subscription"]) {
      expect(index.search(q, { limit: 5 })).toEqual(plain.search(q, { limit: 5 }));
    }
  });
});
