/** BM25F postings: per-field normalisation, snapshots, and scoring with another index's statistics. */
import { describe, expect, it } from "vitest";
import { Bm25fIndex, DEFAULT_BM25F, fieldTerms } from "../../../src/search/scoring/bm25f.js";
import type { SearchDoc } from "../../../src/search/types.js";

const tool = (name: string, description: string, toolset = "t"): SearchDoc => ({
  id: `plugin:${toolset}:${name}`,
  name,
  source: "plugin",
  toolset,
  description,
  params: [],
});
const entries = (docs: readonly SearchDoc[]) => docs.map((d) => ({ id: d.id, fields: fieldTerms(d) }));
const filler = Array.from({ length: 40 }, (_, i) => tool(`lorem_${i}`, `ipsum dolor amet consectetur ${i}`));

describe("Bm25fIndex", () => {
  it("coordination: a tool matching most of the request beats one rare word mentioned in passing", () => {
    // "write" and "note" are common in this catalog, "meeting" is in one tool: plain BM25F
    // ranks that tool first on the one rare word; coordination ranks the tool matching both.
    const docs = [
      ...filler,
      ...["file", "log", "page", "row", "cell", "memo", "line", "byte", "blob", "json", "text", "csv"].map((x) => tool(`write_${x}`, `Write a ${x}`)),
      ...["read", "delete", "list", "move", "tag", "pin", "copy", "find", "share", "lock", "sort", "star"].map((x) => tool(`${x}_note`, `${x} a note`)),
      tool("write_note", "Write a note"),
      tool("suggest_meeting_point", "Find a place to meet for a meeting"),
    ];
    const first = (coord: number) => {
      const index = new Bm25fIndex({ ...DEFAULT_BM25F, coord });
      index.add(entries(docs));
      return index.search("write a note about the meeting", { limit: 1 })[0]?.id;
    };
    expect(DEFAULT_BM25F.coord).toBeGreaterThan(0);
    expect(first(DEFAULT_BM25F.coord!)).toBe("plugin:t:write_note");
    expect(first(0)).toBe("plugin:t:suggest_meeting_point");
  });

  it("name precision: of two tools matching alike, the one whose name holds less that was not asked gains", () => {
    const docs = [...filler, tool("getBuildingHumidity", "Get the humidity level"), tool("getHumidity", "Get the humidity level")];
    const scores = (namePrecision: number) => {
      const index = new Bm25fIndex({ ...DEFAULT_BM25F, namePrecision });
      index.add(entries(docs));
      const hits = index.search("retrieve the humidity level of a location", { limit: 2 });
      return new Map(hits.map((h) => [h.id, h.score]));
    };
    const on = scores(DEFAULT_BM25F.namePrecision!);
    const off = scores(0);
    expect(DEFAULT_BM25F.namePrecision).toBeGreaterThan(0);
    expect([...on.keys()]).toEqual(["plugin:t:getHumidity", "plugin:t:getBuildingHumidity"]);
    // BM25F's name-length normalisation already prefers the shorter name; the factor widens the gap.
    const gap = (m: Map<string, number>) => m.get("plugin:t:getHumidity")! / m.get("plugin:t:getBuildingHumidity")!;
    expect(gap(on) / gap(off)).toBeGreaterThan(1.01);
  });

  it("coordination and name precision apply to the whole request of a multi-clause search too", () => {
    const index = new Bm25fIndex();
    index.add(entries([...filler, tool("write_note", "Write a note"), tool("suggest_meeting_point", "Meeting point"), tool("write_meeting_note", "Notes")]));
    const [whole] = index.searchClauses(["write a note", "then the meeting"], { limit: 3 });
    const single = index.search("write a note then the meeting", { limit: 3 });
    expect(whole!.map((h) => h.id)).toEqual(single.map((h) => h.id));
    whole!.forEach((h, i) => expect(h.score).toBeCloseTo(single[i]!.score, 9));
  });

  it("ranks a name match above the same word deep in a long description", () => {
    const index = new Bm25fIndex();
    const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    index.add(entries([...filler, tool("get_weather", "Returns data"), tool("fetch_page", `${long} weather ${long}`)]));
    expect(index.search("weather", { limit: 2 }).map((h) => h.id)).toEqual(["plugin:t:get_weather", "plugin:t:fetch_page"]);
  });

  it("restores a snapshot taken after removals, and keeps numbering new docs after it", () => {
    const index = new Bm25fIndex();
    index.add(entries([...filler, tool("get_weather", "Weather forecast"), tool("send_mail", "Send an email"), tool("read_file", "Read a file")]));
    index.remove(["plugin:t:send_mail", "plugin:t:lorem_3"]);
    const restored = Bm25fIndex.fromSnapshot(index.toSnapshot());
    expect(restored.size).toBe(index.size);
    for (const q of ["weather", "email", "file", "ipsum"]) expect(restored.search(q, { limit: 50 })).toEqual(index.search(q, { limit: 50 }));
    expect(restored.search("email", { limit: 5 })).toEqual([]);
    restored.add(entries([tool("send_sms", "Send a text message")]));
    expect(restored.search("text message", { limit: 1 })[0]?.id).toBe("plugin:t:send_sms");
    expect(restored.df("weather")).toBe(1);
  });

  it("scores a doc with another index's statistics as if it were one of its docs", () => {
    const others = [...filler, tool("get_weather", "Weather forecast for a city")];
    const withCamera = new Bm25fIndex();
    withCamera.add(entries([...others, tool("open_camera", "Open the camera app")]));
    const catalog = new Bm25fIndex();
    catalog.add(entries(others));
    const client = new Bm25fIndex();
    client.add(entries([tool("open_camera", "Open the camera app", "client")]));
    const inCatalog = withCamera.search("open the camera", { limit: 1 })[0]!.score;
    const asClient = client.search("open the camera", { limit: 1, stats: catalog })[0]!.score;
    const alone = client.search("open the camera", { limit: 1 })[0]!.score;
    expect(Math.abs(asClient - inCatalog) / inCatalog).toBeLessThan(0.01);
    expect(Math.abs(alone - inCatalog) / inCatalog).toBeGreaterThan(0.3); // its own one-doc statistics say little
  });
});
