/** direct and tools surfaces: what the provider is sent, and how model tool calls are answered. */
import { afterEach, describe, expect, it } from "vitest";
import type { ToolSearchEngine } from "../../src/index.js";
import { weatherTools } from "../fixtures/tools.js";
import { fixtureEngine, parse } from "./helpers.js";

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

describe("direct surface", () => {
  it("declares every effective schema and calls tools by function name", async () => {
    const recorder = { ran: [] as string[] };
    engine = await fixtureEngine({ toolSearch: false }, recorder);
    const run = await engine.prepareRun({ sessionId: "s" });
    expect(run.mode).toBe("direct");
    expect(run.instructions).toBe("");
    const names = run.tools.map((t) => t.function.name);
    expect(names).toEqual(["get_weather_forecast", "send_email", "create_issue", "list_pull_requests", "fail_always"]);
    expect(run.tools[0]?.function.parameters).toMatchObject({ required: ["city"] });
    expect(await run.handleToolCall({ name: "send_email", arguments: '{"to":"a@b.c","subject":"hi"}' })).toBe("sent to a@b.c");
    expect(parse(await run.handleToolCall({ name: "get_weather_forecast", arguments: '{"city":"Paris"}' }))).toEqual({
      city: "Paris",
      forecast: "sunny",
      days: 1,
    });
    expect(recorder.ran).toEqual(["send_email", "get_weather_forecast"]);
    const t = run.telemetry();
    expect(t).toMatchObject({ mode: "direct", requestedMode: "direct", upfront: { schemas: 5, declaredTools: 5 }, counts: { call: 2, search: 0 } });
    expect(t.upfront.toolsBytes).toBe(Buffer.byteLength(JSON.stringify(run.tools)));
    expect(t.calls.map((c) => c.via)).toEqual(["direct", "direct"]);
  });

  it("qualifies names that collide across toolsets", async () => {
    const { createToolSearch, coreTools, pluginTools } = await import("../../src/index.js");
    const def = (name: string) => ({ name, description: name, inputSchema: { type: "object" }, execute: () => name });
    engine = await createToolSearch({ toolSearch: false, sources: [coreTools([def("search")]), pluginTools("web", [def("search")])] });
    const run = await engine.prepareRun({ sessionId: "s" });
    expect(run.tools.map((t) => t.function.name)).toEqual(["core__search", "web__search"]);
    expect(await run.handleToolCall({ name: "web__search", arguments: "{}" })).toBe("search");
  });
});

describe("tools surface", () => {
  it("declares only the three control tools and walks search → describe → call", async () => {
    engine = await fixtureEngine();
    const run = await engine.prepareRun({ sessionId: "s" });
    expect(run.mode).toBe("tools");
    expect(run.tools.map((t) => t.function.name)).toEqual(["tool_search", "tool_describe", "tool_call"]);
    // No catalog tool's name or schema is declared up front: the three control tools are all.
    expect(run.tools.map((t) => t.function.description).join(" ")).not.toContain("get_weather_forecast");
    expect(Object.keys(run.tools[2]!.function.parameters.properties as object)).not.toContain("city");
    expect(run.instructions).toContain("tool_search");

    const found = parse(await run.handleToolCall({ name: "tool_search", arguments: '{"query":"weather forecast for a city"}' }));
    const hits = found.hits as Array<Record<string, unknown>>;
    expect(hits[0]).toMatchObject({
      id: "core:get_weather_forecast",
      name: "get_weather_forecast",
      source: "core",
      toolset: "core",
      signature: "(city: string, days?: integer)",
    });
    expect(String(hits[0]?.summary).length).toBeLessThanOrEqual(200);

    const described = parse(await run.handleToolCall({ name: "tool_describe", arguments: JSON.stringify({ id: hits[0]?.id }) }));
    expect(described.inputSchema).toEqual(weatherTools()[0]?.inputSchema);

    const called = parse(await run.handleToolCall({ name: "tool_call", arguments: JSON.stringify({ id: hits[0]?.id, args: { city: "Paris", days: 2 } }) }));
    expect(called).toEqual({ ok: true, id: "core:get_weather_forecast", source: "core", result: { city: "Paris", forecast: "sunny", days: 2 } });

    expect(run.telemetry()).toMatchObject({ upfront: { schemas: 0, declaredTools: 3 }, counts: { search: 1, describe: 1, call: 1, codeRuns: 0 } });
    expect(run.telemetry().calls).toEqual([expect.objectContaining({ id: "core:get_weather_forecast", source: "core", ok: true, via: "tool_call" })]);
  });

  it("answers batch searches inside one budget", async () => {
    engine = await fixtureEngine({ toolSearch: { mode: "tools", maxSearchLimit: 4 } });
    const run = await engine.prepareRun({ sessionId: "s" });
    const answer = parse(await run.handleToolCall({ name: "tool_search", arguments: '{"queries":["weather","email","issue"],"limit":4}' }));
    const results = answer.results as Array<{ query: string; hits: unknown[] }>;
    expect(results.map((r) => r.query)).toEqual(["weather", "email", "issue"]);
    expect(results.reduce((n, r) => n + r.hits.length, 0)).toBeLessThanOrEqual(4);
    expect(results.every((r) => r.hits.length >= 1)).toBe(true);
  });

  it("gives a clear error result, never a throw, for malformed calls", async () => {
    engine = await fixtureEngine();
    const run = await engine.prepareRun({ sessionId: "s" });
    const cases: Array<[Parameters<typeof run.handleToolCall>[0], string, RegExp]> = [
      [{ name: "tool_search", arguments: "{not json" }, "INVALID_ARGS", /not valid JSON/],
      [{ name: "tool_search", arguments: "[1,2]" }, "INVALID_ARGS", /must be a JSON object/],
      [
        { name: "tool_frobnicate", arguments: "{}" },
        "TOOL_NOT_FOUND",
        /No tool with id "tool_frobnicate"\. Did you mean: tool_search, tool_describe, tool_call\?/,
      ],
      [{ name: "tool_search", arguments: "{}" }, "INVALID_ARGS", /needs "query"/],
      [{ name: "tool_search", arguments: '{"query":"x","limit":"many"}' }, "INVALID_ARGS", /limit must be a positive integer; got "many"/],
      // The same rules as the code-mode bridge (src/validation/search-args.ts): no fractional limit, no blank query.
      [{ name: "tool_search", arguments: '{"query":"x","limit":2.5}' }, "INVALID_ARGS", /limit must be a positive integer; got 2.5/],
      [{ name: "tool_search", arguments: '{"query":"  "}' }, "INVALID_ARGS", /non-blank query/],
      [{ name: "tool_search", arguments: '{"queries":["a",""]}' }, "INVALID_ARGS", /non-blank query/],
      [{ name: "tool_describe", arguments: '{"id":"core:nope"}' }, "TOOL_NOT_FOUND", /No tool with id "core:nope"/],
      [{ name: "tool_call", arguments: '{"id":"core:send_email","args":"{bad"}' }, "INVALID_ARGS", /args/],
      [{ name: 42 as unknown as string }, "INVALID_ARGS", /needs a name/],
    ];
    for (const [call, code, message] of cases) {
      const result = parse(await run.handleToolCall(call));
      expect(result, JSON.stringify(call)).toMatchObject({ ok: false, error: { code } });
      expect((result.error as { message: string }).message).toMatch(message);
    }
  });

  it("search rules: select:, exact name first, no usable terms → [], limit clamped", async () => {
    engine = await fixtureEngine({ toolSearch: { mode: "tools", maxSearchLimit: 3 } });
    const run = await engine.prepareRun({ sessionId: "s" });
    expect((await run.search("select:send_email")).map((h) => h.id)).toEqual(["core:send_email"]);
    expect((await run.search("create_issue"))[0]?.id).toBe("plugin:github:create_issue");
    expect(await run.search("the of and ?!")).toEqual([]);
    expect((await run.search("github repository pull requests issue weather email", { limit: 50 })).length).toBeLessThanOrEqual(3);
  });

  it("ended runs refuse further work and report it", async () => {
    engine = await fixtureEngine();
    const run = await engine.prepareRun({ sessionId: "s" });
    await run.end();
    expect(parse(await run.handleToolCall({ name: "tool_search", arguments: '{"query":"x"}' }))).toMatchObject({ ok: false, error: { code: "ENGINE_CLOSED" } });
    await expect(run.search("x")).rejects.toMatchObject({ code: "ENGINE_CLOSED" });
  });
});

