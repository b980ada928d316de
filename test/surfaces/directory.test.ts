/** Directory mode: bounded directory, likely schemas, hidden exact-name dispatch, collisions. */
import { afterEach, describe, expect, it } from "vitest";
import { sealToolDefinitions } from "../../bench/lib/seal-tool-definitions.js";
import { sharedDataDir } from "../../bench/lib/shared-data.js";
import { createToolSearch, coreTools, pluginTools, type ToolSearchEngine } from "../../src/index.js";
import { githubTools, weatherTools } from "../fixtures/tools.js";

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

const dataDir = sharedDataDir();
const parse = (text: string) => JSON.parse(text) as Record<string, unknown>;

describe.skipIf(dataDir === undefined)("directory over 4,076 Seal-Tools tools", () => {
  it("stays within maxChars, counts what it left out, and never changes with the prompt", async () => {
    const defs = sealToolDefinitions(dataDir!);
    engine = await createToolSearch({
      toolSearch: { mode: "directory", directory: { maxChars: 6000, descriptionChars: 80 } },
      sources: [pluginTools("seal", defs)],
    });
    const a = await engine.prepareRun({ sessionId: "a", prompt: "What is the water quality of the lake?" });
    const b = await engine.prepareRun({ sessionId: "b", prompt: "Book a hotel room in New York" });
    const directory = a.instructions.slice(a.instructions.indexOf("Tool directory"));
    expect(directory.length).toBeLessThanOrEqual(6000);
    expect(b.instructions).toBe(a.instructions);
    const listed = directory.split("\n").filter((line) => / \(seal\): /.test(line));
    expect(listed.length).toBeGreaterThan(20);
    expect(listed.every((line) => line.length <= 80 + line.indexOf(": ") + 2)).toBe(true);
    const footer = /… (\d+) more tools not listed/.exec(directory);
    expect(Number(footer?.[1])).toBe(defs.length - listed.length);

    // likely schemas come from the prompt and are bounded by likelySchemas (4)
    const aDirect = a.tools.slice(3).map((t) => t.function.name);
    expect(aDirect.length).toBeLessThanOrEqual(4);
    expect(aDirect).toContain("getWaterQuality");
    expect(b.tools.slice(3).map((t) => t.function.name)).not.toEqual(aDirect);
    expect(a.telemetry().upfront.schemas).toBe(aDirect.length);
    expect(Buffer.byteLength(JSON.stringify(a.tools)) + Buffer.byteLength(a.instructions)).toBeLessThan(20_000);
  });
});

describe("directory mode", () => {
  it("shows client tools directly and answers hidden exact names through the same call path", async () => {
    const recorder = { ran: [] as string[] };
    const blocked: string[] = [];
    engine = await createToolSearch({
      toolSearch: { mode: "directory", directory: { likelySchemas: 0 } },
      sources: [coreTools(weatherTools(recorder)), pluginTools("github", githubTools(recorder))],
      policy: { deny: ["plugin:github:list_pull_requests"] },
      hooks: { beforeToolCall: (call) => (call.name === "send_email" ? (blocked.push(call.id), { block: true, reason: "no mail" }) : undefined) },
    });
    const ask = { name: "ask_user", description: "Ask the user.", inputSchema: { type: "object" }, execute: () => "blue" };
    const run = await engine.prepareRun({ sessionId: "s", clientTools: [ask] });
    expect(run.tools.map((t) => t.function.name)).toEqual(["tool_search", "tool_describe", "tool_call", "ask_user"]);
    expect(run.instructions).toContain("create_issue (github): Create a new issue in a GitHub repository.");
    expect(run.instructions).not.toContain("list_pull_requests");

    expect(parse(await run.handleToolCall({ name: "create_issue", arguments: '{"repo":"a/b","title":"t"}' }))).toEqual({ number: 42, title: "t" });
    expect(await run.handleToolCall({ name: "ask_user", arguments: "{}" })).toBe("blue");
    // policy: a denied tool is not found by its exact name either, and its execute never runs
    expect(parse(await run.handleToolCall({ name: "list_pull_requests", arguments: '{"repo":"a/b"}' }))).toMatchObject({
      ok: false,
      error: { code: "TOOL_NOT_FOUND" },
    });
    // hooks apply to hidden-name calls
    expect(parse(await run.handleToolCall({ name: "send_email", arguments: '{"to":"x","subject":"y"}' }))).toMatchObject({
      ok: false,
      error: { code: "HOOK_BLOCKED" },
    });
    expect(blocked).toEqual(["core:send_email"]);
    expect(recorder.ran).toEqual(["create_issue"]);
    expect(run.telemetry().calls.map((c) => c.via)).toEqual(["hidden_name", "direct", "hidden_name"]);
  });

  it("an exact name shared by two visible tools is ambiguous, not guessed", async () => {
    const def = (name: string) => ({ name, description: `${name} things`, inputSchema: { type: "object" }, execute: () => name });
    engine = await createToolSearch({
      toolSearch: { mode: "directory", directory: { likelySchemas: 0 } },
      sources: [coreTools([def("search")]), pluginTools("web", [def("search")])],
    });
    const run = await engine.prepareRun({ sessionId: "s" });
    expect(parse(await run.handleToolCall({ name: "search", arguments: "{}" }))).toMatchObject({ ok: false, error: { code: "AMBIGUOUS_TOOL_NAME" } });
  });

  it("rejects a client tool whose name collides with a visible catalog tool, but not with a hidden one", async () => {
    engine = await createToolSearch({ toolSearch: { mode: "directory" }, sources: [coreTools(weatherTools())], policy: { deny: ["core:send_email"] } });
    const clash = { name: "get_weather_forecast", description: "client weather", inputSchema: { type: "object" }, execute: () => null };
    await expect(engine.prepareRun({ sessionId: "s", clientTools: [clash] })).rejects.toMatchObject({
      code: "NAME_COLLISION",
      message: expect.stringContaining("core:get_weather_forecast"),
    });
    const hiddenClash = { ...clash, name: "send_email" };
    await expect(engine.prepareRun({ sessionId: "s", clientTools: [hiddenClash] })).resolves.toBeDefined();
  });

  it("tools marked required are always declared", async () => {
    const tools = weatherTools();
    tools[1]!.required = true;
    engine = await createToolSearch({ toolSearch: { mode: "directory" }, sources: [coreTools(tools)] });
    const run = await engine.prepareRun({ sessionId: "s", prompt: "weather in Paris" });
    const names = run.tools.map((t) => t.function.name);
    expect(names).toContain("send_email");
    expect(names).toContain("get_weather_forecast");
  });
});
