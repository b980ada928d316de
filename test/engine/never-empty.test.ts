/**
 * Never empty through the engine, with the README's memory server (server-memory over stdio):
 * requests that share no word with its tools ("what do you know about Alice", "link Alice to
 * Acme as employee", "forget everything about Bob") used to get no hits; they now get its
 * tools, marked weak, and the tools surface tells the model to rephrase. Policy still filters:
 * a denied tool is never a weak hit either.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolSearch, mcpServer, type ToolSearchEngine } from "../../src/index.js";
import { parse } from "./helpers.js";

const require = createRequire(import.meta.url);
const memoryEntry = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist", "index.js");
const REQUESTS = ["what do you know about Alice", "link Alice to Acme as employee", "forget everything about Bob"];

let engine: ToolSearchEngine;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "toolsearch-never-empty-"));
  engine = await createToolSearch({
    toolSearch: { mode: "tools" },
    sources: [mcpServer({ name: "memory", command: process.execPath, args: [memoryEntry], env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } })],
    policy: { deny: ["mcp:memory:delete_*"] },
  });
}, 30_000);
afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("never empty, with the memory server", () => {
  it("answers requests that share no word with its tools with its allowed tools, marked weak", async () => {
    const run = await engine.prepareRun({ sessionId: "never-empty" });
    try {
      for (const q of REQUESTS) {
        const hits = await run.search(q);
        expect(hits.length, q).toBeGreaterThan(0);
        for (const hit of hits) {
          expect(hit.id.startsWith("mcp:memory:"), q).toBe(true);
          expect(hit.weak, q).toBe(true);
          expect(hit.id.startsWith("mcp:memory:delete_"), q).toBe(false);
        }
      }
      // "know" begins "knowledge", which every memory tool's description says: those come first.
      const first = (await run.search(REQUESTS[0]!))[0]!;
      expect(first.summary.toLowerCase()).toContain("knowledge");
      // A request that matches is not weak.
      const real = await run.search("search nodes in the knowledge graph");
      expect(real[0]?.id).toBe("mcp:memory:search_nodes");
      expect(real.some((h) => h.weak)).toBe(false);
    } finally {
      await run.end();
    }
  });

  it("tells the model on the tools surface that the hits are weak", async () => {
    const run = await engine.prepareRun({ sessionId: "never-empty-tools" });
    try {
      const weak = parse(await run.handleToolCall({ name: "tool_search", arguments: JSON.stringify({ query: REQUESTS[2] }) })) as {
        hits: Array<{ weak?: boolean }>;
        note?: string;
      };
      expect(weak.hits.length).toBeGreaterThan(0);
      expect(weak.hits.every((h) => h.weak === true)).toBe(true);
      expect(weak.note).toMatch(/rephrase/i);
      const real = parse(await run.handleToolCall({ name: "tool_search", arguments: JSON.stringify({ query: "read the graph" }) })) as {
        hits: unknown[];
        note?: string;
      };
      expect(real.note).toBeUndefined();
    } finally {
      await run.end();
    }
  });
});
