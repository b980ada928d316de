/** Control-tool and bridge arguments are strict: nothing a model sends is dropped without a word. */
import { afterEach, describe, expect, it } from "vitest";
import type { ToolSearchEngine } from "../../src/index.js";
import { fixtureEngine, parse } from "../engine/helpers.js";

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

async function toolsRun(recorder = { ran: [] as string[] }) {
  engine = await fixtureEngine({}, recorder);
  return engine.prepareRun({ sessionId: "s" });
}

describe("tool_call arguments", () => {
  it("takes `arguments` as another name for `args`, so the tool runs with what was sent", async () => {
    const recorder = { ran: [] as string[] };
    const run = await toolsRun(recorder);
    const answer = parse(
      await run.handleToolCall({ name: "tool_call", arguments: JSON.stringify({ id: "core:get_weather_forecast", arguments: { city: "Oslo", days: 2 } }) }),
    );
    expect(answer).toMatchObject({ ok: true, id: "core:get_weather_forecast", result: { city: "Oslo", forecast: "sunny", days: 2 } });
    expect(recorder.ran).toEqual(["get_weather_forecast"]);
  });

  it("refuses `args` and `arguments` together, and names the key", async () => {
    const run = await toolsRun();
    const answer = parse(
      await run.handleToolCall({
        name: "tool_call",
        arguments: JSON.stringify({ id: "core:get_weather_forecast", args: { city: "A" }, arguments: { city: "B" } }),
      }),
    );
    expect(answer).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    expect(JSON.stringify(answer)).toContain("not both");
  });

  it("refuses an unknown key with INVALID_ARGS naming it and the key that was meant; the tool does not run", async () => {
    const recorder = { ran: [] as string[] };
    const run = await toolsRun(recorder);
    const answer = parse(
      await run.handleToolCall({ name: "tool_call", arguments: JSON.stringify({ id: "core:get_weather_forecast", params: { city: "Oslo" } }) }),
    );
    expect(answer).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    const message = (answer.error as { message: string }).message;
    expect(message).toContain('"params"');
    expect(message).toContain('Use "args" instead');
    expect(recorder.ran).toEqual([]);
    const typo = parse(await run.handleToolCall({ name: "tool_call", arguments: JSON.stringify({ idd: "core:get_weather_forecast", args: {} }) }));
    expect((typo.error as { message: string }).message).toContain('Use "id" instead');
  });
});

describe("tool_search and tool_describe arguments", () => {
  it("refuse unknown keys and a query given twice", async () => {
    const run = await toolsRun();
    const extra = parse(await run.handleToolCall({ name: "tool_search", arguments: JSON.stringify({ query: "weather", top_k: 3 }) }));
    expect(extra).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    expect((extra.error as { message: string }).message).toContain('Use "limit" instead');
    const both = parse(await run.handleToolCall({ name: "tool_search", arguments: JSON.stringify({ query: "weather", queries: ["mail"] }) }));
    expect(both).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    const describe = parse(await run.handleToolCall({ name: "tool_describe", arguments: JSON.stringify({ id: "core:send_email", verbose: true }) }));
    expect(describe).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
    expect((describe.error as { message: string }).message).toContain('"verbose"');
  });

  it("the library's search refuses an unknown option the same way", async () => {
    const run = await toolsRun();
    await expect(run.search("weather", { limit: 2, fuzzy: true } as never)).rejects.toMatchObject({ code: "INVALID_ARGS" });
    expect((await run.search("weather", { limit: 2 })).length).toBeGreaterThan(0);
  });
});

describe("bridge arguments", () => {
  it("a body's extra argument or unknown option is refused inside the body, not dropped", async () => {
    engine = await fixtureEngine({ toolSearch: { mode: "code" } });
    const run = await engine.prepareRun({ sessionId: "s" });
    const body = `
      const codes = [];
      for (const attempt of [
        () => openclaw.tools.call("core:get_weather_forecast", { city: "Oslo" }, { timeout: 5 }),
        () => openclaw.tools.search("weather", { limit: 2, fuzzy: true }),
        () => openclaw.tools.describe("core:send_email", "extra"),
      ]) {
        try { await attempt(); codes.push("ran"); } catch (e) { codes.push(e.code + ":" + e.message); }
      }
      const ok = await openclaw.tools.call("core:get_weather_forecast", { city: "Oslo" });
      return { codes, ok };`;
    const answer = parse(await run.handleToolCall({ name: "tool_search_code", arguments: JSON.stringify({ code: body }) }));
    const { codes, ok } = answer.value as { codes: string[]; ok: unknown };
    expect(codes).toHaveLength(3);
    expect(codes[0]).toMatch(/^INVALID_ARGS:openclaw\.tools\.call\(id, args\) takes 2 arguments; got 3/);
    expect(codes[1]).toMatch(/^INVALID_ARGS:.*"fuzzy"/);
    expect(codes[2]).toMatch(/^INVALID_ARGS:openclaw\.tools\.describe\(id\)/);
    expect(ok).toMatchObject({ city: "Oslo" });
  });
});
