/** Learning from use, end to end through real engines: search → call teaches, and only as promised. */
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { coreTools, createToolSearch, pluginTools, type ToolDefinition, type CreateToolSearchOptions } from "../../src/index.js";
import { sampleArgs } from "../../src/mock-provider/sample-args.js";
import { syntheticTools } from "../../src/demo/synthetic-catalog.js";
import type { LearningObject } from "../../src/learning/options.js";
import { withServerLearning } from "../../src/settings/tool-search-config.js";
import { resolveToolSearchConfig } from "../../src/settings/tool-search-config.js";

const tool = (name: string, description: string): ToolDefinition => ({
  name,
  description,
  inputSchema: { type: "object", properties: {} },
  execute: () => ({ done: name }),
});
const TOOLS = [
  tool("send_invoice", "Create and email an invoice to a customer."),
  tool("get_forecast", "Weather forecast for a city."),
  tool("delete_repo", "Delete a repository for good."),
];
/** Words no catalog text holds: only learning can tie them to a tool. */
const REQUEST = "zorblat the quarterly ledger";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-learn-"));
  dirs.push(dir);
  return dir;
}

async function engineWith(learning: LearningObject | boolean = {}, extra: CreateToolSearchOptions = {}, tools: ToolDefinition[] = TOOLS) {
  return createToolSearch({
    toolSearch: {
      mode: "tools",
      learning: typeof learning === "boolean" ? learning : { enabled: true, ...learning },
      ...(extra.toolSearch as object | undefined),
    },
    sources: [coreTools(tools)],
    ...(extra.policy ? { policy: extra.policy } : {}),
    ...(extra.indexCache ? { indexCache: extra.indexCache } : {}),
  });
}

type Engine = Awaited<ReturnType<typeof createToolSearch>>;

/** One session as a gateway sees it: the request finds nothing, the model rephrases, finds the tool, calls it. */
async function teach(
  engine: Engine,
  sessionId: string,
  id = "core:send_invoice",
  ctx: { agentId?: string; tenant?: string } = {},
  request = REQUEST,
): Promise<void> {
  const run = await engine.prepareRun({ sessionId, agentId: ctx.agentId ?? "main", ...(ctx.tenant ? { tenant: ctx.tenant } : {}) });
  await run.search(request);
  const hits = await run.search(id.split(":").pop()!.replace(/_/g, " "));
  expect(hits.map((h) => h.id)).toContain(id);
  expect((await run.call(id, {})).ok).toBe(true);
  await run.end();
}

/** Teaches each (tool, request) of `plan` in its number of sessions, one of each in turn, as mixed traffic arrives. */
async function teachRoundRobin(engine: Engine, plan: ReadonlyArray<[id: string, request: string, sessions: number]>): Promise<void> {
  let session = 0;
  const rounds = Math.max(...plan.map(([, , sessions]) => sessions));
  for (let round = 0; round < rounds; round++) {
    for (const [id, request, sessions] of plan) if (round < sessions) await teach(engine, `s${session++}`, id, {}, request);
  }
}

/**
 * The hits that text or learning ranked: REQUEST shares no word with the catalog, so before
 * anything is learned it gets only weak partial matches (never empty), which are left out here.
 */
async function ids(engine: Engine, request = REQUEST, ctx: { agentId?: string; tenant?: string; sessionId?: string } = {}): Promise<string[]> {
  const run = await engine.prepareRun({ sessionId: ctx.sessionId ?? "probe", agentId: ctx.agentId ?? "main", ...(ctx.tenant ? { tenant: ctx.tenant } : {}) });
  const hits = await run.search(request);
  await run.end();
  return hits.filter((h) => h.weak !== true).map((h) => h.id);
}

