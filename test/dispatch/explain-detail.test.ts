/**
 * run.explain(query, { detail: true }): for each hit, the ranking steps that placed it (the
 * whole request's list, each clause's, fusion, siblings, expansions, exact names, the client
 * merge, learning, the weak fallback) with the scorer's own BM25F figures; without `detail`,
 * exactly the hits of before.
 */
import { afterEach, describe, expect, it } from "vitest";
import { coreTools, createToolSearch, pluginTools, type DetailedHit, type ListStep, type RankStep, type ToolDefinition } from "../../src/index.js";

const def = (name: string, description: string, params: string[] = []): ToolDefinition => ({
  name,
  description,
  inputSchema: { type: "object", properties: Object.fromEntries(params.map((p) => [p, { type: "string" }])) },
  execute: () => ({ done: name }),
});

const WORD = [
  def("create_document", "Create a new Word document with optional metadata.", ["filename", "title"]),
  def("add_paragraph", "Add a paragraph to a Word document.", ["filename", "text"]),
  def("add_picture", "Add an image to a Word document.", ["filename", "image_path"]),
  def("convert_to_pdf", "Convert a Word document to PDF format.", ["filename", "output_filename"]),
  def("get_document_info", "Get information about a Word document.", ["filename"]),
];
const MISC = [
  def("get_weather_forecast", "Get the weather forecast for a city.", ["city"]),
  def("send_email", "Send an email message to a recipient.", ["to", "subject"]),
  // Enough tools sharing the request's words that the fused list runs past the siblings' place.
  ...Array.from({ length: 12 }, (_, i) => def(`paragraph_tool_${i}`, `A paragraph and text helper number ${i} for a new document draft`)),
];
const CAMERA = { name: "open_camera_app", description: "Open the device camera app", inputSchema: { type: "object" }, execute: () => "opened" };
const MULTI_STEP = "Create a new word document, then add a paragraph of text, and finally save the text";

type Engine = Awaited<ReturnType<typeof createToolSearch>>;
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

async function run() {
  engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [pluginTools("word", WORD), pluginTools("misc", MISC)] });
  return engine.prepareRun({ sessionId: "s", clientTools: [CAMERA] });
}

const kinds = (hit: DetailedHit | undefined) => hit?.detail.steps.map((s) => s.step) ?? [];
const listSteps = (hit: DetailedHit | undefined): ListStep[] =>
  (hit?.detail.steps ?? []).filter((s): s is ListStep => s.step === "whole" || s.step === "clause");
const stepOf = <K extends RankStep["step"]>(hit: DetailedHit | undefined, step: K) =>
  hit?.detail.steps.find((s): s is Extract<RankStep, { step: K }> => s.step === step);
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

