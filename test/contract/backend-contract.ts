/**
 * The one contract every SearchBackend passes (hono-style: one suite, many implementations),
 * run directly against the backend and through ToolIndex. Add a backend by calling
 * `backendContract(factory)` from a *.test.ts file.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ToolIndex } from "../../src/search/tool-index.js";
import type { SearchBackend, SearchBackendFactory, SearchDoc } from "../../src/search/types.js";

export function doc(id: string, description = "", params: SearchDoc["params"] = []): SearchDoc {
  const parts = id.split(":");
  const name = parts[parts.length - 1] ?? id;
  const source = (["core", "plugin", "mcp", "client"].includes(parts[0] ?? "") ? parts[0] : "plugin") as SearchDoc["source"];
  const toolset = parts.length > 2 ? (parts[1] ?? source) : source;
  return { id, name, source, toolset, description, params };
}

export const CATALOG: readonly SearchDoc[] = [
  doc("mcp:weather:get_weather_forecast", "Forecast for a city for the next days", [{ name: "city", description: "City name" }]),
  doc("mcp:github:create_issue", "Open a new issue in a repository", [{ name: "title", description: "Issue title" }]),
  doc("mcp:github:list_pull_requests", "List the pull requests of a repository"),
  doc("mcp:gitlab:create_issue", "Open an issue in a GitLab project"),
  doc("core:read_file", "Read a file from the workspace", [{ name: "path", description: "File path" }]),
  doc("core:write_file", "Write text to a file in the workspace", [{ name: "path", description: "File path" }]),
  doc("plugin:mail:send_email", "Send an email message to recipients", [{ name: "to", description: "Recipient address" }]),
  doc("plugin:calendar:createEvent", "Create a calendar event"),
  doc("client:getHTTPResponse", "Fetch a URL over HTTP and return the response body"),
  doc("plugin:shop:checkout", "Pay for the basket", [{ name: "couponCode", description: "A discount voucher" }]),
  doc("plugin:notes:voucher_notes", "Notes about vouchers"),
];

/** Many similar tools: for limit and filter rules. */
export function widgets(n: number): SearchDoc[] {
  return Array.from({ length: n }, (_, i) => doc(`plugin:widgets:widget_tool_${i}`, `Handles widget number ${i}`));
}

const HOSTILE_QUERIES = [
  '"',
  '""',
  '"unterminated',
  "*",
  "weather*",
  "NEAR(weather forecast)",
  "NEAR",
  "weather AND NOT forecast",
  "-weather",
  "col:weather",
  "name:weather",
  "{name}: weather",
  "(weather",
  "weather)",
  "^weather",
  "weather + forecast",
  "'; DROP TABLE tool_fts; --",
  "東京の天気",
  "météo à Paris",
  "🎉🌦️ weather 🎉",
  "\u0000\u0001\u200b",
  "a".repeat(10_000),
  Array.from({ length: 2_000 }, (_, i) => `term${i}`).join(" "),
];

