import { describe, expect, it } from "vitest";
import { IdSuggester, MAX_SUGGESTIBLE_CHARS } from "../../../src/search/ranking/id-suggester.js";
import type { SearchDoc } from "../../../src/search/types.js";
import { syntheticTools } from "../../../src/demo/synthetic-catalog.js";

function docs(names: string[], toolset = "github"): SearchDoc[] {
  return names.map((name) => ({ id: `plugin:${toolset}:${name}`, name, source: "plugin", toolset, description: "", params: [] }));
}

describe("did-you-mean suggestions", () => {
  const suggester = new IdSuggester(docs(["create_issue", "close_issue", "list_issues", "create_pull_request", "get_weather"]));

  it("finds near misses of ids and names", () => {
    expect(suggester.suggest("plugin:github:create-issue", undefined, 3)[0]).toBe("plugin:github:create_issue");
    expect(suggester.suggest("create_isue", undefined, 3)[0]).toBe("plugin:github:create_issue");
    expect(suggester.suggest("get_wether", undefined, 1)).toEqual(["plugin:github:get_weather"]);
  });

  it("never names a tool outside the allowed set", () => {
    const allowed = new Set(["plugin:github:close_issue"]);
    expect(suggester.suggest("plugin:github:create_issue2", allowed, 3)).not.toContain("plugin:github:create_issue");
  });

  it("gives nothing for noise, empty text, or text over the cap", () => {
    expect(suggester.suggest("zzzzqqqq", undefined, 3)).toEqual([]);
    expect(suggester.suggest("   ", undefined, 3)).toEqual([]);
    expect(suggester.suggest(`create_issue${"x".repeat(MAX_SUGGESTIBLE_CHARS)}`, undefined, 3)).toEqual([]);
  });

  // Its cost at any catalog size is bounded by the caps in id-suggester.ts (postings budget, candidates compared);
  // how long the worst in-cap input takes is a timing goal: bench/stall, kind suggest-cap-id.
  it("at 10,000 tools still finds the near miss, and gives at most n catalog ids for any input up to the cap", () => {
    const names = syntheticTools(10_000).map((t) => t.definition.name);
    const big = new IdSuggester(docs(names, "acme"));
    const ids = new Set(names.map((name) => `plugin:acme:${name}`));
    const wanted = [
      "plugin:acme:geo_get_wether_forecast",
      "a".repeat(MAX_SUGGESTIBLE_CHARS),
      "_".repeat(200),
      "plugin:acme:",
      `plugin:acme:${names.join("_")}`.slice(0, MAX_SUGGESTIBLE_CHARS),
    ];
    const value = wanted.map((w) => big.suggest(w, undefined, 3));
    expect(value[0]![0]).toMatch(/^plugin:acme:geo_get_weather_forecast/);
    for (const suggestions of value) {
      expect(suggestions.length).toBeLessThanOrEqual(3);
      for (const id of suggestions) expect(ids.has(id)).toBe(true);
    }
  });
});