describe("run.explain detail", () => {
  it("a word-only match: the whole request's list, each word's BM25F contribution and its fields", async () => {
    const r = await run();
    const [top] = await r.explain("weather forecast", { detail: true });
    expect(top?.id).toBe("plugin:misc:get_weather_forecast");
    expect(kinds(top)).toEqual(["whole"]);
    const whole = listSteps(top)[0];
    expect(whole).toMatchObject({ step: "whole", label: "whole request: 1", text: "weather forecast", rank: 1, score: 1, index: "catalog" });
    expect(whole?.bm25f?.words.map((w) => [w.word, w.term, w.via])).toEqual([
      ["weather", "weather", "word"],
      ["forecast", "forecast", "word"],
    ]);
    for (const w of whole?.bm25f?.words ?? []) {
      expect(w.fields.name).toBeGreaterThan(0);
      expect(w.fields.description).toBeGreaterThan(0);
      expect(w.fields.toolset).toBe(0);
    }
  });

  it("word scores add up to the BM25F score the list ranked by, and list scores are relative to the list's best", async () => {
    const r = await run();
    for (const query of ["weather forecast", "add a picture to the word document", MULTI_STEP, "wether forecast"]) {
      const hits = await r.explain(query, { limit: 10, detail: true });
      const steps = hits.flatMap(listSteps);
      expect(steps.length).toBeGreaterThan(0);
      for (const step of steps) {
        const bm25f = step.bm25f!;
        expect(
          close(
            bm25f.words.reduce((s, w) => s + w.score, 0),
            bm25f.sum,
          ),
        ).toBe(true);
        expect(bm25f.sum * bm25f.coordination * bm25f.namePrecision).toBe(bm25f.score);
        for (const w of bm25f.words) expect(close(w.fields.name + w.fields.toolset + w.fields.description + w.fields.params, w.score)).toBe(true);
      }
      // The whole request's first hit is the best of its list: every other whole score is its BM25F score over that one's.
      const wholes = steps.filter((s) => s.step === "whole");
      const best = wholes.find((s) => s.rank === 1)?.bm25f?.score;
      expect(best).toBeDefined();
      for (const s of wholes) expect(close(s.score, s.bm25f!.score / best!)).toBe(true);
    }
  });

  it("a multi-step request: each clause's list, the fusion, and linked siblings", async () => {
    const r = await run();
    const hits = await r.explain(MULTI_STEP, { limit: 10, detail: true });
    const paragraph = hits.find((h) => h.id === "plugin:word:add_paragraph");
    const clauses = listSteps(paragraph).filter((s) => s.step === "clause");
    expect(clauses.map((s) => [s.clause, s.text])).toEqual([
      [1, "Create a new word document"],
      [2, "then add a paragraph of text"],
      [3, "and finally save the text"],
    ]);
    expect(clauses[1]).toMatchObject({ rank: 1, label: 'clause 2: "then add a paragraph of text": 1' });
    expect(stepOf(paragraph, "fusion")).toMatchObject({ rank: hits.indexOf(paragraph!) + 1, score: paragraph?.score });
    // convert_to_pdf matches only the first clause's words weakly: it is here as create_document's linked sibling.
    const pdf = hits.find((h) => h.id === "plugin:word:convert_to_pdf");
    expect(stepOf(pdf, "sibling")).toEqual({ step: "sibling", label: "sibling of plugin:word:create_document", of: "plugin:word:create_document" });
    expect(stepOf(pdf, "fusion")!.rank).toBeGreaterThan(hits.indexOf(pdf!) + 1);
  });

  it("a typo: the expansion step names the word and the index term it scored through", async () => {
    const r = await run();
    const [top] = await r.explain("wether forecast", { detail: true });
    expect(top?.id).toBe("plugin:misc:get_weather_forecast");
    expect(stepOf(top, "expansion")).toEqual({
      step: "expansion",
      label: 'typo expansion of "wether" → weather',
      word: "wether",
      term: "weather",
      via: "typo",
    });
    expect(listSteps(top)[0]?.bm25f?.words[0]).toMatchObject({ word: "wether", term: "weather", via: "typo" });
  });

  it("an exact name, a client tool, a select: list and the weak fallback", async () => {
    const r = await run();
    const [exact] = await r.explain("get_weather_forecast", { detail: true });
    expect(kinds(exact)).toEqual(["exact", "whole"]);
    // An exact hit's score is not the scorer's: no BM25F detail to add up.
    expect(listSteps(exact)[0]?.bm25f).toBeUndefined();
    const [camera] = await r.explain("open the camera", { detail: true });
    expect(camera?.id).toBe("client:open_camera_app");
    expect(kinds(camera)).toEqual(["whole", "client"]);
    expect(listSteps(camera)[0]).toMatchObject({ index: "client", rank: 1 });
    expect(listSteps(camera)[0]?.bm25f?.words.length).toBeGreaterThan(0);
    const selected = await r.explain("select:send_email", { detail: true });
    expect(selected.map((h) => [h.id, kinds(h)])).toEqual([["plugin:misc:send_email", ["select"]]]);
    const weak = await r.explain("zzzqqq blorp", { limit: 3, detail: true });
    expect(weak.length).toBe(3);
    for (const h of weak) expect(h.detail.steps).toEqual([{ step: "weak", label: "weak partial match: no tool matched the request's words" }]);
  });

  it("without detail: exactly the hits of before (search's, with `learned`), no detail key", async () => {
    const r = await run();
    for (const query of ["weather forecast", MULTI_STEP, "zzzqqq blorp", "get_weather_forecast"]) {
      const plain = await r.explain(query, { limit: 10 });
      expect(await r.explain(query, { limit: 10, detail: false })).toEqual(plain);
      expect(plain).toEqual((await r.search(query, { limit: 10 })).map((h) => ({ ...h, learned: false })));
      for (const h of plain) expect(Object.keys(h)).not.toContain("detail");
      const detailed = await r.explain(query, { limit: 10, detail: true });
      expect(detailed.map(({ detail: _detail, ...h }) => h)).toEqual(plain);
    }
  });

  it("refuses a detail that is not a boolean with INVALID_ARGS", async () => {
    const r = await run();
    await expect(r.explain("weather", { detail: "yes" as unknown as boolean })).rejects.toMatchObject({ code: "INVALID_ARGS" });
    await expect(r.explain("weather", { details: true } as never)).rejects.toMatchObject({ code: "INVALID_ARGS" });
  });

  it.each([
    [false, "learned: moved up to 1 by learning from use (not ranked by text; learned from 2 sessions)", {}],
    [
      true,
      'learned: moved up to 1 by learning from use (not ranked by text; learned from 2 sessions: "zorblat", "quarterly", "ledger")',
      { words: ["zorblat", "quarterly", "ledger"] },
    ],
  ])(
    "a hit learning moved up says so, with where text alone ranked it and how many sessions taught it (words only with recordTerms: %s)",
    async (recordTerms, label, words) => {
      const request = "zorblat the quarterly ledger";
      engine = await createToolSearch({
        toolSearch: { mode: "tools", learning: { enabled: true, minSessions: 2, recordTerms } },
        sources: [coreTools([def("send_invoice", "Create and email an invoice to a customer."), def("get_forecast", "Weather forecast for a city.")])],
      });
      for (const sessionId of ["a", "b"]) {
        const r = await engine.prepareRun({ sessionId, agentId: "main" });
        await r.search(request);
        expect((await r.search("send invoice")).map((h) => h.id)).toContain("core:send_invoice");
        expect((await r.call("core:send_invoice", {})).ok).toBe(true);
        await r.end();
      }
      const r = await engine.prepareRun({ sessionId: "probe", agentId: "main" });
      const [top] = await r.explain(request, { detail: true });
      expect(top).toMatchObject({ id: "core:send_invoice", learned: true });
      expect(stepOf(top, "learned")).toEqual({ step: "learned", label, rank: 1, textRank: undefined, sessions: 2, ...words });
    },
  );
});