export function backendContract(factory: SearchBackendFactory): void {
  describe(`SearchBackend contract: ${factory.kind}`, () => {
    const open: SearchBackend[] = [];
    async function make(docs: readonly SearchDoc[] = CATALOG): Promise<SearchBackend> {
      const backend = await factory.create();
      open.push(backend);
      backend.add(docs);
      return backend;
    }
    afterEach(() => {
      for (const b of open.splice(0)) b.close?.();
    });
    const ids = (hits: ReadonlyArray<{ id: string }>): string[] => hits.map((h) => h.id);

    it("has a kind", () => {
      expect(typeof factory.kind).toBe("string");
    });

    it("adds, replaces and removes docs, tracking size", async () => {
      const b = await make([]);
      expect(b.size).toBe(0);
      b.add(CATALOG);
      expect(b.size).toBe(CATALOG.length);
      b.add([doc("mcp:weather:get_weather_forecast", "Totally different text about tides")]);
      expect(b.size).toBe(CATALOG.length);
      expect(ids(b.search("tides", { limit: 5 }))).toEqual(["mcp:weather:get_weather_forecast"]);
      expect(ids(b.search("city", { limit: 5 }))).not.toContain("mcp:weather:get_weather_forecast");
      b.remove(["mcp:weather:get_weather_forecast", "no:such:id"]);
      expect(b.size).toBe(CATALOG.length - 1);
      expect(b.search("tides", { limit: 5 })).toEqual([]);
      b.add([doc("mcp:weather:get_weather_forecast", "back again")]);
      expect(ids(b.search("weather", { limit: 5 }))).toContain("mcp:weather:get_weather_forecast");
    });

    it("splits identifiers: weather finds get_weather_forecast, github issue finds mcp:github:create_issue", async () => {
      const b = await make();
      expect(ids(b.search("weather", { limit: 3 }))[0]).toBe("mcp:weather:get_weather_forecast");
      expect(ids(b.search("github issue", { limit: 3 }))[0]).toBe("mcp:github:create_issue");
      expect(ids(b.search("http response", { limit: 3 }))[0]).toBe("client:getHTTPResponse");
      expect(ids(b.search("calendar event", { limit: 3 }))[0]).toBe("plugin:calendar:createEvent");
    });

    it("matches stems and synonyms", async () => {
      const b = await make();
      expect(ids(b.search("creating issues", { limit: 3 }))).toContain("mcp:github:create_issue");
      expect(ids(b.search("make a new calendar entry", { limit: 3 }))).toContain("plugin:calendar:createEvent");
      expect(ids(b.search("retrieve file", { limit: 2 }))).toContain("core:read_file"); // retrieve ~ read
      expect(ids(b.search("remove file", { limit: 10 }))).toContain("core:write_file"); // no synonym of remove: by "file"
    });

    it("weighs parameter names below the name", async () => {
      const b = await make();
      const hits = ids(b.search("voucher", { limit: 5 }));
      expect(hits).toContain("plugin:shop:checkout"); // param description only
      expect(hits.indexOf("plugin:notes:voucher_notes")).toBeLessThan(hits.indexOf("plugin:shop:checkout"));
      expect(ids(b.search("coupon code", { limit: 5 }))).toContain("plugin:shop:checkout");
    });

    it("returns [] for queries with no usable terms", async () => {
      const b = await make();
      for (const q of ["", "   ", "the", "please tell me", "?!.,;", "🎉"]) expect(b.search(q, { limit: 5 })).toEqual([]);
    });

    it("returns [] for a limit of 0 and nothing on an empty index", async () => {
      const b = await make();
      expect(b.search("weather", { limit: 0 })).toEqual([]);
      expect((await make([])).search("weather", { limit: 5 })).toEqual([]);
    });

    it("returns best first with scores that do not increase", async () => {
      const b = await make(widgets(30));
      const hits = b.search("widget", { limit: 30 });
      expect(hits.length).toBe(30);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    });

    it("never throws on FTS syntax, unicode, emoji or very long queries", async () => {
      const b = await make();
      for (const q of HOSTILE_QUERIES) {
        const hits = b.search(q, { limit: 5 });
        expect(Array.isArray(hits)).toBe(true);
      }
      expect(ids(b.search('"weather" OR *', { limit: 3 }))).toContain("mcp:weather:get_weather_forecast");
      expect(ids(b.search("NEAR(weather forecast)", { limit: 3 }))).toContain("mcp:weather:get_weather_forecast");
      expect(b.size).toBe(CATALOG.length); // and the index survived "DROP TABLE"
    });

    it("returns k allowed hits when k allowed tools match, however few are allowed", async () => {
      const all = widgets(200);
      const b = await make(all);
      const allowed = new Set(all.filter((_, i) => i % 50 === 7).map((d) => d.id)); // 4 of 200, none near the top
      const hits = ids(b.search("widget", { limit: 3, allowed }));
      expect(hits.length).toBe(3);
      for (const id of hits) expect(allowed.has(id)).toBe(true);
      expect(ids(b.search("widget", { limit: 10, allowed })).length).toBe(4);
      expect(b.search("widget", { limit: 10, allowed: new Set() })).toEqual([]);
      expect(b.search("widget", { limit: 10, allowed: new Set(["plugin:elsewhere:x"]) })).toEqual([]);
    });

    it("returns k hits when k match, even when most terms are common", async () => {
      // "tool" is in every doc; the planner may narrow it, but never below k results.
      const docs = Array.from({ length: 1_200 }, (_, i) => doc(`plugin:p:tool_${i}`, i < 5 ? "rare zebra tool" : "tool"));
      const b = await make(docs);
      expect(b.search("zebra tool", { limit: 20 }).length).toBe(20);
      expect(ids(b.search("zebra tool", { limit: 5 })).every((id) => Number(id.split("_")[1]) < 5)).toBe(true);
      expect(b.search("tool", { limit: 50 }).length).toBe(50);
    });

    it("keeps ids with unusual characters intact", async () => {
      const odd = [
        doc("mcp:my server:tool with spaces", "odd one"),
        doc('plugin:"quoted":na"me', "odd quote"),
        doc("client:ünïcödé_tool", "odd unicode"),
        doc("mcp:x:emoji_🎉_tool", "odd emoji"),
        doc("plugin:a:b:c:deep", "odd deep"),
      ];
      const b = await make(odd);
      expect(new Set(ids(b.search("odd", { limit: 10 })))).toEqual(new Set(odd.map((d) => d.id)));
      b.remove(['plugin:"quoted":na"me']);
      expect(ids(b.search("quote", { limit: 10 }))).toEqual([]);
    });

    it.skipIf(factory.load === undefined)("serializes and loads to an index that answers the same", async () => {
      const b = await make();
      const snapshot = await b.serialize?.();
      expect(snapshot).toBeInstanceOf(Uint8Array);
      const loaded = await factory.load!(snapshot!);
      open.push(loaded);
      expect(loaded.size).toBe(b.size);
      for (const q of ["weather", "github issue", "file", "voucher"]) {
        expect(ids(loaded.search(q, { limit: 5 }))).toEqual(ids(b.search(q, { limit: 5 })));
      }
      loaded.add([doc("core:new_tool", "fresh after load")]);
      loaded.remove(["core:read_file"]);
      expect(ids(loaded.search("fresh", { limit: 3 }))).toEqual(["core:new_tool"]);
      expect(ids(loaded.search("read file", { limit: 5 }))).not.toContain("core:read_file");
      expect(b.size).toBe(CATALOG.length); // the original is untouched
    });

    it.skipIf(factory.load === undefined)("rejects a snapshot that is not one", async () => {
      await expect(factory.load!(new TextEncoder().encode("not an index"))).rejects.toMatchObject({ code: "CONFIG_INVALID" });
      await expect(factory.load!(new Uint8Array())).rejects.toMatchObject({ code: "CONFIG_INVALID" });
    });

    it("throws INDEX_CLOSED (an EngineClosedError) after close", async (ctx) => {
      const b = await factory.create();
      if (b.close === undefined) ctx.skip(`backend "${factory.kind}" has no close()`);
      b.add(CATALOG);
      b.close!();
      expect(() => b.search("weather", { limit: 3 })).toThrow(expect.objectContaining({ code: "INDEX_CLOSED" }));
    });
  });

  describe(`ToolIndex rules over ${factory.kind}`, () => {
    const open: ToolIndex[] = [];
    async function make(docs: readonly SearchDoc[] = CATALOG): Promise<ToolIndex> {
      const index = await ToolIndex.build(() => factory.create(), docs);
      open.push(index);
      return index;
    }
    afterEach(() => {
      for (const i of open.splice(0)) i.close();
    });
    const ids = (hits: ReadonlyArray<{ id: string }>): string[] => hits.map((h) => h.id);

    it("select:<name> and select:<id> return exactly that tool", async () => {
      const index = await make();
      expect(ids(index.search("select:read_file", { limit: 5 }))).toEqual(["core:read_file"]);
      expect(ids(index.search("select:core:read_file", { limit: 5 }))).toEqual(["core:read_file"]);
      expect(ids(index.search("SELECT:Core:Read_File", { limit: 5 }))).toEqual(["core:read_file"]);
      expect(ids(index.search("select:read_file,send_email", { limit: 5 }))).toEqual(["core:read_file", "plugin:mail:send_email"]);
      expect(index.search("select:nope", { limit: 5 })).toEqual([]);
      expect(index.search("select:", { limit: 5 })).toEqual([]);
    });

    it("select: of a tool outside allowed returns []", async () => {
      const index = await make();
      expect(index.search("select:core:read_file", { limit: 5, allowed: new Set(["core:write_file"]) })).toEqual([]);
    });

    it("an exact name ranks first, every toolset's tool of that name before the rest", async () => {
      const index = await make();
      const hits = ids(index.search("create_issue", { limit: 5 }));
      expect(new Set(hits.slice(0, 2))).toEqual(new Set(["mcp:github:create_issue", "mcp:gitlab:create_issue"]));
      expect(ids(index.search("CreateEvent", { limit: 3 }))[0]).toBe("plugin:calendar:createEvent");
    });

    it("an exact id ranks first", async () => {
      const index = await make();
      expect(ids(index.search("mcp:gitlab:create_issue", { limit: 3 }))[0]).toBe("mcp:gitlab:create_issue");
    });

    it("exact matches respect allowed and still fill up to the limit", async () => {
      const index = await make();
      const allowed = new Set(["mcp:gitlab:create_issue", "mcp:github:list_pull_requests", "core:read_file"]);
      const hits = ids(index.search("create_issue", { limit: 5, allowed }));
      expect(hits[0]).toBe("mcp:gitlab:create_issue");
      expect(hits).not.toContain("mcp:github:create_issue");
      for (const id of hits) expect(allowed.has(id)).toBe(true);
    });

    it("no usable terms → []", async () => {
      const index = await make();
      expect(index.search("the of and", { limit: 5 })).toEqual([]);
    });

    it("returns limit hits when that many allowed tools match", async () => {
      const all = widgets(120);
      const index = await make(all);
      const allowed = new Set(all.slice(100).map((d) => d.id));
      expect(index.search("widget", { limit: 8, allowed }).length).toBe(8);
      expect(index.search("widget", { limit: 8 }).length).toBe(8);
    });

    it("suggests close allowed ids for an unknown id", async () => {
      const index = await make();
      expect(index.suggest("mcp:github:create-issue")[0]).toBe("mcp:github:create_issue");
      expect(index.suggest("read_fille")[0]).toBe("core:read_file");
      expect(index.suggest("mcp:github:create-issue", new Set(["mcp:gitlab:create_issue"]))).toEqual(["mcp:gitlab:create_issue"]);
      expect(index.suggest("zzzzzzzzzzzzzzzz")).toEqual([]);
      expect(index.suggest("read_file", undefined, 1)).toHaveLength(1);
    });

    it("get() hides docs outside allowed", async () => {
      const index = await make();
      expect(index.get("core:read_file")?.name).toBe("read_file");
      expect(index.get("core:read_file", new Set())).toBeUndefined();
    });
  });
}
