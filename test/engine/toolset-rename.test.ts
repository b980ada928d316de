/**
 * One meaning per name: a tool's provider ("core", a plugin id, an MCP server name) is its
 * `toolset`; `owner` is the caller's owner rights only. A custom source that still names its
 * provider `owner` fails with the new name where sources are given (createToolSearch).
 */
import { afterEach, describe, expect, it } from "vitest";
import { ConfigInvalidError, type CatalogSource, type ToolSearchEngine } from "../../src/index.js";
import { fixtureEngine } from "./helpers.js";

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

describe("CatalogSource.owner → CatalogSource.toolset", () => {
  const legacy = { source: "plugin", owner: "legacy", tools: () => [] } as unknown as CatalogSource;

  it("a custom source that still names its provider `owner` is refused by name", async () => {
    const started = fixtureEngine({ sources: [legacy] });
    await expect(started).rejects.toBeInstanceOf(ConfigInvalidError);
    await expect(fixtureEngine({ sources: [legacy] })).rejects.toThrow("createToolSearch.sources.0: CatalogSource.owner was renamed toolset");
  });

  it("one that has both is a toolset source (owner is then just an unused property)", async () => {
    const both = { source: "plugin", owner: "old", toolset: "legacy", tools: () => [] } as CatalogSource;
    engine = await fixtureEngine({ sources: [both] });
    expect(engine.catalogStatus().sources).toEqual([expect.objectContaining({ source: "plugin", toolset: "legacy", ok: true })]);
  });

  it("hits, descriptions and hook calls carry toolset, not owner", async () => {
    const seen: Array<Record<string, unknown>> = [];
    engine = await fixtureEngine({ hooks: { beforeToolCall: (call) => void seen.push({ ...call }) } });
    const run = await engine.prepareRun({ sessionId: "s" });
    const [hit] = await run.search("create issue");
    expect(hit).toMatchObject({ id: "plugin:github:create_issue", toolset: "github" });
    expect(hit).not.toHaveProperty("owner");
    expect(await run.describe("plugin:github:create_issue")).toMatchObject({ toolset: "github" });
    await run.call("plugin:github:create_issue", { repo: "a/b", title: "t" });
    expect(seen[0]).toMatchObject({ toolset: "github" });
    expect(seen[0]).not.toHaveProperty("owner");
  });
});
