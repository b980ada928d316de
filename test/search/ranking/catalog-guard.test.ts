/**
 * The catalog guard (issue 35): on a catalog whose descriptions are long and specific
 * (catalog-profile.ts), plain field BM25's clear first hit is not overridden by the engine's own
 * signals (coordination, name precision, expansions); near-ties are still theirs to break, and a
 * catalog of short descriptions keeps every signal. Through rankRequest, as a run ranks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexScope } from "../../../bench/lib/rank-over-index.js";
import { loadLiveMcpTools, loadSealTools, loadMetaToolTools, sharedDataDir } from "../../../bench/lib/shared-data.js";
import { RankTrace } from "../../../src/dispatch/explain-detail.js";
import { rankRequest } from "../../../src/dispatch/rank-request.js";
import { GUARD_MARGIN, guardPlainFirst } from "../../../src/search/ranking/catalog-guard.js";
import { profileCatalog } from "../../../src/search/ranking/catalog-profile.js";
import { bm25fBackend } from "../../../src/search/backends/bm25f-backend.js";
import { ToolIndex } from "../../../src/search/tool-index.js";
import type { SearchDoc } from "../../../src/search/types.js";
import { mcpDoc } from "../../support/search-docs.js";

const hits = (...pairs: Array<[string, number]>) => pairs.map(([id, score]) => ({ id, score }));
const never = () => false;

describe("guardPlainFirst", () => {
  it("puts plain field BM25's first above the hits it scores below the margin, with the score of the hit it passes", () => {
    const out = guardPlainFirst(hits(["a", 1], ["b", 0.9], ["p", 0.8]), hits(["p", 10], ["b", 9], ["a", 2]), { keep: never });
    // b is a near-tie in plain field BM25 (9 of 10): the signals keep it first; a is not (2 of 10).
    expect(out.hits).toEqual(hits(["p", 1], ["a", 1], ["b", 0.9]));
    expect(out.move).toEqual({ id: "p", from: 3, to: 1 });
  });

  it("leaves the ranking alone when both put the same first, when the rest are near-ties, and never passes a kept hit", () => {
    expect(guardPlainFirst(hits(["p", 1], ["a", 0.5]), hits(["p", 3], ["a", 1]), { keep: never }).move).toBeUndefined();
    expect(guardPlainFirst(hits(["a", 1], ["p", 0.5]), hits(["p", 10], ["a", 10 * GUARD_MARGIN]), { keep: never }).move).toBeUndefined();
    const kept = guardPlainFirst(hits(["client:x", 1], ["a", 0.8], ["p", 0.5]), hits(["p", 10], ["a", 1]), { keep: (id) => id.startsWith("client:") });
    expect(kept.hits.map((h) => h.id)).toEqual(["client:x", "p", "a"]);
  });

  it("brings in plain field BM25's first when the ranking did not hold it", () => {
    const out = guardPlainFirst(hits(["a", 1], ["b", 0.4]), hits(["p", 5]), { keep: never });
    expect(out.hits.map((h) => h.id)).toEqual(["p", "a", "b"]);
    expect(out.move).toEqual({ id: "p", from: undefined, to: 1 });
  });
});

/** A server in the style that documents every tool at length: long, specific descriptions. */
const LONG = [
  mcpDoc(
    "shell",
    "kill_process",
    "Terminate a running process by its PID. Use with caution as this forcefully terminates the specified process and anything it had open, without saving buffers, flushing logs or releasing file locks gracefully.",
  ),
  mcpDoc(
    "shell",
    "read_process_output",
    "Read the output of a running process with completion detection: stops waiting when the prompt returns, detects a hanging command or a finished script, returns what was printed since the last read call.",
  ),
  mcpDoc(
    "shell",
    "list_processes",
    "List every running process with its PID, command name, CPU usage and memory usage, sorted by CPU, for finding what is slow or stuck on the machine, including zombie and sleeping entries.",
  ),
  mcpDoc(
    "shell",
    "start_process",
    "Start a new terminal process with state detection: runs a command in a shell session, returns its PID and first output, and keeps it alive for further input from interactive programs like REPLs.",
  ),
  mcpDoc(
    "shell",
    "search_code",
    "Search source code files for a text or regular expression pattern with ripgrep, returning matching files, line numbers and surrounding context lines, honouring gitignore rules and hidden folders.",
  ),
];

describe("the catalog's profile", () => {
  it("is long and specific for a server that documents each tool at length, not for one-line tools nor repeated boilerplate", async () => {
    const long = await ToolIndex.build(() => bm25fBackend.create(), LONG);
    const short = await ToolIndex.build(
      () => bm25fBackend.create(),
      LONG.map((d) => ({ ...d, description: d.description.split(":")[0]!.split(".")[0]! })),
    );
    const boilerplate =
      "This tool is part of the shell server of the workstation; call it with the arguments its schema lists, wait for the answer, and read the result it returns to the caller as text or structured content.";
    const same = await ToolIndex.build(
      () => bm25fBackend.create(),
      LONG.map((d) => ({ ...d, description: `${boilerplate} ${d.name}` })),
    );
    try {
      expect(long.profile()).toMatchObject({ tools: 5, sampled: 5, longAndSpecific: true });
      expect(short.profile()?.longAndSpecific).toBe(false);
      expect(same.profile()?.medianDescriptionTerms).toBeGreaterThanOrEqual(20);
      expect(same.profile()?.longAndSpecific).toBe(false);
    } finally {
      for (const i of [long, short, same]) i.close();
    }
  });

  it("reads a bounded sample of a big catalog", () => {
    const docs: SearchDoc[] = Array.from({ length: 5_000 }, (_, i) => mcpDoc("big", `tool_${i}`, `word${i} thing`));
    const profile = profileCatalog(docs, { docCount: docs.length, df: () => 1 });
    expect(profile.sampled).toBe(512);
    expect(profile.tools).toBe(5_000);
  });
});

describe("through rankRequest", () => {
  let index: ToolIndex;
  beforeAll(async () => {
    index = await ToolIndex.build(() => bm25fBackend.create(), LONG);
  });
  afterAll(() => index?.close());

  it("keeps plain field BM25's clear first against a synonym and coordination picked up in another tool's long text; explain says so", () => {
    const query = "kill the process that's hanging";
    // Without the guard, "kill" → stop (a thesaurus word) and "hanging" in read_process_output's text win it the coordination bonus.
    expect(rankRequest(query, 3, indexScope(index, { catalogGuard: false }))[0]?.id).toBe("mcp:shell:read_process_output");
    const trace = new RankTrace(query);
    const ranked = rankRequest(query, 3, indexScope(index), trace);
    expect(ranked[0]?.id).toBe("mcp:shell:kill_process");
    const guard = trace.detail(ranked)[0]?.steps.find((s) => s.step === "guard");
    expect(guard).toMatchObject({ step: "guard", from: 2, to: 1 });
  });
});

const dataDir = sharedDataDir();
describe.skipIf(dataDir === undefined)("the shared data's catalogs", () => {
  it("have short descriptions: the guard is off on LiveMCPBench, Seal-Tools and MetaTool", async () => {
    for (const docs of [loadLiveMcpTools(dataDir!), loadSealTools(dataDir!), loadMetaToolTools(dataDir!)]) {
      const index = await ToolIndex.build(() => bm25fBackend.create(), docs);
      try {
        expect(index.profile()?.longAndSpecific).toBe(false);
      } finally {
        index.close();
      }
    }
  }, 60_000);
});
