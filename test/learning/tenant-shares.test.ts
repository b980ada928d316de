/**
 * Learning is bounded per tenant: one tenant minting agent ids or teaching many tools evicts
 * its own learning, never another tenant's; two tenants naming the same agent never share.
 * Through real engines (tenants as a gateway passes them), and the model's totals directly.
 */
import { describe, expect, it } from "vitest";
import { coreTools, createToolSearch, type ToolDefinition } from "../../src/index.js";
import { LearnedModel } from "../../src/learning/model.js";
import { DEFAULT_LEARNING, type LearningObject, type ResolvedLearningOptions } from "../../src/learning/options.js";
import { agentScopeKey, tenantOfScope, tokenScopeKey } from "../../src/learning/scope-keys.js";

const tool = (name: string, description: string): ToolDefinition => ({
  name,
  description,
  inputSchema: { type: "object", properties: {} },
  execute: () => ({ done: name }),
});
/** 40 tools named for 40 different words, so a flood can teach many bags. */
const TOOLS = Array.from({ length: 40 }, (_, i) => tool(`tool_${i}`, `Handles task number ${i}.`));
const REQUEST = "zorblat the quarterly ledger";

async function engineWith(learning: LearningObject) {
  return createToolSearch({ toolSearch: { mode: "tools", learning: { enabled: true, minSessions: 1, ...learning } }, sources: [coreTools(TOOLS)] });
}
type Engine = Awaited<ReturnType<typeof engineWith>>;

async function feedback(engine: Engine, who: { sessionId: string; agentId: string; tenant?: string }, request: string, id: string): Promise<boolean> {
  const run = await engine.prepareRun(who);
  try {
    return await run.feedback(request, id);
  } finally {
    await run.end();
  }
}

async function firstHit(engine: Engine, who: { agentId: string; tenant?: string }, request = REQUEST): Promise<string | undefined> {
  const run = await engine.prepareRun({ sessionId: "probe", ...who });
  try {
    const hits = await run.search(request);
    return hits.find((h) => h.weak !== true)?.id;
  } finally {
    await run.end();
  }
}

/** Distinct made-up words (letters only, so the analyzer keeps each whole), so that each request adds new records. */
const letters = (n: number) => [...String(n)].map((d) => "abcdefghij"[Number(d)]).join("");
const words = (n: number, salt: string) => Array.from({ length: 16 }, (_, j) => `zq${salt}${letters(n)}v${letters(j)}`).join(" ");

describe("learning: per-tenant shares", () => {
  it("a tenant minting agent ids evicts its own scopes, never another tenant's", async () => {
    const engine = await engineWith({ maxScopesPerTenant: 3 });
    expect(await feedback(engine, { sessionId: "g1", agentId: "main", tenant: "good" }, REQUEST, "core:tool_7")).toBe(true);
    expect(await firstHit(engine, { agentId: "main", tenant: "good" })).toBe("core:tool_7");
    for (let i = 0; i < 50; i++) await feedback(engine, { sessionId: `e${i}`, agentId: `agent-${i}`, tenant: "evil" }, REQUEST, "core:tool_9");
    // The flood holds 3 scopes at most; the good tenant's one is still there and still ranks.
    expect(engine.learning!.stats().scopes).toBe(4);
    expect(await firstHit(engine, { agentId: "main", tenant: "good" })).toBe("core:tool_7");
    // The flooder's newest agents keep their learning, its oldest lost theirs.
    expect(await firstHit(engine, { agentId: "agent-49", tenant: "evil" })).toBe("core:tool_9");
    expect(await firstHit(engine, { agentId: "agent-0", tenant: "evil" })).toBeUndefined();
    await engine.close();
  });

  it("a tenant teaching many records evicts its own least recently taught tools, never another tenant's", async () => {
    const engine = await engineWith({ maxRecordsPerTenant: 1_000, maxTermsPerTool: 1_024 });
    expect(await feedback(engine, { sessionId: "g1", agentId: "main", tenant: "good" }, REQUEST, "core:tool_7")).toBe(true);
    for (let i = 0; i < 200; i++) await feedback(engine, { sessionId: `e${i}`, agentId: "main", tenant: "evil" }, words(i, "e"), `core:tool_${i % 40}`);
    const { records } = engine.learning!.stats();
    // The good tenant's 4 records, and the flooder's share (it may pass it by one request's terms before a bag goes).
    expect(records).toBeLessThanOrEqual(4 + 1_000 + 16);
    expect(records).toBeGreaterThan(900);
    expect(await firstHit(engine, { agentId: "main", tenant: "good" })).toBe("core:tool_7");
    // What the flooder taught last still ranks; what it taught first went.
    expect(await firstHit(engine, { agentId: "main", tenant: "evil" }, words(199, "e"))).toBe("core:tool_39");
    expect(await firstHit(engine, { agentId: "main", tenant: "evil" }, words(0, "e"))).toBeUndefined();
    await engine.close();
  });

  it("two tenants naming the same agent never share what their sessions taught", async () => {
    const engine = await engineWith({});
    await feedback(engine, { sessionId: "a1", agentId: "main", tenant: "a" }, REQUEST, "core:tool_3");
    expect(await firstHit(engine, { agentId: "main", tenant: "a" })).toBe("core:tool_3");
    expect(await firstHit(engine, { agentId: "main", tenant: "b" })).toBeUndefined();
    // Without a tenant (the library, a local server without tokens) the agent's scope is its own too.
    expect(await firstHit(engine, { agentId: "main" })).toBeUndefined();
    await engine.close();
  });
});

