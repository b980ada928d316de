import { describe, expect, it } from "vitest";
import {
  analyzeDoc,
  analyzeIdentifier,
  analyzeQuery,
  analyzeText,
  compoundParts,
  splitIdentifier,
  stem,
  synonymKeys,
  synonymsOf,
  wholeTerm,
} from "../../../src/search/analysis/analyze.js";

describe("splitIdentifier", () => {
  it.each([
    ["get_weather_forecast", ["get", "weather", "forecast"]],
    ["send-email", ["send", "email"]],
    ["getWeatherForecast", ["get", "weather", "forecast"]],
    ["getHTTPResponse", ["get", "http", "response"]],
    ["XMLHttpRequest", ["xml", "http", "request"]],
    ["fs.readFile", ["fs", "read", "file"]],
    ["mcp:github:create_issue", ["mcp", "github", "create", "issue"]],
    ["plugin:my-plugin:doThing2", ["plugin", "my", "plugin", "do", "thing", "2"]],
    ["SCREAMING_CASE", ["screaming", "case"]],
    ["東京_weather", ["東京", "weather"]],
    ["", []],
  ])("%s", (input, words) => {
    expect(splitIdentifier(input)).toEqual(words);
  });
});

describe("wholeTerm", () => {
  it("joins the words of any naming style the same way", () => {
    expect(wholeTerm("getWeatherForecast")).toBe("get_weather_forecast");
    expect(wholeTerm("get-weather-forecast")).toBe("get_weather_forecast");
    expect(wholeTerm("get_weather_forecast")).toBe("get_weather_forecast");
    expect(wholeTerm("mcp:github:create_issue")).toBe("mcp_github_create_issue");
  });
  it("is undefined for a single word", () => {
    expect(wholeTerm("weather")).toBeUndefined();
  });
});

describe("stem", () => {
  it.each([
    ["creates", "creat"],
    ["creating", "creat"],
    ["created", "creat"],
    ["creation", "creat"],
    ["create", "creat"],
    ["queries", "query"],
    ["running", "run"],
    ["stopped", "stop"],
    ["boxes", "box"],
    ["searches", "search"],
    ["addresses", "address"],
    ["status", "status"],
    ["analysis", "analysis"],
    ["filling", "fill"],
    ["applied", "apply"],
    ["speed", "speed"],
  ])("%s → %s", (word, expected) => {
    expect(stem(word)).toBe(expected);
  });
  it("leaves short words, digits and other scripts alone", () => {
    expect(stem("get")).toBe("get");
    expect(stem("2024")).toBe("2024");
    expect(stem("東京")).toBe("東京");
    expect(stem("führen")).toBe("führen");
  });
});

describe("analyzeText", () => {
  it("keeps the whole identifier and its stemmed words, drops stopwords", () => {
    expect(analyzeText("Get the weather_forecast for me")).toEqual(["get", "weather_forecast", "weather", "forecast"]);
  });
  it("folds case and Latin diacritics", () => {
    expect(analyzeText("CAFÉ Naïve")).toEqual(analyzeText("cafe naive"));
  });
  it("never emits characters outside letters, digits, marks and _", () => {
    const terms = analyzeText(`"quoted" * NEAR(a b) -not col:val (x OR y) 🎉 'single' \\ back\`tick`);
    for (const term of terms) expect(term).toMatch(/^[\p{L}\p{N}\p{M}_]+$/u);
  });
  it("drops single ASCII letters (id shards)", () => {
    expect(analyzeText("a b c x")).toEqual([]);
  });
});

describe("compoundParts", () => {
  const parts = (word: string) => compoundParts(word, stem(word));
  it("splits a closed compound that is not an English word into two English words", () => {
    expect(parts("hackernews")).toEqual(["hacker", "new"]);
    expect(parts("codebase")).toEqual(["cod", "bas"]);
    expect(parts("filesystem")).toEqual(["fil", "system"]);
  });
  it("leaves words over 24 letters whole (ids, or a hostile request's one giant word)", () => {
    expect(parts("hackernewshackernewshackernews")).toEqual([]);
    expect(parts(`hacker${"x".repeat(400_000)}`)).toEqual([]);
  });
  it("leaves English words, short words, non-compounds and other scripts whole", () => {
    for (const word of ["database", "playwright", "weather", "notebook", "news", "xkcdqz", "kospi", "ygocdb", "東京東京東京"])
      expect(parts(word), word).toEqual([]);
  });
  it("lets either spelling find the other: the parts are indexed and queried with the whole", () => {
    expect(analyzeText("hackernews")).toEqual(["hackernew", "hacker", "new"]);
    const doc = analyzeIdentifier("mcp_hackernews");
    for (const term of analyzeText("hacker news")) expect(doc).toContain(term);
    expect(analyzeText("search my codebase")).toContain(stem("code"));
  });
});

describe("analyzeIdentifier", () => {
  it("keeps a one-word name even when it is a stopword", () => {
    expect(analyzeIdentifier("me")).toEqual(["me"]);
  });
});

describe("analyzeDoc", () => {
  it("fills each field and synonym keys from name and id words", () => {
    const a = analyzeDoc({
      id: "mcp:github:create_issue",
      name: "create_issue",
      toolset: "github",
      description: "Opens a new issue",
      params: [{ name: "repoName", description: "The repository" }],
    });
    expect(a.name).toEqual(["create_issue", "creat", "issu"]);
    expect(a.ident).toContain("mcp_github_create_issue");
    expect(a.ident).toContain("github");
    expect(a.description).toEqual(["open", "new", "issu"]);
    expect(a.params).toEqual(["repo_name", "repo", "nam", "repository"]);
    expect(a.synonyms).toEqual(expect.arrayContaining([...synonymKeys("creat"), ...synonymKeys("issu")]));
  });
});

describe("analyzeQuery", () => {
  it("returns [] for a query of only stopwords or punctuation", () => {
    expect(analyzeQuery("please tell me the")).toEqual([]);
    expect(analyzeQuery("?!  ... ()")).toEqual([]);
    expect(analyzeQuery("")).toEqual([]);
  });
  it("dedupes terms and attaches synonym keys", () => {
    const terms = analyzeQuery("delete the files, delete them");
    expect(terms.map((t) => t.term)).toEqual(["delet", "fil"]);
    expect(terms[0]?.synonymKeys.length).toBe(1);
    expect(synonymsOf("delet")).toEqual(expect.arrayContaining(["remov", "destroy"]));
  });
  it("links create/add/new/make and get/fetch/retrieve", () => {
    expect(synonymKeys("creat")).toEqual(synonymKeys("add"));
    expect(synonymKeys(stem("make"))).toEqual(synonymKeys("new"));
    expect(synonymKeys("fetch")[0]).toBe(synonymKeys(stem("retrieve"))[0]);
  });
  it("caps very long queries", () => {
    const long = Array.from({ length: 500 }, (_, i) => `word${i}`).join(" ");
    expect(analyzeQuery(long).length).toBeLessThanOrEqual(48);
  });
});
