/** The admin API's one place for learned words: none unless the operator keeps them in clear, the strongest first when they do. */
import { describe, expect, it } from "vitest";
import { coreTools, createToolSearch, type ToolDefinition } from "../../src/index.js";
import { learnedWords } from "../../src/admin/learned-words.js";

const tool: ToolDefinition = { name: "send_invoice", description: "Email an invoice.", inputSchema: { type: "object", properties: {} }, execute: () => 1 };

async function taught(recordTerms: boolean) {
  const engine = await createToolSearch({
    toolSearch: { mode: "tools", learning: { enabled: true, minSessions: 1, recordTerms } },
    sources: [coreTools([tool])],
  });
  for (const [sessionId, request] of [
    ["a", "zorblat ledger"],
    ["b", "zorblat books"],
  ]) {
    const run = await engine.prepareRun({ sessionId: sessionId!, agentId: "main" });
    await run.feedback(request!, "core:send_invoice");
    await run.end();
  }
  return engine;
}

describe("learned words for operators", () => {
  it("lists a tool's learned words, strongest first, with learning.recordTerms", async () => {
    const engine = await taught(true);
    const shown = learnedWords(engine, "agent:main", "core:send_invoice");
    expect(shown.kept).toBe(true);
    expect(shown.words[0]).toEqual({ term: "zorblat", count: 2, sessions: 2 });
    expect(shown.words.map((w) => w.term).sort()).toEqual(["book", "ledger", "zorblat"]);
    await engine.close();
  });

  it("shows none, and says why, when words are kept as keyed hashes", async () => {
    const engine = await taught(false);
    expect(learnedWords(engine, "agent:main", "core:send_invoice")).toMatchObject({ kept: false, words: [], why: expect.stringContaining("recordTerms") });
    await engine.close();
  });
});