describe("learning: scope keys and totals", () => {
  const options = (over: Partial<ResolvedLearningOptions>): ResolvedLearningOptions => ({ ...DEFAULT_LEARNING, enabled: true, minSessions: 1, ...over });
  const observe = (model: LearnedModel, scope: string, tool: string, terms: string[], contributor = "c") =>
    model.observe({ scope, tool, terms, contributor, at: 0 });

  it("a scope's key names its tenant, whatever the tenant's label holds", () => {
    expect(tenantOfScope(agentScopeKey("main", undefined))).toBe("");
    expect(tenantOfScope(agentScopeKey("main", "t:1/x"))).toBe("token:t:1/x");
    expect(tenantOfScope(tokenScopeKey("t:1/x"))).toBe("token:t:1/x");
    expect(tenantOfScope("shared")).toBe("shared");
    expect(agentScopeKey("main", "a")).not.toBe(agentScopeKey("main", "b"));
  });

  it("past maxScopes in all, the tenant holding the most scopes loses its oldest", () => {
    const model = new LearnedModel(options({ maxScopes: 4, maxScopesPerTenant: 100 }));
    observe(model, agentScopeKey("main", "small"), "t", ["alpha"]);
    for (let i = 0; i < 10; i++) observe(model, agentScopeKey(`a${i}`, "big"), "t", ["beta"]);
    const scopes = new Set([...model.rows()].map((r) => r.scope));
    expect(scopes.size).toBe(4);
    expect(scopes.has(agentScopeKey("main", "small"))).toBe(true);
    expect(scopes.has(agentScopeKey("a9", "big"))).toBe(true);
  });

  it("past maxRecords in all, the tenant holding the most records loses its oldest tools; rows read back keep the shares", () => {
    const model = new LearnedModel(options({ maxRecords: 1_000, maxRecordsPerTenant: 100_000 }));
    observe(model, agentScopeKey("main", "small"), "t0", ["alpha", "beta"]);
    for (let i = 0; i < 100; i++)
      observe(
        model,
        agentScopeKey("main", "big"),
        `t${i}`,
        Array.from({ length: 16 }, (_, j) => `w${i}x${j}`),
      );
    expect(model.size().records).toBeLessThanOrEqual(1_000 + 16);
    expect([...model.rows()].filter((r) => r.scope === agentScopeKey("main", "small"))).toHaveLength(2);
    // The same rows merged into a fresh model are bounded the same way.
    const copy = new LearnedModel(options({ maxRecords: 1_000, maxRecordsPerTenant: 100_000 }));
    copy.merge([
      ...model.rows(),
      ...Array.from({ length: 200 }, (_, i) => ({ scope: agentScopeKey("x", "big"), tool: `u${i}`, term: "gamma", count: 1, sessions: 1, at: 0, seen: ["h"] })),
    ]);
    expect(copy.size().records).toBeLessThanOrEqual(1_000 + 1);
    expect([...copy.rows()].filter((r) => r.scope === agentScopeKey("main", "small"))).toHaveLength(2);
  });
});
