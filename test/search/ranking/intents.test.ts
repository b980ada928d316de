/** Multi-intent requests: clause splitting, fusion, and linked siblings of one server. */
import { describe, expect, it } from "vitest";
import { fuse, SIBLING_POSITION, splitClauses, withSiblings } from "../../../src/search/ranking/intents.js";
import { buildSiblings, MAX_TOOLSET_TOOLS } from "../../../src/search/ranking/siblings.js";
import { memoryBm25fBackend } from "../../../src/search/backends/memory-bm25f-backend.js";
import { bm25fBackend } from "../../../src/search/backends/bm25f-backend.js";
import { ToolIndex } from "../../../src/search/tool-index.js";
import { mcpDoc } from "../../support/search-docs.js";
import { rankOverIndex } from "../../../bench/lib/rank-over-index.js";

const tool = mcpDoc;

const word = [
  tool("word", "create_document", "Create a new Word document with optional metadata.", ["filename", "title"]),
  tool("word", "add_paragraph", "Add a paragraph to a Word document.", ["filename", "text"]),
  tool("word", "add_picture", "Add an image to a Word document.", ["filename", "image_path"]),
  tool("word", "convert_to_pdf", "Convert a Word document to PDF format.", ["filename", "output_filename"]),
  tool("word", "get_document_info", "Get information about a Word document.", ["filename"]),
];
const others = [
  tool("weather", "get_forecast", "Weather forecast for a city.", ["city"]),
  tool("mail", "send_email", "Send an email message to a recipient.", ["to", "subject", "body"]),
  tool("tickets", "get_ticket_status", "Status of a support ticket by its id.", ["ticket_id"]),
  tool("tickets", "submit_ticket", "Submit a new support ticket.", ["summary"]),
  ...Array.from({ length: 30 }, (_, i) => tool("misc", `lorem_${i}`, `ipsum dolor amet consectetur ${i}`)),
];

describe("splitClauses", () => {
  it("keeps a one-action request whole", () => {
    for (const q of ["convert 20 euros to japanese yen", "find tables and charts in the report", "find a place to stay in Lisbon next weekend", "send_email"]) {
      expect(splitClauses(q)).toEqual([q]);
    }
  });

  it("splits at sentence ends, commas and step words", () => {
    expect(splitClauses("Check the status of ticket 42. Then submit a new ticket, and finally email the team about it")).toEqual([
      "Check the status of ticket 42",
      "Then submit a new ticket",
      "and finally email the team about it",
    ]);
    expect(splitClauses("get the weather in Paris and also send an email to Bob")).toEqual(["get the weather in Paris", "and also send an email to Bob"]);
  });

  it("joins pieces too short to rank on their own, and never splits a select: list", () => {
    expect(splitClauses("Please, get the forecast for Paris")).toEqual(["Please, get the forecast for Paris"]);
    expect(splitClauses("select:a,b,c")).toEqual(["select:a,b,c"]);
    // Dates, times and numbers are the arguments of the step before them, not a step.
    expect(splitClauses("calculate my bazi chart, I was born 1990-05-01 at 8am")).toEqual(["calculate my bazi chart, I was born 1990-05-01 at 8am"]);
  });
});

describe("fuse", () => {
  it("lets each clause's best tool into the first hits, with scores from 0 to 1", () => {
    const whole = [
      { id: "a1", score: 9 },
      { id: "a2", score: 8 },
      { id: "a3", score: 7 },
      { id: "b1", score: 2 },
    ];
    // b1, the second clause's best, passes a3; a1, best of the whole list and of its clause, stays first.
    const fused = fuse([whole, [{ id: "a1", score: 5 }], [{ id: "b1", score: 3 }]], 3);
    expect(fused.map((h) => h.id)).toEqual(["a1", "a2", "b1"]);
    expect(fused[0]!.score).toBe(1);
    for (const h of fused) {
      expect(h.score).toBeGreaterThan(0);
      expect(h.score).toBeLessThanOrEqual(1);
    }
  });
});

describe("siblings", () => {
  it("links tools of one server whose text names the other's object and takes the same handle", () => {
    const links = buildSiblings([...word, ...others]);
    expect(links.get("mcp:word:create_document")).toContain("mcp:word:convert_to_pdf");
    expect(links.get("mcp:word:add_paragraph")).toContain("mcp:word:create_document");
    // Same verb: alternatives, not steps of one task.
    expect(links.get("mcp:word:add_paragraph") ?? []).not.toContain("mcp:word:add_picture");
    // Never across toolsets.
    for (const linked of links.values()) for (const id of linked) expect(id.startsWith("mcp:misc:")).toBe(false);
  });

  it("reads no toolset of more than MAX_TOOLSET_TOOLS tools (a catalog, not a server)", () => {
    const big = Array.from({ length: MAX_TOOLSET_TOOLS + 1 }, (_, i) => tool("big", `add_item_${i}`, "Add an item to the list", ["list_id"]));
    big.push(tool("big", "create_list", "Create a new item list", ["list_id"]));
    expect(buildSiblings(big).size).toBe(0);
  });

  it("puts siblings after the ranking's first SIBLING_POSITION hits, whatever the limit, and stays within it", () => {
    const hits = Array.from({ length: 12 }, (_, i) => ({ id: `h${i}`, score: 12 - i }));
    // h3 is already among the first hits; h10 is further down and moves up as a sibling.
    const siblingsOf = (id: string) => (id === "h0" ? ["s1", "h3", "h10", "s3"] : []);
    const ids = (limit: number) => withSiblings(hits, limit, { siblingsOf }).map((h) => h.id);
    expect(ids(12)).toEqual(["h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "s1", "h10", "h8", "h9"]);
    expect(ids(10)).toEqual(ids(12).slice(0, 10));
    // A limit at or below the position keeps the ranking's own hits only.
    expect(ids(SIBLING_POSITION)).toEqual(hits.slice(0, SIBLING_POSITION).map((h) => h.id));
    expect(ids(5)).toEqual(["h0", "h1", "h2", "h3", "h4"]);
  });
});

describe("a request of several intents (rankRequest over one index)", () => {
  it("answers every step of a multi-step request and ranks a one-step request as the index's one list", async () => {
    const index = await ToolIndex.build(() => memoryBm25fBackend.create(), [...word, ...others]);
    const ids = (q: string) => rankOverIndex(index, q, 4).map((h) => h.id);
    const steps = ids("What is the status of support ticket 7? Then send an email to the customer, and also give me the weather forecast for Oslo");
    expect(steps).toEqual(expect.arrayContaining(["mcp:tickets:get_ticket_status", "mcp:mail:send_email", "mcp:weather:get_forecast"]));
    const oneList = (q: string) => index.search(q, { limit: 4 }).map((h) => h.id);
    for (const q of ["weather forecast for Oslo", "submit a support ticket", "add a picture to my word document"]) expect(ids(q)).toEqual(oneList(q));
    index.close();
  });

  it("ranks the whole request and its clauses in one pass as separate searches would", async () => {
    for (const factory of [memoryBm25fBackend, bm25fBackend]) {
      const index = await ToolIndex.build(() => factory.create(), [...word, ...others]);
      const query = "Get the status of support ticket 7, then send an email to the customer";
      const clauses = splitClauses(query);
      expect(clauses).toHaveLength(2);
      const ids = (hits: ReadonlyArray<{ id: string }>) => hits.map((h) => h.id);
      const lists = index.searchClauses(query, clauses, { limit: 5 });
      expect(lists.map(ids)).toEqual([query, ...clauses].map((q) => ids(index.search(q, { limit: 5 }))));
      index.close();
    }
  });
});
