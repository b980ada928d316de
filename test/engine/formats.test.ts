/** run.toolsFor: the same surface in each provider format, names a format forbids mapped and mapped back. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodePool, type CodePool, type ToolSearchEngine } from "../../src/index.js";
import { formatTools, mapNames, FORMAT_NAME_RULES } from "../../src/surfaces/formats.js";
import { fixtureEngine, parse } from "./helpers.js";

let pool: CodePool;
let engine: ToolSearchEngine;
beforeAll(async () => {
  pool = await createCodePool({ prefork: 1 });
  engine = await fixtureEngine({ codePool: pool });
});
afterAll(async () => {
  await engine.close();
  await pool.close();
});

const MODES = ["direct", "code", "tools", "directory"] as const;

describe("run.toolsFor", () => {
  it.each(MODES)("%s: the three formats carry the same tools, schemas and instructions", async (mode) => {
    const run = await engine.prepareRun({ sessionId: `f-${mode}`, mode, prompt: "weather forecast in Paris" });
    const chat = run.toolsFor("openai-chat");
    const responses = run.toolsFor("openai-responses");
    const anthropic = run.toolsFor("anthropic");
    expect(chat).toEqual(run.tools);
    expect(chat.length).toBeGreaterThan(0);
    expect(responses).toEqual(
      chat.map((t) => ({ type: "function", name: t.function.name, description: t.function.description, parameters: t.function.parameters, strict: false })),
    );
    expect(anthropic).toEqual(chat.map((t) => ({ name: t.function.name, description: t.function.description, input_schema: t.function.parameters })));
    // Mapped once per run: the same arrays again.
    expect(run.toolsFor("anthropic")).toBe(anthropic);
    await run.end();
  });

  it("answers calls whose arguments are a JSON string (OpenAI) or an object (Anthropic)", async () => {
    const run = await engine.prepareRun({ sessionId: "f-args", mode: "direct" });
    const asString = parse(await run.handleToolCall({ id: "call_1", name: "get_weather_forecast", arguments: '{"city":"Paris"}' }));
    const asObject = parse(await run.handleToolCall({ id: "toolu_1", name: "get_weather_forecast", arguments: { city: "Paris" } }));
    expect(asObject).toEqual(asString);
    expect(asObject).toEqual({ city: "Paris", forecast: "sunny", days: 1 });
    await run.end();
  });

  it("refuses an oversized argument string before parsing it", async () => {
    const run = await engine.prepareRun({ sessionId: "f-big", mode: "direct" });
    const huge = `{"city":"${"x".repeat(4_000_000)}"}`;
    expect(parse(await run.handleToolCall({ name: "get_weather_forecast", arguments: huge }))).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    await run.end();
  });

  it("rejects an unknown format with CONFIG_INVALID (API misuse)", async () => {
    const run = await engine.prepareRun({ sessionId: "f-bad" });
    expect(() => run.toolsFor("gemini" as never)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    await run.end();
  });
});

describe("names a format forbids", () => {
  it("are mapped to unique accepted names, and the accepted ones kept", () => {
    const names = mapNames(["ok_name", "has.dot", "has_dot", "x".repeat(80), "sp ace"], FORMAT_NAME_RULES.anthropic);
    expect(names[0]).toBe("ok_name");
    expect(names[2]).toBe("has_dot");
    expect(names[1]).toBe("has_dot_2");
    expect(names[3]).toHaveLength(64);
    expect(names[4]).toBe("sp_ace");
    expect(names.every((n) => FORMAT_NAME_RULES.anthropic.test(n))).toBe(true);
  });

  it("are mapped back when the model calls them", () => {
    const tools = [
      { type: "function" as const, function: { name: "weird.name", description: "d", parameters: { type: "object" } } },
      { type: "function" as const, function: { name: "fine", description: "d", parameters: {} } },
    ];
    const { tools: anthropic, renamed } = formatTools(tools, "anthropic");
    expect(anthropic.map((t) => t.name)).toEqual(["weird_name", "fine"]);
    expect(anthropic[1]!.input_schema).toEqual({ type: "object" });
    expect([...renamed]).toEqual([["weird_name", "weird.name"]]);
  });
});
