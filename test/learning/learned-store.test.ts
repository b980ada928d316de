/**
 * What the learned store promises through the public API: the engine starts without waiting for
 * it and loads it in slices; an import of any size within the bounds is taken whole or not at all
 * and survives flushes and restarts; request words are kept as keyed hashes unless the operator
 * opts in; rows of tenants that no longer exist are dropped.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { coreTools, createToolSearch, journalLearningStore, type LearnedRow, type LearningObject, type ToolDefinition } from "../../src/index.js";
import { definedProps } from "../../src/defined.js";

const tool = (name: string, description: string): ToolDefinition => ({
  name,
  description,
  inputSchema: { type: "object", properties: {} },
  execute: () => ({ done: name }),
});
const MANY = Array.from({ length: 200 }, (_, i) => tool(`tool_${i}`, `Synthetic tool ${i}.`));
const TOOLS = [tool("send_invoice", "Create and email an invoice to a customer."), tool("get_forecast", "Weather forecast for a city."), ...MANY];
const REQUEST = "zorblat the quarterly ledger for jonathan";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function folder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-learned-"));
  dirs.push(dir);
  return dir;
}

type Options = { dir?: string; key?: string; tenants?: string[] };
function engineWith(learning: LearningObject, options: Options = {}) {
  return createToolSearch({
    toolSearch: { mode: "tools", learning: { enabled: true, minSessions: 1, flushMs: 3_600_000, ...learning } },
    sources: [coreTools(TOOLS)],
    ...(options.dir !== undefined ? { indexCache: { dir: options.dir, ...definedProps({ key: options.key }) } } : {}),
    ...definedProps({ tenants: options.tenants }),
  });
}
type Engine = Awaited<ReturnType<typeof engineWith>>;

async function teach(engine: Engine, sessionId: string, tenant?: string): Promise<void> {
  const run = await engine.prepareRun({ sessionId, agentId: "main", ...definedProps({ tenant }) });
  expect(await run.feedback(REQUEST, "core:send_invoice")).toBe(true);
  await run.end();
}
async function top(engine: Engine, tenant?: string): Promise<string | undefined> {
  const run = await engine.prepareRun({ sessionId: "probe", agentId: "main", ...definedProps({ tenant }) });
  const hits = await run.search(REQUEST);
  await run.end();
  return hits.find((h) => h.weak !== true)?.id;
}

/** Rows of a store near its bounds: `n` records over the catalog's synthetic tools, in the agent scope. */
function storeRows(n: number): LearnedRow[] {
  return Array.from({ length: n }, (_, i) => ({
    scope: "agent:main",
    tool: `core:tool_${i % 200}`,
    term: `#t${i}`,
    count: 2,
    sessions: 3,
    at: Date.now(),
    seen: ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb", "cccccccccccccccc"],
  }));
}

