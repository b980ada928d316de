/**
 * The query-time thesaurus: bounded, general, and never above the word typed. For every pair
 * of words of every group, a tool holding the typed word ranks above one holding only its
 * synonym in the same field, and above one holding the synonym in its name (the strongest
 * field) while the typed word is only in its description; the synonym still finds its tool.
 */
import { describe, expect, it } from "vitest";
import { analyzeText, stem } from "../../../src/search/analysis/analyze.js";
import { memoryBm25fBackend } from "../../../src/search/backends/memory-bm25f-backend.js";
import { bm25fBackend } from "../../../src/search/backends/bm25f-backend.js";
import { THESAURUS_WEIGHT, thesaurusOf } from "../../../src/search/query/query-expansion.js";
import { THESAURUS_GROUPS } from "../../../src/search/query/thesaurus.js";
import type { SearchBackend, SearchDoc } from "../../../src/search/types.js";

const tool = (name: string, description: string): SearchDoc => ({ id: `plugin:t:${name}`, name, source: "plugin", toolset: "t", description, params: [] });
/** Words in no group, so that IDF and lengths look like a catalog's. */
const FILLER = Array.from({ length: 30 }, (_, i) => tool(`lorem_${i}`, `ipsum dolor amet ${i}`));

async function index(docs: SearchDoc[]): Promise<SearchBackend> {
  const b = await memoryBm25fBackend.create();
  b.add([...FILLER, ...docs]);
  return b;
}

/** Ordered pairs of a group's words that expand to each other (a word in many groups keeps only its first synonyms). */
function pairs(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const group of THESAURUS_GROUPS) {
    for (const typed of group) for (const synonym of group) if (thesaurusOf(stem(typed)).includes(stem(synonym))) out.push([typed, synonym]);
  }
  return out;
}

describe("thesaurus", () => {
  it("is small and made of plain lowercase words", () => {
    expect(pairs().length).toBeGreaterThan(1000);
    expect(THESAURUS_GROUPS.length).toBeLessThanOrEqual(200);
    for (const group of THESAURUS_GROUPS) for (const word of group) expect(word).toMatch(/^[a-z]+$/);
    expect(THESAURUS_WEIGHT).toBeLessThan(0.5);
  });

  it("expands a word to its groups: picture → image, screenshot", () => {
    expect(thesaurusOf(stem("picture"))).toEqual(expect.arrayContaining([stem("image"), stem("screenshot")]));
    expect(thesaurusOf("zzzz")).toEqual([]);
  });

  it("never ranks a synonym match above a match of the typed word", async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const [typed, synonym] of pairs()) {
      // A compound holding the typed word ("codebase" for "code") matches the word itself,
      // not a synonym: compound parts are indexed (analyze.ts compoundParts).
      if (analyzeText(synonym).includes(stem(typed))) continue;
      checked++;
      const b = await index([tool("alpha_tool", `${typed} helper`), tool("beta_tool", `${synonym} helper`), tool(`${synonym}_gamma`, "helper")]);
      const ids = b.search(typed, { limit: 5 }).map((h) => h.id);
      const exact = ids.indexOf("plugin:t:alpha_tool");
      const sameField = ids.indexOf("plugin:t:beta_tool");
      const inName = ids.indexOf(`plugin:t:${synonym}_gamma`);
      if (exact !== 0 || sameField === -1 || inName === -1) failures.push(`${typed} → ${synonym}: ${ids.join(", ")}`);
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(1000);
  });

  it("works the same through the default backend", async () => {
    const b = await bm25fBackend.create();
    try {
      b.add([...FILLER, tool("resize_image", "Resize an image"), tool("resize_picture", "Resize a picture"), tool("take_screenshot", "Capture the screen")]);
      expect(b.search("resize picture", { limit: 3 }).map((h) => h.id)[0]).toBe("plugin:t:resize_picture");
      expect(b.search("resize picture", { limit: 3 }).map((h) => h.id)[1]).toBe("plugin:t:resize_image");
      expect(b.search("photo", { limit: 3 }).map((h) => h.id)).toContain("plugin:t:take_screenshot");
    } finally {
      b.close?.();
    }
  });
});
