/** Pins the public API: what src/index.ts exports is the promise; the package self-imports as "toolsearch". */
import { describe, expect, it } from "vitest";
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
        "EVENT_CHANNEL",
        "EngineClosedError",
        "HookBlockedError",
        "InvalidArgsError",
        "NameCollisionError",
        "PolicyDeniedError",
        "PoolSaturatedError",
        "SandboxUnavailableError",
        "TOOL_SEARCH_MODES",
        "ToolFailedError",
        "ToolNotFoundError",
        "ToolSearchEngine",
        "ToolSearchError",
        "ToolSearchRun",
        "ToolTimeoutError",
        "ToolUnavailableError",
        "coreTools",
        "createCodePool",
        "createToolSearch",
        "fts5Backend",
        "jsonlSessionLog",
        "mcpServer",
        "McpServerSource",
        "minisearchBackend",
        "pluginTools",
        "resolveToolSearchConfig",
      ].sort(),
    );
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
});
