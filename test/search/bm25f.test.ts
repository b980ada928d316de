/** BM25F postings: per-field normalisation, snapshots, and scoring with another index's statistics. */
import { describe, expect, it } from "vitest";
import { Bm25fIndex, fieldTerms } from "../../src/search/bm25f.js";
import type { SearchDoc } from "../../src/search/types.js";

const tool = (name: string, description: string, owner = "t"): SearchDoc => ({ id: `plugin:${owner}:${name}`, name, source: "plugin", owner, description, params: [] });
const entries = (docs: readonly SearchDoc[]) => docs.map((d) => ({ id: d.id, fields: fieldTerms(d) }));
const filler = Array.from({ length: 40 }, (_, i) => tool(`lorem_${i}`, `ipsum dolor amet consectetur ${i}`));

describe("Bm25fIndex", () => {
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
