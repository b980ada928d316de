/**
 * The first k hits do not depend on the limit asked: for random requests over a real catalog
 * (LiveMCPBench's 527 MCP tools, Seal-Tools' 4,076), one step or several, the engine's ranking
 * (rankRequest over the index: bench/lib/rank-over-index.ts) at limit k is the first k of its
 * ranking at limit 20. Clause fusion and the sibling fill
 * (src/search/ranking/intents.ts) once depended on the limit: a limit of 5 gave siblings a slot that a
 * better hit held at 20. Needs the shared data; skipped with a reason when it is absent.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadLiveMcpTools, loadSealTools, sharedDataDir } from "../../bench/lib/shared-data.js";
import { indexScope } from "../../bench/lib/rank-over-index.js";
import { rankRequest, type RunScope } from "../../src/dispatch/rank-request.js";
import { analyzeText } from "../../src/search/analysis/analyze.js";
import { bm25fBackend } from "../../src/search/backends/bm25f-backend.js";
import { ToolIndex } from "../../src/search/tool-index.js";
import type { SearchDoc } from "../../src/search/types.js";

const dataDir = sharedDataDir();
if (dataDir === undefined) console.warn("limit independence: shared data not found; skipped");

/** Plain words of the catalog's names and descriptions: what random requests are made of. */
function vocabulary(docs: readonly SearchDoc[]): string[] {
  const words = new Set<string>();
  for (const doc of docs.slice(0, 400)) for (const w of `${doc.name} ${doc.description}`.split(/[^A-Za-z]+/)) if (w.length > 2) words.add(w.toLowerCase());
  return [...words].filter((w) => analyzeText(w).length > 0);
}

/** A request of 1–4 clauses of 1–6 words each, joined by what starts a new step. */
function requests(words: readonly string[]) {
  const clause = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }).map((ws) => ws.join(" "));
  const joiner = fc.constantFrom(", then ", ". Also ", "; ", " and finally ", ", ");
  return fc.tuple(clause, fc.array(fc.tuple(joiner, clause), { maxLength: 3 })).map(([first, rest]) => first + rest.map(([j, c]) => j + c).join(""));
}

for (const [name, load] of [
  ["LiveMCPBench", loadLiveMcpTools],
  ["Seal-Tools", loadSealTools],
] as const) {
  describe.skipIf(dataDir === undefined)(`limit-independent ranking over ${name}`, () => {
    let index: ToolIndex;
    let scope: RunScope;
    let words: string[];

    beforeAll(async () => {
      const docs = load(dataDir!);
      index = await ToolIndex.build(() => bm25fBackend.create(), docs);
      scope = indexScope(index);
      words = vocabulary(docs);
    }, 60_000);
    afterAll(() => index?.close());

    it("rankRequest(q, k) is the first k of rankRequest(q, 20)", () => {
      fc.assert(
        fc.property(requests(words), fc.integer({ min: 1, max: 20 }), (query, k) => {
          const ids = (limit: number) => rankRequest(query, limit, scope).map((h) => h.id);
          expect(ids(k)).toEqual(ids(20).slice(0, k));
        }),
        { numRuns: 300, seed: 22 },
      );
    }, 60_000);
  });
}