describe("learning from use", () => {
  it("is off in the library by default and on in servers", async () => {
    const engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [coreTools(TOOLS)] });
    expect(engine.learning).toBeUndefined();
    const run = await engine.prepareRun({ sessionId: "s" });
    expect(await run.feedback(REQUEST, "core:send_invoice")).toBe(false);
    await engine.close();
    expect(resolveToolSearchConfig(withServerLearning(undefined)).learning.enabled).toBe(true);
    expect(resolveToolSearchConfig(withServerLearning({ mode: "tools" })).learning.enabled).toBe(true);
    expect(resolveToolSearchConfig(withServerLearning({ learning: { scope: "shared" } })).learning).toMatchObject({ enabled: true, scope: "shared" });
    expect(resolveToolSearchConfig(withServerLearning({ learning: false })).learning.enabled).toBe(false);
    expect(resolveToolSearchConfig(withServerLearning({ learning: { enabled: false } })).learning.enabled).toBe(false);
    expect(resolveToolSearchConfig({ learning: { minSessions: 5 } }).learning).toMatchObject({ enabled: false, minSessions: 5, scope: "agent" });
  });

  it("refuses bad options with CONFIG_INVALID naming the key", () => {
    expect(() => resolveToolSearchConfig({ learning: { minSessions: 0 } })).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringContaining("minSessions") }),
    );
    expect(() => resolveToolSearchConfig({ learning: { scope: "everyone" } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => resolveToolSearchConfig({ learning: { retention: 3 } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("counts a request only after k distinct sessions, once per session", async () => {
    const engine = await engineWith({ minSessions: 3 });
    expect(await ids(engine)).toEqual([]);
    // One session repeating itself, over several runs, is one session.
    for (let i = 0; i < 4; i++) await teach(engine, "same-session");
    await teach(engine, "second");
    expect(await ids(engine)).toEqual([]);
    await teach(engine, "third");
    expect((await ids(engine))[0]).toBe("core:send_invoice");
    const run = await engine.prepareRun({ sessionId: "x", agentId: "main" });
    const explained = await run.explain(REQUEST);
    expect(explained[0]).toMatchObject({ id: "core:send_invoice", learned: true });
    // What the model sees carries no learned terms and no learning marks.
    const shown = await run.handleToolCall({ name: "tool_search", arguments: { query: REQUEST } });
    expect(shown).toContain("core:send_invoice");
    expect(shown).not.toMatch(/learned/);
    await run.end();
    await engine.close();
  });

  it("the catalog's own text still counts, and an exact name stays first", async () => {
    const engine = await engineWith({ minSessions: 1 });
    for (let i = 0; i < 5; i++) await teach(engine, `s${i}`, "core:delete_repo", {}, "weather forecast");
    expect((await ids(engine, "get_forecast"))[0]).toBe("core:get_forecast");
    const hits = await ids(engine, "weather forecast");
    expect(hits).toContain("core:get_forecast");
    await engine.close();
  });

  it("a request that spells the first hit's whole name keeps it first; learning reorders the rest", async () => {
    // Near twins told apart by one name word, a word many other tools share (so the catalog's
    // margin between the twins is small), and past requests that taught the promotion twin.
    const twins = [
      tool("create_marketing_campaign", "Starts a campaign for an audience between two dates."),
      tool("create_promotion_campaign", "Starts a campaign for an audience between two dates."),
      ...Array.from({ length: 20 }, (_, i) => tool(`marketing_report_${i}`, `Marketing report number ${i} for a team.`)),
    ];
    const engine = await engineWith({}, {}, twins);
    for (let i = 0; i < 40; i++) await teach(engine, `s${i}`, "core:create_promotion_campaign", {}, "create a campaign targeting families for the spring");
    // Learning leads where the request names neither twin ...
    expect((await ids(engine, "create a campaign targeting families"))[0]).toBe("core:create_promotion_campaign");
    // ... but a request that spells a tool's whole name keeps it first, the taught twin right behind.
    const spelled = await ids(engine, "create a marketing campaign targeting families for the spring");
    expect(spelled.slice(0, 2)).toEqual(["core:create_marketing_campaign", "core:create_promotion_campaign"]);
    await engine.close();
  });

  it("a word the catalog's text shares widely, taught to one tool first, does not outrank the catalog's clear first hit", async () => {
    // The gateway bench's case: over the 1,000-tool demo catalog, three requests share "create";
    // the first tool's learned terms count (three sessions) while the others' are still pending.
    // Without the catalog's weight on request words, both other requests went to the first tool.
    const synthetic = syntheticTools(1000).slice(0, 3);
    const engine = await createToolSearch({
      toolSearch: { mode: "tools", learning: true },
      sources: [
        pluginTools(
          "acme",
          syntheticTools(1000).map((t) => t.definition),
        ),
      ],
    });
    const idOf = (i: number) => `plugin:acme:${synthetic[i]!.definition.name}`;
    // As the scripted model does: search the request, call its first hit.
    const searchThenCall = async (sessionId: string, i: number): Promise<void> => {
      const run = await engine.prepareRun({ sessionId, agentId: "main" });
      expect((await run.search(synthetic[i]!.request))[0]?.id).toBe(idOf(i));
      expect((await run.call(idOf(i), { ...sampleArgs(synthetic[i]!.definition.inputSchema) })).ok).toBe(true);
      await run.end();
    };
    for (let i = 0; i < 2; i++) for (const t of [1, 2]) await searchThenCall(`s${t}-${i}`, t);
    for (let i = 0; i < 3; i++) await searchThenCall(`s0-${i}`, 0);
    expect(engine.learning!.stats().active).toBeGreaterThan(0);
    for (const t of [0, 1, 2]) expect((await ids(engine, synthetic[t]!.request))[0]).toBe(idOf(t));
    await engine.close();
  });

  it("a request for a tool the scope never called is not pulled to a called one by the words they share", async () => {
    // Everything this scope learned went to the invoice tool, from requests about the weather
    // in a ledger; a request that the catalog's text gives to the forecast tool, which learning
    // knows nothing about, keeps it first.
    const engine = await engineWith();
    await teachRoundRobin(engine, [["core:send_invoice", "zorblat weather ledger for the city", 40]]);
    expect((await ids(engine, "zorblat ledger"))[0]).toBe("core:send_invoice");
    expect((await ids(engine, "weather forecast for the city"))[0]).toBe("core:get_forecast");
    await engine.close();
  });

  it("a word goes to the tool it was taught for most, however recently the bags' lengths were taken", async () => {
    // The repo tool's bag is long (three other words, forty-one sessions), so BM25's length
    // normalisation weighs its seven "ledger" sessions below the forecast tool's sixteen. Lengths
    // taken at the first search and kept for a few seconds left the long bag short.
    const engine = await engineWith();
    const plan: Array<[id: string, request: string, sessions: number]> = [
      ["core:delete_repo", "ledger", 7],
      ["core:get_forecast", "ledger", 16],
      ["core:delete_repo", "quib frim plonk", 41],
    ];
    await teachRoundRobin(engine, plan);
    expect((await ids(engine, "ledger"))[0]).toBe("core:get_forecast");
    expect((await ids(engine, "quib frim plonk"))[0]).toBe("core:delete_repo");
    await engine.close();
  });

  it("a request taught in full for one tool goes to it, though one of its words alone was taught for another", async () => {
    // The forecast tool's bag is long (one word taught thirty more times), so its counts weigh
    // less against the short bag of the tool taught "zorblat" alone: the learned bags' BM25 put
    // the repo tool first. The discriminative weights learn that with "frim" beside it,
    // "zorblat" is the forecast tool's.
    const engine = await engineWith();
    const plan: Array<[id: string, request: string, sessions: number]> = [
      ["core:get_forecast", "zorblat frim ledger", 9],
      ["core:delete_repo", "zorblat", 11],
      ["core:get_forecast", "ledger", 30],
    ];
    await teachRoundRobin(engine, plan);
    expect((await ids(engine, "zorblat"))[0]).toBe("core:delete_repo");
    expect((await ids(engine, "zorblat frim ledger"))[0]).toBe("core:get_forecast");
    await engine.close();
  });

  it("never makes a denied tool visible, and feedback on it is TOOL_NOT_FOUND", async () => {
    const policy = { agents: { support: { deny: ["core:delete_repo"] } } };
    const engine = await engineWith({ scope: "shared", minSessions: 2 }, { policy });
    for (let i = 0; i < 3; i++) await teach(engine, `m${i}`, "core:delete_repo", { agentId: "main" });
    expect((await ids(engine, REQUEST, { agentId: "main" }))[0]).toBe("core:delete_repo");
    expect(await ids(engine, REQUEST, { agentId: "support" })).not.toContain("core:delete_repo");
    const run = await engine.prepareRun({ sessionId: "sup", agentId: "support" });
    expect((await run.explain(REQUEST)).map((h) => h.id)).not.toContain("core:delete_repo");
    await expect(run.feedback(REQUEST, "core:delete_repo")).rejects.toMatchObject({ code: "TOOL_NOT_FOUND" });
    await run.end();
    await engine.close();
  });

  it("feedback teaches like a call, and refuses what it cannot learn with typed errors", async () => {
    const engine = await engineWith({ minSessions: 2 });
    const client = tool("local_note", "Write a local note.");
    for (const sessionId of ["f1", "f2"]) {
      const run = await engine.prepareRun({ sessionId, agentId: "main", clientTools: [client] });
      expect(await run.feedback(REQUEST, "core:send_invoice")).toBe(true);
      await expect(run.feedback(REQUEST, "core:no_such_tool")).rejects.toMatchObject({ code: "TOOL_NOT_FOUND" });
      await expect(run.feedback("   ", "core:send_invoice")).rejects.toMatchObject({ code: "INVALID_ARGS" });
      await expect(run.feedback(REQUEST, "client:local_note")).rejects.toMatchObject({ code: "INVALID_ARGS" });
      await run.end();
    }
    expect((await ids(engine))[0]).toBe("core:send_invoice");
    await engine.close();
  });

  it("a failed call or a call without a search before it teaches nothing", async () => {
    const failing = [
      ...TOOLS.filter((t) => t.name !== "send_invoice"),
      {
        ...tool("send_invoice", "Create and email an invoice."),
        execute: () => {
          throw new Error("down");
        },
      },
    ];
    const engine = await engineWith({ minSessions: 1 }, {}, failing);
    const run = await engine.prepareRun({ sessionId: "f", agentId: "main" });
    await run.search(REQUEST);
    await run.search("send invoice");
    expect((await run.call("core:send_invoice", {})).ok).toBe(false);
    expect((await run.call("core:get_forecast", {})).ok).toBe(true);
    await run.end();
    expect(await ids(engine)).toEqual([]);
    expect(engine.learning!.stats().records).toBe(0);
    await engine.close();
  });

  it("scopes are isolated: one agent's (or token's) learning never moves another's ranking", async () => {
    for (const scope of ["agent", "token"] as const) {
      const engine = await engineWith({ scope, minSessions: 2 });
      const poisoner = scope === "agent" ? { agentId: "evil" } : { agentId: "main", tenant: "evil" };
      const other = scope === "agent" ? { agentId: "main" } : { agentId: "main", tenant: "good" };
      const before = await ids(engine, "weather forecast for oslo", other);
      for (let i = 0; i < 10; i++) await teach(engine, `p${i}`, "core:delete_repo", poisoner, "weather forecast for oslo");
      // The poisoner moves its own ranking (the catalog's text still counts: the forecast stays first)...
      expect(await ids(engine, "weather forecast for oslo", poisoner)).toContain("core:delete_repo");
      expect(before).not.toContain("core:delete_repo");
      expect(await ids(engine, "weather forecast for oslo", other)).toEqual(before);
      await engine.close();
    }
  });

  it("poisoning the shared scope: one tenant, however many sessions, counts once", async () => {
    const engine = await engineWith({ scope: "shared", minSessions: 3 });
    const before = await ids(engine, "weather forecast for oslo", { tenant: "good" });
    for (let i = 0; i < 20; i++) await teach(engine, `p${i}`, "core:delete_repo", { tenant: "evil" }, "weather forecast for oslo");
    expect(await ids(engine, "weather forecast for oslo", { tenant: "good" })).toEqual(before);
    expect(await ids(engine, "weather forecast for oslo", { tenant: "evil" })).toEqual(before);
    // Three tenants agreeing is what the shared scope takes.
    for (const tenant of ["t1", "t2", "t3"]) await teach(engine, `x-${tenant}`, "core:send_invoice", { tenant });
    expect((await ids(engine, REQUEST, { tenant: "good" }))[0]).toBe("core:send_invoice");
    await engine.close();
  });

  it("caps what one session teaches", async () => {
    const engine = await engineWith({ minSessions: 1, maxToolsPerSession: 1 });
    const run = await engine.prepareRun({ sessionId: "greedy", agentId: "main" });
    expect(await run.feedback("alpha words", "core:send_invoice")).toBe(true);
    expect(await run.feedback("beta words", "core:get_forecast")).toBe(false);
    await run.end();
    expect((await ids(engine, "alpha words"))[0]).toBe("core:send_invoice");
    expect(await ids(engine, "beta words")).not.toContain("core:get_forecast");
    await engine.close();
  });

  it("survives a restart in the journal file, and is dropped with its tool", async () => {
    const dir = tempDir();
    const first = await engineWith({ minSessions: 2 }, { indexCache: { dir } });
    await teach(first, "a");
    await teach(first, "b");
    expect((await ids(first))[0]).toBe("core:send_invoice");
    await first.close();
    expect(existsSync(path.join(dir, "learned.journal"))).toBe(true);

    const second = await engineWith({ minSessions: 2 }, { indexCache: { dir } });
    await second.learning!.ready();
    expect((await ids(second))[0]).toBe("core:send_invoice");
    const exported = await second.learning!.export();
    expect(exported.rows.some((r) => r.tool === "core:send_invoice")).toBe(true);
    // Contributors are hashes: no session id is stored.
    expect(JSON.stringify(exported)).not.toMatch(/"a"|"b"/);
    await second.close();

    // The tool leaves the catalog: what was learned about it goes, in memory and on disk.
    const without = await engineWith(
      { minSessions: 2 },
      { indexCache: { dir } },
      TOOLS.filter((t) => t.name !== "send_invoice"),
    );
    await without.learning!.ready();
    expect((await without.learning!.export()).rows.filter((r) => r.tool === "core:send_invoice")).toEqual([]);
    await without.close();
    const back = await engineWith({ minSessions: 2 }, { indexCache: { dir } });
    await back.learning!.ready();
    expect(await ids(back)).toEqual([]);
    await back.close();
  });

  it("two engines on one folder (workers) merge what each learned", async () => {
    const dir = tempDir();
    const [w1, w2] = await Promise.all([engineWith({ minSessions: 2 }, { indexCache: { dir } }), engineWith({ minSessions: 2 }, { indexCache: { dir } })]);
    await teach(w1, "w1-session");
    await teach(w2, "w2-session");
    // Neither alone has two sessions; both write, each merging the other's rows.
    expect(await ids(w1)).toEqual([]);
    await Promise.all([w1.learning!.flush(), w2.learning!.flush()]);
    await w1.learning!.flush();
    expect((await ids(w1))[0]).toBe("core:send_invoice");
    await Promise.all([w1.close(), w2.close()]);
    const later = await engineWith({ minSessions: 2 }, { indexCache: { dir } });
    await later.learning!.ready();
    expect((await ids(later))[0]).toBe("core:send_invoice");
    await later.close();
  });

  it("export and import carry learning to a replica; malformed rows are dropped", async () => {
    const source = await engineWith({ minSessions: 2 });
    await teach(source, "a");
    await teach(source, "b");
    const data = await source.learning!.export();
    await source.close();
    const replica = await engineWith({ minSessions: 2 });
    const taken = await replica.learning!.import({
      format: 1,
      rows: [...data.rows, { scope: 1, tool: "x" } as never, { ...data.rows[0]!, tool: "core:not_in_catalog" }],
    });
    expect(taken).toBe(data.rows.length);
    expect((await ids(replica))[0]).toBe("core:send_invoice");
    await replica.close();
  });
});
