/** A tool outside the effective catalog is invisible everywhere, exactly like a tool that never existed. */
import { afterEach, describe, expect, it } from "vitest";
import type { ToolSearchEngine } from "../../src/index.js";
import { fixtureEngine } from "./helpers.js";

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

describe("hidden tools", () => {
  it("are never found, described or called, and answer like unknown ids", async () => {
    const recorder = { ran: [] as string[] };
    engine = await fixtureEngine({ policy: { deny: ["plugin:github:create_issue"] } }, recorder);
    const run = await engine.prepareRun({ sessionId: "s" });

    const hits = await run.search("create github issue", { limit: 20 });
    expect(hits.map((h) => h.id)).not.toContain("plugin:github:create_issue");
    expect(await run.search("select:create_issue")).toEqual([]);
    expect(await run.search("plugin:github:create_issue")).not.toContainEqual(expect.objectContaining({ id: "plugin:github:create_issue" }));

    const hidden = await run.describe("plugin:github:create_issue").catch((e: unknown) => e);
    const never = await run.describe("plugin:github:never_existed").catch((e: unknown) => e);
    expect(hidden).toMatchObject({ code: "TOOL_NOT_FOUND" });
    expect(never).toMatchObject({ code: "TOOL_NOT_FOUND" });
    // Same words as for an id that never existed: only the id and the hint (suggestions or none) differ.
    const shape = (error: unknown, id: string): string =>
      (error as Error).message.replace(id, "<id>").replace(/ (Did you mean: .*|Use search to find tool ids\.)$/, "");
    expect(shape(hidden, "plugin:github:create_issue")).toBe(shape(never, "plugin:github:never_existed"));
    expect((hidden as Error).message).not.toMatch(/denied|policy/i);

    const called = await run.call("plugin:github:create_issue", { repo: "a/b", title: "t" });
    expect(called).toMatchObject({ ok: false, error: { code: "TOOL_NOT_FOUND" } });
    expect(recorder.ran).toEqual([]);

    // Suggestions never leak the hidden tool either.
    const suggested = await run.call("plugin:github:create_issu", {});
    expect(suggested).toMatchObject({ ok: false, error: { code: "TOOL_NOT_FOUND" } });
    expect(suggested.ok ? "" : suggested.error.message).not.toContain("plugin:github:create_issue");
  });

  it("owner-only tools need owner: true", async () => {
    engine = await fixtureEngine();
    const guest = await engine.prepareRun({ sessionId: "g" });
    expect((await guest.search("delete user account")).map((h) => h.id)).not.toContain("core:delete_user");
    expect(await guest.call("core:delete_user", { userId: "u" })).toMatchObject({ ok: false, error: { code: "TOOL_NOT_FOUND" } });
    const owner = await engine.prepareRun({ sessionId: "o", owner: true });
    expect((await owner.search("delete user account")).map((h) => h.id)).toContain("core:delete_user");
    expect(await owner.call("core:delete_user", { userId: "u" })).toMatchObject({ ok: true });
  });

  it("a second run with another policy subject filters the same index instead of re-indexing", async () => {
    engine = await fixtureEngine({ policy: { agents: { narrow: { allow: ["core:*"] } } } });
    const wide = await engine.prepareRun({ sessionId: "a" });
    const narrow = await engine.prepareRun({ sessionId: "b", agentId: "narrow" });
    expect((await wide.search("github issue")).map((h) => h.id)).toContain("plugin:github:create_issue");
    expect((await narrow.search("github issue")).map((h) => h.id)).not.toContain("plugin:github:create_issue");
    const internals = engine as unknown as { indexes: { lastBuild?: { via: string } } };
    expect(internals.indexes.lastBuild?.via).toBe("cache");
    expect(wide.telemetry().catalog.size).toBe(5);
    expect(narrow.telemetry().catalog.bySource).toEqual({ core: 2, plugin: 0, mcp: 0, client: 0 });
  });

  it("policy applies to client tools too", async () => {
    engine = await fixtureEngine({ policy: { deny: ["client:secret_*"] } });
    const ask = { name: "ask_user", description: "Ask the user a question.", inputSchema: { type: "object" }, execute: () => "yes" };
    const secret = { name: "secret_dump", description: "Dump secrets.", inputSchema: { type: "object" }, execute: () => "leak" };
    const run = await engine.prepareRun({ sessionId: "c", clientTools: [ask, secret] });
    expect((await run.search("ask the user")).map((h) => h.id)).toContain("client:ask_user");
    expect(await run.call("client:secret_dump", {})).toMatchObject({ ok: false, error: { code: "TOOL_NOT_FOUND" } });
    expect(await run.call("client:ask_user", {})).toMatchObject({ ok: true, source: "client", result: "yes" });
  });
});
