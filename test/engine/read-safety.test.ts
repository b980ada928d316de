/**
 * Safety in ranking through the engine (issue 35): a request that only asks to read never gets a
 * destructive tool first when a non-destructive one matches it comparably; a request to change
 * something keeps its order. Over the README's real MCP servers (memory, filesystem: spawned over
 * stdio, listed through the official SDK), whose tool annotations the catalog carries, and over
 * core tools that declare annotations themselves; `run.explain` shows the move as its own step.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  coreTools,
  createToolSearch,
  mcpServer,
  type DetailedHit,
  type ListStep,
  type RankStep,
  type ToolDefinition,
  type ToolSearchEngine,
} from "../../src/index.js";

const require = createRequire(import.meta.url);
const entry = (pkg: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");
const safetyStep = (hit: DetailedHit | undefined) => hit?.detail.steps.find((s): s is Extract<RankStep, { step: "safety" }> => s.step === "safety");

let engine: ToolSearchEngine;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "toolsearch-read-safety-"));
  engine = await createToolSearch({
    toolSearch: { mode: "tools" },
    sources: [
      mcpServer({
        name: "memory",
        command: process.execPath,
        args: [entry("@modelcontextprotocol/server-memory")],
        env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") },
      }),
      mcpServer({ name: "filesystem", command: process.execPath, args: [entry("@modelcontextprotocol/server-filesystem"), dir] }),
    ],
  });
}, 30_000);
afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function ids(query: string, limit = 5): Promise<string[]> {
  const run = await engine.prepareRun({ sessionId: `read-safety-${query}` });
  try {
    return (await run.search(query, { limit })).map((h) => h.id);
  } finally {
    await run.end();
  }
}

describe("read requests over the memory server", () => {
  it('"list everything in the knowledge graph" ranks read_graph first, not delete_relations', async () => {
    const hits = await ids("list everything in the knowledge graph");
    expect(hits[0]).toBe("mcp:memory:read_graph");
    expect(hits.indexOf("mcp:memory:delete_relations")).not.toBe(0);
  });

  it('"delete a person" (a change) ranks delete_entities before delete_observations', async () => {
    const hits = await ids("delete a person");
    expect(hits[0]).toBe("mcp:memory:delete_entities");
    expect(hits.indexOf("mcp:memory:delete_entities")).toBeLessThan(hits.indexOf("mcp:memory:delete_observations"));
  });
});

describe("annotations carried from the MCP listing", () => {
  it("filesystem's move_file, destructive only by its destructiveHint, falls below the listing tools for a read request; explain says so", async () => {
    const run = await engine.prepareRun({ sessionId: "read-safety-explain" });
    try {
      const hits = await run.explain("what files are in the folder", { limit: 20, detail: true });
      expect(hits[0]?.id).toBe("mcp:filesystem:list_directory");
      const moved = hits.find((h) => h.id === "mcp:filesystem:move_file");
      // Its text ranked it among the first; the safety step moved it below the comparable read-only tools.
      const textRank = moved?.detail.steps.find((s): s is ListStep => s.step === "whole")?.rank;
      expect(textRank).toBeLessThanOrEqual(3);
      expect(safetyStep(moved)).toMatchObject({ step: "safety", from: textRank });
      expect(safetyStep(moved)!.to).toBe(hits.indexOf(moved!) + 1);
      expect(safetyStep(moved)!.to).toBeGreaterThan(textRank!);
      expect(safetyStep(hits[0])).toBeUndefined();
    } finally {
      await run.end();
    }
  });
});

describe("core tools that declare annotations", () => {
  const tool = (name: string, description: string, annotations?: ToolDefinition["annotations"]): ToolDefinition => ({
    name,
    description,
    inputSchema: { type: "object" },
    execute: () => name,
    ...(annotations ? { annotations } : {}),
  });
  let core: ToolSearchEngine;
  beforeAll(async () => {
    core = await createToolSearch({
      toolSearch: { mode: "tools" },
      sources: [
        coreTools([
          tool("cache_entries_purge", "Empties the cache entries of the cache: every cache entry is gone.", { destructiveHint: true }),
          tool("cache_stats", "Cache entries: counts and sizes of the cache."),
          tool("weather", "Weather forecast for a city."),
        ]),
      ],
    });
  });
  afterAll(() => core?.close());

  it("a read request gets the non-destructive tool first; a request to change keeps the destructive one first", async () => {
    const run = await core.prepareRun({ sessionId: "core-safety" });
    try {
      const read = await run.explain("show the cache entries", { limit: 3, detail: true });
      expect(read.map((h) => h.id)).toEqual(["core:cache_stats", "core:cache_entries_purge"]);
      expect(safetyStep(read[1])).toMatchObject({ from: 1, to: 2 });
      expect(safetyStep(read[1])?.label).toMatch(/destructive/);
      const change = await run.search("empty the cache entries", { limit: 3 });
      expect(change[0]?.id).toBe("core:cache_entries_purge");
    } finally {
      await run.end();
    }
  });
});
