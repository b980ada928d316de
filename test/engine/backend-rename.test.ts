/**
 * The default backend is `"bm25f"`, named for its ranking: `"fts5"`, its name while it ranked with
 * an SQLite FTS5 table, is refused with the new name rather than ajv's list of allowed values, and
 * so is the old export `fts5Backend` (renamed `bm25fBackend`) rather than vanishing without a word.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bm25fBackend, ConfigInvalidError, fts5Backend, type ToolSearchEngine } from "../../src/index.js";
import { fixtureEngine } from "./helpers.js";

let engine: ToolSearchEngine | undefined;
let dir: string | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('backend "fts5" → "bm25f"', () => {
  it('refuses "fts5" with CONFIG_INVALID naming "bm25f"', async () => {
    await expect(fixtureEngine({ backend: "fts5" as never })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining('createToolSearch.backend "fts5" was renamed "bm25f"'),
    });
  });

  it("refuses the old export fts5Backend with CONFIG_INVALID naming bm25fBackend, when called", () => {
    expect(() => fts5Backend.create()).toThrow(ConfigInvalidError);
    expect(() => fts5Backend.create()).toThrow(/^fts5Backend was renamed bm25fBackend \(import \{ bm25fBackend \} from "toolsearch"\)/);
  });

  it("refuses fts5Backend given as the backend: createToolSearch fails with CONFIG_INVALID naming bm25fBackend", async () => {
    await expect(fixtureEngine({ backend: fts5Backend })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining("fts5Backend was renamed bm25fBackend"),
    });
  });

  it.each([
    ["given by name", { backend: "bm25f" as const }],
    ["left out (the default)", {}],
    ["given as the exported factory", { backend: bm25fBackend }],
  ])('"bm25f" %s builds the index and names its snapshots bm25f-<fingerprint>.tsidx', async (_, options) => {
    dir = mkdtempSync(path.join(tmpdir(), "toolsearch-backend-"));
    engine = await fixtureEngine({ ...options, indexCache: { dir } });
    const run = await engine.prepareRun({ sessionId: "s" });
    expect((await run.search("weather forecast")).length).toBeGreaterThan(0);
    expect(readdirSync(dir).filter((f) => f.endsWith(".tsidx"))).toEqual([expect.stringMatching(/^bm25f-[^.]+\.tsidx$/)]);
  });
});
