/** Pins the public API: what src/index.ts exports is the promise; the package self-imports as "toolsearch". */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, expectTypeOf, it } from "vitest";
import * as api from "../src/index.js";

describe("public exports", () => {
  it("exports exactly the promised runtime values", () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        "AmbiguousToolNameError",
        "ApprovalDeniedError",
        "CodeError",
        "ConfigInvalidError",
        "DEFAULT_SETTINGS",
        "ERROR_CHANNEL",
        "EVENT_CHANNEL",
        "EngineClosedError",
        "HookBlockedError",
        "InternalError",
        "InvalidArgsError",
        "NameCollisionError",
        "CancelledError",
        "PoolSaturatedError",
        "ProviderFailedError",
        "TurnBudgetError",
        "runAgentTurn",
        "MAX_CALLS_PER_RESPONSE",
        "SandboxUnavailableError",
        "TOOL_SEARCH_MODES",
        "TOOL_FORMATS",
        "ToolFailedError",
        "ToolNotFoundError",
        "ToolSearchError",
        "ToolTimeoutError",
        "ToolUnavailableError",
        "ToolBusyError",
        "coreTools",
        "createCodePool",
        "createToolSearch",
        "bm25fBackend",
        "fts5Backend",
        "jsonlSessionLog",
        "mcpServer",
        "memoryLearningStore",
        "minisearchBackend",
        "pluginTools",
        "resolveToolSearchConfig",
        "journalLearningStore",
      ].sort(),
    );
  });

  it("the engine, a run, an MCP source and a pool are types without constructors or test seams", () => {
    // createToolSearch and engine.prepareRun are the ways in; the classes are not values of the API.
    expect("ToolSearchEngine" in api).toBe(false);
    expect("ToolSearchRun" in api).toBe(false);
    expect("McpServerSource" in api).toBe(false);
    expectTypeOf<api.CodePool>().not.toHaveProperty("childPids");
    expectTypeOf<api.CodePool>().not.toHaveProperty("launchPlan");
    expectTypeOf<api.CodePool>().not.toHaveProperty("whenReady");
    expectTypeOf(api.createCodePool).returns.resolves.toEqualTypeOf<api.CodePool>();
    const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/src");
    const run = readFileSync(path.join(dist, "engine/run.d.ts"), "utf8");
    const engine = readFileSync(path.join(dist, "engine/engine.d.ts"), "utf8");
    for (const [file, text] of [
      ["run.d.ts", run],
      ["engine.d.ts", engine],
    ] as const) {
      expect(text, file).not.toMatch(/\bconstructor\(/);
    }
    expect(run).not.toMatch(/declaredTools|visibleToolIds/);
    expect(engine).not.toMatch(/\bstart\(\)/);
  });

  it("run.explain's detail is typed by the option: the explain types are part of the API", () => {
    // Pinned on purpose (issue 23): { detail: true } gives DetailedHit, without it ExplainedHit as before.
    expectTypeOf<api.ToolSearchRun["explain"]>().toBeCallableWith("q", { limit: 3, detail: true });
    expectTypeOf<ReturnType<typeof detailed>>().resolves.toEqualTypeOf<api.DetailedHit[]>();
    expectTypeOf<ReturnType<typeof plain>>().resolves.toEqualTypeOf<api.ExplainedHit[]>();
    expectTypeOf<api.DetailedHit["detail"]>().toEqualTypeOf<api.ExplainDetail>();
    expectTypeOf<api.ExplainDetail["steps"][number]>().toEqualTypeOf<api.RankStep>();
    expectTypeOf<api.ListStep["bm25f"]>().toEqualTypeOf<api.ScoreDetail | undefined>();
    expectTypeOf<api.ScoreDetail["words"][number]>().toEqualTypeOf<api.WordScore>();
    expectTypeOf<keyof api.WordScore["fields"]>().toEqualTypeOf<api.FieldName>();
    expectTypeOf<api.ExplainOptions>().toMatchTypeOf<api.SearchOptions>();
  });

  it("errors are ToolSearchError subclasses with stable codes", () => {
    const error = new api.ToolNotFoundError("core:x", ["core:y"]);
    expect(error).toBeInstanceOf(api.ToolSearchError);
    expect(error.code).toBe("TOOL_NOT_FOUND");
    expect(error.toJSON()).toEqual({ code: "TOOL_NOT_FOUND", message: 'No tool with id "core:x". Did you mean: core:y?' });
  });

  it("resolves as the package name from the built dist", async () => {
    const pkg = (await import("toolsearch" as string)) as typeof api;
    expect(typeof pkg.createToolSearch).toBe("function");
    expect(Object.keys(pkg).sort()).toEqual(Object.keys(api).sort());
  });

  it("toolsearch/ai-sdk is a separate entry point; the core never imports ai or the OpenTelemetry SDK statically", async () => {
    const aiSdk = (await import("toolsearch/ai-sdk" as string)) as Record<string, unknown>;
    expect(Object.keys(aiSdk)).toEqual(["aiSdkTools"]);
    const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/src");
    const files = (readdirSync(dist, { recursive: true }) as string[]).filter((f) => f.endsWith(".js") && !f.startsWith("ai-sdk"));
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      const text = readFileSync(path.join(dist, file), "utf8");
      expect(text, file).not.toMatch(/from\s+["']ai(\/[^"']*)?["']|import\(["']ai["']\)/);
      expect(text, file).not.toMatch(/from\s+["']@opentelemetry\/(?!api["'])/);
      expect(text, file).not.toMatch(/from\s+["']@anthropic-ai\/sdk["']/);
    }
  });
});

const detailed = (run: api.ToolSearchRun) => run.explain("q", { detail: true });
const plain = (run: api.ToolSearchRun) => run.explain("q", { limit: 2 });