describe("the learned store through the engine", () => {
  it("starts without waiting for a full store, loads it a slice at a time, and ranks with it once ready", async () => {
    const dir = folder();
    const learning: LearningObject = { maxTermsPerTool: 1_024 };
    const filler = journalLearningStore({ dir, learning: { enabled: true, ...learning } });
    await filler.append([...storeRows(60_000), ...Array.from({ length: 3 }, (_, i) => ({ ...storeRows(1)[0]!, tool: "core:send_invoice", term: `#x${i}` }))]);
    await filler.close?.();
    const engine = await engineWith(learning, { dir });
    expect(engine.learning!.stats().loaded).toBe(false);
    // The loop turns while the store loads: other requests (a timer here) are served in between.
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    await engine.learning!.ready();
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(5);
    expect(engine.learning!.stats()).toMatchObject({ loaded: true, records: 60_003 });
    await engine.close();
  });

  it("imports a store's worth of rows whole, writes them at the next flush, and has them after a restart", async () => {
    const dir = folder();
    const learning: LearningObject = { maxTermsPerTool: 1_024 };
    const engine = await engineWith(learning, { dir });
    // Over 130,000 rows: the size at which an import once overflowed the stack and was then lost.
    const taken = await engine.learning!.import({ format: 1, rows: storeRows(150_000) });
    expect(taken).toBe(150_000);
    expect(engine.learning!.stats()).toMatchObject({ records: 150_000, pending: 150_000 });
    await engine.learning!.flush();
    expect(engine.learning!.stats().pending).toBe(0);
    await engine.close();
    const restarted = await engineWith(learning, { dir });
    await restarted.learning!.ready();
    expect(restarted.learning!.stats().records).toBe(150_000);
    await restarted.close();
  });

  it("refuses an import over maxRecords, or that is no export, whole: nothing is taken", async () => {
    const engine = await engineWith({ maxRecords: 1_000 });
    await expect(engine.learning!.import({ format: 1, rows: storeRows(1_001) })).rejects.toMatchObject({
      code: "INVALID_ARGS",
      message: expect.stringContaining("over maxRecords (1000); nothing was imported"),
    });
    await expect(engine.learning!.import({ rows: [] } as never)).rejects.toMatchObject({ code: "INVALID_ARGS" });
    expect(engine.learning!.stats().records).toBe(0);
    await engine.close();
  });

  it("keeps request words as keyed hashes: not in the file, not in an export; ranking still learns", async () => {
    const dir = folder();
    const engine = await engineWith({}, { dir });
    await teach(engine, "s1");
    expect(await top(engine)).toBe("core:send_invoice");
    await engine.learning!.flush();
    const exported = JSON.stringify(await engine.learning!.export());
    await engine.close();
    for (const word of ["zorblat", "jonathan", "ledger"]) {
      expect(exported).not.toContain(word);
      expect(readFileSync(path.join(dir, "learned.journal"), "latin1")).not.toContain(word);
    }
    expect(engine.learning!.stats().recordTerms).toBe(false);
    // With the folder's key the hashes differ from the default key's: a dictionary hashed without the key finds nothing.
    const keyed = await engineWith({}, { dir: folder(), key: "k".repeat(32) });
    await teach(keyed, "s1");
    const keyedTerms = new Set((await keyed.learning!.export()).rows.map((r) => r.term));
    await keyed.close();
    for (const row of JSON.parse(exported).rows as LearnedRow[]) expect(keyedTerms.has(row.term)).toBe(false);
  });

  it("keeps the words themselves when the operator opts in (recordTerms)", async () => {
    const engine = await engineWith({ recordTerms: true });
    await teach(engine, "s1");
    expect((await engine.learning!.export()).rows.map((r) => r.term)).toEqual(expect.arrayContaining(["zorblat", "jonathan"]));
    expect(engine.learning!.stats().recordTerms).toBe(true);
    await engine.close();
  });

  it("a store written in clear (an older toolsearch) is hashed when loaded, and the words leave the file at the next compaction", async () => {
    const dir = folder();
    const clear = await engineWith({ recordTerms: true }, { dir });
    await teach(clear, "s1");
    await clear.close();
    expect(readFileSync(path.join(dir, "learned.journal"), "latin1")).toContain("zorblat");
    const hashed = await engineWith({}, { dir });
    await hashed.learning!.ready();
    expect(await top(hashed)).toBe("core:send_invoice");
    expect(JSON.stringify(await hashed.learning!.export())).not.toContain("zorblat");
    await hashed.close();
    const compactor = journalLearningStore({ dir, learning: { enabled: true } });
    await compactor.compact!({ tools: TOOLS.map((t) => `core:${t.name}`), toolPrefixes: [], terms: { recordTerms: false } });
    await compactor.close?.();
    expect(readFileSync(path.join(dir, "learned.journal"), "latin1")).not.toContain("zorblat");
  });

  it("drops what tenants that no longer exist taught; the others keep theirs", async () => {
    const dir = folder();
    const before = await engineWith({}, { dir, tenants: ["acme", "globex"] });
    await teach(before, "a1", "acme");
    await teach(before, "g1", "globex");
    expect(await top(before, "globex")).toBe("core:send_invoice");
    await before.close();
    // globex's token was revoked: a new tenant that happens to take its place learns nothing from it.
    const after = await engineWith({}, { dir, tenants: ["acme", "initech"] });
    await after.learning!.ready();
    expect(await top(after, "acme")).toBe("core:send_invoice");
    expect(await top(after, "globex")).toBeUndefined();
    expect((await after.learning!.export()).rows.some((r) => r.scope.includes("globex"))).toBe(false);
    await after.close();
  });
});
