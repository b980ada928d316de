/**
 * A learned store at (and past) its bounds, planted in the folder before the engine starts: the
 * engine starts and answers without waiting for it, loads it in slices, keeps only what its
 * bounds allow, and closes promptly even while it is still loading.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { coreTools, createToolSearch, journalLearningStore, type LearnedRow, type ToolDefinition } from "../../src/index.js";
import { definedProps } from "../../src/defined.js";

const TOOLS: ToolDefinition[] = Array.from({ length: 1_000 }, (_, i) => ({
  name: `tool_${i}`,
  description: `Synthetic tool ${i}.`,
  inputSchema: { type: "object", properties: {} },
  execute: () => i,
}));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `n` records in `scopes` agent scopes over the catalog (no tenant: only the total bound applies). */
function planted(n: number, scopes: number): LearnedRow[] {
  const seen = ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb", "cccccccccccccccc"];
  return Array.from({ length: n }, (_, i) => ({
    scope: `agent:a${i % scopes}`,
    tool: `core:tool_${Math.floor(i / scopes) % TOOLS.length}`,
    term: `#t${Math.floor(i / (scopes * TOOLS.length))}`,
    count: 2,
    sessions: 3,
    at: Date.now(),
    seen,
  }));
}

async function plantStore(rows: LearnedRow[]): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-full-store-"));
  dirs.push(dir);
  const store = journalLearningStore({ dir, learning: { enabled: true } });
  await store.append(rows);
  await store.close?.();
  return dir;
}

const engineOn = (dir: string, maxRecords?: number) =>
  createToolSearch({
    toolSearch: { mode: "tools", indexCacheDir: dir, learning: { enabled: true, ...definedProps({ maxRecords }) } },
    sources: [coreTools(TOOLS)],
  });

describe("a planted store at its bounds", () => {
  it("300,000 rows: the engine starts and searches before the store is in, then holds what maxRecords allows", async () => {
    const dir = await plantStore(planted(300_000, 2));
    const engine = await engineOn(dir, 200_000);
    // Started and answering while the store still loads.
    expect(engine.learning!.stats().loaded).toBe(false);
    const run = await engine.prepareRun({ sessionId: "s", agentId: "a0" });
    expect((await run.search("synthetic tool 7")).map((h) => h.id)).toContain("core:tool_7");
    await run.end();
    await engine.learning!.ready();
    const { loaded, records } = engine.learning!.stats();
    expect(loaded).toBe(true);
    // Whole tool bags (150 records here) go past the bound, least recently taught first.
    expect(records).toBeLessThanOrEqual(200_000);
    expect(records).toBeGreaterThan(199_500);
    await engine.close();
  });

  it("closing while the store loads ends the load: close does not wait for the rest", async () => {
    const dir = await plantStore(planted(200_000, 2));
    const engine = await engineOn(dir);
    await engine.close();
    // What was merged when the close came is all there is: the load stopped part way.
    expect(engine.learning!.stats().records).toBeLessThan(200_000);
  });
});
