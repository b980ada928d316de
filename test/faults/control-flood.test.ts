/**
 * A tenant flooding the control path: search, describe and unknown-id lookups of every run of one
 * engine share the main thread in per-tenant turns (src/dispatch/fair-turns.ts), the mechanism
 * both faces use. One tenant's flood of describes of unknown ids waits in its own queue, and
 * another tenant's search is answered before the flood's queued requests. Asserted by the order
 * answers come in, never by how long they took.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createToolSearch, pluginTools, type ToolSearchEngine } from "../../src/index.js";
import { syntheticTools } from "../../src/demo/synthetic-catalog.js";

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

const FLOOD = 1_000;
const unknownId = (i: number) => `plugin:acme:no_such_tool_${i}_${"x".repeat(200)}`.slice(0, 250);

describe("control-path shares", () => {
  it("a quiet tenant's search is answered before a flooding tenant's queued describes of unknown ids", { timeout: 60_000 }, async () => {
    engine = await createToolSearch({
      toolSearch: { mode: "tools" },
      sources: [
        pluginTools(
          "acme",
          syntheticTools(1_000).map((t) => t.definition),
        ),
      ],
    });
    const flood = await engine.prepareRun({ sessionId: "f", shareKey: "tenant-flood" });
    const quiet = await engine.prepareRun({ sessionId: "q", shareKey: "tenant-quiet" });
    // Both tenants are active; the flooder has used the main thread far more than the quiet one.
    for (let i = 0; i < 20; i += 1) await flood.search("export the quarterly report");
    await quiet.search("create a contact");

    let floodAnswered = 0;
    const burst = Array.from({ length: FLOOD }, (_, i) =>
      flood.describe(unknownId(i)).then(
        () => (floodAnswered += 1),
        (error: { code?: string }) => {
          expect(error.code).toBe("TOOL_NOT_FOUND");
          floodAnswered += 1;
        },
      ),
    );
    const quietHits = await quiet.search("create a contact");
    const answeredBefore = floodAnswered;
    await Promise.all(burst);

    expect(quietHits.length).toBeGreaterThan(0);
    expect(answeredBefore).toBeLessThanOrEqual(1);
    expect(floodAnswered).toBe(FLOOD);
    await flood.end();
    await quiet.end();
  });

  it("a run's queued searches are dropped when it ends, with the run's reason", { timeout: 60_000 }, async () => {
    engine = await createToolSearch({
      toolSearch: { mode: "tools" },
      sources: [
        pluginTools(
          "acme",
          syntheticTools(200).map((t) => t.definition),
        ),
      ],
    });
    const flood = await engine.prepareRun({ sessionId: "f", shareKey: "tenant-flood" });
    const quiet = await engine.prepareRun({ sessionId: "q", shareKey: "tenant-quiet" });
    for (let i = 0; i < 20; i += 1) await flood.search("export the quarterly report");
    await quiet.search("create a contact");
    const queued = Array.from({ length: 50 }, () =>
      flood.search("list every invoice").then(
        () => "answered",
        (error: { code?: string }) => error.code,
      ),
    );
    await flood.end();
    const outcomes = await Promise.all(queued);
    expect(outcomes).toContain("CANCELLED");
    await quiet.end();
  });
});