describe("options", () => {
  it("reject bad input with the option, the value and what is allowed", async () => {
    const { createToolSearch } = await import("../../src/index.js");
    await expect(createToolSearch({ toolSearch: { mode: "fast" as "code" } })).rejects.toThrow(
      /tools\.toolSearch\.mode: must be one of "direct", "code", "tools", "directory"; got "fast"/,
    );
    await expect(createToolSearch({ backend: "tantivy" as "bm25f" })).rejects.toThrow(/backend: must be "bm25f", "minisearch"/);
    await expect(createToolSearch({ nope: 1 } as never)).rejects.toThrow(/unknown option "nope"/);
    await expect(createToolSearch({ hooks: { approve: 5 as never } })).rejects.toThrow(
      /hooks\.approve: must be a function or an array of functions; got 5 \(number\)/,
    );
    await expect(createToolSearch({ hooks: { beforeToolcall: () => {} } as never })).rejects.toThrow(/hooks: unknown option "beforeToolcall"/);
    await expect(createToolSearch({ limits: { argsDepth: 0 } })).rejects.toThrow(/limits\.argsDepth: must be an integer from 1 to 10000; got 0/);
    await expect(createToolSearch({ toolSearch: false, pool: { prefork: -1 } })).rejects.toThrow(/pool\.prefork: must be an integer from 0 to 64; got -1/);
    engine = await fixtureEngine();
    await expect(engine.prepareRun({} as never)).rejects.toThrow(/sessionId: must be a non-empty string/);
    await expect(engine.prepareRun({ sessionId: "s", mode: "fast" } as never)).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });
});

describe("the surface table", () => {
  it("registers one surface per mode; runs without client tools share a direct declaration", async () => {
    const { SURFACES } = await import("../../src/surfaces/modes.js");
    const { TOOL_SEARCH_MODES } = await import("../../src/index.js");
    expect(Object.keys(SURFACES).sort()).toEqual([...TOOL_SEARCH_MODES].sort());
    expect(
      Object.entries(SURFACES)
        .filter(([, mode]) => mode.sandboxFallback !== undefined)
        .map(([name]) => name),
    ).toEqual(["code"]);
    engine = await fixtureEngine({ toolSearch: false });
    const [a, b] = [await engine.prepareRun({ sessionId: "a" }), await engine.prepareRun({ sessionId: "b" })];
    expect(a.tools).toBe(b.tools);
    expect(a.telemetry().upfront).toEqual(b.telemetry().upfront);
    const withClient = await engine.prepareRun({
      sessionId: "c",
      clientTools: weatherTools()
        .slice(0, 1)
        .map((t) => ({ ...t, name: "ask_user" })),
    });
    expect(withClient.tools).not.toBe(a.tools);
    expect(withClient.tools.map((t) => t.function.name)).toContain("ask_user");
  });
});
