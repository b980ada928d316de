/**
 * Guarded typo correction: only words of 4+ letters that are in neither the catalog nor common
 * English (WordNet lemmas seen in use, SemCor-tagged) are corrected, within one edit up to five
 * letters and two beyond, to catalog words.
 */
import { describe, expect, it } from "vitest";
import { stem } from "../../../src/search/analysis/analyze.js";
import { memoryBm25fBackend } from "../../../src/search/backends/memory-bm25f-backend.js";
import { isCommonWord, isEnglishWord } from "../../../src/search/analysis/english-words.js";
import { TypoIndex, maxTypoDistance } from "../../../src/search/query/typo.js";
import type { SearchDoc } from "../../../src/search/types.js";

const tool = (name: string, description: string): SearchDoc => ({ id: `plugin:t:${name}`, name, source: "plugin", toolset: "t", description, params: [] });

describe("TypoIndex", () => {
  const index = new TypoIndex(["transcript", "weather", "forecast", "parse", "price", "prize", "get_weather", "v2"]);
  const df = () => 1;

  it("finds close vocabulary words, closest first", () => {
    expect(index.corrections("transcipt", df)).toEqual(["transcript"]);
    expect(index.corrections("forcast", df)).toEqual(["forecast"]);
    expect(index.corrections("wheathr", df)).toEqual(["weather"]); // two edits in a 7-letter word
  });

  it("allows one edit up to five letters, two beyond, and skips short and odd words", () => {
    expect(maxTypoDistance("price")).toBe(1);
    expect(maxTypoDistance("prices")).toBe(2);
    expect(index.corrections("prxie", df)).toEqual([]); // two edits in five letters
    expect(index.corrections("pric", df)).toEqual(["price"]); // "prize" is two away
    expect(index.corrections("abc", df)).toEqual([]);
    expect(index.corrections("get_wether", df)).toEqual([]);
  });

  it("prefers the word the catalog uses most among equally close ones", () => {
    const counts: Record<string, number> = { price: 9, prize: 1 };
    expect(index.corrections("prise", (w) => counts[w] ?? 0)).toEqual(["price", "prize"]);
  });
});

describe("typo correction in search", () => {
  const docs = [
    tool("get_weather_forecast", "Weather forecast for a city"),
    tool("parse_json", "Parse a JSON text"),
    tool("get_transcript", "Transcript of a video"),
  ];

  it("knows English words (WordNet), as the analyzer stems them", () => {
    expect(isEnglishWord("paris")).toBe(true);
    expect(isEnglishWord("transcipt")).toBe(false);
    // A stemmer change without regenerating the filter (scripts/generate-english-words.ts) fails here.
    for (const word of ["running", "created", "files", "searches", "pictures", "stories", "companies", "hiking", "translation"]) {
      expect(isEnglishWord(stem(word)), word).toBe(true);
    }
  });

  it("knows which English words are common: seen in use, not only listed", () => {
    for (const word of ["paris", "weather", "hiking", "remember", "price", "finally"]) expect(isCommonWord(stem(word)), word).toBe(true);
    expect(isEnglishWord("wether")).toBe(true); // a castrated ram: listed in WordNet, never tagged in use
    expect(isCommonWord("wether")).toBe(false);
  });

  it("corrects a rare English word the catalog lacks: wether is a misspelt weather", async () => {
    const b = await memoryBm25fBackend.create();
    b.add(docs);
    expect(b.search("whats the wether like in paris", { limit: 3 }).map((h) => h.id)[0]).toBe("plugin:t:get_weather_forecast");
  });

  it("corrects words in neither the catalog nor English", async () => {
    const b = await memoryBm25fBackend.create();
    b.add(docs);
    expect(b.search("the video transcipt", { limit: 3 }).map((h) => h.id)[0]).toBe("plugin:t:get_transcript");
    expect(b.search("wheather forcast", { limit: 3 }).map((h) => h.id)[0]).toBe("plugin:t:get_weather_forecast");
  });

  it("leaves common English words the catalog lacks alone: paris is not a misspelt parse", async () => {
    const b = await memoryBm25fBackend.create();
    b.add(docs);
    expect(b.search("paris", { limit: 3 })).toEqual([]);
    expect(b.search("finally", { limit: 3 })).toEqual([]);
  });

  it("never corrects a word the catalog holds", async () => {
    const b = await memoryBm25fBackend.create();
    b.add([...docs, tool("get_forcast", "Forcast lookup")]);
    expect(b.search("forcast", { limit: 3 }).map((h) => h.id)).toEqual(["plugin:t:get_forcast"]);
  });
});
